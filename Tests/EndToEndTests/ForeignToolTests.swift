import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// `import --from taskwarrior` against the real `task` (Debian's taskwarrior) and todo.txt both
/// ways against the real `todo.sh` (Debian's todotxt-cli installs it as `todo-txt`), with the
/// running daemon's export as the record. Each test is skipped, saying why, where the tool is missing.
@Suite struct ForeignToolTests {
    static let task = ["/usr/bin/task", "/usr/local/bin/task"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let todosh = ["/usr/bin/todo-txt", "/usr/bin/todo.sh", "/usr/local/bin/todo.sh"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// A todo.sh configuration keeping its files in `dir`.
    static func todoshConfig(in dir: TemporaryDirectory) throws -> String {
        let config = dir.file("todo.cfg")
        try """
        export TODO_DIR=\(dir.path)
        export TODO_FILE="$TODO_DIR/todo.txt"
        export DONE_FILE="$TODO_DIR/done.txt"
        export REPORT_FILE="$TODO_DIR/report.txt"

        """.write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    /// todo.sh with `config` and `arguments`; its output.
    static func runTodosh(_ config: String, _ arguments: [String], _ environment: [String: String]) throws -> String {
        let todosh = try #require(Self.todosh)
        let r = try ChildProcess.run(
            todosh, ["-d", config] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        #expect(r.status == 0, "todo.sh \(arguments): \(r.stderr)")
        return r.stdout
    }

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// `20261224T090000Z` as RFC 3339, as todod writes instants.
    static func rfc3339(_ basic: Any?) -> String? {
        guard let s = basic as? String, s.count == 16 else { return nil }
        let c = Array(s)
        return
            "\(String(c[0..<4]))-\(String(c[4..<6]))-\(String(c[6..<8]))T\(String(c[9..<11])):\(String(c[11..<13])):\(String(c[13..<15]))Z"
    }

    @Test(.enabled(if: task != nil, "taskwarrior is not installed (no task): apt-get install taskwarrior"))
    func taskwarriorExportImportsFieldByFieldAndOnce() throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        try "".write(toFile: dir.file("taskrc"), atomically: true, encoding: .utf8)
        let env = ["TASKRC": dir.file("taskrc"), "TASKDATA": dir.file("taskdata"), "TZ": "Asia/Tokyo"]
        @discardableResult func task(_ args: [String]) throws -> String {
            let r = try ChildProcess.run(
                Self.task!,
                ["rc.confirmation=off", "rc.recurrence.confirmation=off", "rc.verbose=nothing", "rc.hooks=off"] + args,
                environment: ProcessInfo.processInfo.environment.merging(env) { $1 })
            #expect(r.status == 0, "task \(args): \(r.stderr)")
            return r.stdout
        }
        try task([
            "add", "牛乳を買う", "project:Home.Kitchen", "+shop", "+今日", "priority:H", "due:2026-12-24", "wait:2026-11-20"
        ])
        try task(["1", "annotate", "店に電話する"])
        try task(["add", "Weekly review", "due:2026-12-07T09:00", "recur:weekly", "until:2027-02-01", "priority:M"])
        try task(["add", "done one", "due:2026-12-02T18:30"])
        try task(["add", "gone"])
        try task(["add", "dep", "depends:1", "scheduled:2026-12-10", "priority:L"])
        try task(["list"]) // makes the recurring task's pending instance
        let before = try Self.json(try task(["export"])) as! [[String: Any]]
        let uuid = { (d: String, s: String) in
            before.first { $0["description"] as? String == d && $0["status"] as? String == s }?["uuid"] as! String
        }
        try task([uuid("done one", "pending"), "done"])
        try task([uuid("gone", "pending"), "delete"])
        let instance = before.first { $0["parent"] != nil }!["uuid"] as! String
        try task([instance, "done"])
        try task(["list"]) // the next instance
        let exported = try task(["export"])
        let tasks = try Self.json(exported) as! [[String: Any]]
        #expect(
            tasks.contains { $0["status"] as? String == "recurring" }
                && tasks.contains { $0["parent"] != nil && $0["status"] as? String == "completed" })
        try exported.write(toFile: dir.file("tasks.json"), atomically: true, encoding: .utf8)

        let imported = try daemon.todoctl(
            ["import", "--from", "taskwarrior", dir.file("tasks.json")], environment: ["TZ": "Asia/Tokyo"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 4 todos and 1 category."), "\(imported.stdout)")
        #expect(imported.stdout.contains("not imported: 1 deleted task (gone)"), "\(imported.stdout)")

        // Field by field against the daemon's export.
        let export = try daemon.todoctl(["export"])
        let todos = (try Self.json(export.stdout) as! [String: Any])["todos"] as! [[String: Any]]
        let byUID = Dictionary(uniqueKeysWithValues: todos.map { ($0["uid"] as! String, $0) })
        let priorities = ["H": "high", "M": "medium", "L": "low"]
        // Taskwarrior makes the next instance only when it is due: the todo is due a week after the done one.
        let pending = tasks.filter { $0["parent"] != nil && $0["status"] as? String == "pending" }.compactMap {
            Self.rfc3339($0["due"])
        }.min()
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
        let again = try daemon.todoctl(
            ["import", "--from", "taskwarrior", "-"], input: exported, environment: ["TZ": "Asia/Tokyo"])
        #expect(
            again.stdout.hasPrefix("Imported 4 todos (0 added, 0 updated, 4 unchanged) and 0 categories."),
            "\(again.stdout) \(again.stderr)")
        let export2 = try daemon.todoctl(["export"])
        #expect(
            NSDictionary(dictionary: (try Self.json(export2.stdout) as! [String: Any]).filter { $0.key != "exported" })
                == NSDictionary(
                    dictionary: (try Self.json(export.stdout) as! [String: Any]).filter { $0.key != "exported" }))

        // A malformed entry: refused with its line and entry, the others imported.
        try #"[{"uuid":"x1","description":"fine"},{"uuid":"x2"}]"#.write(
            toFile: dir.file("bad.json"), atomically: true, encoding: .utf8)
        let bad = try daemon.todoctl(["import", "--from", "taskwarrior", dir.file("bad.json")])
        #expect(
            bad.status == 0
                && bad.stdout.hasSuffix("Not imported (1 entry):\n  - line 1 (entry 2): has no description\n"),
            "\(bad.stdout)")
        #expect(try daemon.todoctl(["list", "--all", "--json"]).stdout.contains("fine"))
    }

