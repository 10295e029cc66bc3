import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

@Suite struct PersistenceTests {
    @Test func closeAndReopenGivesIdenticalState() throws {
        let dir = TemporaryDirectory("reopen")
        let clock = ManualClock()
        var store: TodoStore? = try makeStore(dir, clock: clock)
        _ = try store!.write { try $0.add(NewTodo(title: "牛乳", notes: "2本", category: "買い物", due: clock.now)) }
        _ = try store!.write { try $0.add(NewTodo(title: "🍣", top: true)) }
        _ = try store!.write { try $0.complete([2]) }
        let before = try everything(store!)
        store = nil
        store = try makeStore(dir, clock: clock)
        #expect(try everything(store!) == before)
        store!.close() // the store holds its file exclusively while open
        #expect(try ChildProcess.sqlite3(dir.file("todos.db"), "PRAGMA integrity_check;") == "ok")
        #expect(try ChildProcess.sqlite3(dir.file("todos.db"), "PRAGMA journal_mode;") == "wal")
    }

    @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
        let dir = TemporaryDirectory("future")
        let path = dir.file("todos.db")
        _ = try makeStore(dir)
        _ = try ChildProcess.sqlite3(path, "INSERT INTO todod_migrations VALUES (99, 'from the future', 0);")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try makeStore(dir)
        } throws: { error in
            let error = error as? TodoError
            return error?.code == .storage && error?.message.contains("newer todod (schema 99") == true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func filesThatAreNotOurDatabaseAreRefusedUntouched() throws {
        let dir = TemporaryDirectory("notdb")
        let text = dir.file("notes.txt")
        try Data("これはデータベースではありません\n".utf8 + [UInt8](repeating: 7, count: 4096)).write(to: URL(fileURLWithPath: text))
        let foreign = dir.file("other.db")
        _ = try ChildProcess.sqlite3(foreign, "CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('x');")
        for path in [text, foreign] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: TodoError.self) { try TodoStore(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        }
    }
}
