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
    func stream(_ method: Method, _ params: JSONObject, arrayKey: String,
                element: (JSON, JSONObject) throws(ClientError) -> Void) throws(ClientError) -> JSONObject
    /// Sends `watch` with `params`, then hands each event's `params` to `onEvent` until it returns
    /// false or the daemon closes the connection.
    func watch(_ params: WatchParams, onEvent: (JSON) -> Bool) throws(ClientError)
}

extension RPCTransport {
    /// The whole answer first, then its elements: for transports that cannot stream.
    package func stream(_ method: Method, _ params: JSONObject, arrayKey: String,
                       element: (JSON, JSONObject) throws(ClientError) -> Void) throws(ClientError) -> JSONObject {
        guard case .object(var result) = try call(method, params), let items = result[arrayKey]?.arrayValue else {
            throw ClientError.badAnswer("\(method.name) did not return \(arrayKey)")
        }
        result[arrayKey] = nil
        for item in items { try element(item, result) }
        return result
    }
}
