import Testing
import TodoCore
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// The seeded model test of the planner alone (the seed is printed, `TODOSYNC_SEED=N` replays
/// it): random bases, random edits of each field, deletes, creations and moves on the store's
/// side and on the server's, one `SyncPlanner.plan`, its writes carried out on in-memory copies
/// of both sides; then both hold the same todos with the same fields in the same order, a second
/// plan from the result writes nothing, the later of two edits of one field wins and its
/// conflict names the value that lost.
struct PlannerModelTests {
    static let fields: [SyncField] = [.title, .notes, .priority, .done, .tags]
    static let codec = VTodoCodec()

    /// The store's side: its todos and the one manual order (done todos keep their places).
    struct LocalSide {
        var todos: [String: Todo] = [:]
        var order: [String] = []
        var moved: Set<String> = []
        var changed: Set<String> = []
        var nextID: Int64 = 1
        var open: [String] { order.filter { todos[$0]?.done == false } }

        /// The todos with their ranks among the open ones.
        func ranked() -> [String: Todo] {
            var out = todos
            for uid in out.keys { out[uid]!.position = nil }
            for (i, uid) in open.enumerated() { out[uid]!.position = i + 1 }
            return out
        }

        /// Sets a todo from an entry (`store.import`): a new one goes to the end of the order.
        mutating func put(_ entry: ExportDocument.Entry) {
            let uid = entry.uid!
            guard !entry.deleted else {
                todos[uid] = nil
                order.removeAll { $0 == uid }
                return
            }
            var todo =
                todos[uid]
                ?? Todo(
                    id: nextID, uid: uid, title: "", position: nil, created: entry.created, updated: entry.updated,
                    revision: 0)
            if todos[uid] == nil {
                nextID += 1
                order.append(uid)
            }
            todo.title = entry.title
            todo.notes = entry.notes
            todo.category = entry.category
            todo.due = entry.due
            todo.remind = entry.remind
            todo.reminded = entry.reminded
            todo.done = entry.done
            todo.completed = entry.completed
            todo.priority = entry.priority
            todo.tags = entry.tags
            todo.zone = entry.zone
            todo.allDay = entry.allDay
            todo.recurrence = entry.recurrence
            todo.start = entry.start
            todo.parentUid = entry.parent
            todo.updated = entry.updated
            todo.revision += 1
            todos[uid] = todo
        }
    }

    /// The server's side: each resource's href, ETag and bytes, by uid.
    struct RemoteSide {
        var resources: [String: (href: String, etag: String, bytes: [UInt8])] = [:]
        /// Each resource's item, read once from its bytes.
        var items: [String: SyncItem] = [:]
        var changed: Set<String> = []
        var tag = 0

        func item(_ uid: String) -> SyncItem? { resources[uid] == nil ? nil : items[uid] }

        mutating func put(_ uid: String, _ item: SyncItem, href: String? = nil) -> (
            href: String, etag: String, bytes: [UInt8]
        ) {
            tag += 1
            let resource = (
                href: href ?? resources[uid]?.href ?? "/cal/\(uid).ics", etag: "\"e\(tag)\"",
                bytes: PlannerModelTests.codec.bytes(item)
            )
            resources[uid] = resource
            items[uid] = try? PlannerModelTests.codec.item(resource.bytes).get()
            return resource
        }

        /// The open todos in the server's order (by sort order, then uid).
        var open: [String] {
            let open: [(uid: String, order: Int64?)] = resources.keys.compactMap { uid in
                guard let item = item(uid), !item.entry.done else { return nil }
                return (uid, item.sortOrder)
            }
            return open.sorted { a, b in a.order != b.order ? (a.order ?? .max) < (b.order ?? .max) : a.uid < b.uid }
                .map(\.uid)
        }
    }

    /// One edit of one field of an entry, at `clock` (the value differs by the counter).
    static func edit(_ entry: inout ExportDocument.Entry, _ field: SyncField, _ n: Int, clock: Int64) {
        switch field {
        case .title: entry.title = "題 \(n)"
        case .notes: entry.notes = n % 4 == 0 ? nil : "メモ \(n)"
        case .priority: entry.priority = [nil, .high, .medium, .low][n % 4]
        case .done:
            entry.done.toggle()
            entry.completed = entry.done ? Instant(seconds: clock) : nil
        default: entry.tags = ["t\(n % 3)", "x\(n)"]
        }
        entry.updated = Instant(seconds: clock)
    }

