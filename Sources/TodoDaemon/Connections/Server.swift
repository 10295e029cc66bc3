import Dispatch
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Accepts connections on the listening socket, checks who they are, and hands each accepted one
/// its request handler (the executor) and a place in the `ConnectionRegistry`. Everything runs
/// on the I/O queue.
final class Server: @unchecked Sendable {
    // @unchecked: `accepting`, `stopped`, `reserve`, `lingering` and the three warning limiters
    // are touched only on `queue` (the `ReadLoop` runs its handlers and timeouts there).
    let queue: DispatchQueue
    private let listener: Int32
    private let readLoop: ReadLoop
    /// The listener's `readLoop` registration while accepting.
    private var accepting: UInt64?
    private var stopped = false
    private let allowedUIDs: Set<UInt32>
    private let log: Log
    private let connections: ConnectionRegistry
    private let requests: any RequestHandling
    private let spoolBudget: SpoolBudget

    /// A descriptor of /dev/null held in reserve (-1 while none): closed to accept and shed a
    /// connection when the process is out of descriptors, so the listener never stays readable
    /// with nothing able to empty it.
    private var reserve: Int32 = -1
    /// Refused peers whose refusal is still being read (`refuse`): fd → readLoop token.
    private var lingering: [Int32: UInt64] = [:]
    private let refusals: RateLimitedWarning
    private let shortOfDescriptors: RateLimitedWarning
    private let cutOffs: RateLimitedWarning

    /// Accepts per wake-up at most: a flood of connections cannot keep the I/O queue from the
    /// other sockets (the listener is level-triggered, so the rest are reported again at once).
    static let acceptBatch = 64
    /// Refused peers that may linger at once; beyond, a refusal is written and closed at once.
    static let maxLingering = 64

    /// `requests` takes every request of every connection; `connections` holds the connections
    /// while they are open; `spoolBudget` is where their long streamed answers may wait.
    init(
        listener: Int32, queue: DispatchQueue, readLoop: ReadLoop, allowedUIDs: Set<UInt32>, log: Log,
        requests: any RequestHandling, connections: ConnectionRegistry, spoolBudget: SpoolBudget
    ) {
        self.listener = listener
        self.queue = queue
        self.readLoop = readLoop
        self.allowedUIDs = allowedUIDs
        self.log = log
        self.requests = requests
        self.connections = connections
        self.spoolBudget = spoolBudget
        refusals = RateLimitedWarning(log: log)
        shortOfDescriptors = RateLimitedWarning(log: log)
        cutOffs = RateLimitedWarning(log: log)
        reserve = Files.openNullDevice() ?? -1
    }

    /// Starts accepting. Call on the queue.
    func start() throws(PosixError) {
        dispatchPrecondition(condition: .onQueue(queue))
        accepting = try readLoop.watch(listener, last: true) { [unowned self] in self.acceptAll() }
    }

    /// Stops watching the listener for 100 ms: it stays readable while a connection waits, so an
    /// accept that keeps failing would otherwise be retried in a tight loop. The retry is a
    /// `ReadLoop` timeout, which needs no descriptor.
    private func pauseAccepting() {
        guard let accepting else { return }
        readLoop.forget(accepting, fd: listener)
        self.accepting = nil
        readLoop.after(milliseconds: 100) { [unowned self] in
            guard !stopped, self.accepting == nil else { return }
            if reserve < 0 { reserve = Files.openNullDevice() ?? -1 }
            do { try start() } catch { warn(shortOfDescriptors, "cannot wait for connections: \(error)") }
        }
    }

