import Foundation
import TodoCore
import TodoProtocol
import TodoStore

/// The alarms section (issue 35): what a list of alarms costs a todo's add and read (none, the
/// one reminder at the due time, three alarms one of which nags), and, with `count` todos of
/// three alarms each, the next-reminder lookup the scheduler re-arms with and the daemon's RSS
/// (against the same number of todos with one reminder each).
enum AlarmBench {
    static func run(count: Int, samples: Int) throws {
        print("== alarms (\(count) todos × 3 alarms, against \(count) × 1)")
        let dir = try TempDir("alarms")
        defer { dir.remove() }
        let base = Instant.now().adding(usec: 86_400_000_000)
        let minute: Int64 = 60_000_000
        func three(_ i: Int) -> [Alarm] {
            [
                Alarm(uid: "", trigger: .due(-86_400_000_000)), Alarm(uid: "", trigger: .due(-15 * minute)),
                Alarm(uid: "", trigger: .due(0), repeatCount: 6, intervalUsec: 10 * minute)
            ]
        }
        // Add and get, in one transaction per 1,000 adds (the fsync of a commit is the same with or without alarms).
        let store = try TodoStore(path: dir.file("cost.db"))
        let shapes: [(String, (Int) -> NewTodo)] = [
            ("no due, no alarm", { i in NewTodo(title: "todo \(i) 牛乳を買う") }),
            (
                "due, its one reminder",
                { i in NewTodo(title: "todo \(i) 牛乳を買う", due: base.adding(usec: Int64(i) * minute)) }
            ),
            (
                "due, 3 alarms (one nagging)",
                { i in NewTodo(title: "todo \(i) 牛乳を買う", due: base.adding(usec: Int64(i) * minute), alarms: three(i)) }
            )
        ]
        var perAdd: [String: Double] = [:]
        var perGet: [String: Double] = [:]
        for (name, make) in shapes {
            var ids: [Int64] = []
            let adds = try Measure.samples(samples) {
                try store.write { tx in
                    for i in 0..<1_000 { ids.append(try tx.add(make(i)).id) }
                }
            }
            perAdd[name] = Stats(adds).median / 1_000
            let gets = try Measure.samples(samples) {
                _ = try store.read { tx in for id in ids.suffix(1_000) { _ = try tx.todo(id) } }
            }
            perGet[name] = Stats(gets).median / 1_000
            print(
                String(
                    format: "  %-32@ add %@ per todo, get %@ per todo", name as NSString,
                    formatSeconds(perAdd[name]!), formatSeconds(perGet[name]!)))
        }
        let plain = "due, its one reminder"
        let many = "due, 3 alarms (one nagging)"
        Summary.add(
            "alarms: store add, 3 alarms vs 1", value: formatSeconds(perAdd[many]!),
            peer: formatSeconds(perAdd[plain]!),
            ratio: String(format: "%.2f×", perAdd[many]! / perAdd[plain]!))
        Summary.add(
            "alarms: store get, 3 alarms vs 1", value: formatSeconds(perGet[many]!),
            peer: formatSeconds(perGet[plain]!),
            ratio: String(format: "%.2f×", perGet[many]! / perGet[plain]!))
        store.close()

        // Re-arm and RSS: `count` todos with three alarms each, and as many with one reminder.
        var rearm: [String: Double] = [:]
        var rss: [String: Int?] = [:]
        for (name, alarms) in [("1 reminder", false), ("3 alarms", true)] {
            let path = dir.file("\(alarms ? "three" : "one").db")
            let s = try TodoStore(path: path)
            for batch in stride(from: 0, to: count, by: 1_000) {
                try s.write { tx in
                    for i in batch..<min(batch + 1_000, count) {
                        let due = base.adding(usec: Int64(i) * minute)
                        _ = try tx.add(NewTodo(title: "todo \(i) 牛乳を買う", due: due, alarms: alarms ? three(i) : nil))
                    }
                }
            }
            let times = try Measure.samples(samples * 20) { _ = try s.read { try $0.nextPendingReminder() } }
            rearm[name] = Stats(times).median
            report("next-reminder lookup (re-arm), \(count) todos × \(name)", times)
            s.close()
            let daemon = try DaemonRun(dir: dir, database: path, name: "todod-\(alarms ? 3 : 1)")
            // A change re-arms: one edit, answered once the commit and the re-arm ran.
            let connection = try daemon.connect()
            let edit = requestLine(id: 1, Method.todoUpdate.name, ["id": .int(1), "title": .string("edited")])
            let edits = try Measure.samples(samples) { _ = try connection.call(edit) }
            report("todo.update through the daemon (commit + re-arm), \(name)", edits)
            rss[name] = daemon.rss
            print("  todod RSS with \(count) todos × \(name): \(formatMiB(daemon.rss))")
            daemon.stop()
        }
        Summary.add(
            "alarms: re-arm lookup, \(count) × 3 vs × 1", value: formatSeconds(rearm["3 alarms"]!),
            peer: formatSeconds(rearm["1 reminder"]!),
            ratio: String(format: "%.2f×", rearm["3 alarms"]! / rearm["1 reminder"]!))
        Summary.add(
            "alarms: todod RSS, \(count) × 3 vs × 1", value: formatMiB(rss["3 alarms"] ?? nil),
            peer: formatMiB(rss["1 reminder"] ?? nil))
    }
}
