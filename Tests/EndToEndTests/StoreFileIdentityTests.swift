import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A database file deleted or replaced under a running daemon is noticed, writes are refused, and
/// the old write-ahead log never lands on the replacement.
@Suite struct StoreFileIdentityTests {
    /// Waits (up to 10 s) until `daemon.status` reports a database problem, and returns it.
    private func awaitProblem(_ daemon: DaemonProcess) throws -> String? {
        let client = try daemon.client()
        var problem: String?
        _ = try eventually(timeout: 10, every: 0.01) {
            problem = try client.result("daemon.status")["databaseProblem"]?.stringValue
            return problem != nil
        }
        return problem
    }

    @Test func aDeletedDatabaseRefusesWritesAndSaysSo() throws {
        let daemon = try DaemonProcess()
        #expect(try daemon.todoctl(["add", "残る"]).status == 0)
        #expect(unlink(daemon.database) == 0)
        let add = try daemon.todoctl(["add", "消える"])
        #expect(add.status == 1, "\(add.status) \(add.stdout)")
        #expect(
            add.stderr.contains("the database file \(daemon.database) was deleted while todod was running"),
            "\(add.stderr)")
        let raw = try daemon.client().call("todo.add", ["title": "raw"])
        #expect(raw["error"]?["code"] == .int(-32004), "\(raw.serialized())")
        // Reads go on from the open file; status says what happened.
        let list = try daemon.todoctl(["list"])
        #expect(list.status == 0 && list.stdout.contains("残る") && !list.stdout.contains("消える"))
        let status = try daemon.todoctl(["status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("Problem") && status.stdout.contains("was deleted"), "\(status.stdout)")
        let json = try daemon.client().result("daemon.status")
        #expect(json["databaseProblem"]?.stringValue?.contains("restarted") == true)
        #expect(daemon.stop() == 0)
        // A restart starts an empty store at the path.
        let again = try DaemonProcess(directory: daemon.directory)
        #expect(try again.client().result("daemon.status")["databaseProblem"] == .null)
        #expect(try again.client().result("todo.list")["total"] == .int(0))
        _ = try again.client().result("todo.add", ["title": "new"])
    }

    /// The file is replaced (`mv other.db todos.db`) while the daemon has changes in its log; it
    /// notices without a write, and even a `kill -9` afterwards leaves the replacement intact.
    @Test func aReplacedDatabaseIsNeverOverwrittenByTheOldLog() throws {
        let dir = TemporaryDirectory("replaced")
        let other = try DaemonProcess(directory: dir, socket: dir.file("other.sock"), database: dir.file("other.db"))
        for i in 1...3 { _ = try other.client().result("todo.add", ["title": .string("替わり \(i)")]) }
        #expect(other.stop() == 0)

        let daemon = try DaemonProcess(directory: dir)
        let client = try daemon.client()
        for i in 1...200 {
            _ = try client.result("todo.add", ["title": .string("元 \(i) " + String(repeating: "長", count: 200))])
        }
        #expect(rename(dir.file("other.db"), daemon.database) == 0)
        let problem = try awaitProblem(daemon)
        #expect(problem?.contains("was replaced by another file") == true, "\(problem ?? "no problem reported")")
        let add = try client.call("todo.add", ["title": "after"])
        #expect(add["error"]?["code"] == .int(-32004), "\(add.serialized())")
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)

        let restarted = try DaemonProcess(directory: dir)
        let titles = try restarted.client().result("todo.list")["todos"]?.arrayValue?.compactMap {
            $0["title"]?.stringValue
        }
        #expect(titles == ["替わり 1", "替わり 2", "替わり 3"])
        #expect(restarted.stop() == 0)
        #expect(try ChildProcess.sqlite3(daemon.database, "PRAGMA integrity_check") == "ok")
    }

    /// A log left by a daemon that died after its database was deleted is not replayed into a
    /// new database: todod refuses to start and leaves the log alone.
    @Test func aLogWithoutItsDatabaseIsRefusedAtStart() throws {
        let dir = TemporaryDirectory("orphan-wal")
        let daemon = try DaemonProcess(directory: dir)
        for i in 1...20 { _ = try daemon.client().result("todo.add", ["title": .string("t\(i)")]) }
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)
        let log = try Files.contents(of: daemon.database + "-wal")
        #expect(!log.isEmpty)
        #expect(unlink(daemon.database) == 0)
        let result = try ChildProcess.run(
            "timeout",
            [
                "-s", "KILL", "20", BuiltProducts.path("todod"),
                "--socket", daemon.socket, "--db", daemon.database
            ])
        #expect(result.status == 1, "\(result.status) \(result.stderr)")
        #expect(
            result.stderr.contains("\(daemon.database)-wal holds changes of a database that is no longer there"),
            "\(result.stderr)")
        #expect(try Files.contents(of: daemon.database + "-wal") == log)
    }
}
