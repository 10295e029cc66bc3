import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Every daemon class that belongs to a queue asserts it on its entry points
/// (`dispatchPrecondition`), and a wrong-queue call traps. This runs each path a request, a
/// reminder and a shutdown take through the debug build the tests run (I/O queue, read thread,
/// store queue, journal-read and journal-write queues, inline answers, group commit, parked
/// requests behind `reminder.list`, `watch` events, the status and watchdog notifications) and
/// checks that the daemon answered all of it and exited 0 on SIGTERM, with no trap.
@Suite(
    .enabled(
        if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"),
        "needs a running systemd-journald (scripts/test starts one)"))
struct QueueOwnershipTests {
    @Test func everyQueueOfTheRequestPathIsTheOneItsOwnerAsserts() throws {
        // The tests build in debug; `swift build -c release` products live under release/.
        #expect(BuiltProducts.directory.contains("/debug"), "\(BuiltProducts.directory)")
        let dir = TemporaryDirectory("queues")
        let notify = dir.file("notify.sock")
        let listener = try UnixDatagram.bind(path: notify)
        defer { Posix.close(listener) }
        let daemon = try DaemonProcess(
            directory: dir, environment: ["NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "400000"])
        do {
            try exercise(daemon, listener)
        } catch {
            let status = daemon.stop(signal: SIGKILL)
            Issue.record("\(error); the daemon's status \(status), its stderr: \(daemon.stderrText())")
        }
    }

    private func exercise(_ daemon: DaemonProcess, _ listener: Int32) throws {

        // A watcher: events go out from the I/O queue after each commit.
        let watcher = try RawClient(path: daemon.socket, timeoutSeconds: 60)
        _ = try watcher.result("watch", ["events": ["reminder", "todo.added", "todo.updated"]])

        // An idle connection's read is answered inline; a write goes through the store queue.
        let client = try daemon.client()
        #expect(try client.result("daemon.status")["storeId"]?.stringValue != nil)
        let title = unique("キュー")
        let due = try client.result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        let id = try #require(due["id"])

        // A pipelined burst: group commit, a streamed listing, and requests parked behind
        // `reminder.list` (read on the journal queue) until its answer is handed over.
        let burst = try RawClient(path: daemon.socket, timeoutSeconds: 60)
        var ids: [Int64] = []
        for i in 0..<20 { ids.append(try burst.request("todo.add", ["title": .string("\(title) \(i)")])) }
        ids.append(try burst.request("reminder.list", ["limit": 5]))
        ids.append(try burst.request("todo.list"))
        for i in 0..<5 {
            ids.append(try burst.request("todo.update", ["id": id, "title": .string("\(title) 更新 \(i)")]))
        }
        var answered: [Int64] = []
        while answered.count < ids.count {
            let message = try burst.receive()
            #expect(message["error"] == nil, "\(message.serialized())")
            if let n = message["id"]?.intValue { answered.append(n) }
        }
        #expect(answered == ids, "answers in request order")

        // The reminder fires on the store queue's timer, goes to the journal from the delivery
        // queue and out to the watcher from the I/O queue.
        var reminded = false
        for _ in 0..<100 where !reminded {
            let event = try watcher.receive()
            reminded = event["params"]?["type"] == "reminder" && event["params"]?["todo"]?["id"] == id
        }
        #expect(reminded)

        // STATUS= from the store queue, WATCHDOG=1 from its timer there.
        var said: [String] = []
        let until = Date().addingTimeInterval(30)
        while Date() < until, let bytes = UnixDatagram.receive(listener, timeoutMilliseconds: 1000) {
            said.append(String(decoding: bytes, as: UTF8.self))
            if said.contains(where: { $0.hasPrefix("STATUS=21 open") }) && said.contains("WATCHDOG=1") { break }
        }
        #expect(said.contains { $0.hasPrefix("STATUS=21 open") }, "\(said)")
        #expect(said.contains("WATCHDOG=1"), "\(said)")

        // Shutdown with a request in flight: the stop runs on the I/O queue, the barrier on the
        // store and journal queues, and the last answer still leaves.
        let last = try burst.request("todo.add", ["title": .string(title + " 最後")])
        let status = daemon.stop(signal: SIGTERM)
        let stderr = daemon.stderrText()
        #expect(status == 0, "exit status \(status) (128+\(SIGTRAP) or 128+\(SIGILL) is a trap): \(stderr)")
        #expect(!stderr.contains("dispatchPrecondition") && !stderr.contains("Fatal error"), "\(stderr)")
        let answer = try? burst.receive()
        #expect(answer == nil || answer?["id"] == .int(last))
    }
}
