import Foundation
import TodoProtocol

/// Reads the real journal with `journalctl -o json`, for tests of what the daemon wrote.
package enum Journalctl {
    /// The MESSAGE_ID of todod's reminder entries.
    package static let reminderMessageID = "160974618077448c97edd5576474d5b8"

    /// Entries matching every `FIELD=value` in `matches`, oldest first.
    package static func entries(_ matches: [String]) throws -> [JSON] {
        let result = try ChildProcess.run("journalctl", ["--no-pager", "-o", "json"] + matches)
        return result.stdout.split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
    }

    /// Reminder entries for todos titled `title`, waiting up to `timeout` seconds until at least
    /// `count` are there (journald writes asynchronously), then a little longer for extras.
    package static func reminders(title: String, atLeast count: Int, timeout: Double = 15) throws -> [JSON] {
        let deadline = Date().addingTimeInterval(timeout)
        var found: [JSON] = []
        repeat {
            found = try entries(["MESSAGE_ID=\(reminderMessageID)", "TODO_TITLE=\(title)"])
            if found.count >= count { break }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return found
    }
}
