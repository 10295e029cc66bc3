import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A resume after sleep, as logind tells it: a private dbus-daemon stands for the system bus
/// (todod finds it through DBUS_SYSTEM_BUS_ADDRESS) and scripts/lib/login1-stand-in.py owns
/// org.freedesktop.login1 and emits `PrepareForSleep`. The machine itself never sleeps: between
/// "about to sleep" and "resumed" todod holds what falls due, as it would find it on a real resume.
@Suite(
    .serialized,
    .enabled(
        if: NotifyTestSupport.available && UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs dbus-daemon, the test venv with jeepney and a running systemd-journald (scripts/test)"))
struct ResumeEndToEndTests {
    static let summaryMessageID = "9690f3cda4cc46cdbca9484dd4f2ae91"

    final class Login1: @unchecked Sendable {
        let bus: SessionBus
        let standIn: BackgroundProcess
        init(_ dir: TemporaryDirectory) throws {
            bus = try SessionBus(socket: dir.file("system_bus"), directory: dir)
            let ready = dir.file("login1.ready")
            standIn = try BackgroundProcess.started(
                NotifyTestSupport.python, [NotifyTestSupport.repository + "/scripts/lib/login1-stand-in.py", ready],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], output: dir.file("login1"))
            #expect(
                NotifyTestSupport.eventually(timeout: 20) { FileManager.default.fileExists(atPath: ready) },
                "\(standIn.stderr)")
        }

        /// Emits PrepareForSleep(`start`); returns once it left.
        func prepareForSleep(_ start: Bool) throws {
            let result = try ChildProcess.run(
                "/usr/bin/dbus-send",
                [
                    "--bus=" + bus.address, "--print-reply", "--dest=org.freedesktop.login1", "/org/freedesktop/login1",
                    "org.todod.Test.Sleep", "boolean:\(start)"
                ])
            #expect(result.status == 0, "\(result.stderr)")
        }
    }

    /// todod on that bus, its standard error read as it comes.
    static func daemon(_ dir: TemporaryDirectory, _ login1: Login1) throws -> LaunchedDaemon {
        let socket = dir.file("todod.sock")
        let daemon = try LaunchedDaemon(
            "/usr/bin/env",
            [
                "DBUS_SYSTEM_BUS_ADDRESS=" + login1.bus.address, BuiltProducts.path("todod"), "--socket", socket,
                "--db", dir.file("todos.db")
            ], socket: socket)
        #expect(
            eventually(timeout: 10) { daemon.stderr.contains("listening for logind's PrepareForSleep") },
            "\(daemon.stderr)")
        return daemon
    }

    /// Twelve reminders fall due while "asleep": nothing fires until the resume, then one summary
    /// entry and one summary event; each todo is recorded as reminded, and fires never again.
    @Test func manyDueWhileAsleepBecomeOneSummary() throws {
        let dir = TemporaryDirectory("resume")
        let login1 = try Login1(dir)
        // Entries since now: a pid is reused, the journal keeps older ones.
        let start = Date()
        let daemon = try Self.daemon(dir, login1)
        let watcher = try daemon.client()
        _ = try watcher.result("watch", ["events": ["reminder"]])
        try login1.prepareForSleep(true)
        #expect(eventually(timeout: 5) { daemon.stderr.contains("about to sleep") })
        let title = unique("asleep 寝")
        let client = try daemon.client()
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.up))
        for i in 1...12 {
            _ = try client.result("todo.add", ["title": .string("\(title) \(i)"), "due": .string(instant(in: 1))])
        }
        // Held while asleep: nothing in the journal once their instant is well past.
        _ = eventually(timeout: 5) { Date() > due.addingTimeInterval(1) }
        #expect(
            try Journalctl.entries(["MESSAGE_ID=\(Journalctl.reminderMessageID)", "_PID=\(daemon.pid)"], since: start)
                .isEmpty)
        try login1.prepareForSleep(false)
        var summaries: [JSON] = []
        #expect(
            eventually(timeout: 10) {
                summaries =
                    (try? Journalctl.entries(
                        ["MESSAGE_ID=\(Self.summaryMessageID)", "_PID=\(daemon.pid)"], since: start)) ?? []
                return !summaries.isEmpty
            })
        let entry = try #require(summaries.first)
        #expect(entry["TODO_COUNT"] == "12")
        #expect(entry["MESSAGE"]?.stringValue?.hasPrefix("12 reminders while suspended") == true)
        #expect(entry["TODO_IDS"]?.stringValue?.split(separator: " ").count == 12)
        let event = try watcher.receive()
        #expect(event["params"]?["type"] == "reminder")
        #expect(event["params"]?["summary"] == "12 reminders while suspended")
        #expect(event["params"]?["count"] == 12)
        if case .array(let todos)? = event["params"]?["todos"] {
            #expect(todos.count == 12)
        } else {
            Issue.record("no todos")
        }
        // Recorded: none pending, none fired one by one.
        let status = try client.result("daemon.status")
        #expect(status["nextReminder"] == .null || status["nextReminder"] == nil)
        #expect(
            try Journalctl.entries(["MESSAGE_ID=\(Journalctl.reminderMessageID)", "_PID=\(daemon.pid)"], since: start)
                .isEmpty)
        #expect(
            try Journalctl.entries(["MESSAGE_ID=\(Self.summaryMessageID)", "_PID=\(daemon.pid)"], since: start).count
                == 1)
    }

    /// Two due while asleep: each fires as itself on the resume.
    @Test func fewDueWhileAsleepFireEachOnce() throws {
        let dir = TemporaryDirectory("resume2")
        let login1 = try Login1(dir)
        // Entries since now: a pid is reused, the journal keeps older ones.
        let start = Date()
        let daemon = try Self.daemon(dir, login1)
        try login1.prepareForSleep(true)
        #expect(eventually(timeout: 5) { daemon.stderr.contains("about to sleep") })
        let title = unique("few")
        let client = try daemon.client()
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.up))
        for i in 1...2 {
            _ = try client.result("todo.add", ["title": .string("\(title) \(i)"), "due": .string(instant(in: 1))])
        }
        _ = eventually(timeout: 5) { Date() > due.addingTimeInterval(0.5) }
        try login1.prepareForSleep(false)
        #expect(try Journalctl.reminders(title: "\(title) 1", atLeast: 1).count == 1)
        #expect(try Journalctl.reminders(title: "\(title) 2", atLeast: 1).count == 1)
        #expect(
            try Journalctl.entries(["MESSAGE_ID=\(Self.summaryMessageID)", "_PID=\(daemon.pid)"], since: start).isEmpty)
    }

    /// todod-notify shows todod's summary as one desktop notification, and prints each todo.
    @Test func theNotifierShowsTheSummaryOnce() throws {
        let dir = TemporaryDirectory("resume3")
        let login1 = try Login1(dir)
        let session = try SessionBus(socket: dir.file("session_bus"), directory: dir)
        let server = try NotificationServer(bus: session, directory: dir)
        let daemon = try Self.daemon(dir, login1)
        let notifier = try NotifierProcess(
            socket: daemon.socket, arguments: ["--notify", "--print"], state: dir.file("state"), bus: session.address,
            output: dir.file("notify"))
        try login1.prepareForSleep(true)
        #expect(eventually(timeout: 5) { daemon.stderr.contains("about to sleep") })
        let title = unique("away")
        let client = try daemon.client()
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.up))
        for i in 1...5 {
            _ = try client.result("todo.add", ["title": .string("\(title) \(i)"), "due": .string(instant(in: 1))])
        }
        _ = eventually(timeout: 5) { Date() > due.addingTimeInterval(0.5) }
        try login1.prepareForSleep(false)
        let shown = server.notifications(summary: "5 reminders while suspended", atLeast: 1)
        #expect(shown.count == 1)
        #expect(shown.first?["body"]?.stringValue?.contains("\(title) 1") == true)
        for i in 1...5 { #expect(notifier.printed(title: "\(title) \(i)", atLeast: 1).count == 1) }
        let single = server.notifications.filter { $0["summary"]?.stringValue?.hasPrefix(title) == true }
        #expect(single.count == 0)
    }
}
