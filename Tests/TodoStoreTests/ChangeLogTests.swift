import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// The change log in the store: one entry per change with a growing seq, nothing for a no-op,
/// revisions, exact undo and redo of every kind of change, and bounded pruning.
@Suite struct ChangeLogTests {
    private static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    @Test func everyChangeGetsTheNextSeqAndANoOpNone() throws {
        let dir = TemporaryDirectory("log-seq")
        let store = try makeStore(dir)
        #expect(try store.read { try $0.currentSeq() } == 0)
        let a = try store.write { try $0.add(NewTodo(title: "牛乳を買う")) }
        #expect(a.revision == 1)
        let b = try store.write { try $0.add(NewTodo(title: "b", category: "家")) }
        _ = try store.write { try $0.update(a.id, TodoPatch(title: .set("牛乳を買う"))) } // no change
        _ = try store.write { try $0.complete([a.id, b.id]) }
        _ = try store.write { try $0.complete([a.id]) } // already done: no change
        _ = try store.write { try $0.renameCategory("家", to: "家") }
        let entries = try store.read { try $0.changes(after: 0, limit: 100) }
        #expect(entries.map(\.seq) == [1, 2, 3])
        #expect(entries.map(\.kind) == [.add, .add, .complete])
        #expect(entries[0].description == "add \(a.id) \"牛乳を買う\"")
        #expect(entries[2].description == "done \(a.id), \(b.id)")
        #expect(try store.read { try $0.todo(a.id) }.revision == 2)
        #expect(try store.read { try $0.touchedTodos(2) }.map(\.uid) == [b.uid])
        #expect(try store.read { try $0.currentSeq() } == 3)
    }

