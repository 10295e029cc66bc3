#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

private func errorCode(_ message: JSON) -> Int64? { message["error"]?["code"]?.intValue }

@Suite(.serialized) struct DaemonLifecycleTests {
    @Test func createsPrivatePathsAndRefusesASecondDaemon() throws {
        let dir = TemporaryDirectory("paths")
        let socket = dir.file("run/todod/todod.sock")
        let daemon = try DaemonProcess(directory: dir, socket: socket, database: dir.file("state/todod/todos.db"))
        #expect(try Files.mode(dir.file("run/todod")).mode == 0o700)
        #expect(try Files.mode(dir.file("state/todod")).mode == 0o700)
        #expect(try Files.mode(socket).mode == 0o600)
        #expect(try Files.mode(dir.file("state/todod/todos.db")).mode == 0o600)

        let second = try ChildProcess.run(BuiltProducts.path("todod"), ["--socket", socket, "--db", dir.file("other.db")])
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
        let second = try ChildProcess.run(BuiltProducts.path("todod"), ["--socket", dir.file("second.sock"), "--db", daemon.database])
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot use \(daemon.database): another process has it open"), "\(second.stderr)")
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
        #expect(try Files.kind(first.socket) == .socket)  // left behind by the dead daemon
        let second = try DaemonProcess(directory: dir)
        #expect(try second.client().result("todo.list")["total"] == 1)
    }

    @Test func refusesAPathThatIsNotASocket() throws {
        let dir = TemporaryDirectory("notsock")
        #expect(FileManager.default.createFile(atPath: dir.file("todod.sock"), contents: Data("keep".utf8)))
        let result = try ChildProcess.run(BuiltProducts.path("todod"), ["--socket", dir.file("todod.sock"), "--db", dir.file("t.db")])
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
            RPCRequest(id: .int(Int64(i)), method: "todo.add", params: ["title": .string("t\(i)")]).json.write(to: &batch)
            batch.append(0x0A)
        }
        try client.send(batch)
        _ = try client.receive()  // the daemon is working on them
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
}

