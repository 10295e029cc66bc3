import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The change log through the real daemon and todoctl: every kind of change undone and redone,
/// a delete undone exactly, the events an undo sends, ifRevision, and an import made twice.
@Suite struct UndoTests {
    private static let env = ["TZ": "Asia/Tokyo", "NO_COLOR": "1"]

    private func run(_ d: DaemonProcess, _ arguments: [String], input: String? = nil) throws -> ChildProcess.Result {
        try d.todoctl(arguments, input: input, environment: Self.env)
    }

    private func json(_ d: DaemonProcess, _ arguments: [String], input: String? = nil) throws -> JSON {
        let result = try run(d, ["--json"] + arguments, input: input)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    /// Everything the store holds, as `todo.list` and `category.list` show it, without revisions.
    private func state(_ d: DaemonProcess) throws -> [JSON] {
        let c = try d.client()
        let todos = try c.result("todo.list", ["status": "all"])["todos"]?.arrayValue ?? []
        let stripped = todos.map { todo -> JSON in
            guard case .object(var o) = todo else { return todo }
            o["revision"] = nil
            return .object(o)
        }
        return [.array(stripped), try c.result("category.list")]
    }

    @Test func everyKindOfChangeIsUndoneAndRedoneByTodoctl() throws {
        let d = try DaemonProcess()
        _ = try json(d, ["add", "牛乳を買う", "-c", "家", "-t", "買い物", "-p", "high"])
        _ = try json(d, ["add", "レポートを書く", "--due", "2099-01-05 09:00"])
        _ = try json(d, ["add", "ゴミ出し", "--every", "week", "--due", "2099-01-06 08:00"])
        _ = try json(d, ["category", "add", "仕事"])
        let steps: [[String]] = [
            ["add", "三", "--top"], ["edit", "2", "--title", "報告書", "--untag", "x"], ["done", "1", "2"], ["done", "3"],
            ["reopen", "1"], ["category", "rm", "家", "--force"], ["rm", "1"], ["move", "3", "--to", "1"],
            ["snooze", "3", "2099-02-01 09:00"],
            ["category", "add", "趣味"], ["category", "rename", "仕事", "しごと"], ["category", "move", "趣味", "--to", "1"]
        ]
        for step in steps {
            let before = try state(d)
            let changed = try run(d, step)
            #expect(changed.status == 0, "\(step): \(changed.stderr)")
            let after = try state(d)
            #expect(after != before, "\(step) changed nothing")
            let undone = try run(d, ["undo"])
            #expect(
                undone.status == 0 && undone.stdout.hasPrefix("Undid: "), "\(step): \(undone.stdout) \(undone.stderr)")
            #expect(try state(d) == before, "undo of \(step)")
            let redone = try run(d, ["redo"])
            #expect(redone.status == 0 && redone.stdout.hasPrefix("Redid: "), "\(step): \(redone.stderr)")
            #expect(try state(d) == after, "redo of \(step)")
        }
        // The list: newest first, aligned, kinds named; the last redo can be undone.
        let list = try run(d, ["undo", "--list", "-n", "3"])
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 4 && lines[0].hasPrefix("SEQ") && lines[1].contains("redo category move"), "\(lines)")
        let history = try json(d, ["undo", "--list", "-n", "100"]).arrayValue ?? []
        #expect(history.first?["kind"] == "redo" && history.first?["canUndo"] == false)
        #expect(history.contains { $0["kind"] == "category.delete" && $0["canUndo"] == true })
        #expect(history.contains { $0["kind"] == "complete" && $0["description"] == "done 3" })
        // Nothing to redo after a new change.
        _ = try json(d, ["undo"])
        _ = try json(d, ["add", "new"])
        let none = try run(d, ["redo"])
        #expect(none.status != 0 && none.stderr == "todoctl: nothing to redo\n")
    }

    @Test func anUndoneDeleteBringsBackTheSameTodoWithItsEvents() throws {
        let d = try DaemonProcess()
        let c = try d.client()
        _ = try c.result("todo.add", ["title": "一"])
        let todo = try c.result("todo.add", ["title": "二 📅", "category": "仕事", "tags": ["x", "家"], "notes": "メモ"])
        _ = try c.result("todo.add", ["title": "三"])
        let watcher = try d.client()
        _ = try watcher.result("watch")
        _ = try c.result("todo.delete", ["ids": [todo["id"] ?? .null]])
        let undone = try c.result("store.undo")
        #expect(undone["description"] == "delete 2 \"二 📅\"")
        var restored = try c.result("todo.get", ["id": 2])
        #expect(
            restored["uid"] == todo["uid"] && restored["position"] == 2 && restored["category"] == "仕事"
                && restored["tags"] == ["x", "家"] && restored["notes"] == "メモ")
        #expect((restored["revision"]?.intValue ?? 0) > (todo["revision"]?.intValue ?? 0))
        #expect(undone["todos"]?[0]?["id"] == 2)
        #expect(try c.result("todo.list", ["tags": ["家"]])["todos"]?[0]?["id"] == 2)
        let events = [try watcher.receive()["params"], try watcher.receive()["params"]]
        #expect(events.map { $0?["type"] } == ["todo.deleted", "todo.added"])
        #expect(events[1]?["todos"]?[0]?["uid"] == todo["uid"])
        // Redo deletes it again, with its event.
        let redone = try c.result("store.redo")
        #expect(redone["deletedTodos"]?[0]?["id"] == 2)
        #expect(try watcher.receive()["params"]?["type"] == "todo.deleted")
        #expect(try c.call("todo.get", ["id": 2])["error"]?["code"] == -32001)
        restored = try c.result("store.undo")
        #expect(restored["todos"]?[0]?["uid"] == todo["uid"])
    }

    @Test func ifRevisionRefusesAnUpdateOfAChangedTodo() throws {
        let d = try DaemonProcess()
        let c = try d.client()
        let todo = try c.result("todo.add", ["title": "一"])
        #expect(todo["revision"] == 1)
        let edited = try c.result("todo.update", ["id": 1, "title": "二", "ifRevision": 1])
        #expect(edited["revision"] == 2)
        let refused = try c.call("todo.update", ["id": 1, "title": "三", "ifRevision": 1])
        #expect(refused["error"]?["code"] == -32002)
        #expect(refused["error"]?["message"] == "todo 1 changed since revision 1 (now 2)")
        #expect(try c.result("todo.get", ["id": 1])["title"] == "二")
        #expect(try c.call("todo.update", ["id": 1, "ifRevision": 0])["error"]?["code"] == -32602)
    }

    @Test func importingTheSameExportTwiceChangesNothing() throws {
        let a = try DaemonProcess()
        let b = try DaemonProcess()
        _ = try json(a, ["add", "牛乳を買う", "-c", "家", "-t", "x"])
        _ = try json(a, ["add", "two"])
        let export = try run(a, ["export"]).stdout
        _ = try json(b, ["add", "local"])
        let first = try run(b, ["import", "-"], input: export)
        #expect(first.stdout == "Imported 2 todos and 1 category.\n", "\(first.stderr)")
        let state = try self.state(b)
        let seq = try json(b, ["undo", "--list"]).arrayValue?.first?["seq"]
        let second = try json(b, ["import", "-"], input: export)
        #expect(second["added"] == 0 && second["updated"] == 0 && second["unchanged"] == 2 && second["categories"] == 0)
        #expect(try self.state(b) == state)
        #expect(try json(b, ["undo", "--list"]).arrayValue?.first?["seq"] == seq)
        // Newer at the source: the import updates it in place.
        _ = try json(a, ["edit", "1", "--title", "牛乳を2本買う"])
        let third = try run(b, ["import", "-"], input: try run(a, ["export"]).stdout)
        #expect(third.stdout == "Imported 2 todos (0 added, 1 updated, 1 unchanged) and 0 categories.\n")
        #expect(try json(b, ["show", "2"])["title"] == "牛乳を2本買う")
        // Undone: what it updated comes back.
        _ = try json(b, ["undo"])
        #expect(try json(b, ["show", "2"])["title"] == "牛乳を買う")
    }
}

