import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoProtocol
import TodoTestSupport

@testable import TodoDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// Records what a connection hands over; with `answer`, answers each request at once, as the
/// executor's inline path does.
private final class RecordingHandler: RequestHandling, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [Result<RPCRequest, RPCFailure>] = []
    /// Called on the I/O queue for each request; its line is sent as the answer.
    var answer: (@Sendable (Result<RPCRequest, RPCFailure>) -> [UInt8])?

    func handle(_ request: Result<RPCRequest, RPCFailure>, from connection: ClientConnection) {
        lock.withLock { received.append(request) }
        if let answer { connection.answered(answer(request)) }
    }

    var requests: [Result<RPCRequest, RPCFailure>] { lock.withLock { received } }
    var count: Int { lock.withLock { received.count } }

    /// Waits (at most 5 s) until `count` requests arrived.
    @discardableResult
    func wait(count: Int) -> Int {
        _ = eventually(timeout: 5, every: 0.001) { self.count >= count }
        return self.count
    }
}

/// What the connection reported through its callbacks, on the I/O queue.
private final class Reports: @unchecked Sendable {
    private let lock = NSLock()
    private var closedFlag = false
    private var unread: Int?
    func closed() { lock.withLock { closedFlag = true } }
    func cutOff(_ bytes: Int) { lock.withLock { unread = bytes } }
    var isClosed: Bool { lock.withLock { closedFlag } }
    var cutOffWith: Int? { lock.withLock { unread } }
}

/// Connections made for the test live as long as the process (a suspended Dispatch source may
/// not be released).
nonisolated(unsafe) private var keptConnections: [ClientConnection] = []

/// A started connection on one end of a socket pair; the test is the peer on the other end.
/// (Sendable for a sender thread, which only writes to `peer`.)
private final class ConnectionHarness: @unchecked Sendable {
    let ioQueue = DispatchQueue(label: "test.io")
    let readLoop: ReadLoop
    let handler = RecordingHandler()
    let reports = Reports()
    let connection: ClientConnection
    /// The peer's end (blocking, reads time out after 5 s).
    let peer: Int32
    private let ours: Int32

    /// `spoolBudget`: where a long streamed answer may wait (nil: nowhere, it is cut off).
    init(spoolBudget: SpoolBudget? = nil) throws {
        readLoop = try ReadLoop(queue: ioQueue)
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        (ours, peer) = (fds[0], fds[1])
        try Posix.setNonBlocking(ours)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let reports = reports
        connection = ClientConnection(
            fd: ours, peer: try UnixSocket.peerCredentials(ours), queue: ioQueue, readLoop: readLoop,
            requests: handler, spoolBudget: spoolBudget,
            onClose: { _ in reports.closed() }, onCutOff: { unread, _ in reports.cutOff(unread) })
        keptConnections.append(connection)
        ioQueue.sync { connection.start() }
    }

    deinit { Glibc.close(peer) }

    static func request(_ id: Int) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"todo.get","params":{"id":1}}"#.utf8) + [0x0A]
    }

    static func answer(_ id: Int64, bytes: Int = 0) -> [UInt8] {
        RPCMessage.resultLine(id: .int(id), encodedResult: Array("\"\(String(repeating: "x", count: bytes))\"".utf8))
    }

    /// Writes all of `bytes` from the peer (blocking).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else {
                Issue.record("peer write failed: \(errno)")
                return
            }
            offset += n
        }
    }

    /// Bytes the peer read past the last whole line returned.
    private var leftover: [UInt8] = []

    /// Reads from the peer until `lines` whole lines arrived or the input ended; returns them.
    func readLines(_ lines: Int) -> [[UInt8]] {
        var data = leftover
        var newlines = data.count(where: { $0 == 0x0A })
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while newlines < lines {
            let n = Glibc.read(peer, &buffer, buffer.count)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
            newlines += buffer[0..<n].count(where: { $0 == 0x0A })
        }
        var result: [[UInt8]] = []
        var start = 0
        while result.count < lines, let end = data[start...].firstIndex(of: 0x0A) {
            result.append(Array(data[start..<end]))
            start = end + 1
        }
        leftover = Array(data[start...])
        return result
    }

    /// Reads from the peer until the input ends (0) or fails; returns the bytes read.
    /// Reads from the peer until `count` bytes came, or it ends (blocking).
    func read(count: Int) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while received.count < count {
            let n = Glibc.read(peer, &buffer, buffer.count)
            guard n > 0 else { break }
            received += buffer[0..<n]
        }
        return received
    }

    func readToEnd() -> Int {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(peer, &buffer, buffer.count)
            if n <= 0 { return total }
            total += n
        }
    }

    /// Waits until the connection has read everything the peer sent, and the handler that read
    /// it has finished.
    func settleInput() {
        _ = eventually(timeout: 5, every: 0.001) {
            var unread: Int32 = 0
            _ = ioctl(ours, UInt(FIONREAD), &unread)
            return unread == 0
        }
        ioQueue.sync {}
    }

    func ids(_ requests: [Result<RPCRequest, RPCFailure>]) -> [Int64?] {
        requests.map { if case .success(let r) = $0 { r.id?.intValue } else { nil } }
    }
}

