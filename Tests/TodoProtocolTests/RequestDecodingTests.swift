import Testing
import TodoProtocol

@Suite struct RequestDecodingTests {
    @Test func decodesRequestsAndNotifications() throws {
        let request = try RPCRequest.decode(Array("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"todo.get\",\"params\":{\"id\":1}}".utf8)).get()
        #expect(request.id == 3 && request.method == "todo.get" && request.params["id"] == 1)
        let notification = try RPCRequest.decode(Array("{\"jsonrpc\":\"2.0\",\"method\":\"todo.list\"}".utf8)).get()
        #expect(notification.id == nil)
    }

    @Test(arguments: [
        ("nope", -32700), ("[]", -32600), ("3", -32600), ("{\"jsonrpc\":\"2.0\",\"id\":1}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}", -32600), ("{\"id\":1,\"method\":\"x\"}", -32600),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[1]}", -32602),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"extra\":1}", -32600),
    ])
    func refusesBadRequests(text: String, code: Int) {
        guard case .failure(let failure) = RPCRequest.decode(Array(text.utf8)) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(failure.error.code == code)
    }
}
