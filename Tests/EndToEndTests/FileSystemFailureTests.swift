#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

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
