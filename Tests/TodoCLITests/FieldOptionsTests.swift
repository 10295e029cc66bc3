import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTime
import TodoWhen

@testable import TodoCLI

/// Priorities, tags and `--every` on the command line (→ wire params) and in human output.
@Suite struct FieldOptionsTests {
    static let now = Fixtures.now // Monday 2026-06-01 12:00 UTC
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo") ?? .utc

    /// Runs todoctl as `main` does, with the local zone's IANA name.
    static func run(
        _ arguments: [String], transport: FakeTransport = FakeTransport(), zoneName: String? = "UTC",
        timeZone: ZoneInfo = .utc
    ) -> Fixtures.Result {
        var out = ""
        var err = ""
        let status = CLI.main(
            arguments: arguments, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000, isTerminal: false,
            terminalWidth: nil, now: now, timeZone: timeZone, zoneName: zoneName,
            stdout: { out += $0 }, stderr: { err += $0 },
            connect: { (_: String) throws(ClientError) -> any RPCTransport in transport },
            readStdin: { [] }, clock: { now })
        return Fixtures.Result(status: status, stdout: out, stderr: err, connectedTo: [])
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var params: JSON
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let wire: [Case] = [
        Case(
            arguments: ["add", "x", "--priority", "High", "--tag", "home", "--tag", "急ぎ", "--tag", "HOME"],
            params: ["title": "x", "priority": "high", "tags": ["home", "急ぎ"]]),
        Case(
            arguments: ["add", "x", "-p", "m", "-t", "a", "-pL"],
            params: ["title": "x", "priority": "low", "tags": ["a"]]),
        Case(
            arguments: ["add", "x", "--due", "2026-06-03 10:00"],
            params: ["title": "x", "due": "2026-06-03T10:00:00Z", "zone": "UTC"]),
        Case(
            arguments: ["add", "x", "--every", "week", "--due", "2026-06-03 10:00"],
            params: [
                "title": "x", "due": "2026-06-03T10:00:00Z", "zone": "UTC",
                "recurrence": ["rule": "FREQ=WEEKLY", "from": "due"]
            ]),
        // No --due: the rule's first day from today (Monday 1 June), all-day, reminded that morning.
        Case(
            arguments: ["add", "x", "--every", "tue,thu"],
            params: [
                "title": "x", "due": "2026-06-02T00:00:00Z", "allDay": true, "zone": "UTC",
                "remind": "2026-06-02T09:00:00Z",
                "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=TU,TH", "from": "due"]
            ]),
        Case(
            arguments: ["add", "x", "--every", "2 weeks after done"],
            params: [
                "title": "x", "due": "2026-06-01T00:00:00Z", "allDay": true, "zone": "UTC",
                "remind": "2026-06-01T09:00:00Z",
                "recurrence": ["rule": "FREQ=WEEKLY;INTERVAL=2", "from": "completion"]
            ]),
        Case(
            arguments: ["add", "x", "--every", "month on the 15th for 3 times"],
            params: [
                "title": "x", "due": "2026-06-15T00:00:00Z", "allDay": true, "zone": "UTC",
                "remind": "2026-06-15T09:00:00Z",
                "recurrence": ["rule": "FREQ=MONTHLY;BYMONTHDAY=15;COUNT=3", "from": "due"]
            ]),
        Case(
            arguments: ["add", "x", "--every", "FREQ=MONTHLY;BYDAY=-1FR", "--due", "2026-06-26 18:00"],
            params: [
                "title": "x", "due": "2026-06-26T18:00:00Z", "zone": "UTC",
                "recurrence": ["rule": "FREQ=MONTHLY;BYDAY=-1FR", "from": "due"]
            ]),
        // With --due, the first due date is the rule's first date on or after it (Tuesday 2 June → Thursday).
        Case(
            arguments: ["add", "x", "--every", "mon,thu", "--due", "2026-06-02 07:00"],
            params: [
                "title": "x", "due": "2026-06-04T07:00:00Z", "zone": "UTC",
                "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=MO,TH", "from": "due"]
            ]),
        Case(
            arguments: ["add", "x", "--every", "weekday", "--due", "2026-06-06"],
            params: [
                "title": "x", "due": "2026-06-08T00:00:00Z", "allDay": true, "zone": "UTC",
                "remind": "2026-06-08T09:00:00Z",
                "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "from": "due"]
            ]),
        Case(
            arguments: ["add", "x", "--every", "month on the last friday", "--due", "2026-12-10"],
            params: [
                "title": "x", "due": "2026-12-25T00:00:00Z", "allDay": true, "zone": "UTC",
                "remind": "2026-12-25T09:00:00Z",
                "recurrence": ["rule": "FREQ=MONTHLY;BYDAY=-1FR", "from": "due"]
            ]),
        Case(
            arguments: ["edit", "3", "--every", "mon,thu", "--due", "2026-06-02 07:00"],
            params: [
                "id": 3, "due": "2026-06-04T07:00:00Z", "zone": "UTC",
                "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=MO,TH", "from": "due"]
            ]),
        Case(
            arguments: ["list", "--tag", "home", "-t", "急ぎ", "--priority", "h", "--recurring", "--sort", "-priority"],
            params: [
                "status": "open", "tags": ["home", "急ぎ"], "priority": "high", "recurring": true,
                "sort": [["key": "priority", "descending": true]]
            ]),
        Case(
            arguments: ["list", "--sort", "priority,due"],
            params: [
                "status": "open",
                "sort": [["key": "priority", "descending": false], ["key": "due", "descending": false]]
            ]),
        Case(
            arguments: ["edit", "3", "--priority", "low", "--tag", "a", "--tag", "b", "--untag", "c"],
            params: ["id": 3, "priority": "low", "addTags": ["a", "b"], "removeTags": ["c"]]),
        Case(
            arguments: ["edit", "3", "--no-priority", "--no-every"],
            params: ["id": 3, "priority": nil, "recurrence": nil]),
        Case(
            arguments: ["edit", "3", "--every", "day", "--due", "2026-06-02 08:00"],
            params: [
                "id": 3, "due": "2026-06-02T08:00:00Z", "zone": "UTC",
                "recurrence": ["rule": "FREQ=DAILY", "from": "due"]
            ]),
        Case(arguments: ["done", "4", "5", "--stop"], params: ["ids": [4, 5], "stop": true]),
        Case(arguments: ["done", "4"], params: ["ids": [4]])
    ]

    @Test(arguments: wire)
    func commandLineBecomesParams(_ c: Case) {
        let transport = FakeTransport()
        let result = Self.run(c.arguments, transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        // One change; `edit --due` may read the todo first (to keep its reminder's lead), and
        // then sends the revision it read.
        let changes = transport.calls.filter { $0.method != "todo.get" }
        #expect(changes.count == 1)
        var expected = c.params.objectValue ?? [:]
        if transport.calls.contains(where: { $0.method == "todo.get" }) { expected["ifRevision"] = 1 }
        if changes.first?.method == "todo.list" { expected["tree"] = true } // subtasks under their parents
        #expect(changes.first.map { JSON.object($0.params).sortedKeys } == JSON.object(expected).sortedKeys)
    }

    /// A rule's first day and its end follow the local zone: Monday 1 June 21:00 in Tokyo starts
    /// on that day's Tokyo midnight, and `until` a date ends with that Tokyo day.
    @Test func theFirstDayIsTodayInTheLocalZone() {
        let transport = FakeTransport()
        let result = Self.run(
            ["add", "x", "--every", "weekday until 2026-06-05"], transport: transport, zoneName: "Asia/Tokyo",
            timeZone: Self.tokyo)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            transport.calls.first?.params == [
                "title": "x", "due": "2026-05-31T15:00:00Z", "remind": "2026-06-01T00:00:00Z", "zone": "Asia/Tokyo",
                "allDay": true,
                "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20260605T145959Z", "from": "due"]
            ])
    }

    /// A zone name the system tz database lacks (from a private TZDIR) is not sent: the daemon
    /// would refuse the todo.
    @Test func aZoneTheDatabaseLacksIsNotSent() {
        for arguments in [["add", "x", "--due", "2026-06-03 10:00"], ["edit", "1", "--due", "2026-06-03 10:00"]] {
            let transport = FakeTransport()
            #expect(Self.run(arguments, transport: transport, zoneName: "Test/Zone").status == 0)
            #expect(transport.calls.last?.params["zone"] == nil)
            let known = FakeTransport()
            #expect(Self.run(arguments, transport: known, zoneName: "Asia/Kolkata").status == 0)
            #expect(known.calls.last?.params["zone"] == "Asia/Kolkata")
        }
    }

    /// `edit --every` without `--due` reads the todo: one without a due date starts on the rule's
    /// first day; one with a due date keeps it. Still one `todo.update`.
    @Test func editEveryWithoutDue() {
        for (due, expected) in [
            (
                nil,
                [
                    "id": 3, "ifRevision": 1, "due": "2026-06-05T00:00:00Z", "allDay": true, "zone": "UTC",
                    "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=FR", "from": "due"]
                ] as JSON
            ),
            (
                Instant(rfc3339: "2026-06-10T09:00:00Z"),
                [
                    "id": 3, "ifRevision": 1, "zone": "UTC",
                    "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=FR", "from": "due"]
                ] as JSON
            )
        ] {
            let transport = FakeTransport { (method, params) throws(ClientError) in
                method == "todo.get"
                    ? Fixtures.todo(id: 3, title: "x", due: due) : try FakeTransport.canned(method, params)
            }
            let result = Self.run(["edit", "3", "--every", "fri"], transport: transport)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(transport.methods == ["todo.get", "todo.update"])
            #expect(transport.calls.last.map { JSON.object($0.params).sortedKeys } == expected.sortedKeys)
        }
    }

    static let usageErrors: [(arguments: [String], message: String)] = [
        (
            ["add", "x", "--priority", "urgent"],
            "invalid priority \"urgent\" for --priority: expected high, medium, low (or H, M, L)"
        ),
        (
            ["list", "--priority", "none"],
            "invalid priority \"none\" for --priority: expected high, medium, low (or H, M, L)"
        ),
        (["add", "x", "--tag", "two words"], "invalid tag \"two words\" for --tag: must not contain white space"),
        (
            ["add", "x", "--tag", "a,b"],
            "invalid tag \"a,b\" for --tag: must not contain a comma; give --tag once per tag"
        ),
        (["edit", "1", "--untag", ""], "invalid tag \"\" for --untag: must not be empty"),
        (
            ["add", "x", "--tag", String(repeating: "長", count: 65)],
            "invalid tag \(TimeExpression.quoted(String(repeating: "長", count: 65))) for --tag: longer than 64 characters"
        ),
        (["edit", "1", "--priority", "h", "--no-priority"], "--priority and --no-priority cannot be used together"),
        (["edit", "1", "--every", "day", "--no-every"], "--every and --no-every cannot be used together"),
        (["edit", "1", "--tag", "Home", "--untag", "home"], "tag \"Home\" is both added (--tag) and removed (--untag)"),
        (["reopen", "1", "--stop"], "unknown option --stop for 'reopen'")
    ]

    @Test func badValuesAreUsageErrors() {
        for c in Self.usageErrors {
            let transport = FakeTransport()
            let result = Self.run(c.arguments, transport: transport)
            #expect(result.status == 2, "\(c.arguments)")
            #expect(result.stderrLines.first == "todoctl: " + c.message, "\(c.arguments)")
            #expect(transport.calls.isEmpty)
        }
    }

    /// A bad rule quotes the rule and lists the accepted forms.
    @Test(arguments: ["fortnightly", "FREQ=HOURLY", "week until someday", "month on the 32nd", "day for 0 times"])
    func aBadRuleIsAUsageError(_ rule: String) {
        let transport = FakeTransport()
        let result = Self.run(["add", "x", "--every", rule], transport: transport)
        #expect(result.status == 2)
        let line = result.stderrLines.first ?? ""
        #expect(line.hasPrefix("todoctl: invalid rule \"\(rule)\" for --every: "), "\(line)")
        #expect(
            line.contains("month on the last friday") && line.contains("after done")
                && line.contains("FREQ=MONTHLY;BYDAY=-1FR"), "\(line)")
        #expect(transport.calls.isEmpty)
    }

    // MARK: - Output

    static func todo(
        _ id: Int64, _ title: String, priority: TodoPriority? = nil, tags: [String] = [], due: Instant? = nil,
        zone: String? = nil, recurrence: TodoRecurrence? = nil, done: Bool = false, category: String? = nil
    ) -> JSON {
        Fixtures.json(
            Todo(
                id: id, title: title, category: category, due: due, remind: due, done: done,
                completed: done ? now : nil, position: Int(id),
                created: Instant(rfc3339: "2026-05-01T08:00:00Z") ?? now, updated: now,
                priority: priority, tags: tags, zone: zone, recurrence: recurrence))
    }

    static func listing(_ todos: [JSON]) -> FakeTransport {
        FakeTransport { (method, params) throws(ClientError) in
            method == "todo.list"
                ? ["todos": .array(todos), "total": .int(Int64(todos.count))] : try FakeTransport.canned(method, params)
        }
    }

    /// `!` marks, `+tag` words and the recurring mark, aligned with Japanese titles and tags.
    @Test func listShowsPriorityTagsAndRecurrence() {
        let due = Instant(rfc3339: "2026-06-02T09:00:00Z")
        let transport = Self.listing([
            Self.todo(1, "牛乳を買う", priority: .high, tags: ["urgent", "買い物"], category: "家"),
            Self.todo(2, "Pay rent", priority: .low, due: due, recurrence: TodoRecurrence(rule: "FREQ=MONTHLY")),
            Self.todo(3, "報告書を書く", tags: ["仕事"]),
            Self.todo(4, "plain", priority: .medium, done: true)
        ])
        let result = Self.run(["list", "--all"], transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdoutLines == [
                "ID  POS  ✓  DUE                       !    CATEGORY  TITLE",
                " 1    1                               !!!  家        牛乳を買う +urgent +買い物",
                " 2    2  ↻  2026-06-02 09:00  in 21h  !              Pay rent",
                " 3    3                                              報告書を書く +仕事",
                " 4    4  ✓                            !!             plain"
            ])
        for line in result.stdoutLines.dropFirst() {
            // TITLE starts in the same display column on every line.
            let head = line.prefix { !"牛Pp報".contains($0) }
            #expect(TerminalText.width(String(head)) == 53, "\(line)")
        }
    }

    /// Without any priority in the listing there is no `!` column: the table is as before.
    @Test func noPriorityNoColumn() {
        let result = Self.run(["list"], transport: Self.listing([Self.todo(1, "牛乳を買う", tags: ["家"])]))
        #expect(result.stdoutLines == ["ID  POS  ✓  DUE    CATEGORY  TITLE", " 1    1                      牛乳を買う +家"])
    }

    /// `list --recurring` adds the rule in words.
    @Test func listRecurringShowsTheRule() {
        let due = Instant(rfc3339: "2026-06-04T09:00:00Z")
        let transport = Self.listing([
            Self.todo(1, "ゴミ出し", due: due, recurrence: TodoRecurrence(rule: "FREQ=WEEKLY;BYDAY=MO,TH")),
            Self.todo(
                2, "Water plants", due: due,
                recurrence: TodoRecurrence(rule: "FREQ=DAILY;INTERVAL=2", from: .completion))
        ])
        let result = Self.run(["list", "--recurring"], transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 3)
        #expect(result.stdoutLines[0].contains("REPEATS"))
        #expect(
            result.stdoutLines[1].contains("every week on Monday and Thursday")
                && result.stdoutLines[1].hasSuffix("ゴミ出し"))
        #expect(
            result.stdoutLines[2].contains("after done: every 2 days")
                && result.stdoutLines[2].hasSuffix("Water plants"))
    }

    /// `show`: Priority, Tags, Zone when not the local one (with the due time there), Repeats and
    /// the next occurrences, which keep 09:00 in the todo's zone.
    @Test func showTellsTheFields() {
        let due = Instant(rfc3339: "2026-06-01T00:00:00Z") // 09:00 in Tokyo
        let transport = FakeTransport { (method, params) throws(ClientError) in
            method == "todo.get"
                ? Self.todo(
                    5, "朝会", priority: .medium, tags: ["daily", "仕事"], due: due, zone: "Asia/Tokyo",
                    recurrence: TodoRecurrence(rule: "FREQ=WEEKLY;BYDAY=MO,WE"))
                : try FakeTransport.canned(method, params)
        }
        let lines = Self.run(["show", "5"], transport: transport).stdoutLines
        #expect(lines.contains("Priority: medium"))
        #expect(lines.contains("Tags:     +daily +仕事"))
        #expect(lines.contains("Zone:     Asia/Tokyo (due 2026-06-01 09:00 there)"))
        #expect(lines.contains("Repeats:  every week on Monday and Wednesday"))
        let then = lines.firstIndex { $0.hasPrefix("Then:") } ?? 0
        #expect(
            Array(lines[then...].prefix(3)) == [
                "Then:     2026-06-03 00:00", "          2026-06-08 00:00", "          2026-06-10 00:00"
            ])
        // In its own zone there is no Zone line.
        let local = Self.run(["show", "5"], transport: transport, zoneName: "Asia/Tokyo", timeZone: Self.tokyo)
            .stdoutLines
        #expect(!local.contains { $0.hasPrefix("Zone:") })
        #expect(local.contains("Then:     2026-06-03 09:00"))
    }

    /// A plain todo shows "-" for priority and tags and nothing about repeating.
    @Test func showPlainTodo() {
        let lines = Self.run(["show", "7"]).stdoutLines
        #expect(lines.contains("Priority: -") && lines.contains("Tags:     -"))
        #expect(!lines.contains { $0.hasPrefix("Repeats:") || $0.hasPrefix("Zone:") || $0.hasPrefix("Then:") })
    }

    /// `done` on a recurring todo says where it moved; the others as before.
    @Test func doneOnARecurringTodoSaysAdvanced() {
        let next = Instant(rfc3339: "2026-06-08T09:00:00Z")
        let transport = FakeTransport { (method, params) throws(ClientError) in
            guard method == "todo.complete" else { return try FakeTransport.canned(method, params) }
            let ids = params["ids"]?.arrayValue?.compactMap(\.intValue) ?? []
            return .array(
                ids.map { id in
                    id == 1
                        ? Self.todo(1, "ゴミ出し", due: next, recurrence: TodoRecurrence(rule: "FREQ=WEEKLY"))
                        : Self.todo(id, "T\(id)", done: true)
                })
        }
        #expect(
            Self.run(["done", "1"], transport: transport).stdoutLines == [
                "Advanced 1 to 2026-06-08 09:00 (in 1w): ゴミ出し"
            ])
        #expect(
            Self.run(["done", "1", "2"], transport: transport).stdoutLines == [
                "Advanced 1 to 2026-06-08 09:00 (in 1w): ゴミ出し", "Completed 2: T2"
            ])
        #expect(Self.run(["done", "2", "3"], transport: transport).stdoutLines == ["Completed 2 todos."])
    }
}
