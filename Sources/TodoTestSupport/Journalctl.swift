import Foundation
import TodoProtocol

/// Reads the real journal with `journalctl -o json`, for tests of what the daemon wrote.
package enum Journalctl {
    /// The MESSAGE_ID of todod's reminder entries.
    package static let reminderMessageID = "160974618077448c97edd5576474d5b8"

    /// Entries matching every `FIELD=value` in `matches` that journald received at or after
    /// `start`: a pid is reused, and the journal keeps what an earlier process of that pid wrote.
    package static func entries(_ matches: [String], since start: Date) throws -> [JSON] {
        let usec = UInt64(start.timeIntervalSince1970 * 1_000_000)
        return try entries(matches).filter { UInt64($0["__REALTIME_TIMESTAMP"]?.stringValue ?? "") ?? 0 >= usec }
    }

    /// Entries matching every `FIELD=value` in `matches`, oldest first; with `cursor`, only
    /// those after the entry it names (what a follower that saved that cursor has still to read).
    package static func entries(_ matches: [String], after cursor: String? = nil) throws -> [JSON] {
        let position = cursor.map { ["--after-cursor=" + $0] } ?? []
        let result = try ChildProcess.run("journalctl", ["--no-pager", "-o", "json"] + position + matches)
        return result.stdout.split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
    }

    /// Reminder entries for todos titled `title`, waiting up to `timeout` seconds until at least
    /// `count` are there (journald writes asynchronously), then a little longer for extras.
    package static func reminders(title: String, atLeast count: Int, timeout: Double = 15) throws -> [JSON] {
        var found: [JSON] = []
        _ = try eventually(timeout: timeout, every: 0.05) {
            found = try entries(["MESSAGE_ID=\(reminderMessageID)", "TODO_TITLE=\(title)"])
            return found.count >= count
        }
        return found
    }
}
