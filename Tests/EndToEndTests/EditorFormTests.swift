import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `todoctl edit ID` alone on a terminal opens the todo in `$EDITOR` as a text form, and `E` in
/// `todoctl ui` does the same. The editor here is a script (it edits the file as a person would,
/// and keeps a copy of each file it was given), run in a real terminal (tmux).
@Suite(
    .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux (scripts/test installs it)")
)
struct EditorFormTests {
    typealias Pane = InteractiveListTests.Pane

    /// An editor script: the Nth time it runs it applies the Nth sed program of `edits` (none
    /// left: it saves the file as it is) and keeps what it was given in `seen-N`.
    static func editor(_ dir: TemporaryDirectory, _ edits: [String]) throws -> String {
        var script =
            "#!/bin/sh\nn=$(cat \(dir.file("count")) 2>/dev/null || echo 0)\nn=$((n + 1))\necho $n > \(dir.file("count"))\n"
        script += "cp \"$1\" \(dir.file("seen"))-$n\ncase $n in\n"
        for (i, program) in edits.enumerated() {
            try program.write(toFile: dir.file("edit-\(i + 1).sed"), atomically: true, encoding: .utf8)
            script += "\(i + 1)) sed -i -f \(dir.file("edit-\(i + 1).sed")) \"$1\" ;;\n"
        }
        script += "esac\n"
        let path = dir.file("editor.sh")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    static func todo(_ daemon: DaemonProcess, _ id: Int) throws -> JSON {
        try JSON.parse(Array(try daemon.todoctl(["--json", "show", "\(id)"]).stdout.utf8))
    }

    @Test func theFormEditsEveryFieldItShows() throws {
        let daemon = try DaemonProcess()
        #expect(
            try daemon.todoctl(["add", "歯医者", "--tag", "health", "--priority", "low", "--notes", "古いメモ"]).status == 0)
        let dir = TemporaryDirectory("edf")
        let editor = try Self.editor(
            dir,
            [
                """
                s/^Title: .*/Title: 歯医者を予約する 🦷/
                s/^Due: .*/Due: 2026-12-24 15:00/
                s/^Priority: .*/Priority: high/
                s/^Category: .*/Category: 病院/
                s/^Tags: .*/Tags: 急ぎ/
                s/^古いメモ$/保険証を持っていく\\n二行目/
                """
            ])
        let pane = try Pane(daemon: daemon, environment: ["EDITOR": editor], arguments: ["edit", "1"])
        #expect(pane.contains("Updated 1"), "\(pane.screen())")
        let todo = try Self.todo(daemon, 1)
        #expect(todo["title"] == .string("歯医者を予約する 🦷"))
        #expect(todo["due"] == .string("2026-12-24T15:00:00Z"))
        #expect(todo["priority"] == .string("high") && todo["category"] == .string("病院"))
        #expect(todo["tags"] == .array([.string("急ぎ")]))
        #expect(todo["notes"] == .string("保険証を持っていく\n二行目"))
        let form = try String(contentsOfFile: dir.file("seen-1"), encoding: .utf8)
        #expect(
            form.contains("Title: 歯医者\n") && form.contains("Priority: low\n") && form.contains("Tags: health\n")
                && form.contains("Notes:\n古いメモ"))
        // One step: undo puts every field back.
        #expect(try daemon.todoctl(["undo"]).status == 0)
        #expect(try Self.todo(daemon, 1)["title"] == .string("歯医者"))
    }

    @Test func aWrongValueReopensTheFormWithTheErrorOnTop() throws {
        let daemon = try DaemonProcess()
        #expect(try daemon.todoctl(["add", "請求書"]).status == 0)
        let dir = TemporaryDirectory("ede")
        let editor = try Self.editor(dir, ["s/^Priority: .*/Priority: urgent/", "s/^Priority: .*/Priority: high/"])
        let pane = try Pane(daemon: daemon, environment: ["EDITOR": editor], arguments: ["edit", "1"])
        #expect(pane.contains("Updated 1"), "\(pane.screen())")
        let second = try String(contentsOfFile: dir.file("seen-2"), encoding: .utf8)
        #expect(second.hasPrefix("# ERROR: ") && second.contains("urgent"), "\(second)")
        #expect(try Self.todo(daemon, 1)["priority"] == .string("high"))
    }

    @Test func anUnchangedFormChangesNothing() throws {
        let daemon = try DaemonProcess()
        #expect(try daemon.todoctl(["add", "何もしない"]).status == 0)
        let before = try Self.todo(daemon, 1)["revision"]
        let dir = TemporaryDirectory("edu")
        let pane = try Pane(daemon: daemon, environment: ["EDITOR": try Self.editor(dir, [])], arguments: ["edit", "1"])
        #expect(pane.contains("No change."), "\(pane.screen())")
        #expect(try Self.todo(daemon, 1)["revision"] == before)
        // Without a terminal `edit ID` alone is still the usage error a script expects.
        let piped = try daemon.todoctl(["edit", "1"])
        #expect(piped.status == 2 && piped.stderr.contains("nothing to change"))
    }

    @Test func eInTheListOpensTheSelectedTodo() throws {
        let daemon = try DaemonProcess()
        #expect(try daemon.todoctl(["add", "一つ目"]).status == 0)
        #expect(try daemon.todoctl(["add", "二つ目"]).status == 0)
        let dir = TemporaryDirectory("edl")
        let editor = try Self.editor(dir, ["s/^Title: .*/Title: 二つ目（編集済み）/"])
        let pane = try Pane(daemon: daemon, environment: ["EDITOR": editor])
        try pane.press("j", "E")
        #expect(pane.contains("二つ目（編集済み）"), "\(pane.screen())")
        #expect(try Self.todo(daemon, 2)["title"] == .string("二つ目（編集済み）"))
        #expect(pane.screen().first?.contains(" todod · 2 open") == true)
        try pane.press("q")
        #expect(try pane.exitLine().contains("EXITED 0"))
    }
}
