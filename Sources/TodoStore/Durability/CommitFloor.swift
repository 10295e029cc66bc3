import TodoCore
import TodoPosix
import TodoSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The floor for durable single writes: plain SQLite, one row per transaction, one fsync per
/// commit, nothing of todod's schema or logic. `todobench` sets todod's durable add rate beside it.
///
/// It opens its own connection through `Connection`, so it pays the same SQLite build and the
/// same statement cache as the store, with `journal_mode=WAL` and `synchronous=FULL` as the store
/// uses. ([WAL](https://sqlite.org/wal.html), [synchronous](https://sqlite.org/pragma.html#pragma_synchronous))
/// For the benchmark, not the product: `@_spi(Benchmark) import TodoStore`.
@_spi(Benchmark) public enum CommitFloor {
    /// Rows per second when each of `rows` inserts is its own `BEGIN IMMEDIATE; INSERT; COMMIT`.
    ///
    /// - Parameters:
    ///   - path: a database file to create (an existing one is reused; its table `t` is emptied).
    ///   - rows: how many single-row transactions to time, after one untimed warm-up commit.
    /// - Throws: `TodoError.storage` when SQLite fails.
    package static func rowsPerSecond(path: String, rows: Int) throws(TodoError) -> Double {
        let connection = try Connection(path: path)
        let mode = try connection.firstRow("PRAGMA journal_mode = WAL") { $0.text(0) }
        guard mode?.lowercased() == "wal" else {
            throw TodoError.storage("the commit floor could not enable WAL (got \(mode ?? "nothing"))")
        }
        try connection.execute("PRAGMA synchronous = FULL")
        try connection.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, title TEXT); DELETE FROM t;")
        let insert = "INSERT INTO t(title) VALUES (?)"
        func commitOne(_ i: Int) throws(TodoError) {
            try connection.transaction { () throws(TodoError) in
                try connection.run(insert, [.text("floor row \(i) 牛乳を買う")])
            }
        }
        try commitOne(-1) // warm-up: prepares the statement and grows the WAL once
        let start = Posix.monotonicSeconds()
        for i in 0..<rows { try commitOne(i) }
        let elapsed = Posix.monotonicSeconds() - start
        return Double(rows) / elapsed
    }
}