    /// Group commit runs each request of a pass in a savepoint of one transaction, and the
    /// transaction remembers the newest change it logged (`LogTail`). A request rolled back after
    /// logging its change leaves nothing of it: the next request's change gets the next seq,
    /// exactly its own rows, and the seq its events carry is the log's.
    @Test func aRequestRolledBackInAPassLeavesNoTraceInTheNextChange() throws {
        let dir = TemporaryDirectory("log-pass")
        let store = try makeStore(dir)
        struct Refused: Error {}
        let (a, c, seqs) = try store.write { tx in
            let a = try tx.savepoint { () throws(TodoError) in try tx.add(NewTodo(title: "一")) }
            let afterA = try tx.currentSeq()
            do {
                try tx.savepoint { () throws(TodoError) in
                    _ = try tx.add(NewTodo(title: "二"))
                    _ = try tx.update(a.id, TodoPatch(title: .set("一'")))
                    throw TodoError.conflict("refused after logging")
                }
            } catch {}
            let afterRollback = try tx.currentSeq()
            let c = try tx.savepoint { () throws(TodoError) in try tx.add(NewTodo(title: "三")) }
            return (a, c, [afterA, afterRollback, try tx.currentSeq()])
        }
        #expect(seqs == [1, 1, 2])
        #expect(
            try store.read { try $0.changes(after: 0, limit: 10) }.map(\.description) == [
                "add \(a.id) \"一\"", "add \(c.id) \"三\""
            ])
        #expect(try store.read { try $0.touchedTodos(2) }.map(\.id) == [c.id])
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.list(TodoQuery()) }.todos.map(\.title) == ["一"])
        _ = try store.write { try $0.add(NewTodo(title: "四")) } // a new transaction reads the log again
        #expect(try store.read { try $0.currentSeq() } == 4)
        #expect(try store.read { try $0.changes(after: 2, limit: 10) }.map(\.kind) == [.undo, .add])
    }

    @Test func aDeleteUndoneBringsBackTheSameTodoAndRedoDeletesItAgain() throws {
        let dir = TemporaryDirectory("log-delete")
        let store = try makeStore(dir)
        let first = try store.write { try $0.add(NewTodo(title: "一")) }
        let todo = try store.write {
            try $0.add(NewTodo(title: "二", category: "仕事", priority: .high, tags: ["x", "y"]))
        }
        _ = try store.write { try $0.add(NewTodo(title: "三")) }
        let before = try everything(store)
        _ = try store.write { try $0.delete([todo.id]) }
        let undone = try store.write { try $0.undo() }
        #expect(undone.description == "delete \(todo.id) \"二\"")
        #expect(undone.todos.map(\.id) == [todo.id])
        let after = try everything(store)
        #expect(after.1 == before.1)
        let restored = after.0.first { $0.id == todo.id }
        #expect(
            restored?.uid == todo.uid && restored?.position == 2 && restored?.category == "仕事"
                && restored?.tags == ["x", "y"])
        #expect(restored.map { $0.revision > todo.revision } == true)
        var q = TodoQuery()
        q.tags = ["x"]
        #expect(try store.read { try $0.list(q) }.todos.map(\.id) == [todo.id]) // the tag rows are back too
        let redone = try store.write { try $0.redo() }
        #expect(redone.deletedTodos.map(\.uid) == [todo.uid])
        #expect(try store.read { try $0.counts() }.open == 2)
        _ = try store.write { try $0.undo() }
        _ = try store.write { try $0.update(first.id, TodoPatch(title: .set("一!"))) }
        #expect(throws: TodoError.self) { try store.write { try $0.redo() } } // a new change cleared redo
        let history = try store.read { try $0.history(limit: 3) }
        #expect(history.map(\.kind) == [.update, .undo, .redo])
        #expect(history[0].canUndo && !history[1].canUndo)
    }

    @Test func undoRestoresAForcedCategoryDeleteARecurringAdvanceAndAnImport() throws {
        let dir = TemporaryDirectory("log-kinds")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let a = try store.write { try $0.add(NewTodo(title: "a", category: "家")) }
        _ = try store.write { try $0.add(NewTodo(title: "b", category: "家")) }
        _ = try store.write { try $0.addCategory("後") }
        let before = try everything(store)
        _ = try store.write { try $0.deleteCategory("家", force: true) }
        _ = try store.write { try $0.undo() }
        #expect(try everything(store).1 == before.1)
        #expect(try store.read { try $0.todo(a.id) }.category == "家")

        let due = Self.at("2026-12-07T09:00:00Z")
        let weekly = try store.write {
            try $0.add(NewTodo(title: "ゴミ出し", due: due, recurrence: TodoRecurrence(rule: "FREQ=WEEKLY")))
        }
        let advanced = try store.write { try $0.complete([weekly.id]) }
        #expect(advanced.first?.due == Self.at("2026-12-14T09:00:00Z"))
        _ = try store.write { try $0.undo() }
        let back = try store.read { try $0.todo(weekly.id) }
        #expect(back.due == due && back.completed == nil && !back.done)

        let document = ExportDocument(
            categories: ["新"],
            todos: [
                ExportDocument.Entry(
                    Todo(
                        id: 0, uid: "u-1", title: "imported", category: "新",
                        position: nil, created: clock.now, updated: clock.now))
            ],
            exported: clock.now)
        let beforeImport = try everything(store)
        _ = try store.write { try $0.importDocument(document) }
        #expect(try everything(store).0.count == beforeImport.0.count + 1)
        _ = try store.write { try $0.undo() }
        #expect(try everything(store) == beforeImport)
    }

    /// What an iCalendar import kept (`ical_extra`, migration 9) is part of the row images
    /// (migration 10): a delete undone brings the todo back with it, redo removes it again, and an
    /// import that replaced it is reverted exactly, and applied exactly again by redo.
    @Test func undoAndRedoKeepWhatAnICalendarImportKept() throws {
        let dir = TemporaryDirectory("log-ical")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let kept =
            "X-MOZ-GENERATION:3\nLOCATION;LANGUAGE=ja:会議室\nBEGIN:VALARM\nACTION:EMAIL\nX-ALARM-NOTE:一行\nEND:VALARM"
        func entry(_ ical: String?, updated: Instant) -> ExportDocument.Entry {
            var entry = ExportDocument.Entry(
                Todo(id: 0, uid: "ical-1", title: "取り込み", position: nil, created: clock.now, updated: updated))
            entry.ical = ical
            return entry
        }
        func exported() throws -> String? {
            try store.read { try $0.export() }.todos.first { $0.uid == "ical-1" }?.ical
        }
        _ = try store.write { try $0.add(NewTodo(title: "made here")) }
        _ = try store.write {
            try $0.importDocument(
                ExportDocument(categories: [], todos: [entry(kept, updated: clock.now)], exported: clock.now))
        }
        let id = try #require(try store.read { try $0.list(TodoQuery()) }.todos.first { $0.uid == "ical-1" }).id
        #expect(try exported() == kept)

        _ = try store.write { try $0.delete([id]) }
        #expect(try exported() == nil)
        _ = try store.write { try $0.undo() }
        #expect(try exported() == kept)
        _ = try store.write { try $0.redo() }
        #expect(try exported() == nil)
        _ = try store.write { try $0.undo() }
        #expect(try exported() == kept)

        // An import of a later version with other kept lines, undone and redone.
        let other = "X-MOZ-GENERATION:4\nGEO:35.68;139.76"
        clock.advance(seconds: 60)
        let counts = try store.write {
            try $0.importDocument(
                ExportDocument(categories: [], todos: [entry(other, updated: clock.now)], exported: clock.now))
        }
        #expect(try counts.updated == 1 && exported() == other)
        _ = try store.write { try $0.undo() }
        #expect(try exported() == kept)
        _ = try store.write { try $0.redo() }
        #expect(try exported() == other)
        // Lines removed by an import come back too.
        clock.advance(seconds: 60)
        _ = try store.write {
            try $0.importDocument(
                ExportDocument(categories: [], todos: [entry(nil, updated: clock.now)], exported: clock.now))
        }
        #expect(try exported() == nil)
        _ = try store.write { try $0.undo() }
        #expect(try exported() == other)
    }

    @Test func anUndoneChangeKeepsADeliveredReminderDelivered() throws {
        let dir = TemporaryDirectory("log-reminded")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let remind = Self.at("2026-12-01T10:00:00Z")
        let todo = try store.write { try $0.add(NewTodo(title: "電話", remind: remind)) }
        _ = try store.write { try $0.update(todo.id, TodoPatch(title: .set("電話する"))) }
        clock.set(remind)
        _ = try store.write { try $0.markReminded(todo.id, scheduled: remind, at: remind) }
        #expect(try store.read { try $0.currentSeq() } == 2) // a delivery is not a change
        _ = try store.write { try $0.undo() }
        let back = try store.read { try $0.todo(todo.id) }
        #expect(back.title == "電話" && back.reminded == remind)
        #expect(try store.read { try $0.nextPendingReminder() } == nil)
        // The add undone and redone: the todo comes back with its reminder delivered.
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.counts() }.open == 0)
        _ = try store.write { try $0.redo() }
        #expect(try store.read { try $0.todo(todo.id) }.reminded == remind)
        #expect(try store.read { try $0.nextPendingReminder() } == nil)
    }

    @Test func pruningKeepsTheNewestAndRemovesAFewAtATime() throws {
        let dir = TemporaryDirectory("log-prune")
        let clock = ManualClock()
        let store = try TodoStore(
            path: dir.file("todos.db"), clock: clock.source,
            retention: LogRetention(changes: 5, ageUsec: 3_600_000_000, rowsPerCommit: 4))
        for i in 0..<20 { _ = try store.write { try $0.add(NewTodo(title: "t\(i)")) } }
        #expect(try store.read { try $0.oldestSeq() } == 1) // all younger than an hour
        clock.advance(seconds: 7200)
        _ = try store.write { try $0.add(NewTodo(title: "late")) } // seq 21: prunes 4 (4 rows)
        #expect(try store.read { try $0.oldestSeq() } == 5)
        for i in 0..<10 { _ = try store.write { try $0.add(NewTodo(title: "more\(i)")) } }
        // 1...20 went four at a time; 21...31 stay: younger than an hour.
        #expect(try store.read { try $0.oldestSeq() } == 21)
        clock.advance(seconds: 7200)
        _ = try store.write { try $0.add(NewTodo(title: "later")) } // seq 32
        #expect(try store.read { try $0.oldestSeq() } == 25)
        // up to 42: the old beyond the last 5 go, 32 on are young
        for i in 0..<10 { _ = try store.write { try $0.add(NewTodo(title: "last\(i)")) } }
        #expect(try store.read { try $0.oldestSeq() } == 32)
        #expect(try store.read { try $0.currentSeq() } == 42)
    }

    /// The size rule: 300 edits of a 60 KiB note would log about 70 MB of images; with a bound of
    /// 2 MiB the oldest changes go as soon as the images pass it, the file stays small, and the
    /// newest change is still undone exactly. Before, only the count and age rules pruned, and
    /// the same edits grew the file past 70 MB (2,000 edits of a 64 KiB note: 525 MB).
    @Test func pruningKeepsTheImagesWithinTheirSize() throws {
        let dir = TemporaryDirectory("log-size")
        let path = dir.file("todos.db")
        let limit: Int64 = 2 << 20
        let store = try TodoStore(path: path, clock: ManualClock().source, retention: LogRetention(bytes: limit))
        let todo = try store.write { try $0.add(NewTodo(title: "長いメモ")) }
        func note(_ i: Int) -> String { String(repeating: "メモ\(i) ", count: 60 * 1024 / 12) }
        for i in 0..<300 { _ = try store.write { try $0.update(todo.id, TodoPatch(notes: .set(note(i)))) } }
        let (kept, logged, oldest) = try store.read { tx in
            (
                try tx.connection.scalar("SELECT SUM(bytes) FROM changes"),
                try tx.connection.scalar("SELECT SUM(\(ChangeLog.imageBytes)) FROM change_rows"),
                try tx.oldestSeq() ?? 0
            )
        }
        #expect(kept <= limit && kept > limit / 2, "the log keeps \(kept) bytes of images")
        #expect(logged == kept, "changes.bytes says \(kept), the rows hold \(logged)")
        #expect(oldest > 250 && oldest < 301)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(size < 16 << 20, "the database is \(size) bytes")
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.todo(todo.id) }.notes == note(298))
        store.close()

        // A change larger than the whole bound is still kept while it is the newest.
        let small = try TodoStore(path: path, clock: ManualClock().source, retention: LogRetention(bytes: 64 << 10))
        _ = try small.write { try $0.update(todo.id, TodoPatch(notes: .set(note(1_000)))) }
        let newest = try small.read { try $0.currentSeq() }
        #expect(try small.read { try $0.oldestSeq() } == newest)
        _ = try small.write { try $0.undo() }
        #expect(try small.read { try $0.todo(todo.id) }.notes == note(298))
    }
}
