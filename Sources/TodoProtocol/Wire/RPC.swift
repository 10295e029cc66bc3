import TodoCore

/// A JSON-RPC 2.0 error: code, one-line message, and the offending field when there is one.
package struct RPCError: TodoErrorConvertible, Sendable, Equatable, CustomStringConvertible {
    package let code: Int
    package let message: String
    package let field: String?
    /// For a -32602 error made by `invalidParams`: what is wrong with `field`, the message after
    /// its name (`must be a string`), kept so the error can be named again under a prefix.
    package let reason: String?

    package init(code: Int, message: String, field: String? = nil) {
        self.init(code: code, message: message, field: field, reason: nil)
    }

    private init(code: Int, message: String, field: String?, reason: String?) {
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
    }

    package var description: String { message }

    // MARK: Codes (docs/PROTOCOL.md)
    package static let parseErrorCode = -32700
    package static let invalidRequestCode = -32600
    package static let methodNotFoundCode = -32601
    package static let invalidParamsCode = -32602
    package static let internalErrorCode = -32603
    package static let notFoundCode = -32001
    package static let conflictCode = -32002
    package static let permissionDeniedCode = -32003
    package static let storageCode = -32004
    package static let historyGoneCode = -32005

    package static func parseError(_ reason: String) -> RPCError {
        RPCError(code: parseErrorCode, message: "parse error: \(reason)")
    }
    package static func invalidRequest(_ reason: String) -> RPCError {
        RPCError(code: invalidRequestCode, message: "invalid request: \(reason)")
    }
    package static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: methodNotFoundCode, message: "method not found: \(method)")
    }
    /// -32602 naming the field: "invalid params: title must be a string".
    package static func invalidParams(_ field: String, _ reason: String) -> RPCError {
        RPCError(code: invalidParamsCode, message: "invalid params: \(field) \(reason)", field: field, reason: reason)
    }
    package static let permissionDenied = RPCError(
        code: permissionDeniedCode, message: "permission denied: this daemon serves only its owner and root")

    /// The one mapping from the domain's errors to wire codes. (As `TodoErrorConvertible`, a
    /// request's savepoint throws a storage failure of its own as an `RPCError` already mapped.)
    package init(_ error: TodoError) {
        switch error.code {
        case .notFound: self.init(code: RPCError.notFoundCode, message: error.message)
        case .conflict: self.init(code: RPCError.conflictCode, message: error.message)
        case .invalidField: self.init(code: RPCError.invalidParamsCode, message: error.message, field: error.field)
        case .permissionDenied: self.init(code: RPCError.permissionDeniedCode, message: error.message)
        case .storage: self.init(code: RPCError.storageCode, message: error.message)
        case .historyGone: self.init(code: RPCError.historyGoneCode, message: error.message)
        }
    }

    /// The same -32602 error for a field nested under `prefix` (`title` → `todos[3].title`).
    /// An error without a `reason` keeps its whole message after the new name.
    package func nested(under prefix: String) -> RPCError {
        guard code == RPCError.invalidParamsCode, let field else { return self }
        return .invalidParams(prefix + field, reason ?? message)
    }

    /// The error object of a response: `{"code", "message", "data": {"field"}}`.
    package var json: JSON {
        var o: JSONObject = ["code": .int(Int64(code)), "message": .string(message)]
        if let field { o["data"] = ["field": .string(field)] }
        return .object(o)
    }

    /// Reads an error object back (client side).
    package init?(json: JSON) {
        guard let code = json["code"]?.intValue, let message = json["message"]?.stringValue else { return nil }
        self.init(code: Int(code), message: message, field: json["data"]?["field"]?.stringValue)
    }
}