@Suite struct ClientConnectionTests {
    /// Complete lines go to the handler in the order they came (blank lines skipped, a bad one as
    /// its parse error, a line split across reads once whole); answers leave in the order given.
    @Test func linesAreHandedOverInOrderAndAnsweredInOrder() throws {
        let h = try ConnectionHarness()
        let first = ConnectionHarness.request(1)
        h.send(Array(first[..<10]))
        h.settleInput()
        #expect(h.handler.count == 0)
        h.send(
            Array(first[10...]) + Array("\n  \n".utf8) + ConnectionHarness.request(2) + Array("{not json\n".utf8)
                + ConnectionHarness.request(3))
        #expect(h.handler.wait(count: 4) == 4)
        let requests = h.handler.requests
        #expect(h.ids(requests) == [1, 2, nil, 3])
        guard case .failure(let bad) = requests[2] else {
            Issue.record("the bad line was taken as a request")
            return
        }
        #expect(bad.error.code == RPCError.parseErrorCode)
        h.ioQueue.sync {
            for id: Int64 in [1, 2] { h.connection.answered(ConnectionHarness.answer(id)) }
            h.connection.answered(RPCMessage.line(RPCMessage.error(id: bad.id, bad.error)))
            h.connection.answered(ConnectionHarness.answer(3))
        }
        let lines = h.readLines(4).map { try? JSON.parse($0) }
        #expect(lines.map { $0?["id"]?.intValue } == [1, 2, nil, 3])
        #expect(lines[2]?["error"]?["code"]?.intValue == Int64(RPCError.parseErrorCode))
    }

    /// A peer that ends its input still gets every answer; the connection closes after the last.
    @Test func theConnectionClosesAfterTheLastAnswerWhenThePeerEndsItsInput() throws {
        let h = try ConnectionHarness()
        h.send(ConnectionHarness.request(1) + ConnectionHarness.request(2))
        shutdown(h.peer, Int32(SHUT_WR))
        #expect(h.handler.wait(count: 2) == 2)
        h.ioQueue.sync { h.connection.answered(ConnectionHarness.answer(1)) }
        #expect(h.ioQueue.sync { !h.connection.closed })
        h.ioQueue.sync { h.connection.answered(ConnectionHarness.answer(2)) }
        #expect(h.readLines(3).map { try? JSON.parse($0)["id"]?.intValue } == [1, 2]) // then the end
        #expect(h.reports.isClosed)
    }

    /// A line longer than the framer's limit is answered -32600 after the answers before it, and
    /// the connection then hangs up.
    @Test func aLineTooLongIsAnsweredInOrderThenTheConnectionHangsUp() throws {
        let h = try ConnectionHarness()
        let sender = Thread { [peer = h.peer] in
            var bytes =
                ConnectionHarness.request(1) + [UInt8](repeating: 0x61, count: LineFramer.defaultMaxLineLength + 10)
            bytes.append(0x0A)
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes {
                    Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if n <= 0 { return }
                offset += n
            }
        }
        sender.start()
        #expect(h.handler.wait(count: 2) == 2)
        let requests = h.handler.requests
        guard case .failure(let tooLong) = requests[1] else {
            Issue.record("the long line was taken")
            return
        }
        #expect(tooLong.error.code == RPCError.invalidRequestCode)
        h.ioQueue.sync {
            h.connection.answered(ConnectionHarness.answer(1))
            h.connection.answered(RPCMessage.line(RPCMessage.error(id: tooLong.id, tooLong.error)))
        }
        let lines = h.readLines(3).map { try? JSON.parse($0) }
        #expect(lines.map { $0?["id"]?.intValue } == [1, nil])
        #expect(lines[1]?["error"]?["code"]?.intValue == Int64(RPCError.invalidRequestCode))
        #expect(h.reports.isClosed)
    }

