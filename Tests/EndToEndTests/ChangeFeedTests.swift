import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Reading the change log out against the real daemon and database file: `watch` `since`
/// resuming while writes go on, `store.changes` paged while writes go on, and todoctl's
/// `watch --since`, `edit` with the revision it read, `show`'s revision.
@Suite struct ChangeFeedTests {
    /// Adds `count` todos, one request at a time, on connections of their own.
    private static func hammer(_ daemon: DaemonProcess, writers: Int, count: Int) -> Thread {
        let done = DispatchGroup()
        for w in 0..<writers {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                guard let c = try? daemon.client() else { return }
                for i in 0..<count { _ = try? c.result("todo.add", ["title": .string("w\(w)-\(i) 書く")]) }
            }
        }
        let waiter = Thread { done.wait() }
        waiter.start()
        return waiter
    }

    private static func seq(_ daemon: DaemonProcess) throws -> Int64 {
        try #require(try daemon.client().result("daemon.status")["seq"]?.intValue)
    }

    /// A watcher that resumes while three writers add todos sees every change after its `since`
    /// exactly once, in order: the seqs are consecutive across the switch from replay to live.
    @Test func aResumingWatcherSeesConsecutiveSeqsWhileWritesContinue() throws {
        let daemon = try DaemonProcess()
        let writers = 3
        let count = 150
        let progress = try daemon.client()
        _ = try progress.result("watch", ["events": ["todo.added"]])
        let hammering = Self.hammer(daemon, writers: writers, count: count)
        // Resume from a seq in the middle of the writing, while it goes on.
        var since: Int64 = 0
        while since < 100 { since = try #require(try progress.receive()["params"]?["seq"]?.intValue) }
        let watcher = try daemon.client()
        #expect(try watcher.result("watch", ["since": .int(since)]) == ["subscribed": true])
        let last = Int64(writers * count)
        var seen: [Int64] = []
        while seen.last ?? since < last {
            let message = try watcher.receive()
            #expect(message["method"] == "event" && message["params"]?["type"] == "todo.added")
            seen.append(try #require(message["params"]?["seq"]?.intValue))
        }
        #expect(eventually(timeout: 60, every: 0.001) { hammering.isFinished })
        #expect(seen == Array((since + 1)...last))
        #expect(try Self.seq(daemon) == last)
    }

    /// Paging `store.changes` while writers add, edit and delete todos, then once more after they
    /// stop, gives exactly the store's todos (by uid, at their revision) and tombstones for the rest.
    @Test func pagingWhileWritesContinueEndsAtTheStoresState() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        for i in 1...40 { _ = try c.result("todo.add", ["title": .string("t\(i)")]) }
        let stop = LockedBox(false)
        let written = LockedBox(0)
        let writer = Thread {
            guard let w = try? daemon.client() else { return }
            var i: Int64 = 0
            while !stop.value {
                i += 1
                written.value = Int(i)
                _ = try? w.result("todo.update", ["id": .int(i % 40 + 1), "notes": .string("n\(i)")])
                if i % 7 == 0 { _ = try? w.result("todo.add", ["title": .string("more \(i)")]) }
                if i % 11 == 0 { _ = try? w.result("todo.delete", ["ids": [.int(i % 40 + 1)]]) }
            }
        }
        writer.start()
        var state: [String: JSON] = [:] // uid → todo, or null for a tombstone
        var since: Int64 = 0
        func page() throws -> Bool {
            let r = try c.result("store.changes", ["since": .int(since), "limit": 7])
            let items = try #require(r["changes"]?.arrayValue)
            var previous = since
            for item in items {
                let seq = try #require(item["seq"]?.intValue)
                #expect(seq > since && seq >= previous)
                previous = seq
                state[try #require(item["uid"]?.stringValue)] = item["todo"] ?? .null
            }
            since = try #require(r["seq"]?.intValue)
            return r["more"] == true
        }
        while try page() || written.value < 100 {} // while the writer goes on
        stop.value = true
        #expect(eventually(timeout: 60, every: 0.001) { writer.isFinished })
        while try page() {}
        let todos = try #require(try c.result("todo.list", ["status": "all"])["todos"]?.arrayValue)
        let live = Dictionary(uniqueKeysWithValues: todos.map { ($0["uid"]?.stringValue ?? "", $0) })
        #expect(state.filter { $0.value != .null }.keys.sorted() == live.keys.sorted())
        for (uid, todo) in live {
            #expect(state[uid]?["revision"] == todo["revision"] && state[uid]?["notes"] == todo["notes"], "\(uid)")
        }
        #expect(state.values.contains(.null))
        #expect(since == (try Self.seq(daemon)))
    }

    /// Runs `todoctl ARGUMENTS` until it printed `first` lines, adds a todo, and returns its
    /// lines once it printed one more.
    private func watch(_ daemon: DaemonProcess, _ arguments: [String], first: Int, add title: String) throws -> [String]
    {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: BuiltProducts.path("todoctl"))
        watcher.arguments = arguments
        watcher.environment = ProcessInfo.processInfo.environment.merging([
            "TODOD_SOCKET": daemon.socket, "NO_COLOR": "1"
        ]) { $1 }
        let out = Pipe()
        watcher.standardOutput = out
        try watcher.run()
        defer {
            if watcher.isRunning {
                kill(watcher.processIdentifier, SIGKILL)
                watcher.waitForExit()
            }
        }
        var text = ""
        func read(until count: Int) {
            _ = eventually(timeout: 10, every: 0.01) {
                text += String(decoding: out.fileHandleForReading.availableDataNonBlocking(), as: UTF8.self)
                return text.split(separator: "\n").count >= count
            }
        }
        read(until: first)
        _ = try daemon.todoctl(["add", title])
        read(until: first + 1)
        return text.split(separator: "\n").map(String.init)
    }

    @Test func todoctlWatchSinceReplaysThenGoesOnLiveWithSeqs() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.todoctl(["add", "一つ目"])
        _ = try daemon.todoctl(["add", "二つ目"])
        _ = try daemon.todoctl(["done", "1"])
        let events = try watch(daemon, ["--json", "watch", "--since", "1"], first: 2, add: "三つ目").map {
            try JSON.parse($0)
        }
        #expect(events.map { $0["seq"]?.intValue ?? 0 } == [2, 3, 4])
        #expect(events.map { $0["type"]?.stringValue ?? "" } == ["todo.added", "todo.completed", "todo.added"])
        #expect(events.first?["todos"]?.arrayValue?.first?["title"] == "二つ目")
        let lines = try watch(daemon, ["watch", "--since", "2"], first: 2, add: "四つ目")
        #expect(lines.count == 3, "\(lines)")
        #expect(
            lines.first?.hasPrefix("#3 completed") == true && lines.dropFirst().first?.hasPrefix("#4 added") == true,
            "\(lines)")
        #expect(lines.last?.hasPrefix("#5 added") == true && lines.last?.contains("四つ目") == true, "\(lines)")
        let bad = try daemon.todoctl(["watch", "--since", "soon"])
        #expect(bad.status == 2 && bad.stderr.contains("--since"), "\(bad.stderr)")
        let future = try daemon.todoctl(["watch", "--since", "999"])
        #expect(future.status == 1 && future.stderr.contains("since"), "\(future.stderr)")
    }

    /// `edit` that read the todo sends its revision; a change by someone else in between is
    /// refused, nothing is written, and todoctl says so plainly.
    @Test func anEditRacingAnotherIsRefusedAndSaidPlainly() throws {
        let daemon = try DaemonProcess()
        _ = try daemon.todoctl(["add", "牛乳", "--due", "tomorrow 9am"])
        let shown = try daemon.todoctl(["show", "1"])
        #expect(
            shown.stdout.split(separator: "\n").contains { $0.hasPrefix("Revision") && $0.hasSuffix(" 1") },
            "\(shown.stdout)")
        _ = try daemon.todoctl(["edit", "1", "--notes", "2 L"]) // revision 2
        let stale = try daemon.todoctl(["edit", "1", "--title", "豆乳", "--if-revision", "1"])
        #expect(stale.status == 1)
        #expect(
            stale.stderr == "todoctl: todo 1 was changed by someone else since you read it (revision 1, now 2); "
                + "nothing was changed — run `todoctl show 1` and edit again\n", "\(stale.stderr)")
        let after = try JSON.parse(try daemon.todoctl(["--json", "show", "1"]).stdout)
        #expect(after["title"] == "牛乳" && after["revision"] == 2)
        let fresh = try daemon.todoctl(["--json", "edit", "1", "--title", "豆乳", "--if-revision", "2"])
        let freshTodo = try JSON.parse(fresh.stdout)
        #expect(fresh.status == 0 && freshTodo["revision"] == 3, "\(fresh.stderr)")

        // `edit --remind 15m` reads the todo for its due time; another client's change lands
        // between that read and the update (a proxy socket holds the update until it has).
        let proxy = try RacingProxy(daemon: daemon) {
            _ = try? daemon.client().result("todo.update", ["id": 1, "notes": "他の人"])
        }
        let raced = try daemon.todoctl(["edit", "1", "--remind", "15m"], environment: ["TODOD_SOCKET": proxy.path])
        #expect(raced.status == 1 && raced.stderr.contains("revision 3, now 4"), "\(raced.stderr)")
        let kept = try JSON.parse(try daemon.todoctl(["--json", "show", "1"]).stdout)
        #expect(kept["notes"] == "他の人" && kept["remind"] == freshTodo["remind"])
    }
}

