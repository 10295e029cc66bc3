import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// `TodoField` and the store's `TodoColumn` and `TodoSelect` agree with each other and with the
/// schema the migrations make: every column of `todos` is declared, stored for a field, read
/// back, and imaged in the change log; an undo gives every field back.
@Suite struct FieldDeclarationTests {
    private func names(_ store: TodoStore, _ table: String) throws -> [String] {
        try store.read { (t) throws(TodoError) in
            try t.connection.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]) { $0.text(0) }
        }
    }

    @Test func everyColumnOfTodosIsDeclaredAndImagedInTheLog() throws {
        let dir = TemporaryDirectory("field-columns")
        let store = try makeStore(dir)
        #expect(Set(try names(store, "todos")) == Set(TodoColumn.allCases.map(\.rawValue)))
        let images = Set(try names(store, "change_rows"))
        for column in TodoColumn.allCases {
            #expect(images.contains("b_" + column.rawValue) && images.contains("a_" + column.rawValue), "\(column)")
        }
        #expect(ChangeLog.todoColumns == TodoColumn.allCases.map(\.rawValue))
    }

    @Test func everyFieldIsStoredAndEveryStoredColumnRead() {
        let stored = Set(TodoColumn.allCases.compactMap(\.field))
        for field in TodoField.allCases {
            #expect(stored.contains(field) == field.inChangeLogImage, "\(field)")
            #expect(field.columns.allSatisfy { $0.field == field }, "\(field)")
        }
        #expect(Set(TodoField.allCases.flatMap(\.columns)) == Set(TodoColumn.allCases.filter { $0.field != nil }))
        let read = Set(TodoSelect.allCases.map(\.column))
        for column in TodoColumn.allCases where column.field != nil {
            #expect(read.contains(column) != column.isDerived, "\(column)")
        }
        #expect(TodoSelect.extraPosition == Int32(TodoSelect.allCases.count))
    }

    @Test func anUndoGivesBackEveryField() throws {
        let dir = TemporaryDirectory("field-undo")
        let store = try makeStore(dir)
        let parent = try store.write { try $0.add(NewTodo(title: "親")) }
        let due = Instant(rfc3339: "2026-12-10T09:00:00Z")!
        let made = try store.write {
            try $0.add(
                NewTodo(
                    title: "牛乳を買う", notes: "低脂肪", category: "家", due: due, remind: due, priority: .high,
                    tags: ["買い物"], zone: "Asia/Tokyo", recurrence: TodoRecurrence(rule: "FREQ=WEEKLY"),
                    parent: parent.id, start: Instant(rfc3339: "2026-12-09T09:00:00Z")!))
        }
        let before = try store.read { try $0.todo(made.id) }
        _ = try store.write {
            try $0.update(
                made.id,
                TodoPatch(
                    title: .set("パン"), notes: .clear, category: .set("店"), due: .set(due.adding(usec: 86_400_000_000)),
                    priority: .set(.low), tags: .set(["朝"]), zone: .set("Europe/Paris"),
                    recurrence: .clear, parent: .clear, start: .clear))
        }
        _ = try store.write { try $0.undo() }
        var after = try store.read { try $0.todo(made.id) }
        #expect(after.revision > before.revision)
        after.revision = before.revision
        after.updated = before.updated
        #expect(after == before)
    }
}
