import Dispatch
import Synchronization
import TodoCore
import TodoPosix
import TodoProtocol

/// Takes the requests a connection decodes, on the I/O queue, in the order they arrived (the
/// `RequestExecutor`). Each is answered later through `ClientConnection.answered`, in that order.
protocol RequestHandling: AnyObject, Sendable {
    /// A complete line from `connection`: a request, or the error to answer it with.
    func handle(_ request: consuming Result<RPCRequest, RPCFailure>, from connection: ClientConnection)
}

/// One client: a non-blocking socket read through the `ReadLoop` and written through a Dispatch
/// write source, both on the I/O queue.
///
/// Complete lines are decoded and submitted in order; answers come back in the same order.
/// Backpressure: a connection whose answers are not being read takes no new request (more than
/// `outputHighMark` unsent, or `maxInFlight` requests waiting for answers); what it sends meanwhile
/// waits unparsed, and reading pauses once `inputLimit` bytes wait, until the peer reads. Every
/// buffer is bounded in bytes: a peer that lets more than `outputLimit` bytes of answers and events
/// (`streamLimit` for a streamed answer) pile up is cut off, so it never grows the daemon without
/// bound, nor stalls it or other clients. A streamed answer beyond `streamLimit` waits on disk
/// instead (`OutputSpool`, all connections' together bounded by their `SpoolBudget`), so a slow
/// reader of a long listing gets all of it.
final class ClientConnection: @unchecked Sendable {
    // @unchecked: everything mutable is touched only on `queue` (the I/O queue), or by a
    // `ResponseStream` on the I/O thread while that queue waits in `store.queue.sync`
    // (`RequestExecutor.answerInline`); except `heldImport`, touched only on the store queue, and
    // `hungUp`, an atomic read from any queue. The static `scratch` is used only on the I/O queue.
    // Confined so, the state needs no dynamic exclusivity checks (`@exclusivity(unchecked)`): 12
    // calls into the runtime a request.
    let fd: Int32
    let peer: PeerCredentials
    private let queue: DispatchQueue
    private let readLoop: ReadLoop
    /// The `readLoop` registration while reading (nil while paused or after the input ended).
    @exclusivity(unchecked) private var reading: UInt64?
    private let writeSource: any DispatchSourceWrite
    @exclusivity(unchecked) private var writing = false
    @exclusivity(unchecked) private var framer = LineFramer()
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var outputOffset = 0
    /// `output` is an answer's line taken as it was (`send(line:)`).
    @exclusivity(unchecked) private var outputIsALine = false
    /// What waits behind `output` on disk: the rest of a long streamed answer and anything
    /// queued after it, until it is all written.
    @exclusivity(unchecked) private var spool: OutputSpool?
    /// Bytes of answers and events queued behind a spooled stream (bounded by `outputLimit`, as
    /// in memory).
    @exclusivity(unchecked) private var linesInSpool = 0
    private let spoolBudget: SpoolBudget?
    @exclusivity(unchecked) private var inFlight = 0
    @exclusivity(unchecked) private var inputClosed = false
    /// Whether complete lines received are still taken as requests (false after a line too long).
    @exclusivity(unchecked) private var takingRequests = true
    /// Set while `takeRequests` runs: an answer given inline comes back into it.
    @exclusivity(unchecked) private var taking = false
    @exclusivity(unchecked) private(set) var closed = false
    /// Set once the connection is closed; read from the store queue to skip its pending reads.
    let hungUp = Atomic<Bool>(false)
    /// The parts of a `store.import` sent so far in parts (`"more": true`), not yet applied.
    /// Touched only on the store queue; dropped with the connection.
    @exclusivity(unchecked) var heldImport: HeldImport?
    /// The events this connection is sent, once it called `watch`.
    @exclusivity(unchecked) var subscription: Subscription = .unsubscribed

    /// Unsent answers and events beyond which a peer is cut off.
    static let outputLimit = 8 << 20
    /// Unsent output a streamed answer (`ResponseStream`) may reach in memory; beyond it the
    /// rest waits in the `OutputSpool` (or, without a spool budget, the peer is cut off).
    static let streamLimit = outputLimit
    /// Bytes read back from the spool at a time.
    static let spoolChunk = 1 << 20
    /// Unsent output above which the connection takes no new request.
    static let outputHighMark = 1 << 20
    /// Requests a connection may have waiting for answers before it takes no new one.
    static let maxInFlight = 4096
    /// Bytes received and not yet taken as requests beyond which reading pauses.
    static let inputLimit = 8 << 20

