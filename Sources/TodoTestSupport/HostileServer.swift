import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on a loopback address, in the test process, answering what a test's
/// handler says: for the CalDAV client against servers that misbehave as no real one does (hrefs
/// naming other hosts, ETags with line breaks, answers dripped a few bytes at a time, endless or
/// huge multistatus bodies). Each connection gets its own thread; every request is recorded.
package final class HostileServer: @unchecked Sendable {
    /// One request as it arrived.
    package struct Request: Sendable {
        package var method: String
        package var path: String
        /// Header lines as sent (name: value), in order.
        package var headers: [String]
        package var body: [UInt8]
        package var bodyText: String { String(decoding: body, as: UTF8.self) }
        package func header(_ name: String) -> String? {
            let prefix = name.lowercased() + ":"
            return headers.first { $0.lowercased().hasPrefix(prefix) }.map {
                String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// An answer: the status, headers and either a body or a writer that sends the body in
    /// pieces (returning false when the client went away). A writer's answer has no
    /// Content-Length: the connection is closed after it.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var body: [UInt8]
        package var writer: (@Sendable ((([UInt8]) -> Bool)) -> Void)?
        package init(
            status: Int, headers: [(String, String)] = [], body: [UInt8] = [],
            writer: (@Sendable ((([UInt8]) -> Bool)) -> Void)? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.writer = writer
        }
        package init(status: Int, xml: String) {
            self.init(
                status: status, headers: [("Content-Type", "application/xml; charset=utf-8")], body: Array(xml.utf8))
        }
    }

    package let host: String
    package private(set) var port = 0
    private let listener: Int32
    private let handler: @Sendable (Request) -> Response
    private let lock = Mutex(())
    private var recorded: [Request] = []
    private var stopped = false

    /// `http://HOST:PORT`
    package var origin: String { "http://\(host):\(port)" }

    /// Listens on `host` (a loopback address) at a free port.
    package init(host: String = "127.0.0.1", handler: @escaping @Sendable (Request) -> Response) throws {
        self.host = host
        self.handler = handler
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else {
            throw CalDAVTestError.didNotStart("HostileServer socket", String(cString: strerror(errno)))
        }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw CalDAVTestError.didNotStart("HostileServer bind \(host)", String(cString: strerror(errno)))
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting (connections being served finish on their own).
    package func stop() {
        let already = lock.withLock { _ in
            defer { stopped = true }
            return stopped
        }
        if !already { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    /// Every request so far.
    package var requests: [Request] {
        lock.withLock { _ in recorded }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC) // not inherited by the processes a test starts
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var buffer: [UInt8] = []
        while let request = read(fd, &buffer) {
            lock.withLock { _ in recorded.append(request) }
            let response = handler(request)
            var head = "HTTP/1.1 \(response.status) X\r\n"
            for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
            if response.writer == nil {
                head += "Content-Length: \(response.body.count)\r\n\r\n"
                guard send(fd, Array(head.utf8) + response.body) else { return }
            } else {
                head += "Connection: close\r\n\r\n"
                guard send(fd, Array(head.utf8)) else { return }
                response.writer?({ [self] in send(fd, $0) })
                return
            }
        }
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Reads one request (head and Content-Length body); nil at the end of the connection.
    private func read(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let end: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4) where buffer[i] == 13 && Array(buffer[i..<i + 4]) == end {
                    headEnd = i
                    break
                }
            }
            if headEnd != nil { break }
            guard fill(fd, &buffer) else { return nil }
        }
        let head = String(decoding: buffer[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(headEnd! + 4)
        let parts = head[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var request = Request(
            method: String(parts[0]), path: String(parts[1]), headers: Array(head.dropFirst()), body: [])
        let length = Int(request.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length { guard fill(fd, &buffer) else { return nil } }
        request.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return request
    }

    private func fill(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }

    // MARK: Answers a CalDAV server gives

    /// A multistatus of `responses` (XML fragments) and an optional sync token.
    package static func multistatus(_ responses: String, token: String? = nil) -> String {
        "<?xml version='1.0' encoding='utf-8'?><d:multistatus xmlns:d='DAV:' xmlns:c='urn:ietf:params:xml:ns:caldav'>\(responses)"
            + (token.map { "<d:sync-token>\($0)</d:sync-token>" } ?? "") + "</d:multistatus>"
    }

    /// One response naming `href` with its ETag (XML-escaped already) and, when given, its data.
    package static func member(_ href: String, etag: String, data: String? = nil) -> String {
        "<d:response><d:href>\(href)</d:href><d:propstat><d:prop><d:getetag>\(etag)</d:getetag>"
            + (data.map { "<c:calendar-data>\($0)</c:calendar-data>" } ?? "")
            + "</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
    }
}
