import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoStore
import TodoTestSupport

/// A caller's own error type, as the daemon's `RPCError` is: the store's failures arrive in it.
private struct CallerError: TodoErrorConvertible, Equatable {
    let text: String
    init(text: String) { self.text = text }
    init(_ error: TodoError) { text = "store: \(error.message)" }
}

/// Storage errors keep SQLite's result code, and the store's calls throw typed errors.
@Suite struct StorageErrorTests {
    @Test func aPrimaryCodeMatchesItsExtendedCodesAndAnExtendedCodeOnlyItself() {
        let fsync = SQLiteResultCode(rawValue: SQLiteResultCode.ioError.rawValue | (4 << 8)) // SQLITE_IOERR_FSYNC
        #expect(!fsync.isPrimary)
        #expect(fsync.primary == .ioError)
        #expect(SQLiteResultCode.ioError ~= fsync)
        #expect(!(SQLiteResultCode.full ~= fsync))
        #expect(!(fsync ~= SQLiteResultCode.ioError))
        #expect(fsync ~= fsync)
        let matched =
            switch fsync {
            case .full: "full"
            case .ioError: "I/O"
            default: "other"
            }
        #expect(matched == "I/O")
    }

    /// The refusal of a second store on a held file is decided on `SQLITE_BUSY`, not on words.
    @Test func aSecondStoreOnAHeldFileIsRefusedWithBusy() throws {
        let dir = TemporaryDirectory("busy")
        let path = dir.file("todos.db")
        let first = try TodoStore(path: path)
        _ = try first.write { (tx) throws(TodoError) in try tx.add(NewTodo(title: "牛乳を買う")) }
        do throws(TodoError) {
            _ = try TodoStore(path: path)
            Issue.record("a second store opened a held file")
        } catch {
            #expect(error.code == .storage)
            #expect(error.resultCode?.primary == .busy, "\(String(describing: error.resultCode))")
            #expect(
                error.message
                    == "cannot use \(path): another process has it open (is another todod using this database?)")
        }
        #expect(try first.read { (tx) throws(TodoError) in try tx.todo(1).title } == "牛乳を買う")
    }

    @Test func aFileThatIsNotADatabaseIsRefusedWithNotADatabase() throws {
        let dir = TemporaryDirectory("notadb")
        let path = dir.file("notes.db")
        try Data("これはデータベースではありません\n".utf8 + [UInt8](repeating: 0x41, count: 4096)).write(
            to: URL(fileURLWithPath: path))
        do throws(TodoError) {
            _ = try TodoStore(path: path)
            Issue.record("a file that is not a database was opened")
        } catch {
            #expect(error.resultCode == .notADatabase)
            #expect(error.reason == "the file is not a database")
            #expect(error.message == "cannot use \(path): the file is not a database")
        }
    }

    /// A body's own error type passes through a write, which rolls back; a failure of the store
    /// itself (here: closed) arrives converted into that type, with no cast anywhere.
    @Test func aBodysErrorTypeIsWhatTheStoreThrows() throws {
        let dir = TemporaryDirectory("typed")
        let store = try TodoStore(path: dir.file("todos.db"))
        do throws(CallerError) {
            _ = try store.write { (tx) throws(CallerError) in
                do throws(TodoError) { _ = try tx.add(NewTodo(title: "rolled back")) } catch {
                    throw CallerError(error)
                }
                throw CallerError(text: "mine")
            }
            Issue.record("the write did not throw")
        } catch {
            #expect(error == CallerError(text: "mine"))
        }
        #expect(try store.read { (tx) throws(TodoError) in try tx.list(TodoQuery()).total } == 0)

        // A savepoint throws the body's type too, and undoes only its own changes.
        let kept = try store.write { (tx) throws(TodoError) -> Int64 in
            let todo = try tx.add(NewTodo(title: "kept"))
            let inner: Result<Void, CallerError> = Result { () throws(CallerError) in
                try tx.savepoint { () throws(CallerError) in
                    do throws(TodoError) { _ = try tx.add(NewTodo(title: "undone")) } catch { throw CallerError(error) }
                    throw CallerError(text: "undo")
                }
            }
            #expect(throws: CallerError(text: "undo")) { try inner.get() }
            return todo.id
        }
        #expect(try store.read { (tx) throws(TodoError) in try tx.list(TodoQuery()).todos.map(\.id) } == [kept])

        store.close()
        do throws(CallerError) {
            _ = try store.read { (tx) throws(CallerError) in 1 }
            Issue.record("a closed store answered")
        } catch {
            #expect(error == CallerError(text: "store: storage failure: the store is closed"))
        }
    }
}
