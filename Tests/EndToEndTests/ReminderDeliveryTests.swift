#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

private func unique(_ label: String) -> String { "\(label) \(UInt32.random(in: 0...UInt32.max)) 配達" }

/// An RFC 3339 instant `seconds` from now, whole seconds (rounded up).
private func instant(in seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up)))
}

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass; returns whether it held.
private func eventually(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if try condition() { return true }
        usleep(20_000)
    } while Date() < deadline
    return try condition()
}

/// A todod started through a launcher (unshare(1) for a journal of the test's making, prlimit(1)
/// for a descriptor limit), its standard error collected as it comes.
private final class LaunchedDaemon: @unchecked Sendable {
    // @unchecked: `stderrText` is guarded by `lock`.
    let process = Process()
    let socket: String
    private let lock = NSLock()
    private var stderrText = ""

    init(_ launcher: String, _ arguments: [String], socket: String) throws {
        self.socket = socket
        process.executableURL = URL(fileURLWithPath: launcher)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["JOURNAL_STREAM"] = nil
        process.environment = env
        let pipe = Pipe()
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.stderrText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        guard try eventually(timeout: 10, { (try? RawClient(path: socket)) != nil || !process.isRunning }), process.isRunning else {
            throw DaemonProcessError.notListening(stderr)
        }
    }

    /// todod in a private mount namespace whose /run/systemd/journal is `journal`, a directory of
    /// the test: empty, journald is down; with a datagram socket the test binds there, the test
    /// is journald.
    static func withJournal(at journal: String, in dir: TemporaryDirectory) throws -> LaunchedDaemon {
        let socket = dir.file("todod.sock")
        return try LaunchedDaemon("/usr/bin/unshare", [
            "-m", "--propagation", "private", "sh", "-c",
            "mkdir -p /run/systemd/journal && mount --bind \"$3\" /run/systemd/journal && exec \"$0\" --socket \"$1\" --db \"$2\"",
            BuiltProducts.path("todod"), socket, dir.file("todos.db"), journal,
        ], socket: socket)
    }

    /// Stops it: SIGTERM, and SIGKILL when it has not exited within five seconds (a daemon whose
    /// store queue is frozen never finishes its shutdown; the test must fail, not hang).
    deinit {
        guard process.isRunning else { return }
        process.terminate()
        if !eventually(timeout: 5, { !process.isRunning }) { kill(pid, SIGKILL) }
        process.waitForExit()
    }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { lock.withLock { stderrText } }
    func client() throws -> RawClient { try RawClient(path: socket, timeoutSeconds: 5) }

    /// Whether one of its threads waits for a datagram socket's receiver to make room: the
    /// daemon is inside a journal send that the (stalled) journal holds up.
    var blockedOnJournal: Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/wchan", encoding: .utf8)) == "unix_wait_for_peer" }
    }
}

/// The `TODO_TITLE`s of the journal entries a fake journald received (native protocol:
/// `NAME=value` lines).
private func titles(in datagram: [UInt8]) -> [String] {
    String(decoding: datagram, as: UTF8.self).split(separator: "\n")
        .filter { $0.hasPrefix("TODO_TITLE=") }.map { String($0.dropFirst("TODO_TITLE=".count)) }
}

