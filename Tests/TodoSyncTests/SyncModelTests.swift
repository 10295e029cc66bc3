import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoTestSupport

@testable import TodoSync

/// The randomized model test (seeded; the seed is printed, `TODOSYNC_SEED=N` replays it): two
/// todod stores and one collection, random concurrent edits on both sides and from a third client
/// of the server, rounds until quiet; then both stores and the collection hold the same todos, no
/// duplicates, the same manual order everywhere (random moves on both stores, reorders on the
/// server), and every edit is there unless it lost a same-field conflict.
@Suite(.serialized) struct SyncModelTests {
    enum Field: String, CaseIterable { case title, notes, priority, done, tags }

    /// What one side did in one epoch (between quiet points).
    struct Epoch {
        /// The last value written to each field. A field written back to the value it had when
        /// the epoch began (completed and reopened, say) is no change: the merge sees none.
        var writes: [String: [Field: JSON]] = [:]
        var deleted: Set<String> = []
        var added: Set<String> = []
        /// Each written field's value before the epoch's first write to it.
        var before: [String: [Field: JSON]] = [:]
    }

    static func value(_ todo: JSON, _ field: Field) -> JSON {
        switch field {
        case .tags:
            return .array(
                (todo["tags"]?.arrayValue ?? []).compactMap(\.stringValue).map { $0.lowercased() }.sorted().map(
                    JSON.string))
        case .notes: return todo["notes"] ?? .null
        default: return todo[field.rawValue] ?? .null
        }
    }

    static func value(_ item: SyncItem, _ field: Field) -> JSON {
        let e = item.entry
        switch field {
        case .title: return .string(e.title)
        case .notes: return e.notes.map(JSON.string) ?? .null
        case .priority: return e.priority.map { .string($0.rawValue) } ?? .null
        case .done: return .bool(e.done)
        case .tags: return .array(e.tags.map { $0.lowercased() }.sorted().map(JSON.string))
        }
    }

    /// Random edits on one machine.
    static func edit(_ m: Machine, _ rng: inout SeededRandom, _ counter: inout Int, count: Int) throws -> Epoch {
        var epoch = Epoch()
        for _ in 0..<count {
            counter += 1
            let todos = try m.todos()
            let roll = Int.random(in: 0..<10, using: &rng)
            if todos.isEmpty || roll < 2 {
                let t = try m.add(
                    "新しい \(counter)", ["notes": .string("n\(counter)"), "tags": [.string("t\(counter % 3)")]])
                epoch.added.insert(t["uid"]!.stringValue!)
                continue
            }
            let todo = todos[Int.random(in: 0..<todos.count, using: &rng)]
            let uid = todo["uid"]!.stringValue!
            if roll == 2 {
                try m.delete(uid: uid)
                epoch.deleted.insert(uid)
                epoch.writes[uid] = nil
                continue
            }
            if roll == 3 {
                // A move in the manual order (of an open todo).
                let open = try m.openUIDs()
                guard let id = todo["id"], todo["done"] != true, open.count > 1 else { continue }
                _ = try m.client.result(
                    "todo.move", ["id": id, "position": .int(Int64(Int.random(in: 1...open.count, using: &rng)))])
                continue
            }
            let field = Field.allCases[Int.random(in: 0..<Field.allCases.count, using: &rng)]
            switch field {
            case .title: try m.update(uid: uid, ["title": .string("題 \(counter)")])
            case .notes: try m.update(uid: uid, ["notes": .string("notes \(counter)")])
            case .priority:
                let p = ["high", "medium", "low"][counter % 3]
                guard todo["priority"] != .string(p) else { continue }
                try m.update(uid: uid, ["priority": .string(p)])
            case .done:
                let id = todo["id"]!
                _ = try m.client.result(todo["done"] == true ? "todo.reopen" : "todo.complete", ["ids": [id]])
            case .tags: try m.update(uid: uid, ["tags": [.string("x\(counter)"), .string("t\(counter % 3)")]])
            }
            guard let now = try m.todo(uid: uid) else { continue }
            if epoch.before[uid]?[field] == nil { epoch.before[uid, default: [:]][field] = value(todo, field) }
            epoch.writes[uid, default: [:]][field] = value(now, field)
        }
        for (uid, fields) in epoch.writes {
            let changed = fields.filter { epoch.before[uid]?[$0.key] != $0.value }
            epoch.writes[uid] = changed.isEmpty ? nil : changed
        }
        return epoch
    }

