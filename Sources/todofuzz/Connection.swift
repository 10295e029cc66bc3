import Foundation
import Synchronization
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock.
func now() -> Double { Posix.monotonicSeconds() }

func setTimeout(_ fd: Int32, _ option: Int32, seconds: Double) {
    var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
    setsockopt(fd, SOL_SOCKET, option, &tv, socklen_t(MemoryLayout<timeval>.size))
}

/// One fuzzing connection: the worker writes, a reader thread reads and checks every line the
/// daemon sends, all the time, so the daemon's 8 MiB output bound is never reached by us.
final class Connection: @unchecked Sendable {
    // @unchecked: mutable state is guarded by `lock`; `fd` is immutable.
    let fd: Int32
    let worker: Int
    private let stats: Stats
    private let lock = Mutex(())
    private let readerDone = DispatchGroup()
    /// Canary ids sent and not yet answered, oldest first, with their send time.
    private var pendingCanaries: [(id: String, sent: Double)] = []
    private var pendingHead = 0
    private var closedByPeer = false
    private var shutDownByUs = false
    /// The last line received: was it the -32600 with id null that a too-long line gets?
    private var lastWasOversizeRefusal = false
    private var trailingPartial = 0

    init(path: String, worker: Int, stats: Stats) throws(PosixError) {
        fd = try UnixSocket.connect(path: path)
        setTimeout(fd, SO_SNDTIMEO, seconds: 30)
        self.worker = worker
        self.stats = stats
        stats.connected()
        readerDone.enter()
        let thread = Thread { [self] in
            readLoop()
            readerDone.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func readLoop() {
        var framer = LineFramer(maxLineLength: 1 << 30)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break } // end of file, ECONNRESET, or our shutdown
            framer.append(buffer[0..<n])
            while case .line(let line)? = framer.next() { handle(line[...]) }
        }
        lock.withLock { _ in
            closedByPeer = true
            trailingPartial = framer.pendingCount
        }
    }

    private func handle(_ line: ArraySlice<UInt8>) {
        switch classify(line) {
        case .failure(let problem):
            stats.invalidLine("connection \(worker): \(problem.reason)", line)
            lock.withLock { _ in lastWasOversizeRefusal = false }
        case .success(let (outcome, id)):
            stats.answer(outcome)
            var refusal = false
            if case .error(-32600) = outcome, id == .null { refusal = true }
            lock.withLock { _ in lastWasOversizeRefusal = refusal }
            guard case .string(let text)? = id, text.hasPrefix("~canary~") else { return }
            let expected: String? = lock.withLock { _ in
                guard pendingHead < pendingCanaries.count else { return nil }
                defer { pendingHead += 1 }
                return pendingCanaries[pendingHead].id
            }
            if expected != text {
                stats.invalidLine(
                    "connection \(worker): canary \(text) answered out of order (expected \(expected ?? "none"))", line)
            } else if case .error(let code) = outcome {
                stats.invalidLine("connection \(worker): canary \(text) (a valid request) failed with \(code)", line)
            } else {
                stats.canaryAnswered()
            }
        }
    }

    enum SendResult {
        case ok
        case closed(Int32)
        case stalled
    }