/// A socket between todoctl and the daemon that runs `between` once, just before it passes on
/// the first `todo.update` request: another client's change that lands after todoctl read the todo.
final class RacingProxy: @unchecked Sendable {
    let path: String
    private let directory = TemporaryDirectory("proxy")
    private let listener: Int32

    init(daemon: DaemonProcess, between: @escaping @Sendable () -> Void) throws {
        path = directory.file("proxy.sock")
        listener = try UnixSocket.listen(path: path)
        let listener = self.listener
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) & ~O_NONBLOCK)
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                guard let upstream = try? RawClient(path: daemon.socket) else {
                    close(client)
                    return
                }
                var framer = LineFramer()
                var chunk = [UInt8](repeating: 0, count: 65536)
                var raced = false
                while true {
                    let n = read(client, &chunk, chunk.count)
                    if n <= 0 { break }
                    framer.append(chunk[0..<n])
                    while case .line(let line)? = framer.next() {
                        if !raced, String(decoding: line, as: UTF8.self).contains("\"todo.update\"") {
                            raced = true
                            between()
                        }
                        try? upstream.send(line + [0x0A])
                        guard let answer = try? upstream.receive() else { break }
                        var bytes: [UInt8] = []
                        answer.write(to: &bytes)
                        bytes.append(0x0A)
                        _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                    }
                }
                close(client)
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
