import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Reminders against the real systemd-journald that `scripts/test` starts when none runs.
// Serialized: `todoctl reminders` reads the newest entries of a journal the 1,000-reminder burst
// would otherwise flood while another test of the suite runs.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct ReminderJournalTests {
    @Test func aDueTodoProducesExactlyOneEntryWithEveryField() throws {
        let dir = TemporaryDirectory("rem")
        var daemon: DaemonProcess? = try DaemonProcess(directory: dir)
        let title = unique("milk")
        let due = rfc3339(in: 2)
        let todo = try daemon!.client().result(
            "todo.add", ["title": .string(title), "category": "買い物", "due": .string(due)])
        let entries = try Journalctl.reminders(title: title, atLeast: 1)
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["MESSAGE_ID"] == .string(Journalctl.reminderMessageID))
        #expect(entry["PRIORITY"] == "5")
        #expect(entry["SYSLOG_IDENTIFIER"] == "todod")
        #expect(entry["TODO_ID"] == .string(String(todo["id"]?.intValue ?? 0)))
        #expect(entry["TODO_TITLE"] == .string(title))
        #expect(entry["TODO_CATEGORY"] == "買い物")
        #expect(entry["TODO_DUE"] == .string(due))
        #expect(entry["MESSAGE"]?.stringValue?.contains(title) == true)
        let dueUsec = Int64(entry["TODO_DUE_USEC"]?.stringValue ?? "") ?? 0
        #expect(dueUsec > 0 && entry["TODO_REMIND_USEC"] == .string(String(dueUsec)))
        let late = Int64(entry["TODO_LATE_USEC"]?.stringValue ?? "") ?? -1
        #expect(late >= 0 && late < 2_000_000)
        #expect(entry["_PID"] == .string(String(daemon!.pid)))
        // Recorded: not again after a restart.
        #expect(daemon!.stop() == 0)
        daemon = try DaemonProcess(directory: dir)
        let reminded = try daemon!.client().result("todo.get", ["id": todo["id"] ?? 0])["reminded"]
        #expect(reminded != .null)
        // A todo due now, added after the restart, fires after anything the restarted daemon
        // would fire again; its entry is the event, then a short margin for journald.
        let sentinel = title + " after restart"
        _ = try daemon!.client().result("todo.add", ["title": .string(sentinel), "due": .string(rfc3339(in: 0))])
        #expect(try Journalctl.reminders(title: sentinel, atLeast: 1).count == 1)
        #expect(try Journalctl.reminders(title: title, atLeast: 2, timeout: 0.2).count == 1)
    }

    /// The message's local time is in the zone the daemon's `TZ` names (here a POSIX rule).
    @Test func theMessageUsesTheZoneTZNames() throws {
        let daemon = try DaemonProcess(environment: ["TZ": "<+0530>-5:30"])
        let title = unique("zone")
        _ = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        let message = try Journalctl.reminders(title: title, atLeast: 1).first?["MESSAGE"]?.stringValue ?? ""
        #expect(message.hasSuffix(" +05:30."), "\(message)")
    }

    @Test func aReminderMissedWhileStoppedFiresAfterStartWithItsLateness() throws {
        let dir = TemporaryDirectory("missed")
        let daemon = try DaemonProcess(directory: dir)
        let title = unique("missed")
        let due = rfc3339(in: 2) // whole seconds, rounded down: at least a second to stop in
        _ = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(due)])
        _ = try daemon.client().result("todo.add", ["title": .string(title + " done"), "due": .string(due)])
        _ = try daemon.client().result("todo.complete", ["ids": [2]])
        #expect(daemon.stop() == 0)
        // Stopped, it fires nothing; started again two seconds after the due time, the reminder
        // is at least that late.
        #expect(try Journalctl.reminders(title: title, atLeast: 1, timeout: 0).isEmpty)
        let dueDate = try #require(ISO8601DateFormatter().date(from: due))
        let lateEnough = dueDate.addingTimeInterval(2)
        waitUntilPast(lateEnough) // the lateness is what is tested: time passes while no daemon runs
        let again = try DaemonProcess(directory: dir)
        let entries = try Journalctl.reminders(title: title, atLeast: 1)
        #expect(entries.count == 1)
        let late = Int64(entries.first?["TODO_LATE_USEC"]?.stringValue ?? "") ?? 0
        #expect(Double(late) / 1e6 >= Date().timeIntervalSince(dueDate) - 1.5)
        #expect(late >= 2_000_000)
        // The completed one never fires.
        #expect(try Journalctl.reminders(title: title + " done", atLeast: 1, timeout: 1).isEmpty)
        _ = again
    }

    @Test func aThousandDueInTheSameSecondFireExactlyOnceEach() throws {
        let daemon = try DaemonProcess()
        let title = unique("batch")
        let due = rfc3339(in: 3)
        let client = try daemon.client()
        var batch: [UInt8] = []
        for i in 0..<1000 {
            RPCRequest(id: .int(Int64(i)), method: "todo.add", params: ["title": .string(title), "due": .string(due)])
                .json.write(to: &batch)
            batch.append(0x0A)
        }
        try client.send(batch)
        for _ in 0..<1000 { #expect(try client.receive()["result"] != nil) }
        let entries = try Journalctl.reminders(title: title, atLeast: 1000, timeout: 30)
        // A todo due now, added once all have fired, fires after anything due before it (a
        // second firing of the batch included); its entry is the event, then a short margin.
        let sentinel = title + " after"
        _ = try client.result("todo.add", ["title": .string(sentinel), "due": .string(rfc3339(in: 0))])
        #expect(try Journalctl.reminders(title: sentinel, atLeast: 1).count == 1)
        let all = try Journalctl.reminders(title: title, atLeast: 1001, timeout: 0.2)
        #expect(entries.count == 1000)
        #expect(all.count == 1000)
        #expect(Set(all.compactMap { $0["TODO_ID"]?.stringValue }).count == 1000)
    }

    @Test func snoozeFiresAgainAndRemindersAndWatchShowIt() throws {
        let daemon = try DaemonProcess()
        let watcher = try daemon.client()
        _ = try watcher.result("watch", ["events": ["reminder"]])
        let title = unique("snooze")
        let todo = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        let id = todo["id"] ?? 0
        let first = try watcher.receive()
        #expect(first["params"]?["type"] == "reminder")
        #expect(first["params"]?["todo"]?["id"] == id)
        let snoozed = try daemon.client().result("todo.snooze", ["id": id, "until": .string(rfc3339(in: 1))])
        #expect(snoozed["reminded"] == .null)
        let second = try watcher.receive()
        #expect(second["params"]?["todo"]?["id"] == id)
        #expect(try Journalctl.reminders(title: title, atLeast: 2).count == 2)

        let listed = try daemon.todoctl(["--json", "reminders", "--limit", "1000"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let mine = try JSON.parse(listed.stdout).arrayValue?.filter { $0["title"] == .string(title) } ?? []
        #expect(mine.count == 2)
        #expect(
            mine.allSatisfy { $0["id"] == id && $0["lateUsec"]?.intValue != nil && $0["fired"]?.stringValue != nil })
        let human = try daemon.todoctl(["reminders", "--limit", "1000"])
        #expect(human.status == 0 && human.stdout.contains(title))
    }
}