    func send(_ bytes: [UInt8], canary: String?) -> SendResult {
        if let canary { lock.withLock { _ in pendingCanaries.append((canary, now())) } }
        do {
            try Posix.writeAll(fd, bytes)
            return .ok
        } catch  where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return .stalled
        } catch {
            return .closed(error.errno)
        }
    }

    var isClosedByPeer: Bool { lock.withLock { _ in closedByPeer && !shutDownByUs } }

    /// Canaries sent and not answered.
    var unansweredCanaries: Int { lock.withLock { _ in pendingCanaries.count - pendingHead } }

    /// How long the oldest unanswered canary has waited, in seconds.
    var oldestCanaryAge: Double {
        lock.withLock { _ in pendingHead < pendingCanaries.count ? now() - pendingCanaries[pendingHead].sent : 0 }
    }

    /// Waits until the daemon hung up; false on timeout.
    func waitForPeerClose(timeout: Double) -> Bool {
        readerDone.wait(timeout: .now() + timeout) == .success
    }

    var endedWithOversizeRefusal: Bool { lock.withLock { _ in lastWasOversizeRefusal } }

    /// Waits until every canary sent has been answered; false on timeout or hang-up.
    func waitForCanaries(timeout: Double) -> Bool {
        let deadline = now() + timeout
        while now() < deadline {
            if unansweredCanaries == 0 { return true }
            if lock.withLock({ _ in closedByPeer }) { return unansweredCanaries == 0 }
            usleep(2000)
        }
        return false
    }

    /// Hangs up at once, whatever is unread or unsent, and waits for the reader to finish.
    func close() {
        lock.withLock { _ in shutDownByUs = true }
        shutdown(fd, Int32(SHUT_RDWR))
        readerDone.wait()
        Posix.close(fd)
        let abandoned = lock.withLock { _ in pendingCanaries.count - pendingHead }
        if abandoned > 0 { stats.canariesAbandoned(abandoned) }
    }
}

/// One connection's worth of work: generate items, send them, reconnect when the item says so
/// or the daemon hung up, and end with a canary that must be answered.
final class Worker: @unchecked Sendable {
    // @unchecked: used by one thread; the monitor reads `connection` under `lock`.
    let index: Int
    private let path: String
    private let quota: Int
    private let stats: Stats
    private var generator: Generator
    private let lock = Mutex(())
    private var current: Connection?
    /// The last items sent, for the failure report.
    private var recent: [String] = []

    init(index: Int, seed: UInt64, wideKeys: Int, quota: Int, path: String, stats: Stats) {
        self.index = index
        self.quota = quota
        self.path = path
        self.stats = stats
        generator = Generator(seed: seed, worker: index, wideKeys: wideKeys)
    }

    var connection: Connection? { lock.withLock { _ in current } }
    var recentItems: [String] { lock.withLock { _ in recent } }

    private func connect() -> Connection? {
        do {
            let c = try Connection(path: path, worker: index, stats: stats)
            lock.withLock { _ in current = c }
            return c
        } catch {
            stats.crash("connection \(index) cannot connect to \(path): \(error)")
            return nil
        }
    }

    private func drop(_ c: Connection) {
        c.close()
        lock.withLock { _ in current = nil }
    }

