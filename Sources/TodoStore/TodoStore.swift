import Dispatch
import TodoCore

/// The todo/category store: one SQLite file, one connection, one serial queue.
///
/// All work happens in `read` or `write` blocks on the store's queue; a `write` block is one
/// transaction, committed durably (WAL, `synchronous=FULL`) before the call returns.
///
/// ```swift
/// let store = try TodoStore(path: "/tmp/todos.db")
/// let todo = try store.write { try $0.add(NewTodo(title: "牛乳を買う")) }
/// ```
public final class TodoStore: Sendable {
    /// The database file.
    public var path: String { database.path }
    private let database: Database
    private let clock: @Sendable () -> Instant

    /// Opens or creates the store at `path`.
    /// - Parameter clock: the source of `created`/`updated`/`completed` instants.
    /// - Throws: `.storage` when the file cannot be opened, is not a todod database, or was
    ///   written by a newer schema (the file is then left untouched).
    public init(path: String, clock: @escaping @Sendable () -> Instant = { Instant.now() }) throws(TodoError) {
        do {
            self.database = try Database(path: path)
        } catch let error as TodoError {
            throw error
        } catch {
            throw TodoError.storage("cannot open \(path): \(error)")
        }
        self.clock = clock
    }

    /// The queue every store operation runs on.
    public var queue: DispatchQueue { database.queue }

    /// Runs `body` on the store queue, and waits for it. Store operations throw only `TodoError`.
    ///
    /// A read sees one state of the store without a transaction of its own: every write runs on
    /// the same serial queue and the file is held exclusively, so nothing changes between the
    /// statements of one read. Each statement reads in autocommit mode, with no `BEGIN` and
    /// `COMMIT` around them.
    public func read<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try database.sync { connection in try body(StoreTransaction(connection: connection, now: clock())) }
    }

    /// Like `read`, for a caller already running on the store queue.
    public func readOnQueue<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try database.onQueue { connection in try body(StoreTransaction(connection: connection, now: clock())) }
    }

    /// Like `write`, for a caller already running on the store queue: one transaction, durable
    /// when this returns. Callers batching several requests wrap each in `savepoint`.
    public func writeOnQueue<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try database.onQueue { connection in
            try database.checkFileBeforeWrite()
            return try connection.transaction { try body(StoreTransaction(connection: connection, now: clock())) }
        }
    }

    /// Nil while the file at `path` is still the one the store opened; else a sentence saying it
    /// was deleted or replaced (from then on every write fails with that `.storage` error, until
    /// the store is opened again). One `lstat` until a change is found. Must run on `queue`.
    public func fileProblemOnQueue() -> String? { database.fileProblemOnQueue() }

    /// Closes the database; later calls fail with `.storage`. Waits for work queued before it.
    public func close() {
        queue.sync { database.closeOnQueue() }
    }

    /// Runs `body` in one durable write transaction on the store queue, and waits for it.
    /// Nothing of it remains when it throws.
    public func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        try database.sync { connection in
            try database.checkFileBeforeWrite()
            return try connection.transaction {
                try body(StoreTransaction(connection: connection, now: clock()))
            }
        }
    }
}

/// The store's operations, valid inside one `read` or `write` block. Every instant a block
/// records is the same `now`.
public struct StoreTransaction {
    let connection: Connection
    /// The instant this block records as created/updated/completed.
    public let now: Instant

    /// Runs `body` in a savepoint of the open write transaction: when it throws, only its own
    /// changes are undone and the transaction goes on.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try connection.savepoint(body)
    }

    var todoOrder: ManualOrder { ManualOrder(table: ManualOrder.todos, blocks: ManualOrder.todoBlocks, connection: connection) }
    var categoryOrder: ManualOrder { ManualOrder(table: "categories", blocks: nil, connection: connection) }
}
