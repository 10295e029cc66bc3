import Foundation
import TodoCore
import TodoProtocol
import TodoStore

#if canImport(Glibc)
    import Glibc
#endif

/// The change log: how long `store.undo` of one change takes (in the store, and through the
/// daemon), and how much the log adds to the store file per 100,000 logged changes.
enum LogBench {
    static func run(todos: Int, samples: Int, changes: Int) throws {
        print("== change log (undo on a store of \(todos) todos; store size per \(changes) logged changes)")
        let dir = try TempDir("log")
        let store = try TodoStore(path: dir.file("undo.db"))
        for batch in stride(from: 0, to: todos, by: 1000) {
            try store.write { tx in
                for i in batch..<min(batch + 1000, todos) { _ = try tx.add(NewTodo(title: "todo \(i) 牛乳を買う")) }
            }
        }
        var times: [Double] = []
        for i in 0..<samples {
            let id = Int64(i % todos + 1)
            _ = try store.write { try $0.update(id, TodoPatch(title: .set("edited \(i) 報告書"))) }
            let t0 = Measure.now()
            _ = try store.write { try $0.undo() }
            times.append(Measure.now() - t0)
        }
        store.close()
        report("TodoStore undo of one edit (durable)", times)
        let storeMedian = Stats(times).percentile(50)

        let daemon = try DaemonRun(dir: dir, database: dir.file("undo.db"))
        defer { daemon.stop() }
        let connection = try LineConnection(path: daemon.socket)
        var daemonTimes: [Double] = []
        for i in 0..<samples {
            try call(
                connection, Int64(2 * i + 1), Method.todoUpdate.name,
                ["id": .int(Int64(i % todos + 1)), "title": .string("again \(i)")])
            let t0 = Measure.now()
            try call(connection, Int64(2 * i + 2), Method.storeUndo.name, [:])
            daemonTimes.append(Measure.now() - t0)
        }
        daemon.stop()
        report("store.undo of one edit through todod", daemonTimes)
        Summary.add(
            "undo of one change (store.undo round trip, durable)",
            value: formatSeconds(Stats(daemonTimes).percentile(50)),
            peer: "in the store: " + formatSeconds(storeMedian))

        // Size: the same changes with the log and without; the difference is the log's.
        for (label, edits) in [("adds", false), ("title edits", true)] {
            var sizes: [Double] = []
            for changeLog in [true, false] {
                let path = dir.file("size-\(edits)-\(changeLog).db")
                let s = try TodoStore(path: path, changeLog: changeLog)
                if edits { try s.write { tx in for i in 0..<1000 { _ = try tx.add(NewTodo(title: "todo \(i)")) } } }
                let t0 = Measure.now()
                defer {
                    print(
                        String(
                            format: "  %d %@ in transactions of 1000, log %@: %.1f µs each", changes, label,
                            changeLog ? "on" : "off", (Measure.now() - t0) / Double(changes) * 1e6))
                }
                for batch in stride(from: 0, to: changes, by: 1000) {
                    try s.write { tx in
                        for i in batch..<min(batch + 1000, changes) {
                            if edits {
                                _ = try tx.update(Int64(i % 1000 + 1), TodoPatch(title: .set("edit \(i) 牛乳を買う")))
                            } else {
                                _ = try tx.add(NewTodo(title: "todo \(i) 牛乳を買う"))
                            }
                        }
                    }
                }
                s.close()
                sizes.append(Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0))
            }
            let perHundredThousand = (sizes[0] - sizes[1]) * 100_000 / Double(changes)
            let text = String(format: "%.1f MB", perHundredThousand / 1e6)
            print(
                "  store size, \(changes) \(label): \(String(format: "%.1f MB with the log, %.1f MB without", sizes[0] / 1e6, sizes[1] / 1e6))"
            )
            Summary.add(
                "change log size per 100,000 \(label)", value: text,
                peer: String(format: "store %.1f MB without it", sizes[1] * 100_000 / Double(changes) / 1e6))
        }
    }

    private static func call(_ connection: LineConnection, _ id: Int64, _ method: String, _ params: JSONObject) throws {
        try connection.send(requestLine(id: id, method, params))
        guard try connection.withLine({ containsResult($0) }) else {
            throw BenchError("\(method) answered with an error")
        }
    }
}