    func run() {
        guard var conn = connect() else { return }
        var sent = 0
        /// Bytes sent on this connection since its last newline: the line the daemon is collecting.
        var partial = 0
        /// Whether this connection may have subscribed with `watch` (it then stays open after a
        /// too-long line, so the close that follows one could not be checked).
        var mayWatch = false
        var drains = 0
        while sent < quota && !stats.isStopping {
            let item = generator.next()
            let description =
                "connection \(index) item \(generator.index): \(item.kind.rawValue), \(item.bytes.count) bytes"
            lock.withLock { _ in
                recent.append(description)
                if recent.count > 12 { recent.removeFirst() }
            }
            let big = item.bytes.count >= Generator.maxLine - 4096
            if conn.isClosedByPeer {
                stats.unexpectedClose("connection \(index) was closed by the daemon before item \(generator.index)")
                drop(conn)
                guard let c = connect() else { return }
                conn = c
                partial = 0
                mayWatch = false
            }
            if item.after == .expectClose && mayWatch {
                drop(conn) // a fresh connection, so the daemon's hang-up can be checked
                stats.disconnected(deliberately: true)
                guard let c = connect() else { return }
                conn = c
                partial = 0
                mayWatch = false
            }
            // Keep the line the daemon is collecting below 1 MiB unless this item means to pass it.
            let firstNewline = item.bytes.withUnsafeBufferPointer { p -> Int? in
                guard let base = p.baseAddress, let hit = memchr(base, 0x0A, p.count) else { return nil }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            }
            if partial > 0 && (big || partial + (firstNewline ?? item.bytes.count) > Generator.maxLine - 1024) {
                if case .ok = conn.send([0x0A], canary: nil) { stats.sentBytes(1) }
                partial = 0
            }
            if !mayWatch, item.bytes.count < 4096 || item.kind == .burst || item.kind == .watch || item.kind == .mutated
            {
                mayWatch = contains(item.bytes, Array(Method.watch.name.utf8))
            }
            if item.after == .disconnect {
                // Read every answer owed so far, so a disconnect does not hide them from the checks.
                drains += 1
                let id = "~canary~\(index)~drain\(drains)"
                if case .ok = conn.send(
                    Array("\n{\"jsonrpc\":\"2.0\",\"id\":\"\(id)\",\"method\":\"daemon.status\"}\n".utf8), canary: id)
                {
                    stats.canarySent()
                    stats.sentBytes(60)
                    if !conn.waitForCanaries(timeout: 30) && !conn.isClosedByPeer {
                        stats.hang(
                            "connection \(index): \(conn.unansweredCanaries) valid request(s) unanswered after 30 s (before item \(generator.index))"
                        )
                        return
                    }
                }
                partial = 0
            }
            let result = conn.send(item.bytes, canary: item.canary)
            stats.sent(item)
            sent += item.inputs
            if let last = item.bytes.lastIndex(of: 0x0A) {
                partial = item.bytes.count - last - 1
            } else {
                partial += item.bytes.count
            }

            switch (result, item.after) {
            case (.stalled, _):
                stats.hang(
                    "connection \(index): a write blocked for 30 s (the daemon stopped reading) at item \(generator.index) (\(item.kind.rawValue))"
                )
                return
            case (_, .expectClose):
                // Every request before the long line is answered, then -32600, then end of file.
                if !conn.waitForPeerClose(timeout: 30) {
                    stats.hang(
                        "connection \(index): the daemon did not close the connection within 30 s after a line past 1 MiB (item \(generator.index))"
                    )
                    return
                }
                if !conn.endedWithOversizeRefusal {
                    stats.invalidLine(
                        "connection \(index): the last line before the hang-up after a line past 1 MiB (item \(generator.index)) was not -32600 with id null",
                        [])
                }
                if conn.unansweredCanaries > 0 {
                    stats.invalidLine(
                        "connection \(index): \(conn.unansweredCanaries) canary request(s) sent before a too-long line were never answered",
                        [])
                }
                drop(conn)
                stats.disconnected(deliberately: false)
            case (_, .disconnect):
                drop(conn)
                stats.disconnected(deliberately: true)
            case (.closed(let errno), .keep):
                stats.unexpectedClose(
                    "connection \(index): write failed (\(String(cString: strerror(errno)))) at item \(generator.index) (\(item.kind.rawValue))"
                )
                drop(conn)
            case (.ok, .keep):
                continue
            }
            guard let c = connect() else { return }
            conn = c
            partial = 0
            mayWatch = false
        }
        // The end: one more canary, which must be answered, then hang up.
        if !stats.isStopping {
            let end = "~canary~\(index)~end"
            let line = Array("\n{\"jsonrpc\":\"2.0\",\"id\":\"\(end)\",\"method\":\"daemon.status\"}\n".utf8)
            _ = conn.send(line, canary: end)
            stats.canarySent()
            if !conn.waitForCanaries(timeout: 60) {
                if conn.isClosedByPeer {
                    stats.unexpectedClose(
                        "connection \(index) was closed by the daemon before its last canary was answered")
                } else {
                    stats.hang(
                        "connection \(index): the final request was not answered within 60 s (\(conn.unansweredCanaries) unanswered)"
                    )
                }
            }
        }
        drop(conn)
    }
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count, let first = needle.first else { return needle.isEmpty }
    var i = 0
    while i <= haystack.count - needle.count {
        if haystack[i] == first && haystack[i..<i + needle.count].elementsEqual(needle) { return true }
        i += 1
    }
    return false
}
