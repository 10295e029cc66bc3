import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The interactive list's `watch` subscription: a socket of its own to todod, read without
/// blocking whenever `poll` says it has something, so changes from any client reach the screen
/// as they happen and nothing is polled on a timer.
final class DaemonWatch {
    /// What came on the socket.
    enum Item {
        /// A change (todo or category events): the view is read again.
        case changed
        /// A reminder fired: its todos' titles.
        case reminder([String])
    }

    let descriptor: Int32
    private var framer = LineFramer(maxLineLength: 64 << 20)

    /// Connects to `socket`, checks the daemon is the user's (or root's) and subscribes.
    init(socket: String) throws(PosixError) {
        let fd = try UnixSocket.connect(path: socket, timeout: 5)
        do throws(PosixError) {
            let peer = try UnixSocket.peerCredentials(fd)
            // not the user's todod
            guard peer.uid == getuid() || peer.uid == 0 else { throw PosixError("connect", errno: EPERM) }
            var bytes: [UInt8] = []
            RPCRequest(id: .int(1), method: Method.watch.name, params: WatchParams().encoded).json.write(to: &bytes)
            bytes.append(0x0A)
            try Posix.sendAll(fd, bytes)
            try Posix.setNonBlocking(fd)
        } catch {
            Posix.close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit { Posix.close(descriptor) }

    /// What has arrived, in order; nil when the daemon closed the connection (or broke it).
    func read() -> [Item]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var items: [Item] = []
        while true {
            let n: Int?
            do { n = try Posix.read(descriptor, into: &chunk) } catch { return nil }
            guard let n else { break } // nothing more for now
            if n == 0 { return nil }
            framer.append(chunk[0..<n])
        }
        while let frame = framer.next() {
            guard case .line(let line) = frame, let message = try? JSON.parse(line) else { return nil }
            guard let decoded = try? DaemonMessage(message), decoded.refusal == nil else { return nil }
            guard case .event(let params) = decoded else { continue }
            if params["type"] == .string("reminder") {
                let titles: [String]
                if case .array(let todos)? = params["todos"] {
                    titles = todos.compactMap { $0["title"]?.stringValue }
                } else {
                    titles = [params["todo"]?["title"]?.stringValue].compactMap { $0 }
                }
                items.append(.reminder(titles))
            } else {
                items.append(.changed)
            }
        }
        return items
    }
}