    private let requests: any RequestHandling
    private let onClose: (ClientConnection) -> Void
    /// Called when output that had to wait for the peer to read is all written.
    private let onDrained: (ClientConnection) -> Void
    /// Called when the peer is cut off for not reading, with the bytes it left unread.
    /// Called with the bytes left unsent, and why the spool could not hold them (nil: the peer
    /// fell further behind than the limits allow).
    private let onCutOff: (Int, String?) -> Void

    /// `spoolBudget`: where streamed answers beyond `streamLimit` may wait on disk (nil: nowhere).
    init(
        fd: Int32, peer: PeerCredentials, queue: DispatchQueue, readLoop: ReadLoop,
        requests: any RequestHandling, spoolBudget: SpoolBudget? = nil,
        onClose: @escaping (ClientConnection) -> Void, onDrained: @escaping (ClientConnection) -> Void = { _ in },
        onCutOff: @escaping (Int, String?) -> Void = { _, _ in }
    ) {
        self.fd = fd
        self.peer = peer
        self.queue = queue
        self.readLoop = readLoop
        self.requests = requests
        self.spoolBudget = spoolBudget
        self.onClose = onClose
        self.onDrained = onDrained
        self.onCutOff = onCutOff
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
    }

    /// Starts reading. Call once, on the queue.
    func start() {
        dispatchPrecondition(condition: .onQueue(queue))
        writeSource.setEventHandler { [unowned self] in self.flush() }
        // The write source must be cancelled before the descriptor closes.
        let fd = self.fd
        writeSource.setCancelHandler { Posix.close(fd) }
        resumeReading()
    }

    private func resumeReading() {
        do {
            reading = try readLoop.watch(fd) { [unowned self] in self.readAvailable() }
        } catch {
            close()
        }
    }

    private func pauseReading() {
        guard let token = reading else { return }
        readLoop.forget(token, fd: fd)
        reading = nil
    }

    /// A scratch buffer shared by every connection: reads happen one at a time on the I/O queue.
    @exclusivity(unchecked) nonisolated(unsafe) private static var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    private func readAvailable() {
        queue.assertCurrent()
        while reading != nil {
            let n: Int?
            do {
                n = try Posix.read(fd, into: &ClientConnection.scratch)
            } catch {
                close()
                return
            }
            guard let n else { return } // would block
            if n == 0 {
                inputClosed = true
                pauseReading()
                takeRequests()
                closeIfIdle()
                return
            }
            framer.append(ClientConnection.scratch[0..<n])
            takeRequests()
            if framer.pendingCount >= ClientConnection.inputLimit { pauseReading() }
            // A short read emptied the socket: the read loop's epoll (level-triggered) calls again
            // when more comes, so no `read` that would block follows every request.
            if n < ClientConnection.scratch.count { return }
        }
    }

    /// Unsent output, in bytes: in memory, and on disk behind it.
    private var unsent: Int { unsentInMemory + (spool?.pending ?? 0) }
    private var unsentInMemory: Int { output.count - outputOffset }

    /// Submits the complete lines received, in order, while the connection may take requests:
    /// fewer than `maxInFlight` waiting for answers and no more than `outputHighMark` unsent.
    private func takeRequests() {
        guard !taking else { return }
        taking = true
        defer { taking = false }
        while takingRequests, !closed, inFlight < ClientConnection.maxInFlight,
            unsent <= ClientConnection.outputHighMark
        {
            let frame = framer.nextRequest() // blank lines are ignored
            switch consume frame {
            case .none:
                return
            case .line(nil):
                continue
            case .line(let request?):
                inFlight += 1
                requests.handle(request, from: self)
            case .tooLong:
                // Answer in order after what is already queued, then hang up.
                inFlight += 1
                requests.handle(
                    .failure(
                        RPCFailure(id: .null, error: .invalidRequest("line longer than \(framer.maxLineLength) bytes"))),
                    from: self)
                takingRequests = false
                inputClosed = true
                pauseReading()
                framer = LineFramer()
            }
        }
    }

    /// Takes what waits and reads again, when the peer caught up.
    private func resume() {
        takeRequests()
        if reading == nil && !inputClosed && !closed && framer.pendingCount < ClientConnection.inputLimit {
            resumeReading()
        }
        closeIfIdle()
    }

    /// Delivers the answer to one request: its line, newline included (nil for a notification).
    func answered(_ line: [UInt8]?) {
        queue.assertCurrent()
        inFlight -= 1
        if let line { send(line: line) }
        resume()
    }

