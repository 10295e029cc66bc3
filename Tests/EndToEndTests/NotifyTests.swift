import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// todod-notify against the real todod and the real journal (`scripts/test` starts a journald when
/// none runs): what it prints and runs per reminder, its cursor across restarts, and what it
/// refuses to take for a reminder.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct NotifyFollowerTests {
    /// A todo due in a second becomes exactly one line with its fields; a title full of shell
    /// syntax is just text.
    @Test func aDueTodoPrintsOneLine() throws {
        let dir = TemporaryDirectory("nf")
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, arguments: ["--print"], state: dir.file("state"), output: dir.file("n"))
        let title = unique("$(touch \(dir.file("pwned"))); reboot")
        let due = rfc3339(in: 1)
        let todo = try daemon.client().result(
            "todo.add", ["title": .string(title), "category": "買い物", "due": .string(due)])
        let lines = notifier.printed(title: title, atLeast: 1)
        #expect(lines.count == 1, "stdout: \(notifier.stdout) stderr: \(notifier.stderr)")
        let line = try #require(lines.first)
        #expect(line[0] == String(todo["id"]?.intValue ?? 0))
        #expect(line[1] == todo["uid"]?.stringValue)
        #expect(line[2] == due)
        #expect(Int64(line[3]) ?? -1 >= 0)
        #expect(line[4] == "買い物")
        // A todo due now, added after, is printed after anything printed for the first; then none repeats.
        let sentinel = title + " after"
        _ = try daemon.client().result("todo.add", ["title": .string(sentinel), "due": .string(rfc3339(in: 0))])
        #expect(notifier.printed(title: sentinel, atLeast: 1).count == 1)
        #expect(notifier.printed(title: title, atLeast: 2, timeout: 0).count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.file("pwned")))
        #expect(FileManager.default.fileExists(atPath: dir.file("state") + "/todod/notify-print.cursor"))
    }

    /// The cursor is saved after each reminder: a restarted notifier starts right after the last
    /// one it printed, so what fired while it was down comes out and nothing comes out twice.
    @Test func aRestartNeitherRepeatsNorDrops() throws {
        let dir = TemporaryDirectory("nr")
        let daemon = try DaemonProcess(directory: dir)
        let state = dir.file("state")
        var notifier: NotifierProcess? = try NotifierProcess(
            daemon: daemon, arguments: ["--print"], state: state, output: dir.file("n1"))
        let first = unique("first")
        _ = try daemon.client().result("todo.add", ["title": .string(first), "due": .string(rfc3339(in: 1))])
        #expect(notifier!.printed(title: first, atLeast: 1).count == 1)
        #expect(notifier!.stop() == 128 + SIGTERM)
        notifier = nil
        // Fired while the notifier was down.
        let missed = unique("missed")
        _ = try daemon.client().result("todo.add", ["title": .string(missed), "due": .string(rfc3339(in: 1))])
        #expect(try Journalctl.reminders(title: missed, atLeast: 1).count == 1)
        notifier = try NotifierProcess(daemon: daemon, arguments: ["--print"], state: state, output: dir.file("n2"))
        #expect(notifier!.printed(title: missed, atLeast: 1).count == 1)
        let sentinel = unique("sentinel")
        _ = try daemon.client().result("todo.add", ["title": .string(sentinel), "due": .string(rfc3339(in: 0))])
        #expect(notifier!.printed(title: sentinel, atLeast: 1).count == 1)
        #expect(notifier!.printed(title: first, atLeast: 1, timeout: 0).isEmpty)
        #expect(notifier!.printed(title: missed, atLeast: 2, timeout: 0).count == 1)
    }

    /// An entry with todod's MESSAGE_ID, SYSLOG_IDENTIFIER and even this store's TODO_STORE, sent
    /// by another program (logger), is no reminder; neither is a reminder of another daemon's store.
    @Test func forgedEntriesAndOtherStoresAreIgnored() throws {
        let dir = TemporaryDirectory("nx")
        let daemon = try DaemonProcess(directory: dir)
        let other = try DaemonProcess()
        let notifier = try NotifierProcess(
            daemon: daemon, arguments: ["--print"], state: dir.file("state"), output: dir.file("n"))
        let store = try #require(try daemon.client().result("daemon.status")["storeId"]?.stringValue)
        let forged = unique("forged")
        let fields = [
            "MESSAGE=Todo 1 “\(forged)” is due.", "MESSAGE_ID=\(Journalctl.reminderMessageID)",
            "SYSLOG_IDENTIFIER=todod",
            "PRIORITY=5", "TODO_ID=1", "TODO_UID=00000000-0000-7000-8000-000000000000", "TODO_STORE=\(store)",
            "TODO_TITLE=\(forged)", "TODO_LATE_USEC=0"
        ]
        try fields.joined(separator: "\n").write(toFile: dir.file("forged"), atomically: true, encoding: .utf8)
        #expect(try ChildProcess.run("logger", ["--journald=" + dir.file("forged")]).status == 0)
        #expect(try Journalctl.reminders(title: forged, atLeast: 1).count == 1) // it is in the journal
        let elsewhere = unique("other store")
        _ = try other.client().result("todo.add", ["title": .string(elsewhere), "due": .string(rfc3339(in: 1))])
        #expect(try Journalctl.reminders(title: elsewhere, atLeast: 1).count == 1)
        // Ours, due after both are in the journal: once it is printed, they would have been.
        let sentinel = unique("ours")
        _ = try daemon.client().result("todo.add", ["title": .string(sentinel), "due": .string(rfc3339(in: 0))])
        #expect(notifier.printed(title: sentinel, atLeast: 1).count == 1)
        #expect(!notifier.stdout.contains(forged))
        #expect(!notifier.stdout.contains(elsewhere))
    }

    /// `--exec` runs the program with no shell: the reminder arrives in the environment, and a
    /// title of shell syntax runs nothing.
    @Test func execGetsTheReminderInItsEnvironment() throws {
        let dir = TemporaryDirectory("ne")
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, arguments: ["--exec", "/usr/bin/env"], state: dir.file("state"),
            environment: ["TODO_TITLE": "inherited, must not leak"], output: dir.file("n"))
        let title = unique("; reboot; $(touch \(dir.file("pwned"))) `touch \(dir.file("pwned2"))`")
        let due = rfc3339(in: 1)
        let todo = try daemon.client().result(
            "todo.add", ["title": .string(title), "category": "仕事", "due": .string(due)])
        let names = ["TODO_ID=", "TODO_UID=", "TODO_TITLE=", "TODO_CATEGORY=", "TODO_DUE=", "TODO_LATE_USEC="]
        #expect(
            NotifyTestSupport.eventually(timeout: 15) {
                names.allSatisfy { name in notifier.stdoutLines.contains { $0.hasPrefix(name) } }
            })
        let env = Dictionary(
            notifier.stdoutLines.compactMap { line -> (String, String)? in
                guard let eq = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<eq]), String(line[line.index(after: eq)...]))
            }, uniquingKeysWith: { a, _ in a })
        #expect(env["TODO_TITLE"] == title)
        #expect(env["TODO_ID"] == String(todo["id"]?.intValue ?? 0))
        #expect(env["TODO_UID"] == todo["uid"]?.stringValue)
        #expect(env["TODO_CATEGORY"] == "仕事")
        #expect(env["TODO_DUE"] == due)
        #expect(Int64(env["TODO_LATE_USEC"] ?? "") != nil)
        #expect(env["PATH"] != nil) // the notifier's own environment is passed on
        #expect(!FileManager.default.fileExists(atPath: dir.file("pwned")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("pwned2")))
        #expect(notifier.process.isRunning)
    }

    /// A program that hangs is killed after the timeout (with what it started), a failing one is
    /// logged, and neither holds up the reminders after them.
    @Test func aHangingProgramIsKilledAndLaterOnesStillRun() throws {
        let dir = TemporaryDirectory("nh")
        let daemon = try DaemonProcess(directory: dir)
        let script = """
            case "$TODO_TITLE" in
              hang*) echo $$ > "$0/hang.pid"; exec sleep 600 ;;
              fail*) exit 3 ;;
            esac
            echo "ran $TODO_TITLE"
            """
        let notifier = try NotifierProcess(
            daemon: daemon, arguments: ["--exec-timeout", "2", "--exec", "/bin/sh", "-c", script, dir.path],
            state: dir.file("state"), output: dir.file("n"))
        let tag = unique("")
        let due = rfc3339(in: 1)
        let hang = try daemon.client().result("todo.add", ["title": .string("hang" + tag), "due": .string(due)])
        let fail = try daemon.client().result("todo.add", ["title": .string("fail" + tag), "due": .string(due)])
        _ = try daemon.client().result("todo.add", ["title": .string("later" + tag), "due": .string(due)])
        // The one after the hanging program ran while it still hung.
        #expect(NotifyTestSupport.eventually(timeout: 15) { notifier.stdout.contains("ran later" + tag) })
        let hangPID = try #require(
            NotifyTestSupport.eventually(timeout: 5) { FileManager.default.fileExists(atPath: dir.file("hang.pid")) }
                ? Int32(
                    (try String(contentsOfFile: dir.file("hang.pid"), encoding: .utf8)).trimmingCharacters(
                        in: .whitespacesAndNewlines)) : nil)
        #expect(
            NotifyTestSupport.eventually(timeout: 15) {
                notifier.stderr.contains("for todo \(hang["id"]?.intValue ?? 0): still running after 2 s; killed")
            })
        #expect(NotifyTestSupport.eventually(timeout: 5) { kill(hangPID, 0) != 0 })
        #expect(notifier.stderr.contains("for todo \(fail["id"]?.intValue ?? 0): failed (exit status 3)"))
        // Still following: the next reminder runs too.
        _ = try daemon.client().result("todo.add", ["title": .string("next" + tag), "due": .string(rfc3339(in: 0))])
        #expect(NotifyTestSupport.eventually(timeout: 15) { notifier.stdout.contains("ran next" + tag) })
        #expect(notifier.stderr.components(separatedBy: "still running after").count == 2)
    }
}