@Suite struct DaemonAbuseTests {
    @Test func garbageUnknownMethodsAndWrongTypesLeaveTheConnectionUsable() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        try c.send("this is not json\n")
        #expect(errorCode(try c.receive()) == -32700)
        try c.send("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"todo.frobnicate\"}\n")
        let unknown = try c.receive()
        #expect(errorCode(unknown) == -32601 && unknown["id"] == "a")
        let wrongType = try c.call("todo.add", ["title": 42])
        #expect(errorCode(wrongType) == -32602)
        #expect(wrongType["error"]?["data"]?["field"] == "title")
        let unknownField = try c.call("todo.add", ["title": "x", "colour": "red"])
        #expect(unknownField["error"]?["data"]?["field"] == "colour")
        let missing = try c.call("todo.get", ["id": 99])
        #expect(errorCode(missing) == -32001)
        _ = try c.result("category.add", ["name": "Home"])
        #expect(errorCode(try c.call("category.add", ["name": "HOME"])) == -32002)
        try c.send("[1,2]\n{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"todo.list\"}\n")
        #expect(errorCode(try c.receive()) == -32600)
        #expect(errorCode(try c.receive()) == -32600)
        try c.send(String(repeating: "[", count: 100_000) + "\n")
        #expect(errorCode(try c.receive()) == -32700)
        try c.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"todo.add\",\"params\":{\"title\":\"a\\u0000b\"}}\n")
        #expect(errorCode(try c.receive()) == -32602)
        try c.send([0xFF, 0xFE, 0x0A])
        #expect(errorCode(try c.receive()) == -32700)
        // Still serving on the same connection.
        #expect(try c.result("todo.list")["total"] == 0)
    }

    @Test func anOversizedLineIsRefusedAndTheConnectionClosed() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let exactly = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"todo.list\",\"params\":{\"search\":\""
        let padding = (1 << 20) - exactly.utf8.count - 3
        try c.send(exactly + String(repeating: "x", count: padding) + "\"}}\n")  // exactly 1 MiB: fine
        #expect(try c.receive()["result"] != nil)
        try c.send(String(repeating: "y", count: (1 << 20) + 10))
        let refused = try c.receive()
        #expect(errorCode(refused) == -32600)
        #expect(c.isClosedByPeer())
        #expect(try daemon.client().result("todo.list")["total"] == 0)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        var batch: [UInt8] = []
        for i in 1...100 {
            let method = i % 3 == 0 ? "todo.list" : "todo.add"
            let params: JSON = i % 3 == 0 ? ["limit": 1] : ["title": .string("p\(i)")]
            JSON.object(["jsonrpc": "2.0", "id": .int(Int64(i)), "method": .string(method), "params": params]).write(to: &batch)
            batch.append(0x0A)
        }
        try c.send(batch)
        for i in 1...100 {
            let message = try c.receive()
            #expect(message["id"] == .int(Int64(i)))
            #expect(message["result"] != nil)
        }
    }

    /// A write that fails after changing rows (an import whose last todo is invalid) is undone
    /// alone, whether its undo log stays in memory (a short import) or spills to a file (a long
    /// one); the writes around it, sent in the same batch, are kept.
    @Test(arguments: [2, 600])
    func aWriteThatFailsHalfwayIsUndoneAloneInItsBatch(validTodos: Int) throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        var todos: [JSON] = (0..<validTodos).map { ["title": .string("取り込み \($0)"), "category": "インポート", "created": "2026-11-01T00:00:00Z"] }
        todos.append(["title": "   ", "created": "2026-11-01T00:00:00Z"])
        let requests: [(String, JSON)] = [
            ("todo.add", ["title": "before"]),
            ("store.import", ["format": "todod-export", "version": 1, "categories": ["インポート"], "todos": .array(todos)]),
            ("todo.add", ["title": "after"]),
        ]
        var batch: [UInt8] = []
        for (i, (method, params)) in requests.enumerated() {
            JSON.object(["jsonrpc": "2.0", "id": .int(Int64(i + 1)), "method": .string(method), "params": params]).write(to: &batch)
            batch.append(0x0A)
        }
        try c.send(batch)
        let answers = try (1...3).map { _ in try c.receive() }
        #expect(answers.map { $0["id"] } == [1, 2, 3])
        #expect(answers[0]["result"]?["title"] == "before")
        #expect(errorCode(answers[1]) == -32602)
        #expect(answers[1]["error"]?["message"]?.stringValue?.contains("todos[\(validTodos)].title") == true, "\(answers[1])")
        #expect(answers[2]["result"]?["title"] == "after")
        let listed = try c.result("todo.list", ["status": "all"])
        #expect(listed["todos"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["before", "after"])
        #expect(try c.result("category.list").arrayValue?.isEmpty == true)
    }

    @Test func aClientThatDisconnectsMidRequestDoesNotDisturbOthers() throws {
        let daemon = try DaemonProcess()
        for _ in 0..<20 {
            let c = try daemon.client()
            try c.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"todo.add\",\"params\":{\"tit")
        }
        let c = try daemon.client()
        try c.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"todo.add\",\"params\":{\"title\":\"x\"}}\n")
        Posix.close(dup(c.fd))  // the request is sent; the reply may find the peer gone
        _ = try daemon.client().result("todo.add", ["title": "after"])
        #expect(try daemon.client().result("todo.list")["total"]?.intValue ?? 0 >= 1)
    }
}

