import TodoCore
import TodoPosix
import TodoSQLite

/// Room on disk for large writes. A transaction's new pages go into the WAL first and into the
/// database file at the checkpoint after it, so for a while they take their room twice: an
/// import that fit in the WAL but not in the file used to be acknowledged, then every later
/// write failed for want of room the stuck WAL held ("the disk is full", even after a restart).
/// So a transaction that grows the store by `checkedGrowth` or more is refused before its
/// commit when the file system has not room for it twice over (plus `reserve`); and after a
/// write (committed or rolled back) that left the WAL past `walLimit`, the WAL goes into the
/// file and is cut back to nothing, instead of keeping its size until the daemon stops.
enum DiskRoom {
    /// Growth below which a transaction is not checked: a small write that does not fit fails
    /// in SQLite itself, before its commit is acknowledged.
    static let checkedGrowth: Int64 = 1 << 20
    /// Room left free for the writes that follow.
    static let reserve: Int64 = 1 << 20
    /// A WAL past this after a commit is emptied into the file and truncated; the WAL SQLite
    /// starts again after a checkpoint is cut back to it (`journal_size_limit`).
    static let walLimit: Int64 = 4 << 20

    /// Throws `.storage` naming what is missing when the open write transaction on `connection`
    /// grows the database at `path` by `checkedGrowth` or more and its file system has not room
    /// for that growth twice plus `reserve`. Nothing was written to the file yet: the caller's
    /// rollback leaves the store as it was.
    static func checkBeforeCommit(_ connection: Connection, path: String) throws(TodoError) {
        let pages = try connection.scalar("PRAGMA page_count")
        let pageSize = try connection.scalar("PRAGMA page_size")
        guard let file = try? Files.identity(path) else { return }
        let growth = pages * pageSize - file.size
        guard growth >= checkedGrowth, let available = try? Files.availableBytes(Files.directory(of: path)) else {
            return
        }
        // What the WAL already holds of this transaction took its room already.
        let spilled = min((try? Files.identity(path + "-wal"))?.size ?? 0, growth)
        let needed = 2 * growth + reserve
        guard needed > available + spilled else { return }
        throw TodoError.storage(
            "storage failure: the disk is full: this change needs about \(megabytes(needed)) free beside "
                + "\(path) (its data goes into the write-ahead log, then into the file), and \(megabytes(available + spilled)) are; "
                + "nothing of it was written")
    }

    /// After a write transaction, committed or rolled back: a WAL past `walLimit` goes into the
    /// database file and is truncated (a checkpoint that cannot finish, for want of room, leaves
    /// it for a later one).
    static func trimAfterWrite(_ connection: Connection, path: String) {
        guard let wal = try? Files.identity(path + "-wal"), wal.size > walLimit else { return }
        try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// `bytes` in whole megabytes, rounded up (`58 MB`).
    static func megabytes(_ bytes: Int64) -> String {
        "\((max(bytes, 0) + 999_999) / 1_000_000) MB"
    }
}
