import CSystemd
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

// Following the journal as it grows (sd-journal: sd_journal_next, sd_journal_wait, cursors), for
// todod-notify. Like Journal.swift, this is where libsystemd's journal API is called.

/// Reads the entries of the local journal matching a set of `field=value` pairs, in order, from a
/// saved cursor on, and waits for new ones without polling (inotify, through sd-journal).
///
/// Not thread-safe: one thread owns it.
package final class JournalFollower {
    /// One entry: the wanted fields, when journald received it, and its cursor.
    package struct Entry: Sendable {
        package var fields: [String: String]
        /// Realtime timestamp of the entry, microseconds since the epoch.
        package var realtimeUsec: UInt64
        /// Where it is: `seek(after:)` with this resumes right after it.
        package var cursor: String

        package init(fields: [String: String], realtimeUsec: UInt64, cursor: String) {
            self.fields = fields
            self.realtimeUsec = realtimeUsec
            self.cursor = cursor
        }
    }

    private let journal: OpaquePointer
    private let fields: [String]
    /// Where reading resumes: after the entry a cursor names, or at a realtime instant (before
    /// the first matching entry was seen).
    private enum Position {
        case after(String)
        case at(realtimeUsec: UInt64)
    }
    private var position = Position.at(realtimeUsec: 0)
    /// Whether the reader stands right after `position` (false: seek before reading).
    private var positioned = false

    /// Opens the local journal (every file this user may read) with all `matches` required.
    package init(matching matches: [(String, String)], fields: [String]) throws(Journal.ReadError) {
        var journal: OpaquePointer?
        var rc = sd_journal_open(&journal, Int32(SD_JOURNAL_LOCAL_ONLY))
        guard rc >= 0, let journal else { throw Journal.ReadError(function: "sd_journal_open", errno: -rc) }
        self.journal = journal
        self.fields = fields
        for (field, value) in matches {
            let match = Array("\(field)=\(value)".utf8)
            rc = match.withUnsafeBytes { sd_journal_add_match(journal, $0.baseAddress, $0.count) }
            guard rc >= 0 else {
                sd_journal_close(journal)
                throw Journal.ReadError(function: "sd_journal_add_match", errno: -rc)
            }
        }
    }

    deinit { sd_journal_close(journal) }

    /// A position that is no entry's cursor: "realtime=USEC", the instant the follower started
    /// when no matching entry existed yet. `seek(after:)` takes it like a cursor.
    package static let realtimePrefix = "realtime="

    /// Positions the reader right after the entry `cursor` names (or at a `realtime=` position),
    /// so `next()` returns what came after it; with no cursor, after the newest matching entry, or
    /// at the present instant when there is none (only new ones follow).
    /// - Returns: the position to save: `cursor`, the newest matching entry's cursor, or a
    ///   `realtime=` position.
    @discardableResult
    package func seek(after cursor: String?) throws(Journal.ReadError) -> String {
        positioned = false
        if let cursor {
            if cursor.hasPrefix(Self.realtimePrefix), let usec = UInt64(cursor.dropFirst(Self.realtimePrefix.count)) {
                position = .at(realtimeUsec: usec)
            } else {
                position = .after(cursor)
            }
            return cursor
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let startUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        var rc = sd_journal_seek_tail(journal)
        guard rc >= 0 else { throw Journal.ReadError(function: "sd_journal_seek_tail", errno: -rc) }
        rc = sd_journal_previous(journal)
        guard rc >= 0 else { throw Journal.ReadError(function: "sd_journal_previous", errno: -rc) }
        if rc > 0, let newest = currentCursor() {
            position = .after(newest)
            return newest
        }
        position = .at(realtimeUsec: startUsec)
        return Self.realtimePrefix + String(startUsec)
    }

    /// Whether sd-journal can seek to `cursor` (a `realtime=` position with a number counts):
    /// false for text that is no cursor, so a damaged file is caught before reading.
    package func isValid(cursor: String) -> Bool {
        if cursor.hasPrefix(Self.realtimePrefix) { return UInt64(cursor.dropFirst(Self.realtimePrefix.count)) != nil }
        positioned = false
        return sd_journal_seek_cursor(journal, cursor) >= 0
    }

    /// Seeks to `position`. Done again after every time `next()` came to the end: sd-journal's
    /// position after the last match is not where the next appended match will be found, so
    /// each round of reading starts from the cursor of the last entry read.
    private func reposition() throws(Journal.ReadError) -> String? {
        switch position {
        case .after(let cursor):
            let rc = sd_journal_seek_cursor(journal, cursor)
            guard rc >= 0 else { throw Journal.ReadError(function: "sd_journal_seek_cursor", errno: -rc) }
            return cursor
        case .at(let usec):
            let rc = sd_journal_seek_realtime_usec(journal, usec)
            guard rc >= 0 else { throw Journal.ReadError(function: "sd_journal_seek_realtime_usec", errno: -rc) }
            return nil
        }
    }

    /// The next matching entry after the current position, or nil when there is none yet.
    package func next() throws(Journal.ReadError) -> Entry? {
        var skip: String?
        if !positioned {
            skip = try reposition()
            positioned = true
        }
        while true {
            let rc = sd_journal_next(journal)
            guard rc >= 0 else { throw Journal.ReadError(function: "sd_journal_next", errno: -rc) }
            if rc == 0 {
                positioned = false
                return nil
            }
            if let cursor = skip {
                skip = nil
                // The entry last read itself (still in the journal): already handled.
                if sd_journal_test_cursor(journal, cursor) > 0 { continue }
            }
            guard let cursor = currentCursor() else { continue }
            position = .after(cursor)
            var realtime: UInt64 = 0
            _ = sd_journal_get_realtime_usec(journal, &realtime)
            return Entry(fields: Journal.values(of: fields, at: journal), realtimeUsec: realtime, cursor: cursor)
        }
    }

    private func currentCursor() -> String? {
        var raw: UnsafeMutablePointer<CChar>?
        guard sd_journal_get_cursor(journal, &raw) >= 0, let raw else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }

    /// Blocks until the journal changed (new entries, new or rotated files) or `timeoutUsec`
    /// passed (nil: forever). ([sd_journal_wait](https://www.freedesktop.org/software/systemd/man/sd_journal_wait.html))
    package func wait(timeoutUsec: UInt64?) throws(Journal.ReadError) {
        let rc = sd_journal_wait(journal, timeoutUsec ?? UInt64.max)
        guard rc >= 0 else { throw Journal.ReadError(function: "sd_journal_wait", errno: -rc) }
    }

    /// The descriptor to poll, with `events`, when waiting for the journal and something else at
    /// once (what `sd_journal_wait` does inside); call `process()` after it woke.
    package var descriptor: Int32 { sd_journal_get_fd(journal) }
    package var events: Int16 {
        let rc = sd_journal_get_events(journal)
        return rc > 0 ? Int16(rc) : Int16(POLLIN)
    }
    /// Microseconds from now until sd-journal needs `process()` even without an event (it
    /// re-checks files on some file systems), or nil for never.
    package var timeoutUsec: UInt64? {
        var deadline: UInt64 = 0
        guard sd_journal_get_timeout(journal, &deadline) >= 0 else { return nil }
        return MonotonicClock.usecUntil(deadline)
    }

    /// Takes in what woke the descriptor (new entries, new files).
    package func process() throws(Journal.ReadError) {
        let rc = sd_journal_process(journal)
        guard rc >= 0 else { throw Journal.ReadError(function: "sd_journal_process", errno: -rc) }
    }
}
