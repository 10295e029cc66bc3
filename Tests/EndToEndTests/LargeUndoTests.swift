import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Undo and redo of a large import through the real daemon: the result is complete, the real
/// database holds exactly what it should, WATCHDOG=1 keeps coming while the rows are written
/// back, and another client's `todo.get` is answered. Before, undo and redo cost a count of the
/// order per todo and a scan of the whole log per todo brought back (superlinear: 6,000 todos
/// took 10 s, 30,000 about 5.5 minutes) and told the watchdog nothing, so the manager killed the
/// daemon mid-undo.
@Suite struct LargeUndoTests {
    static let count = 10_000

    /// What happened while one request ran: its answer, the longest watchdog silence, and the
    /// other client's `todo.get`s sent while it was outstanding.
    struct Run {
        var answer: JSON
        var seconds: Double
        var silence: Double
        var getsDuring: Int
        /// The other client's requests answered while the request was outstanding.
        var answeredDuring: Int
        /// The `open` count of every `daemon.status` answered meanwhile.
        var openSeen: Set<Int64>
        var worstGet: Double
        var failures: [String]
    }

    /// Receives the daemons' notifications for the whole test, recording when WATCHDOG=1 came. It
    /// must never stop reading: the manager's socket holds 10 datagrams here, and a daemon whose
    /// notification finds it full waits (on its store queue) until it is read.
    final class Listener: @unchecked Sendable {
        // @unchecked: `beats` and `done` guard themselves; `thread` is set once, in init.
        let beats = LockedBox<[Double]>([])
        let done = LockedBox(false)
        private var thread: Thread?

        init(_ notify: Int32) {
            let (beats, done) = (beats, done)
            let thread = Thread {
                while !done.value {
                    if let bytes = UnixDatagram.receive(notify, timeoutMilliseconds: 50),
                        bytes == Array("WATCHDOG=1".utf8)
                    {
                        let t = now()
                        beats.mutate { $0.append(t) }
                    }
                }
            }
            thread.start()
            self.thread = thread
        }

        func stop() {
            done.value = true
            _ = eventually(timeout: 5, every: 0.01) { thread?.isExecuting != true }
        }
    }

    /// Sends `method` on `actor` while another client asks `todo.get` of `kept` in a loop and the
    /// watchdog's messages are recorded.
    func during(_ method: String, daemon: DaemonProcess, listener: Listener, actor: RawClient, kept: Int64) throws
        -> Run
    {
        let beats = listener.beats
        let gets = LockedBox<[(sent: Double, took: Double)]>([])
        let openSeen = LockedBox<Set<Int64>>([])
        let failures = LockedBox<[String]>([])
        let done = LockedBox(false)
        let beatsBefore = beats.value.count
        // used by that thread alone
        nonisolated(unsafe) let other = try RawClient(path: daemon.socket, timeoutSeconds: 600)
        let asker = Thread {
            while !done.value {
                let sent = now()
                do {
                    let todo = try other.result("todo.get", ["id": .int(kept)])
                    if todo["title"] != "残す" {
                        failures.mutate { $0.append("todo.get answered \(todo.serialized().prefix(200))") }
                    }
                } catch {
                    failures.mutate { $0.append("todo.get: \(error)") }
                    return
                }
                let took = now() - sent
                gets.mutate { $0.append((sent, took)) }
                // What another client counts while the undo runs: the store before it or after it, never between.
                if let open = try? other.result("daemon.status")["open"]?.intValue {
                    openSeen.mutate { $0.insert(open) }
                }
                usleep(5_000) // the pace of the other client's requests, not a wait
            }
        }
        asker.start()
        #expect(eventually(timeout: 5) { beats.value.count >= beatsBefore + 2 && gets.value.count >= 2 })
        let started = now()
        let answer = try actor.call(method)
        let took = now() - started
        // The watchdog beats once more after the request (the silence is measured to it).
        #expect(eventually(timeout: 5) { (beats.value.last ?? 0) > started + took })
        done.value = true
        #expect(eventually(timeout: 60, every: 0.01) { !asker.isExecuting })
        let around = beats.value.filter { $0 > started - 1 }
        let silence = zip(around, around.dropFirst()).map { $1 - $0 }.max() ?? .infinity
        let during = gets.value.filter { $0.sent >= started && $0.sent < started + took }
        let answered = during.filter { $0.sent + $0.took < started + took }
        return Run(
            answer: answer, seconds: took, silence: silence, getsDuring: during.count, answeredDuring: answered.count,
            openSeen: openSeen.value, worstGet: gets.value.map(\.took).max() ?? 0, failures: failures.value)
    }

