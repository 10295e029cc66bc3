import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// How reminders reach todod-notify and where it keeps its place: the daemon's `watch` stream
/// as the fast path beside the journal, each reminder once across restarts of either, a cursor
/// per notifier, a damaged or hostile cursor file, and SIGTERM while `--exec` children run.
@Suite(
    .serialized,
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct NotifyPathTests {
    /// A reminder that only the `watch` stream brings (a stand-in daemon whose store has no
    /// journal entries) is printed: the fast path works without the journal.
    @Test func aReminderFromTheWatchStreamAloneIsPrinted() throws {
        let dir = TemporaryDirectory("nfp")
        let title = unique("fast path")
        let standIn = try StandInDaemon(socket: dir.file("fake.sock"), title: title, directory: dir)
        let notifier = try BackgroundProcess.notifier(
            socket: standIn.socket, arguments: ["--print"], state: dir.file("state"), output: dir.file("n"))
        #expect(
            NotifyTestSupport.eventually(timeout: 15) { notifier.stdoutLines.contains { $0.hasSuffix("\t" + title) } },
            "\(notifier.stderr)")
        #expect(notifier.stdoutLines.filter { $0.hasSuffix("\t" + title) }.count == 1)
    }

    /// 300 reminders due together while the notifier is stopped and started again in the middle,
    /// then todod restarted: each is printed exactly once, by one run or the other.
    @Test func eachReminderOnceAcrossRestarts() throws {
        let dir = TemporaryDirectory("nro")
        var daemon: DaemonProcess? = try DaemonProcess(directory: dir)
        let socket = daemon!.socket
        let database = daemon!.database
        let state = dir.file("state")
        var runs: [NotifierProcess] = [
            try NotifierProcess(daemon: daemon!, arguments: ["--print"], state: state, output: dir.file("n0"))
        ]
        let tag = unique("burst")
        let due = rfc3339(in: 2)
        let c = try daemon!.client()
        for i in 0..<300 { _ = try c.result("todo.add", ["title": .string("\(tag) \(i)"), "due": .string(due)]) }
        #expect(NotifyTestSupport.eventually(timeout: 20) { runs[0].stdoutLines.count >= 20 })
        runs[0].stop()
        runs.append(try NotifierProcess(daemon: daemon!, arguments: ["--print"], state: state, output: dir.file("n1")))
        func printed() -> [String] {
            runs.flatMap(\.stdoutLines).compactMap { $0.split(separator: "\t").last.map(String.init) }.filter {
                $0.hasPrefix(tag)
            }
        }
        #expect(NotifyTestSupport.eventually(timeout: 30) { Set(printed()).count >= 300 })
        // todod restarts under the running notifier; what fires afterwards comes once too.
        daemon?.stop()
        daemon = nil
        daemon = try DaemonProcess(directory: dir, socket: socket, database: database)
        let after = unique("after todod restart")
        _ = try daemon!.client().result("todo.add", ["title": .string(after), "due": .string(rfc3339(in: 1))])
        #expect(runs[1].printed(title: after, atLeast: 1, timeout: 20).count == 1)
        // The journal's copies of the last ones have come too: the cursor is past them.
        #expect(eventually(timeout: 20) { Self.cursor(state + "/todod/notify-print.cursor", isPast: after) })
        let all = printed()
        #expect(all.count == 300 && Set(all).count == 300, "\(all.count) lines, \(Set(all).count) distinct")
        #expect(runs[1].printed(title: after, atLeast: 2, timeout: 0).count == 1)
    }

    /// 6,000 reminders due in the same second, more than the notifier once remembered (4,096):
    /// the `watch` stream brings them all before the journal's copies are read, and each is still
    /// printed exactly once, by a notifier that is never restarted.
    @Test func aBurstLargerThanAnyBoundIsPrintedOnce() throws {
        let dir = TemporaryDirectory("nbu")
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, arguments: ["--print"], state: dir.file("state"), output: dir.file("n"))
        let tag = unique("burst")
        let count = 6000
        let due = rfc3339(in: 4)
        let c = try daemon.client()
        for start in stride(from: 0, to: count, by: 250) { // pipelined, 250 answers read at a time
            for i in start..<min(count, start + 250) {
                try c.request("todo.add", ["title": .string("\(tag) \(i)"), "due": .string(due)])
            }
            for _ in start..<min(count, start + 250) { _ = try c.receive() }
        }
        func printed() -> [String] {
            notifier.stdoutLines.compactMap { $0.split(separator: "\t").last.map(String.init) }.filter {
                $0.hasPrefix(tag)
            }
        }
        #expect(
            NotifyTestSupport.eventually(timeout: 120) { Set(printed()).count >= count },
            "\(Set(printed()).count) printed")
        #expect(try Journalctl.reminders(title: "\(tag) \(count - 1)", atLeast: 1).count == 1)
        // The journal's copies have all been read (they are stepped over) once the cursor file
        // holds no key of the burst that waits for its entry.
        let cursor = dir.file("state") + "/todod/notify-print.cursor"
        #expect(
            NotifyTestSupport.eventually(timeout: 60) {
                ((try? String(contentsOfFile: cursor, encoding: .utf8)) ?? "").split(separator: "\n").count == 1
            }, "keys still waiting for their journal entries")
        let all = printed()
        #expect(all.count == count && Set(all).count == count, "\(all.count) lines, \(Set(all).count) distinct")
    }

    /// A `--print` and an `--exec` notifier (and two named ones) keep separate cursors: one that
    /// was stopped shows what fired meanwhile although the other handed it out already.
    @Test func eachNotifierKeepsItsOwnCursor() throws {
        let dir = TemporaryDirectory("ncu")
        let daemon = try DaemonProcess(directory: dir)
        let state = dir.file("state")
        try NotifierProcess(daemon: daemon, arguments: ["--print"], state: state, output: dir.file("p0")).stop()
        try NotifierProcess(
            daemon: daemon, arguments: ["--print", "--name", "電話"], state: state, output: dir.file("q0")
        ).stop()
        let exec = try NotifierProcess(
            daemon: daemon, arguments: ["--exec", "/bin/true"], state: state, output: dir.file("e"))
        let missed = unique("while print was down")
        _ = try daemon.client().result("todo.add", ["title": .string(missed), "due": .string(rfc3339(in: 1))])
        #expect(try Journalctl.reminders(title: missed, atLeast: 1).count == 1)
        #expect(eventually(timeout: 15) { Self.cursor(state + "/todod/notify-exec.cursor", isPast: missed) })
        let printer = try NotifierProcess(daemon: daemon, arguments: ["--print"], state: state, output: dir.file("p1"))
        let named = try NotifierProcess(
            daemon: daemon, arguments: ["--print", "--name", "電話"], state: state, output: dir.file("q1"))
        #expect(printer.printed(title: missed, atLeast: 1).count == 1)
        #expect(named.printed(title: missed, atLeast: 1).count == 1)
        for file in ["notify-print.cursor", "notify-print-電話.cursor", "notify-exec.cursor"] {
            #expect(FileManager.default.fileExists(atPath: state + "/todod/" + file), "\(file)")
        }
        #expect(exec.process.isRunning)
        let bad = try ChildProcess.run(BuiltProducts.path("todod-notify"), ["--name", "../x", "--print"])
        #expect(bad.status == 2 && bad.stderr.contains("--name: not a name"))
    }

    /// A cursor file full of garbage, or a FIFO in its place: the notifier warns, starts from the
    /// journal's tail and works; it never exits 1 or blocks in open().
    @Test func aCorruptOrFifoCursorStartsFromTheTail() throws {
        let dir = TemporaryDirectory("ncc")
        let daemon = try DaemonProcess(directory: dir)
        let state = dir.file("state")
        try FileManager.default.createDirectory(atPath: state + "/todod", withIntermediateDirectories: true)
        let cursor = state + "/todod/notify-print.cursor"
        for damage in ["garbage", "fifo"] {
            try? FileManager.default.removeItem(atPath: cursor)
            if damage == "fifo" {
                #expect(mkfifo(cursor, 0o600) == 0)
            } else {
                try Data([0xFF, 0xFE, 0x00, 0x41, 0x0A, 0x20, 0x62, 0x61, 0x64]).write(to: URL(fileURLWithPath: cursor))
            }
            let notifier = try NotifierProcess(
                daemon: daemon, arguments: ["--print"], state: state, output: dir.file("n-" + damage))
            #expect(notifier.stderr.contains("starting from the journal's tail"), "\(damage): \(notifier.stderr)")
            let title = unique("after " + damage)
            _ = try daemon.client().result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 0))])
            #expect(notifier.printed(title: title, atLeast: 1).count == 1, "\(damage): \(notifier.stderr)")
            #expect(notifier.stop() == 128 + SIGTERM)
        }
    }

    /// SIGTERM ends the notifier while it starts: here a "daemon" that takes the connection and
    /// never answers `daemon.status`.
    @Test func sigtermEndsItWhileItStarts() throws {
        let dir = TemporaryDirectory("nss")
        let listener = try UnixSocket.listen(path: dir.file("mute.sock"))
        defer { Posix.close(listener) }
        let notifier = try BackgroundProcess.started(
            BuiltProducts.path("todod-notify"), ["--socket", dir.file("mute.sock"), "--print"],
            environment: ["XDG_STATE_HOME": dir.file("state")], output: dir.file("n"))
        // Connected and asking (on its second connection: the first only reads the peer's
        // credentials): the notifier waits for the answer.
        var connections: [Int32] = []
        var asked: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { connections.forEach(Posix.close) }
        #expect(
            try eventually(timeout: 10) {
                if try Posix.waitReadable(listener, seconds: 0.001), let fd = try UnixSocket.accept(listener) {
                    connections.append(fd)
                }
                for fd in connections { if let n = try Posix.read(fd, into: &buffer), n > 0 { asked += buffer[..<n] } }
                return asked.contains(UInt8(ascii: "\n"))
            })
        #expect(
            String(decoding: asked, as: UTF8.self).contains("daemon.status"),
            "\(String(decoding: asked, as: UTF8.self))")
        #expect(notifier.process.isRunning)
        notifier.process.send(SIGTERM)
        #expect(NotifyTestSupport.eventually(timeout: 8) { !notifier.process.isRunning }, "\(notifier.stderr)")
        #expect(notifier.stop() == 128 + SIGTERM)
    }

    /// SIGTERM ends the notifier while all 32 `--exec` slots are taken and a reminder waits for one.
    @Test func sigtermEndsItWhileExecChildrenRun() throws {
        let dir = TemporaryDirectory("nst")
        let daemon = try DaemonProcess(directory: dir)
        let notifier = try NotifierProcess(
            daemon: daemon, arguments: ["--exec-timeout", "600", "--exec", "/bin/sleep", "600"],
            state: dir.file("state"), output: dir.file("n"))
        let tag = unique("slot")
        let due = rfc3339(in: 1)
        let c = try daemon.client()
        for i in 0..<40 { _ = try c.result("todo.add", ["title": .string("\(tag) \(i)"), "due": .string(due)]) }
        #expect(try Journalctl.reminders(title: "\(tag) 39", atLeast: 1).count == 1)
        #expect(NotifyTestSupport.eventually(timeout: 10) { notifier.children.count >= 32 })
        // Let the notifier reach the slot wait for the 33rd: nothing outside shows it is there (it
        // waits on a semaphore in 50 ms steps), so this one wait stays a fixed, short one.
        usleep(500_000)
        let sleepers = notifier.children
        defer { for pid in sleepers { kill(pid, SIGKILL) } }
        notifier.process.send(SIGTERM)
        #expect(NotifyTestSupport.eventually(timeout: 10) { !notifier.process.isRunning })
        #expect(notifier.stop() == 128 + SIGTERM)
    }
}

