import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Two stores of one user, and a forged entry: `reminder.list` shows only this store's own.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct ReminderStoreTests {
    @Test func remindersOfOtherStoresAndForgedEntriesDoNotMixIn() throws {
        let a = try DaemonProcess()
        let b = try DaemonProcess()
        let storeA = try #require(try a.client().result("daemon.status")["storeId"]?.stringValue)
        let storeB = try #require(try b.client().result("daemon.status")["storeId"]?.stringValue)
        #expect(storeA != storeB && storeA.count == 36 && storeA == storeA.lowercased())
        let status = try a.todoctl(["status"])
        #expect(status.stdout.contains(storeA))
        let title = unique("store")
        let todoA = try a.client().result("todo.add", ["title": .string(title + " A"), "due": .string(instant(in: 0))])
        _ = try b.client().result("todo.add", ["title": .string(title + " B"), "due": .string(instant(in: 0))])
        let uidA = try #require(todoA["uid"]?.stringValue)
        let entries = try Journalctl.reminders(title: title + " A", atLeast: 1)
        #expect(entries.first?["TODO_UID"] == .string(uidA))
        #expect(entries.first?["TODO_STORE"] == .string(storeA))
        #expect(try Journalctl.reminders(title: title + " B", atLeast: 1).first?["TODO_STORE"] == .string(storeB))
        // Another program of the same user forges an entry with every field of A's.
        let scratch = TemporaryDirectory("forge")
        let forged = scratch.file("forged")
        try """
        MESSAGE=Todo 1 “\(title) forged” is due
        MESSAGE_ID=\(Journalctl.reminderMessageID)
        SYSLOG_IDENTIFIER=todod
        TODO_ID=1
        TODO_UID=\(uidA)
        TODO_STORE=\(storeA)
        TODO_TITLE=\(title) forged

        """.write(toFile: forged, atomically: true, encoding: .utf8)
        let logger = try ChildProcess.run("/usr/bin/logger", ["--journald=\(forged)"])
        #expect(logger.status == 0, "\(logger.stderr)")
        #expect(try Journalctl.reminders(title: title + " forged", atLeast: 1).count == 1)

        let listed = try a.todoctl(["--json", "reminders", "--limit", "10000"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try JSON.parse(listed.stdout).arrayValue ?? []
        #expect(rows.allSatisfy { $0["uid"]?.stringValue?.count == 36 })
        let mine = rows.compactMap { $0["title"]?.stringValue }.filter { $0.hasPrefix(title) }
        #expect(mine == [title + " A"])
        #expect(rows.first { $0["title"] == .string(title + " A") }?["uid"] == .string(uidA))
    }
}
