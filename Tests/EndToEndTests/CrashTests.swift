import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What one client believes about its own todos: their order relative to each other, done flags
/// and categories. Other clients never touch them, so the global order restricted to them must
/// equal this list.
private struct OwnTodos: Equatable {
    struct Item: Equatable {
        var id: Int64
        var title: String
        var done: Bool
        var category: String?
    }
    var items: [Item] = []
    var category: String
}

/// kill -9 at random moments under a four-client load of adds, moves, deletes, completes and
/// category changes: after every restart each acknowledged change is there, positions are dense,
/// the database passes `PRAGMA integrity_check`, and the change log holds every acknowledged
/// change and no unacknowledged one (but the one each client had in flight, which may have
/// committed before the kill).
@Suite struct CrashTests {
    @Test func twentyKillNineRoundsLoseNothingAcknowledged() throws {
        let rounds = Int(ProcessInfo.processInfo.environment["TODOD_CRASH_ROUNDS"] ?? "") ?? 20
        let seed = SeededRandom.seed(from: "TODOD_CRASH_SEED")
        var rng = SeededRandom(seed: seed)
        let dir = TemporaryDirectory("crash")
        let clients = 4
        var models = (0..<clients).map { OwnTodos(category: "cat\($0)") }
        var counter = 0
        let acknowledged = LockedBox(0)
        defer { #expect(acknowledged.value >= rounds * 20, "only \(acknowledged.value) operations were acknowledged") }
        for round in 0..<rounds {
            let daemon = try DaemonProcess(directory: dir)
            models = try actual(daemon, clients: clients, categories: models.map(\.category))
            let startSeq = try Self.history(daemon).first?.seq ?? 0
            let shared = LockedBox(models)
            let pending = LockedBox<[Int: Effect]>([:])
            // Per client: the methods of its acknowledged changes in order, the one in flight, and
            // the ids of its todos (to tell whose change a log entry is).
            let ackedMethods = LockedBox([[String]](repeating: [], count: clients))
            let pendingMethod = LockedBox([String?](repeating: nil, count: clients))
            let owners = LockedBox([Int64: Int]())
            owners.mutate { o in for (k, m) in models.enumerated() { for item in m.items { o[item.id] = k } } }
            let stop = LockedBox(false)
            let group = DispatchGroup()
            let base = counter
            counter += 100_000
            for k in 0..<clients {
                let clientSeed = rng.next()
                DispatchQueue.global().async(group: group) {
                    var local = SeededRandom(seed: clientSeed)
                    guard let c = try? daemon.client() else { return }
                    var n = 0
                    while !stop.value {
                        n += 1
                        let model = shared.value[k]
                        let (method, params, effect) = Self.operation(k, model, base + n, &local)
                        pending.mutate { $0[k] = effect }
                        pendingMethod.mutate { $0[k] = method }
                        guard let answer = try? c.call(method, params) else { return } // killed: stays pending
                        pending.mutate { $0[k] = nil }
                        pendingMethod.mutate { $0[k] = nil }
                        if answer["result"] != nil {
                            acknowledged.mutate { $0 += 1 }
                            ackedMethods.mutate { $0[k].append(method) }
                            if method == "todo.add", let id = answer["result"]?["id"]?.intValue {
                                owners.mutate { $0[id] = k }
                            }
                            shared.mutate { models in
                                var m = models[k]
                                effect(&m, answer["result"] ?? .null)
                                models[k] = m
                            }
                        }
                    }
                }
            }
            // the kill at a random point of the work is what is tested
            usleep(UInt32.random(in: 150_000...700_000, using: &rng))
            daemon.stop(signal: SIGKILL)
            stop.value = true
            group.wait()
            #expect(
                try ChildProcess.sqlite3(daemon.database, "PRAGMA integrity_check;") == "ok",
                "round \(round), seed \(seed)")

            let restarted = try DaemonProcess(directory: dir)
            let after = try actual(restarted, clients: clients, categories: shared.value.map(\.category))
            let list = try restarted.client().result("todo.list", ["status": "all"])
            let positions = list["todos"]?.arrayValue?.compactMap { $0["position"]?.intValue } ?? []
            #expect(positions == (0..<Int64(positions.count)).map { $0 + 1 }, "round \(round), seed \(seed)")
            for k in 0..<clients {
                var withPending = shared.value[k]
                if let effect = pending.value[k] { effect(&withPending, .null) }
                // Ids of a todo added by a lost answer are unknown: compare without them.
                let key = { (o: OwnTodos) in o.items.map { "\($0.title)|\($0.done)|\($0.category ?? "-")" } }
                let ok = key(after[k]) == key(shared.value[k]) || key(after[k]) == key(withPending)
                #expect(
                    ok,
                    "round \(round) client \(k), seed \(seed): expected \(shared.value[k].items.map(\.title)) got \(after[k].items.map(\.title))"
                )
                if !ok { return }
            }
            // The log: each client's entries are its acknowledged changes in order (a move that
            // changed nothing logs nothing), then at most the one it had in flight.
            let entries = try Self.history(restarted).filter { $0.seq > startSeq }.reversed()
            var logged = [[String]](repeating: [], count: clients)
            for entry in entries {
                guard let k = Self.owner(of: entry.description, owners.value, categories: shared.value.map(\.category))
                else {
                    Issue.record("round \(round), seed \(seed): a log entry of no client: \(entry.description)")
                    return
                }
                logged[k].append(entry.kind)
            }
            for k in 0..<clients {
                var rest = logged[k][...]
                for method in ackedMethods.value[k] {
                    if rest.first == Self.kind(of: method) {
                        rest = rest.dropFirst()
                    } else if method != "todo.move" {
                        Issue.record(
                            "round \(round) client \(k), seed \(seed): acknowledged \(method) not in the log \(logged[k]) (acknowledged \(ackedMethods.value[k]))"
                        )
                        return
                    }
                }
                let inFlight = pendingMethod.value[k].map(Self.kind(of:))
                #expect(
                    rest.isEmpty || (rest.count == 1 && rest.first == inFlight),
                    "round \(round) client \(k), seed \(seed): unacknowledged changes in the log: \(Array(rest)) (in flight: \(inFlight ?? "-"))"
                )
            }
            models = after
            restarted.stop()
        }
    }

    /// A random operation of client `k` on its own todos: method, params, and its effect on the model.
    private typealias Effect = @Sendable (inout OwnTodos, JSON) -> Void
    private static func operation(_ k: Int, _ m: OwnTodos, _ n: Int, _ rng: inout SeededRandom) -> (
        String, JSONObject, Effect
    ) {
        let roll = m.items.count < 3 ? 0 : Int.random(in: 0..<100, using: &rng)
        switch roll {
        case 0..<35:
            let title = "c\(k)-\(n) 項目"
            let category: String? = Bool.random(using: &rng) ? m.category : nil
            var params: JSONObject = ["title": .string(title)]
            if let category { params["category"] = .string(category) }
            return (
                "todo.add", params,
                { model, result in
                    model.items.append(
                        .init(id: result["id"]?.intValue ?? -1, title: title, done: false, category: category))
                }
            )
        case 35..<60:
            let x = m.items.randomElement(using: &rng)!
            let y = m.items.filter { $0.id != x.id }.randomElement(using: &rng)!
            let before = Bool.random(using: &rng)
            return (
                "todo.move", ["id": .int(x.id), before ? "before" : "after": .int(y.id)],
                { model, _ in
                    guard let xi = model.items.firstIndex(where: { $0.id == x.id }) else { return }
                    let item = model.items.remove(at: xi)
                    guard let yi = model.items.firstIndex(where: { $0.id == y.id }) else {
                        model.items.insert(item, at: xi)
                        return
                    }
                    model.items.insert(item, at: before ? yi : yi + 1)
                }
            )
        case 60..<72:
            let x = m.items.randomElement(using: &rng)!
            return ("todo.delete", ["ids": [.int(x.id)]], { model, _ in model.items.removeAll { $0.id == x.id } })
        case 72..<90:
            let x = m.items.randomElement(using: &rng)!
            let done = !x.done
            return (
                done ? "todo.complete" : "todo.reopen", ["ids": [.int(x.id)]],
                { model, _ in
                    if let i = model.items.firstIndex(where: { $0.id == x.id }) { model.items[i].done = done }
                }
            )
        default:
            let new = m.category.hasSuffix("-r") ? String(m.category.dropLast(2)) : m.category + "-r"
            let old = m.category
            guard m.items.contains(where: { $0.category == old }) else {
                let x = m.items.randomElement(using: &rng)!
                return (
                    "todo.update", ["id": .int(x.id), "category": .string(old)],
                    { model, _ in
                        if let i = model.items.firstIndex(where: { $0.id == x.id }) { model.items[i].category = old }
                    }
                )
            }
            return (
                "category.rename", ["name": .string(old), "newName": .string(new)],
                { model, _ in
                    model.category = new
                    for i in model.items.indices where model.items[i].category == old { model.items[i].category = new }
                }
            )
        }
    }

    /// The store's change log, newest first (`store.history`).
    private static func history(_ daemon: DaemonProcess) throws -> [(seq: Int64, kind: String, description: String)] {
        let items = try daemon.client().result("store.history", ["limit": 10_000]).arrayValue ?? []
        return items.map {
            ($0["seq"]?.intValue ?? 0, $0["kind"]?.stringValue ?? "", $0["description"]?.stringValue ?? "")
        }
    }

    /// The log's kind for a method of this test.
    private static func kind(of method: String) -> String {
        switch method {
        case "todo.add": "add"
        case "todo.move": "move"
        case "todo.delete": "delete"
        case "todo.complete": "complete"
        case "todo.reopen": "reopen"
        case "todo.update": "update"
        default: method
        }
    }

    /// The client whose change a log description is: by its title ("c2-…"), its category
    /// ("cat2"), or the id it names.
    private static func owner(of description: String, _ owners: [Int64: Int], categories: [String]) -> Int? {
        if let range = description.range(of: #""c[0-9]+-"#, options: .regularExpression) {
            return Int(description[range].dropFirst(2).dropLast())
        }
        if let range = description.range(of: #""cat[0-9]+"#, options: .regularExpression) {
            return Int(description[range].dropFirst(4))
        }
        let words = description.split(separator: " ")
        guard words.count >= 2, let id = Int64(words[1].trimmingCharacters(in: CharacterSet(charactersIn: ","))) else {
            return nil
        }
        return owners[id]
    }

    /// The clients' own todos as the daemon has them.
    private func actual(_ daemon: DaemonProcess, clients: Int, categories: [String]) throws -> [OwnTodos] {
        let list = try daemon.client().result("todo.list", ["status": "all"])["todos"]?.arrayValue ?? []
        let names = Set(
            try daemon.client().result("category.list").arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        return (0..<clients).map { k in
            var own = OwnTodos(category: categories[k])
            // A rename whose answer was lost may have happened: take whichever name exists.
            if !names.contains(own.category) {
                let other = own.category.hasSuffix("-r") ? String(own.category.dropLast(2)) : own.category + "-r"
                if names.contains(other) { own.category = other }
            }
            own.items = list.filter { $0["title"]?.stringValue?.hasPrefix("c\(k)-") == true }.map {
                .init(
                    id: $0["id"]?.intValue ?? 0, title: $0["title"]?.stringValue ?? "", done: $0["done"] == true,
                    category: $0["category"]?.stringValue)
            }
            return own
        }
    }
}
