import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The real transport: a blocking Unix stream socket to todod, one JSON-RPC message per line.
///
/// On connect it checks who runs the daemon (SO_PEERCRED): only the user's own uid or root is
/// trusted, so a socket planted by another user at a path the client uses is refused.
///
/// No wait for the daemon is unbounded: connecting, sending and every wait for an answer give up
/// after `timeout` seconds without progress (`ClientError.timedOut`), `store.import`,
/// `store.export`, `store.undo` and `store.redo` after `longTimeoutFactor` times that; only `watch`, once subscribed, waits forever.
package final class UnixSocketTransport: RPCTransport {
    package let path: String
    private let fd: Int32
    private var framer = LineFramer(maxLineLength: 1 << 30)
    private var nextID: Int64 = 1
    /// Seconds without progress before giving up; nil never gives up.
    private let timeout: Double?
    /// The limit of the request in progress (what `send` and `receive` wait at most).
    private var limit: Double?

    /// The default of `timeout`, in seconds.
    package static let defaultTimeout = 10.0
    /// How many times `timeout` the long operations (import and export) may take.
    package static let longTimeoutFactor = 30.0
    /// The variable that sets `timeout` (seconds; 0 waits forever).
    package static let timeoutVariable = "TODOCTL_TIMEOUT"

    /// The timeout `TODOCTL_TIMEOUT` asks for: nil for "never" (0), the default when unset.
    /// Throws a one-line message for a value that is not a number of seconds.
    package static func timeout(environment: [String: String]) throws(ClientError) -> Double? {
        guard let text = environment[timeoutVariable], !text.isEmpty else { return defaultTimeout }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 * 365 else {
            throw ClientError.badTimeout(text)
        }
        return seconds == 0 ? nil : seconds
    }

    /// "10 s", "0.5 s".
    package static func describe(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e15 ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    package init(
        path: String, trustedUIDs: Set<UInt32> = [getuid(), 0], timeout: Double? = UnixSocketTransport.defaultTimeout
    ) throws(ClientError) {
        self.path = path
        self.timeout = timeout
        self.limit = timeout
        do {
            fd = try UnixSocket.connect(path: path, timeout: timeout)
        } catch  where error.errno == ETIMEDOUT {
            throw ClientError.timedOut(socket: path, seconds: timeout ?? 0)
        } catch {
            throw ClientError.unreachable(
                socket: path, reason: error.errno == ENAMETOOLONG ? "socket path too long" : error.reason)
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

    package func call(_ method: Method, _ params: JSONObject) throws(ClientError) -> JSON {
        let id = try send(method, params)
        while true {
            if let result = try answer(to: id, in: try receive()) { return result }
        }
    }

    /// Reads the answer as it arrives (`JSONStream`): a long listing is printed while the rest
    /// is still on the wire, and only one element is held at a time.
    package func stream(
        _ method: Method, _ params: JSONObject, arrayKey: String,
        element: (JSON, JSONObject) throws(ClientError) -> Void
    ) throws(ClientError) -> JSONObject {
        let id = try send(method, params)
        let fd = self.fd
        let limit = self.limit
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var reader = JSONStream(buffered: framer.takePending()) {
            guard try Posix.waitReadable(fd, seconds: limit) else {
                throw ClientError.timedOut(socket: self.path, seconds: limit ?? 0)
            }
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
                throw ClientError.badAnswer("\(method.name) did not return \(arrayKey)")
            }
            return rest
        }
    }

    /// The `result` of the response to request `id`; nil for a notification (not our answer).
    private func answer(to id: Int64, in message: JSON) throws(ClientError) -> JSON? {
        let decoded: DaemonMessage
        do { decoded = try DaemonMessage(message) } catch { throw ClientError.badAnswer(error.description) }
        switch decoded {
        case .event, .other:
            return nil
        case .unreadableRequest(let error):
            throw ClientError.refused(error)
        case .response(let answered, _) where answered != id:
            throw ClientError.badAnswer("todod answered request \(answered) instead of \(id)")
        case .response(_, .failure(let error)):
            throw ClientError.refused(error)
        case .response(_, .success(let result)):
            return result
        }
    }

    package func watch(_ params: WatchParams, onEvent: (JSON) -> Bool) throws(ClientError) {
        _ = try call(params)
        limit = nil // subscribed: events may be hours apart
        while true {
            let message: JSON
            do {
                message = try receive()
            } catch .badAnswer(let reason) where reason == Self.closed {
                return
            }
            guard case .event(let params)? = try? DaemonMessage(message) else { continue }
            if !onEvent(params) { return }
        }
    }

    /// The reason of `ClientError.badAnswer` when todod closed the connection before answering.
    package static let closed = "todod closed the connection"

    /// Sends a request with the next id and returns that id.
    private func send(_ method: Method, _ params: JSONObject) throws(ClientError) -> Int64 {
        let wanted = timeout.map { method.movesWholeStore ? $0 * Self.longTimeoutFactor : $0 }
        if wanted != limit {
            do { try UnixSocket.setSendTimeout(fd, wanted) } catch {
                throw ClientError.unreachable(socket: path, reason: error.reason)
            }
            limit = wanted
        }
        let id = nextID
        nextID += 1
        try send(RPCRequest(id: .int(id), method: method.name, params: params))
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
            if error.errno == EPIPE, let message = try? receive(), let refusal = (try? DaemonMessage(message))?.refusal
            {
                throw ClientError.refused(refusal)
            }
            if error.errno == EAGAIN { throw ClientError.timedOut(socket: path, seconds: limit ?? 0) }
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
                let ready: Bool
                do {
                    ready = try Posix.waitReadable(fd, seconds: limit)
                    n = ready ? try Posix.read(fd, into: &chunk) : nil
                } catch {
                    throw ClientError.unreachable(socket: path, reason: error.reason)
                }
                guard ready else { throw ClientError.timedOut(socket: path, seconds: limit ?? 0) }
                guard let n, n > 0 else { throw ClientError.badAnswer(Self.closed) }
                framer.append(chunk[0..<n])
            }
        }
    }
}
