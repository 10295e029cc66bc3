import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoRPC

@testable import TodoCLI

/// Every command reaches the right wire method with the right params.
@Suite struct CommandWireTests {
    static let now = Fixtures.now
    /// RFC 3339 of `now` plus `seconds`.
    static func at(_ seconds: Int64) -> JSON { .string(now.adding(usec: seconds * 1_000_000).rfc3339()) }

    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var method: String
        var params: JSON
        /// A due-date filter or sort is counted first (`limit: 0`), then read whole: two calls.
        var counted = false
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["add", "Buy milk"], method: "todo.add", params: ["title": "Buy milk"]),
        Case(
            arguments: [
                "add", "牛乳を買う", "--category", "買い物", "--due", "+2h", "--remind", "15m", "--notes", "2 L", "--top"
            ],
            method: "todo.add",
            params: [
                "title": "牛乳を買う", "notes": "2 L", "category": "買い物", "due": at(7200), "remind": at(7200 - 900),
                "top": true
            ]),
        Case(
            arguments: ["add", "--due=2026-12-01T09:00:00+09:00", "x", "--remind", "2026-12-01T08:00:00Z"],
            method: "todo.add",
            params: ["title": "x", "due": "2026-12-01T00:00:00Z", "remind": "2026-12-01T08:00:00Z"]),
        Case(arguments: ["add", "buy", "milk"], method: "todo.add", params: ["title": "buy milk"]),
        Case(arguments: ["add", "--", "--weird", "title"], method: "todo.add", params: ["title": "--weird title"]),
        Case(arguments: ["add", "--top", "--", "-h"], method: "todo.add", params: ["title": "-h", "top": true]),
        Case(arguments: ["add", "間に", "--after", "3"], method: "todo.add", params: ["title": "間に", "after": 3]),
        Case(arguments: ["list"], method: "todo.list", params: ["status": "open"]),
        Case(
            arguments: ["list", "--done", "--category", "Work", "--overdue", "--search", "milk", "--limit", "10"],
            method: "todo.list",
            params: [
                "status": "done", "category": "Work", "subcategories": true, "overdue": true, "search": "milk",
                "limit": 10
            ]),
        Case(
            arguments: ["list", "--all", "--no-category", "--due-before", "+1d", "--due-after", "@0"],
            method: "todo.list",
            // The daemon is asked for 27 h more on each side: all-day todos are compared by their local day here.
            params: [
                "status": "all", "uncategorized": true, "dueBefore": at(86_400 + 27 * 3600),
                "dueAfter": "1969-12-30T21:00:00Z"
            ],
            counted: true),
        Case(
            arguments: ["list", "--sort", "-updated,title"], method: "todo.list",
            params: [
                "status": "open",
                "sort": [["key": "updated", "descending": true], ["key": "title", "descending": false]]
            ]),
        Case(
            arguments: ["list", "--sort=due,-position,category,id,created"], method: "todo.list",
            params: [
                "status": "open",
                "sort": [
                    ["key": "due", "descending": false], ["key": "position", "descending": true],
                    ["key": "category", "descending": false], ["key": "id", "descending": false],
                    ["key": "created", "descending": false]
                ]
            ], counted: true),
        Case(arguments: ["show", "12"], method: "todo.get", params: ["id": 12]),
        Case(
            arguments: [
                "edit", "12", "--title", "New", "--no-notes", "--category", "Home", "--due", "@100", "--no-remind"
            ],
            method: "todo.update",
            params: [
                "id": 12, "title": "New", "notes": nil, "category": "Home", "due": "1970-01-01T00:01:40Z", "remind": nil
            ]),
        Case(
            arguments: ["edit", "12", "--notes", "n", "--no-category", "--no-due"], method: "todo.update",
            params: ["id": 12, "notes": "n", "category": nil, "due": nil]),
        Case(
            arguments: ["edit", "12", "--due", "+1h", "--remind", "10m"], method: "todo.update",
            params: ["id": 12, "due": at(3600), "remind": at(3000)]),
        Case(
            arguments: ["edit", "12", "--remind", "+30m"], method: "todo.update", params: ["id": 12, "remind": at(1800)]
        ),
        Case(arguments: ["done", "1", "2", "3"], method: "todo.complete", params: ["ids": [1, 2, 3]]),
        Case(arguments: ["reopen", "4"], method: "todo.reopen", params: ["ids": [4]]),
        Case(arguments: ["rm", "5", "6"], method: "todo.delete", params: ["ids": [5, 6]]),
        Case(arguments: ["move", "7", "--to", "3"], method: "todo.move", params: ["id": 7, "position": 3]),
        Case(arguments: ["move", "7", "--before", "2"], method: "todo.move", params: ["id": 7, "before": 2]),
        Case(arguments: ["move", "--after=9", "7"], method: "todo.move", params: ["id": 7, "after": 9]),
        Case(arguments: ["move", "7", "--top"], method: "todo.move", params: ["id": 7, "position": 1]),
        Case(arguments: ["snooze", "7", "1h30m"], method: "todo.snooze", params: ["id": 7, "until": at(5400)]),
        Case(
            arguments: ["snooze", "7", "2026-06-02 09:00"], method: "todo.snooze",
            params: ["id": 7, "until": "2026-06-02T09:00:00Z"]),
        Case(arguments: ["category", "list"], method: "category.list", params: [:]),
        Case(arguments: ["category", "add", "Work"], method: "category.add", params: ["name": "Work"]),
        Case(
            arguments: ["category", "rename", "Work", "Job"], method: "category.rename",
            params: ["name": "Work", "newName": "Job"]),
        Case(
            arguments: ["category", "rm", "Work"], method: "category.delete", params: ["name": "Work", "force": false]),
        Case(
            arguments: ["category", "rm", "--force", "Work"], method: "category.delete",
            params: ["name": "Work", "force": true]),
        Case(
            arguments: ["category", "move", "Work", "--to", "2"], method: "category.move",
            params: ["name": "Work", "position": 2]),
        // Human output asks for one more than it shows, to tell when older ones were left out.
        Case(arguments: ["reminders"], method: "reminder.list", params: ["limit": 101]),
        Case(
            arguments: ["reminders", "--since", "today", "--limit", "5"], method: "reminder.list",
            params: ["since": "2026-06-01T00:00:00Z", "limit": 6]),
        Case(arguments: ["reminders", "--limit", "10000"], method: "reminder.list", params: ["limit": 10000]),
        Case(arguments: ["--json", "reminders"], method: "reminder.list", params: [:]),
        Case(
            arguments: ["--json", "reminders", "--since", "today", "--limit", "5"], method: "reminder.list",
            params: ["since": "2026-06-01T00:00:00Z", "limit": 5]),
        Case(arguments: ["status"], method: "daemon.status", params: [:]),
        Case(arguments: ["export"], method: "store.export", params: [:]),
        Case(arguments: ["export", "--format", "json"], method: "store.export", params: [:]),
        Case(arguments: ["import", "-"], method: "store.import", params: Fixtures.export)
    ]

    @Test(arguments: cases)
    func commandCallsMethod(_ c: Case) {
        let transport = FakeTransport()
        let result = Fixtures.run(c.arguments, transport: transport, stdin: Array(Fixtures.export.serialized().utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(transport.methods == (c.counted ? [c.method, c.method] : [c.method]))
        // `list` asks for the tree (subtasks under their parents) unless --flat.
        var params = c.params
        if c.method == "todo.list", case .object(var o) = params {
            o["tree"] = true
            params = .object(o)
        }
        if c.counted, case .object(var counting) = params {
            counting["limit"] = .int(0)
            #expect(transport.calls.first.map { JSON.object($0.params).sortedKeys } == JSON.object(counting).sortedKeys)
        }
        #expect(transport.calls.last.map { JSON.object($0.params).sortedKeys } == params.sortedKeys)
        #expect(result.connectedTo == ["/run/user/1000/todod/todod.sock"])
    }

    @Test func bottomListsThenMoves() {
        let transport = FakeTransport()
        let result = Fixtures.run(["move", "7", "--bottom"], transport: transport)
        #expect(result.status == 0)
        #expect(transport.methods == ["todo.list", "todo.move"])
        // Directly after the last open todo: positions count open todos only.
        #expect(
            transport.calls[0].params == [
                "status": "open", "sort": [["key": "position", "descending": true]], "limit": 1
            ])
        #expect(transport.calls[1].params == ["id": 7, "after": 1])
    }

    @Test func editRemindDurationUsesCurrentDue() {
        let due = Instant(rfc3339: "2026-06-03T10:00:00Z") ?? Fixtures.now
        let transport = FakeTransport { (method, params) throws(ClientError) in
            method == "todo.get"
                ? Fixtures.todo(id: 12, title: "x", due: due) : try FakeTransport.canned(method, params)
        }
        let result = Fixtures.run(["edit", "12", "--remind", "15m"], transport: transport)
        #expect(result.status == 0)
        #expect(transport.methods == ["todo.get", "todo.update"])
        #expect(transport.calls[0].params == ["id": 12])
        #expect(transport.calls[1].params == ["id": 12, "ifRevision": 1, "remind": "2026-06-03T09:45:00Z"])
    }

    @Test func editRemindDurationWithoutDueFails() {
        let transport = FakeTransport { (method, params) throws(ClientError) in
            method == "todo.get" ? Fixtures.todo(id: 12, title: "x") : try FakeTransport.canned(method, params)
        }
        let result = Fixtures.run(["edit", "12", "--remind", "15m"], transport: transport)
        #expect(result.status == 1)
        #expect(transport.methods == ["todo.get"])
        #expect(result.stderr.hasPrefix("todoctl: todo 12 has no due time"))
        #expect(result.stderrLines.count == 2 && result.stderrLines[1] == "")
    }

    @Test func globalOptionsBeforeAndAfterTheCommand() throws {
        let parser = Parser(now: Fixtures.now, timeZone: Fixtures.utc)
        let before = try parser.parse(["--json", "--socket", "/tmp/s", "show", "3"])
        let after = try parser.parse(["show", "--socket=/tmp/s", "3", "--json"])
        #expect(before == after)
        #expect(before.global == GlobalOptions(socket: "/tmp/s", json: true))
        #expect(before.command == .show(id: 3))
        #expect(try parser.parse(["list", "--system"]).global.system)
    }

    @Test func optionsAfterPositionals() throws {
        let parser = Parser(now: Fixtures.now, timeZone: Fixtures.utc)
        let parsed = try parser.parse(["add", "Title", "--top", "--category", "c"])
        #expect(parsed.command == .add(AddOptions(title: "Title", category: "c", top: true)))
        #expect(
            try parser.parse(["category", "rm", "Work", "--force"]).command
                == .category(.remove(name: "Work", force: true)))
    }

    @Test func valueMayStartWithADash() throws {
        let parser = Parser(now: Fixtures.now, timeZone: Fixtures.utc)
        let parsed = try parser.parse(["add", "x", "--notes", "-not an option"])
        #expect(parsed.command == .add(AddOptions(title: "x", notes: "-not an option")))
    }

    @Test func socketSelection() {
        let transport = FakeTransport()
        #expect(
            Fixtures.run(["status", "--socket", "/tmp/t.sock"], transport: transport).connectedTo == ["/tmp/t.sock"])
        #expect(Fixtures.run(["--system", "status"], transport: transport).connectedTo == ["/run/todod/todod.sock"])
        #expect(
            Fixtures.run(["status"], transport: transport, environment: ["TODOD_SOCKET": "/e.sock"]).connectedTo == [
                "/e.sock"
            ])
    }

    @Test func watchPrintsEvents() {
        let transport = FakeTransport()
        transport.events = [
            ["type": "todo.added", "todos": [Fixtures.todo(id: 1, title: "A")]],
            [
                "type": "category.renamed", "category": Fixtures.category(id: 1, name: "Job", position: 1),
                "oldName": "Work"
            ],
            ["type": "reminder", "todo": Fixtures.todo(id: 2, title: "B"), "lateUsec": 3_000_000],
            ["type": "mystery", "x": 1]
        ]
        let human = Fixtures.run(["watch"], transport: transport)
        // The fake's stream ends after its events, as when todod goes away: one line, exit 69.
        #expect(human.status == 69)
        #expect(
            human.stderr.hasPrefix("todoctl: todod at ") && human.stderr.contains("went away")
                && human.stderr.split(separator: "\n").count == 1, "\(human.stderr)")
        #expect(transport.watchParams == JSONObject())
        #expect(
            human.stdoutLines == [
                "added 1: A", "category renamed: Work → Job", "reminder 2: B, 3s late", "mystery {\"x\":1}"
            ])
        let json = Fixtures.run(["watch", "--json"], transport: transport)
        #expect(json.stdoutLines == transport.events.map { $0.serialized() })
    }
}
