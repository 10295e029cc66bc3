import CSQLite
import TodoCore

// The only file that calls the SQLite C API. Everything else speaks `Connection`, `Statement`,
// `SQLValue` and `TodoError`. See https://sqlite.org/c3ref/intro.html.

/// A raw SQLite connection handle.
package typealias SQLiteHandle = OpaquePointer
/// A raw prepared-statement handle.
package typealias SQLiteStatementHandle = OpaquePointer

/// A value bound to a statement parameter. Every value reaches SQL this way, never as text
/// pasted into a query. `package`: todod-sync keeps its own state through this wrapper too.
package enum SQLValue {
    case null
    case integer(Int64)
    case text(String)

    package static func optional(_ v: Int64?) -> SQLValue { v.map(SQLValue.integer) ?? .null }
    package static func optional(_ v: String?) -> SQLValue { v.map(SQLValue.text) ?? .null }
    package static func optional(_ v: Instant?) -> SQLValue { v.map { .integer($0.usec) } ?? .null }
    package static func bool(_ v: Bool) -> SQLValue { .integer(v ? 1 : 0) }
}

/// SQL text as a statement-cache key. Hashing every byte of a long statement on each call
/// showed in profiles; the length and eight bytes from the start, the middle and the end tell the
/// statements apart well enough, and equality still compares the whole text (at once when it is
/// the same literal).
private struct SQLText: Hashable {
    package let text: String
    package init(_ text: String) { self.text = text }

