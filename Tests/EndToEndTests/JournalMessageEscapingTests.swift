import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The journal MESSAGE is a sentence for people: its title is escaped like todoctl's output, while
/// TODO_TITLE keeps the data as stored.
@Suite(
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct JournalMessageEscapingTests {
    @Test func theMessageShowsBidiAndZeroWidthCharactersEscaped() throws {
        let d = try DaemonProcess()
        let tag = UInt32.random(in: 0...UInt32.max)
        let title = "\(tag) exe.\u{202E}gpj 牛乳\u{200B}を買う 👨‍👩‍👧"
        let due = Date().addingTimeInterval(1)
        let formatter = ISO8601DateFormatter()
        _ = try d.client().result("todo.add", ["title": .string(title), "due": .string(formatter.string(from: due))])
        let entry = try #require(try Journalctl.reminders(title: title, atLeast: 1).first)
        #expect(entry["TODO_TITLE"] == .string(title))
        let message = entry["MESSAGE"]?.stringValue ?? ""
        #expect(message.contains("“\(tag) exe.<U+202E>gpj 牛乳<U+200B>を買う 👨‍👩‍👧”"), "\(message)")
    }
}
