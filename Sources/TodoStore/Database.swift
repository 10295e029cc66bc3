import Dispatch
import TodoCore
import TodoPosix
import TodoSQLite

/// Owns the one SQLite connection to a todo database and the serial queue it is used on.
///
/// Nothing else touches the connection, so there are no locks around it (the model of GRDB's
/// `DatabaseQueue`). Calling `sync` from inside its own queue is a programmer error and traps.
final class Database: @unchecked Sendable {
    // @unchecked: `connection` and `lostFile` are touched only on `queue`; the rest is immutable.
    let path: String
    let queue: DispatchQueue
    private var connection: Connection?
    private let queueKey = DispatchSpecificKey<Void>()
    /// The file opened at `path`: device and inode as found right after opening.
    private let identity: Files.Identity?
    /// Why the file at `path` is no longer the open one, once that was noticed (it stays so).
    private var lostFile: String?

    /// Opens the database at `path`, refusing a file this build cannot safely use, and applies
    /// pending migrations. A refused file is left byte-for-byte untouched.
    /// - Throws: `TodoError.storage`.
    /// - Parameter changeLog: false opens it without the triggers that write the change log
    ///   (a benchmark's comparison only: changes are then neither logged nor undoable).
    init(path: String, label: String = "todod.store", changeLog: Bool = true) throws(TodoError) {
        self.path = path
        self.queue = DispatchQueue(label: label)
        try Database.refuseOrphanedLog(path)
        let connection = try Connection(path: path)
        // The daemon is the store's only user: it keeps its file locks for as long as it runs
        // instead of taking and dropping them around every transaction (several fcntl calls
        // each), and the WAL index lives in its memory rather than in a shared -shm file. Another
        // process cannot open the store meanwhile: a second daemon is refused after waiting a
        // second for the lock (long enough for a previous daemon to finish exiting).
        try connection.execute("PRAGMA locking_mode = EXCLUSIVE; PRAGMA busy_timeout = 1000;")
        try Migrator(connection: connection, path: path).migrate()
        if changeLog { try connection.execute(ChangeLog.triggers) }
        self.connection = connection
        self.identity = try? Files.identity(path)
        queue.setSpecific(key: queueKey, value: ())
    }

    /// Refuses a write-ahead log without its database: a log whose database was deleted under a
    /// daemon that then died. SQLite would replay it into the new, empty database it creates
    /// (pages of another file: a damaged store). The log is left for the user to look at.
    private static func refuseOrphanedLog(_ path: String) throws(TodoError) {
        guard let log = try? Files.identity(path + "-wal"), log.size > 0 else { return }
        let database = try? Files.identity(path)
        guard database == nil || database?.size == 0 else { return }
        throw TodoError.storage("cannot use \(path): \(path)-wal holds changes of a database that is no longer there (deleted while todod ran?); move \(path)-wal away to start with an empty store")
    }

    /// Nil while the file at `path` is the one open; else why not, in a sentence. Looks at the
    /// path (one `lstat`) until it finds a change, which it then keeps reporting: the daemon
    /// must be restarted. On finding it, the connection lets go of the names around the file
    /// (`Connection.detachFromPath`). Must run on the queue.
    func fileProblemOnQueue() -> String? {
        dispatchPrecondition(condition: .onQueue(queue))
        if let lostFile { return lostFile }
        guard let identity, let connection else { return nil }
        let now: Files.Identity?
        do { now = try Files.identity(path) } catch { return nil }  // cannot look: assume unchanged
        if let now, now.isSameFile(as: identity) { return nil }
        let what = now == nil ? "deleted" : "replaced by another file"
        lostFile = "the database file \(path) was \(what) while todod was running; todod refuses changes until it is restarted"
        connection.detachFromPath()
        return lostFile
    }

    /// Throws the storage error of `fileProblemOnQueue` before a write. Must run on the queue.
    func checkFileBeforeWrite() throws(TodoError) {
        if let problem = fileProblemOnQueue() { throw TodoError.storage("storage failure: \(problem)") }
    }

    /// True on the database queue.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) != nil }

    /// Runs `body` with the connection on the database queue and waits for it.
    func sync<T, E: TodoErrorConvertible>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        precondition(!isOnQueue, "Database.sync called re-entrantly on its own queue")  // programmer error
        // `DispatchQueue.sync` rethrows as `any Error`; the result carries the typed error across.
        let result = queue.sync { Result { () throws(E) in try body(try open(as: E.self)) } }
        return try result.get()
    }

    /// Runs `body` with the connection; the caller must already be on the database queue.
    func onQueue<T, E: TodoErrorConvertible>(_ body: (Connection) throws(E) -> T) throws(E) -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        return try body(try open(as: E.self))
    }

    private func open<E: TodoErrorConvertible>(as: E.Type) throws(E) -> Connection {
        guard let connection else { throw E(TodoError.storage("storage failure: the store is closed")) }
        return connection
    }

    /// Closes the connection (checkpointing the WAL); must run on the queue. When the file was
    /// deleted or replaced meanwhile, the WAL is emptied into the old file and not deleted by name.
    func closeOnQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
        _ = fileProblemOnQueue()
        connection = nil
    }
}

extension Connection {
    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), committing when it returns and
    /// rolling back when it throws.
    func transaction<T, E: TodoErrorConvertible>(_ body: () throws(E) -> T) throws(E) -> T {
        do { try run("BEGIN IMMEDIATE") } catch { throw E(error) }
        do throws(E) {
            let value = try body()
            do { try run("COMMIT") } catch { throw E(error) }
            return value
        } catch {
            if inTransaction { try? run("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a savepoint inside the open transaction: when it throws, only its own
    /// changes are undone. A failure of the savepoint itself is thrown as `E`.
    func savepoint<T, E: TodoErrorConvertible>(_ body: () throws(E) -> T) throws(E) -> T {
        do { try run("SAVEPOINT request") } catch { throw E(error) }
        do throws(E) {
            let value = try body()
            do { try run("RELEASE request") } catch { throw E(error) }
            return value
        } catch {
            try? run("ROLLBACK TO request")
            try? run("RELEASE request")
            throw error
        }
    }
}
