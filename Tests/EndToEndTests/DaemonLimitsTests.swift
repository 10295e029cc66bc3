#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// Seconds on the monotonic clock.
private func now() -> Double { Posix.monotonicSeconds() }

/// `todod` started through `launcher` (e.g. `prlimit`) with standard error going to `stderr`.
private func startTodod(_ dir: TemporaryDirectory, launcher: [String] = [], stderr: FileHandle,
                        environment: [String: String] = [:]) throws -> Process {
    let process = Process()
    let todod = BuiltProducts.path("todod")
    let command = launcher + [todod, "--socket", dir.file("todod.sock"), "--db", dir.file("todos.db")]
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    var env = ProcessInfo.processInfo.environment
    env["JOURNAL_STREAM"] = nil
    for (k, v) in environment { env[k] = v }
    process.environment = env
    process.standardError = stderr
    try process.run()
    for _ in 0..<500 {
        if let fd = try? UnixSocket.connect(path: dir.file("todod.sock")) {
            Posix.close(fd)
            return process
        }
        guard process.isRunning else { throw DaemonProcessError.exited(process.waitForExit(), "") }
        usleep(10_000)
    }
    throw DaemonProcessError.notListening("")
}

/// The number of descriptors `pid` has open.
private func openDescriptors(_ pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
}

@Suite struct LoggingFailureTests {
    /// Standard error on a full disk (/dev/full: ENOSPC) or a pipe nobody reads any more (EPIPE):
    /// the daemon logs its start, serves, logs its stop and exits 0, where a trap in Foundation's
    /// `FileHandle.write` used to end it with status 132 at the first line.
    @Test func aFullOrClosedStandardErrorNeitherKillsNorStopsTheDaemon() throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let closedPipe = Pipe()
        try closedPipe.fileHandleForReading.close()
        for (name, stderr) in [("/dev/full", full), ("a closed pipe", closedPipe.fileHandleForWriting)] {
            let dir = TemporaryDirectory("log")
            let process = try startTodod(dir, stderr: stderr)
            let client = try RawClient(path: dir.file("todod.sock"))
            #expect(try client.result("todo.add", ["title": "書く"])["id"] == 1, "\(name)")
            kill(process.processIdentifier, SIGTERM)
            #expect(process.waitForExit() == 0, "stderr on \(name)")
        }
    }
}

@Suite struct DescriptorExhaustionTests {
    /// Under `prlimit --nofile=64`, 80 connections run the daemon out of descriptors (accept fails
    /// with EMFILE). Once they are closed, new clients are served at once: the daemon sheds the
    /// connections it cannot hold through a reserve descriptor and never stops accepting. It used
    /// to take the listener out of its poll set and never put it back.
    @Test func newClientsAreServedAsSoonAsDescriptorsAreFreeAgain() throws {
        let dir = TemporaryDirectory("emfile")
        let stderr = Pipe()
        let process = try startTodod(dir, launcher: ["/usr/bin/prlimit", "--nofile=64:64"], stderr: stderr.fileHandleForWriting)
        defer { kill(process.processIdentifier, SIGKILL); process.waitForExit() }
        var crowd = try (0..<80).map { _ in try RawClient(path: dir.file("todod.sock"), timeoutSeconds: 5) }
        // The last of them was shed or is waiting: either way the daemon is at its limit now.
        for client in crowd { try? client.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"daemon.status\"}\n") }
        #expect(try crowd[0].receive()["result"] != nil)
        let atLimit = openDescriptors(process.processIdentifier)
        crowd = []
        let started = now()
        // The daemon frees its descriptors as it reads the crowd's end of input.
        while openDescriptors(process.processIdentifier) > atLimit - 40 && now() - started < 5 { usleep(1000) }
        for i in 0..<3 {
            let client = try RawClient(path: dir.file("todod.sock"), timeoutSeconds: 5)
            #expect(try client.result("daemon.status")["pid"] == .int(Int64(process.processIdentifier)), "client \(i)")
        }
        let elapsed = now() - started
        print("3 new clients served \(String(format: "%.1f", elapsed * 1000)) ms after the EMFILE crowd left (\(atLimit) descriptors at the limit)")
        #expect(elapsed < 3)
    }
}

