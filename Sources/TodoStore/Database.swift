import Dispatch
import TodoCore
import TodoPosix
import TodoSQLite

/// Owns the one SQLite connection to a todo database and the serial queue it is used on.
///
/// Nothing else touches the connection, so there are no locks around it (the model of GRDB's
/// `DatabaseQueue`). Calling `sync` from inside its own queue is a programmer error and traps.
final class Database: @unchecked Sendable {
    // @unchecked: `connection`, `readHeld`, `hints` and `lostFile` are touched only on `queue`;
    // the rest is immutable.
    let path: String
    let queue: DispatchQueue
    private var connection: Connection? {
        didSet {
            hints = ReadHints()
            readHeld = false
        }
    }
    /// Whether the connection holds a read transaction between reads (`onQueue`), begun here.
    private var readHeld = false
    /// What reads on `connection` may skip (`ReadHints`), made again with every new connection.
    private var hints = ReadHints()
    /// Whether the connection writes the change log (its TEMP triggers).
    private let changeLog: Bool
    /// While a long write runs on a thread of its own (`beginLongWrite` to `endLongWrite`): the
    /// read-only connection every read is answered from meanwhile, in a read transaction of its
    /// own, so it sees the store as last committed, never the long write half done.
    private var snapshot: Connection?
    /// Set by `closeOnQueue`: a long write ending later does not open the file again.
    private var closed = false
    private let queueKey = DispatchSpecificKey<Void>()
    /// The file opened at `path`: device and inode as found right after opening.
    private let identity: Files.Identity?
    /// Why the file at `path` is no longer the open one, once that was noticed (it stays so).
    private var lostFile: String?
    /// Writes ended since `afterWrite`'s work was last queued.
    private var writesSinceAfterWork = 0

    /// Counts a write transaction just ended; at every `every`th, queues `work` to run on the
    /// queue once that write has answered, with the connection outside any transaction; skipped
    /// while a long write holds the file, after the store closed or once its file was replaced.
    func afterWrite(every: Int, _ work: @escaping @Sendable (Connection) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        writesSinceAfterWork += 1
        guard writesSinceAfterWork >= every else { return }
        writesSinceAfterWork = 0
        queue.async { [self] in
            guard let connection, snapshot == nil, !closed, fileProblemOnQueue() == nil else { return }
            endHeldRead(connection)
            work(connection)
        }
    }

    /// Opens the database at `path`, refusing a file this build cannot safely use, and applies
    /// pending migrations. A refused file is left byte-for-byte untouched.
    /// - Throws: `TodoError.storage`.
    /// - Parameter changeLog: false opens it without the triggers that write the change log
    ///   (a benchmark's comparison only: changes are then neither logged nor undoable).
    init(path: String, label: String = "todod.store", changeLog: Bool = true) throws(TodoError) {
        self.path = path
        self.queue = DispatchQueue(label: label)
        self.changeLog = changeLog
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
        throw TodoError.storage(
            "cannot use \(path): \(path)-wal holds changes of a database that is no longer there (deleted while todod ran?); move \(path)-wal away to start with an empty store"
        )
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
        do { now = try Files.identity(path) } catch { return nil } // cannot look: assume unchanged
        if let now, now.isSameFile(as: identity) { return nil }
        let what = now == nil ? "deleted" : "replaced by another file"
        lostFile =
            "the database file \(path) was \(what) while todod was running; todod refuses changes until it is restarted"
        endHeldRead(connection) // the log cannot be emptied under a read transaction
        connection.detachFromPath()
        return lostFile
    }

    /// Throws the storage error of `fileProblemOnQueue` before a write. Must run on the queue.
    func checkFileBeforeWrite() throws(TodoError) {
        if let problem = fileProblemOnQueue() { throw TodoError.storage("storage failure: \(problem)") }
    }

    /// True on the database queue.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: queueKey) != nil }

    /// Runs `body` with the connection on the database queue and waits for it. `reading`: the
    /// body only reads (while a long write runs it reads the last committed state).
    func sync<T, E: TodoErrorConvertible>(reading: Bool = false, _ body: (Connection) throws(E) -> T) throws(E) -> T {
        precondition(!isOnQueue, "Database.sync called re-entrantly on its own queue") // programmer error
        // `DispatchQueue.sync` rethrows as `any Error`; the result carries the typed error across.
        let result = queue.sync { Result { () throws(E) in try onQueue(reading: reading, body) } }
        return try result.get()
    }