/// todod-notify on a real (private) session bus with the stand-in notification server of
/// scripts/lib/notification-server.py: what it sends, what the buttons do, and a desktop that is
/// not there yet.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket") && NotifyTestSupport.available,
        "needs journald, dbus-daemon and .build/test-venv with jeepney (scripts/test sets them up)"))
struct NotifyDesktopTests {
    /// One Notify per reminder with the right contents; Done completes the todo in the store; a
    /// restarted notifier does not show it again.
    @Test func aReminderBecomesOneNotificationAndDoneCompletesIt() throws {
        let dir = TemporaryDirectory("nd")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir)
        var notifier: NotifierProcess? = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n1"))
        let title = unique("milk & <eggs>")
        let todo = try daemon.client().result(
            "todo.add",
            [
                "title": .string(title), "category": "買い物", "due": "2099-01-01T00:00:00Z",
                "remind": .string(rfc3339(in: 1))
            ])
        let shown = server.notifications(summary: title, atLeast: 1)
        #expect(shown.count == 1)
        let n = try #require(shown.first)
        #expect(n["app"] == "todod")
        #expect(n["body"] == "Due 2099-01-01 00:00 · 買い物")
        #expect(n["actions"] == ["done", "Done", "snooze", "Snooze 10 min", "dismiss", "Dismiss"])
        #expect(n["hints"]?["urgency"] == 1)
        #expect(n["hints"]?["desktop-entry"] == "todod")
        try server.invoke(n["id"]?.intValue ?? 0, "done")
        let id = todo["id"] ?? 0
        #expect(
            try NotifyTestSupport.eventually(timeout: 10) {
                try daemon.client().result("todo.get", ["id": id])["done"] == true
            })
        // Restarted: nothing again.
        notifier?.stop()
        notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n2"))
        let sentinel = unique("sentinel")
        _ = try daemon.client().result("todo.add", ["title": .string(sentinel), "due": .string(rfc3339(in: 0))])
        #expect(server.notifications(summary: sentinel, atLeast: 1).count == 1)
        #expect(server.notifications(summary: title, atLeast: 2, timeout: 0).count == 1)
    }

    /// One notification per todo: its next alarm replaces it (replaces_id); Dismiss acknowledges
    /// only the alarm shown (`todo.alarm.ack`), the replaced one stays unacknowledged; the next
    /// alarm shows again and Done completes the todo.
    @Test func laterAlarmsReplaceTheNotificationAndDismissAcknowledgesOne() throws {
        let dir = TemporaryDirectory("na")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n"))
        let title = unique("歯医者")
        let todo = try daemon.client().result(
            "todo.add",
            [
                "title": .string(title), "due": "2099-01-01T00:00:00Z",
                "alarms": [
                    ["uid": "one", "at": .string(rfc3339(in: 1))], ["uid": "two", "at": .string(rfc3339(in: 3))],
                    ["uid": "three", "at": .string(rfc3339(in: 6))]
                ]
            ])
        let id = todo["id"] ?? 0
        let two = server.notifications(summary: title, atLeast: 2)
        #expect(two.count == 2, "stderr: \(notifier.stderr)")
        guard two.count == 2 else { return }
        #expect(two[0]["replaces"] == 0 && two[1]["replaces"] == two[0]["id"] && two[1]["id"] == two[0]["id"])
        #expect(two[1]["actions"] == ["done", "Done", "snooze", "Snooze 10 min", "dismiss", "Dismiss"])
        try server.invoke(two[1]["id"]?.intValue ?? 0, "dismiss")
        func ack(_ t: JSON, _ i: Int) -> JSON? { t["alarms"]?[i]?["acknowledged"] }
        #expect(
            try NotifyTestSupport.eventually(timeout: 10) {
                try ack(daemon.client().result("todo.get", ["id": id]), 1) != .null
            })
        let dismissed = try daemon.client().result("todo.get", ["id": id])
        #expect(ack(dismissed, 0) == .null && ack(dismissed, 2) == .null && dismissed["done"] == false)
        #expect(server.closes(of: two[1]["id"]?.intValue ?? 0).count == 1)
        // The third alarm shows anew (the dismissed notification is gone); Done completes.
        let three = server.notifications(summary: title, atLeast: 3)
        #expect(three.count == 3)
        guard three.count == 3 else { return }
        #expect(three[2]["replaces"] == 0)
        try server.invoke(three[2]["id"]?.intValue ?? 0, "done")
        #expect(
            try NotifyTestSupport.eventually(timeout: 10) {
                try daemon.client().result("todo.get", ["id": id])["done"] == true
            })
        let done = try daemon.client().result("todo.get", ["id": id])
        #expect(ack(done, 0) == .null && ack(done, 1) != .null)
        #expect(notifier.stderr.contains("alarm two dismissed"))
    }

    /// Snooze puts the todo off by the config file's `snooze` and it fires (and shows) again;
    /// a reminder more than an hour late is critical.
    @Test func snoozeFiresAgainAfterTheConfiguredLength() throws {
        let dir = TemporaryDirectory("ns")
        try FileManager.default.createDirectory(atPath: dir.file("config/todod"), withIntermediateDirectories: true)
        try "# test\nsnooze = 2s\n".write(toFile: dir.file("config/todod/config"), atomically: true, encoding: .utf8)
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address,
            environment: ["XDG_CONFIG_HOME": dir.file("config")], output: dir.file("n"))
        let title = unique("call back")
        let late = unique("late")
        _ = try daemon.client().result("todo.add", ["title": .string(late), "due": .string(rfc3339(in: -7200))])
        _ = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        let first = try #require(server.notifications(summary: title, atLeast: 1).first)
        #expect(first["actions"] == ["done", "Done", "snooze", "Snooze 2 s", "dismiss", "Dismiss"])
        #expect(server.notifications(summary: late, atLeast: 1).first?["hints"]?["urgency"] == 2)
        try server.invoke(first["id"]?.intValue ?? 0, "snooze")
        let again = server.notifications(summary: title, atLeast: 2, timeout: 20)
        #expect(again.count == 2)
        #expect(notifier.stderr.contains("snoozed until"))
    }

    /// No session bus at first: the notifier keeps following, says so once, and shows the
    /// reminder when a bus and a server appear.
    @Test func withoutABusItKeepsFollowingAndCatchesUp() throws {
        let dir = TemporaryDirectory("nb")
        let daemon = try DaemonProcess(directory: dir)
        let busSocket = dir.file("bus")
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: "unix:path=" + busSocket, output: dir.file("n"))
        let title = unique("offline")
        _ = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        #expect(try Journalctl.reminders(title: title, atLeast: 1).count == 1)
        #expect(NotifyTestSupport.eventually(timeout: 10) { notifier.stderr.contains("no session bus") })
        let bus = try SessionBus(socket: busSocket, directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        #expect(server.notifications(summary: title, atLeast: 1, timeout: 40).count == 1)
        #expect(notifier.process.isRunning)
        #expect(notifier.stderr.components(separatedBy: "no session bus").count == 2) // logged once
    }

    /// Reminders missed while the notifier was stopped come as one summary, not one each.
    @Test func manyMissedRemindersBecomeOneSummary() throws {
        let dir = TemporaryDirectory("nm")
        let bus = try SessionBus(socket: dir.file("bus"), directory: dir)
        let server = try NotificationServer(bus: bus, directory: dir)
        let daemon = try DaemonProcess(directory: dir)
        try NotifierProcess(daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n1")).stop()
        let title = unique("missed")
        let due = rfc3339(in: 1)
        for i in 1...8 {
            _ = try daemon.client().result("todo.add", ["title": .string("\(title) \(i)"), "due": .string(due)])
        }
        #expect(
            NotifyTestSupport.eventually(timeout: 15) {
                ((try? Journalctl.entries(["MESSAGE_ID=\(Journalctl.reminderMessageID)", "TODO_TITLE=\(title) 8"]))
                    ?? []).count == 1
            })
        let notifier = try NotifierProcess(
            daemon: daemon, state: dir.file("state"), bus: bus.address, output: dir.file("n2"))
        let summary = server.notifications(summary: "8 missed reminders", atLeast: 1)
        #expect(summary.count == 1)
        #expect(summary.first?["body"]?.stringValue?.contains("\(title) 1") == true)
        #expect(summary.first?["body"]?.stringValue?.contains("and 3 more") == true)
        #expect(!server.notifications.contains { $0["summary"]?.stringValue?.hasPrefix(title) == true })
        // Its one button, Dismiss, closes it and completes nothing.
        #expect(summary.first?["actions"] == ["dismiss", "Dismiss"])
        try server.invoke(summary.first?["id"]?.intValue ?? 0, "dismiss")
        #expect(server.closes(of: summary.first?["id"]?.intValue ?? -1).count == 1, "\(notifier.stderr)")
        let open = try daemon.client().result("todo.list", ["status": "open"])["todos"]?.arrayValue ?? []
        #expect(open.filter { $0["title"]?.stringValue?.hasPrefix(title) == true }.count == 8, "\(open)")
        #expect(notifier.process.isRunning)
    }
}

