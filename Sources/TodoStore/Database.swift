import Dispatch
import TodoCore

/// Owns the one SQLite connection to a todo database and the serial queue it is used on.
///
/// Nothing else touches the connection, so there are no locks around it (the model of GRDB's
/// `DatabaseQueue`). Calling `sync` from inside its own queue is a programmer error and traps.
final class Database: @unchecked Sendable {
    // @unchecked: `connection` is only touched on `queue`.
    let path: String
    let queue: DispatchQueue
    private var connection: Connection?
    private let queueKey = DispatchSpecificKey<Void>()

    /// Opens the database at `path`, refusing a file this build cannot safely use, and applies
    /// pending migrations. A refused file is left byte-for-byte untouched.
    /// - Throws: `TodoError.storage`.
    init(path: String, label: String = "todod.store") throws {
        self.path = path
        self.queue = DispatchQueue(label: label)
        let connection = try Connection(path: path)
        // The daemon is the store's only user: it keeps its file locks for as long as it runs
        // instead of taking and dropping them around every transaction (several fcntl calls
        // each), and the WAL index lives in its memory rather than in a shared -shm file. Another
        // process cannot open the store meanwhile: a second daemon is refused after waiting a
        // second for the lock (long enough for a previous daemon to finish exiting).
        try connection.execute("PRAGMA locking_mode = EXCLUSIVE; PRAGMA busy_timeout = 1000;")
        try Migrator(connection: connection, path: path).migrate()
        self.connection = connection
        queue.setSpecific(key: queueKey, value: ())
    }

    /// True on the database queue.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) != nil }

    /// Runs `body` with the connection on the database queue and waits for it.
    func sync<T>(_ body: (Connection) throws -> T) throws -> T {
        precondition(!isOnQueue, "Database.sync called re-entrantly on its own queue")  // programmer error
        return try queue.sync { try body(try open()) }
    }

    /// Runs `body` with the connection; the caller must already be on the database queue.
    func onQueue<T>(_ body: (Connection) throws -> T) throws -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        return try body(try open())
    }

    private func open() throws(TodoError) -> Connection {
        guard let connection else { throw TodoError.storage("storage failure: the store is closed") }
        return connection
    }

    /// Closes the connection (checkpointing the WAL); must run on the queue.
    func closeOnQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
        connection = nil
    }
}

extension Connection {
    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`), committing when it returns and
    /// rolling back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            if inTransaction { try? run("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a savepoint inside the open transaction: when it throws, only its own
    /// changes are undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try run("SAVEPOINT request")
        do {
            let value = try body()
            try run("RELEASE request")
            return value
        } catch {
            try? run("ROLLBACK TO request")
            try? run("RELEASE request")
            throw error
        }
    }
}
