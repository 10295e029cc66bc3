import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Taskwarrior's grammar where it does not clash with todoctl's, through the real binaries:
/// attributes among the words of `add` and `edit` (`due:`, `project:`, `priority:`, `+tag`,
/// `-tag`, an empty value clearing), and the id before the command (`todoctl 12`,
/// `todoctl 12 done`, `todoctl 12 modify ...`).
@Suite struct TaskwarriorHabitsTests {
    static func todo(_ d: DaemonProcess, _ id: Int) throws -> JSON {
        try JSON.parse(Array(try d.todoctl(["--json", "show", "\(id)"]).stdout.utf8))
    }

    @Test func attributesAmongTheWordsOfAddAndEdit() throws {
        let d = try DaemonProcess()
        let added = try d.todoctl(
            ["--json", "add", "Buy", "milk", "due:2027-01-05", "+shop", "project:買い物", "priority:H", "note:x"],
            environment: ["TZ": "UTC"])
        #expect(added.status == 0, "\(added.stderr)")
        let todo = try JSON.parse(Array(added.stdout.utf8))
        #expect(todo["title"] == .string("Buy milk note:x"))
        #expect(todo["due"] == .string("2027-01-05T00:00:00Z") && todo["allDay"] == .bool(true))
        #expect(
            todo["tags"] == .array([.string("shop")]) && todo["category"] == .string("買い物")
                && todo["priority"] == .string("high"))
        // After `--`, every word is the title's.
        let verbatim = try d.todoctl(["--json", "add", "--", "Check", "due:dates", "+1"])
        #expect(try JSON.parse(Array(verbatim.stdout.utf8))["title"] == .string("Check due:dates +1"))
        // edit: -tag removes, an empty value clears, +tag adds.
        let edited = try d.todoctl(["edit", "1", "due:", "-shop", "+急ぎ", "pri:L"])
        #expect(edited.status == 0, "\(edited.stderr)")
        let after = try Self.todo(d, 1)
        #expect(
            after["due"] == .null && after["tags"] == .array([.string("急ぎ")]) && after["priority"] == .string("low"))
    }

    @Test func theIdBeforeTheCommand() throws {
        let d = try DaemonProcess()
        for title in ["一", "二", "三"] { #expect(try d.todoctl(["add", title]).status == 0) }
        let shown = try d.todoctl(["2"])
        #expect(shown.status == 0 && shown.stdout.contains("Title:    二"), "\(shown.stdout)")
        #expect(try d.todoctl(["2", "modify", "project:家"]).status == 0)
        #expect(try Self.todo(d, 2)["category"] == .string("家"))
        #expect(try d.todoctl(["1", "3", "done"]).status == 0)
        #expect(try Self.todo(d, 1)["done"] == .bool(true) && Self.todo(d, 3)["done"] == .bool(true))
        #expect(try d.todoctl(["2", "delete"]).status == 0)
        #expect(try d.todoctl(["show", "2"]).status == 1)
        let unknown = try d.todoctl(["1", "frobnicate"])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown command \"frobnicate\""))
        let two = try d.todoctl(["1", "3"])
        #expect(two.status == 2 && two.stderr.contains("give one id"))
    }

    /// A dotted or slashed category is a sub-category: `-c 仕事` lists them, `-c =仕事` only
    /// 仕事; a subtask given no category takes its parent's.
    @Test func categoriesAsProjects() throws {
        let d = try DaemonProcess()
        for (title, category) in [
            ("会議の準備", "仕事.会議"), ("週報", "仕事"), ("経費", "仕事/経理"), ("仕事着を洗う", "仕事着"), ("議事録", "仕事.会議.記録")
        ] {
            #expect(try d.todoctl(["add", title, "-c", category]).status == 0)
        }
        func titles(_ arguments: [String]) throws -> [String] {
            let result = try d.todoctl(["--json", "list"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return (try JSON.parse(Array(result.stdout.utf8)).arrayValue ?? []).compactMap { $0["title"]?.stringValue }
        }
        #expect(try Set(titles(["-c", "仕事"])) == ["会議の準備", "週報", "経費", "議事録"])
        #expect(try titles(["-c", "=仕事"]) == ["週報"])
        #expect(try Set(titles(["-c", "仕事.会議"])) == ["会議の準備", "議事録"])
        #expect(try d.todoctl(["list", "-c", "趣味"]).status == 1)
        // A subtask without a category takes its parent's; one given a category keeps it.
        #expect(try d.todoctl(["add", "下書き", "--parent", "2"]).status == 0)
        #expect(try d.todoctl(["add", "私用", "--parent", "2", "-c", "家"]).status == 0)
        #expect(try JSON.parse(Array(try d.todoctl(["--json", "show", "6"]).stdout.utf8))["category"] == .string("仕事"))
        #expect(try JSON.parse(Array(try d.todoctl(["--json", "show", "7"]).stdout.utf8))["category"] == .string("家"))
    }
}
