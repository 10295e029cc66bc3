import Dispatch
import TodoCore
import TodoSQLite

/// The todo/category store: one SQLite file, one connection, one serial queue.
///
/// All work happens in `read` or `write` blocks on the store's queue; a `write` block is one
/// transaction, committed durably (WAL, `synchronous=FULL`) before the call returns.
///
/// ```swift
/// let store = try TodoStore(path: "/tmp/todos.db")
/// let todo = try store.write { try $0.add(NewTodo(title: "牛乳を買う")) }
/// ```
package final class TodoStore: Sendable {
    /// The database file.
    package var path: String { database.path }
    let database: Database
    private let clock: @Sendable () -> Instant
    /// The time zones todos name.
    private let zones: ZoneCatalog
    /// How much of the change log is kept.
    private let retention: LogRetention

    /// Opens or creates the store at `path`.
    /// - Parameter clock: the source of `created`/`updated`/`completed` instants.
    /// - Parameter tzdir: the tz database todos' zones are read from (`TZDIR`; nil: /usr/share/zoneinfo).
    /// - Throws: `.storage` when the file cannot be opened, is not a todod database, or was
    ///   written by a newer schema (the file is then left untouched).
    /// - Parameter retention: how much of the change log is kept (tests make it small).
    /// - Parameter changeLog: false writes no change log (for a benchmark's comparison only).
    package init(
        path: String, clock: @escaping @Sendable () -> Instant = { Instant.now() }, tzdir: String? = nil,
        retention: LogRetention = .standard, changeLog: Bool = true
    ) throws(TodoError) {
        self.database = try Database(path: path, changeLog: changeLog)
        self.retention = retention
        self.clock = clock
        self.zones = ZoneCatalog(tzdir: tzdir)
    }

    /// The queue every store operation runs on.
    package var queue: DispatchQueue { database.queue }

    /// Runs `body` on the store queue, and waits for it.
    ///
    /// These calls throw the body's own error type: `TodoError` for a body of store operations
    /// (`{ (tx) throws(TodoError) in ... }`), or a `TodoErrorConvertible` type of the caller's;
    /// a failure of the store itself (closed, file replaced, commit failed) arrives converted.
    ///
    /// A read sees one state of the store: every write runs on the same serial queue and the file
    /// is held exclusively, so nothing changes between the statements of one read. The reads
    /// between two writes share one read transaction (`Database.onQueue`), ended before the next
    /// write. While a `writeDetached` runs, a read runs instead in a read transaction of a
    /// read-only second connection: the state committed before it.
    package func read<T, E: TodoErrorConvertible>(_ body: (StoreTransaction) throws(E) -> T) throws(E) -> T {
        try database.sync(reading: true) { (connection) throws(E) in
            try body(
                StoreTransaction(
                    connection: connection, now: clock(), zones: zones, retention: retention,
                    hints: database.hints(for: connection)))
        }
    }

    /// Like `read`, for a caller already running on the store queue.
    package func readOnQueue<T, E: TodoErrorConvertible>(_ body: (StoreTransaction) throws(E) -> T) throws(E) -> T {
        try database.onQueue(reading: true) { (connection) throws(E) in
            try body(
                StoreTransaction(
                    connection: connection, now: clock(), zones: zones, retention: retention,
                    hints: database.hints(for: connection)))
        }
    }

    /// Like `write`, for a caller already running on the store queue: one transaction, durable
    /// when this returns. Callers batching several requests wrap each in `savepoint`.
    package func writeOnQueue<T, E: TodoErrorConvertible>(_ body: (StoreTransaction) throws(E) -> T) throws(E) -> T {
        try database.onQueue { (connection) throws(E) in
            do throws(TodoError) { try database.checkFileBeforeWrite() } catch { throw E(error) }
            defer {
                DiskRoom.trimAfterWrite(connection, path: database.path)
                database.afterWrite(every: SearchIndex.writesPerMergeStep) { try? SearchIndex.mergeStep($0) }
            }
            return try connection.transaction { () throws(E) in try committing(connection, body) }
        }
    }

    /// Runs `body` as one write transaction on `worker`, a thread of its own, leaving the store
    /// queue free meanwhile (for long work: the undo of a large import). Must be called on the
    /// store queue. Until it ends, reads there see the store as it was before it (a snapshot:
    /// never half of it) and other writes fail, so the caller holds them back
    /// (`longWriteRunningOnQueue`). Like every write it commits whole or not at all: a daemon killed
    /// meanwhile leaves the store as it was before it. `done` runs on the store queue once the
    /// transaction committed or rolled back and the store holds its file exclusively again.
    package func writeDetached<T, E: TodoErrorConvertible>(
        on worker: DispatchQueue, _ body: @escaping @Sendable (StoreTransaction) throws(E) -> T,
        done: @escaping @Sendable (Result<T, E>) -> Void
    ) {
        let shared: Connection
        do throws(TodoError) { shared = try database.beginLongWrite() } catch { return done(.failure(E(error))) }
        nonisolated(unsafe) let connection = shared // used by the worker alone until it hands it back
        worker.async { [self] in
            let result = Result { () throws(E) -> T in
                do throws(E) {
                    let value = try committing(connection, body)
                    do throws(TodoError) { try connection.run("COMMIT") } catch { throw E(error) }
                    // What readers no longer need goes into the file here, not on the store
                    // queue when the connection is closed there.
                    try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    return value
                } catch {
                    if connection.inTransaction { try? connection.run("ROLLBACK") }
                    throw error
                }
            }
            nonisolated(unsafe) let outcome = result
            queue.async { [self] in
                database.endLongWrite(connection)
                done(outcome)
            }
        }
    }

    /// True while a `writeDetached` runs. Must run on the store queue.
    package var longWriteRunningOnQueue: Bool { database.longWriteRunning }

    /// Runs the body of a write transaction, then the search index's flush (`SearchIndex.flush`),
    /// the step of log pruning due before its commit, then the check that a large one has room on disk (`DiskRoom`).
    private func committing<T, E: TodoErrorConvertible>(
        _ connection: Connection, _ body: (StoreTransaction) throws(E) -> T
    ) throws(E) -> T {
        let tx = StoreTransaction(
            connection: connection, now: clock(), zones: zones, retention: retention, logTail: LogTail())
        let value = try body(tx)
        do throws(TodoError) {
            try SearchIndex.flush(connection)
            try tx.pruneBeforeCommit()
            try DiskRoom.checkBeforeCommit(connection, path: database.path)
        } catch {
            throw E(error)
        }
        return value
    }

    /// Nil while the file at `path` is still the one the store opened; else a sentence saying it
    /// was deleted or replaced (from then on every write fails with that `.storage` error, until
    /// the store is opened again). One `lstat` until a change is found. Must run on `queue`.
    package func fileProblemOnQueue() -> String? { database.fileProblemOnQueue() }

    /// Closes the database; later calls fail with `.storage`. Waits for work queued before it.
    package func close() {
        queue.sync { database.closeOnQueue() }
    }

    /// Runs `body` in one durable write transaction on the store queue, and waits for it.
    /// Nothing of it remains when it throws.
    package func write<T, E: TodoErrorConvertible>(_ body: (StoreTransaction) throws(E) -> T) throws(E) -> T {
        try database.sync { (connection) throws(E) in
            do throws(TodoError) { try database.checkFileBeforeWrite() } catch { throw E(error) }
            defer {
                DiskRoom.trimAfterWrite(connection, path: database.path)
                database.afterWrite(every: SearchIndex.writesPerMergeStep) { try? SearchIndex.mergeStep($0) }
            }
            return try connection.transaction { () throws(E) in try committing(connection, body) }
        }
    }
}