extension NotifyPathTests {
    /// Whether the notifier whose cursor file is `file` has read the journal past the reminder
    /// entry of the todo titled `title`, and every reminder it had from `watch` first (a `+KEY`
    /// line) has had its journal entry read too.
    static func cursor(_ file: String, isPast title: String) -> Bool {
        let lines = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        guard let cursor = lines.first, !cursor.hasPrefix("realtime="), !lines.contains(where: { $0.hasPrefix("+") })
        else { return false }
        let later = try? Journalctl.entries(
            ["MESSAGE_ID=\(Journalctl.reminderMessageID)", "TODO_TITLE=\(title)"], after: cursor)
        return later?.isEmpty == true
    }
}

extension BackgroundProcess {
    /// todod-notify against any socket (a stand-in daemon), waiting for its "following" line.
    static func notifier(socket: String, arguments: [String], state: String, output: String) throws -> NotifierProcess {
        try NotifierProcess(socket: socket, arguments: arguments, state: state, output: output)
    }
}

/// A stand-in todod on a Unix socket (Python): answers `daemon.status` with a store of its own,
/// whose reminders are in no journal, and after `watch` sends one `reminder` event.
final class StandInDaemon {
    let socket: String
    let process: BackgroundProcess

    init(socket: String, title: String, directory: TemporaryDirectory) throws {
        self.socket = socket
        let script = #"""
            import json, os, socket, sys, time
            path, title = sys.argv[1], sys.argv[2]
            srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            srv.bind(path); srv.listen(8)
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            todo = {"id": 5, "uid": "01234567-89ab-7def-8123-456789abcdef", "title": title, "notes": None, "category": None,
                    "due": now, "remind": now, "reminded": now, "done": False, "completed": None, "position": 1,
                    "created": now, "updated": now, "allDay": False}
            while True:
                conn, _ = srv.accept()
                conn.settimeout(1.0)
                buf = b""
                try:
                    while True:
                        while b"\n" not in buf:
                            chunk = conn.recv(65536)
                            if not chunk: raise EOFError
                            buf += chunk
                        line, buf = buf.split(b"\n", 1)
                        if not line.strip(): continue
                        req = json.loads(line)
                        if req["method"] == "daemon.status":
                            result = {"storeId": "00000000-0000-7000-8000-00000000beef", "pid": os.getpid(), "seq": 2}
                        elif req["method"] == "watch":
                            result = {"subscribed": True}
                        else:
                            result = {}
                        conn.sendall((json.dumps({"jsonrpc": "2.0", "result": result, "id": req["id"]}) + "\n").encode())
                        if req["method"] == "watch":
                            event = {"seq": 2, "type": "reminder", "todos": [todo], "todo": todo, "fired": now, "lateUsec": 1200}
                            conn.sendall((json.dumps({"jsonrpc": "2.0", "method": "event", "params": event}) + "\n").encode())
                            conn.settimeout(None)
                            while conn.recv(65536): pass  # holds the connection until the notifier closes it
                except (EOFError, OSError):
                    pass
                conn.close()
            """#
        try script.write(toFile: directory.file("standin.py"), atomically: true, encoding: .utf8)
        process = try BackgroundProcess.started(
            "/usr/bin/python3", [directory.file("standin.py"), socket, title], output: directory.file("standin"))
        guard NotifyTestSupport.eventually(timeout: 10, { FileManager.default.fileExists(atPath: socket) }) else {
            throw NotifyTestError.didNotStart("stand-in daemon", process.stderr)
        }
    }
}

/// A FIFO where a password file should be: refused at once with a clear line, never a hang in open().
@Suite struct FifoPasswordFileTests {
    @Test func aFifoPasswordFileIsRefusedAtOnce() throws {
        let dir = TemporaryDirectory("fifo")
        let fifo = dir.file("password")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A hang would be ended by the timeout, without the line below.
        let result = try ChildProcess.run(
            BuiltProducts.path("todod-sync"),
            [
                "--check", "--url", "http://127.0.0.1:9/dav/", "--user", "u",
                "--password-file", fifo
            ], timeout: 20)
        #expect(result.status != 0)
        #expect(result.stderr.contains("not a regular file"), "\(result.stderr)")
    }
}
