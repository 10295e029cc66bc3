#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// The daemon's resident memory in KiB (VmRSS).
func residentKiB(_ pid: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

/// Runs `mount` (or any command) and fails the test when it does not succeed.
private func run(_ program: String, _ arguments: [String]) throws {
    let result = try ChildProcess.run(program, arguments)
    guard result.status == 0 else { throw RawClientError.failed("\(program) \(arguments): \(result.stderr)") }
}

@Suite struct OverloadTests {
    /// 1,000 idle connections and a `watch` subscriber that never reads, while another client does
    /// 10,000 operations: every operation succeeds, the non-reader is cut off at its output bound,
    /// and the daemon's memory stays bounded.
    @Test func idleConnectionsAndANonReaderDoNotStallOthers() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

        let daemon = try DaemonProcess()
        let idle = try (0..<1000).map { _ in try daemon.client() }
        let nonReader = try daemon.client()
        try nonReader.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"watch\"}\n")
        let rssIdle = residentKiB(daemon.pid)

        let worker = try daemon.client()
        let long = String(repeating: "長いタイトル", count: 150)  // ~900 characters: events of about 3 KiB
        var ok = 0
        for batch in 0..<100 {
            var lines: [UInt8] = []
            for i in 0..<100 {
                let id = Int64(batch * 100 + i)
                let request = id % 5 == 4
                    ? RPCRequest(id: .int(id), method: "todo.list", params: ["limit": 1])
                    : RPCRequest(id: .int(id), method: "todo.add", params: ["title": .string("\(id) \(long)")])
                request.json.write(to: &lines)
                lines.append(0x0A)
            }
            try worker.send(lines)
            for _ in 0..<100 where try worker.receive()["result"] != nil { ok += 1 }
        }
        #expect(ok == 10_000)
        let rssAfter = residentKiB(daemon.pid)
        print("daemon RSS: \(rssIdle) KiB with 1,000 idle connections; \(rssAfter) KiB after 10,000 operations")
        #expect(rssAfter < 200 * 1024, "RSS \(rssAfter) KiB")
        // The subscriber that never read was cut off: draining its socket ends in end-of-file.
        #expect(nonReader.isClosedByPeer())
        // Idle connections are still served.
        #expect(try idle[0].result("todo.list", ["limit": 0])["total"] == 8000)
        #expect(try idle[999].result("daemon.status")["open"] == 8000)
    }
}

/// Needs root: mounts small tmpfs file systems and runs the daemon on them.
@Suite(.serialized, .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct FileSystemFailureTests {
    @Test func aFullDiskFailsWritesClearlyKeepsReadsAndRecovers() throws {
        let dir = TemporaryDirectory("full")
        try run("mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", dir.path])
        defer { _ = try? ChildProcess.run("umount", ["-l", dir.path]) }
        let daemon = try DaemonProcess(directory: dir)
        let c = try daemon.client()
        for i in 0..<20 { _ = try c.result("todo.add", ["title": .string("before \(i)")]) }
        // Fill the file system, leaving nothing for the WAL.
        _ = try? ChildProcess.run("dd", ["if=/dev/zero", "of=\(dir.file("filler"))", "bs=64k"])
        var failure: JSON?
        for i in 0..<2000 {
            let answer = try c.call("todo.add", ["title": .string("filling \(i) " + String(repeating: "x", count: 900))])
            if answer["error"] != nil { failure = answer; break }
        }
        let error = try #require(failure?["error"])
        #expect(error["code"] == -32004)
        #expect(error["message"]?.stringValue?.contains("disk is full") == true, "\(error)")
        // Reads keep working, the daemon keeps running.
        let listed = try c.result("todo.list", ["status": "all", "limit": 0])
        let total = listed["total"]?.intValue ?? 0
        #expect(total >= 20)
        #expect(kill(daemon.pid, 0) == 0)
        // Space comes back: writes succeed again.
        try FileManager.default.removeItem(atPath: dir.file("filler"))
        let after = try c.call("todo.add", ["title": "after the disk emptied"])
        #expect(after["result"]?["title"] == "after the disk emptied", "\(after)")
        #expect(daemon.stop() == 0)
        #expect(try ChildProcess.sqlite3(daemon.database, "PRAGMA integrity_check;") == "ok")
        #expect(try ChildProcess.sqlite3(daemon.database, "SELECT count(*) FROM todos;") == String(total + 1))
    }

    /// A read-only database is refused at start (documented choice): exit 1, one line, untouched.
    @Test func aReadOnlyDatabaseIsRefusedAtStart() throws {
        let dir = TemporaryDirectory("ro")
        try run("mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", dir.path])
        defer { _ = try? ChildProcess.run("umount", ["-l", dir.path]) }
        let sockets = TemporaryDirectory("ro-sock")  // off the file system made read-only below
        let first = try DaemonProcess(directory: dir, socket: sockets.file("todod.sock"))
        _ = try first.client().result("todo.add", ["title": "keep"])
        #expect(first.stop() == 0)
        try run("mount", ["-o", "remount,ro", dir.path])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("todos.db")))
        let result = try ChildProcess.run(BuiltProducts.path("todod"), ["--socket", sockets.file("todod.sock"), "--db", dir.file("todos.db")])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("read-only"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("todos.db"))) == bytes)
    }
}

@Suite struct BadStoreTests {
    private func refuses(_ path: String, mentioning words: String) throws {
        let dir = TemporaryDirectory("bad")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try ChildProcess.run(BuiltProducts.path("todod"), ["--socket", dir.file("s"), "--db", path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(words), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func corruptNonDatabaseAndFutureStoresAreRefusedUntouched() throws {
        let dir = TemporaryDirectory("stores")
        // A real store, then one with its first page (the schema) overwritten.
        let daemon = try DaemonProcess(directory: dir, database: dir.file("good.db"))
        _ = try daemon.client().result("todo.add", ["title": "x"])
        #expect(daemon.stop() == 0)
        var corrupt = try Data(contentsOf: URL(fileURLWithPath: dir.file("good.db")))
        for i in 100..<min(4000, corrupt.count) { corrupt[i] = UInt8(truncatingIfNeeded: i * 7) }
        try corrupt.write(to: URL(fileURLWithPath: dir.file("corrupt.db")))
        try refuses(dir.file("corrupt.db"), mentioning: "corrupt.db")

        try Data("# notes\nnot a database\n".utf8).write(to: URL(fileURLWithPath: dir.file("notes.db")))
        try refuses(dir.file("notes.db"), mentioning: "not a database")

        _ = try ChildProcess.sqlite3(dir.file("good.db"), "INSERT INTO todod_migrations VALUES (999, 'future', 0);")
        try refuses(dir.file("good.db"), mentioning: "newer todod")
    }
}