    /// Adds the todo `残す` and imports `count` todos (every third in 家, every fifth tagged, every
    /// seventh done) on `actor`: the kept todo's id, the import's seq and every id.
    func importLarge(_ actor: RawClient) throws -> (kept: Int64, importSeq: Int64?, ids: Set<Int64>) {
        let kept = try actor.result("todo.add", ["title": "残す", "category": "家"])["id"]?.intValue ?? -1
        let parts = 2
        let perPart = Self.count / parts
        try actor.send(
            lines(
                parts, "store.import",
                { part in
                    [
                        "format": "todod-export", "version": 1, "more": .bool(part < parts - 1), "categories": [],
                        "todos": .array(
                            (0..<perPart).map { i in
                                let n = part * perPart + i
                                var todo: JSONObject = [
                                    "uid": .string("large-undo-\(n)"), "title": .string("取り込み \(n)"),
                                    "created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z"
                                ]
                                if n % 3 == 0 { todo["category"] = "家" }
                                if n % 5 == 0 { todo["tags"] = ["買い物"] }
                                if n % 7 == 0 { todo["done"] = true }
                                return .object(todo)
                            })
                    ]
                }, firstID: 100))
        var imported: JSON = .null
        for _ in 0..<parts { imported = try actor.receive() }
        #expect(imported["result"]?["added"] == .int(Int64(Self.count)), "\(imported.serialized().prefix(300))")
        let importSeq = try actor.result("daemon.status")["seq"]?.intValue
        let ids = Set(
            try actor.result("todo.list", ["status": "all", "limit": 100_000])["todos"]?.arrayValue?.compactMap {
                $0["id"]?.intValue
            } ?? [])
        #expect(ids.count == Self.count + 1)
        return (kept, importSeq, ids)
    }

    /// The open todos after the import: all but the done ones, and the kept one.
    static var openAfterImport: Int64 { Int64(count - (0..<count).filter { $0 % 7 == 0 }.count + 1) }

    @Test func undoAndRedoOfALargeImportAreCompleteAndKeepTheDaemonAlive() throws {
        let dir = TemporaryDirectory("largeundo")
        let notifyPath = dir.file("notify.sock")
        let notify = try UnixDatagram.bind(path: notifyPath)
        let listener = Listener(notify)
        defer {
            listener.stop()
            Posix.close(notify)
        }
        let environment = ["NOTIFY_SOCKET": notifyPath, "WATCHDOG_USEC": "2000000"]
        var daemon = try DaemonProcess(directory: dir, environment: environment)
        var actor = try RawClient(path: daemon.socket, timeoutSeconds: 600)
        let (kept, importSeq, ids) = try importLarge(actor)

        let undo = try during("store.undo", daemon: daemon, listener: listener, actor: actor, kept: kept)
        print(
            "undo of a \(Self.count)-todo import: \(String(format: "%.2f", undo.seconds)) s; longest watchdog silence "
                + "\(String(format: "%.2f", undo.silence)) s; other client's todo.get worst \(String(format: "%.0f", undo.worstGet * 1000)) ms, "
                + "\(undo.getsDuring) sent during it, \(undo.answeredDuring) answered before it")
        let undone = undo.answer["result"]
        #expect(undone?["changes"] == .array([.int(importSeq ?? -1)]), "\(undo.answer.serialized().prefix(300))")
        #expect(undone?["todos"]?.arrayValue?.count == 0)
        let deleted = undone?["deletedTodos"]?.arrayValue ?? []
        #expect(deleted.count == Self.count)
        #expect(Set(deleted.compactMap { $0["uid"]?.stringValue }) == Set((0..<Self.count).map { "large-undo-\($0)" }))
        #expect(undo.failures.isEmpty, "\(undo.failures.prefix(3))")
        #expect(undo.getsDuring > 0, "no todo.get sent during the undo was answered")
        // Other clients are answered while the undo runs, and see the store before it or after it.
        #expect(undo.answeredDuring > 0, "no todo.get was answered before the undo's answer")
        #expect(
            undo.openSeen.isSubset(of: [Self.openAfterImport, 1]),
            "daemon.status counted \(undo.openSeen.sorted()) open")
        #expect(undo.silence < 2.0, "WATCHDOG=1 stopped for \(undo.silence) s during the undo")