/// A long `todo.list` is streamed: its line arrives whole and in order, and a reader that hangs
/// up halfway leaves the daemon serving.
@Suite struct StreamedListingTests {
    @Test func aLongListingIsOneWholeLineAndAHangUpMidwayHurtsNothing() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let todos: [JSON] = (1...3_000).map { ["title": .string("長い一覧 \($0)"), "created": "2026-11-01T00:00:00Z"] }
        _ = try c.result("store.import", ["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)])
        for _ in 0..<3 {  // hang up after the first bytes, several times
            let quitter = try UnixSocket.connect(path: daemon.socket)
            try Posix.sendAll(quitter, Array(#"{"jsonrpc":"2.0","id":1,"method":"todo.list","params":{"status":"all"}}"#.utf8) + [0x0A])
            var some = [UInt8](repeating: 0, count: 100)
            _ = try Posix.read(quitter, into: &some)
            Posix.close(quitter)
        }
        let answer = try c.call("todo.list", ["status": "all"])
        #expect(answer["result"]?["total"] == 3000)
        #expect(answer["result"]?["todos"]?.arrayValue?.compactMap { $0["position"]?.intValue } == (1...3000).map(Int64.init))
        #expect(try c.result("daemon.status")["open"] == 3000)
    }
}

/// `store.import` in parts (`"more": true`): held per connection, applied with the last part in
/// one transaction, dropped on any error or when the connection closes.
@Suite struct ImportInPartsTests {
    static func part(_ titles: [String], categories: [String] = [], more: Bool) -> JSONObject {
        var document: JSONObject = [
            "format": "todod-export", "version": 1, "categories": .array(categories.map { .string($0) }),
            "todos": .array(titles.map { ["title": .string($0), "category": $0 == "" ? nil : "家", "created": "2026-11-01T00:00:00Z"] }),
        ]
        if more { document["more"] = true }
        return document
    }

    @Test func partsLandTogetherOrNotAtAll() throws {
        let daemon = try DaemonProcess()
        let watcher = try daemon.client()
        _ = try watcher.result("watch", ["events": ["store.imported"]])
        // Held parts are not applied, and a closed connection drops them.
        do {
            let c = try daemon.client()
            #expect(try c.result("store.import", Self.part(["一", "二"], categories: ["家"], more: true))
                    == ["todos": 2, "categories": 1, "more": true])
            #expect(try c.result("todo.list", ["status": "all"])["total"] == 0)
        }
        let c = try daemon.client()
        #expect(try c.result("todo.list", ["status": "all"])["total"] == 0)
        // An error in a later part names the todo by its place in the whole import and drops it all.
        _ = try c.result("store.import", Self.part(["一", "二"], categories: ["家"], more: true))
        let bad = try c.call("store.import", Self.part(["三", "\u{7}"], more: false))
        #expect(bad["error"]?["code"] == -32602)
        #expect(bad["error"]?["message"]?.stringValue?.contains("todos[3].title") == true, "\(bad)")
        let afterBad = try c.call("store.import", Self.part(["四"], more: false))
        #expect(afterBad["result"] == ["todos": 1, "categories": 1])  // only this one: the held parts were dropped
        // Parts, with other requests between them, then the last: one transaction, in order.
        _ = try c.result("store.import", Self.part(["五", "六"], more: true))
        _ = try c.result("todo.add", ["title": "between"])
        _ = try c.result("store.import", Self.part(["七"], more: true))
        #expect(try c.result("store.import", Self.part(["八"], more: false)) == ["todos": 4, "categories": 0])
        let titles = try c.result("todo.list", ["status": "all"])["todos"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(titles == ["四", "between", "五", "六", "七", "八"])
        // Two imports applied, so two events; held parts raise none.
        let events = try (0..<2).map { _ in try watcher.receive()["params"]?["todos"] }
        #expect(events == [1, 4])
        var notAFlag = Self.part(["x"], more: false)
        notAFlag["more"] = "yes"
        #expect(errorCode(try c.call("store.import", notAFlag)) == -32602)
    }
}

@Suite(.serialized) struct DaemonConcurrencyTests {
    @Test func sixteenClientsAddingAtOnce() throws {
        let daemon = try DaemonProcess()
        let ids = LockedBox<[Int64]>([])
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { client in
            do {
                let c = try daemon.client()
                for i in 0..<100 {
                    let todo = try c.result("todo.add", ["title": .string("c\(client)-\(i)")])
                    if let id = todo["id"]?.intValue { ids.mutate { $0.append(id) } }
                }
            } catch {
                failures.mutate { $0.append("\(error)") }
            }
        }
        #expect(failures.value.isEmpty)
        #expect(Set(ids.value).count == 1600)
        let list = try daemon.client().result("todo.list", ["status": "all"])
        let positions = list["todos"]?.arrayValue?.compactMap { $0["position"]?.intValue } ?? []
        #expect(positions == (1...Int64(1600)).map { $0 })
    }

    /// kill -9 while several clients write: after a restart every acknowledged todo is there.
    @Test func killNineLosesNoAcknowledgedWrite() throws {
        let dir = TemporaryDirectory("kill9")
        let daemon = try DaemonProcess(directory: dir)
        let acknowledged = LockedBox<[Int64]>([])
        let group = DispatchGroup()
        for client in 0..<4 {
            DispatchQueue.global().async(group: group) {
                guard let c = try? daemon.client() else { return }
                for i in 0..<100_000 {
                    guard let todo = try? c.result("todo.add", ["title": .string("k\(client)-\(i)")]),
                          let id = todo["id"]?.intValue else { return }
                    acknowledged.mutate { $0.append(id) }
                }
            }
        }
        // Kill it mid-stream, once the clients are well under way.
        for _ in 0..<1000 where acknowledged.value.count < 200 { usleep(10_000) }
        daemon.stop(signal: SIGKILL)
        group.wait()
        #expect(acknowledged.value.count > 10)
        #expect(try ChildProcess.sqlite3(daemon.database, "PRAGMA integrity_check;") == "ok")
        let again = try DaemonProcess(directory: dir)
        let list = try again.client().result("todo.list", ["status": "all"])
        let stored = Set(list["todos"]?.arrayValue?.compactMap { $0["id"]?.intValue } ?? [])
        #expect(Set(acknowledged.value).isSubset(of: stored))
        let positions = list["todos"]?.arrayValue?.compactMap { $0["position"]?.intValue } ?? []
        #expect(positions == (0..<Int64(positions.count)).map { $0 + 1 })
    }
}

@Suite struct WatchTests {
    @Test func subscribersSeeEveryChangeInCommitOrder() throws {
        let daemon = try DaemonProcess()
        let watcher = try daemon.client()
        #expect(try watcher.result("watch") == ["subscribed": true])
        let c = try daemon.client()
        _ = try c.result("todo.add", ["title": "一", "category": "仕事"])
        _ = try c.result("todo.add", ["title": "two"])
        _ = try c.result("todo.update", ["id": 1, "notes": "メモ"])
        _ = try c.result("todo.update", ["id": 1, "notes": "メモ"])  // no change, no event
        _ = try c.result("todo.complete", ["ids": [1, 2]])
        _ = try c.result("todo.reopen", ["ids": [2]])
        _ = try c.result("todo.move", ["id": 2, "position": 1])
        _ = try c.result("category.add", ["name": "Home"])
        _ = try c.result("category.rename", ["name": "home", "newName": "家"])
        _ = try c.result("category.move", ["name": "家", "position": 1])
        _ = try c.result("category.delete", ["name": "仕事", "force": true])
        _ = try c.result("todo.delete", ["ids": [2]])
        // Adding a todo with a new category creates the category: category.added comes first.
        let expected = ["category.added", "todo.added", "todo.added", "todo.updated", "todo.completed", "todo.reopened",
                        "todo.moved", "category.added", "category.renamed", "category.moved", "category.deleted",
                        "todo.updated", "todo.deleted"]
        var events: [JSON] = []
        while events.count < expected.count {
            let message = try watcher.receive()
            #expect(message["method"] == "event")
            events.append(message["params"] ?? .null)
        }
        #expect(events.map { $0["type"]?.stringValue ?? "?" } == expected)
        #expect(events[1]["todos"]?[0]?["title"] == "一")
        #expect(events[4]["todos"]?.arrayValue?.count == 2)
        #expect(events.contains { $0["type"] == "category.renamed" && $0["oldName"] == "Home" && $0["category"]?["name"] == "家" })
        #expect(events.last?["type"] == "todo.deleted")
    }
}

extension JSON {
    subscript(index: Int) -> JSON? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }
}

/// Only the daemon's own uid and root may talk to it, even when the socket's mode lets anyone
/// connect: the SO_PEERCRED check is what refuses. Needs root, to run a client as `nobody`.
@Suite struct PeerCredentialTests {
    @Test(.enabled(if: getuid() == 0, "switching to the nobody user needs root"))
    func anotherUserIsRefusedEvenWithAnOpenSocket() throws {
        let dir = TemporaryDirectory("peer")
        try Files.chmod(dir.path, 0o755)
        let daemon = try DaemonProcess(directory: dir)
        try Files.chmod(daemon.socket, 0o666)
        let script = """
            import socket
            s = socket.socket(socket.AF_UNIX)
            s.connect("\(daemon.socket)")
            try:
                s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"todo.add","params":{"title":"intruder"}}\\n')
            except BrokenPipeError:
                pass  # the daemon may already have answered and hung up
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            print(data.decode().strip())
            """
        let result = try ChildProcess.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(answer["error"]?["code"] == -32003)
        #expect(answer["id"] == .null)
        #expect(try daemon.client().result("todo.list")["total"] == 0)
    }
}
