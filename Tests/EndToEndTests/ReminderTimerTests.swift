import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Descriptors and odd instants, against the real journald.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct ReminderTimerTests {
    /// Reminders at or before 1970 — a typo of the year through todoctl, `@0`, 1969, year 1, and
    /// through `import` — fire at once, once each, and hold no later reminder up, restart or not.
    @Test func remindersBeforeTheEpochFireAndHoldNothingUp() throws {
        let dir = TemporaryDirectory("epoch")
        var daemon = try DaemonProcess(directory: dir, environment: ["TZ": "UTC"])
        let title = unique("past")
        for (suffix, due) in [
            ("christmas", "0026-12-24 18:00"), ("at0", "@0"), ("1969", "1969-12-31"), ("year1", "0001-01-01")
        ] {
            let added = try daemon.todoctl(["add", "\(title) \(suffix)", "--due", due], environment: ["TZ": "UTC"])
            #expect(added.status == 0, "\(suffix): \(added.stderr)")
        }
        let now = ISO8601DateFormatter().string(from: Date())
        let document: JSON = .object([
            "format": "todod-export", "version": 1, "categories": .array([]),
            "todos": .array([
                .object([
                    "title": .string("\(title) imported"), "due": "1900-01-01T00:00:00Z",
                    "remind": "1900-01-01T00:00:00Z", "created": .string(now)
                ])
            ])
        ])
        _ = try daemon.client().result("store.import", document.objectValue ?? JSONObject())
        let real = try daemon.todoctl(["add", "\(title) real", "--due", "+3s"])
        #expect(real.status == 0, "\(real.stderr)")
        for suffix in ["christmas", "at0", "1969", "year1", "imported", "real"] {
            #expect(
                try Journalctl.reminders(title: "\(title) \(suffix)", atLeast: 1, timeout: 15).count == 1, "\(suffix)")
        }
        #expect(try daemon.client().result("daemon.status")["nextReminder"] == .null)
        // Recorded: nothing fires again after a restart.
        #expect(daemon.stop() == 0)
        daemon = try DaemonProcess(directory: dir)
        let sentinel = "\(title) after restart"
        _ = try daemon.client().result("todo.add", ["title": .string(sentinel), "due": .string(instant(in: 0))])
        #expect(try Journalctl.reminders(title: sentinel, atLeast: 1).count == 1)
        for suffix in ["christmas", "at0", "1969", "year1", "imported", "real"] {
            #expect(
                try Journalctl.reminders(title: "\(title) \(suffix)", atLeast: 2, timeout: 0.2).count == 1, "\(suffix)")
        }
    }

    /// A reminder armed while the daemon is at its descriptor limit still fires: the timer's
    /// descriptor exists from the start, and a journal send that fails for want of one is retried
    /// once descriptors are free.
    @Test func aReminderArmedAtTheDescriptorLimitFires() throws {
        let dir = TemporaryDirectory("emfile")
        let socket = dir.file("todod.sock")
        let limit = 64
        let daemon = try LaunchedDaemon(
            "/usr/bin/prlimit",
            [
                "--nofile=\(limit):\(limit)", BuiltProducts.path("todod"),
                "--socket", socket, "--db", dir.file("todos.db")
            ], socket: socket)
        let watcher = try daemon.client()
        _ = try watcher.result("watch", ["events": ["reminder"]])
        // Descriptors below the limit in use (one the daemon inherited may sit above it).
        let openFDs = {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd")) ?? []).filter {
                (Int($0) ?? .max) < limit
            }.count
        }
        // Connections until the daemon holds every descriptor it may.
        var extra: [Int32] = []
        defer { for fd in extra { Posix.close(fd) } }
        for _ in 0..<(limit + 16) where openFDs() < limit {
            if let fd = try? UnixSocket.connect(path: socket) { extra.append(fd) }
            _ = eventually(timeout: 0.2) { openFDs() >= limit }
        }
        #expect(openFDs() == limit)
        let title = unique("emfile")
        let added = try watcher.call("todo.add", ["title": .string(title), "due": .string(instant(in: 1))])
        #expect(added["result"]?["id"] == 1)
        // Still at the limit when it falls due (the journal refuses it for want of a descriptor,
        // and the daemon writes it to standard error), then descriptors are freed.
        #expect(eventually(timeout: 15) { daemon.stderr.contains(title) })
        #expect(openFDs() == limit)
        for fd in extra { Posix.close(fd) }
        extra = []
        var event: JSON?
        let deadline = Date().addingTimeInterval(20)
        while event == nil, Date() < deadline {
            if let message = try? watcher.receive(), message["method"] == "event" { event = message }
        }
        #expect(event?["params"]?["todo"]?["title"] == .string(title))
        #expect(try Journalctl.reminders(title: title, atLeast: 1).count == 1)
    }
}