/// A decoded request. `id` is nil for a notification, which gets no response.
package struct RPCRequest: Sendable {
    package var id: JSON?
    /// The method's name as sent.
    package let method: String
    /// The method, decoded once here; nil for a name todod does not know.
    package let known: Method?
    package var params: JSONObject

    package init(id: JSON?, method: String, params: JSONObject = JSONObject()) {
        self.id = id
        self.method = method
        self.known = Method(name: method)
        self.params = params
    }

    /// A request for `params`' method (client side).
    package init<P: MethodParams>(id: JSON?, _ params: P) {
        self.init(id: id, method: P.method.name, params: params.encoded)
    }

    /// Decodes one line. On failure returns the id to answer with (null when unknown) and the error.
    /// A plain line is read without a tree of JSON values (`RequestScanner`); any other, and every
    /// line in error, by `decodeTree`.
    package static func decode(_ line: [UInt8]) -> Result<RPCRequest, RPCFailure> {
        line.withUnsafeBufferPointer { decode($0) }
    }

    /// The same for a line where it lies (a connection's input buffer).
    package static func decode(_ line: UnsafeBufferPointer<UInt8>) -> Result<RPCRequest, RPCFailure> {
        if let request = RequestScanner.scan(line) { return .success(request) }
        return decodeTree(Array(line))
    }

    /// Decodes one line through a tree of JSON values: what `decode` does for any line, and the
    /// one place the request's rules and errors are written.
    package static func decodeTree(_ line: [UInt8]) -> Result<RPCRequest, RPCFailure> {
        let value: JSON
        do throws(JSONParseError) {
            value = try JSON.parse(line)
        } catch {
            return .failure(RPCFailure(id: .null, error: .parseError(error.description)))
        }
        guard case .object(let o) = value else {
            if case .array = value {
                return .failure(RPCFailure(id: .null, error: .invalidRequest("batches are not supported")))
            }
            return .failure(RPCFailure(id: .null, error: .invalidRequest("a request must be an object")))
        }
        let id = o["id"]
        switch id {
        case nil, .null?, .string?, .int?: break
        default:
            return .failure(RPCFailure(id: .null, error: .invalidRequest("id must be a string, an integer or null")))
        }
        let answerID = id ?? .null
        guard o["jsonrpc"] == .string("2.0") else {
            return .failure(RPCFailure(id: answerID, error: .invalidRequest("jsonrpc must be \"2.0\"")))
        }
        guard case .string(let method)? = o["method"] else {
            return .failure(RPCFailure(id: answerID, error: .invalidRequest("method must be a string")))
        }
        if let unknown = o.pairs.first(where: { pair in
            switch pair.key {
            case "jsonrpc", "method", "params", "id": false
            default: true
            }
        })?.key {
            return .failure(RPCFailure(id: answerID, error: .invalidRequest("unknown member \"\(unknown)\"")))
        }
        let params: JSONObject
        switch o["params"] {
        case nil: params = JSONObject()
        case .object(let p)?: params = p
        default: return .failure(RPCFailure(id: answerID, error: .invalidParams("params", "must be an object")))
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }

    /// The request as a line of JSON (client side), without the newline.
    package var json: JSON {
        var o: JSONObject = ["jsonrpc": "2.0", "method": .string(method)]
        if !params.pairs.isEmpty { o["params"] = .object(params) }
        if let id { o["id"] = id }
        return .object(o)
    }
}

/// A request that could not be decoded: the id to answer with and the error.
package struct RPCFailure: Error, Sendable {
    package var id: JSON
    package var error: RPCError

    package init(id: JSON, error: RPCError) {
        self.id = id
        self.error = error
    }
}

/// Builders for what the daemon sends.
package enum RPCMessage {
    package static func result(id: JSON, _ result: JSON) -> JSON {
        .object(["jsonrpc": "2.0", "result": result, "id": id])
    }

    package static func error(id: JSON, _ error: RPCError) -> JSON {
        .object(["jsonrpc": "2.0", "error": error.json, "id": id])
    }

    /// `message` as one line, newline included.
    package static func line(_ message: JSON) -> [UInt8] {
        var bytes: [UInt8] = []
        message.write(to: &bytes)
        bytes.append(0x0A)
        return bytes
    }

    /// The line of `result(id:_:)` for a result that is already JSON text: a long listing is
    /// written out once, never held as a tree. The line is made in the result's own buffer (its
    /// text moved up for the head, in place when it has the room), not copied into a new one.
    package static func resultLine(id: JSON, encodedResult: consuming [UInt8]) -> [UInt8] {
        resultHead.withUTF8Buffer { encodedResult.insert(contentsOf: $0, at: 0) }
        if case .int(let n) = id { // the usual id: the tail in one append
            encodedResult.append(roomFor: 32) {
                $0.put(#","id":"#)
                $0.put(decimal: n)
                $0.put("}\n")
            }
        } else {
            encodedResult.append(literal: #","id":"#)
            id.write(to: &encodedResult)
            encodedResult.append(literal: "}\n")
        }
        return encodedResult
    }

    private static let resultHead: StaticString = #"{"jsonrpc":"2.0","result":"#

    /// The line of a `watch` notification, `{"jsonrpc":"2.0","method":"event","params":{...}}`,
    /// for params that are already JSON text.
    package static func eventLine(encodedParams: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedParams.count + 64)
        bytes.append(literal: #"{"jsonrpc":"2.0","method":"event","params":"#)
        bytes.append(contentsOf: encodedParams)
        bytes.append(literal: "}\n")
        return bytes
    }
}

/// One message from the daemon as a client reads it: the JSON-RPC envelope decoded once, here.
package enum DaemonMessage: Sendable {
    /// A notification `event` with its params (a change or a reminder; see `WatchEvent`).
    case event(JSON)
    /// The answer to request `id`: its result, or the error the daemon refused it with.
    case response(id: Int64, Result<JSON, RPCError>)
    /// An error for no request (id null): the daemon could not read a request line.
    case unreadableRequest(RPCError)
    /// A notification other than `event`: nothing for a client today.
    case other

    /// Decodes one parsed line. Throws a one-line reason for an envelope no daemon sends.
    package init(_ message: JSON) throws(DaemonMessageError) {
        if let method = message["method"] {
            self = method == .string("event") ? (message["params"].map(DaemonMessage.event) ?? .other) : .other
            return
        }
        let error = try message["error"].map { (object) throws(DaemonMessageError) in
            guard let error = RPCError(json: object) else { throw DaemonMessageError("todod sent a malformed error") }
            return error
        }
        switch message["id"] {
        case .null?:
            guard let error else { throw DaemonMessageError("todod sent a result for no request") }
            self = .unreadableRequest(error)
        case .int(let id)?:
            if let error {
                self = .response(id: id, .failure(error))
            } else if let result = message["result"] {
                self = .response(id: id, .success(result))
            } else {
                throw DaemonMessageError("todod sent a response without a result")
            }
        case let id?:
            throw DaemonMessageError("todod answered request \(id.serialized()), which no client of ours sends")
        case nil:
            throw DaemonMessageError("todod sent a message that is neither a response nor a notification")
        }
    }
}

extension DaemonMessage {
    /// The error of a refused request, or of a request the daemon could not read.
    package var refusal: RPCError? {
        switch self {
        case .response(_, .failure(let error)), .unreadableRequest(let error): error
        default: nil
        }
    }
}

/// Why a line from the daemon is not a message a client can read.
package struct DaemonMessageError: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
