import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

// The bench's line connection, used for both sides of every comparison: the same `LineConnection`
// talks to todod and to the ping-pong floor, so client costs cancel out. Sockets come from
// TodoPosix and requests and answers go through TodoProtocol's JSON, as in the product.

struct BenchError: Error, CustomStringConvertible {
    let description: String
    /// A wait for data that ran out of time: a caller may wait again.
    let isTimeout: Bool
    init(_ description: String) { self.init(description, isTimeout: false) }
    init(_ error: PosixError) { self.init(error.description) }
    private init(_ description: String, isTimeout: Bool) {
        self.description = description
        self.isTimeout = isTimeout
    }

    static let lineTimeout = BenchError("timed out waiting for a line", isTimeout: true)
}

/// `errno` as text, for error messages.
func errnoText(_ what: String) -> BenchError {
    BenchError("\(what): \(String(cString: strerror(errno)))")
}

/// A request line as the product's clients write it: `RPCRequest(...).json`, then a newline.
func requestLine(id: Int64, _ method: String, _ params: JSONObject = JSONObject()) -> [UInt8] {
    var line: [UInt8] = []
    RPCRequest(id: .int(id), method: method, params: params).json.write(to: &line)
    line.append(0x0A)
    return line
}

/// One blocking connection that sends lines and reads lines, with a reusable receive buffer.
final class LineConnection {
    let fd: Int32
    /// Received bytes; `buffer[start..<end]` is not yet returned as a line.
    private var buffer = [UInt8](repeating: 0, count: 4 << 20)
    /// Where a read lands when `buffer` still holds part of a line (`Posix.read` fills from index 0).
    private var scratch = [UInt8](repeating: 0, count: 256 << 10)
    private var start = 0
    private var end = 0

    init(fd: Int32) { self.fd = fd }

    /// A connection to `path` with a receive timeout, so the bench never hangs on a stuck daemon.
    convenience init(path: String, timeoutSeconds: Int = 60) throws {
        let fd: Int32
        do { fd = try UnixSocket.connect(path: path) } catch { throw BenchError("connect \(path): \(error.reason)") }
        // TodoPosix has no SO_RCVTIMEO helper; this is the bench's one socket option. An expired
        // timeout makes `Posix.read` report "would block" (EAGAIN).
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        self.init(fd: fd)
    }

    deinit { Posix.close(fd) }

    func send(_ bytes: [UInt8]) throws {
        do { try Posix.sendAll(fd, bytes) } catch { throw BenchError(error) }
    }

    /// Reads one line (without its newline) and hands its bytes to `body`, without copying.
    /// With `waitMilliseconds` the descriptor is polled before each read, and a wait that long
    /// without data ends in `BenchError.lineTimeout` (-1: no limit; what a non-blocking descriptor needs).
    @discardableResult
    func withLine<T>(waitMilliseconds: Int32? = nil, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        while true {
            if end > start {
                let lineStart = start
                let length = buffer.withUnsafeBytes { raw -> Int? in
                    memchr(raw.baseAddress! + lineStart, 0x0A, end - lineStart).map {
                        UnsafeRawPointer($0) - (raw.baseAddress! + lineStart)
                    }
                }
                if let length {
                    start += length + 1
                    if start == end {
                        start = 0
                        end = 0
                    }
                    return try buffer.withUnsafeBytes {
                        try body(UnsafeRawBufferPointer(rebasing: $0[lineStart..<lineStart + length]))
                    }
                }
            }
            if let waitMilliseconds {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, waitMilliseconds)
                if ready < 0 && errno == EINTR { continue }
                if ready == 0 { throw BenchError.lineTimeout }
            }
            // A blocking descriptor would-blocks only when its receive timeout expired.
            if try !fill() && waitMilliseconds == nil { throw BenchError.lineTimeout }
        }
    }

    /// One read: straight into `buffer` when it is empty, else through `scratch` after the pending
    /// bytes. False when the read would block.
    private func fill() throws -> Bool {
        let n: Int?
        do {
            if start == end {
                start = 0
                n = try Posix.read(fd, into: &buffer)
                if let n { end = n }
            } else {
                if start > 0 { // compact
                    buffer.withUnsafeMutableBytes { raw in
                        _ = memmove(raw.baseAddress!, raw.baseAddress! + start, end - start)
                    }
                    end -= start
                    start = 0
                }
                n = try Posix.read(fd, into: &scratch)
                if let n, n > 0 {
                    if end + n > buffer.count {
                        buffer.append(contentsOf: repeatElement(0, count: max(buffer.count, n)))
                    }
                    buffer.withUnsafeMutableBytes { dst in
                        scratch.withUnsafeBytes { src in
                            (dst.baseAddress! + end).copyMemory(from: src.baseAddress!, byteCount: n)
                        }
                    }
                    end += n
                }
            }
        } catch {
            throw BenchError(error)
        }
        guard let n else { return false }
        if n == 0 { throw BenchError("connection closed by peer") }
        return true
    }

    /// Reads one line as bytes.
    func readLine(waitMilliseconds: Int32? = nil) throws -> [UInt8] {
        try withLine(waitMilliseconds: waitMilliseconds) { Array($0) }
    }

    /// Sends a request line and returns the next line (the bench never pipelines on one connection
    /// except where it says so).
    func call(_ line: [UInt8]) throws -> [UInt8] {
        try send(line)
        return try readLine()
    }

    /// Sends a JSON-RPC request and returns the parsed response, failing on an error response.
    @discardableResult
    func rpc(_ method: String, _ params: JSONObject = JSONObject(), id: Int64 = 1) throws -> JSON {
        let response = try parse(try call(requestLine(id: id, method, params)), what: method)
        if let error = response["error"] { throw BenchError("\(method) failed: \(error.serialized())") }
        return response
    }
}

/// A line of JSON, parsed.
func parse(_ line: [UInt8], what: String) throws -> JSON {
    do { return try JSON.parse(line) } catch { throw BenchError("\(what): unreadable response (\(error))") }
}
