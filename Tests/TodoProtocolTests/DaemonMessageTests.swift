import Testing
import TodoProtocol

/// Every client reads the daemon's lines through `DaemonMessage`: each envelope decoded one way.
@Suite struct DaemonMessageTests {
    private func decode(_ text: String) throws -> DaemonMessage {
        try DaemonMessage(JSON.parse(text))
    }

    @Test func aResultAndAnErrorAreTheAnswerToTheirRequest() throws {
        guard case .response(7, .success(let result)) = try decode(#"{"jsonrpc":"2.0","result":{"id":3},"id":7}"#)
        else {
            Issue.record("not a result for request 7")
            return
        }
        #expect(result["id"]?.intValue == 3)
        let refused = try decode(
            #"{"jsonrpc":"2.0","error":{"code":-32001,"message":"no todo 9","data":{"field":"id"}},"id":8}"#)
        guard case .response(8, .failure(let error)) = refused else {
            Issue.record("not an error for request 8")
            return
        }
        #expect(error == RPCError(code: RPCError.notFoundCode, message: "no todo 9", field: "id"))
        #expect(refused.refusal == error)
    }

    @Test func anEventCarriesItsParams() throws {
        guard
            case .event(let params) = try decode(
                #"{"jsonrpc":"2.0","method":"event","params":{"type":"reminder","seq":4}}"#)
        else {
            Issue.record("not an event")
            return
        }
        #expect(params["seq"]?.intValue == 4)
        guard case .other = try decode(#"{"jsonrpc":"2.0","method":"later","params":{}}"#) else {
            Issue.record("an unknown notification is not ignored")
            return
        }
    }

    @Test func anErrorForNoRequestIsTheUnreadableRequest() throws {
        let message = try decode(#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: x"},"id":null}"#)
        guard case .unreadableRequest(let error) = message else {
            Issue.record("not the error for an unreadable request")
            return
        }
        #expect(error.code == RPCError.parseErrorCode)
        #expect(message.refusal == error)
    }

    @Test(arguments: [
        (#"{"jsonrpc":"2.0","id":3}"#, "todod sent a response without a result"),
        (#"{"jsonrpc":"2.0","result":1,"id":null}"#, "todod sent a result for no request"),
        (#"{"jsonrpc":"2.0","error":{"code":"x"},"id":3}"#, "todod sent a malformed error"),
        (#"{"jsonrpc":"2.0","result":1,"id":"a"}"#, #"todod answered request "a", which no client of ours sends"#),
        (#"{"jsonrpc":"2.0","result":1}"#, "todod sent a message that is neither a response nor a notification")
    ])
    func anEnvelopeNoDaemonSendsIsNamed(line: String, reason: String) {
        #expect(throws: DaemonMessageError.self) { try decode(line) }
        do {
            _ = try decode(line)
        } catch let error as DaemonMessageError {
            #expect(error.description == reason)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
