import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `todoctl edit` with a filter or several ids and no field to set: one line per todo in the
/// editor, `git rebase -i` style. The editor is a script run by the real todoctl (against the
/// real daemon): the Nth time it runs it runs the Nth shell snippet on the file (none left: it
/// saves the file as it is) and keeps what it was given in `seen-N`.
@Suite struct EditLinesTests {
    static func editor(_ dir: TemporaryDirectory, _ snippets: [String]) throws -> [String: String] {
        var script =
            "#!/bin/sh\nf=\"$1\"\nn=$(cat \(dir.file("count")) 2>/dev/null || echo 0)\nn=$((n + 1))\necho $n > \(dir.file("count"))\n"
        script += "cp \"$f\" \(dir.file("seen"))-$n\ncase $n in\n"
        for (i, snippet) in snippets.enumerated() { script += "\(i + 1)) \(snippet) ;;\n" }
        script += "esac\n"
        let path = dir.file("editor.sh")
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return ["EDITOR": path, "VISUAL": path, "TZ": "UTC"]
    }

    static func todo(_ d: DaemonProcess, _ id: Int) throws -> JSON {
        try JSON.parse(Array(try d.todoctl(["--json", "show", "\(id)"]).stdout.utf8))
    }

    static func order(_ d: DaemonProcess) throws -> [Int64] {
        try JSON.parse(Array(try d.todoctl(["--json", "list", "--flat"]).stdout.utf8)).arrayValue?.compactMap {
            $0["id"]?.intValue
        } ?? []
    }

    /// Four todos; 1 and 3 in 買い物, interleaved with 2 and 4.
    static func seeded() throws -> DaemonProcess {
        let d = try DaemonProcess()
        for arguments in [
            ["牛乳を買う", "-c", "買い物", "--due", "2026-12-24"], ["Fix the sink", "-t", "home"],
            ["卵", "-c", "買い物", "-p", "low"], ["本を読む"]
        ] {
            let added = try d.todoctl(["add"] + arguments, environment: ["TZ": "UTC"])
            #expect(added.status == 0, "\(added.stderr)")
        }
        return d
    }