/// Delivery faults, with the test standing in for journald in a private mount namespace (needs
/// root and unshare(1)).
@Suite(.serialized, .enabled(if: getuid() == 0, "a private mount namespace needs root"))
struct JournalFaultTests {
    /// journald is down while reminders fall due: each goes to stderr once and stays pending
    /// (not `reminded`); once a journal listens again every one lands there exactly once, and
    /// only then is it recorded. `TODOD_TEST_JOURNAL_DOWN` sets the outage in seconds (default 6;
    /// 60 for the figure in docs/RELIABILITY.md).
    @Test func remindersRefusedWhileJournaldIsDownLandOnceWhenItIsBack() throws {
        let down = Double(ProcessInfo.processInfo.environment["TODOD_TEST_JOURNAL_DOWN"] ?? "") ?? 6
        let count = 20
        let dir = TemporaryDirectory("jdown")
        let journal = dir.file("journal")
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: false)
        let daemon = try LaunchedDaemon.withJournal(at: journal, in: dir)
        let client = try daemon.client()
        let wentDown = Date()
        let title = unique("down")
        // Due one after another across the outage.
        for i in 0..<count {
            _ = try client.result("todo.add", ["title": .string("\(title) #\(i)"), "due": .string(instant(in: 1 + Double(i) * (down - 2) / Double(count)))])
        }
        // Each is written to stderr once as it falls due, and stays pending.
        #expect(eventually(timeout: down + 10) { daemon.stderr.split(separator: "\n").filter { $0.contains(title) }.count >= count })
        for id in 1...count { #expect(try client.result("todo.get", ["id": .int(Int64(id))])["reminded"] == .null) }
        #expect(try client.result("daemon.status")["nextReminder"] != .null)
        Thread.sleep(forTimeInterval: max(0, down - Date().timeIntervalSince(wentDown)))  // the outage lasts `down` seconds

        // journald is back.
        let receiver = try UnixDatagram.bind(path: journal + "/socket")
        defer { Posix.close(receiver) }
        let cameBack = Date()
        var received: [String: Int] = [:]
        var lastArrival = cameBack
        while received.count < count, Date().timeIntervalSince(cameBack) < 20 {
            guard let datagram = UnixDatagram.receive(receiver, timeoutMilliseconds: 500) else { continue }
            for t in titles(in: datagram) { received[t, default: 0] += 1 }
            lastArrival = Date()
        }
        #expect(received.count == count)
        #expect(try eventually(timeout: 10) {
            try (1...count).allSatisfy { try client.result("todo.get", ["id": .int(Int64($0))])["reminded"] != .null }
        })
        // A reminder added now lands after anything still to be sent: none of the others again.
        _ = try client.result("todo.add", ["title": .string(title + " sentinel"), "due": .string(instant(in: 0))])
        var sentinel = false
        while !sentinel, Date().timeIntervalSince(cameBack) < 40 {
            guard let datagram = UnixDatagram.receive(receiver, timeoutMilliseconds: 500) else { continue }
            for t in titles(in: datagram) {
                if t == title + " sentinel" { sentinel = true } else { received[t, default: 0] += 1 }
            }
        }
        #expect(sentinel)
        #expect(received.count == count && received.values.allSatisfy { $0 == 1 }, "\(received)")
        let onStderr = daemon.stderr.split(separator: "\n").filter { $0.contains(title) }
        #expect(onStderr.count == count)  // once each, however often retried
        print("journald down \(String(format: "%.0f", cameBack.timeIntervalSince(wentDown))) s: \(received.count) of \(count) reminders delivered once each, the last \(String(format: "%.1f", lastArrival.timeIntervalSince(cameBack))) s after it came back")
    }

    /// A journald that stops reading blocks the journal send, but only the delivery queue: reads,
    /// writes and status are answered meanwhile, the reminder stays pending until it is
    /// delivered, and it lands once the journal reads again.
    @Test func aStalledJournalHoldsUpNoRequest() throws {
        let dir = TemporaryDirectory("jstall")
        let journal = dir.file("journal")
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: false)
        let receiver = try UnixDatagram.bind(path: journal + "/socket")
        defer { Posix.close(receiver) }
        let daemon = try LaunchedDaemon.withJournal(at: journal, in: dir)
        let filled = try UnixDatagram.fill(path: journal + "/socket")
        #expect(filled > 0)
        let client = try daemon.client()
        let title = unique("stalled")
        _ = try client.result("todo.add", ["title": .string(title), "due": .string(instant(in: 0))])
        #expect(eventually(timeout: 10) { daemon.blockedOnJournal })

        // Every kind of request is answered promptly while the send is blocked.
        let started = Date()
        for i in 0..<20 {
            _ = try client.result("todo.add", ["title": .string("meanwhile \(i)")])
            #expect(try client.result("todo.get", ["id": 1])["reminded"] == .null)
            #expect(try client.result("todo.list", ["limit": 5])["total"]?.intValue == Int64(i + 2))
            _ = try client.result("daemon.status")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(daemon.blockedOnJournal)

        // The journal reads again: the entry lands, once, and only then is it recorded.
        var landed = 0
        let drained = Date()
        while landed == 0, Date().timeIntervalSince(drained) < 10 {
            guard let datagram = UnixDatagram.receive(receiver, timeoutMilliseconds: 200) else { continue }
            landed += titles(in: datagram).filter { $0 == title }.count
        }
        #expect(landed == 1)
        #expect(try eventually(timeout: 5) { try client.result("todo.get", ["id": 1])["reminded"] != .null })
    }
}

