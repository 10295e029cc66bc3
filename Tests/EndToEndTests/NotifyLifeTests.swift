import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// todod-notify on a private session bus with the stand-in server, as a person lives with it:
/// notifications withdrawn when their reminder no longer stands, buttons believed only from the
/// server that owns the name, a server that answers late, all-day todos, the missed summary.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket") && NotifyTestSupport.available,
        "needs journald, dbus-daemon and .build/test-venv with jeepney (scripts/test sets them up)"))
struct NotifyLifeTests {
    /// A unicast ActionInvoked from another peer completes nothing; after the server restarts,
    /// the new server's ids (which repeat the old ones) complete nothing of ours until it shows
    /// ours; the real server's buttons still work.
    @Test func buttonsCountOnlyFromTheServerThatOwnsTheName() throws {
        let dir = TemporaryDirectory("nsp")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        var server: NotificationServer? = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let first = unique("spoofed")
        let second = unique("barrier")
        let a = try daemon.client().result("todo.add", ["title": .string(first), "due": .string(rfc3339(in: 1))])
        let b = try daemon.client().result("todo.add", ["title": .string(second), "due": .string(rfc3339(in: 1))])
        let shownA = try #require(server!.notifications(summary: first, atLeast: 1).first)
        let shownB = try #require(server!.notifications(summary: second, atLeast: 1).first)
        let me = try #require(shownA["sender"]?.stringValue)
        try server!.spoof(to: me, id: shownA["id"]?.intValue ?? 0, action: "done")
        // The spoof reached the notifier before this press (both went through the bus in order).
        try server!.invoke(shownB["id"]?.intValue ?? 0, "done")
        #expect(
            try NotifyTestSupport.eventually(timeout: 10) {
                try daemon.client().result("todo.get", ["id": b["id"] ?? 0])["done"] == true
            })
        #expect(try daemon.client().result("todo.get", ["id": a["id"] ?? 0])["done"] == false)