    @Test func editingALineEditsThatTodo() throws {
        let d = try Self.seeded()
        let dir = TemporaryDirectory("edl")
        let env = try Self.editor(
            dir,
            ["sed -i -e 's/^1 .*/1 牛乳を2本買う due:2026-12-25 priority:high +急ぎ/' -e 's/^3 卵 .*/3 卵 category:市場/' \"$f\""])
        let result = try d.todoctl(["-c", "買い物", "edit"], environment: env)
        #expect(result.status == 0 && result.stdout.contains("Updated 2 todos."), "\(result.stdout)\(result.stderr)")
        let shown = try String(contentsOfFile: dir.file("seen-1"), encoding: .utf8)
        #expect(
            shown.contains("\n1 牛乳を買う due:2026-12-24 category:買い物\n")
                && shown.contains("\n3 卵 category:買い物 priority:low\n"), "\(shown)")
        #expect(shown.contains("# Deleting a line leaves its todo as it is"), "\(shown)")
        let one = try Self.todo(d, 1)
        #expect(
            one["title"] == .string("牛乳を2本買う") && one["due"] == .string("2026-12-25T00:00:00Z")
                && one["priority"] == .string("high"))
        // A field left out of the line is cleared (category:買い物 was not written back).
        #expect(one["tags"] == .array([.string("急ぎ")]) && one["category"] == .null)
        let three = try Self.todo(d, 3)
        #expect(three["category"] == .string("市場") && three["priority"] == .null)
        // One undo step reverts both.
        #expect(try d.todoctl(["undo"]).status == 0)
        #expect(try Self.todo(d, 1)["title"] == .string("牛乳を買う") && Self.todo(d, 3)["category"] == .string("買い物"))
    }

    @Test func movingLinesReordersTheTodosOnTheirPlaces() throws {
        let d = try Self.seeded()
        let dir = TemporaryDirectory("edr")
        // Comments first, then the todo lines in reverse order.
        let env = try Self.editor(
            dir, ["{ grep '^#' \"$f\"; grep -v '^#' \"$f\" | grep . | tac; } > \"$f.new\" && mv \"$f.new\" \"$f\""])
        let result = try d.todoctl(["edit", "1", "3"], environment: env)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // 1 and 3 swap places; 2 and 4 stay where they were.
        #expect(try Self.order(d) == [3, 2, 1, 4])
        #expect(try Self.todo(d, 1)["title"] == .string("牛乳を買う"))
        #expect(try d.todoctl(["undo"]).status == 0)
        #expect(try Self.order(d) == [1, 2, 3, 4])
        // All four reversed.
        let all = TemporaryDirectory("eda")
        let reversed = try d.todoctl(
            ["--all", "edit"],
            environment: try Self.editor(
                all, ["{ grep '^#' \"$f\"; grep -v '^#' \"$f\" | grep . | tac; } > \"$f.new\" && mv \"$f.new\" \"$f\""])
        )
        #expect(reversed.status == 0, "\(reversed.stderr)")
        #expect(try Self.order(d) == [4, 3, 2, 1])
    }

    @Test func aDeletedLineLeavesItsTodoAlone() throws {
        let d = try Self.seeded()
        let before = try Self.todo(d, 3)
        let dir = TemporaryDirectory("edd")
        let env = try Self.editor(dir, ["sed -i -e '/^3 /d' -e 's/^1 牛乳を買う/1 牛乳/' \"$f\""])
        let result = try d.todoctl(["edit", "1", "3"], environment: env)
        #expect(result.status == 0 && result.stdout.contains("Updated 1: 牛乳"), "\(result.stdout)\(result.stderr)")
        #expect(try Self.todo(d, 3) == before)
        #expect(try Self.order(d) == [1, 2, 3, 4])
    }

    @Test func aWrongLineReopensTheFileWithTheErrorOnTop() throws {
        let d = try Self.seeded()
        let dir = TemporaryDirectory("ede")
        let env = try Self.editor(
            dir, ["sed -i 's/^3 卵 .*/3 卵 priority:urgent/' \"$f\"", "sed -i 's/priority:urgent/priority:high/' \"$f\""])
        let result = try d.todoctl(["edit", "1", "3"], environment: env)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let second = try String(contentsOfFile: dir.file("seen-2"), encoding: .utf8)
        #expect(second.hasPrefix("# ERROR: line ") && second.contains("urgent"), "\(second)")
        #expect(try Self.todo(d, 3)["priority"] == .string("high"))
        // A line for a todo that is not being edited, and a wrong id, are errors too; giving up
        // (saving the error file unchanged) changes nothing.
        let other = TemporaryDirectory("edo")
        let refused = try d.todoctl(["edit", "1", "3"], environment: try Self.editor(other, ["echo '2 Fix' >> \"$f\""]))
        #expect(refused.status == 1 && refused.stderr.contains("nothing changed"), "\(refused.stderr)")
        let shown = try String(contentsOfFile: other.file("seen-2"), encoding: .utf8)
        #expect(
            shown.hasPrefix("# ERROR: line ") && shown.contains("todo 2 is not one of the todos being edited"),
            "\(shown)")
        #expect(try Self.todo(d, 2)["title"] == .string("Fix the sink"))
    }

    @Test func anUnchangedFileChangesNothing() throws {
        let d = try Self.seeded()
        let revisions = try (1...4).map { try Self.todo(d, $0)["revision"] }
        let dir = TemporaryDirectory("edu")
        let result = try d.todoctl(["--all", "edit"], environment: try Self.editor(dir, []))
        #expect(result.status == 0 && result.stdout.contains("No change."), "\(result.stdout)\(result.stderr)")
        #expect(try (1...4).map { try Self.todo(d, $0)["revision"] } == revisions)
        let history = try d.todoctl(["--json", "undo", "--list"])
        #expect(try JSON.parse(Array(history.stdout.utf8)).arrayValue?.count == 4)
    }
}
