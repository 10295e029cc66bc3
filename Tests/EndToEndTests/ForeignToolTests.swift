import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// `import --from taskwarrior` against the real `task` (Debian's taskwarrior) and todo.txt both
/// ways against the real `todo.sh` (Debian's todotxt-cli installs it as `todo-txt`), with the
/// running daemon's export as the record. Each test is skipped, saying why, where the tool is missing.
@Suite struct ForeignToolTests {
    static let task = ["/usr/bin/task", "/usr/local/bin/task"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let todosh = ["/usr/bin/todo-txt", "/usr/bin/todo.sh", "/usr/local/bin/todo.sh"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// `20261224T090000Z` as RFC 3339, as todod writes instants.
    static func rfc3339(_ basic: Any?) -> String? {
        guard let s = basic as? String, s.count == 16 else { return nil }
        let c = Array(s)
        return "\(String(c[0..<4]))-\(String(c[4..<6]))-\(String(c[6..<8]))T\(String(c[9..<11])):\(String(c[11..<13])):\(String(c[13..<15]))Z"
    }

    @Test(.enabled(if: task != nil, "taskwarrior is not installed (no task): apt-get install taskwarrior"))
    func taskwarriorExportImportsFieldByFieldAndOnce() throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        try "".write(toFile: dir.file("taskrc"), atomically: true, encoding: .utf8)
        let env = ["TASKRC": dir.file("taskrc"), "TASKDATA": dir.file("taskdata"), "TZ": "Asia/Tokyo"]
        @discardableResult func task(_ args: [String]) throws -> String {
            let r = try ChildProcess.run(Self.task!, ["rc.confirmation=off", "rc.recurrence.confirmation=off", "rc.verbose=nothing", "rc.hooks=off"] + args,
                                         environment: ProcessInfo.processInfo.environment.merging(env) { $1 })
            #expect(r.status == 0, "task \(args): \(r.stderr)")
            return r.stdout
        }
        try task(["add", "牛乳を買う", "project:Home.Kitchen", "+shop", "+今日", "priority:H", "due:2026-12-24", "wait:2026-11-20"])
        try task(["1", "annotate", "店に電話する"])
        try task(["add", "Weekly review", "due:2026-12-07T09:00", "recur:weekly", "until:2027-02-01", "priority:M"])
        try task(["add", "done one", "due:2026-12-02T18:30"])
        try task(["add", "gone"])
        try task(["add", "dep", "depends:1", "scheduled:2026-12-10", "priority:L"])
        try task(["list"])  // makes the recurring task's pending instance
        let before = try Self.json(try task(["export"])) as! [[String: Any]]
        let uuid = { (d: String, s: String) in before.first { $0["description"] as? String == d && $0["status"] as? String == s }?["uuid"] as! String }
        try task([uuid("done one", "pending"), "done"])
        try task([uuid("gone", "pending"), "delete"])
        let instance = before.first { $0["parent"] != nil }!["uuid"] as! String
        try task([instance, "done"])
        try task(["list"])  // the next instance
        let exported = try task(["export"])
        let tasks = try Self.json(exported) as! [[String: Any]]
        #expect(tasks.contains { $0["status"] as? String == "recurring" } && tasks.contains { $0["parent"] != nil && $0["status"] as? String == "completed" })
        try exported.write(toFile: dir.file("tasks.json"), atomically: true, encoding: .utf8)

        let imported = try daemon.todoctl(["import", "--from", "taskwarrior", dir.file("tasks.json")], environment: ["TZ": "Asia/Tokyo"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 4 todos and 1 category."), "\(imported.stdout)")
        #expect(imported.stdout.contains("not imported: 1 deleted task (gone)"), "\(imported.stdout)")

        // Field by field against the daemon's export.
        let export = try daemon.todoctl(["export"])
        let todos = (try Self.json(export.stdout) as! [String: Any])["todos"] as! [[String: Any]]
        let byUID = Dictionary(uniqueKeysWithValues: todos.map { ($0["uid"] as! String, $0) })
        let priorities = ["H": "high", "M": "medium", "L": "low"]
        // Taskwarrior makes the next instance only when it is due: the todo is due a week after the done one.
        let pending = tasks.filter { $0["parent"] != nil && $0["status"] as? String == "pending" }.compactMap { Self.rfc3339($0["due"]) }.min()
        let nextDue = pending ?? "2026-12-14T00:00:00Z"
        for t in tasks where t["status"] as? String != "deleted" && t["parent"] == nil {
            let uid = t["uuid"] as! String
            let todo = try #require(byUID[uid], "\(t)")
            #expect(todo["title"] as? String == t["description"] as? String)
            #expect(todo["category"] as? String == t["project"] as? String)
            #expect((todo["tags"] as? [String] ?? []).sorted() == (t["tags"] as? [String] ?? []).sorted())
            #expect(todo["priority"] as? String == (t["priority"] as? String).flatMap { priorities[$0] })
            #expect(todo["created"] as? String == Self.rfc3339(t["entry"]))
            let recurring = t["status"] as? String == "recurring"
            #expect(todo["due"] as? String == (recurring ? nextDue : Self.rfc3339(t["due"])), "\(uid)")
            #expect(todo["done"] as? Bool == (t["status"] as? String == "completed"))
            #expect(todo["completed"] as? String == Self.rfc3339(t["end"]))
            let start = Self.rfc3339(t["scheduled"]) ?? Self.rfc3339(t["wait"])
            #expect(todo["start"] as? String == start && todo["ical"] == nil, "\(uid)")
            if recurring {
                let until = Self.rfc3339(t["until"])!.filter { $0 != "-" && $0 != ":" }
                #expect((todo["recurrence"] as? [String: Any])?["rule"] as? String == "FREQ=WEEKLY;UNTIL=" + until)
            }
            for a in t["annotations"] as? [[String: Any]] ?? [] {
                #expect((todo["notes"] as? String)?.contains(a["description"] as! String) == true)
            }
            if t["depends"] != nil { #expect((todo["notes"] as? String)?.hasPrefix("Depends on: 牛乳を買う (") == true) }
        }
        #expect(byUID[uuid("done one", "pending")]?["done"] as? Bool == true)

        // Again: nothing changes.
        let again = try daemon.todoctl(["import", "--from", "taskwarrior", "-"], input: exported, environment: ["TZ": "Asia/Tokyo"])
        #expect(again.stdout.hasPrefix("Imported 4 todos (0 added, 0 updated, 4 unchanged) and 0 categories."), "\(again.stdout) \(again.stderr)")
        let export2 = try daemon.todoctl(["export"])
        #expect(NSDictionary(dictionary: (try Self.json(export2.stdout) as! [String: Any]).filter { $0.key != "exported" })
                == NSDictionary(dictionary: (try Self.json(export.stdout) as! [String: Any]).filter { $0.key != "exported" }))

        // A malformed entry: refused with the file and entry, nothing imported.
        try #"[{"uuid":"x1","description":"fine"},{"uuid":"x2"}]"#.write(toFile: dir.file("bad.json"), atomically: true, encoding: .utf8)
        let bad = try daemon.todoctl(["import", "--from", "taskwarrior", dir.file("bad.json")])
        #expect(bad.status == 1 && bad.stderr == "todoctl: \(dir.file("bad.json")): entry 2: has no description; nothing was imported\n", "\(bad.stderr)")
        #expect(try daemon.todoctl(["list", "--all", "--json"]).stdout.contains("fine") == false)
    }

    @Test(.enabled(if: todosh != nil, "todo.sh is not installed: apt-get install todotxt-cli"))
    func todotxtBothWaysWithTodoSh() throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        let config = dir.file("todo.cfg")
        try """
        export TODO_DIR=\(dir.path)
        export TODO_FILE="$TODO_DIR/todo.txt"
        export DONE_FILE="$TODO_DIR/done.txt"
        export REPORT_FILE="$TODO_DIR/report.txt"

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let tz = ["TZ": "Asia/Tokyo"]
        func todosh(_ args: [String]) throws -> String {
            let r = try ChildProcess.run(Self.todosh!, ["-d", config, "-p"] + args,
                                         environment: ProcessInfo.processInfo.environment.merging(tz) { $1 })
            #expect(r.status == 0, "todo.sh \(args): \(r.stderr)")
            return r.stdout
        }
        // todod writes, todo.sh reads.
        for args in [["add", "電話する", "--priority", "high", "--tag", "仕事", "--due", "2026-12-24"],
                     ["add", "Pay rent", "--category", "家計"], ["add", "low one", "--priority", "low"]] {
            #expect(try daemon.todoctl(args, environment: tz).status == 0)
        }
        #expect(try daemon.todoctl(["done", "2"]).status == 0)
        let written = try daemon.todoctl(["export", "--format", "todotxt", "--output", dir.file("todo.txt")], environment: tz)
        #expect(written.status == 0, "\(written.stderr)")
        let listed = try todosh(["ls"]).split(separator: "\n").map(String.init)
        // Open first by priority, then done; the dates are today's local date.
        #expect(listed.count == 5, "\(listed)")
        #expect(listed[0].hasPrefix("1 (A) ") && listed[0].hasSuffix(" 電話する +仕事 due:2026-12-24"), "\(listed)")
        #expect(listed[1].hasPrefix("3 (C) ") && listed[1].hasSuffix(" low one"), "\(listed)")
        #expect(listed[2].hasPrefix("2 x ") && listed[2].hasSuffix(" Pay rent +家計"), "\(listed)")
        #expect(try todosh(["lsprj"]) == "+仕事\n+家計\n")
        #expect(try todosh(["listpri", "A"]).hasPrefix("1 (A) "))
        // Archived, the done one is in done.txt: `ls` shows the open ones, `listall` all three.
        _ = try todosh(["archive"])
        #expect(try todosh(["ls"]).split(separator: "\n").filter { $0.contains(" x ") || $0.hasPrefix("0 x") }.isEmpty)
        let everything = try todosh(["listall"])
        #expect(everything.contains(" x ") && everything.contains("Pay rent +家計") && everything.contains("total 3 of 3 tasks shown"), "\(everything)")

        // todo.sh writes, todod reads.
        let other = TemporaryDirectory("todotxt")
        try """
        export TODO_DIR=\(other.path)
        export TODO_FILE="$TODO_DIR/todo.txt"
        export DONE_FILE="$TODO_DIR/done.txt"
        export REPORT_FILE="$TODO_DIR/report.txt"

        """.write(toFile: config, atomically: true, encoding: .utf8)
        _ = try todosh(["-t", "add", "旅行の計画 +休み @家 due:2027-01-05"])
        _ = try todosh(["-t", "add", "Call Bob"])
        _ = try todosh(["pri", "1", "B"])
        _ = try todosh(["-a", "do", "2"])
        let reader = try daemon.todoctl(["import", "--from", "todotxt", other.file("todo.txt")], environment: tz)
        #expect(reader.status == 0 && reader.stdout.hasPrefix("Imported 2 todos and 0 categories."), "\(reader.stdout) \(reader.stderr)")
        let all = try Self.json(try daemon.todoctl(["list", "--all", "--json"]).stdout) as? [[String: Any]] ?? []
        let trip = try #require(all.first { $0["title"] as? String == "旅行の計画" }, "\(all)")
        #expect(trip["priority"] as? String == "medium" && trip["tags"] as? [String] == ["@家", "休み"])
        #expect(trip["due"] as? String == "2027-01-04T15:00:00Z" && trip["allDay"] as? Bool == true)
        let bob = try #require(all.first { $0["title"] as? String == "Call Bob" })
        #expect(bob["done"] as? Bool == true && bob["completed"] != nil)
        let again = try daemon.todoctl(["import", "--from", "todotxt", other.file("todo.txt")], environment: tz)
        #expect(again.stdout.hasPrefix("Imported 2 todos (0 added, 0 updated, 2 unchanged)"), "\(again.stdout)")
        // Completed in todo.sh since: the same todo, now done.
        _ = try todosh(["-a", "do", "1"])
        let done = try daemon.todoctl(["import", "--from", "todotxt", other.file("todo.txt")], environment: tz)
        #expect(done.stdout.hasPrefix("Imported 2 todos (0 added, 1 updated, 1 unchanged)"), "\(done.stdout)")
        let after = try Self.json(try daemon.todoctl(["list", "--all", "--json"]).stdout) as? [[String: Any]] ?? []
        #expect(after.filter { $0["title"] as? String == "旅行の計画" }.map { $0["done"] as? Bool } == [true], "\(after)")
        // A malformed line: its file and number, nothing imported.
        try "fine\nbad due:someday\n".write(toFile: other.file("bad.txt"), atomically: true, encoding: .utf8)
        let bad = try daemon.todoctl(["import", "--from", "todotxt", other.file("bad.txt")])
        #expect(bad.status == 1 && bad.stderr.contains("bad.txt: line 2: invalid due date \"someday\""), "\(bad.stderr)")
    }
}
