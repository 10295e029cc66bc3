import TodoCore
import TodoSQLite

/// For the benchmark, not the product: the pages (WAL frames) writes cost, a measure that
/// repeats exactly where timings on a shared machine do not.
extension TodoStore {
    /// Runs `body` (which writes through this store) and returns the number of pages its commits
    /// wrote to the write-ahead log, counted at each commit (the log is emptied meanwhile when it
    /// outgrows `DiskRoom.walLimit`, so its length at the end says nothing). Must not be called
    /// on the store queue.
    package func walFrames(of body: () throws -> Void) throws -> Int {
        try database.sync { (connection) throws(TodoError) in connection.startCountingWALPages() }
        try body()
        return try database.sync { (connection) throws(TodoError) -> Int in connection.stopCountingWALPages() }
    }
}