    /// Queues a piece of a line being streamed (`ResponseStream`). Beyond `streamLimit` bytes
    /// unsent, the pieces wait in the spool; a peer that falls further behind than the spool
    /// budget allows is cut off (the stream then stops).
    func sendPart(_ bytes: [UInt8]) {
        queue.assertCurrent()
        guard !closed else { return }
        var spoolProblem: String?
        if spool == nil, unsentInMemory + bytes.count > ClientConnection.streamLimit, let spoolBudget {
            do { spool = try OutputSpool(budget: spoolBudget) } catch {
                spoolProblem = OutputSpool.describe(error, spoolBudget.directory)
            }
        }
        if let spool {
            if !spool.append(bytes) { cutOff(spool.problem) } else if !writing { flush() }
            return
        }
        if unsent > ClientConnection.streamLimit {
            cutOff(spoolProblem)
            return
        }
        output.append(contentsOf: bytes)
        flush()
    }

    /// Queues an already serialized line; behind a spooled stream, it waits in the spool too.
    func send(line: [UInt8]) {
        queue.assertCurrent()
        guard !closed else { return }
        if let spool {
            linesInSpool += line.count
            if linesInSpool > ClientConnection.outputLimit {
                cutOff()
            } else if !spool.append(line) {
                cutOff(spool.problem)
            } else if !writing {
                flush()
            }
            return
        }
        if unsent > ClientConnection.outputLimit {
            cutOff()
            return
        }
        if output.isEmpty { // nothing waits: written from the answer's own buffer, not copied into ours
            output = line
            outputIsALine = true
        } else {
            output.append(contentsOf: line)
        }
        flush()
    }

    /// Queues a `watch` replay after the answer: its lines in memory as the parts of a stream,
    /// then the lines the store queue spooled (taken over as this connection's spool, or copied
    /// behind one it already has). A replay that could not be kept whole cuts the reader off.
    func sendReplay(_ replay: ReplayOutput) {
        queue.assertCurrent()
        for line in replay.lines { sendPart(line) }
        if let rest = replay.spool, rest.pending > 0, !closed {
            if let spool {
                while rest.pending > 0, !closed {
                    let chunk = rest.take(upTo: ClientConnection.spoolChunk)
                    guard !chunk.isEmpty, spool.append(chunk) else {
                        cutOff(chunk.isEmpty ? "cannot read back its replay" : spool.problem)
                        return
                    }
                }
            } else {
                spool = rest
                if !writing { flush() }
            }
        }
        if let problem = replay.problem, !closed { cutOff(problem) }
    }

    /// The peer stopped reading, or (`problem`) what it has not read could not be kept on disk:
    /// hang up.
    private func cutOff(_ problem: String? = nil) {
        let left = unsent
        close()
        onCutOff(left, problem)
    }

    private func flush() {
        queue.assertCurrent()
        while true {
            while outputOffset < output.count {
                let n: Int?
                do {
                    n = try Posix.write(fd, output, from: outputOffset)
                } catch {
                    close()
                    return
                }
                guard let n else {
                    if !writing {
                        writing = true
                        writeSource.resume()
                    }
                    return
                }
                outputOffset += n
            }
            guard let spool, spool.pending > 0 else { break }
            output = spool.take(upTo: ClientConnection.spoolChunk)
            outputOffset = 0
            if output.isEmpty { // the spool could not be read back: the line cannot be completed
                close()
                return
            }
        }
        spool = nil
        linesInSpool = 0
        if outputIsALine { // shared with the reply until it goes: let it go rather than empty it in place
            output = []
            outputIsALine = false
        } else {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        }
        outputOffset = 0
        if writing { // only output that waited: an answer written at once costs nothing more
            writing = false
            writeSource.suspend()
            onDrained(self)
        }
        if reading == nil || framer.pendingCount > 0 { resume() } // something waited for the peer to read
    }

    /// Requests received whose answers have not been handed over yet (this one included, while
    /// it is being submitted).
    var waitingAnswers: Int { inFlight }

    /// Whether everything queued has been written.
    var isFlushed: Bool { unsent == 0 }

    private func closeIfIdle() {
        if inputClosed && inFlight == 0 && isFlushed && subscription == .unsubscribed && !taking { close() }
    }

    /// Stops reading new requests (shutdown); answers already queued still go out.
    func stopReading() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !inputClosed else { return }
        inputClosed = true
        takingRequests = false
        pauseReading()
        subscription = .unsubscribed
        closeIfIdle()
    }

    func close() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !closed else { return }
        closed = true
        hungUp.store(true, ordering: .relaxed)
        pauseReading()
        if !writing { writeSource.resume() }
        writeSource.cancel()
        output = []
        outputOffset = 0
        spool = nil
        onClose(self)
    }
}