    package func hash(into hasher: inout Hasher) {
        let utf8 = text.utf8
        hasher.combine(utf8.count)
        let sampled =
            utf8.withContiguousStorageIfAvailable { bytes -> Bool in
                guard bytes.count >= 16, let base = bytes.baseAddress else { return false }
                let raw = UnsafeRawPointer(base)
                hasher.combine(raw.loadUnaligned(as: UInt64.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: bytes.count / 2, as: UInt64.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
                return true
            } ?? false
        if !sampled { hasher.combine(text) }
    }
}

/// One open SQLite connection with a cache of prepared statements keyed by SQL text.
///
/// Not thread-safe: `Database` owns it and touches it only on its serial queue (todod-sync's
/// state owns its own).
package final class Connection {
    private let handle: SQLiteHandle
    private var cache: [SQLText: Statement] = [:]
    /// The statement used last, found again without hashing when the same text comes next (a
    /// client asking `todo.get` in a loop runs one statement per request). The texts are
    /// constants, so the comparison is usually of two identical strings, which is immediate.
    private var recent: (sql: String, statement: Statement)?
    /// Set by `startCountingWALPages`.
    private var walPages: WALPageCounter?

    /// Set once, before the first connection opens.
    private static let configured: Void = {
        // Nothing reads SQLite's memory statistics; keeping them takes a global mutex around
        // every allocation. ([SQLITE_CONFIG_MEMSTATUS](https://sqlite.org/c3ref/c_config_covering_index_scan.html))
        _ = todod_sqlite_no_memory_statistics()
        _ = todod_sqlite_pool_small_blocks()
    }()

    /// Opens (creating if missing) the database file at `path`; `readOnly` opens an existing
    /// file for reading only.
    /// ([sqlite3_open_v2](https://sqlite.org/c3ref/open.html))
    package init(path: String, readOnly: Bool = false) throws(TodoError) {
        Connection.configured
        var db: SQLiteHandle?
        // NOFOLLOW: a path with a symbolic link in it is refused, never followed.
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
            | SQLITE_OPEN_NOFOLLOW
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw TodoError(
                storage: SQLiteResultCode(rawValue: rc), reason: message,
                message: "cannot open database \(path): \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        // Group commit runs each request in a savepoint, whose undo log (the statement journal)
        // holds the original of every page the request changes. With temporary storage on disk
        // SQLite keeps that log in memory only up to a size (64 KiB, raised to 128 KiB before
        // the change log) and then writes it to a file in /var/tmp, two write calls per page,
        // for every request after: an add with its log passed that size, and the 16-client add
        // spent more time writing the journal than writing the WAL. In memory it is emptied at
        // every release. (A larger spill size instead allocates that size per savepoint and
        // measured slower.)
        // ([temp_store](https://sqlite.org/pragma.html#pragma_temp_store))
        try execute("PRAGMA temp_store = MEMORY")
    }

    /// Set by `close`: the handle is gone.
    private var closed = false

    deinit { close() }

    /// Closes the connection now rather than when the last reference goes (a WAL that another
    /// connection will open next must be let go first); nothing may use it afterwards.
    package func close() {
        guard !closed else { return }
        closed = true
        cache.values.forEach { $0.finalize() }
        cache = [:]
        recent = nil
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters and return no rows we need.
    package func execute(_ sql: String) throws(TodoError) {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(errmsg)
            throw Connection.error(rc, message)
        }
    }

    /// Runs one statement of fixed text (BEGIN, COMMIT, SAVEPOINT…) through the statement
    /// cache, so it is parsed once per connection rather than on every call like `execute`.
    package func run(_ sql: String) throws(TodoError) {
        let stmt = try statement(sql)
        defer { stmt.reset() }
        while try stmt.step() {}
    }

    /// Rows inserted, updated or deleted through this connection since it opened, triggers'
    /// included (`sqlite3_total_changes64`); a rollback does not count down.
    package var changeCount: Int64 { sqlite3_total_changes64(handle) }

    /// The cached prepared statement for `sql`, reset and with the given parameters bound.
    package func statement(_ sql: String, _ values: [SQLValue] = []) throws(TodoError) -> Statement {
        let stmt = try prepared(sql)
        try stmt.bind(values)
        return stmt
    }

    /// The same with one integer parameter, without an array of values to make (a read by id).
    package func statement(_ sql: String, integer value: Int64) throws(TodoError) -> Statement {
        let stmt = try prepared(sql)
        try stmt.bind(value)
        return stmt
    }

    /// The cached prepared statement for `sql`, prepared on its first use.
    private func prepared(_ sql: String) throws(TodoError) -> Statement {
        let stmt: Statement
        if let recent, recent.sql == sql {
            stmt = recent.statement
        } else if let cached = cache[SQLText(sql)] {
            stmt = cached
            recent = (sql, cached)
        } else {
            var raw: SQLiteStatementHandle?
            let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
            guard rc == SQLITE_OK, let raw else { throw error(rc) }
            stmt = Statement(raw, connection: self)
            cache[SQLText(sql)] = stmt
        }
        return stmt
    }

    /// Runs a statement for its effect.
    package func run(_ sql: String, _ values: [SQLValue] = []) throws(TodoError) {
        let stmt = try statement(sql, values)
        defer { stmt.reset() }
        while try stmt.step() {}
    }

    /// All rows of a query, each mapped by `row`.
    package func rows<T>(_ sql: String, _ values: [SQLValue] = [], _ row: (Statement) throws(TodoError) -> T)
        throws(TodoError) -> [T]
    {
        let stmt = try statement(sql, values)
        defer { stmt.reset() }
        var out: [T] = []
        while try stmt.step() { out.append(try row(stmt)) }
        return out
    }

    /// Hands each row of a query to `row` as it is read, until `row` returns false.
    package func forEachRow(_ sql: String, _ values: [SQLValue] = [], _ row: (Statement) throws(TodoError) -> Bool)
        throws(TodoError)
    {
        let stmt = try statement(sql, values)
        defer { stmt.reset() }
        while try stmt.step() {
            guard try row(stmt) else { return }
        }
    }

    /// The first row of a query, mapped by `row`, or nil when there is none.
    @inlinable
    package func firstRow<T>(_ sql: String, _ values: [SQLValue] = [], _ row: (Statement) throws(TodoError) -> T)
        throws(TodoError) -> T?
    {
        let stmt = try statement(sql, values)
        defer { stmt.reset() }
        return try stmt.step() ? try row(stmt) : nil
    }

    /// The integer in the first column of the first row (0 when there is no row or it is NULL).
    package func scalar(_ sql: String, _ values: [SQLValue] = []) throws(TodoError) -> Int64 {
        try firstRow(sql, values) { $0.int64(0) } ?? 0
    }

    /// Runs `body` and counts the result rows SQLite hands to every statement of this connection
    /// meanwhile (`SQLITE_TRACE_ROW`): how much a read reads, for tests.
    package func countingRows<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (value: T, rows: Int) {
        let counter = RowCounter()
        let context = Unmanaged.passUnretained(counter).toOpaque()
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_ROW),
            { _, context, _, _ in
                if let context { Unmanaged<RowCounter>.fromOpaque(context).takeUnretainedValue().rows += 1 }
                return 0
            }, context)
        defer {
            sqlite3_trace_v2(handle, 0, nil, nil)
            withExtendedLifetime(counter) {}
        }
        let value = try body()
        return (value, counter.rows)
    }

    /// Counts the pages each commit of this connection writes to the write-ahead log from now on
    /// (`sqlite3_wal_hook`, which takes the place of automatic checkpoints meanwhile), whatever
    /// empties the log in between, until `stopCountingWALPages`: for the benchmark.
    /// ([sqlite3_wal_hook](https://sqlite.org/c3ref/wal_hook.html))
    package func startCountingWALPages() {
        let counter = WALPageCounter()
        walPages = counter
        sqlite3_wal_hook(
            handle,
            { context, _, _, pages in
                // `pages`: the log's length after the commit; shorter than before, it started again.
                if let context {
                    let counter = Unmanaged<WALPageCounter>.fromOpaque(context).takeUnretainedValue()
                    counter.pages += Int(pages) >= counter.last ? Int(pages) - counter.last : Int(pages)
                    counter.last = Int(pages)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(counter).toOpaque())
    }

    /// The pages counted since `startCountingWALPages`; automatic checkpoints are back on
    /// (every 1,000 pages, SQLite's default).
    package func stopCountingWALPages() -> Int {
        sqlite3_wal_autocheckpoint(handle, 1000)
        defer { walPages = nil }
        return walPages?.pages ?? 0
    }

    /// Runs `body` and counts the virtual machine steps every prepared statement of this
    /// connection takes meanwhile (`SQLITE_STMTSTATUS_VM_STEP`): how much work a request does,
    /// rows it reads and skips included, for tests.
    package func countingSteps<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (value: T, steps: Int) {
        func takeSteps() -> Int {
            var total = 0
            var stmt = sqlite3_next_stmt(handle, nil)
            while let s = stmt {
                total += Int(sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1))
                stmt = sqlite3_next_stmt(handle, s)
            }
            return total
        }
        _ = takeSteps()
        let value = try body()
        return (value, takeSteps())
    }

    /// How many rows the last INSERT, UPDATE or DELETE changed (not counting triggers).
    package var changes: Int64 { Int64(sqlite3_changes(handle)) }

    /// The rowid of the last inserted row.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether SQLite opened the main database read-only (a read-only file system, say).
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Detaches the connection from the file names around it, for a database file that was
    /// deleted or replaced while open: copies the write-ahead log into the (old) database file
    /// and empties the log, so a log left at the path cannot be replayed over another database
    /// by a later start; and keeps SQLite from deleting the `-wal` file by name when it closes,
    /// since that name may now belong to the replacement.
    /// ([wal_checkpoint](https://sqlite.org/pragma.html#pragma_wal_checkpoint),
    /// [SQLITE_FCNTL_PERSIST_WAL](https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html))
    package func detachFromPath() {
        var persist: Int32 = 1
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        try? execute("PRAGMA journal_size_limit = 0; PRAGMA wal_checkpoint(TRUNCATE);")
    }

    /// Whether a transaction is open.
    package var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether the open transaction has written (`sqlite3_txn_state`).
    package var inWriteTransaction: Bool { sqlite3_txn_state(handle, nil) == SQLITE_TXN_WRITE }

    package func error(_ rc: Int32) -> TodoError {
        Connection.error(rc, String(cString: sqlite3_errmsg(handle)))
    }

    /// The storage error for result code `rc` with SQLite's `message`: the code kept, the
    /// failure said in words.
    package static func error(_ rc: Int32, _ message: String) -> TodoError {
        let code = SQLiteResultCode(rawValue: rc)
        let reason =
            switch code {
            case .full: "the disk is full (\(message))"
            case .notADatabase: "the file is not a database"
            case .corrupt: "the database file is corrupt (\(message))"
            case .readOnly: "the database is read-only (\(message))"
            case .ioError: "I/O error (\(message))"
            default: message
            }
        return TodoError(storage: code, reason: reason)
    }
}

/// The result codes todod decides on, named from SQLite's header.
/// ([Result and error codes](https://sqlite.org/rescode.html))
extension SQLiteResultCode {
    package static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    package static let readOnly = SQLiteResultCode(rawValue: SQLITE_READONLY)
    package static let ioError = SQLiteResultCode(rawValue: SQLITE_IOERR)
    package static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    package static let full = SQLiteResultCode(rawValue: SQLITE_FULL)
    package static let notADatabase = SQLiteResultCode(rawValue: SQLITE_NOTADB)
}

/// A prepared statement. Valid only while its connection is; used only on the database queue.
package final class Statement {
    private let handle: SQLiteStatementHandle
    private unowned let connection: Connection

    fileprivate init(_ handle: SQLiteStatementHandle, connection: Connection) {
        self.handle = handle
        self.connection = connection
    }

    fileprivate func finalize() { sqlite3_finalize(handle) }

    fileprivate func bind(_ value: Int64) throws(TodoError) {
        let rc = sqlite3_bind_int64(handle, 1, value)
        guard rc == SQLITE_OK else { throw connection.error(rc) }
    }

    fileprivate func bind(_ values: [SQLValue]) throws(TodoError) {
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .text(let s): rc = sqlite3_bind_text(handle, index, s, -1, todod_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw connection.error(rc) }
        }
    }

    /// Advances to the next row; false when the statement is done.
    package func step() throws(TodoError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let err = connection.error(rc)
            sqlite3_reset(handle)
            throw err
        }
    }

    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    package func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    package func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }
    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    package func instant(_ column: Int32) -> Instant { Instant(usec: int64(column)) }
    package func optionalInstant(_ column: Int32) -> Instant? { isNull(column) ? nil : instant(column) }

    package func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    package func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    /// The UTF-8 bytes of a text column (empty for NULL), valid only inside `body`: for reading
    /// pieces of a column without making the whole of it a String first.
    package func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let p = sqlite3_column_text(handle, column)
        return body(UnsafeBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(handle, column))))
    }
}

/// The count `Connection.startCountingWALPages` keeps: pages written, and the log's length after
/// the last commit.
private final class WALPageCounter {
    var pages = 0
    var last = 0
}

/// The count `Connection.countingRows` keeps.
private final class RowCounter {
    var rows = 0
}
