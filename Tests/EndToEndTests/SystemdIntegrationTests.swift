import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket standing in for systemd's NOTIFY_SOCKET, recording what the daemon says.
private final class NotifyListener {
    let path: String
    let fd: Int32
    private(set) var messages: [(at: Double, text: String)] = []

    init(_ dir: TemporaryDirectory) throws {
        path = dir.file("notify.sock")
        fd = try UnixDatagram.bind(path: path)
    }

    deinit { Posix.close(fd) }

    /// Waits up to `timeout` seconds for a message satisfying `match`; records everything read.
    @discardableResult
    func wait(timeout: Double = 10, for match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let bytes = UnixDatagram.receive(fd, timeoutMilliseconds: 50) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            messages.append((Date().timeIntervalSince1970, text))
            if match(text) { return text }
        }
        return nil
    }

    func times(of text: String) -> [Double] { messages.filter { $0.text == text }.map(\.at) }
}

@Suite(.serialized) struct SystemdIntegrationTests {
    @Test func notifiesReadyStatusWatchdogAndStopping() throws {
        let dir = TemporaryDirectory("notify")
        let notify = try NotifyListener(dir)
        let daemon = try DaemonProcess(
            directory: dir, environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        // READY=1 comes once the socket listens (DaemonProcess already connected) and reminders are armed.
        #expect(notify.wait { $0 == "READY=1" } != nil)
        #expect(notify.messages.contains { $0.text.hasPrefix("STATUS=0 open, 0 done; no reminder pending") })
        _ = try daemon.client().result("todo.add", ["title": "牛乳", "due": "2030-01-01T00:00:00Z"])
        let status = notify.wait { $0.hasPrefix("STATUS=1 open") }
        #expect(status?.contains("next reminder 2030-01-01") == true, "\(status ?? "nothing")")
        // WATCHDOG=1 at half the interval (500 ms): on average, and never a whole interval
        // apart. (Times are when the listener read each message, so two can arrive together
        // after the listener was kept waiting: single gaps have no lower bound.)
        _ = notify.wait(timeout: 3) { _ in false }
        let beats = notify.times(of: "WATCHDOG=1")
        #expect(beats.count >= 5, "\(beats.count) heartbeats")
        let gaps = zip(beats.dropFirst(), beats).map { $0 - $1 }
        let mean = (beats.last! - beats.first!) / Double(max(gaps.count, 1))
        #expect(mean > 0.35 && mean < 0.65, "\(gaps)")
        #expect(gaps.allSatisfy { $0 < 1 }, "\(gaps)")
        #expect(daemon.stop(signal: SIGTERM) == 0)
        #expect(notify.wait { $0 == "STOPPING=1" } != nil)
    }

    /// A manager that stops reading its socket (its datagram queue holds ten) holds up no
    /// request: `sd_notify` blocks then, and the store queue used to block in it after the
    /// tenth unread beat, so every write hung. The status and beats wait coalesced meanwhile;
    /// once the socket is read again the newest status arrives, and SIGTERM still exits 0.
    @Test func aManagerThatStopsReadingHoldsUpNoRequest() throws {
        let dir = TemporaryDirectory("notify-full")
        let notify = try NotifyListener(dir)
        let daemon = try DaemonProcess(
            directory: dir, environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "100000"])
        // Unread beats fill the queue (it holds ten): a daemon thread waits in sd_notify for room.
        #expect(eventually(timeout: 10) { waitsForDatagramReceiver(daemon.pid) })
        let client = try RawClient(path: daemon.socket, timeoutSeconds: 5)
        for i in 1...20 {
            #expect(try client.result("todo.add", ["title": .string("満杯 \(i)")])["id"] == .int(Int64(i)))
        }
        #expect(try client.result("todo.get", ["id": 20])["title"] == "満杯 20")
        #expect(notify.wait { $0.hasPrefix("STATUS=20 open") } != nil, "\(notify.messages.map(\.text).suffix(5))")
        #expect(notify.messages.prefix(3).contains { $0.text == "READY=1" }, "\(notify.messages.prefix(3).map(\.text))")
        #expect(daemon.stop(signal: SIGTERM) == 0)
        #expect(notify.wait { $0 == "STOPPING=1" } != nil)
    }

