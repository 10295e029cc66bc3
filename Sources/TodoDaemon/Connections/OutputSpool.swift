import Synchronization
import TodoPosix

/// Where the rest of a long streamed answer waits while its reader is behind: an unnamed file
/// in the store's directory (`Files.openUnnamedFile`), appended to at its end and read from its
/// start as the peer drains the connection. A `todo.list` is read in one go (a state of the
/// store, not pieces of several), so a reader slower than the store can only be kept up with
/// by holding what it has not read yet; past `ClientConnection.streamLimit` in memory, that
/// goes here. The file is gone once it is all sent, or with the connection. A `watch` replay
/// is written into one on the store queue (`ReplayOutput`) and handed over with its reply:
/// used on one queue at a time.
final class OutputSpool {
    private let fd: Int32
    private let budget: SpoolBudget
    private var end = 0
    private var start = 0

    /// Bytes written and not read back yet.
    var pending: Int { end - start }
    /// Why the last `append` failed, when the file could not be written (a full disk): the
    /// reader is cut off for that, not for falling behind.
    private(set) var problem: String?

    /// A new, empty spool in `budget`'s directory; throws when the file cannot be made.
    init(budget: SpoolBudget) throws(PosixError) {
        fd = try Files.openUnnamedFile(in: budget.directory)
        self.budget = budget
    }

    /// Adds `bytes` at the end; false when the budget has no room for them or the write failed
    /// (then `problem` says why).
    func append(_ bytes: [UInt8]) -> Bool {
        guard budget.reserve(bytes.count) else { return false }
        do { try Files.write(fd, bytes, at: end) } catch {
            budget.release(bytes.count)
            problem = OutputSpool.describe(error, budget.directory)
            return false
        }
        end += bytes.count
        return true
    }

    /// Up to `count` of the oldest bytes not read yet (none when the read fails: the caller then
    /// finds `pending` unchanged and closes the connection).
    func take(upTo count: Int) -> [UInt8] {
        let bytes = (try? Files.read(fd, count: min(count, pending), at: start)) ?? []
        start += bytes.count
        return bytes
    }

    /// A spool file that cannot be made or written, in words (`cannot spool the rest of its
    /// answers in /var/lib/todod: No space left on device`).
    static func describe(_ error: PosixError, _ directory: String) -> String {
        "cannot spool the rest of its answers in \(directory): \(error.reason)"
    }

    deinit {
        budget.release(end)
        Posix.close(fd)
    }
}

/// The room every connection's `OutputSpool` shares, in bytes of disk: a reader that falls
/// further behind than this, all spools together, is cut off as one that stops reading is.
/// Taken from the I/O queue (streams) and the store queue (replays): behind a lock.
final class SpoolBudget: Sendable {
    /// The directory the spools are made in (the store's).
    let directory: String
    let limit: Int
    private let used = Mutex(0)

    init(directory: String, limit: Int = SpoolBudget.defaultLimit) {
        self.directory = directory
        self.limit = limit
    }

    /// 1 GiB: about 400,000 todos with 2 KB of notes each, unread.
    static let defaultLimit = 1 << 30

    /// Takes `bytes` of the room; false (taking nothing) when that would pass the limit.
    func reserve(_ bytes: Int) -> Bool {
        used.withLock { used in
            guard used + bytes <= limit else { return false }
            used += bytes
            return true
        }
    }

    func release(_ bytes: Int) { used.withLock { $0 -= bytes } }
}