/// Needs root, to run the flood as `nobody`.
@Suite struct ForeignFloodTests {
    /// 10,000 connections from another uid, kept open, while the owner works: the daemon holds
    /// few descriptors for them (at most 64 refused peers linger), logs a handful of lines, not
    /// one per connection, and the owner is served throughout.
    @Test(.enabled(if: getuid() == 0, "switching to the nobody user needs root"))
    func aFloodFromAnotherUserIsRefusedCheaply() throws {
        let dir = TemporaryDirectory("flood")
        try Files.chmod(dir.path, 0o755)
        let logPath = dir.file("todod.log")  // a file: read whole after the daemon exits
        #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
        let daemon = try startTodod(dir, stderr: try #require(FileHandle(forWritingAtPath: logPath)))
        var exited = false
        defer { if !exited { kill(daemon.processIdentifier, SIGKILL); daemon.waitForExit() } }
        let socket = dir.file("todod.sock")
        try Files.chmod(socket, 0o666)
        let script = """
            import resource, socket
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 12000), hard))
            kept = []
            for i in range(10000):
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect("\(socket)")
                except OSError:
                    s.close()
                    continue
                kept.append(s)
            print(len(kept))
            """
        let flood = Process()
        flood.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        flood.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script]
        let floodOutput = Pipe()
        flood.standardOutput = floodOutput
        try flood.run()
        let owner = try RawClient(path: socket)
        var worst = 0.0
        var mostDescriptors = 0
        var requests = 0
        while flood.isRunning || requests < 20 {
            let t = now()
            #expect(try owner.result("todo.add", ["title": .string("owner \(requests)")])["id"] != nil)
            worst = max(worst, now() - t)
            mostDescriptors = max(mostDescriptors, openDescriptors(daemon.processIdentifier))
            requests += 1
        }
        #expect(flood.waitForExit() == 0)
        let connected = Int(String(decoding: floodOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(try owner.result("todo.list", ["limit": 0])["total"] == .int(Int64(requests)))
        kill(daemon.processIdentifier, SIGTERM)
        #expect(daemon.waitForExit() == 0)
        exited = true
        let refusals = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").filter { $0.contains("refused a connection") }
        print("flood of \(connected) connections: owner's worst latency \(String(format: "%.1f", worst * 1000)) ms over \(requests) adds, "
              + "at most \(mostDescriptors) descriptors, \(refusals.count) log lines")
        #expect(mostDescriptors < 300, "the daemon held \(mostDescriptors) descriptors")
        #expect(connected > 9000)
        #expect((1...5).contains(refusals.count), "\(refusals.count) log lines for the refusals")
    }
}

/// Request lines for `count` requests of `method` with `params`, ids from `firstID`.
private func lines(_ count: Int, _ method: String, _ params: (Int) -> JSONObject, firstID: Int = 1) -> [UInt8] {
    var bytes: [UInt8] = []
    for i in 0..<count {
        RPCRequest(id: .int(Int64(firstID + i)), method: method, params: params(i)).json.write(to: &bytes)
        bytes.append(0x0A)
    }
    return bytes
}

@Suite struct BackpressureTests {
    /// A client that writes 60,000 adds before it reads a single answer gets all 60,000 answers,
    /// in order: the daemon stops taking its requests while the answers are not read, instead of
    /// running them and cutting the client off at the output bound (33,969 ran, none answered).
    @Test func sixtyThousandAddsWrittenBeforeReadingAreAllAnswered() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        try client.send(lines(60_000, "todo.add", { ["title": .string("todo \($0) を書く")] }))
        for i in 1...60_000 {
            let answer = try client.receive()
            guard answer["id"] == .int(Int64(i)), answer["result"]?["id"] == .int(Int64(i)) else {
                Issue.record("answer \(i): \(answer.serialized().prefix(200))")
                return
            }
        }
        #expect(try daemon.client().result("todo.list", ["limit": 0])["total"] == 60_000)
    }

    /// A client that pipelines listings and never reads: the daemon's memory stays bounded (the
    /// streamed answers count against the connection's output bound, and no new request is taken
    /// while output waits), and other clients are served meanwhile. It grew to 949 MB before.
    @Test func aNeverReadingClientOfListingsKeepsTheDaemonSmall() throws {
        let daemon = try DaemonProcess()
        let setup = try daemon.client()
        try setup.send(lines(20, "store.import", { part in
            ["format": "todod-export", "version": 1, "more": .bool(part < 19), "categories": [],
             "todos": .array((0..<1000).map { i in ["title": .string("一覧 \(part)-\(i) " + String(repeating: "x", count: 100)), "created": "2026-01-01T00:00:00Z"] })]
        }))
        for _ in 0..<20 { #expect(try setup.receive()["result"] != nil) }
        let rssBefore = residentKiB(daemon.pid)
        let silent = try daemon.client()
        var sent = 0
        // As many listings as the daemon takes: a write that waits a second ends the sending.
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(silent.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = lines(100, "todo.list", { _ in ["status": "all"] })
        while sent < 20_000 {
            guard let n = try? Posix.write(silent.fd, request, from: 0), n == request.count else { break }
            sent += 100
        }
        // Another client is served while the silent one holds its answers.
        let other = try daemon.client()
        var peak = 0
        for _ in 0..<20 {
            #expect(try other.result("todo.list", ["limit": 1])["total"] == 20_000)
            peak = max(peak, residentKiB(daemon.pid))
            usleep(50_000)
        }
        print("never-reading client: \(sent) listings of 20,000 todos (~2.7 MB each) sent; daemon RSS \(rssBefore) KiB before, at most \(peak) KiB")
        #expect(peak < rssBefore + 120 * 1024, "RSS \(peak) KiB")
    }

    /// An import held in parts is bounded in bytes, not only in todos: past 256 MiB held the part
    /// is refused with -32602 naming `todos`, and everything held is dropped.
    @Test func anImportHeldInPartsIsBoundedInBytes() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let notes = String(repeating: "n", count: 60_000)
        let part: JSONObject = ["format": "todod-export", "version": 1, "more": true, "categories": [],
                                "todos": .array((0..<16).map { _ in ["title": "重い", "notes": .string(notes), "created": "2026-01-01T00:00:00Z"] })]
        var refused: JSON?
        for _ in 0..<400 {  // 16 todos of 60 kB a part: about 1 MB a part, so the bound is hit near part 270
            let answer = try client.call("store.import", part)
            if answer["error"] != nil { refused = answer; break }
        }
        #expect(refused?["error"]?["code"] == -32602)
        #expect(refused?["error"]?["data"]?["field"] == "todos")
        // Nothing was held any more: a last part imports only itself.
        var last = part
        last["more"] = false
        #expect(try client.result("store.import", last)["todos"] == 16)
    }
}

@Suite struct LongWorkTests {
    /// A 100,000-todo import runs as one transaction on the store queue (atomic for every reader),
    /// and WATCHDOG=1 keeps coming while it applies: the import tells the watchdog it moves every
    /// 100 todos. Before, the messages stopped for the whole import and a long one got the
    /// daemon killed. Prints the longest silence and other clients' worst latency.
    @Test func theWatchdogHearsFromALongImport() throws {
        let dir = TemporaryDirectory("longwork")
        let notifyPath = dir.file("notify.sock")
        let notify = try UnixDatagram.bind(path: notifyPath)
        defer { Posix.close(notify) }
        let daemon = try DaemonProcess(directory: dir, environment: ["NOTIFY_SOCKET": notifyPath, "WATCHDOG_USEC": "1000000"])
        let beats = LockedBox<[Double]>([])
        let worst = LockedBox(0.0)
        let done = LockedBox(false)
        let listener = Thread {
            while !done.value {
                if let bytes = UnixDatagram.receive(notify, timeoutMilliseconds: 50), bytes == Array("WATCHDOG=1".utf8) {
                    let t = now()
                    beats.mutate { $0.append(t) }
                }
            }
        }
        listener.start()
        nonisolated(unsafe) let otherClient = try daemon.client()  // used by that thread alone
        let other = Thread {
            while !done.value {
                let t = now()
                _ = try? otherClient.result("daemon.status")
                let took = now() - t
                worst.mutate { $0 = max($0, took) }
                usleep(20_000)
            }
        }
        other.start()
        let importer = try RawClient(path: daemon.socket, timeoutSeconds: 120)
        usleep(700_000)  // a beat or two before the import
        let started = now()
        try importer.send(lines(20, "store.import", { part in
            ["format": "todod-export", "version": 1, "more": .bool(part < 19), "categories": [],
             "todos": .array((0..<5000).map { i in ["title": .string("取り込み \(part)-\(i)"), "created": "2026-01-01T00:00:00Z"] })]
        }))
        var last: JSON = .null
        for _ in 0..<20 { last = try importer.receive() }
        let took = now() - started
        usleep(700_000)
        done.value = true
        while listener.isExecuting || other.isExecuting { usleep(10_000) }
        #expect(last["result"]?["todos"] == 100_000)
        let during = beats.value.filter { $0 > started - 0.5 }
        let silence = zip(during, during.dropFirst()).map { $1 - $0 }.max() ?? .infinity
        print("100,000-todo import: \(String(format: "%.2f", took)) s; longest watchdog silence \(String(format: "%.2f", silence)) s "
              + "(interval 1 s); other clients' worst latency \(String(format: "%.0f", worst.value * 1000)) ms")
        #expect(silence < 1.0, "WATCHDOG=1 stopped for \(silence) s")
    }
}
