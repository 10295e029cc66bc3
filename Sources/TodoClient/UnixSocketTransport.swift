import TodoProtocol

/// Placeholder until the real Unix socket client lands: every connection attempt fails.
public final class UnixSocketTransport: RPCTransport {
    /// Always throws `.unreachable`: not implemented yet.
    public init(path: String) throws(ClientError) {
        throw .unreachable(socket: path, reason: "not implemented")
    }

    /// Never reached.
    public func call(_ method: String, _ params: JSONObject) throws(ClientError) -> JSON {
        throw .badAnswer("not implemented")
    }

    /// Never reached.
    public func watch(_ params: JSONObject, onEvent: (JSON) -> Bool) throws(ClientError) {
        throw .badAnswer("not implemented")
    }
}
