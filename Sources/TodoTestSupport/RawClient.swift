import Foundation
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A test client speaking raw lines to the daemon, with a receive timeout so a test never hangs.
package final class RawClient {
    package let fd: Int32
    private var framer = LineFramer(maxLineLength: 1 << 30)
    private var nextID: Int64 = 1

    package init(path: String, timeoutSeconds: Int = 20) throws {
        fd = try UnixSocket.connect(path: path)
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Posix.close(fd) }

    /// Sends raw bytes as they are.
    package func send(_ bytes: [UInt8]) throws { try Posix.sendAll(fd, bytes) }
    package func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends one request line and returns its id.
    @discardableResult
    package func request(_ method: String, _ params: JSONObject = JSONObject()) throws -> Int64 {
        let id = nextID
        nextID += 1
        var bytes: [UInt8] = []
        RPCRequest(id: .int(id), method: method, params: params).json.write(to: &bytes)
        bytes.append(0x0A)
        try send(bytes)
        return id
    }

    /// Sends a request and waits for its response message.
    package func call(_ method: String, _ params: JSONObject = JSONObject()) throws -> JSON {
        let id = try request(method, params)
        while true {
            let message = try receive()
            if message["id"] == .int(id) { return message }
        }
    }

    /// The `result` of a call, failing when the daemon answered with an error.
    package func result(_ method: String, _ params: JSONObject = JSONObject()) throws -> JSON {
        let message = try call(method, params)
        guard let result = message["result"] else { throw RawClientError.failed(message.serialized()) }
        return result
    }

    /// The next message, or throws `closed` when the daemon hung up.
    package func receive() throws -> JSON {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if case .line(let line)? = framer.next() { return try JSON.parse(line) }
            guard let n = try Posix.read(fd, into: &chunk) else { throw RawClientError.timeout }
            if n == 0 { throw RawClientError.closed }
            framer.append(chunk[0..<n])
        }
    }

    /// Whether the daemon closed the connection (reads until end of file or timeout).
    package func isClosedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            guard let n = try? Posix.read(fd, into: &chunk) else { return false }
            if n == 0 { return true }
        }
    }
}

package enum RawClientError: Error {
    case closed
    case timeout
    case failed(String)
}
