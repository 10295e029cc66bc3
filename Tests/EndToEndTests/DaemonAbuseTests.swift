import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

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
        try c.send(exactly + String(repeating: "x", count: padding) + "\"}}\n") // exactly 1 MiB: fine
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
            JSON.object(["jsonrpc": "2.0", "id": .int(Int64(i)), "method": .string(method), "params": params]).write(
                to: &batch)
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
        var todos: [JSON] = (0..<validTodos).map {
            ["title": .string("取り込み \($0)"), "category": "インポート", "created": "2026-11-01T00:00:00Z"]
        }
        todos.append(["title": "   ", "created": "2026-11-01T00:00:00Z"])
        let requests: [(String, JSON)] = [
            ("todo.add", ["title": "before"]),
            ("store.import", ["format": "todod-export", "version": 1, "categories": ["インポート"], "todos": .array(todos)]),
            ("todo.add", ["title": "after"])
        ]
        var batch: [UInt8] = []
        for (i, (method, params)) in requests.enumerated() {
            JSON.object(["jsonrpc": "2.0", "id": .int(Int64(i + 1)), "method": .string(method), "params": params])
                .write(to: &batch)
            batch.append(0x0A)
        }
        try c.send(batch)
        let answers = try (1...3).map { _ in try c.receive() }
        #expect(answers.map { $0["id"] } == [1, 2, 3])
        #expect(answers[0]["result"]?["title"] == "before")
        #expect(errorCode(answers[1]) == -32602)
        #expect(
            answers[1]["error"]?["message"]?.stringValue?.contains("todos[\(validTodos)].title") == true,
            "\(answers[1])")
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
        Posix.close(dup(c.fd)) // the request is sent; the reply may find the peer gone
        _ = try daemon.client().result("todo.add", ["title": "after"])
        #expect(try daemon.client().result("todo.list")["total"]?.intValue ?? 0 >= 1)
    }
}
