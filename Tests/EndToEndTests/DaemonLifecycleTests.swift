import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct DaemonLifecycleTests {
    @Test func createsPrivatePathsAndRefusesASecondDaemon() throws {
        let dir = TemporaryDirectory("paths")
        let socket = dir.file("run/todod/todod.sock")
        let daemon = try DaemonProcess(directory: dir, socket: socket, database: dir.file("state/todod/todos.db"))
        #expect(try Files.mode(dir.file("run/todod")).mode == 0o700)
        #expect(try Files.mode(dir.file("state/todod")).mode == 0o700)
        #expect(try Files.mode(socket).mode == 0o600)
        #expect(try Files.mode(dir.file("state/todod/todos.db")).mode == 0o600)

        let second = try ChildProcess.run(
            BuiltProducts.path("todod"), ["--socket", socket, "--db", dir.file("other.db")])
        #expect(second.status == 1)
        #expect(second.stderr.contains("another todod is already running on \(socket)"))
        #expect(second.stderr.split(separator: "\n").count == 1)
        // The first one still serves.
        #expect(try daemon.client().result("todo.list")["total"] == 0)
    }

    @Test func refusesASecondDaemonOnTheSameDatabase() throws {
        let dir = TemporaryDirectory("samedb")
        let daemon = try DaemonProcess(directory: dir)
        _ = try daemon.client().result("todo.add", ["title": "kept"])
        let before = try Files.contents(of: daemon.database)
        let second = try ChildProcess.run(
            BuiltProducts.path("todod"), ["--socket", dir.file("second.sock"), "--db", daemon.database])
        #expect(second.status == 1)
        #expect(
            second.stderr.contains("cannot use \(daemon.database): another process has it open"), "\(second.stderr)")
        #expect(second.stderr.split(separator: "\n").count == 1)
        #expect(try Files.contents(of: daemon.database) == before)
        // The first one still serves, reads and writes.
        _ = try daemon.client().result("todo.add", ["title": "still writable"])
        #expect(try daemon.client().result("todo.list")["total"] == 2)
    }

    @Test func replacesAStaleSocket() throws {
        let dir = TemporaryDirectory("stale")
        let first = try DaemonProcess(directory: dir)
        _ = try first.client().result("todo.add", ["title": "survives"])
        #expect(first.stop(signal: SIGKILL) != 0)
        #expect(try Files.kind(first.socket) == .socket) // left behind by the dead daemon
        let second = try DaemonProcess(directory: dir)
        #expect(try second.client().result("todo.list")["total"] == 1)
    }

    @Test func refusesAPathThatIsNotASocket() throws {
        let dir = TemporaryDirectory("notsock")
        #expect(FileManager.default.createFile(atPath: dir.file("todod.sock"), contents: Data("keep".utf8)))
        let result = try ChildProcess.run(
            BuiltProducts.path("todod"), ["--socket", dir.file("todod.sock"), "--db", dir.file("t.db")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("exists and is not a socket"))
        #expect(FileManager.default.contents(atPath: dir.file("todod.sock")) == Data("keep".utf8))
    }

    @Test func refusesABadStoreUntouched() throws {
        let dir = TemporaryDirectory("badstore")
        let db = dir.file("todos.db")
        let junk = Data("not a database at all, but 512 bytes of it ".utf8 + [UInt8](repeating: 0x41, count: 512))
        #expect(FileManager.default.createFile(atPath: db, contents: junk))
        let result = try ChildProcess.run(BuiltProducts.path("todod"), ["--socket", dir.file("s"), "--db", db])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains(db))
        #expect(FileManager.default.contents(atPath: db) == junk)
    }

    @Test func usageErrorsAndHelp() throws {
        let bad = try ChildProcess.run(BuiltProducts.path("todod"), ["--sokcet", "x"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "todod: unknown option '--sokcet'; see 'todod --help'\n")
        let help = try ChildProcess.run(BuiltProducts.path("todod"), ["--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("Usage: todod"))
        let version = try ChildProcess.run(BuiltProducts.path("todod"), ["--version"])
        #expect(version.stdout == "todod \(TododVersion.string)\n")
    }

    /// SIGTERM while requests are in flight: every request the daemon read is answered, every
    /// answer it sent is durable, and it exits 0.
    @Test func sigtermFinishesInFlightRequests() throws {
        let dir = TemporaryDirectory("term")
        let daemon = try DaemonProcess(directory: dir)
        let client = try daemon.client()
        var batch: [UInt8] = []
        for i in 0..<300 {
            RPCRequest(id: .int(Int64(i)), method: "todo.add", params: ["title": .string("t\(i)")]).json.write(
                to: &batch)
            batch.append(0x0A)
        }
        try client.send(batch)
        _ = try client.receive() // the daemon is working on them
        #expect(daemon.stop(signal: SIGTERM) == 0)
        var acknowledged = 1
        while let message = try? client.receive() {
            #expect(message["result"] != nil)
            acknowledged += 1
        }
        #expect(try Files.kind(daemon.socket) == .missing)
        let again = try DaemonProcess(directory: dir)
        let total = try again.client().result("todo.list", ["status": "all", "limit": 0])["total"]?.intValue ?? -1
        #expect(total >= Int64(acknowledged))
    }

    /// SIGHUP does not stop todod (before, its default action killed it: a hangup of the terminal
    /// it ran in, or a `kill -HUP` meant as a reload): it is ignored with one line saying so, and
    /// the daemon goes on serving.
    @Test func sighupIsIgnoredWithALine() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        _ = try client.result("todo.add", ["title": "一"])
        daemon.process.send(SIGHUP)
        #expect(daemon.waitForStderr("SIGHUP ignored: todod has nothing to reload; restart it to change its options"))
        #expect(daemon.process.isRunning)
        #expect(try client.result("todo.add", ["title": "二"])["id"] == 2)
        #expect(daemon.stop(signal: SIGTERM) == 0)
        #expect(
            daemon.stderrText().contains(
                "SIGHUP ignored: todod has nothing to reload; restart it to change its options"))
    }

    /// The shipped todod obeys no benchmark switch: with the old `TODOD_BENCH_NO_CHANGE_LOG=1` it
    /// still logs every change (before, it ran without its change log and `undo` had nothing to
    /// take). The benchmark's store without a log is the test build's, `todod-faults`.
    @Test func theShippedDaemonHasNoBenchmarkSwitch() throws {
        let daemon = try DaemonProcess(environment: ["TODOD_BENCH_NO_CHANGE_LOG": "1"])
        let client = try daemon.client()
        _ = try client.result("todo.add", ["title": "一"])
        #expect(try client.result("store.undo")["changes"] == [1])
        let faults = try DaemonProcess(environment: ["TODOD_TEST_FAULT": "no-change-log"], executable: "todod-faults")
        let other = try faults.client()
        _ = try other.result("todo.add", ["title": "一"])
        #expect(try other.call("store.undo")["error"]?["message"] == "nothing to undo")
    }

    /// At SIGTERM the daemon waits for the answers already queued to be written: a client that
    /// reads its long answer only after the signal still gets all of it, and the daemon exits 0
    /// once it is written (it waits on the connection's output, not on a timer).
    @Test func sigtermWaitsForAnAnswerToBeRead() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        for part in 0..<4 {
            _ = try client.result(
                "store.import",
                [
                    "format": "todod-export", "version": 1, "categories": [], "more": .bool(part < 3),
                    "todos": .array(
                        (0..<1_000).map {
                            [
                                "title": .string("長い一覧 \(part)-\($0) " + String(repeating: "あ", count: 200)),
                                "created": "2026-01-01T00:00:00Z"
                            ]
                        })
                ])
        }
        let reader = try RawClient(path: daemon.socket, timeoutSeconds: 20)
        _ = try reader.request("todo.list", ["status": "all", "limit": 4_000])
        // The answer (about 3 MB) fills the socket and waits: what is queued for us stops growing.
        var queued: Int32 = 0
        var before: Int32 = -1
        #expect(
            eventually(timeout: 20, every: 0.05) {
                before = queued
                _ = ioctl(reader.fd, UInt(FIONREAD), &queued)
                return queued > 0 && queued == before
            })
        daemon.process.send(SIGTERM)
        // What is tested is that it does not exit meanwhile: watched for a bounded 0.3 s.
        #expect(holds(for: 0.3) { daemon.process.isRunning }, "todod exited with its answer unwritten")
        let answer = try reader.receive()
        #expect(answer["result"]?["todos"]?.arrayValue?.count == 4_000)
        #expect(daemon.process.waitForExit() == 0)
    }
}
