import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTime

@testable import TodoCLI

/// `--json` shapes and human output.
@Suite struct OutputTests {
    /// A document too long for one request line is cut into parts that each fit in one, carry
    /// the document's other members, and together hold every category and todo in order.
    @Test func importPartsFitOneLineEach() throws {
        let todos: [JSON] = (1...20_000).map {
            ["title": .string("todo \($0) 牛乳を買う"), "created": "2026-11-01T00:00:00Z"]
        }
        let categories: [JSON] = (1...300).map { .string("category \($0) " + String(repeating: "x", count: 150)) }
        let document: JSONObject = [
            "format": "todod-export", "version": 1, "exported": "2026-11-30T00:00:00Z",
            "categories": .array(categories), "todos": .array(todos)
        ]
        let parts = try Runner.importParts(document).map(\.encoded)
        #expect(parts.count > 1)
        for (i, part) in parts.enumerated() {
            let line = RPCRequest(id: .int(Int64(i)), method: "store.import", params: part).json.serialized()
            #expect(line.utf8.count < LineFramer.defaultMaxLineLength)
            #expect(
                part["format"] == "todod-export" && part["version"] == 1 && part["exported"] == "2026-11-30T00:00:00Z")
            #expect(part["more"] == (i < parts.count - 1 ? true : nil))
        }
        #expect(parts.flatMap { $0["categories"]?.arrayValue ?? [] } == categories)
        #expect(parts.flatMap { $0["todos"]?.arrayValue ?? [] } == todos)
        let small: JSONObject = [
            "format": "todod-export", "version": 1, "categories": [], "todos": .array(Array(todos[..<10]))
        ]
        #expect(try Runner.importParts(small).map(\.encoded) == [small])
        var claimsMore = small
        claimsMore["more"] = true
        #expect(try Runner.importParts(claimsMore).map(\.encoded) == [small])
    }

    /// A refused listing prints nothing on standard output, not even the opening bracket.
    @Test func aRefusedListingPrintsNothing() {
        let transport = FakeTransport { method, _ throws(ClientError) in
            throw .refused(RPCError(code: RPCError.notFoundCode, message: "no category named \"x\""))
        }
        for arguments in [["--json", "list"], ["list"]] {
            let result = Fixtures.run(arguments, transport: transport)
            #expect(
                result.status == 1 && result.stdout.isEmpty && result.stderr == "todoctl: no category named \"x\"\n")
        }
    }

    /// A listing longer than one part is printed in parts: one header, every row, columns kept
    /// from the first part. On a terminal a longer category later is cut with … and the title
    /// column stays put; in a pipe nothing is cut.
    @Test func aLongListingIsPrintedInParts() throws {
        let count = Runner.streamedRows * 2 + 345
        let todos: [JSON] = (1...count).map { i in
            // Ids and positions gain a digit after the first part; `total` announces it.
            Fixtures.todo(
                id: Int64(8999 + i), title: i % 3 == 0 ? "牛乳を買う \(i)" : "task \(i)",
                category: i > Runner.streamedRows ? "a much longer category name" : "仕事", position: 8999 + i)
        }
        let transport = FakeTransport { method, _ throws(ClientError) in
            method == "todo.list" ? ["total": 20000, "todos": .array(todos)] : try FakeTransport.canned(method, [:])
        }
        for terminalWidth in [nil, 60] {
            let human = Fixtures.run(
                ["list"], transport: transport, isTerminal: terminalWidth != nil, terminalWidth: terminalWidth,
                environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "NO_COLOR": "1"])
            #expect(human.status == 0)
            let lines = human.stdoutLines
            #expect(lines.count == 1 + count + 1)
            #expect(lines.filter { $0.contains("TITLE") }.count == 1)
            #expect(lines.last == "Showing \(count) of 20000 todos.")
            var titleColumns = Set<Int>()
            for (i, line) in lines.dropFirst().dropLast().enumerated() {
                let title = todos[i]["title"]?.stringValue ?? ""
                guard let range = line.range(of: title, options: .backwards) else {
                    Issue.record("no title in \(line)")
                    continue
                }
                if terminalWidth != nil || i < Runner.streamedRows {
                    titleColumns.insert(TerminalText.width(String(line[..<range.lowerBound])))
                }
                if i >= Runner.streamedRows {
                    #expect(line.contains(terminalWidth == nil ? "a much longer category name" : "…"))
                }
            }
            #expect(titleColumns.count == 1)
        }
        let json = Fixtures.run(["--json", "list"], transport: transport)
        let parsed = try JSON.parse(json.stdout)
        #expect(parsed.arrayValue?.compactMap { $0["id"]?.intValue } == (1...count).map { Int64(8999 + $0) })
        #expect(json.stdout.hasSuffix("]\n"))
    }

    static let hour: Int64 = 3_600_000_000
    static let sample: [JSON] = [
        Fixtures.todo(
            id: 1, title: "Buy milk", category: "Home", due: Fixtures.now.adding(usec: 2 * hour), position: 1),
        Fixtures.todo(id: 12, title: "牛乳を買う", category: "買い物", due: Fixtures.now.adding(usec: -72 * hour), position: 2),
        Fixtures.todo(id: 3, title: "🍣 sushi 👨‍👩‍👧‍👦 party", category: "Home", position: 3),
        Fixtures.todo(id: 104, title: "cafe\u{301} visit", done: true, position: 4),
        Fixtures.todo(
            id: 5, title: "ｶﾀｶﾅ half-width and 漢字", category: "買い物", due: Fixtures.now.adding(usec: 30 * 24 * hour),
            position: 5)
    ]

    static func listing(_ todos: [JSON] = sample, total: Int64? = nil) -> FakeTransport {
        FakeTransport { (method, params) throws(ClientError) in
            switch method {
            case "todo.list": return ["todos": .array(todos), "total": .int(total ?? Int64(todos.count))]
            case "category.list":
                return [
                    Fixtures.category(id: 2, name: "買い物", position: 1),
                    Fixtures.category(id: 1, name: "Home", position: 2)
                ]
            default: return try FakeTransport.canned(method, params)
            }
        }
    }

    // MARK: - JSON

    @Test func jsonShapes() throws {
        let todo = Fixtures.todo(id: 7, title: "Buy milk", due: Fixtures.now.adding(usec: 2 * Self.hour))
        let single: [[String]] = [
            ["add", "Buy milk"], ["show", "7"], ["edit", "7", "--title", "Buy milk"],
            ["move", "7", "--to", "2"], ["snooze", "7", "1h"]
        ]
        for arguments in single {
            for placement in [["--json"] + arguments, arguments + ["--json"]] {
                let result = Fixtures.run(placement)
                #expect(result.status == 0)
                #expect(result.stdout == todo.serialized() + "\n", "\(placement)")
            }
        }
        let list = Fixtures.run(["list", "--json"], transport: Self.listing())
        #expect(list.stdout == JSON.array(Self.sample).serialized() + "\n")
        // By-category grouping is for humans: --json keeps the daemon's order and asks nothing else.
        let transport = Self.listing()
        #expect(Fixtures.run(["--json", "list", "--by-category"], transport: transport).stdout == list.stdout)
        #expect(transport.methods == ["todo.list"])

        let done = Fixtures.run(["done", "1", "2", "--json"])
        #expect(
            done.stdout == JSON.array([
                Fixtures.todo(id: 1, title: "T1", done: true), Fixtures.todo(id: 2, title: "T2", done: true)
            ]).serialized() + "\n")
        let categories = Fixtures.run(["--json", "category", "list"])
        #expect(
            categories.stdout == JSON.array([Fixtures.category(id: 1, name: "Work", position: 1)]).serialized() + "\n")
        let renamed = Fixtures.run(["--json", "category", "rename", "Work", "Job"])
        #expect(renamed.stdout == Fixtures.category(id: 1, name: "Job", position: 1).serialized() + "\n")
        #expect(Fixtures.run(["--json", "reminders"]).stdout == JSON.array([Fixtures.reminder]).serialized() + "\n")
        #expect(Fixtures.run(["--json", "status"]).stdout == Fixtures.status.serialized() + "\n")
        #expect(Fixtures.run(["--json", "export"]).stdout == Fixtures.export.serialized() + "\n")
        #expect(Fixtures.run(["export"]).stdout == Fixtures.export.serialized() + "\n")
        #expect(
            Fixtures.run(["--json", "import", "-"], stdin: Array(Fixtures.export.serialized().utf8)).stdout
                == "{\"todos\":2,\"categories\":1}\n")
        // Every output parses as one JSON document.
        for arguments in single + [["list"], ["done", "1"], ["category", "list"], ["reminders"], ["status"]] {
            let out = Fixtures.run(["--json"] + arguments, transport: Self.listing()).stdout
            #expect(out.hasSuffix("\n") && out.filter { $0 == "\n" }.count == 1)
            _ = try JSON.parse(out)
        }
    }

    @Test func jsonKeepsDaemonKeyOrderAndExtraFields() {
        let odd: JSON = [
            "updated": "2026-06-01T12:00:00Z", "id": 9, "title": "x", "done": false, "position": 1,
            "created": "2026-06-01T12:00:00Z", "future": [1, 2]
        ]
        let transport = FakeTransport { (_, _) throws(ClientError) in odd }
        #expect(Fixtures.run(["--json", "show", "9"], transport: transport).stdout == odd.serialized() + "\n")
    }

    // MARK: - Human

    /// The display column where `needle` starts in `line`.
    static func column(of needle: String, in line: String) -> Int? {
        guard let range = line.range(of: needle) else { return nil }
        return TerminalText.width(String(line[..<range.lowerBound]))
    }

    @Test func listColumnsStayAligned() {
        let result = Fixtures.run(["list"], transport: Self.listing())
        #expect(result.status == 0)
        let lines = result.stdoutLines
        #expect(lines.count == 6)
        let titles = ["TITLE", "Buy milk", "牛乳を買う", "🍣 sushi", "cafe\u{301} visit", "ｶﾀｶﾅ half-width"]
        let categories = ["CATEGORY", "Home", "買い物", "Home", nil, "買い物"]
        let titleColumns = zip(lines, titles).map { Self.column(of: $1, in: $0) }
        #expect(Set(titleColumns).count == 1 && titleColumns[0] != nil, "\(lines.joined(separator: "\n"))")
        let categoryColumns = zip(lines, categories).compactMap { line, name in
            name.flatMap { Self.column(of: $0, in: line) }
        }
        #expect(categoryColumns.count == 5 && Set(categoryColumns).count == 1)
        #expect(lines[1].contains("in 2h") && lines[2].contains("3d overdue") && lines[5].contains("in 4w"))
        #expect(lines[1].contains("2026-06-01 14:00"))
        #expect(lines[4].contains("✓"))
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") })
    }

    @Test func listHonoursTheTimeZone() {
        let tokyo = ZoneInfo(identifier: "Asia/Tokyo") ?? Fixtures.utc
        let result = Fixtures.run(["list"], transport: Self.listing(), timeZone: tokyo)
        #expect(result.stdoutLines[1].contains("2026-06-01 23:00"))
    }

    @Test func titlesAreTruncatedToTheTerminal() {
        let long = Fixtures.todo(id: 1, title: String(repeating: "長い題名", count: 30), category: "Home")
        let result = Fixtures.run(
            ["list"], transport: Self.listing([long]), isTerminal: true, terminalWidth: 60,
            environment: ["NO_COLOR": "1"])
        #expect(result.stdoutLines.allSatisfy { TerminalText.width($0) <= 60 })
        #expect(result.stdout.contains("…"))
        // Not a terminal: nothing is cut.
        let piped = Fixtures.run(["list"], transport: Self.listing([long]), terminalWidth: 60)
        #expect(!piped.stdout.contains("…"))
    }

    @Test func colourOnlyOnATerminalWithoutNoColor() {
        let terminal = Fixtures.run(
            ["list"], transport: Self.listing(), isTerminal: true, terminalWidth: 200,
            environment: ["TERM": "xterm-256color"])
        #expect(terminal.stdout.contains("\u{1B}[1m")) // bold header
        #expect(terminal.stdout.contains("\u{1B}[31m")) // overdue in red
        #expect(terminal.stdout.contains("\u{1B}[2m")) // done dimmed
        for environment in [["NO_COLOR": "1"], ["NO_COLOR": "1", "TERM": "xterm"], ["TERM": "dumb"]] {
            let plain = Fixtures.run(
                ["list"], transport: Self.listing(), isTerminal: true, terminalWidth: 200, environment: environment)
            #expect(!plain.stdout.contains("\u{1B}"), "\(environment)")
        }
        // An empty NO_COLOR does not count.
        let empty = Fixtures.run(["list"], transport: Self.listing(), isTerminal: true, environment: ["NO_COLOR": ""])
        #expect(empty.stdout.contains("\u{1B}["))
        for arguments in [["show", "7"], ["status"], ["category", "list"], ["reminders"]] {
            #expect(!Fixtures.run(arguments).stdout.contains("\u{1B}"))
            #expect(
                !Fixtures.run(arguments, isTerminal: true, environment: ["NO_COLOR": "yes"]).stdout.contains("\u{1B}"))
        }
    }

    @Test func byCategorySectionsInCategoryOrder() {
        let transport = Self.listing()
        let result = Fixtures.run(["list", "--by-category"], transport: transport)
        #expect(transport.methods == ["todo.list", "category.list"])
        let lines = result.stdoutLines
        #expect(lines.first?.hasPrefix(" ") == true || lines.first?.hasPrefix("ID") == true)
        let headers = lines.filter { !$0.isEmpty && !$0.contains("  ") }
        #expect(headers == ["買い物", "Home", "(no category)"])
        let order = ["牛乳を買う", "ｶﾀｶﾅ", "Buy milk", "🍣", "visit"].map { name in
            lines.firstIndex { $0.contains(name) } ?? -1
        }
        #expect(order == order.sorted() && !order.contains(-1))
        let rows = lines.enumerated().filter { $0.element.contains("  ") }.map(\.element)
        let columns = rows.compactMap { row in
            ["TITLE", "Buy milk", "牛乳を買う", "🍣", "cafe\u{301}", "ｶﾀｶﾅ"].lazy.compactMap { Self.column(of: $0, in: row) }
                .first
        }
        #expect(columns.count == 6 && Set(columns).count == 1, "\(lines.joined(separator: "\n"))")
        #expect(!lines[0].contains("CATEGORY"))
    }

    @Test func emptyListings() {
        #expect(Fixtures.run(["list"], transport: Self.listing([])).stdout == "No open todos.\n")
        #expect(Fixtures.run(["list", "--all"], transport: Self.listing([])).stdout == "No todos.\n")
        #expect(
            Fixtures.run(["list", "--done", "--search", "x"], transport: Self.listing([])).stdout
                == "No done todos match.\n")
        #expect(Fixtures.run(["--json", "list"], transport: Self.listing([])).stdout == "[]\n")
    }

    @Test func limitedListingSaysHowManyThereAre() {
        let result = Fixtures.run(
            ["list", "--limit", "2"], transport: Self.listing(Array(Self.sample.prefix(2)), total: 9))
        #expect(result.stdoutLines.last == "Showing 2 of 9 todos.")
    }

    @Test func confirmations() {
        #expect(Fixtures.run(["add", "牛乳を買う", "--due", "+2h"]).stdout == "Added 7: 牛乳を買う (due in 2h)\n")
        #expect(Fixtures.run(["done", "3", "4", "5"]).stdout == "Completed 3 todos.\n")
        #expect(Fixtures.run(["done", "3"]).stdout == "Completed 3: T3\n")
        #expect(Fixtures.run(["rm", "3"]).stdout == "Deleted 3: T3\n")
        #expect(Fixtures.run(["reopen", "3", "4"]).stdout == "Reopened 2 todos.\n")
        let move = FakeTransport { (method, params) throws(ClientError) in
            method == "todo.move"
                ? Fixtures.todo(id: 7, title: "x", position: 1) : try FakeTransport.canned(method, params)
        }
        #expect(Fixtures.run(["move", "7", "--top"], transport: move).stdout == "Moved 7 to position 1.\n")
        // The daemon answers the reminder where it is now: moved to the snooze, or left later.
        let snoozed = FakeTransport { (method, params) throws(ClientError) in
            guard method == "todo.snooze", var todo = try FakeTransport.canned(method, params).objectValue else {
                return try FakeTransport.canned(method, params)
            }
            todo["remind"] = params["until"]
            return .object(todo)
        }
        #expect(
            Fixtures.run(["snooze", "7", "1h"], transport: snoozed).stdout
                == "Snoozed 7 until 2026-06-01 13:00 (in 1h): Buy milk\n")
        #expect(
            Fixtures.run(["snooze", "7", "1h"]).stdout
                == "Reminder of 7 stays at 2026-06-01 14:00 (in 2h): later than 2026-06-01 13:00, and a snooze never moves it earlier: Buy milk\n"
        )
        #expect(Fixtures.run(["category", "add", "Work"]).stdout == "Added category Work.\n")
        #expect(Fixtures.run(["category", "rename", "Work", "Job"]).stdout == "Renamed category Work to Job.\n")
        #expect(
            Fixtures.run(["category", "rm", "Work", "--force"]).stdout
                == "Deleted category Work. 1 todo is now uncategorised.\n")
        #expect(
            Fixtures.run(["category", "move", "Work", "--to", "2"]).stdout == "Moved category Work to position 2.\n")
    }

    @Test func showPrintsAlignedLabels() {
        let transport = FakeTransport { (_, _) throws(ClientError) in
            Fixtures.todo(
                id: 12, title: "牛乳を買う", category: "買い物", due: Fixtures.now.adding(usec: 2 * Self.hour),
                notes: "2 L\nlow fat")
        }
        let lines = Fixtures.run(["show", "12"], transport: transport).stdoutLines
        #expect(lines.first == "ID:       12")
        #expect(lines.contains("Title:    牛乳を買う"))
        #expect(lines.contains("Due:      2026-06-01 14:00 (in 2h)"))
        #expect(lines.suffix(2) == ["Notes:    2 L", "          low fat"])
    }

    @Test func statusLooksLikeSystemctl() {
        let lines = Fixtures.run(["status"]).stdoutLines
        #expect(lines.first == "● todod 0.1.0")
        #expect(lines.contains("            PID: 4242"))
        #expect(lines.contains { $0.contains("Active: running since 2026-06-01 09:55; 2h 5m ago") })
        #expect(lines.contains { $0.contains("Todos: 4 open, 2 done") })
        #expect(lines.contains { $0.contains("Next reminder: 2026-06-01 14:00 (in 2h)") })
    }

    @Test func remindersAndCategories() {
        let reminders = Fixtures.run(["reminders"]).stdoutLines
        #expect(reminders.count == 2 && reminders[1].contains("2026-06-01 08:45") && reminders[1].contains("2s"))
        let empty = FakeTransport { (_, _) throws(ClientError) in [] }
        #expect(Fixtures.run(["reminders"], transport: empty).stdout == "No reminders have fired.\n")
        #expect(Fixtures.run(["category", "list"], transport: empty).stdout == "No categories.\n")
        let categories = Fixtures.run(["category", "list"]).stdoutLines
        #expect(categories == ["POS  NAME  OPEN  DONE", "  1  Work     1     0"])
    }
}