    private func acceptAll() {
        dispatchPrecondition(condition: .onQueue(queue))
        for _ in 0..<Server.acceptBatch {
            let fd: Int32?
            do {
                fd = try UnixSocket.accept(listener)
            } catch  where error.errno == EMFILE || error.errno == ENFILE {
                warn(
                    shortOfDescriptors,
                    "out of file descriptors: new connections are closed until some are free (\(error))")
                switch shedOne() {
                case .shed: continue
                case .empty: return
                case .failed:
                    pauseAccepting()
                    return
                }
            } catch {
                warn(shortOfDescriptors, "cannot accept a connection: \(error)")
                pauseAccepting()
                return
            }
            guard let fd else { return }
            let peer = try? UnixSocket.peerCredentials(fd)
            guard let peer, allowedUIDs.contains(peer.uid) else {
                refuse(fd, uid: peer?.uid)
                continue
            }
            let connection = ClientConnection(
                fd: fd, peer: peer, queue: queue, readLoop: readLoop, requests: requests, spoolBudget: spoolBudget,
                onClose: { [connections] c in connections.remove(c) },
                onDrained: { [connections] _ in connections.drained() },
                onCutOff: { [unowned self] unread, problem in
                    if let problem {
                        self.warn(
                            self.cutOffs,
                            "disconnected a client (pid \(peer.pid)) reading slower than todod answers: \(problem); \(unread) bytes of answers unsent"
                        )
                    } else {
                        self.warn(
                            self.cutOffs,
                            "disconnected a client (pid \(peer.pid)) that stopped reading: \(unread) bytes of answers unsent"
                        )
                    }
                })
            connections.add(connection)
            connection.start()
        }
    }

    /// Out of descriptors: frees the reserve to accept the waiting connection and close it at
    /// once (its peer sees the connection closed), then takes the reserve again. Returns
    /// `.failed` without a reserve, or when the freed descriptor did not help (ENFILE taken by
    /// another process): the caller then pauses instead of retrying at once. (Linux reports
    /// EMFILE before it looks for a waiting connection, so `.empty` is the usual end.)
    private func shedOne() -> Shedding {
        guard reserve >= 0 else { return .failed }
        Posix.close(reserve)
        defer { reserve = Files.openNullDevice() ?? -1 }
        do {
            guard let shed = try UnixSocket.accept(listener) else { return .empty }
            Posix.close(shed)
            return .shed
        } catch {
            return .failed
        }
    }

    private enum Shedding { case shed, empty, failed }

    /// Logs through `limiter`, and logs the count of those held back when it is due.
    private func warn(_ limiter: RateLimitedWarning, _ message: String) {
        guard let due = limiter.warn(message, now: Posix.monotonicSeconds()) else { return }
        readLoop.after(milliseconds: Int((due - Posix.monotonicSeconds()) * 1000) + 1) {
            limiter.flush(now: Posix.monotonicSeconds())
        }
    }

    /// Answers a peer of another uid with -32003 and hangs up, without any connection state. The
    /// socket lingers for up to two seconds, discarding what the peer sends, because closing a
    /// Unix socket with unread input resets it and the peer would read an error after the
    /// refusal. At most `maxLingering` linger; a flood beyond is closed at once.
    private func refuse(_ fd: Int32, uid: UInt32?) {
        warn(
            refusals,
            "refused a connection from uid \(uid.map(String.init) ?? "unknown"): this daemon serves only its owner and root"
        )
        _ = try? Posix.write(fd, RPCMessage.line(RPCMessage.error(id: .null, .permissionDenied)), from: 0)
        shutdown(fd, Int32(SHUT_WR))
        guard lingering.count < Server.maxLingering,
            let token = try? readLoop.watch(fd, handler: { [unowned self] in self.discardInput(fd) })
        else {
            Posix.close(fd)
            return
        }
        lingering[fd] = token
        readLoop.after(milliseconds: 2000) { [unowned self] in self.endLingering(fd, token) }
    }

    /// Reads and drops what a refused peer sends; hangs up at its end of input.
    private func discardInput(_ fd: Int32) {
        guard let token = lingering[fd] else { return }
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            guard let n = try? Posix.read(fd, into: &scratch) else { return }
            if n <= 0 { break }
        }
        endLingering(fd, token)
    }

    private func endLingering(_ fd: Int32, _ token: UInt64) {
        guard lingering[fd] == token else { return } // already closed (and the number maybe reused)
        lingering[fd] = nil
        readLoop.forget(token, fd: fd)
        Posix.close(fd)
    }

    /// Stops accepting and stops reading from every connection; answers already queued still go out.
    /// The listening socket is closed, or with `keepingListener` left open and returned (for the
    /// program that replaces this one: connections meanwhile wait in its backlog).
    @discardableResult
    func stopAccepting(keepingListener: Bool = false) -> Int32 {
        dispatchPrecondition(condition: .onQueue(queue))
        stopped = true
        if let accepting {
            readLoop.forget(accepting, fd: listener)
            if !keepingListener { Posix.close(listener) }
            self.accepting = nil
        }
        connections.stopReading()
        return listener
    }
}
