#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TodoPosix
import TodoProtocol

/// Accepts connections on the listening socket, checks who they are, and keeps the registry of
/// open connections and `watch` subscribers. Everything runs on the I/O queue.
final class Server: @unchecked Sendable {
    // @unchecked: all mutable state is touched only on `queue`.
    let queue: DispatchQueue
    private let listener: Int32
    private let readLoop: ReadLoop
    /// The listener's `readLoop` registration while accepting.
    private var accepting: UInt64?
    private var stopped = false
    private let allowedUIDs: Set<UInt32>
    private let log: Log
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    var submit: ((ClientConnection, Result<RPCRequest, RPCFailure>) -> Void)?

    init(listener: Int32, queue: DispatchQueue, readLoop: ReadLoop, allowedUIDs: Set<UInt32>, log: Log) {
        self.listener = listener
        self.queue = queue
        self.readLoop = readLoop
        self.allowedUIDs = allowedUIDs
        self.log = log
    }

    /// Starts accepting. Call on the queue.
    func start() throws(PosixError) {
        accepting = try readLoop.watch(listener) { [unowned self] in self.acceptAll() }
    }

    /// Stops watching the listener for a moment: it stays readable while a connection waits, so
    /// an accept that keeps failing (EMFILE) would otherwise be retried in a tight loop.
    private func pauseAccepting() {
        guard let accepting else { return }
        readLoop.forget(accepting, fd: listener)
        self.accepting = nil
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [unowned self] in
            guard !stopped, self.accepting == nil else { return }
            do { try start() } catch { log.warning("cannot wait for connections: \(error)") }
        }
    }

    private func acceptAll() {
        while true {
            let fd: Int32?
            do {
                fd = try UnixSocket.accept(listener)
            } catch {
                // EMFILE and friends: say so and try again in a moment.
                log.warning("cannot accept a connection: \(error)")
                pauseAccepting()
                return
            }
            guard let fd else { return }
            guard let peer = try? UnixSocket.peerCredentials(fd), allowedUIDs.contains(peer.uid) else {
                refuse(fd)
                continue
            }
            let connection = ClientConnection(
                fd: fd, peer: peer, queue: queue, readLoop: readLoop,
                submit: { [unowned self] c, r in self.submit?(c, r) },
                onClose: { [unowned self] c in self.connections[ObjectIdentifier(c)] = nil })
            connections[ObjectIdentifier(connection)] = connection
            connection.start()
        }
    }

    /// Answers a peer of another uid with -32003 and hangs up. The socket lingers for up to two
    /// seconds, discarding what the peer sends, because closing a Unix socket with unread input
    /// resets it and the peer would never read the refusal.
    private func refuse(_ fd: Int32) {
        let uid = (try? UnixSocket.peerCredentials(fd)).map { String($0.uid) } ?? "unknown"
        log.warning("refused a connection from uid \(uid): this daemon serves only its owner and root")
        _ = try? Posix.write(fd, RPCMessage.line(RPCMessage.error(id: .null, .permissionDenied)), from: 0)
        shutdown(fd, Int32(SHUT_WR))
        let drain = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        var discarded = 0
        drain.setEventHandler {
            var scratch = [UInt8](repeating: 0, count: 4096)
            while true {
                guard let n = try? Posix.read(fd, into: &scratch) else {
                    if discarded > 1 << 20 { drain.cancel() }  // a peer that only floods us
                    return
                }
                if n <= 0 { drain.cancel(); return }
                discarded += n
            }
        }
        drain.setCancelHandler { Posix.close(fd) }
        drain.resume()
        nonisolated(unsafe) let lingering = drain  // touched only on `queue`
        queue.asyncAfter(deadline: .now() + 2) { lingering.cancel() }
    }

    /// Hands each reply to its connection, registers new subscribers, and fans events out to them.
    func deliver(_ replies: [RequestExecutor.Reply]) {
        for reply in replies {
            if let subscription = reply.subscription { reply.connection.subscription = subscription }
            reply.connection.answered(reply.response)
            for event in reply.events { publish(event) }
        }
    }

    /// Sends an event to every subscriber that asked for its type.
    func publish(_ event: Event) {
        let type = event.type
        var line: [UInt8]?
        for connection in connections.values {
            guard case .some(let filter) = connection.subscription, filter?.contains(type) ?? true else { continue }
            let bytes = line ?? event.line  // made once, for the first subscriber
            line = bytes
            connection.send(line: bytes)
        }
    }

    /// Stops accepting and stops reading from every connection; answers already queued still go out.
    func stopAccepting() {
        stopped = true
        if let accepting {
            readLoop.forget(accepting, fd: listener)
            Posix.close(listener)
            self.accepting = nil
        }
        for connection in connections.values { connection.stopReading() }
    }

    /// Whether every connection has written all its output.
    var allFlushed: Bool { connections.values.allSatisfy(\.isFlushed) }

    var connectionCount: Int { connections.count }
}
