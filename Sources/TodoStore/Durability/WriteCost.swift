import TodoCore
import TodoSQLite

/// For the benchmark, not the product: the pages (WAL frames) writes cost, a measure that
/// repeats exactly where timings on a shared machine do not.
extension TodoStore {
    /// Runs `body` (which writes through this store) starting from an empty write-ahead log with
    /// automatic checkpoints off, and returns the number of pages its commits wrote to the log.
    /// Automatic checkpoints are back on afterwards. Must not be called on the store queue.
    package func walFrames(of body: () throws -> Void) throws -> Int {
        try database.sync { (connection) throws(TodoError) in
            try connection.execute("PRAGMA wal_autocheckpoint = 0; PRAGMA wal_checkpoint(TRUNCATE);")
        }
        try body()
        return try database.sync { (connection) throws(TodoError) -> Int in
            // (busy, pages in the log, pages checkpointed): the log holds exactly what `body` wrote.
            let frames = try connection.firstRow("PRAGMA wal_checkpoint(PASSIVE)") { $0.int(1) } ?? 0
            try connection.execute("PRAGMA wal_autocheckpoint = 1000")
            return frames
        }
    }
}