        // The real database after the undo: the one todo kept, its category's counts right.
        #expect(daemon.stop() == 0)
        #expect(try ChildProcess.sqlite3(daemon.database, "SELECT id, title FROM todos;") == "\(kept)|残す")
        #expect(
            try ChildProcess.sqlite3(daemon.database, "SELECT open_count, done_count FROM categories WHERE name = '家';")
                == "1|0")
        #expect(try ChildProcess.sqlite3(daemon.database, "SELECT count(*) FROM todo_tags;") == "0")

        daemon = try DaemonProcess(directory: dir, environment: environment)
        actor = try RawClient(path: daemon.socket, timeoutSeconds: 600)
        let redo = try during("store.redo", daemon: daemon, listener: listener, actor: actor, kept: kept)
        print(
            "redo of a \(Self.count)-todo import: \(String(format: "%.2f", redo.seconds)) s; longest watchdog silence "
                + "\(String(format: "%.2f", redo.silence)) s; other client's todo.get worst \(String(format: "%.0f", redo.worstGet * 1000)) ms, "
                + "\(redo.getsDuring) sent during it, \(redo.answeredDuring) answered before it")
        let redone = redo.answer["result"]
        #expect(redone?["todos"]?.arrayValue?.count == Self.count, "\(redo.answer.serialized().prefix(300))")
        #expect(redone?["deletedTodos"]?.arrayValue?.count == 0)
        #expect(redo.failures.isEmpty, "\(redo.failures.prefix(3))")
        #expect(redo.getsDuring > 0, "no todo.get sent during the redo was answered")
        #expect(redo.answeredDuring > 0, "no todo.get was answered before the redo's answer")
        #expect(
            redo.openSeen.isSubset(of: [Self.openAfterImport, 1]),
            "daemon.status counted \(redo.openSeen.sorted()) open")
        #expect(redo.silence < 2.0, "WATCHDOG=1 stopped for \(redo.silence) s during the redo")
        let back = Set(
            try actor.result("todo.list", ["status": "all", "limit": 100_000])["todos"]?.arrayValue?.compactMap {
                $0["id"]?.intValue
            } ?? [])
        #expect(back == ids)

        // The real database after the redo: the same ids, uids, categories, tags and states.
        #expect(daemon.stop() == 0)
        let counts = Self.count
        #expect(
            try ChildProcess.sqlite3(
                daemon.database, "SELECT count(*), count(DISTINCT uid) FROM todos WHERE uid LIKE 'large-undo-%';")
                == "\(counts)|\(counts)")
        let inCategory = (0..<counts).filter { $0 % 3 == 0 }.count
        let doneInCategory = (0..<counts).filter { $0 % 21 == 0 }.count
        #expect(
            try ChildProcess.sqlite3(daemon.database, "SELECT open_count, done_count FROM categories WHERE name = '家';")
                == "\(inCategory - doneInCategory + 1)|\(doneInCategory)")
        #expect(
            try ChildProcess.sqlite3(daemon.database, "SELECT count(*) FROM todo_tags;")
                == "\((0..<counts).filter { $0 % 5 == 0 }.count)")
        #expect(
            try ChildProcess.sqlite3(daemon.database, "SELECT count(*) FROM todos WHERE done = 1;")
                == "\((0..<counts).filter { $0 % 7 == 0 }.count)")
    }

    /// The daemon killed (SIGKILL) while it undoes a large import, another client being answered
    /// meanwhile: the real database holds the whole import or none of it (here: all of it, the
    /// import still undoable, no undo logged), and a daemon started on it undoes it whole.
    @Test func aDaemonKilledMidUndoLeavesTheWholeImportOrNone() throws {
        let dir = TemporaryDirectory("killundo")
        var daemon = try DaemonProcess(directory: dir)
        let actor = try RawClient(path: daemon.socket, timeoutSeconds: 600)
        let (kept, importSeq, _) = try importLarge(actor)
        let other = try RawClient(path: daemon.socket, timeoutSeconds: 600)
        _ = try actor.request("store.undo")
        // Mid-undo: the other client is answered three times (from the store before the undo)
        // while the undo's answer has not come.
        var answered = 0
        var pending = true
        while answered < 3 && pending {
            #expect(try other.result("daemon.status")["open"]?.intValue == Self.openAfterImport)
            answered += 1
            var poller = pollfd(fd: actor.fd, events: Int16(POLLIN), revents: 0)
            pending = poll(&poller, 1, 0) == 0
        }
        #expect(pending, "the undo ended before another client was answered three times")
        #expect(daemon.stop(signal: SIGKILL) == 128 + SIGKILL)

        // The real file: the import whole (or, had the undo committed before the kill, none of it).
        let left = try ChildProcess.sqlite3(daemon.database, "SELECT count(*) FROM todos;")
        let state = try ChildProcess.sqlite3(
            daemon.database, "SELECT state FROM changes WHERE seq = \(importSeq ?? -1);")
        let undos = try ChildProcess.sqlite3(daemon.database, "SELECT count(*) FROM changes WHERE kind = 'undo';")
        print(
            "killed mid-undo after \(answered) answers to another client: \(left) todos left, import \(state), \(undos) undo logged"
        )
        #expect(
            [["\(Self.count + 1)", "done", "0"], ["1", "undone", "1"]].contains([left, state, undos]),
            "half an undo: \(left) todos, import \(state), \(undos) undo")
        // (Not `PRAGMA integrity_check`: sqlite3 3.40.1 reports "NULL value in todo_tags.tag" for
        // every row of that WITHOUT ROWID table, killed or not, while no tag is NULL.)
        if state == "done" {
            #expect(
                try ChildProcess.sqlite3(daemon.database, "SELECT count(*), count(tag) FROM todo_tags;")
                    == "\(Self.count / 5)|\(Self.count / 5)")
        }

        daemon = try DaemonProcess(directory: dir)
        let again = try RawClient(path: daemon.socket, timeoutSeconds: 600)
        _ = try again.result("daemon.status")
        if state == "done" {
            // todoctl waits for it as for an import: the undo takes longer than TODOCTL_TIMEOUT here.
            let undone = try daemon.todoctl(["undo"], environment: ["TODOCTL_TIMEOUT": "0.2"])
            #expect(undone.status == 0, "\(undone.stdout)\(undone.stderr)")
        }
        #expect(try again.result("daemon.status")["open"]?.intValue == 1)
        #expect(try again.result("todo.get", ["id": .int(kept)])["title"] == "残す")
        #expect(daemon.stop() == 0)
        #expect(try ChildProcess.sqlite3(daemon.database, "SELECT id, title FROM todos;") == "\(kept)|残す")
        #expect(
            try ChildProcess.sqlite3(daemon.database, "SELECT open_count, done_count FROM categories WHERE name = '家';")
                == "1|0")
    }
}
