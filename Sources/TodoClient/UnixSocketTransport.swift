#if canImport(Glibc)
import Glibc
#endif
import TodoPosix
import TodoProtocol

/// The real transport: a blocking Unix stream socket to todod, one JSON-RPC message per line.
///
/// On connect it checks who runs the daemon (SO_PEERCRED): only the user's own uid or root is
/// trusted, so a socket planted by another user at a path the client uses is refused.
public final class UnixSocketTransport: RPCTransport {
    public let path: String
    private let fd: Int32
    private var framer = LineFramer(maxLineLength: 1 << 30)
    private var nextID: Int64 = 1

    public init(path: String, trustedUIDs: Set<UInt32> = [getuid(), 0]) throws(ClientError) {
        self.path = path
        do {
            fd = try UnixSocket.connect(path: path)
        } catch {
            throw ClientError.unreachable(socket: path, reason: error.errno == ENAMETOOLONG ? "socket path too long" : error.reason)
        }
        let peer: PeerCredentials
        do {
            peer = try UnixSocket.peerCredentials(fd)
        } catch {
            Posix.close(fd)
            throw ClientError.unreachable(socket: path, reason: error.reason)
        }
        guard trustedUIDs.contains(peer.uid) else {
            Posix.close(fd)
            throw ClientError.untrustedDaemon(socket: path, uid: peer.uid)
        }
    }

    deinit { Posix.close(fd) }

    public func call(_ method: String, _ params: JSONObject) throws(ClientError) -> JSON {
        let id = try send(method, params)
        while true {
            if let result = try answer(to: id, in: try receive()) { return result }
        }
    }

    /// Reads the answer as it arrives (`JSONStream`): a long listing is printed while the rest
    /// is still on the wire, and only one element is held at a time.
    public func stream(_ method: String, _ params: JSONObject, arrayKey: String,
                       element: (JSON, JSONObject) throws(ClientError) -> Void) throws(ClientError) -> JSONObject {
        let id = try send(method, params)
        let fd = self.fd
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var reader = JSONStream(buffered: framer.takePending()) {
            guard let n = try Posix.read(fd, into: &chunk), n > 0 else { return nil }
            return Array(chunk[0..<n])
        }
        defer { framer.append(reader.remainder) }
        while true {
            let message: (members: JSONObject, streamed: Bool)
            do {
                message = try reader.message(streaming: arrayKey) { item, before in try element(item, before) }
            } catch let error as ClientError {
                throw error
            } catch let error as PosixError {
                throw ClientError.unreachable(socket: path, reason: error.reason)
            } catch {
                throw ClientError.badAnswer("todod sent malformed JSON (\(error))")
            }
            guard let result = try answer(to: id, in: .object(message.members)) else { continue }
            guard case .object(let rest) = result, message.streamed else {
                throw ClientError.badAnswer("\(method) did not return \(arrayKey)")
            }
            return rest
        }
    }

    /// The `result` of the response to request `id`; nil for a notification (not our answer).
    private func answer(to id: Int64, in message: JSON) throws(ClientError) -> JSON? {
        guard message["method"] == nil else { return nil }
        guard message["id"] == .int(id) else { throw ClientError.badAnswer("todod answered request \(message["id"]?.serialized() ?? "?") instead of \(id)") }
        if let error = message["error"] {
            throw ClientError.refused(RPCError(json: error) ?? RPCError(code: RPCError.internalErrorCode, message: "malformed error from todod"))
        }
        guard let result = message["result"] else { throw ClientError.badAnswer("todod sent a response without a result") }
        return result
    }

    public func watch(_ params: JSONObject, onEvent: (JSON) -> Bool) throws(ClientError) {
        _ = try call("watch", params)
        while true {
            let message: JSON
            do {
                message = try receive()
            } catch .badAnswer(let reason) where reason == Self.closed {
                return
            }
            guard message["method"] == .string("event"), let params = message["params"] else { continue }
            if !onEvent(params) { return }
        }
    }

    private static let closed = "todod closed the connection"

    /// Sends a request with the next id and returns that id.
    private func send(_ method: String, _ params: JSONObject) throws(ClientError) -> Int64 {
        let id = nextID
        nextID += 1
        try send(RPCRequest(id: .int(id), method: method, params: params))
        return id
    }

    private func send(_ request: RPCRequest) throws(ClientError) {
        var bytes: [UInt8] = []
        request.json.write(to: &bytes)
        bytes.append(0x0A)
        do {
            try Posix.sendAll(fd, bytes)
        } catch {
            // The daemon may have refused us and hung up: its error line is still readable.
            if error.errno == EPIPE, let message = try? receive(), let refusal = message["error"].flatMap(RPCError.init(json:)) {
                throw ClientError.refused(refusal)
            }
            throw ClientError.unreachable(socket: path, reason: error.reason)
        }
    }

    private func receive() throws(ClientError) -> JSON {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            switch framer.next() {
            case .line(let line)?:
                do {
                    return try JSON.parse(line)
                } catch {
                    throw ClientError.badAnswer("todod sent malformed JSON (\(error))")
                }
            case .tooLong?:
                throw ClientError.badAnswer("todod sent an oversized message")
            case nil:
                let n: Int?
                do {
                    n = try Posix.read(fd, into: &chunk)
                } catch {
                    throw ClientError.unreachable(socket: path, reason: error.reason)
                }
                guard let n, n > 0 else { throw ClientError.badAnswer(Self.closed) }
                framer.append(chunk[0..<n])
            }
        }
    }
}