/// Descriptors and odd instants, against the real journald.
@Suite(.serialized, .enabled(if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"), "needs a running systemd-journald (scripts/test starts one)"))
struct ReminderTimerTests {
    /// Reminders at or before 1970 — a typo of the year through todoctl, `@0`, 1969, year 1, and
    /// through `import` — fire at once, once each, and hold no later reminder up, restart or not.
    @Test func remindersBeforeTheEpochFireAndHoldNothingUp() throws {
        let dir = TemporaryDirectory("epoch")
        var daemon = try DaemonProcess(directory: dir, environment: ["TZ": "UTC"])
        let title = unique("past")
        for (suffix, due) in [("christmas", "0026-12-24 18:00"), ("at0", "@0"), ("1969", "1969-12-31"), ("year1", "0001-01-01")] {
            let added = try daemon.todoctl(["add", "\(title) \(suffix)", "--due", due], environment: ["TZ": "UTC"])
            #expect(added.status == 0, "\(suffix): \(added.stderr)")
        }
        let now = ISO8601DateFormatter().string(from: Date())
        let document: JSON = .object([
            "format": "todod-export", "version": 1, "categories": .array([]),
            "todos": .array([.object(["title": .string("\(title) imported"), "due": "1900-01-01T00:00:00Z", "remind": "1900-01-01T00:00:00Z", "created": .string(now)])]),
        ])
        _ = try daemon.client().result("store.import", document.objectValue ?? JSONObject())
        let real = try daemon.todoctl(["add", "\(title) real", "--due", "+3s"])
        #expect(real.status == 0, "\(real.stderr)")
        for suffix in ["christmas", "at0", "1969", "year1", "imported", "real"] {
            #expect(try Journalctl.reminders(title: "\(title) \(suffix)", atLeast: 1, timeout: 15).count == 1, "\(suffix)")
        }
        #expect(try daemon.client().result("daemon.status")["nextReminder"] == .null)
        // Recorded: nothing fires again after a restart.
        #expect(daemon.stop() == 0)
        daemon = try DaemonProcess(directory: dir)
        let sentinel = "\(title) after restart"
        _ = try daemon.client().result("todo.add", ["title": .string(sentinel), "due": .string(instant(in: 0))])
        #expect(try Journalctl.reminders(title: sentinel, atLeast: 1).count == 1)
        for suffix in ["christmas", "at0", "1969", "year1", "imported", "real"] {
            #expect(try Journalctl.reminders(title: "\(title) \(suffix)", atLeast: 2, timeout: 0.2).count == 1, "\(suffix)")
        }
    }

    /// A reminder armed while the daemon is at its descriptor limit still fires: the timer's
    /// descriptor exists from the start, and a journal send that fails for want of one is retried
    /// once descriptors are free.
    @Test func aReminderArmedAtTheDescriptorLimitFires() throws {
        let dir = TemporaryDirectory("emfile")
        let socket = dir.file("todod.sock")
        let limit = 64
        let daemon = try LaunchedDaemon("/usr/bin/prlimit", ["--nofile=\(limit):\(limit)", BuiltProducts.path("todod"),
                                                             "--socket", socket, "--db", dir.file("todos.db")], socket: socket)
        let watcher = try daemon.client()
        _ = try watcher.result("watch", ["events": ["reminder"]])
        // Descriptors below the limit in use (one the daemon inherited may sit above it).
        let openFDs = {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd")) ?? []).filter { (Int($0) ?? .max) < limit }.count
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
        // Still at the limit when it falls due, then descriptors are freed.
        Thread.sleep(forTimeInterval: 2.5)
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

/// Two stores of one user, and a forged entry: `reminder.list` shows only this store's own.
@Suite(.serialized, .enabled(if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"), "needs a running systemd-journald (scripts/test starts one)"))
struct ReminderStoreTests {
    @Test func remindersOfOtherStoresAndForgedEntriesDoNotMixIn() throws {
        let a = try DaemonProcess(), b = try DaemonProcess()
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