    /// Runs `body` with the connection; the caller must already be on the database queue.
    /// `reading`: the body only reads (while a long write runs it reads the last committed
    /// state); a write meanwhile fails with a storage error.
    func onQueue<T, E: TodoErrorConvertible>(reading: Bool = false, _ body: (Connection) throws(E) -> T) throws(E) -> T
    {
        queue.assertCurrent()
        guard let snapshot else {
            let connection = try open(as: E.self)
            guard reading else {
                endHeldRead(connection)
                return try body(connection)
            }
            holdRead(connection)
            defer { if readHeld && connection.inWriteTransaction { endHeldRead(connection) } }
            return try body(connection)
        }
        guard reading else {
            throw E(
                TodoError.storage(
                    "storage failure: the store is busy undoing or redoing a large change; try again when it ends"))
        }
        // One read transaction: all its statements see one state, even if the long write commits meanwhile.
        do { try snapshot.run("BEGIN") } catch { throw E(error) }
        defer { try? snapshot.run("COMMIT") }
        return try body(snapshot)
    }

    /// Reads share one read transaction, from the first read after a write to the next write:
    /// nothing else writes the file meanwhile (it is held exclusively), and each statement in
    /// autocommit mode began and ended a read transaction of its own (about 1,400 instructions a
    /// `todo.get`, in the WAL index). Not when a transaction is already open (a read inside a write).
    private func holdRead(_ connection: Connection) {
        guard !readHeld, !connection.inTransaction else { return }
        do { try connection.run("BEGIN") } catch { return } // the read then runs in autocommit mode
        readHeld = true
    }

    /// Ends the read transaction reads share, before a write (or a read that wrote: what it wrote
    /// commits here, as it did in autocommit mode).
    private func endHeldRead(_ connection: Connection) {
        guard readHeld else { return }
        readHeld = false
        if connection.inTransaction { try? connection.run("COMMIT") }
    }

    /// The hints for a read outside a write transaction on `connection`: the exclusive connection's
    /// own, none for the snapshot (another connection writes meanwhile). Must run on the queue.
    func hints(for connection: Connection) -> ReadHints? {
        connection === self.connection && snapshot == nil ? hints : nil
    }

    /// True while a long write runs (`beginLongWrite` to `endLongWrite`). Must run on the queue.
    var longWriteRunning: Bool { snapshot != nil }

    /// Hands the connection over to a long write that runs on another thread, leaving the queue
    /// free: reads go on from a read-only snapshot connection, writes fail until `endLongWrite`.
    /// The connection is opened again in SQLite's normal locking mode (a WAL index in a `-shm`
    /// file) so that the snapshot can read beside it; the write transaction is begun here, so
    /// no other process can write meanwhile. Must run on the queue.
    /// - Returns: the connection, in an open write transaction (`BEGIN IMMEDIATE`).
    func beginLongWrite() throws(TodoError) -> Connection {
        dispatchPrecondition(condition: .onQueue(queue))
        try checkFileBeforeWrite()
        guard let exclusive = connection, snapshot == nil else {
            throw TodoError.storage("storage failure: the store is closed")
        }
        endHeldRead(exclusive)
        exclusive.close() // the exclusive connection: its WAL goes into the file
        connection = nil
        do {
            let shared = try Connection(path: path)
            try shared.execute("PRAGMA busy_timeout = 1000; \(Migrator.connectionPragmas)")
            if changeLog { try shared.execute(ChangeLog.triggers) }
            try shared.run("BEGIN IMMEDIATE")
            _ = try shared.scalar("SELECT count(*) FROM store_info") // opens the WAL and its index
            let reader = try Connection(path: path, readOnly: true)
            try reader.execute("PRAGMA busy_timeout = 1000;")
            snapshot = reader
            return shared
        } catch {
            snapshot?.close()
            snapshot = nil
            connection = try? Self.reopenExclusive(path, changeLog: changeLog)
            throw error
        }
    }

    /// Takes the connection back from a finished long write (committed or rolled back): the
    /// snapshot closes and the store holds its file exclusively again. Must run on the queue.
    func endLongWrite(_ shared: Connection) {
        dispatchPrecondition(condition: .onQueue(queue))
        snapshot?.close()
        snapshot = nil
        if shared.inTransaction { try? shared.run("ROLLBACK") }
        // The last connection closing empties the WAL into the file and deletes it and the -shm.
        shared.close()
        guard !closed else { return }
        connection = try? Self.reopenExclusive(path, changeLog: changeLog)
    }

    /// Opens the migrated file again, exclusively (as `init` does), with the log's triggers.
    private static func reopenExclusive(_ path: String, changeLog: Bool) throws(TodoError) -> Connection {
        let connection = try Connection(path: path)
        try connection.execute(
            "PRAGMA locking_mode = EXCLUSIVE; PRAGMA busy_timeout = 1000; \(Migrator.connectionPragmas)")
        if changeLog { try connection.execute(ChangeLog.triggers) }
        _ = try connection.scalar("SELECT count(*) FROM store_info") // takes the lock now
        return connection
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
        closed = true
        if let connection { endHeldRead(connection) }
        connection = nil
        snapshot?.close()
        snapshot = nil
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