    static func entry(_ uid: String, _ n: Int, clock: Int64) -> ExportDocument.Entry {
        ExportDocument.Entry(
            title: "やること \(n)", notes: n % 2 == 0 ? "n\(n)" : nil, created: Instant(seconds: clock),
            updated: Instant(seconds: clock),
            uid: uid, priority: n % 3 == 0 ? .low : nil, tags: ["t\(n % 3)"])
    }

    /// A field's value as a conflict shows it.
    static func shownLost(_ field: SyncField, _ item: SyncItem) -> String {
        let e = item.entry
        switch field {
        case .title: return "title \"\(e.title)\""
        case .notes: return "notes " + (e.notes.map { "\"\($0)\"" } ?? "none")
        case .priority: return "priority " + (e.priority?.rawValue ?? "none")
        case .done: return "done " + (e.done ? "done" : "open")
        default: return field.rawValue
        }
    }

    struct Case {
        var local = LocalSide(), remote = RemoteSide()
        var bases: [String: SyncedItem] = [:]
        /// The base items, by uid; whether the server reordered or made todos.
        var baseItems: [String: SyncItem] = [:]
        var remoteReordered = false, remoteCreated = false
    }

    /// A synced collection of 3 to 8 todos, then random changes on both sides.
    static func randomCase(_ rng: inout SeededRandom) -> Case {
        var c = Case()
        var clock: Int64 = 1_700_000_000
        var n = 0
        for i in 0..<Int.random(in: 3...8, using: &rng) {
            n += 1
            let uid = "u\(i)"
            var e = entry(uid, n, clock: clock)
            if Int.random(in: 0..<5, using: &rng) == 0 {
                e.done = true
                e.completed = Instant(seconds: clock)
            }
            let r = c.remote.put(uid, SyncItem(entry: e, sortOrder: Int64(i + 1) * 1024))
            c.bases[uid] = SyncedItem(uid: uid, href: r.href, etag: r.etag, base: r.bytes)
            let item = try! codec.item(r.bytes).get()
            c.baseItems[uid] = item
            c.local.put(item.entry)
        }
        c.local.changed = []
        // The store's side.
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            clock += 1
            n += 1
            let uids = c.local.order
            let roll = Int.random(in: 0..<10, using: &rng)
            if uids.isEmpty || roll == 0 {
                let uid = "l\(n)"
                c.local.put(entry(uid, n, clock: clock))
                c.local.changed.insert(uid)
                continue
            }
            let uid = uids[Int.random(in: 0..<uids.count, using: &rng)]
            c.local.changed.insert(uid)
            if roll == 1 {
                var e = ExportDocument.Entry(c.local.todos[uid]!)
                e.deleted = true
                c.local.put(e)
            } else if roll <= 3 {
                guard c.local.todos[uid]?.done == false else { continue }
                c.local.order.removeAll { $0 == uid }
                c.local.order.insert(uid, at: Int.random(in: 0...c.local.order.count, using: &rng))
                c.local.moved.insert(uid)
            } else {
                var e = ExportDocument.Entry(c.local.todos[uid]!)
                edit(&e, fields.randomElement(using: &rng)!, n, clock: clock)
                c.local.put(e)
            }
        }
        // The server's side (another client).
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            clock += 1
            n += 1
            let uids = c.remote.resources.keys.sorted()
            let roll = Int.random(in: 0..<10, using: &rng)
            if uids.isEmpty || roll == 0 {
                let uid = "r\(n)"
                _ = c.remote.put(
                    uid,
                    SyncItem(
                        entry: entry(uid, n, clock: clock), sortOrder: Int64.random(in: -5000...20_000, using: &rng)))
                c.remote.changed.insert(uid)
                c.remoteCreated = true
                continue
            }
            let uid = uids[Int.random(in: 0..<uids.count, using: &rng)]
            c.remote.changed.insert(uid)
            var item = c.remote.item(uid)!
            if roll == 1 {
                c.remote.resources[uid] = nil
                continue
            } else if roll <= 3 {
                item.sortOrder = Int64.random(in: -5000...20_000, using: &rng)
                c.remoteReordered = true
            } else {
                edit(&item.entry, fields.randomElement(using: &rng)!, n, clock: clock)
            }
            _ = c.remote.put(uid, item)
        }
        return c
    }

    /// The planner's input from both sides (the uids: what changed on either side, as the
    /// gather step finds them).
    static func input(_ c: Case, uids: Set<String>, remotes: [String: SyncPlanner.Remote]) -> SyncPlanner.Input {
        let ranked = c.local.ranked()
        var locals: [String: SyncPlanner.Local] = [:]
        for uid in uids.union(c.local.todos.keys) {
            locals[uid] = SyncPlanner.Local(todo: ranked[uid], moved: c.local.moved.contains(uid))
        }
        let known = c.bases.compactMapValues { SyncState.sortOrder(in: String(decoding: $0.base, as: UTF8.self)) }
        return SyncPlanner.Input(
            uids: uids, locals: locals, remotes: remotes, bases: c.bases, open: c.local.open, known: known,
            now: Instant(seconds: 1_800_000_000), codec: codec)
    }

    /// The plan's writes on both sides, as `SyncApply` makes them: the store first (new todos
    /// in their sort order), then the server with the state, then the store's order follows
    /// the server's.
    static func apply(_ out: SyncPlanner.Output, to c: inout Case) {
        let entries = out.plans.enumerated().compactMap { i, p in p.localWrite.map { (i, $0, p.order) } }
            .sorted { a, b in
                switch (a.2, b.2) {
                case (let x?, let y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.0 < b.0
                }
            }
        for (_, entry, _) in entries {
            var e = entry
            e.ifRevision = nil
            c.local.put(e)
        }
        for p in out.plans {
            switch p.remoteWrite {
            case .create(let name, let item)?:
                let r = c.remote.put(p.uid, item, href: "/cal/" + (name ?? "new-\(p.uid).ics"))
                c.bases[p.uid] = SyncedItem(uid: p.uid, href: r.href, etag: r.etag, base: r.bytes)
            case .update(_, _, let item)?:
                let r = c.remote.put(p.uid, item)
                c.bases[p.uid] = SyncedItem(uid: p.uid, href: r.href, etag: r.etag, base: r.bytes)
            case .delete?:
                c.remote.resources[p.uid] = nil
                c.bases[p.uid] = nil
            case nil:
                if case .some(let state) = p.newState { c.bases[p.uid] = state }
            }
        }
        let known = c.bases.compactMapValues { SyncState.sortOrder(in: String(decoding: $0.base, as: UTF8.self)) }
        let open = c.local.open
        let following = SyncPlanner.followingServer(open: open, known: known)
        var slots = following.makeIterator()
        c.local.order = c.local.order.map { c.local.todos[$0]?.done == false ? slots.next()! : $0 }
        c.local.moved = []
    }

    @Test func thePlanConvergesBothSidesAndIsQuietAfterwards() throws {
        let seed = SeededRandom.seed(from: "TODOSYNC_SEED")
        print("PlannerModelTests seed: \(seed) (TODOSYNC_SEED=\(seed) replays it)")
        var rng = SeededRandom(seed: seed)
        var conflicts = 0
        var planning = Duration.zero
        var quiet = Duration.zero
        let clock = ContinuousClock()
        let started = clock.now
        for number in 0..<200 {
            var c = Self.randomCase(&rng)
            let before = c
            let tag = "case \(number), seed \(seed)"
            var failures: [String] = []
            func check(_ ok: Bool, _ message: @autoclosure () -> String) { if !ok { failures.append(message()) } }
            var remotes: [String: SyncPlanner.Remote] = [:]
            for uid in c.remote.changed {
                if let r = c.remote.resources[uid] {
                    remotes[uid] = .present(href: r.href, etag: r.etag, item: c.remote.item(uid)!, bytes: r.bytes)
                } else {
                    remotes[uid] = .absent
                }
            }
            let firstInput = Self.input(
                c, uids: c.local.changed.union(c.remote.changed).union(c.local.moved), remotes: remotes)
            let t0 = clock.now
            let out = SyncPlanner.plan(firstInput)
            planning += clock.now - t0
            Self.apply(out, to: &c)

            // (1) The same todos with the same fields, the same order.
            let localUIDs = Set(c.local.todos.keys)
            let remoteUIDs = Set(c.remote.resources.keys)
            check(localUIDs == remoteUIDs, "different todos: \(localUIDs.sorted()) / \(remoteUIDs.sorted()) (\(tag))")
            check(Set(c.bases.keys) == remoteUIDs, "the state is not the server's (\(tag))")
            for uid in localUIDs.intersection(remoteUIDs) {
                let local = SyncItem(todo: c.local.todos[uid]!, kept: nil)
                let remote = c.remote.item(uid)!
                for f in Self.fields {
                    check(
                        ThreeWayMerge.value(f, local) == ThreeWayMerge.value(f, remote),
                        "\(f) of \(uid) differs (\(tag))")
                }
            }
            check(c.local.open == c.remote.open, "different orders: \(c.local.open) / \(c.remote.open) (\(tag))")
            check(
                c.remote.open.allSatisfy { c.remote.item($0)?.sortOrder != nil },
                "an open todo without a place on the server (\(tag))")
            // A move here stands where the server reordered nothing.
            if !before.remoteReordered && !before.remoteCreated {
                let stayed = before.local.open.filter { c.local.open.contains($0) }
                check(
                    c.local.open.filter { stayed.contains($0) } == stayed,
                    "the store's order was lost: \(stayed) / \(c.local.open) (\(tag))")
            }

            // No lost edit; the later of two edits wins and its conflict names the loser.
            let conflictByUID = Dictionary(
                out.plans.compactMap { p in p.conflict.map { (p.uid, $0) } }, uniquingKeysWith: { a, _ in a })
            conflicts += conflictByUID.count
            for (uid, baseItem) in before.baseItems {
                let l = before.local.todos[uid].map { SyncItem(todo: $0, kept: nil) }
                let r = before.remote.item(uid)
                let lChanged = l.map { !ThreeWayMerge.sameContent(Self.codec.canonical($0), baseItem) } ?? true
                let rChanged = r.map { !ThreeWayMerge.sameContent($0, baseItem) } ?? true
                switch (l, r) {
                case (nil, nil),
                    (nil, _?) where !rChanged, (_?, nil) where !lChanged:
                    check(c.remote.resources[uid] == nil && c.local.todos[uid] == nil, "\(uid) came back (\(tag))")
                case (nil, _?), (_?, nil):
                    check(c.remote.resources[uid] != nil, "an edit of \(uid) lost to a delete (\(tag))")
                    check(
                        conflictByUID[uid]?.lost?.contains("deletion") == true,
                        "no conflict names the deletion of \(uid) (\(tag))")
                case (let l?, let r?):
                    guard let final = c.remote.item(uid) else {
                        check(false, "\(uid) was lost (\(tag))")
                        continue
                    }
                    let localLater = l.entry.updated > r.entry.updated
                    let l = Self.codec.canonical(l)
                    for f in Self.fields {
                        let b = ThreeWayMerge.value(f, baseItem)
                        let lv = ThreeWayMerge.value(f, l)
                        let rv = ThreeWayMerge.value(f, r)
                        let fv = ThreeWayMerge.value(f, final)
                        if lv == b || lv == rv {
                            check(fv == rv, "\(f) of \(uid): the server's edit was lost (\(tag))")
                        } else if rv == b {
                            check(fv == lv, "\(f) of \(uid): the store's edit was lost (\(tag))")
                        } else if f != .tags {
                            check(fv == (localLater ? lv : rv), "\(f) of \(uid): the earlier edit won (\(tag))")
                            let lost = Self.shownLost(f, localLater ? r : l)
                            check(
                                conflictByUID[uid]?.lost?.contains(lost) == true,
                                "the conflict on \(f) of \(uid) does not name \(lost): \(conflictByUID[uid]?.lost ?? nil ?? "none") (\(tag))"
                            )
                        }
                    }
                }
            }

            // (2) Planning again from the result writes nothing.
            let allUIDs = Set(c.local.todos.keys).union(c.remote.resources.keys)
            var echoes: [String: SyncPlanner.Remote] = [:]
            for (uid, r) in c.remote.resources {
                echoes[uid] = .present(href: r.href, etag: r.etag, item: c.remote.item(uid)!, bytes: r.bytes)
            }
            // The server's side as the base says (even cases), or every resource fetched again (odd).
            for remotes in [number % 2 == 0 ? [:] : echoes] {
                let quietInput = Self.input(c, uids: allUIDs, remotes: remotes)
                let t1 = clock.now
                let again = SyncPlanner.plan(quietInput)
                quiet += clock.now - t1
                let writes = again.plans.filter { $0.localWrite != nil || $0.remoteWrite != nil || $0.move != nil }
                check(writes.isEmpty, "not quiet: \(writes.map(\.uid)) (\(tag))")
            }
            #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
            if !failures.isEmpty { break }
        }
        print(
            "PlannerModelTests: 200 cases, \(conflicts) conflicts, \(clock.now - started) in all, \(planning) in the first plans, \(quiet) in the quiet ones"
        )
    }
}