    /// SIGHUP reloads nothing (todod has nothing to reload): the manager is told neither
    /// `RELOADING=1` nor `STOPPING=1`, the status line stays, and the daemon goes on serving.
    @Test func sighupSaysNothingToTheManager() throws {
        let dir = TemporaryDirectory("hup")
        let notify = try NotifyListener(dir)
        let daemon = try DaemonProcess(directory: dir, environment: ["NOTIFY_SOCKET": notify.path])
        #expect(notify.wait { $0 == "READY=1" } != nil)
        daemon.process.send(SIGHUP)
        _ = notify.wait(timeout: 1) { _ in false }
        #expect(try daemon.client().result("todo.add", ["title": "再読み込みなし"])["id"] == 1)
        #expect(notify.wait { $0.hasPrefix("STATUS=1 open") } != nil)
        #expect(
            !notify.messages.contains { $0.text.contains("RELOADING=1") || $0.text.contains("STOPPING=1") },
            "\(notify.messages.map(\.text))")
        #expect(daemon.stop(signal: SIGTERM) == 0)
        #expect(notify.wait { $0 == "STOPPING=1" } != nil)
    }

    /// The hung store comes from `todod-faults`, a test build of the daemon; `todod` has no such switch.
    @Test func aHungStoreStopsTheWatchdog() throws {
        let dir = TemporaryDirectory("hang")
        let notify = try NotifyListener(dir)
        let daemon = try DaemonProcess(
            directory: dir,
            environment: [
                "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000", "TODOD_TEST_FAULT": "hang-store-after=0.5"
            ], executable: "todod-faults")
        _ = notify.wait(timeout: 2) { _ in false }
        let beats = notify.times(of: "WATCHDOG=1")
        #expect(beats.count >= 3)
        let last = beats.last ?? 0
        let ready = notify.messages.first { $0.text == "READY=1" }?.at ?? 0
        #expect(last - ready < 1.0, "heartbeats went on after the store hung")
        daemon.stop(signal: SIGKILL)
    }

    /// The shipped daemon obeys no test switch: told to hang its store 0.2 s after start, it
    /// keeps answering and its heartbeats go on well past that (until 1 s after READY=1).
    @Test func theShippedDaemonObeysNoTestFault() throws {
        let dir = TemporaryDirectory("nofault")
        let notify = try NotifyListener(dir)
        let daemon = try DaemonProcess(
            directory: dir,
            environment: [
                "NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000", "TODOD_TEST_FAULT": "hang-store-after=0.2"
            ])
        #expect(notify.wait { $0 == "READY=1" } != nil)
        let ready = notify.messages.first { $0.text == "READY=1" }?.at ?? 0
        let late = notify.wait(timeout: 3) { _ in (notify.times(of: "WATCHDOG=1").last ?? 0) - ready > 1.0 }
        #expect(late != nil, "heartbeats stopped: \(notify.times(of: "WATCHDOG=1").map { $0 - ready })")
        #expect(try daemon.client().result("todo.add", ["title": "牛乳"])["id"] == 1)
        #expect(daemon.stop(signal: SIGTERM) == 0)
    }

    /// `systemd-socket-activate` listening on a socket in `dir` and starting todod on the first connection.
    private func activator(_ dir: TemporaryDirectory) throws -> (process: Process, socket: String, errors: Pipe) {
        let socket = dir.file("todod.sock")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "systemd-socket-activate", "-l", socket, BuiltProducts.path("todod"), "--db", dir.file("todos.db")
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        _ = eventually(timeout: 5, every: 0.01) { (try? Files.kind(socket)) == .socket }
        return (process, socket, errors)
    }

    @Test func socketActivationThroughSystemdSocketActivate() throws {
        let dir = TemporaryDirectory("activate")
        let (activator, socket, errors) = try activator(dir)
        defer {
            activator.terminate()
            activator.waitForExit()
        }
        var client: RawClient?
        _ = eventually(timeout: 5, every: 0.01) {
            client = try? RawClient(path: socket)
            return client != nil
        }
        let c = try #require(client)
        // The first request starts the daemon on the passed socket.
        let todo = try c.result("todo.add", ["title": "activated"])
        #expect(todo["id"] == 1)
        #expect(try RawClient(path: socket).result("todo.list")["total"] == 1)
        let status = try c.result("daemon.status")
        let pid = Int32(status["pid"]?.intValue ?? 0)
        #expect(pid > 0)
        // Stopping the daemon leaves the activator's socket in place (the daemon did not create it).
        kill(pid, SIGTERM)
        _ = eventually(timeout: 5, every: 0.01) { kill(pid, 0) != 0 }
        #expect(try Files.kind(socket) == .socket)
        activator.terminate()
        activator.waitForExit()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("using the socket passed by systemd"), "\(log)")
    }

    /// Socket activation: the passed socket file ends up 0600 even if it was created looser.
    @Test func aPassedSocketIsMadePrivate() throws {
        let dir = TemporaryDirectory("amode")
        let (activator, socket, _) = try activator(dir)
        defer {
            activator.terminate()
            activator.waitForExit()
        }
        try Files.chmod(socket, 0o666)
        _ = try RawClient(path: socket).result("todo.list")
        #expect(try Files.mode(socket).mode == 0o600)
    }
}