        // The server restarts: its ids start again at 1, the number our first notification had.
        server?.stop()
        server = nil
        let again = try NotificationServer(bus: bus, directory: dir, name: "server2")
        try again.invoke(shownA["id"]?.intValue ?? 0, "done") // another application's notification 1
        let third = unique("after restart")
        let c = try daemon.client().result("todo.add", ["title": .string(third), "due": .string(rfc3339(in: 0))])
        let shownC = try #require(again.notifications(summary: third, atLeast: 1).first)
        try again.invoke(shownC["id"]?.intValue ?? 0, "done")
        #expect(
            try NotifyTestSupport.eventually(timeout: 10) {
                try daemon.client().result("todo.get", ["id": c["id"] ?? 0])["done"] == true
            })
        #expect(try daemon.client().result("todo.get", ["id": a["id"] ?? 0])["done"] == false, "\(notifier.stderr)")
    }

    /// Completed, snoozed, rescheduled or deleted by another client: the notification is
    /// withdrawn (CloseNotification for its id); an edit that leaves the reminder standing keeps it.
    @Test func aNotificationIsWithdrawnWhenItsReminderNoLongerStands() throws {
        let dir = TemporaryDirectory("nw")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let tag = unique("")
        let names = ["kept", "completed", "snoozed", "rescheduled", "deleted"]
        var todos: [String: JSON] = [:]
        var shown: [String: Int64] = [:]
        let due = rfc3339(in: 1)
        for name in names {
            todos[name] = try daemon.client().result("todo.add", ["title": .string(name + tag), "due": .string(due)])
        }
        for name in names { shown[name] = server.notifications(summary: name + tag, atLeast: 1).first?["id"]?.intValue }
        #expect(shown.count == names.count)
        let c = try daemon.client()
        func id(_ name: String) -> JSON { todos[name]?["id"] ?? 0 }
        _ = try c.result("todo.update", ["id": id("kept"), "notes": "メモ"])
        _ = try c.result("todo.complete", ["ids": [id("completed")]])
        _ = try c.result("todo.snooze", ["id": id("snoozed"), "until": .string(rfc3339(in: 3600))])
        _ = try c.result("todo.update", ["id": id("rescheduled"), "due": .string(rfc3339(in: 7200))])
        _ = try c.result("todo.delete", ["ids": [id("deleted")]])
        for name in names.dropFirst() {
            #expect(server.closes(of: shown[name] ?? -1).count == 1, "\(name): \(server.closes) \(notifier.stderr)")
        }
        #expect(server.closes(of: shown["kept"] ?? -1, timeout: 0).isEmpty)
    }

    /// Done and Snooze close the notification they were pressed on; Done on a recurring todo is
    /// logged as an advance.
    @Test func itsOwnButtonsCloseAndARecurringTodoAdvances() throws {
        let dir = TemporaryDirectory("nab")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let daily = unique("daily")
        let once = unique("once")
        let recurring = try daemon.client().result(
            "todo.add",
            [
                "title": .string(daily), "due": .string(rfc3339(in: 1)),
                "recurrence": ["rule": "FREQ=DAILY", "from": "due"]
            ])
        _ = try daemon.client().result("todo.add", ["title": .string(once), "due": .string(rfc3339(in: 1))])
        let d = try #require(server.notifications(summary: daily, atLeast: 1).first?["id"]?.intValue)
        let o = try #require(server.notifications(summary: once, atLeast: 1).first?["id"]?.intValue)
        try server.invoke(d, "done")
        try server.invoke(o, "snooze")
        #expect(server.closes(of: d).count >= 1)
        #expect(server.closes(of: o).count >= 1)
        let id = recurring["id"]?.intValue ?? 0
        #expect(
            NotifyTestSupport.eventually(timeout: 10) { notifier.stderr.contains("todo \(id) advanced to ") },
            "\(notifier.stderr)")
        #expect(!notifier.stderr.contains("todo \(id) done"))
        #expect(try daemon.client().result("todo.get", ["id": .int(id)])["done"] == false)
    }

    /// A server that shows a notification but answers 6 s late gets that reminder once, and the
    /// reminders after it go out meanwhile; nothing is blamed on the bus.
    @Test func aServerThatAnswersLateGetsEachReminderOnce() throws {
        let dir = TemporaryDirectory("nsl")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir, slow: ("slow", 6))
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let slow = "slow" + unique("")
        let fast = unique("fast")
        _ = try daemon.client().result("todo.add", ["title": .string(slow), "due": .string(rfc3339(in: 1))])
        #expect(server.notifications(summary: slow, atLeast: 1).count == 1)
        _ = try daemon.client().result("todo.add", ["title": .string(fast), "due": .string(rfc3339(in: 0))])
        let later = try #require(server.notifications(summary: fast, atLeast: 1).first)
        #expect(NotifyTestSupport.eventually(timeout: 15) { !server.replies.isEmpty })
        // The later reminder arrived before the slow one was answered.
        let answered = try #require(server.replies.first?["time"])
        #expect(later["time"].flatMap(Self.seconds) ?? .infinity < Self.seconds(answered) ?? 0)
        // No second copy comes, past the old 5 s call timeout and its retry: the behaviour is
        // that nothing happens for a while, so this watches for a bounded 8 s (ending early on a copy).
        _ = holds(for: 8, every: 0.25) { server.notifications(summary: slow, atLeast: 2, timeout: 0).count <= 1 }
        #expect(server.notifications(summary: slow, atLeast: 2, timeout: 0).count == 1, "\(notifier.stderr)")
        #expect(!notifier.stderr.contains("session bus"), "\(notifier.stderr)")
    }

    /// An all-day todo due today, reminded at midnight and added at noon: "Due today", normal
    /// urgency, no lateness; the journal MESSAGE and `todoctl reminders` show the day, no 00:00.
    @Test func anAllDayTodoForTodayIsNoLateCriticalNotification() throws {
        let dir = TemporaryDirectory("nad")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir, environment: ["TZ": "UTC"])
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let title = unique("歯医者")
        let midnight = String(rfc3339(in: 0).prefix(10)) + "T00:00:00Z"
        _ = try daemon.client().result(
            "todo.add", ["title": .string(title), "due": .string(midnight), "allDay": true, "zone": "UTC"])
        let n = try #require(server.notifications(summary: title, atLeast: 1).first)
        #expect(n["body"] == "Due today", "\(notifier.stderr)")
        #expect(n["hints"]?["urgency"] == 1)
        let entry = try #require(try Journalctl.reminders(title: title, atLeast: 1).first)
        let message = entry["MESSAGE"]?.stringValue ?? ""
        #expect(message.hasSuffix("is due on \(midnight.prefix(10)).") && !message.contains("00:00"), "\(message)")
        #expect(entry["TODO_ALL_DAY"] == "1")
        let listed = try daemon.todoctl(["reminders"], environment: ["TZ": "UTC"])
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.contains(title) })
        #expect(
            row.contains(" \(midnight.prefix(10)) ") && row.components(separatedBy: "00:00").count == 1,
            "\(listed.stdout)")
    }

    /// No notification server runs, but the bus can start one on demand (D-Bus activation, as
    /// dunst and most servers are started): the reminder's Notify starts it and is shown.
    @Test func aServerTheBusStartsOnDemandGetsTheReminder() throws {
        let dir = TemporaryDirectory("nac")
        let record = dir.file("activated.jsonl")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir, activating: record)
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let title = unique("activated")
        _ = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 0))])
        #expect(
            NotifyTestSupport.eventually(timeout: 20) {
                ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").contains(title)
            },
            "\(notifier.stderr) \(bus.stderr)")
        // It runs on: stop it by its pid (the bus started it).
        if let pid =
            ((try? String(contentsOfFile: record + ".ready", encoding: .utf8)) != nil ? bus.children.first : nil)
        {
            kill(pid, SIGTERM)
        }
    }

    private static func seconds(_ value: JSON) -> Double? {
        switch value {
        case .double(let d): d
        case .int(let i): Double(i)
        default: nil
        }
    }
}

