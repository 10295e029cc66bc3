import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

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
            let answer = try c.call(
                "todo.add", ["title": .string("filling \(i) " + String(repeating: "x", count: 900))])
            if answer["error"] != nil {
                failure = answer
                break
            }
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

    /// An import of `count` todos with 300 bytes of notes each (about 2 KB a todo in the store).
    private func importFile(_ dir: TemporaryDirectory, _ name: String, count: Int) throws -> String {
        let todos: [JSON] = (0..<count).map { i in
            [
                "title": .string("やること \(name) \(i)"), "notes": .string(String(repeating: "x", count: 300)),
                "created": "2026-11-01T00:00:00Z"
            ]
        }
        let path = dir.file(name + ".json")
        try JSON.object(["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)]).serialized()
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The error of the first of up to 2,000 adds that fails (nil when none does).
    private func refusedAdd(_ c: RawClient) throws -> JSON? {
        for i in 0..<2000 {
            let answer = try c.call(
                "todo.add", ["title": .string("filling \(i) " + String(repeating: "x", count: 900))])
            if let error = answer["error"] { return error }
        }
        return nil
    }

    /// The write-ahead log's size (0 when there is none).
    private func walSize(_ daemon: DaemonProcess) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: daemon.database + "-wal"))?[.size] as? NSNumber)?.int64Value
            ?? 0
    }

    /// An import the file system has no room for is refused before it is acknowledged (it used to
    /// be acknowledged, its WAL then filled the disk and every later write failed, even after a
    /// restart); one that fits leaves no large WAL behind (it kept the size of the import until
    /// the daemon stopped). Space that comes back is used again, with and without a restart.
    @Test func aLargeWriteFitsWholeOrIsRefusedAndTheLogDoesNotStay() throws {
        let dir = TemporaryDirectory("room")
        try run("mount", ["-t", "tmpfs", "-o", "size=40m,mode=0700", "tmpfs", dir.path])
        defer { _ = try? ChildProcess.run("umount", ["-l", dir.path]) }
        let daemon = try DaemonProcess(directory: dir)
        let files = TemporaryDirectory("imports") // off the small file system
        let big = try importFile(files, "big", count: 12_000)
        let small = try importFile(files, "small", count: 3_000)
        let refused = try daemon.todoctl(["import", big])
        #expect(
            refused.status == 1
                && refused.stderr.hasPrefix("todoctl: storage failure: the disk is full: this change needs about ")
                && refused.stderr.hasSuffix("; nothing of it was written\n"), "\(refused.stderr)")
        let c = try daemon.client()
        #expect(try c.result("todo.list", ["status": "all", "limit": 0])["total"] == 0)
        #expect(walSize(daemon) <= 4 << 20, "\(walSize(daemon)) bytes of WAL")
        _ = try c.result("todo.add", ["title": "after the refusal"])
        // One that fits: its log goes into the file and is cut back.
        let imported = try daemon.todoctl(["import", small])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(walSize(daemon) <= 4 << 20, "\(walSize(daemon)) bytes of WAL")
        // Full, then room again: without a restart, then with one.
        func fill() { _ = try? ChildProcess.run("dd", ["if=/dev/zero", "of=\(dir.file("filler"))", "bs=64k"]) }
        fill()
        #expect(try refusedAdd(c)?["message"]?.stringValue?.contains("disk is full") == true)
        try FileManager.default.removeItem(atPath: dir.file("filler"))
        #expect(try c.call("todo.add", ["title": "room again"])["result"]?["title"] == "room again")
        fill()
        #expect(daemon.stop() == 0)
        let again = try DaemonProcess(directory: dir)
        let d = try again.client()
        #expect(try refusedAdd(d)?["message"]?.stringValue?.contains("disk is full") == true)
        try FileManager.default.removeItem(atPath: dir.file("filler"))
        #expect(try d.call("todo.add", ["title": "after the restart"])["result"]?["title"] == "after the restart")
        #expect(again.stop() == 0)
        #expect(try ChildProcess.sqlite3(daemon.database, "PRAGMA integrity_check;") == "ok")
    }

    /// A listing its reader has not read yet waits in a spool file beside the store; on a full
    /// disk that file cannot take it, the reader is cut off, and the log says why (it blamed "a
    /// client that stopped reading").
    @Test func aSpoolOnAFullDiskSaysSo() throws {
        let dir = TemporaryDirectory("spool")
        try run("mount", ["-t", "tmpfs", "-o", "size=128m,mode=0700", "tmpfs", dir.path])
        defer { _ = try? ChildProcess.run("umount", ["-l", dir.path]) }
        let daemon = try DaemonProcess(directory: dir)
        let c = try RawClient(path: daemon.socket, timeoutSeconds: 120)
        let notes = String(repeating: "x", count: 4_000)
        for part in 0..<15 { // 3,000 todos, 12 MB of listing: more than the 8 MiB held in memory
            let todos: [JSON] = (0..<200).map { i in ["title": .string("木 \(part) \(i)"), "notes": .string(notes)] }
            _ = try c.result(
                "store.import", ["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)])
        }
        _ = try? ChildProcess.run("dd", ["if=/dev/zero", "of=\(dir.file("filler"))", "bs=64k"])
        // The daemon's end of a connection is listed with the socket's path (/proc/net/unix).
        func sockets() -> Int {
            let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
            return table.split(separator: "\n").filter { $0.hasSuffix(" " + daemon.socket) }.count
        }
        let reader = try RawClient(path: daemon.socket)
        try reader.send(
            Array(#"{"jsonrpc":"2.0","id":1,"method":"todo.list","params":{"status":"all"}}"#.utf8) + [0x0A])
        #expect(eventually(timeout: 60) { sockets() == 2 }) // c and the listener: the reader is gone
        #expect(try c.result("daemon.status")["open"] == 3_000, "the daemon serves on")
        #expect(daemon.stop() == 0)
        let log = daemon.stderrText()
        #expect(
            log.contains(
                "reading slower than todod answers: cannot spool the rest of its answers in \(dir.path): No space left on device"
            )
                && !log.contains("stopped reading"), "\(log)")
    }

    /// A read-only database is refused at start (documented choice): exit 1, one line, untouched.
    @Test func aReadOnlyDatabaseIsRefusedAtStart() throws {
        let dir = TemporaryDirectory("ro")
        try run("mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", dir.path])
        defer { _ = try? ChildProcess.run("umount", ["-l", dir.path]) }
        let sockets = TemporaryDirectory("ro-sock") // off the file system made read-only below
        let first = try DaemonProcess(directory: dir, socket: sockets.file("todod.sock"))
        _ = try first.client().result("todo.add", ["title": "keep"])
        #expect(first.stop() == 0)
        try run("mount", ["-o", "remount,ro", dir.path])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("todos.db")))
        let result = try ChildProcess.run(
            BuiltProducts.path("todod"), ["--socket", sockets.file("todod.sock"), "--db", dir.file("todos.db")])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("read-only"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("todos.db"))) == bytes)
    }
}
