import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `todoctl watch` when todod goes away (one line, exit 69) and with `--reconnect` across a
/// restart of todod (no gap, no duplicate); `reminder` events with their `seq` and `todos`.
@Suite(.serialized) struct WatchReconnectTests {
    private func watch(_ daemon: DaemonProcess, _ arguments: [String], _ dir: TemporaryDirectory, _ name: String) throws
        -> BackgroundProcess
    {
        try BackgroundProcess.started(
            BuiltProducts.path("todoctl"), ["watch"] + arguments,
            environment: ["TODOD_SOCKET": daemon.socket, "NO_COLOR": "1"], output: dir.file(name))
    }

    @Test func watchEndsWithOneLineAndExit69WhenTodoDGoesAway() throws {
        let dir = TemporaryDirectory("wg")
        let daemon = try DaemonProcess(directory: dir)
        let watcher = try watch(daemon, [], dir, "w")
        // Waits for the watcher's first event, not for a fixed time: a todo added before it
        // subscribed is not shown, so one is added each round until one is.
        let client = try daemon.client()
        #expect(
            NotifyTestSupport.eventually(timeout: 10) {
                _ = try? client.result("todo.add", ["title": "見える"])
                return watcher.stdout.contains("見える")
            })
        daemon.stop()
        #expect(NotifyTestSupport.eventually(timeout: 10) { !watcher.process.isRunning })
        #expect(watcher.stop() == 69)
        let lines = watcher.stderr.split(separator: "\n")
        #expect(
            lines.count == 1 && lines[0].hasPrefix("todoctl: todod at ") && lines[0].contains("went away"),
            "\(watcher.stderr)")
    }

    @Test func reconnectResumesAfterTheLastSeqWithNoGapAndNoDuplicate() throws {
        let dir = TemporaryDirectory("wr")
        var daemon: DaemonProcess? = try DaemonProcess(directory: dir)
        let socket = daemon!.socket
        let database = daemon!.database
        let watcher = try watch(daemon!, ["--json", "--reconnect"], dir, "w")
        func added() -> [(seq: Int64, title: String)] {
            watcher.stdoutLines.compactMap { try? JSON.parse($0) }.filter { $0["type"] == "todo.added" }
                .map { ($0["seq"]?.intValue ?? -1, $0["todos"]?.arrayValue?.first?["title"]?.stringValue ?? "?") }
        }
        // Waits for the watcher's first event, not for a fixed time: "one" is added each round
        // until the watcher shows one (those added before it subscribed are not shown; those
        // after are, each once: `ones` of them).
        #expect(
            eventually(timeout: 10) {
                _ = try? daemon!.client().result("todo.add", ["title": "one"])
                return !added().isEmpty
            })
        let first = try #require(added().first?.seq)
        let ones = Int(try #require(try daemon!.client().result("daemon.status")["seq"]?.intValue) - first + 1)
        daemon?.stop()
        daemon = nil
        daemon = try DaemonProcess(directory: dir, socket: socket, database: database)
        // Made at once, most likely before the watcher is back: they come as the replay.
        for title in ["two", "three"] { _ = try daemon!.client().result("todo.add", ["title": .string(title)]) }
        #expect(eventually(timeout: 10) { added().count >= ones + 2 }, "\(watcher.stdout)")
        _ = try daemon!.client().result("todo.add", ["title": "four"])
        // And one more: once it shows, whatever was sent before it (a duplicate too) has come.
        _ = try daemon!.client().result("todo.add", ["title": "five"])
        #expect(eventually(timeout: 10) { added().last?.title == "five" })
        #expect(added().map(\.seq) == Array(first...(first + Int64(ones) + 3)), "\(watcher.stdout)")
        #expect(added().map(\.title) == Array(repeating: "one", count: ones) + ["two", "three", "four", "five"])
        #expect(watcher.process.isRunning)
    }

    /// A `reminder` event carries the newest change's `seq` and its todo in `todos` (and, as
    /// before, in `todo`).
    @Test func reminderEventsCarrySeqAndTodos() throws {
        let daemon = try DaemonProcess()
        let watcher = try daemon.client()
        #expect(try watcher.result("watch", ["events": ["reminder"]]) == ["subscribed": true])
        let added = try daemon.client().result("todo.add", ["title": "remind me", "due": .string(rfc3339(in: 0))])
        let seq = try daemon.client().result("daemon.status")["seq"]?.intValue
        let event = try watcher.receive()["params"] ?? .null
        #expect(event["type"] == "reminder")
        #expect(event["seq"]?.intValue == seq)
        #expect(event["todos"]?.arrayValue?.first?["id"] == added["id"])
        #expect(event["todo"]?["id"] == added["id"])
    }
}
