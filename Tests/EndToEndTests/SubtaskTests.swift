import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// Subtasks and start dates through the built `todoctl` against a real daemon and database:
/// `add --parent`, the tree listing, `show`, completing and reopening across the tree, `rm`
/// with and without `--recursive`, cycles refused, undo and redo of each, export and import,
/// `--start`, `list --ready`, `--sort start` and `hide-future-starts`.
@Suite struct SubtaskTests {
    static let env = ["TZ": "Asia/Tokyo", "NO_COLOR": "1", "COLUMNS": "100"]

    private func run(_ d: DaemonProcess, _ arguments: [String], environment: [String: String] = [:]) throws
        -> ChildProcess.Result
    {
        try d.todoctl(arguments, environment: Self.env.merging(environment) { _, b in b })
    }

    private func json(_ d: DaemonProcess, _ arguments: [String], environment: [String: String] = [:]) throws -> JSON {
        let result = try run(d, ["--json"] + arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    private func ids(_ d: DaemonProcess, _ arguments: [String], environment: [String: String] = [:]) throws -> [Int64] {
        try json(d, ["list"] + arguments, environment: environment).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
    }

    /// Every todo as the daemon reads it back from its database, by id: done, position, parent,
    /// parentUid, subtasks, start (the daemon holds the file exclusively while it runs).
    private func rows(_ d: DaemonProcess) throws -> [String] {
        let all = try json(d, ["list", "--all", "--flat", "--sort", "id"]).arrayValue ?? []
        #expect(!all.isEmpty)
        return all.map { t in
            ["id", "done", "position", "parent", "parentUid", "subtasks", "start"].map { t[$0]?.serialized() ?? "-" }
                .joined(separator: " ")
        }
    }

    /// 1 買い物 > 2 牛乳, 3 卵 > 5 白い卵; 4 掃除 top-level, made between them in manual order.
    private func makeTree(_ d: DaemonProcess) throws {
        #expect(try run(d, ["add", "買い物"]).status == 0)
        #expect(try json(d, ["add", "牛乳", "--parent", "1"])["parent"] == 1)
        #expect(try run(d, ["add", "卵", "--parent", "1"]).status == 0)
        #expect(try run(d, ["add", "掃除"]).status == 0)
        #expect(try run(d, ["add", "白い卵", "--parent", "3"]).status == 0)
    }

    @Test func addListShowAsATree() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        // The tree: subtasks under their parent in manual order; the flat list is the manual order.
        #expect(try ids(d, []) == [1, 2, 3, 5, 4])
        #expect(try ids(d, ["--flat"]) == [1, 2, 3, 4, 5])
        let table = try run(d, ["list"]).stdout.split(separator: "\n").map(String.init)
        #expect(table.count == 6, "\(table)")
        #expect(
            table[1].hasSuffix(" 買い物") && table[2].hasSuffix("   牛乳") && table[4].hasSuffix("     白い卵")
                && table[5].hasSuffix(" 掃除"),
            "\(table)")
        // The inverse relationship: the parent knows its subtasks, in manual order.
        let parent = try json(d, ["show", "1"])
        #expect(parent["subtasks"] == [2, 3] && parent["parent"] == .null)
        let shown = try run(d, ["show", "1"]).stdout
        #expect(shown.contains("Subtasks: 2 牛乳\n") && shown.contains("3 卵\n"), "\(shown)")
        #expect(try run(d, ["show", "5"]).stdout.contains("Parent:   3\n"))
        // Moving the parent keeps its subtasks under it in the tree; the order stays one order.
        #expect(try run(d, ["move", "1", "--bottom"]).status == 0)
        #expect(try ids(d, []) == [4, 1, 2, 3, 5])
        #expect(try ids(d, ["--flat"]) == [2, 3, 4, 5, 1])
        // A filter that matches a subtask shows its parents as context.
        #expect(try ids(d, ["--search", "白い"]) == [1, 3, 5])
        // One parent's subtasks (one level).
        #expect(try ids(d, ["--parent", "1"]) == [2, 3])
        // An unknown parent is refused and nothing is added.
        let unknown = try run(d, ["add", "x", "--parent", "99"])
        #expect(
            unknown.status != 0 && unknown.stderr == "todoctl: invalid parent: no todo with id 99\n",
            "\(unknown.stderr)")
        #expect(try ids(d, ["--all"]).count == 5)
    }

    @Test func cyclesAreRefusedAndEditMovesAcrossTheTree() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        let before = try rows(d)
        for (child, parent) in [("1", "5"), ("1", "1"), ("3", "5")] {
            let refused = try run(d, ["edit", child, "--parent", parent])
            #expect(refused.status != 0 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("cycle") || refused.stderr.contains("own subtask"), "\(refused.stderr)")
        }
        #expect(try rows(d) == before, "nothing changed")
        // Made top-level, then a subtask of another, each one change undone and redone.
        #expect(try json(d, ["edit", "3", "--no-parent"])["parent"] == .null)
        #expect(try json(d, ["show", "1"])["subtasks"] == [2])
        #expect(try json(d, ["edit", "3", "--parent", "4"])["parent"] == 4)
        #expect(try ids(d, []) == [1, 2, 4, 3, 5])
        #expect(try run(d, ["undo", "2"]).status == 0)
        #expect(try rows(d) == before)
        #expect(try run(d, ["redo"]).status == 0)
        #expect(try json(d, ["show", "3"])["parent"] == .null)
    }

    @Test func doneCompletesSubtasksAndReopenReopensParents() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        #expect(try run(d, ["done", "2"]).status == 0)
        let before = try rows(d)
        // One change completes the parent and every open subtask below it.
        let done = try json(d, ["done", "1"]).arrayValue ?? []
        #expect(done.compactMap { $0["id"]?.intValue }.sorted() == [1, 3, 5])
        #expect(try ids(d, ["--done", "--flat"]).sorted() == [1, 2, 3, 5])
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try rows(d) == before, "one undo brings them all back")
        #expect(try run(d, ["redo"]).status == 0)
        // Reopening a subtask reopens its done parents, up to the top; its siblings stay done.
        let reopened = try json(d, ["reopen", "5"]).arrayValue ?? []
        #expect(reopened.compactMap { $0["id"]?.intValue } == [5, 3, 1])
        #expect(try ids(d, ["--flat"]) == [1, 3, 4, 5])
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try ids(d, ["--flat"]) == [4])
    }

    @Test func rmOfAParentNeedsRecursive() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        let before = try rows(d)
        let refused = try run(d, ["rm", "3"])
        #expect(
            refused.status != 0
                && refused.stderr
                    == "todoctl: todo 3 has 1 subtask (5 first); delete them with it (--recursive) or move them first\n",
            "\(refused.stderr)")
        #expect(try rows(d) == before)
        // Named together, no --recursive is needed.
        #expect(try run(d, ["rm", "3", "5"]).status == 0)
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try rows(d) == before)
        let deleted = try run(d, ["rm", "1", "--recursive"])
        #expect(deleted.status == 0 && deleted.stdout == "Deleted 4 todos.\n", "\(deleted.stdout)")
        #expect(try ids(d, ["--all"]) == [4])
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try rows(d) == before, "one undo brings the whole tree back")
        #expect(try run(d, ["redo"]).status == 0)
        #expect(try ids(d, ["--all"]) == [4])
    }

    @Test func exportAndImportKeepTheTree() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        #expect(try run(d, ["edit", "5", "--start", "2099-01-02 09:00"]).status == 0)
        let file = d.directory.file("export.json")
        #expect(try run(d, ["export", "--output", file]).status == 0)
        let document = try JSON.parse(String(contentsOfFile: file, encoding: .utf8))
        let entries = document["todos"]?.arrayValue ?? []
        let uid = { (i: Int) in entries[i]["uid"] }
        #expect(entries[1]["parent"] == uid(0) && entries[4]["parent"] == uid(2) && entries[3]["parent"] == nil)
        #expect(entries[4]["start"] == "2099-01-02T00:00:00Z")
        // Into another store, subtasks before their parents: the links are made when the parents arrive.
        let other = try DaemonProcess()
        guard case .object(var o) = document else {
            Issue.record("not an object")
            return
        }
        o["todos"] = .array(entries.reversed())
        let reversed = d.directory.file("reversed.json")
        try JSON.object(o).serialized().write(toFile: reversed, atomically: true, encoding: .utf8)
        #expect(try run(other, ["import", reversed]).status == 0)
        let titles = try json(other, ["list"]).arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
        // The manual order is the document's (reversed); subtasks under their parents in it.
        #expect(titles == ["掃除", "買い物", "卵", "白い卵", "牛乳"], "\(titles)")
        let linked = try json(other, ["list", "--flat"]).arrayValue ?? []
        let byTitle = Dictionary(uniqueKeysWithValues: linked.map { ($0["title"]?.stringValue ?? "", $0) })
        #expect(byTitle["牛乳"]?["parent"] == byTitle["買い物"]?["id"] && byTitle["白い卵"]?["parent"] == byTitle["卵"]?["id"])
        #expect(byTitle["掃除"]?["parent"] == .null && byTitle["白い卵"]?["start"] == "2099-01-02T00:00:00Z")
        #expect(byTitle["卵"]?["parentUid"] == byTitle["買い物"]?["uid"])
        // Importing again changes nothing.
        let before = try rows(other)
        #expect(try run(other, ["import", reversed]).status == 0)
        #expect(try rows(other) == before)
    }

    @Test func startDatesReadyAndSort() throws {
        let d = try DaemonProcess()
        #expect(try run(d, ["add", "未来", "--start", "2099-05-01"]).status == 0)
        #expect(try json(d, ["add", "過去", "--start", "2001-01-01 10:00"])["start"] == "2001-01-01T01:00:00Z")
        #expect(try run(d, ["add", "なし"]).status == 0)
        #expect(try ids(d, ["--ready"]) == [2, 3])
        #expect(try ids(d, ["--sort", "start"]) == [2, 1, 3])
        #expect(try ids(d, ["--sort", "-start"]) == [1, 2, 3])
        #expect(try run(d, ["show", "1"]).stdout.contains("Start:"))
        // hide-future-starts makes --ready the default; --all-starts shows them all.
        let config = d.directory.file("config")
        try FileManager.default.createDirectory(atPath: config + "/todod", withIntermediateDirectories: true)
        try "hide-future-starts = yes\n".write(toFile: config + "/todod/config", atomically: true, encoding: .utf8)
        #expect(try ids(d, [], environment: ["XDG_CONFIG_HOME": config]) == [2, 3])
        #expect(try ids(d, ["--all-starts"], environment: ["XDG_CONFIG_HOME": config]) == [1, 2, 3])
        // Cleared and set again, undone.
        #expect(try json(d, ["edit", "1", "--no-start"])["start"] == .null)
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try json(d, ["show", "1"])["start"] != .null)
        let bad = try run(d, ["add", "x", "--start", "someday"])
        #expect(
            bad.status == 2 && bad.stderr.hasPrefix("todoctl: invalid time \"someday\" for --start: "), "\(bad.stderr)")
        #expect(try ids(d, ["--all"]) == [1, 2, 3])
    }

    /// hide-future-starts says how many todos it hid (a footer; one line on stderr with `--json`,
    /// whose output stays one JSON array), and hides none from `--all` or `--all-starts`.
    @Test func hiddenStartsAreCounted() throws {
        let d = try DaemonProcess()
        #expect(try run(d, ["add", "未来", "--start", "2099-05-01"]).status == 0)
        #expect(try run(d, ["add", "来年", "--start", "2099-06-01 10:00"]).status == 0)
        #expect(try run(d, ["add", "なし"]).status == 0)
        let config = d.directory.file("config")
        try FileManager.default.createDirectory(atPath: config + "/todod", withIntermediateDirectories: true)
        try "hide-future-starts = yes\n".write(toFile: config + "/todod/config", atomically: true, encoding: .utf8)
        let env = ["XDG_CONFIG_HOME": config]
        let note = "2 todos whose start is to come are hidden by hide-future-starts; --all-starts shows them."
        let plain = try run(d, ["list"], environment: env)
        #expect(
            plain.status == 0 && plain.stdout.hasSuffix("  なし\n" + note + "\n") && plain.stderr.isEmpty,
            "\(plain.stdout)\(plain.stderr)")
        let asJSON = try run(d, ["--json", "list"], environment: env)
        #expect(
            try JSON.parse(asJSON.stdout).arrayValue?.count == 1 && asJSON.stderr == "todoctl: " + note + "\n",
            "\(asJSON.stderr)")
        let unhidden = try run(d, ["list", "--search", "なし"]).stdout
        #expect(try run(d, ["list", "--search", "なし"], environment: env).stdout == unhidden)
        for all in [["--all"], ["--all-starts"]] {
            let shown = try run(d, ["--json", "list"] + all, environment: env)
            #expect(
                try JSON.parse(shown.stdout).arrayValue?.count == 3 && shown.stderr.isEmpty, "\(all): \(shown.stderr)")
            #expect(!(try run(d, ["list"] + all, environment: env).stdout.contains("hidden")))
        }
        #expect(try run(d, ["edit", "1", "--no-start"]).status == 0)
        #expect(
            try run(d, ["list"], environment: env).stdout.hasSuffix(
                "1 todo whose start is to come is hidden by hide-future-starts; --all-starts shows it.\n"))
    }

    /// A start given as a date without a due shows as that date, not as `00:00` of it.
    @Test func dateOnlyStartShowsNoTime() throws {
        let d = try DaemonProcess()
        #expect(try run(d, ["add", "日付だけ", "--start", "2099-05-01"]).status == 0)
        #expect(try run(d, ["add", "時刻も", "--start", "2099-05-02 09:30"]).status == 0)
        let table = try run(d, ["list"]).stdout
        #expect(
            table.contains("  2099-05-01  ") && !table.contains("00:00") && table.contains("  2099-05-02 09:30  in "),
            "\(table)")
        let shown = try run(d, ["show", "1"]).stdout
        #expect(shown.contains("2099-05-01 (in ") && !shown.contains("00:00"), "\(shown)")
    }

    /// `list` shows the start beside the due, as the due is shown, and how far off a start still to
    /// come is; the START columns are there only while a listed todo has a start, so a listing
    /// without starts is as it always was. `--json` is the same either way.
    @Test func listShowsStartsBesideDue() throws {
        let d = try DaemonProcess()
        #expect(try run(d, ["add", "なし", "--due", "2099-06-01 12:00"]).status == 0)
        let plain = try run(d, ["list"]).stdout
        #expect(!plain.contains("START"), "\(plain)")
        #expect(try run(d, ["add", "未来", "--start", "2099-05-01 09:00"]).status == 0)
        #expect(try run(d, ["add", "過去", "--start", "2001-01-01 10:00"]).status == 0)
        let table = try run(d, ["list"]).stdout.split(separator: "\n").map(String.init)
        #expect(table.count == 4 && table[0].contains("  DUE  ") && table[0].contains("  START  "), "\(table)")
        // The start in local time (Tokyo); a start still to come says how far off it is, one that has come does not.
        #expect(table[2].contains("  2099-05-01 09:00  in ") && table[2].hasSuffix("  未来"), "\(table)")
        #expect(
            table[3].contains("  2001-01-01 10:00  ") && !table[3].contains(" in ")
                && !table[3].contains("overdue"),
            "\(table)")
        #expect(table[1].contains("2099-06-01 12:00  in ") && !table[1].contains("2099-05"), "\(table)")
        // START sits under its header and every title starts in one column (the cells before the
        // titles are ASCII: characters are columns).
        let start = table[0].range(of: "START").map { table[0].distance(from: table[0].startIndex, to: $0.lowerBound) }
        let underStart = start.map {
            table[2].dropFirst($0).hasPrefix("2099-05-01")
                && table[3].dropFirst($0).hasPrefix("2001-01-01")
        }
        #expect(
            underStart == true,
            "\(table)")
        let titleColumns = table.dropFirst().map { line in line.prefix { $0.isASCII }.count }
        #expect(Set(titleColumns) == [table[0].count - "TITLE".count], "\(titleColumns) \(table)")
        // Not ready yet: `--ready` leaves the future start out.
        #expect(try ids(d, ["--ready"]) == [1, 3])
        // --json carries the start as an instant, nothing else new.
        let listed = try json(d, ["list"]).arrayValue ?? []
        #expect(listed.map { $0["start"] } == [.null, "2099-05-01T00:00:00Z", "2001-01-01T01:00:00Z"])
        #expect(Set(listed[0].objectValue?.keys.map { $0 } ?? []) == Set(listed[1].objectValue?.keys.map { $0 } ?? []))
        // With no start left the listing is as before any start.
        #expect(try run(d, ["edit", "2", "--no-start"]).status == 0 && run(d, ["edit", "3", "--no-start"]).status == 0)
        let again = try run(d, ["list"]).stdout.split(separator: "\n")
        #expect(
            again.first.map(String.init) == plain.split(separator: "\n").first.map(String.init)
                && !again.joined().contains("START"))
    }

    /// `agenda` shows a todo on its start day (marked `starts`), besides on its due day.
    @Test func agendaShowsTheStartDay() throws {
        let d = try DaemonProcess()
        #expect(try run(d, ["add", "準備", "--start", "tomorrow 10:00", "--due", "+5d"]).status == 0)
        #expect(try run(d, ["add", "later", "--start", "+20d"]).status == 0)
        let document = try json(d, ["agenda", "--days", "3"])
        let days = try #require(document["days"]?.arrayValue)
        let tomorrow = days[1]["items"]?.arrayValue ?? []
        #expect(
            tomorrow.count == 1 && tomorrow.first?["todo"]?["id"] == 1 && tomorrow.first?["starts"] == true, "\(days)")
        #expect(days[0]["items"] == [] && days[2]["items"] == [])
        let human = try run(d, ["agenda", "--days", "2"]).stdout
        #expect(
            human.contains { _ in true }
                && human.split(separator: "\n").contains {
                    $0.contains("10:00") && $0.contains("starts") && $0.hasSuffix("準備")
                },
            "\(human)")
        #expect(!human.contains("later"))
    }

    /// One change's watch events, in order: each event's type and the ids of its todos.
    private struct Change: Equatable, CustomStringConvertible {
        var events: [String]
        var todos: [[Int64]]
        var description: String { zip(events, todos).map { "\($0) \($1)" }.joined(separator: "; ") }
    }

    /// The events a subscriber receives up to the one adding `sentinel`, grouped by `seq` (one
    /// group per change, in commit order; the sentinel's change left out).
    private func changes(_ watcher: RawClient, until sentinel: String) throws -> [Change] {
        var groups: [(seq: Int64, change: Change)] = []
        while true {
            let message = try watcher.receive()
            guard message["method"] == "event", let params = message["params"], let seq = params["seq"]?.intValue else {
                continue
            }
            if params["todos"]?[0]?["title"]?.stringValue == sentinel { return groups.map(\.change) }
            let type = params["type"]?.stringValue ?? "?"
            let ids = params["todos"]?.arrayValue?.compactMap { $0["id"]?.intValue } ?? []
            if let last = groups.last, last.seq == seq {
                groups[groups.count - 1].change.events.append(type)
                groups[groups.count - 1].change.todos.append(ids)
            } else {
                #expect(groups.last.map { $0.seq < seq } ?? true, "seqs grow")
                groups.append((seq, Change(events: [type], todos: [ids])))
            }
        }
    }

    /// The cascades as a subscriber sees them: `done` of a parent, `reopen` of a subtask and
    /// `rm --recursive` each send one event listing every todo they touched, in one change (one
    /// seq), and one undo of each sends the events of all of them back, again in one change.
    @Test func watchSeesEachCascadeAsOneChange() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        #expect(try run(d, ["done", "2"]).status == 0)
        let watcher = try d.client()
        #expect(try watcher.result("watch") == ["subscribed": true])
        let before = try rows(d)
        #expect(try run(d, ["done", "1"]).status == 0)
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try rows(d) == before, "one undo reopens the parent and its subtasks")
        #expect(try run(d, ["redo"]).status == 0)
        #expect(try run(d, ["reopen", "5"]).status == 0)
        #expect(try run(d, ["undo"]).status == 0)
        let allDone = try rows(d)
        #expect(try run(d, ["rm", "1", "--recursive"]).status == 0)
        #expect(try ids(d, ["--all"]) == [4])
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try rows(d) == allDone, "one undo brings the whole tree back")
        #expect(try run(d, ["add", "終わり"]).status == 0)
        let seen = try changes(watcher, until: "終わり")
        let expected = [
            Change(events: ["todo.completed"], todos: [[1, 3, 5]]), // done 1: the parent, then its open subtasks
            Change(events: ["todo.reopened"], todos: [[1, 3, 5]]), // its undo
            Change(events: ["todo.completed"], todos: [[1, 3, 5]]), // redo
            Change(events: ["todo.reopened"], todos: [[5, 3, 1]]), // reopen 5: it, then its parents up to the top
            Change(events: ["todo.completed"], todos: [[5, 3, 1]]), // its undo
            Change(events: ["todo.deleted"], todos: [[1, 2, 3, 5]]), // rm 1 --recursive
            Change(events: ["todo.added"], todos: [[1, 2, 3, 5]]) // its undo
        ]
        #expect(seen.count == expected.count, "\(seen)")
        for (got, want) in zip(seen, expected) {
            #expect(
                got.events == want.events && got.todos.map { $0.sorted() } == want.todos.map { $0.sorted() },
                "\(got) instead of \(want)")
        }
        #expect(
            seen[0].todos == [[1, 3, 5]] && seen[3].todos == [[5, 3, 1]] && seen[5].todos.first?.first == 1,
            "the named todo first: \(seen)")
    }

    /// A tree listing far longer than the daemon holds in memory for a reader arrives whole:
    /// 20,000 todos (4,000 of them subtasks, 2,000 of those two levels down) with 2.4 KB notes
    /// each, about 55 MB of `todo.list`, through `todoctl list`, `list --json` and a raw client
    /// reading a megabyte at a time. todod writes a listing faster than any reader drains it:
    /// it used to cut the reader off at 32 MiB unsent ("the message ended early"); the rest now
    /// waits in a spool file until the reader catches up.
    @Test func aLongTreeListingIsNotCutOff() throws {
        let d = try DaemonProcess()
        let c = try RawClient(path: d.socket, timeoutSeconds: 120) // the last part applies the whole import
        let count = 20_000
        let notes = String(repeating: "メモ", count: 400) // 2,400 bytes
        let uid = { (i: Int) in String(format: "00000000-0000-4000-8000-%012d", i) }
        /// i ≡ 5 (mod 10) is a subtask of i - 1, i ≡ 0 (mod 10) a subtask of i - 5.
        let parent = { (i: Int) -> Int? in i % 10 == 5 ? i - 1 : i % 10 == 0 ? i - 5 : nil }
        let entries: [JSON] = (1...count).map { i in
            var o: JSONObject = [
                "uid": .string(uid(i)), "title": .string("木 \(i)"), "notes": .string(notes),
                "created": "2026-11-01T00:00:00Z"
            ]
            if let p = parent(i) { o["parent"] = .string(uid(p)) }
            return .object(o)
        }
        let part = 150 // under the 1 MiB a request line may take
        for start in stride(from: 0, to: count, by: part) {
            let more = start + part < count
            let answer = try c.result(
                "store.import",
                [
                    "format": "todod-export", "version": 1, "categories": [], "more": .bool(more),
                    "todos": .array(Array(entries[start..<min(start + part, count)]))
                ])
            if !more { #expect(answer["added"] == .int(Int64(count))) }
        }
        // The tree order: in each ten, 1 2 3 4 5 10 6 7 8 9.
        let order = (0..<count / 10).flatMap { b in [1, 2, 3, 4, 5, 10, 6, 7, 8, 9].map { "木 \(b * 10 + $0)" } }
        // A raw client reading the line a megabyte at a time.
        let raw = try RawClient(path: d.socket, timeoutSeconds: 120)
        try raw.send(
            Array(#"{"jsonrpc":"2.0","id":1,"method":"todo.list","params":{"status":"all","tree":true}}"#.utf8) + [0x0A]
        )
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while line.last != 0x0A, let n = try Posix.read(raw.fd, into: &chunk), n > 0 { line += chunk[0..<n] }
        #expect(line.last == 0x0A, "cut off after \(line.count) bytes")
        let answer = (try? JSON.parse(String(decoding: line, as: UTF8.self))) ?? .null
        #expect(answer["result"]?["total"] == .int(Int64(count)), "\(answer["error"] ?? .null)")
        #expect(answer["result"]?["todos"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == order)
        let table = try run(d, ["list", "--all"])
        #expect(table.status == 0 && table.stderr.isEmpty, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == count + 1, "\(lines.count) lines")
        #expect(
            lines.last?.hasSuffix("木 \(count - 1)") == true && lines.contains { $0.hasSuffix("     木 10") },
            "\(lines.suffix(3))")
        // todoctl: the JSON listing (every todo whole), then the table.
        let listed = try run(d, ["--json", "list", "--all"])
        #expect(listed.status == 0 && listed.stderr.isEmpty, "\(listed.stderr)")
        #expect(listed.stdout.utf8.count > 40 << 20, "\(listed.stdout.utf8.count) bytes")
        let todos = (try? JSON.parse(listed.stdout))?.arrayValue ?? []
        #expect(todos.compactMap { $0["title"]?.stringValue } == order)
        #expect(todos.allSatisfy { $0["notes"]?.stringValue == notes })
        #expect(todos.filter { $0["parent"] != .null }.count == 4_000)
        #expect(try c.result("daemon.status")["open"] == .int(Int64(count)), "the daemon serves on")
    }
}