    /// Backpressure by count: with `maxInFlight` requests waiting for answers the connection takes
    /// no more (it keeps what arrives, unparsed); each answer lets one more in.
    @Test func atMaxInFlightNoRequestIsTakenUntilOneIsAnswered() throws {
        let h = try ConnectionHarness()
        let total = ClientConnection.maxInFlight + 10
        let bytes = (1...total).flatMap { ConnectionHarness.request($0) }
        let sent = DispatchSemaphore(value: 0)
        let sender = Thread { [h] in
            h.send(bytes)
            sent.signal()
        }
        sender.start()
        #expect(h.handler.wait(count: ClientConnection.maxInFlight) == ClientConnection.maxInFlight)
        #expect(sent.wait(timeout: .now() + 5) == .success)
        h.settleInput()
        #expect(h.handler.count == ClientConnection.maxInFlight)
        h.ioQueue.sync { h.connection.answered(ConnectionHarness.answer(1)) }
        #expect(h.handler.count == ClientConnection.maxInFlight + 1)
        h.ioQueue.sync { for _ in 0..<9 { h.connection.answered(nil) } }
        #expect(h.handler.count == total)
        #expect(h.ids(h.handler.requests) == (1...total).map { Int64($0) })
    }

    /// Backpressure by bytes: while more than `outputHighMark` of answers wait unread, the
    /// connection takes no new request; once the peer reads them it goes on.
    @Test func unreadAnswersHoldNewRequestsUntilThePeerReads() throws {
        let h = try ConnectionHarness()
        let big = 2 * ClientConnection.outputHighMark
        h.handler.answer = { request in
            guard case .success(let r) = request, let id = r.id?.intValue else { return [] }
            return ConnectionHarness.answer(id, bytes: big)
        }
        h.send(ConnectionHarness.request(1) + ConnectionHarness.request(2) + ConnectionHarness.request(3))
        #expect(h.handler.wait(count: 1) == 1)
        h.settleInput()
        #expect(h.handler.count == 1)
        for expected in 1...3 {
            let lines = h.readLines(1)
            #expect(lines.count == 1 && lines[0].count > big)
            let end = Array(#"x","id":\#(expected)}"#.utf8)
            #expect(lines.first.map { Array($0.suffix(end.count)) } == end) // its whole answer, in order
            if expected < 3 { #expect(h.handler.wait(count: expected + 1) == expected + 1) }
        }
        #expect(h.handler.count == 3)
    }

    /// The output bound: a peer that lets more than `outputLimit` of answers and events pile up
    /// unread is cut off (and told how much it left).
    @Test func aPeerThatStopsReadingIsCutOffAtTheOutputBound() throws {
        let h = try ConnectionHarness()
        let mebibyte = [UInt8](repeating: 0x20, count: 1 << 20) + [0x0A]
        let parts = ClientConnection.outputLimit / (1 << 20)
        h.ioQueue.sync { for _ in 0..<parts { h.connection.send(line: mebibyte) } }
        #expect(h.ioQueue.sync { !h.connection.closed }) // within the bound
        #expect(h.reports.cutOffWith == nil)
        h.ioQueue.sync { for _ in 0..<2 { h.connection.send(line: mebibyte) } }
        #expect(h.ioQueue.sync { h.connection.closed })
        let unread = try #require(h.reports.cutOffWith)
        #expect(unread > ClientConnection.outputLimit)
        #expect(h.reports.isClosed)
        // The peer reads what the kernel held, then the end: nothing more was queued.
        #expect(h.readToEnd() < (parts + 2) << 20)
    }

    /// A streamed answer beyond `streamLimit` is cut off too.
    /// With a spool, a stream past its bound in memory waits on disk: a peer that reads only
    /// after all of it was queued gets every byte in order, and an answer queued behind it
    /// comes after it. The spool's file has no name (nothing is left in its directory).
    @Test func aStreamBeyondItsBoundInMemoryWaitsInTheSpool() throws {
        let dir = TemporaryDirectory("spool")
        let h = try ConnectionHarness(spoolBudget: SpoolBudget(directory: dir.path))
        let parts = ClientConnection.streamLimit / (1 << 20) * 3
        let piece = { (i: Int) in [UInt8](repeating: UInt8(0x41 + i % 26), count: 1 << 20) }
        h.ioQueue.sync {
            for i in 0..<parts { h.connection.sendPart(piece(i)) }
            h.connection.send(line: Array("after\n".utf8))
        }
        #expect(!h.ioQueue.sync { h.connection.closed })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        let expected = (0..<parts).flatMap(piece) + Array("after\n".utf8)
        let received = h.read(count: expected.count)
        #expect(received.count == expected.count)
        #expect(received == expected, "every byte, in order")
        #expect(h.ioQueue.sync { h.connection.isFlushed && !h.connection.closed })
    }

    /// A `watch` replay longer than the bound in memory is spooled as the store queue writes it
    /// (`ReplayOutput`: never whole in memory), and reaches the peer whole, in order, after the
    /// answer and before what is sent after it; nothing is left in the spool's directory.
    @Test func aLongReplayIsSpooledAsItIsWrittenAndArrivesInOrder() throws {
        let dir = TemporaryDirectory("spool")
        let budget = SpoolBudget(directory: dir.path)
        let h = try ConnectionHarness(spoolBudget: budget)
        let line = { (i: Int) in Array(#"{"n":\#(i),"pad":"\#(String(repeating: "x", count: 4000))"}"#.utf8) + [0x0A] }
        let count = ClientConnection.streamLimit / 4000 * 3
        var replay: ReplayOutput? = ReplayOutput(budget: budget) // let go once sent, as a reply is
        for i in 0..<count { replay?.append(line(i)) }
        #expect(replay?.spool != nil)
        #expect(
            (replay?.lines ?? []).reduce(0) { $0 + $1.count } <= ReplayOutput.memoryLimit, "the rest is on disk")
        #expect(replay?.problem == nil)
        h.ioQueue.sync { [replay] in
            h.connection.send(line: Array("answer\n".utf8))
            if let replay { h.connection.sendReplay(replay) }
            h.connection.send(line: Array("after\n".utf8))
        }
        replay = nil
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        let expected = Array("answer\n".utf8) + (0..<count).flatMap(line) + Array("after\n".utf8)
        let received = h.read(count: expected.count)
        #expect(received.count == expected.count)
        #expect(received == expected, "every line, in order")
        #expect(h.ioQueue.sync { h.connection.isFlushed && !h.connection.closed })
        #expect(h.ioQueue.sync { budget.reserve(budget.limit) }, "the replay's room is free again")
    }

    /// A replay that would take more than the spool budget stops being kept where the room ends,
    /// and its reader is cut off.
    @Test func aReplayBeyondTheSpoolBudgetCutsItsReaderOff() throws {
        let dir = TemporaryDirectory("spool")
        let budget = SpoolBudget(directory: dir.path, limit: 2 << 20)
        let h = try ConnectionHarness(spoolBudget: budget)
        var replay: ReplayOutput? = ReplayOutput(budget: budget)
        let line = [UInt8](repeating: 0x20, count: 1 << 16) + [0x0A]
        for _ in 0..<(ClientConnection.streamLimit / (1 << 16) + 64) { replay?.append(line) }
        #expect(replay?.problem != nil)
        h.ioQueue.sync { [replay] in
            h.connection.send(line: Array("answer\n".utf8))
            if let replay { h.connection.sendReplay(replay) }
        }
        replay = nil
        #expect(h.ioQueue.sync { h.connection.closed })
        #expect(h.reports.cutOffWith != nil)
        #expect(h.ioQueue.sync { budget.reserve(2 << 20) }, "the cut-off replay's room is free again")
    }

    /// A stream that would take more than the spool budget is cut off, and gives its room back.
    @Test func aStreamBeyondTheSpoolBudgetIsCutOff() throws {
        let dir = TemporaryDirectory("spool")
        let budget = SpoolBudget(directory: dir.path, limit: 2 << 20)
        let h = try ConnectionHarness(spoolBudget: budget)
        let mebibyte = [UInt8](repeating: 0x20, count: 1 << 20)
        h.ioQueue.sync {
            for _ in 0..<(ClientConnection.streamLimit / (1 << 20) + 8) { h.connection.sendPart(mebibyte) }
        }
        #expect(h.ioQueue.sync { h.connection.closed })
        #expect((h.reports.cutOffWith ?? 0) > ClientConnection.streamLimit)
        #expect(h.ioQueue.sync { budget.reserve(2 << 20) }, "the cut-off spool's room is free again")
    }

    @Test func aStreamBeyondItsBoundIsCutOff() throws {
        let h = try ConnectionHarness()
        let mebibyte = [UInt8](repeating: 0x20, count: 1 << 20)
        let parts = ClientConnection.streamLimit / (1 << 20) + 2
        h.ioQueue.sync { for _ in 0..<parts { h.connection.sendPart(mebibyte) } }
        #expect(h.ioQueue.sync { h.connection.closed })
        #expect((h.reports.cutOffWith ?? 0) > ClientConnection.streamLimit)
    }
}