/// An undo never makes a delivered reminder fire again.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct UndoReminderTests {
    @Test func aFiredReminderDoesNotFireAgainAfterUndo() throws {
        let d = try DaemonProcess()
        let c = try d.client()
        let title = unique("undo")
        let todo = try c.result("todo.add", ["title": .string(title), "due": .string(instant(in: 1))])
        let id = try #require(todo["id"]?.intValue)
        _ = try c.result("todo.update", ["id": .int(id), "notes": "メモ"])
        #expect(try Journalctl.reminders(title: title, atLeast: 1).count == 1)
        #expect(eventually(timeout: 10) { (try? c.result("todo.get", ["id": .int(id)])["reminded"]) != JSON.null })
        // Undo the notes edit, made before the reminder fired: the reminder stays delivered.
        let undone = try c.result("store.undo")
        #expect(undone["todos"]?[0]?["notes"] == .null && undone["todos"]?[0]?["reminded"] != .null)
        #expect(try c.result("daemon.status")["nextReminder"] == .null)
        // A later reminder fires: by then a second firing of the first would have come too.
        let later = unique("undo later")
        _ = try c.result("todo.add", ["title": .string(later), "due": .string(instant(in: 1))])
        #expect(try Journalctl.reminders(title: later, atLeast: 1).count == 1)
        #expect(try Journalctl.reminders(title: title, atLeast: 2, timeout: 0).count == 1)
        // Undoing the add of a todo whose reminder fired, then redoing it, brings it back delivered.
        _ = try c.result("store.undo")
        _ = try c.result("store.undo")
        _ = try c.result("store.redo")
        #expect(try c.result("todo.get", ["id": .int(id)])["reminded"] != .null)
        #expect(try c.result("daemon.status")["nextReminder"] == .null)
    }
}
