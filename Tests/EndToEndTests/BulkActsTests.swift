import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Acting on many todos through the real binaries and daemon: `done`, `reopen`, `rm`, `edit`,
/// `move`, `snooze` and `annotate` with a filter as `list` takes it, several ids, or `--all`;
/// refused without a terminal unless `--yes`; one request, one undo step (`todo.batch`).
@Suite struct BulkActsTests {
    static func json(_ result: ChildProcess.Result) throws -> JSON { try JSON.parse(Array(result.stdout.utf8)) }

    static func todo(_ d: DaemonProcess, _ id: Int) throws -> JSON {
        try json(try d.todoctl(["--json", "show", "\(id)"]))
    }

    /// The ids `list --flat --json ARGS` shows.
    static func listed(_ d: DaemonProcess, _ arguments: [String]) throws -> [Int64] {
        let result = try d.todoctl(["--json", "list", "--flat"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try json(result).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
    }

    /// Six todos: three in 買い物 (two due today), one tagged home, one high priority, one plain.
    static func seeded() throws -> DaemonProcess {
        let d = try DaemonProcess()
        for arguments in [
            ["牛乳を買う", "-c", "買い物", "--due", "today 10:00"], ["卵", "-c", "買い物", "--due", "today 11:00"],
            ["パン", "-c", "買い物", "--due", "+3d"], ["Fix the sink", "-t", "home"],
            ["Report", "-p", "high"], ["本を読む"]
        ] {
            let added = try d.todoctl(["add"] + arguments, environment: ["TZ": "UTC"])
            #expect(added.status == 0, "\(added.stderr)")
        }
        return d
    }

    @Test func doneWithAFilterTakesExactlyWhatListShows() throws {
        let d = try Self.seeded()
        let filter = ["-c", "買い物", "--due-before", "tomorrow"]
        let expected = try Self.listed(d, filter)
        #expect(expected == [1, 2])
        let done = try d.todoctl(["done"] + filter + ["--yes"], environment: ["TZ": "UTC"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("Completed 2 todos."), "\(done.stdout)")
        for id in 1...6 { #expect(try Self.todo(d, id)["done"] == .bool(expected.contains(Int64(id)))) }
        // The filter may come before the command word too.
        let before = try d.todoctl(["-c", "買い物", "done", "--yes"])
        #expect(before.status == 0 && before.stdout.contains("Completed 3"), "\(before.stdout)\(before.stderr)")
        // reopen with a filter takes the done ones.
        let reopened = try d.todoctl(["reopen", "-c", "買い物", "--yes"])
        #expect(
            reopened.status == 0 && reopened.stdout.contains("Reopened 3 todos."),
            "\(reopened.stdout)\(reopened.stderr)")
        #expect(try Self.todo(d, 1)["done"] == .bool(false))
    }

    @Test func withoutATerminalOrWithJSONAFilterNeedsYes() throws {
        let d = try Self.seeded()
        let before = try d.todoctl(["--json", "export"]).stdout
        for arguments in [
            ["done", "-c", "買い物"], ["--json", "rm", "-t", "home"], ["-p", "high", "edit", "--title", "x"],
            ["snooze", "--all", "2h"], ["move", "-c", "買い物", "--top"], ["annotate", "-c", "買い物", "メモ"]
        ] {
            let refused = try d.todoctl(arguments)
            #expect(refused.status == 2, "\(arguments): \(refused.stdout)\(refused.stderr)")
            #expect(
                refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("--yes"),
                "\(refused.stderr)")
        }
        let stored = try Self.json(try d.todoctl(["--json", "export"]))
        #expect(stored["todos"] == (try JSON.parse(Array(before.utf8)))["todos"])
        // Nothing to act on: no ids, no filter, no --all.
        for command in ["done", "rm", "move", "snooze", "annotate", "reopen"] {
            let nothing = try d.todoctl([command] + (command == "move" ? ["--top"] : []))
            #expect(
                nothing.status == 2 && nothing.stderr.hasPrefix("todoctl: missing"), "\(command): \(nothing.stderr)")
        }
        // Ids and a filter at once are refused.
        let both = try d.todoctl(["done", "1", "-c", "買い物", "--yes"])
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        // A filter that matches nothing changes nothing, and says so.
        let none = try d.todoctl(["done", "-c", "買い物", "--search", "存在しない", "--yes"])
        #expect(none.status == 0 && none.stdout.contains("nothing changed"), "\(none.stdout)")
    }

    @Test func editSetsFieldsOnEveryTodoOfAFilterOrOfSeveralIds() throws {
        let d = try Self.seeded()
        let edited = try d.todoctl(["-t", "home", "edit", "-p", "low", "--yes"])
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try Self.todo(d, 4)["priority"] == .string("low"))
        let ids = try d.todoctl(["edit", "1", "2", "6", "-p", "medium", "+急ぎ"])
        #expect(ids.status == 0 && ids.stdout.contains("Updated 3 todos."), "\(ids.stdout)\(ids.stderr)")
        for id in [1, 2, 6] {
            let todo = try Self.todo(d, id)
            #expect(todo["priority"] == .string("medium") && todo["tags"] == .array([.string("急ぎ")]))
        }
        #expect(try Self.todo(d, 3)["priority"] == .null)
        let half = try d.todoctl(["edit", "1", "3", "-p", "medium"])
        #expect(half.stdout.contains("Updated 1 todo; 1 was already so."), "\(half.stdout)\(half.stderr)")
        #expect(try d.todoctl(["undo"]).status == 0)
        // One undo step puts all three back.
        let undone = try d.todoctl(["undo"])
        #expect(undone.status == 0 && undone.stdout.contains("edit 1, 2, 6"), "\(undone.stdout)")
        for id in [1, 2, 6] { #expect(try Self.todo(d, id)["priority"] == .null) }
        #expect(try Self.todo(d, 4)["priority"] == .string("low"))
    }

    @Test func rmAndItsUndoAreOneStep() throws {
        let d = try Self.seeded()
        let removed = try d.todoctl(["--json", "rm", "-c", "買い物", "--yes"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try Self.json(removed).arrayValue?.count == 3)
        #expect(try Self.listed(d, []) == [4, 5, 6])
        #expect(try d.todoctl(["undo"]).status == 0)
        #expect(try Self.listed(d, []) == [1, 2, 3, 4, 5, 6])
    }

    @Test func moveTakesTheTodosInTheirOrderToTheTarget() throws {
        let d = try Self.seeded()
        let moved = try d.todoctl(["move", "-c", "買い物", "--bottom", "--yes"])
        #expect(moved.status == 0 && moved.stdout.contains("Moved 3 todos."), "\(moved.stdout)\(moved.stderr)")
        #expect(try Self.listed(d, []) == [4, 5, 6, 1, 2, 3])
        let ids = try d.todoctl(["move", "6", "2", "--top"])
        #expect(ids.status == 0, "\(ids.stderr)")
        #expect(try Self.listed(d, []) == [6, 2, 4, 5, 1, 3])
        #expect(try d.todoctl(["undo"]).status == 0)
        #expect(try Self.listed(d, []) == [4, 5, 6, 1, 2, 3])
        // Todos already where they are sent are reported as such, not as moved.
        let still = try d.todoctl(["move", "--all", "--bottom", "--yes"])
        #expect(
            still.status == 0 && still.stdout.contains("Nothing changed: the 6 todos were already so."),
            "\(still.stdout)\(still.stderr)")
        let inside = try d.todoctl(["move", "1", "2", "--after", "2"])
        #expect(inside.status == 1 && inside.stderr.contains("one of the todos being moved"), "\(inside.stderr)")
    }

    @Test func snoozeAndAnnotateOnMany() throws {
        let d = try Self.seeded()
        let snoozed = try d.todoctl(["snooze", "1", "2", "2030-01-01 09:00"], environment: ["TZ": "UTC"])
        #expect(snoozed.status == 0 && snoozed.stdout.contains("Snoozed 2 todos"), "\(snoozed.stdout)\(snoozed.stderr)")
        for id in [1, 2] { #expect(try Self.todo(d, id)["remind"] == .string("2030-01-01T09:00:00Z")) }
        let all = try d.todoctl(["snooze", "--all", "3h", "--yes"])
        // 1, 2 and 3 (due in 3 days) keep their later reminder (a snooze never moves one earlier), and the line says so.
        #expect(
            all.status == 0 && all.stdout.contains("Snoozed 3 todos until ")
                && all.stdout.contains("; 3 kept a later reminder"), "\(all.stdout)\(all.stderr)")
        #expect(try d.todoctl(["undo"]).status == 0)
        #expect(try Self.todo(d, 1)["remind"] == .string("2030-01-01T09:00:00Z"))
        #expect(try Self.todo(d, 6)["remind"] == .null)

        #expect(try d.todoctl(["edit", "1", "--notes", "最初の行"]).status == 0)
        let annotated = try d.todoctl(["annotate", "-c", "買い物", "店が", "閉まっていた", "--yes"], environment: ["TZ": "UTC"])
        #expect(
            annotated.status == 0 && annotated.stdout.contains("Annotated 3 todos."),
            "\(annotated.stdout)\(annotated.stderr)")
        let notes = try #require(try Self.todo(d, 1)["notes"]?.stringValue)
        let lines = notes.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == "最初の行", "\(notes)")
        #expect(
            lines.last.map {
                $0.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d 店が 閉まっていた$"#, options: .regularExpression) != nil
            } == true, "\(notes)")
        #expect(try Self.todo(d, 3)["notes"]?.stringValue?.hasSuffix(" 店が 閉まっていた") == true)
        let one = try d.todoctl(["annotate", "6", "読んだ"])
        #expect(one.status == 0 && one.stdout.contains("Annotated 6: 本を読む"), "\(one.stdout)\(one.stderr)")
        #expect(try d.todoctl(["undo"]).status == 0)
        #expect(try Self.todo(d, 6)["notes"] == .null)
    }

    /// Every act's filter takes `--search-exact` as `list` does: the text as written, while
    /// `--search` folds kana (くりーにんぐ takes クリーニング too).
    @Test func actsTakeAnExactSearch() throws {
        let d = try DaemonProcess()
        for title in ["クリーニング店", "くりーにんぐ 出す", "ｸﾘｰﾆﾝｸﾞ"] {
            #expect(try d.todoctl(["add", title]).status == 0)
        }
        #expect(try Self.listed(d, ["--search-exact", "くりーにんぐ"]) == [2])
        let exact = try d.todoctl(["done", "--search-exact", "くりーにんぐ", "--yes"])
        #expect(exact.status == 0, "\(exact.stdout)\(exact.stderr)")
        #expect(try Self.todo(d, 2)["done"] == .bool(true))
        #expect(try Self.todo(d, 1)["done"] == .bool(false) && Self.todo(d, 3)["done"] == .bool(false))
        // Before the command word too, and for edit (whose options after it are fields).
        let edited = try d.todoctl(["--search-exact", "クリーニング", "edit", "-p", "low", "--yes"])
        #expect(edited.status == 0, "\(edited.stdout)\(edited.stderr)")
        #expect(try Self.todo(d, 1)["priority"] == .string("low") && Self.todo(d, 3)["priority"] == .null)
        for (act, extra) in [("annotate", ["メモ"]), ("snooze", ["2h"]), ("move", ["--top"]), ("reopen", []), ("rm", [])]
        {
            let none = try d.todoctl([act, "--search-exact", "ｸﾘｰﾆﾝｸﾞ店"] + extra + ["--yes"])
            #expect(none.status == 0 && !none.stdout.contains("ｸﾘｰﾆﾝｸﾞ"), "\(act): \(none.stdout)\(none.stderr)")
        }
        let moved = try d.todoctl(["move", "--search-exact", "ｸﾘｰﾆﾝｸﾞ", "--top", "--yes"])
        #expect(moved.status == 0, "\(moved.stdout)\(moved.stderr)")
        #expect(try Self.listed(d, []) == [3, 1])
        let both = try d.todoctl(["done", "--search", "x", "--search-exact", "x", "--yes"])
        #expect(
            both.status == 2 && both.stderr.contains("--search and --search-exact cannot be used together"),
            "\(both.stderr)")
        let folded = try d.todoctl(["done", "--search", "くりーにんぐ", "--yes"])
        #expect(folded.status == 0 && folded.stdout.contains("Completed 2 todos."), "\(folded.stdout)\(folded.stderr)")
        for id in 1...3 { #expect(try Self.todo(d, id)["done"] == .bool(true)) }
    }

    /// `todo.batch` on the wire: all or nothing, one change of the log.
    @Test func theBatchIsAllOrNothing() throws {
        let d = try Self.seeded()
        let client = try RawClient(path: d.socket)
        let bad = try client.call(
            "todo.batch",
            [
                "ops": [
                    ["method": "todo.complete", "params": ["ids": [1]]],
                    ["method": "todo.update", "params": ["id": 999, "title": "x"]]
                ]
            ])
        #expect(bad["error"]?["code"] != nil, "\(bad)")
        #expect(try Self.todo(d, 1)["done"] == .bool(false))
        let wrong = try client.call("todo.batch", ["ops": [["method": "todo.add", "params": ["title": "x"]]]])
        #expect(wrong["error"]?["message"]?.stringValue?.contains("ops[0].method") == true, "\(wrong)")
        let good = try client.call(
            "todo.batch",
            [
                "ops": [
                    ["method": "todo.complete", "params": ["ids": [1]]],
                    ["method": "todo.update", "params": ["id": 2, "title": "卵を十個"]]
                ]
            ])
        #expect(good["result"]?.arrayValue?.count == 2, "\(good)")
        let history = try Self.json(try d.todoctl(["--json", "undo", "--list", "--limit", "1"]))
        #expect(history.arrayValue?.first?["kind"] == .string("batch"), "\(history)")
        #expect(try d.todoctl(["undo"]).status == 0)
        #expect(try Self.todo(d, 1)["done"] == .bool(false) && Self.todo(d, 2)["title"] == .string("卵"))
    }
}
