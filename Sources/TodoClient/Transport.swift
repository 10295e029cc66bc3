import TodoProtocol

/// What went wrong talking to the daemon, mapped once to todoctl's exit status.
public enum ClientError: Error, Sendable, Equatable {
    /// The daemon could not be reached at `socket` (exit 69).
    case unreachable(socket: String, reason: String)
    /// The daemon refused the request (exit 1).
    case refused(RPCError)
    /// The daemon answered something that is not our protocol (exit 69).
    case badAnswer(String)
    /// The daemon's socket is owned by another user (exit 69).
    case untrustedDaemon(socket: String, uid: UInt32)
}

/// A connection to the daemon that answers JSON-RPC calls. `UnixSocketTransport` is the real
/// one; tests may substitute their own.
public protocol RPCTransport: AnyObject {
    /// Sends one request and returns its `result`.
    func call(_ method: String, _ params: JSONObject) throws(ClientError) -> JSON
    /// Sends `watch` with `params`, then hands each event's `params` to `onEvent` until it returns
    /// false or the daemon closes the connection.
    func watch(_ params: JSONObject, onEvent: (JSON) -> Bool) throws(ClientError)
}
