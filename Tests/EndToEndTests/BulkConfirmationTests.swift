import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// An act on a filter at a real terminal (tmux): "N todos will change (done):", the todos as
/// `list` prints them, one `Go on? [y/N]`; y, yes and はい go on, anything else changes nothing.
@Suite(
    .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux (scripts/test installs it)")
)
struct BulkConfirmationTests {
    typealias Pane = InteractiveListTests.Pane

    static func seeded() throws -> DaemonProcess {
        let d = try DaemonProcess()
        for arguments in [["牛乳を買う", "-c", "買い物"], ["卵", "-c", "買い物"], ["本を読む"]] {
            #expect(try d.todoctl(["add"] + arguments).status == 0)
        }
        return d
    }

    static func done(_ d: DaemonProcess, _ id: Int) throws -> Bool {
        try JSON.parse(Array(try d.todoctl(["--json", "show", "\(id)"]).stdout.utf8))["done"] == .bool(true)
    }

    @Test func thePromptListsTheTodosAndYesGoesOn() throws {
        let d = try Self.seeded()
        let pane = try Pane(daemon: d, arguments: ["done", "-c", "買い物"])
        #expect(pane.contains("Go on? [y/N]"), "\(pane.screen())")
        let screen = pane.screen()
        #expect(screen.contains { $0 == "2 todos will change (done):" }, "\(screen)")
        #expect(screen.contains { $0.contains("牛乳を買う") } && screen.contains { $0.contains("卵") }, "\(screen)")
        #expect(
            !screen.contains { $0.contains("本を読む") } && screen.contains { $0.contains("ID") && $0.contains("TITLE") },
            "\(screen)")
        try pane.type("y")
        try pane.press("Enter")
        #expect(pane.contains("Completed 2 todos."), "\(pane.screen())")
        #expect(try pane.exitLine().contains("EXITED 0"))
        #expect(try Self.done(d, 1) && Self.done(d, 2) && !Self.done(d, 3))
    }

    @Test func noOrNothingChangesNothing() throws {
        let d = try Self.seeded()
        for answer in ["n", ""] {
            let pane = try Pane(daemon: d, arguments: ["rm", "-c", "買い物"])
            #expect(pane.contains("Go on? [y/N]"), "\(pane.screen())")
            #expect(pane.screen().contains { $0 == "2 todos will change (rm):" }, "\(pane.screen())")
            if !answer.isEmpty { try pane.type(answer) }
            try pane.press("Enter")
            #expect(pane.contains("not confirmed; nothing changed"), "\(pane.screen())")
            #expect(try pane.exitLine().contains("EXITED 1"))
        }
        #expect(try d.todoctl(["show", "1"]).status == 0 && d.todoctl(["show", "2"]).status == 0)
    }

    @Test func はいGoesOnAndYesSkipsTheQuestion() throws {
        let d = try Self.seeded()
        let pane = try Pane(daemon: d, arguments: ["-c", "買い物", "edit", "-p", "high"])
        #expect(pane.contains("Go on? [y/N]"), "\(pane.screen())")
        try pane.type("はい")
        try pane.press("Enter")
        #expect(pane.contains("Updated 2 todos."), "\(pane.screen())")
        #expect(try pane.exitLine().contains("EXITED 0"))
        let skipped = try Pane(daemon: d, arguments: ["done", "--all", "--yes"])
        #expect(skipped.contains("Completed 3 todos."), "\(skipped.screen())")
        #expect(!skipped.screen().contains { $0.contains("Go on?") })
        #expect(try skipped.exitLine().contains("EXITED 0"))
    }
}
