import Foundation
import TodoCore
import TodoProtocol
import TodoStore

/// Reading the change log out: `store.changes` of N changes (one page, and paged as a
/// sync client pages), and `watch` `since` replaying N events (time to the last event), against
/// a store whose log holds N changes (N adds, one change each).
enum FeedBench {
    static func run(changes count: Int, runs: Int) throws {
        let label = formatCount(count)
        print("== feed: a log of \(label) changes (\(label) adds)")
        let dir = try TempDir("feed")
        let database = dir.file("todos.db")
        let seedStart = Measure.now()
        let store = try TodoStore(path: database)
        try store.write { (tx) throws(TodoError) in
            for i in 0..<count { _ = try tx.add(NewTodo(title: Seed.title(i), category: Seed.category(i))) }
        }
        store.close()
        print("  logged \(label) changes in \(formatSeconds(Measure.now() - seedStart))")
        let daemon = try DaemonRun(dir: dir, database: database)
        defer { daemon.stop() }
        let connection = try daemon.connect()
        let newest = try connection.rpc(Method.daemonStatus.name)["result"]?["seq"]?.intValue ?? 0
        guard newest == Int64(count) else { throw BenchError("daemon.status seq is \(newest), expected \(count)") }

        // One page of every change.
        let whole = requestLine(
            id: 2, Method.storeChanges.name, ["since": 0, "limit": .int(Int64(min(count, StoreChangesParams.maxLimit)))]
        )
        let check = try parse(try connection.call(whole), what: Method.storeChanges.name)
        guard check["result"]?["changes"]?.arrayValue?.count == min(count, StoreChangesParams.maxLimit) else {
            throw BenchError("store.changes returned \(check["result"]?["changes"]?.arrayValue?.count ?? -1) changes")
        }
        let onePage = try Measure.samples(runs) { _ = try connection.call(whole) }
        report("store.changes of \(label), one page", onePage)
        // Paged with the default limit, as a sync client reads it.
        let paged = try Measure.samples(runs) {
            var since: Int64 = 0
            while true {
                let r = try parse(
                    try connection.call(requestLine(id: 3, Method.storeChanges.name, ["since": .int(since)])),
                    what: "store.changes")
                guard let next = r["result"]?["seq"]?.intValue else {
                    throw BenchError("store.changes failed: \(r.serialized().prefix(200))")
                }
                since = next
                if r["result"]?["more"] != true { break }
            }
        }
        report("store.changes of \(label), pages of \(StoreChangesParams.defaultLimit)", paged)

        // watch since 0: from the request to the last replayed event, on a fresh connection each time.
        let replay = try Measure.samples(runs) {
            let watcher = try daemon.connect()
            try watcher.send(requestLine(id: 1, Method.watch.name, ["since": 0]))
            var events = 0
            while events < count + 1 { _ = try watcher.withLine { _ in events += 1 } } // the answer, then the events
        }
        report("watch since 0, \(label) events to the last", replay)

        Summary.add(
            "Feed store.changes of \(label) changes (one page)", value: formatSeconds(Stats(onePage).median),
            peer: "paged by \(StoreChangesParams.defaultLimit): " + formatSeconds(Stats(paged).median))
        Summary.add(
            "Feed watch since replay of \(label) events (to the last)", value: formatSeconds(Stats(replay).median),
            peer: formatRate(Double(count) / Stats(replay).median, "events"))
    }
}
