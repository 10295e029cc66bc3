import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

@Suite struct ValidationAndConflictTests {
    @Test func invalidInputChangesNothing() throws {
        let dir = TemporaryDirectory("valid")
        let store = try makeStore(dir)
        _ = try store.write { try $0.add(NewTodo(title: "keep me", category: "Home")) }
        let before = try everything(store)
        let bad: [(String, (StoreTransaction) throws -> Void)] = [
            ("empty title", { _ = try $0.add(NewTodo(title: "  \u{3000} ")) }),
            ("long title", { _ = try $0.add(NewTodo(title: String(repeating: "あ", count: 1001))) }),
            ("control", { _ = try $0.add(NewTodo(title: "bell\u{7}")) }),
            ("newline", { _ = try $0.add(NewTodo(title: "two\nlines")) }),
            ("notes", { _ = try $0.add(NewTodo(title: "ok", notes: String(repeating: "x", count: 64 * 1024 + 1))) }),
            ("category", { _ = try $0.add(NewTodo(title: "ok", category: String(repeating: "c", count: 201))) }),
            ("empty category", { _ = try $0.add(NewTodo(title: "ok", category: " ")) }),
            ("clear title", { _ = try $0.update(1, TodoPatch(title: .clear)) }),
            ("bad edit", { _ = try $0.update(1, TodoPatch(title: .set(""))) }),
            ("unknown", { _ = try $0.update(99, TodoPatch(title: .set("x"))) }),
            ("move range", { _ = try $0.move(1, to: .position(2)) }),
            ("move anchor", { _ = try $0.move(1, to: .before(42)) }),
            ("complete some unknown", { _ = try $0.complete([1, 77]) }),
            ("delete some unknown", { _ = try $0.delete([1, 77]) }),
            ("empty ids", { _ = try $0.delete([]) })
        ]
        for (name, operation) in bad {
            #expect(throws: TodoError.self, "\(name)") { try store.write(operation) }
        }
        #expect(try everything(store) == before)
    }

    @Test func errorsNameTheField() throws {
        let dir = TemporaryDirectory("field")
        let store = try makeStore(dir)
        #expect(throws: TodoError.invalid("title", "must not be empty")) {
            try store.write { try $0.add(NewTodo(title: "")) }
        }
        #expect(throws: TodoError.invalid("title", "contains control character U+0000")) {
            try store.write { try $0.add(NewTodo(title: "a\u{0}b")) }
        }
        #expect(throws: TodoError.invalid("title", "longer than 1000 characters")) {
            try store.write { try $0.add(NewTodo(title: String(repeating: "漢", count: 1001))) }
        }
        // Characters and bytes: 1000 four-byte characters fit, 228 family emoji (18 bytes each) do not.
        _ = try store.write { try $0.add(NewTodo(title: String(repeating: "𠀋", count: 1000))) }
        #expect(throws: TodoError.invalid("title", "longer than 4096 bytes")) {
            try store.write { try $0.add(NewTodo(title: String(repeating: "👨‍👩‍👧", count: 228))) }
        }
        #expect(throws: TodoError.invalid("title", "has no visible characters")) {
            try store.write { try $0.add(NewTodo(title: "\u{200B}\u{2060}")) }
        }
    }

    @Test func injectionShapedTextIsStoredLiterally() throws {
        let dir = TemporaryDirectory("inject")
        let store = try makeStore(dir)
        let evil = "x'); DROP TABLE todos;--"
        let todo = try store.write { try $0.add(NewTodo(title: evil, notes: "\" OR 1=1 --", category: evil)) }
        #expect(todo.title == evil)
        #expect(todo.category == evil)
        let again = try store.read { try $0.todo(todo.id) }
        #expect(again == todo)
        #expect(try store.read { try $0.categories() }.map(\.name) == [evil])
        store.close() // the store holds its file exclusively while open
        #expect(try ChildProcess.sqlite3(dir.file("todos.db"), "SELECT count(*) FROM todos;") == "1")
    }

    @Test func categoryNamesAreUniqueUnderCaseFolding() throws {
        let dir = TemporaryDirectory("fold")
        let store = try makeStore(dir)
        _ = try store.write { try $0.addCategory("Home") }
        #expect(throws: TodoError.conflict("category \"Home\" already exists")) {
            try store.write { try $0.addCategory("home") }
        }
        _ = try store.write { try $0.addCategory("Straße") }
        #expect(throws: TodoError.self) { try store.write { try $0.addCategory("STRASSE") } }
        // A todo naming the category in another case joins it.
        let todo = try store.write { try $0.add(NewTodo(title: "t", category: "HOME")) }
        #expect(todo.category == "Home")
        // A change of case alone is a rename; taking another category's name is a conflict.
        #expect(try store.write { try $0.renameCategory("home", to: "HOME") }.name == "HOME")
        #expect(throws: TodoError.conflict("category \"Straße\" already exists")) {
            try store.write { try $0.renameCategory("HOME", to: "strasse") }
        }
        #expect(try store.read { try $0.todo(todo.id) }.category == "HOME")
    }

    @Test func deletingAUsedCategoryNeedsForceAndUnlinks() throws {
        let dir = TemporaryDirectory("catrm")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let a = try store.write { try $0.add(NewTodo(title: "a", category: "仕事")) }
        _ = try store.write { try $0.add(NewTodo(title: "b", category: "仕事")) }
        _ = try store.write { try $0.complete([a.id]) }
        let counted = try store.read { try $0.categories() }
        #expect(counted == [Category(id: 1, name: "仕事", position: 1, open: 1, done: 1)])
        #expect(throws: TodoError.conflict("category \"仕事\" still has 2 todos; force the deletion to unlink them")) {
            try store.write { try $0.deleteCategory("仕事", force: false) }
        }
        clock.advance(seconds: 5)
        let deleted = try store.write { try $0.deleteCategory("仕事", force: true) }
        #expect(deleted.open == 1 && deleted.done == 1)
        let (todos, categories) = try everything(store)
        #expect(categories.isEmpty)
        #expect(todos.count == 2)
        #expect(todos.allSatisfy { $0.category == nil && $0.updated == clock.now })
    }
}
