import CSystemd
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

// The only file that calls libsystemd's journal API (sd-journal(3)).

/// Writing structured entries to the systemd journal and reading them back.
package enum Journal {
    /// The socket journald listens on for native-protocol entries.
    package static let socketPath = "/run/systemd/journal/socket"

    /// Whether a journald is there to write to (not just a socket file a dead one left behind).
    package static var isAvailable: Bool { UnixDatagram.hasReceiver(path: socketPath) }

    /// Sends one entry. Field names must be uppercase letters, digits and `_`, not starting with
    /// `_` or a digit: journald silently drops any other field.
    /// ([sd_journal_sendv](https://www.freedesktop.org/software/systemd/man/sd_journal_sendv.html))
    ///
    /// libsystemd reports success when there is no socket at all ("fail silently if the journal
    /// is not available"), so that case is checked first: an entry is never reported sent unless
    /// a journald was listening.
    /// - Returns: nil on success, else the errno journald reported (ECONNREFUSED when none listens).
    package static func send(_ fields: [(name: String, value: String)]) -> Int32? {
        guard isAvailable else { return ECONNREFUSED }
        // All fields in one buffer, each `NAME=value` pointed at by its own iovec.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 1 })
        var spans: [(start: Int, count: Int)] = []
        spans.reserveCapacity(fields.count)
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.name.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: field.value.utf8)
            spans.append((start, buffer.count - start))
        }
        let rc = buffer.withUnsafeMutableBytes { raw in
            let vectors = spans.map { iovec(iov_base: raw.baseAddress! + $0.start, iov_len: $0.count) }
            return sd_journal_sendv(vectors, Int32(vectors.count))
        }
        return rc < 0 ? -rc : nil
    }

    /// A failure to read the journal, with the errno libsystemd returned.
    package struct ReadError: Error, Sendable, CustomStringConvertible {
        package let function: String
        package let errno: Int32
        package var description: String { "\(function): \(String(cString: strerror(errno)))" }
    }

    /// One entry read back: its fields and when it was written.
    package struct Entry: Sendable {
        package var fields: [String: String]
        /// Realtime timestamp of the entry, microseconds since the epoch.
        package var realtimeUsec: UInt64
    }

    /// The newest `limit` entries of the local journal matching every `field=value` of
    /// `matches` (and written at or after `since`, microseconds since the epoch), oldest first,
    /// keeping only `fields`. Like `journalctl -n`.
    package static func read(
        matching matches: [(String, String)], since: UInt64?, limit: Int,
        fields: [String]
    ) throws(ReadError) -> [Entry] {
        var journal: OpaquePointer?
        var rc = sd_journal_open(&journal, Int32(SD_JOURNAL_LOCAL_ONLY))
        guard rc >= 0, let journal else { throw ReadError(function: "sd_journal_open", errno: -rc) }
        defer { sd_journal_close(journal) }
        for (field, value) in matches {
            let match = Array("\(field)=\(value)".utf8)
            rc = match.withUnsafeBytes { sd_journal_add_match(journal, $0.baseAddress, $0.count) }
            guard rc >= 0 else { throw ReadError(function: "sd_journal_add_match", errno: -rc) }
        }
        rc = sd_journal_seek_tail(journal)
        guard rc >= 0 else { throw ReadError(function: "sd_journal_seek_tail", errno: -rc) }
        var entries: [Entry] = []
        while entries.count < limit {
            rc = sd_journal_previous(journal)
            guard rc >= 0 else { throw ReadError(function: "sd_journal_previous", errno: -rc) }
            if rc == 0 { break }
            var realtime: UInt64 = 0
            _ = sd_journal_get_realtime_usec(journal, &realtime)
            if let since, realtime < since { break }
            entries.append(Entry(fields: Journal.values(of: fields, at: journal), realtimeUsec: realtime))
        }
        return entries.reversed()
    }
}

extension Journal {
    /// The values of `fields` in the entry `journal` stands at (fields it lacks are left out).
    static func values(of fields: [String], at journal: OpaquePointer) -> [String: String] {
        var values: [String: String] = [:]
        for field in fields {
            var data: UnsafeRawPointer?
            var length = 0
            if sd_journal_get_data(journal, field, &data, &length) >= 0, let data {
                let text = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
                if let eq = text.firstIndex(of: "=") { values[field] = String(text[text.index(after: eq)...]) }
            }
        }
        return values
    }
}