    /// A third client edits titles directly on the server.
    static func phone(_ cal: InMemoryCollection, _ rng: inout SeededRandom, _ counter: inout Int) -> [String: JSON] {
        var out: [String: JSON] = [:]
        let hrefs = cal.resources.keys.sorted()
        guard !hrefs.isEmpty else { return out }
        for _ in 0..<2 {
            counter += 1
            let href = hrefs[Int.random(in: 0..<hrefs.count, using: &rng)]
            let title = "phone \(counter)"
            var uid: String?
            cal.edit(href) { text in
                uid = text.split(separator: "\r\n").first { $0.hasPrefix("UID:") }.map { String($0.dropFirst(4)) }
                return text.replacingOccurrences(
                    of: #"SUMMARY[^\r]*"#, with: "SUMMARY:\(title)", options: .regularExpression
                )
                .replacingOccurrences(
                    of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:20200101T000000Z", options: .regularExpression)
            }
            if let uid { out[uid] = .string(title) }
        }
        // And reorders an open todo (another sort order, an old LAST-MODIFIED).
        let open = cal.openUIDsBySortOrder().sorted()
        if !open.isEmpty {
            let uid = open[Int.random(in: 0..<open.count, using: &rng)]
            try? cal.setSortOrder(
                uid: uid, Int64.random(in: -10_000...20_000, using: &rng), modified: "20200101T000000Z")
        }
        return out
    }

    @Test func twoStoresAndAServerConvergeAfterRandomConcurrentEdits() throws {
        let seed = SeededRandom.seed(from: "TODOSYNC_SEED")
        print("SyncModelTests seed: \(seed) (TODOSYNC_SEED=\(seed) replays it)")
        var rng = SeededRandom(seed: seed)
        let a = try Machine()
        let b = try Machine()
        let cal = InMemoryCollection()
        var counter = 0
        for epochNumber in 0..<8 {
            let ea = try Self.edit(a, &rng, &counter, count: 6)
            let eb = try Self.edit(b, &rng, &counter, count: 6)
            // The phone's edits carry an old LAST-MODIFIED: they lose any same-field conflict.
            let phone = epochNumber % 2 == 1 ? Self.phone(cal, &rng, &counter) : [:]
            var quiet = false
            for _ in 0..<6 {
                let ra = try a.sync(cal)
                let rb = try b.sync(cal)
                #expect(ra.pending == 0 && rb.pending == 0)
                if ra.sent + ra.received + rb.sent + rb.received == 0 {
                    quiet = true
                    break
                }
            }
            #expect(quiet, "not quiet after 6 cycles (seed \(seed), epoch \(epochNumber))")

            // Same todos everywhere, no duplicates.
            let ta = try a.todos()
            let tb = try b.todos()
            let items = cal.items()
            let ua = Set(ta.compactMap { $0["uid"]?.stringValue })
            let ub = Set(tb.compactMap { $0["uid"]?.stringValue })
            #expect(
                ua.count == ta.count && ub.count == tb.count && items.count == cal.resources.count,
                "duplicates (seed \(seed))")
            #expect(ua == ub && ua == Set(items.keys), "different todos (seed \(seed), epoch \(epochNumber))")
            let byA = Dictionary(ta.map { ($0["uid"]!.stringValue!, $0) }, uniquingKeysWith: { x, _ in x })
            let byB = Dictionary(tb.map { ($0["uid"]!.stringValue!, $0) }, uniquingKeysWith: { x, _ in x })
            for uid in ua {
                for f in Field.allCases {
                    let va = Self.value(byA[uid]!, f)
                    let vb = Self.value(byB[uid]!, f)
                    #expect(va == vb, "\(f) of \(uid) differs: \(va) / \(vb) (seed \(seed))")
                    if let item = items[uid] {
                        #expect(Self.value(item, f) == va, "\(f) of \(uid) differs on the server (seed \(seed))")
                    }
                }
            }
            // The same manual order in both stores and on the server.
            let oa = try a.openUIDs()
            let ob = try b.openUIDs()
            #expect(oa == ob, "different orders: \(oa) / \(ob) (seed \(seed), epoch \(epochNumber))")
            let orders = oa.map { items[$0]?.sortOrder }
            #expect(
                !orders.contains(nil) && zip(orders, orders.dropFirst()).allSatisfy { $0! <= $1! },
                "the server's order is not the stores': \(orders) (seed \(seed), epoch \(epochNumber))")
            // No lost edit: a field only one side wrote has that side's value; both: one of them.
            for uid in ua {
                for f in Field.allCases {
                    let wa = ea.writes[uid]?[f]
                    let wb = eb.writes[uid]?[f]
                    let wp = f == .title ? phone[uid] : nil
                    let final = Self.value(byA[uid]!, f)
                    let candidates = [wa, wb, wp].compactMap { $0 }
                    guard f != .tags, !candidates.isEmpty else { continue } // tags merge as sets
                    if candidates.count == 1 {
                        #expect(
                            final == candidates[0], "\(f) of \(uid): \(final), expected \(candidates[0]) (seed \(seed))"
                        )
                    } else {
                        #expect(
                            candidates.contains(final),
                            "\(f) of \(uid): \(final) is none of \(candidates) (seed \(seed))")
                    }
                }
            }
            // A delete on one side wins only over a side that did not edit the todo.
            for uid in ea.deleted.union(eb.deleted) {
                let editedA = ea.writes[uid] != nil && !ea.deleted.contains(uid)
                let editedB = eb.writes[uid] != nil && !eb.deleted.contains(uid)
                if editedA || editedB { #expect(ua.contains(uid), "an edit of \(uid) lost to a delete (seed \(seed))") }
                if !editedA && !editedB && phone[uid] == nil {
                    #expect(!ua.contains(uid), "\(uid) came back (seed \(seed))")
                }
            }
            for uid in ea.added.union(eb.added) where !ea.deleted.contains(uid) && !eb.deleted.contains(uid) {
                #expect(ua.contains(uid), "a new todo \(uid) was lost (seed \(seed))")
            }
        }
    }

    /// The neighbour rule at Int64's edges: never an overflow, always strictly between, or a
    /// renumbering when there is no room.
    @Test func theNeighbourRuleStaysInsideInt64() {
        let (lo, hi) = (Int64.min, Int64.max)
        let mid = SyncPlanner.between(lo, hi)
        #expect(mid.map { $0 > lo && $0 < hi } == true)
        #expect(SyncPlanner.between(-3, 5) == 1)
        #expect(SyncPlanner.between(5, 6) == nil && SyncPlanner.between(6, 5) == nil)
        #expect(SyncPlanner.between(hi - 10, nil) == nil && SyncPlanner.between(nil, lo + 10) == nil)
        #expect(SyncPlanner.between(nil, -700_000_000) == -700_001_024 && SyncPlanner.between(nil, nil) == 1024)
        // Several moved at once, placed from the top; no room at the edge: every open todo renumbered.
        #expect(
            SyncPlanner.place(moved: ["x", "y"], open: ["a", "x", "y", "b"], known: ["a": 0, "b": 100, "x": 500]).orders
                == ["x": 50, "y": 75])
        #expect(
            SyncPlanner.place(moved: ["x"], open: ["x", "a"], known: ["a": lo + 5]) == (["x": 1024, "a": 2048], true))
    }
}