/// Once with a real notification server: dunst (Debian's `dunst`) on a virtual display (`xvfb`),
/// on a private session bus. A reminder is shown, and withdrawn when the todo is completed by
/// another client: `dunstctl` sees it displayed, then in its history and no longer displayed.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dunst")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dunstctl")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
        "needs journald, dbus-daemon, dunst and Xvfb (apt-get install dunst xvfb)"))
struct NotifyDunstTests {
    @Test func dunstShowsTheReminderAndItIsClosedWhenCompletedElsewhere() throws {
        let dir = TemporaryDirectory("ndu")
        var display = Int.random(in: 100...499)
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display)") { display += 1 }
        let xvfb = try BackgroundProcess.started(
            "/usr/bin/Xvfb", [":\(display)", "-nolisten", "tcp"], output: dir.file("xvfb"))
        #expect(
            NotifyTestSupport.eventually(timeout: 20) {
                FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(display)")
            }, "\(xvfb.stderr)")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        // No timeout: a notification leaves the screen only when closed.
        try
            "[global]\n    history_length = 20\n[urgency_low]\n    timeout = 0\n[urgency_normal]\n    timeout = 0\n[urgency_critical]\n    timeout = 0\n"
            .write(toFile: dir.file("dunstrc"), atomically: true, encoding: .utf8)
        let env = [
            "DISPLAY": ":\(display)", "DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": dir.path, "PATH": "/usr/bin:/bin"
        ]
        let dunst = try BackgroundProcess.started(
            "/usr/bin/dunst", ["-config", dir.file("dunstrc")], environment: env, output: dir.file("dunst"))
        func dunstctl(_ arguments: [String]) -> String {
            (try? ChildProcess.run("/usr/bin/dunstctl", arguments, environment: env))?.stdout ?? ""
        }
        #expect(
            NotifyTestSupport.eventually(timeout: 20) {
                Int(dunstctl(["count", "displayed"]).trimmingCharacters(in: .whitespacesAndNewlines)) != nil
            },
            "\(dunst.stderr)")
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let title = unique("歯医者 dunst")
        let todo = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 0))])
        #expect(
            NotifyTestSupport.eventually(timeout: 15) { dunstctl(["count", "displayed"]).hasPrefix("1") },
            "\(notifier.stderr) \(dunst.stderr)")
        #expect(!dunstctl(["history"]).contains(title))
        _ = try daemon.client().result("todo.complete", ["ids": [todo["id"] ?? 0]])
        #expect(
            NotifyTestSupport.eventually(timeout: 15) { dunstctl(["count", "displayed"]).hasPrefix("0") },
            "\(notifier.stderr)")
        #expect(dunstctl(["history"]).contains(title))
        dunst.stop()
        xvfb.stop()
    }
}