/// `scripts/install --user` puts todod-notify, its unit and its man page in place, and
/// `--uninstall` takes them away again.
@Suite struct NotifyInstallTests {
    @Test func installAndUninstallTheNotifier() throws {
        let dir = TemporaryDirectory("ninst")
        let home = dir.file("home")
        let prefix = dir.file("prefix")
        let units = dir.file("units")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["XDG_CONFIG_HOME"] = nil
        let install = NotifyTestSupport.repository + "/scripts/install"
        let result = try ChildProcess.run(
            "/bin/bash",
            [
                install, "--user", "--prebuilt", BuiltProducts.directory,
                "--prefix", prefix, "--unitdir", units, "--no-start"
            ], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/todod-notify"))
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/man/man1/todod-notify.1"))
        let unit = try String(contentsOfFile: units + "/todod-notify.service", encoding: .utf8).split(separator: "\n")
        #expect(unit.contains("ExecStart=\(prefix)/bin/todod-notify"))
        #expect(unit.contains("WantedBy=graphical-session.target") && unit.contains("PartOf=graphical-session.target"))
        #expect(result.stdout.contains("systemctl --user enable todod-notify.service"))
        let removed = try ChildProcess.run(
            "/bin/bash", [install, "--user", "--prefix", prefix, "--unitdir", units, "--no-start", "--uninstall"],
            environment: env)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/todod-notify"))
        #expect(!FileManager.default.fileExists(atPath: units + "/todod-notify.service"))
    }
}
