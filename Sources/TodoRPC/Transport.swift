import TodoProtocol

/// What went wrong talking to the daemon, mapped once to todoctl's exit status.
package enum ClientError: Error, Sendable, Equatable {
    /// The daemon could not be reached at `socket` (exit 69).
    case unreachable(socket: String, reason: String)
    /// The daemon refused the request (exit 1).
    case refused(RPCError)
    /// The daemon answered something that is not our protocol (exit 69).
    case badAnswer(String)
    /// The daemon's socket is owned by another user (exit 69).
    case untrustedDaemon(socket: String, uid: UInt32)
    /// The daemon at `socket` accepted nothing or answered nothing for `seconds` (exit 69).
    case timedOut(socket: String, seconds: Double)
    /// `TODOCTL_TIMEOUT` is not a number of seconds (exit 2).
    case badTimeout(String)
}

/// A connection to the daemon that answers JSON-RPC calls. `UnixSocketTransport` is the real
/// one; tests may substitute their own.
package protocol RPCTransport: AnyObject {
    /// Sends one request (`params` made by the method's `MethodParams`) and returns its `result`.
    func call(_ method: Method, _ params: JSONObject) throws(ClientError) -> JSON
    /// Sends one request whose `result` object holds a long array under `arrayKey`, hands the
    /// array's elements to `element` as they arrive (with the members of `result` that came before
    /// the array), and returns the rest of `result`.
    func stream(
        _ method: Method, _ params: JSONObject, arrayKey: String,
        element: (JSON, JSONObject) throws(ClientError) -> Void
    ) throws(ClientError) -> JSONObject
    /// Sends `watch` with `params`, then hands each event's `params` to `onEvent` until it returns
    /// false or the daemon closes the connection.
    func watch(_ params: WatchParams, onEvent: (JSON) -> Bool) throws(ClientError)
}

extension RPCTransport {
    /// The whole answer first, then its elements: for transports that cannot stream.
    package func stream(
        _ method: Method, _ params: JSONObject, arrayKey: String,
        element: (JSON, JSONObject) throws(ClientError) -> Void
    ) throws(ClientError) -> JSONObject {
        guard case .object(var result) = try call(method, params), let items = result[arrayKey]?.arrayValue else {
            throw ClientError.badAnswer("\(method.name) did not return \(arrayKey)")
        }
        result[arrayKey] = nil
        for item in items { try element(item, result) }
        return result
    }
}

extension RPCTransport {
    /// Calls the method `params` belong to and reads its answer as the method's result type; an
    /// answer that is not one is `ClientError.badAnswer` naming the method.
    package func call<P: MethodParams>(_ params: P) throws(ClientError) -> P.Result {
        try P.result(from: try call(P.method, params.encoded))
    }

    /// `todo.list` read as it arrives: each todo's JSON as sent, with the page's `total` (nil
    /// until it came); returns `total`.
    package func list(_ query: TodoListParams, todo: (JSON, Int?) throws(ClientError) -> Void) throws(ClientError)
        -> Int?
    {
        func total(_ members: JSONObject) throws(ClientError) -> Int? {
            guard let value = members["total"] else { return nil }
            guard case .int(let n) = value, n >= 0, let count = Int(exactly: n) else {
                throw ClientError.badAnswer("\(Method.todoList.name) sent a malformed total")
            }
            return count
        }
        let rest = try stream(TodoListParams.method, query.encoded, arrayKey: "todos") {
            (item, before) throws(ClientError) in
            try todo(item, try total(before))
        }
        return try total(rest)
    }
}

extension MethodParams {
    /// Reads `json` as the result of this method (client side).
    package static func result(from json: JSON) throws(ClientError) -> Result {
        do { return try Result(wire: json) } catch {
            throw ClientError.badAnswer("\(method.name) sent a malformed result: \(error.description)")
        }
    }
}

extension WireCodable {
    /// Reads `json` as this type (client side), a malformed one `ClientError.badAnswer`.
    package static func decoded(_ json: JSON) throws(ClientError) -> Self {
        do { return try Self(wire: json) } catch { throw ClientError.badAnswer(error.description) }
    }
}