/// The same calls for a body that throws errors of its own besides the store's (a test, a
/// tool): whatever is thrown passes through as it is. Swift 6 infers a closure that uses `try`
/// as throwing `any Error` unless it spells out `throws(TodoError)`; such a closure lands here.
extension TodoStore {
    package func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try AnyThrown.unwrap { () throws(AnyThrown) in
            try read { (tx) throws(AnyThrown) in try AnyThrown.wrap { try body(tx) } }
        }
    }

    package func readOnQueue<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try AnyThrown.unwrap { () throws(AnyThrown) in
            try readOnQueue { (tx) throws(AnyThrown) in try AnyThrown.wrap { try body(tx) } }
        }
    }

    package func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try AnyThrown.unwrap { () throws(AnyThrown) in
            try write { (tx) throws(AnyThrown) in try AnyThrown.wrap { try body(tx) } }
        }
    }

    package func writeOnQueue<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try AnyThrown.unwrap { () throws(AnyThrown) in
            try writeOnQueue { (tx) throws(AnyThrown) in try AnyThrown.wrap { try body(tx) } }
        }
    }
}

/// The store's operations, valid inside one `read` or `write` block. Every instant a block
/// records is the same `now`.
package struct StoreTransaction {
    let connection: Connection
    /// The instant this block records as created/updated/completed.
    package let now: Instant
    /// The time zones todos name.
    let zones: ZoneCatalog
    /// How much of the change log is kept.
    let retention: LogRetention
    /// In a write transaction: the newest change it logged, so the next change and the seq of
    /// its events need not read it back (nil in reads, which log nothing).
    var logTail: LogTail? = nil
    /// In a read outside a write transaction: facts about the store it may skip looking up.
    var hints: ReadHints? = nil

    /// Runs `body` in a savepoint of the open write transaction: when it throws, only its own
    /// changes are undone and the transaction goes on. It throws the body's error type; a
    /// failure of the savepoint itself arrives converted to it (`RPCError` for a request).
    package func savepoint<T, E: TodoErrorConvertible>(_ body: () throws(E) -> T) throws(E) -> T {
        do {
            return try connection.savepoint(body)
        } catch {
            logTail?.newest = nil // what it logged is gone: read the log again
            throw error
        }
    }

    var todoOrder: ManualOrder {
        ManualOrder(
            table: ManualOrder.todos, blocks: ManualOrder.todoBlocks, counted: ManualOrder.openTodos,
            connection: connection)
    }
    var categoryOrder: ManualOrder { ManualOrder(table: "categories", blocks: nil, connection: connection) }
}

/// Carries whatever a body of the untyped calls threw through the typed ones.
private struct AnyThrown: TodoErrorConvertible {
    let error: any Error

    init(_ error: TodoError) { self.error = error }
    private init(any error: any Error) { self.error = error }

    static func wrap<T>(_ body: () throws -> T) throws(AnyThrown) -> T {
        do { return try body() } catch { throw AnyThrown(any: error) }
    }

    static func unwrap<T>(_ body: () throws(AnyThrown) -> T) throws -> T {
        do { return try body() } catch { throw error.error }
    }
}
