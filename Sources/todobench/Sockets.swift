#if canImport(Glibc)
import Glibc
#endif
import Foundation

// Blocking Unix-socket plumbing of the bench's own, used for both sides of every comparison: the
// same `LineConnection` talks to todod and to the ping-pong floor, so client costs cancel out.

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `errno` as text, for error messages.
func errnoText(_ what: String) -> BenchError {
    BenchError("\(what): \(String(cString: strerror(errno)))")
}

enum UnixStream {
    private static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BenchError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// A blocking stream socket connected to `path`, with a receive timeout so the bench never hangs.
    static func connect(_ path: String, timeoutSeconds: Int = 60) throws -> Int32 {
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw errnoText("socket") }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { let e = errnoText("connect \(path)"); close(fd); throw e }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// A listening stream socket bound to `path`.
    static func listen(_ path: String) throws -> Int32 {
        var address = try address(path)
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw errnoText("socket") }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0, Glibc.listen(fd, 64) == 0 else { let e = errnoText("bind/listen \(path)"); close(fd); throw e }
        return fd
    }

    /// A datagram socket bound to `path` (the bench's stand-in for systemd's NOTIFY_SOCKET).
    static func datagram(_ path: String) throws -> Int32 {
        var address = try address(path)
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw errnoText("socket") }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { let e = errnoText("bind \(path)"); close(fd); throw e }
        return fd
    }

    /// Writes every byte.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw errnoText("write")
            }
            offset += n
        }
    }
}

/// One blocking connection that sends lines and reads lines, with a reusable receive buffer.
final class LineConnection {
    let fd: Int32
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0

    init(fd: Int32) {
        self.fd = fd
        buffer = .allocate(byteCount: 4 << 20, alignment: 16)
    }

    convenience init(path: String) throws { self.init(fd: try UnixStream.connect(path)) }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    func send(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try UnixStream.writeAll(fd, $0) } }
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads one line (without its newline) and hands its bytes to `body`, without copying.
    @discardableResult
    func withLine<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        while true {
            if end > start, let nl = memchr(buffer.baseAddress! + start, 0x0A, end - start) {
                let length = nl - (buffer.baseAddress! + start)
                let line = UnsafeRawBufferPointer(start: buffer.baseAddress! + start, count: length)
                start += length + 1
                if start == end { start = 0; end = 0 }
                return try body(line)
            }
            if start > 0 {  // compact
                memmove(buffer.baseAddress!, buffer.baseAddress! + start, end - start)
                end -= start
                start = 0
            }
            if end == buffer.count {
                let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
                bigger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<end]))
                buffer.deallocate()
                buffer = bigger
            }
            let n = read(fd, buffer.baseAddress! + end, buffer.count - end)
            if n < 0 {
                if errno == EINTR { continue }
                throw errno == EAGAIN ? BenchError("timed out waiting for a line") : errnoText("read")
            }
            if n == 0 { throw BenchError("connection closed by peer") }
            end += n
        }
    }

    /// Reads one line as bytes.
    func readLine() throws -> [UInt8] { try withLine { Array($0) } }

    /// Sends a request line and returns the next line (the bench never pipelines on one connection
    /// except where it says so).
    func call(_ line: [UInt8]) throws -> [UInt8] {
        try send(line)
        return try readLine()
    }

    /// Sends a JSON-RPC request and returns the parsed response, failing on an error response.
    func rpc(_ method: String, _ paramsJSON: String = "{}", id: Int = 1) throws -> [String: Any] {
        let line = try call(Array("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"\(method)\",\"params\":\(paramsJSON)}\n".utf8))
        guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw BenchError("\(method): response is not an object")
        }
        if let error = object["error"] { throw BenchError("\(method) failed: \(error)") }
        return object
    }
}

/// A JSON string literal for `text`.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
        }
    }
    return out + "\""
}