    /// A real `task export` with entries todod cannot take (an annotation past 64 KiB, a number
    /// past what JSON numbers hold in a field todod does not read) imports the others and lists
    /// those with their lines; the same file with CR-only line ends reads the same; `until` on a
    /// task that does not repeat is kept in the notes and said.
    @Test(.enabled(if: task != nil, "taskwarrior is not installed (no task): apt-get install taskwarrior"))
    func taskwarriorBadEntriesAreListedAndTheRestImported() throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        try "".write(toFile: dir.file("taskrc"), atomically: true, encoding: .utf8)
        let env = ["TASKRC": dir.file("taskrc"), "TASKDATA": dir.file("taskdata"), "TZ": "Asia/Tokyo"]
        @discardableResult func task(_ args: [String]) throws -> String {
            let r = try ChildProcess.run(
                Self.task!, ["rc.confirmation=off", "rc.verbose=nothing", "rc.hooks=off"] + args,
                environment: ProcessInfo.processInfo.environment.merging(env) { $1 })
            #expect(r.status == 0, "task \(args): \(r.stderr)")
            return r.stdout
        }
        try task(["add", "最初"])
        try task(["add", "長い注釈"])
        try task(["2", "annotate", String(repeating: "注", count: 23_000)]) // 69,000 bytes
        try task(["add", "期限つき", "until:2026-12-31T09:00"])
        try task(["add", "big number"])
        try task(["add", "最後"])
        // Taskwarrior writes one entry per line; the urgency of "big number" made 1e400.
        var lines = try task(["export"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let big = try #require(lines.firstIndex { $0.contains("\"big number\"") }, "\(lines)")
        let long = try #require(lines.firstIndex { $0.contains("\"長い注釈\"") })
        lines[big] = lines[big].replacingOccurrences(
            of: #""urgency":[-0-9.e]+"#, with: #""urgency":1e400"#, options: .regularExpression)
        #expect(lines[big].contains("1e400"), "\(lines[big])")
        let exported = lines.joined(separator: "\n")
        try exported.write(toFile: dir.file("tasks.json"), atomically: true, encoding: .utf8)
        let tz = ["TZ": "Asia/Tokyo"]
        let r = try daemon.todoctl(["import", "--from", "taskwarrior", dir.file("tasks.json")], environment: tz)
        #expect(r.status == 0 && r.stdout.hasPrefix("Imported 3 todos and 0 categories."), "\(r.stdout) \(r.stderr)")
        #expect(
            r.stdout.contains(
                "until (the date Taskwarrior deletes a task) has no counterpart: kept as a notes line on 1 task (期限つき)"),
            "\(r.stdout)")
        #expect(
            r.stdout.contains(
                "Not imported (2 entries):\n  - line \(long + 1) (entry 2): invalid notes: longer than 65536 bytes\n  - line \(big + 1) (entry 4): not valid JSON: number out of range"
            ), "\(r.stdout)")
        let all = try Self.json(try daemon.todoctl(["list", "--all", "--json"]).stdout) as? [[String: Any]] ?? []
        #expect(Set(all.compactMap { $0["title"] as? String }) == ["最初", "期限つき", "最後"], "\(all)")
        #expect(
            all.first { $0["title"] as? String == "期限つき" }?["notes"] as? String
                == "Until (Taskwarrior deletes it then): 2026-12-31 09:00")
        // The same file with CR-only line ends: the same entries refused, the others unchanged.
        try exported.replacingOccurrences(of: "\n", with: "\r").write(
            toFile: dir.file("mac.json"), atomically: true, encoding: .utf8)
        let mac = try daemon.todoctl(["import", "--from", "taskwarrior", dir.file("mac.json")], environment: tz)
        #expect(
            mac.stdout.hasPrefix("Imported 3 todos (0 added, 0 updated, 3 unchanged)")
                && mac.stdout.contains("  - line \(long + 1) (entry 2): invalid notes"), "\(mac.stdout)")
    }

    @Test(.enabled(if: todosh != nil, "todo.sh is not installed: apt-get install todotxt-cli"))
    func todotxtBothWaysWithTodoSh() throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        let config = try Self.todoshConfig(in: dir)
        let tz = ["TZ": "Asia/Tokyo"]
        func todosh(_ args: [String]) throws -> String { try Self.runTodosh(config, ["-p"] + args, tz) }
        // todod writes, todo.sh reads.
        for args in [
            ["add", "電話する", "--priority", "high", "--tag", "仕事", "--due", "2026-12-24"],
            ["add", "Pay rent", "--category", "家計"], ["add", "low one", "--priority", "low"]
        ] {
            #expect(try daemon.todoctl(args, environment: tz).status == 0)
        }
        #expect(try daemon.todoctl(["done", "2"]).status == 0)
        let written = try daemon.todoctl(
            ["export", "--format", "todotxt", "--output", dir.file("todo.txt")], environment: tz)
        #expect(written.status == 0, "\(written.stderr)")
        let listed = try todosh(["ls"]).split(separator: "\n").map(String.init)
        // Open first by priority, then done; the dates are today's local date.
        #expect(listed.count == 5, "\(listed)")
        #expect(listed[0].hasPrefix("1 (A) ") && listed[0].contains(" 電話する +仕事 due:2026-12-24 uid:"), "\(listed)")
        #expect(listed[1].hasPrefix("3 (C) ") && listed[1].contains(" low one uid:"), "\(listed)")
        #expect(listed[2].hasPrefix("2 x ") && listed[2].contains(" Pay rent +家計 uid:"), "\(listed)")
        #expect(try todosh(["lsprj"]) == "+仕事\n+家計\n")
        #expect(try todosh(["listpri", "A"]).hasPrefix("1 (A) "))
        // Archived, the done one is in done.txt: `ls` shows the open ones, `listall` all three.
        _ = try todosh(["archive"])
        #expect(try todosh(["ls"]).split(separator: "\n").filter { $0.contains(" x ") || $0.hasPrefix("0 x") }.isEmpty)
        let everything = try todosh(["listall"])
        #expect(
            everything.contains(" x ") && everything.contains("Pay rent +家計")
                && everything.contains("total 3 of 3 tasks shown"), "\(everything)")

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
        #expect(
            reader.status == 0 && reader.stdout.hasPrefix("Imported 2 todos and 0 categories."),
            "\(reader.stdout) \(reader.stderr)")
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
        // A malformed line: refused with its number, the others imported.
        try "fine\nbad due:someday\n".write(toFile: other.file("bad.txt"), atomically: true, encoding: .utf8)
        let bad = try daemon.todoctl(["import", "--from", "todotxt", other.file("bad.txt")])
        #expect(
            bad.status == 0
                && bad.stdout.hasSuffix(
                    "Not imported (1 line):\n  - line 2: invalid due date \"someday\" (expected YYYY-MM-DD)\n"),
            "\(bad.stdout)")
        #expect(try daemon.todoctl(["list", "--all"]).stdout.contains("fine"))
    }

    /// Our own todo.txt export imported back changes nothing; lines edited in todo.sh update
    /// their todos (keeping what todo.txt cannot say: the due's time, notes, the category), and
    /// lines done in todo.sh and archived into done.txt complete theirs when done.txt is imported.
    @Test(.enabled(if: todosh != nil, "todo.sh is not installed: apt-get install todotxt-cli"))
    func todotxtRoundTripThroughTodoShKeepsEachTodo() throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        let config = try Self.todoshConfig(in: dir)
        let tz = ["TZ": "Asia/Tokyo"]
        func todosh(_ args: [String]) throws { _ = try Self.runTodosh(config, ["-p", "-f"] + args, tz) }
        func todoctl(_ args: [String]) throws -> String {
            let r = try daemon.todoctl(args, environment: tz)
            #expect(r.status == 0, "todoctl \(args): \(r.stderr)")
            return r.stdout
        }
        for args in [
            [
                "add", "電話する", "--priority", "high", "--tag", "仕事", "--tag", "@会社", "--due", "2026-12-24 15:00",
                "--notes", "番号は手帳に", "--category", "家計 メモ"
            ],
            ["add", "Pay rent", "--category", "家計 メモ"], ["add", "low one", "--priority", "low"], ["add", "done one"]
        ] {
            _ = try todoctl(args)
        }
        _ = try todoctl(["done", "4"])
        func todos() throws -> [[String: Any]] {
            ((try Self.json(try todoctl(["export"])) as! [String: Any])["todos"] as! [[String: Any]])
        }
        let before = try todos()
        _ = try todoctl(["export", "--format", "todotxt", "--output", dir.file("todo.txt")])
        let again = try todoctl(["import", "--from", "todotxt", dir.file("todo.txt")])
        #expect(again.hasPrefix("Imported 4 todos (0 added, 0 updated, 4 unchanged) and 0 categories."), "\(again)")
        #expect(NSArray(array: try todos()) == NSArray(array: before))

        // In todo.sh: a word appended to 1, 3 made (A), 2 done, then archived into done.txt.
        try todosh(["append", "1", "急ぎ"])
        try todosh(["pri", "3", "A"])
        try todosh(["do", "2"])
        try todosh(["archive"])
        let done = try String(contentsOfFile: dir.file("done.txt"), encoding: .utf8)
        #expect(done.contains("Pay rent") && done.contains("done one"), "\(done)")
        let open = try todoctl(["import", "--from", "todotxt", dir.file("todo.txt")])
        #expect(open.hasPrefix("Imported 2 todos (0 added, 2 updated, 0 unchanged)"), "\(open)")
        let closed = try todoctl(["import", "--from", "todotxt", dir.file("done.txt")])
        #expect(closed.hasPrefix("Imported 2 todos (0 added, 1 updated, 1 unchanged)"), "\(closed)")
        let after = try todos()
        #expect(after.count == 4 && Set(after.map { $0["uid"] as! String }) == Set(before.map { $0["uid"] as! String }))
        let byTitle = { (prefix: String) in after.first { ($0["title"] as! String).hasPrefix(prefix) } ?? [:] }
        let call = byTitle("電話する")
        let old = before[0]
        #expect(call["title"] as? String == "電話する 急ぎ" && call["category"] as? String == "家計 メモ", "\(call)")
        #expect(call["due"] as? String == old["due"] as? String && call["notes"] as? String == "番号は手帳に")
        #expect(call["tags"] as? [String] == ["@会社", "仕事"] && call["priority"] as? String == "high")
        #expect(byTitle("low one")["priority"] as? String == "high")
        let rent = byTitle("Pay rent")
        #expect(rent["done"] as? Bool == true && rent["category"] as? String == "家計 メモ", "\(rent)")
        // Both files again: nothing changes.
        let still = try todos()
        #expect(
            try todoctl(["import", "--from", "todotxt", dir.file("todo.txt")]).contains(
                "(0 added, 0 updated, 2 unchanged)"))
        #expect(
            try todoctl(["import", "--from", "todotxt", dir.file("done.txt")]).contains(
                "(0 added, 0 updated, 2 unchanged)"))
        #expect(NSArray(array: try todos()) == NSArray(array: still))
    }
}
