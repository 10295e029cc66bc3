import CCurl
import TodoPosix

// The HTTP client of the CalDAV code: the only file that touches libcurl (CCurl). One easy handle
// per client, so one kept-alive connection serves a whole sync round; TLS always verified; plain
// http only to loopback hosts; curl's failures mapped to CalDAVError with the host named.
#if canImport(Glibc)
    import Glibc
#endif

/// How long a request may take to connect and how long it may stall.
package struct CalDAVTimeouts: Sendable, Equatable {
    /// Seconds to establish the TCP (and TLS) connection.
    package var connect: Double
    /// Seconds a request may go without a byte moving either way before it is given up.
    package var stall: Double
    /// Seconds a whole request may take, however its bytes trickle in (a server dripping its
    /// answer a byte at a time never stalls).
    package var total: Double
    package init(connect: Double = 10, stall: Double = 30, total: Double = 300) {
        self.connect = connect
        self.stall = stall
        self.total = total
    }
}

/// An absolute http(s) URL taken apart as far as requests need: the one URL parser of the
/// product (todod-sync's calendar choice uses it too).
package struct HTTPURL: Equatable {
    var scheme: String // "http" or "https", lowercased
    var authority: String // host[:port] as written
    var host: String // without brackets and port, lowercased
    package var path: String // from the first "/" (path and query); "/" when empty

    /// Parses `text`; nil for anything that is not an absolute http(s) URL. User information in
    /// the URL (`user:password@`) is refused: credentials travel only in the Authorization header.
    package init?(_ text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        let afterSlashes = rest.dropFirst(2)
        let end = afterSlashes.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterSlashes.endIndex
        let authority = String(afterSlashes[..<end])
        guard !authority.isEmpty, !authority.contains("@"),
            !authority.contains(where: { $0 == " " || $0.asciiValue.map { $0 < 0x20 } ?? false })
        else { return nil }
        var host = authority
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let portColon = host.lastIndex(of: ":") {
            host = String(host[..<portColon])
        }
        guard !host.isEmpty else { return nil }
        var path = String(afterSlashes[end...])
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        if !path.hasPrefix("/") { path = "/" + path }
        self.scheme = scheme
        self.authority = authority
        self.host = host.lowercased()
        self.path = path
    }

    /// The URL as text.
    package var string: String { scheme + "://" + authority + path }

    /// The port the URL names, or its scheme's default.
    var port: Int {
        if let close = authority.lastIndex(of: "]") {
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":"), let p = Int(rest.dropFirst()) { return p }
        } else if let colon = authority.lastIndex(of: ":"), let p = Int(authority[authority.index(after: colon)...]) {
            return p
        }
        return scheme == "https" ? 443 : 80
    }

    /// `scheme://authority`, for messages.
    var origin: String { scheme + "://" + authority }

    /// Whether `other` is on this URL's origin (RFC 6454: scheme, host and port), or is the same
    /// host reached over https instead of http: where the account's credentials may go.
    func sameOrigin(_ other: HTTPURL) -> Bool {
        guard other.host == host else { return false }
        if other.scheme == scheme { return other.port == port }
        return scheme == "http" && other.scheme == "https"
    }

    /// The path without its query.
    var pathOnly: String { path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path }

    /// Whether the host is this machine: localhost, 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
        if host == "localhost" || host == "localhost." || host.hasSuffix(".localhost") { return true }
        if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { p in UInt8(p) != nil }
    }

    /// `reference` (an href or a Location header value) resolved against this URL (RFC 3986 §5,
    /// for the forms servers send: absolute URLs, absolute paths, and relative paths).
    package func resolving(_ reference: String) -> HTTPURL? {
        if let absolute = HTTPURL(reference) { return absolute }
        if reference.hasPrefix("//") { return HTTPURL(scheme + ":" + reference) }
        var copy = self
        if reference.hasPrefix("/") {
            copy.path = reference
        } else {
            let base = pathOnly
            let directory = base[...base.lastIndex(of: "/")!]
            copy.path = String(directory) + reference
        }
        if let hash = copy.path.firstIndex(of: "#") { copy.path = String(copy.path[..<hash]) }
        return copy
    }
}

/// One HTTP answer. Header names are looked up without regard to case.
struct HTTPResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first header called `name` (any case), its value trimmed.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// curl_global_init, run once for the process the first time a client is made.
private let curlReady: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

/// What the curl callbacks write into during one transfer.
private final class Transfer {
    var body: [UInt8] = []
    /// The status of the answer whose headers came last.
    var status = 0
    /// Where a 2xx body goes as it arrives, instead of `body` (false: stop the transfer).
    var sink: ((UnsafeRawBufferPointer) -> Bool)?
    var sinkStopped = false
    var headers: [(name: String, value: String)] = []
    var tooLarge = false
    var stalled = false
    let limit: Int
    let stall: Double
    /// The bytes moved so far (down + up) and when that last changed.
    var moved: Int64 = -1
    var lastProgress = MonotonicClock.seconds()
    init(limit: Int, stall: Double) {
        self.limit = limit
        self.stall = stall
    }
}

/// Gives a transfer up when no byte moved either way for `stall` seconds (curl's low-speed limit
/// averages over several seconds, so a request body sent just before hides a silent server).
private let watchProgress: todod_curl_progress_fn = { context, _, downloaded, _, uploaded in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let moved = Int64(downloaded) + Int64(uploaded)
    let now = MonotonicClock.seconds()
    if moved != transfer.moved {
        transfer.moved = moved
        transfer.lastProgress = now
        return 0
    }
    if now - transfer.lastProgress >= transfer.stall {
        transfer.stalled = true
        return 1
    }
    return 0
}

/// Collects the body, stopping the transfer when it grows beyond the limit.
private let writeBody: todod_curl_data_fn = { data, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let n = size * count
    if let sink = transfer.sink, (200..<300).contains(transfer.status) {
        guard n > 0, let data else { return n }
        guard sink(UnsafeRawBufferPointer(start: data, count: n)) else {
            transfer.sinkStopped = true
            return 0
        }
        return n
    }
    guard transfer.body.count + n <= transfer.limit else {
        transfer.tooLarge = true
        return 0
    }
    if let data, n > 0 {
        data.withMemoryRebound(to: UInt8.self, capacity: n) {
            transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
        }
    }
    return n
}

/// Collects header lines; a status line ("HTTP/...") starts a new set (after 100 Continue).
private let writeHeader: todod_curl_data_fn = { data, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    let n = size * count
    guard let data, n > 0 else { return n }
    let line = data.withMemoryRebound(to: UInt8.self, capacity: n) {
        String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self)
    }
    if line.hasPrefix("HTTP/") {
        transfer.headers = []
        let parts = line.split(separator: " ")
        transfer.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingASCIISpaces()
        let value = line[line.index(after: colon)...].trimmingASCIISpaces()
        transfer.headers.append((name, value))
    }
    return n
}

extension Substring {
    fileprivate func trimmingASCIISpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

/// A small blocking HTTP/1.1 client over one curl easy handle (not for use from two threads at once).
final class HTTPClient {
    private let handle: UnsafeMutableRawPointer?
    private let user: String?
    private let password: String?
    /// The account's origin: credentials go to it alone (a request elsewhere is refused).
    let origin: HTTPURL?
    let timeouts: CalDAVTimeouts
    /// The largest body accepted (a hostile or broken server must not exhaust memory).
    var responseLimit = 256 << 20
    /// When (monotonic seconds) the work these requests serve must end (a sync round's
    /// deadline): a request gets what is left, and none is sent after it.
    var deadline: Double?
    /// Number of requests sent, and connections opened for them (for tests and benchmarks).
    private(set) var requestCount = 0
    private(set) var connectionCount = 0

    /// A client sending `user` and `password` with HTTP Basic authentication when both are set,
    /// only to `origin` (the account's URL): a request with credentials to any other origin is
    /// refused, whatever href or redirect names it.
    init(user: String?, password: String?, origin: String?, timeouts: CalDAVTimeouts = CalDAVTimeouts()) {
        handle = curlReady ? curl_easy_init() : nil
        self.user = user
        self.password = password
        self.origin = origin.flatMap(HTTPURL.init)
        self.timeouts = timeouts
    }

    deinit { curl_easy_cleanup(handle) }

    /// Sends one request to the absolute URL `url` and returns the answer, whatever its status.
    /// Redirects are not followed. Throws only when no complete answer arrived.
    func send(_ method: String, _ url: String, headers: [String: String] = [:], body: [UInt8]? = nil)
        throws(CalDAVError) -> HTTPResponse
    {
        guard let target = HTTPURL(url) else {
            throw .network("not an http(s) URL without user information: \(Self.redacted(url))")
        }
        return try send(method, target, headers: headers, body: body)
    }

    /// Sends one request; with `sink`, a 2xx answer's body goes to it as it arrives (and the
    /// answer returned has none), so a large answer is never held whole. `sink` returning false
    /// ends the transfer: the answer is returned as it stands (the sink knows why it stopped).
    func send(
        _ method: String, _ target: HTTPURL, headers: [String: String] = [:], body: [UInt8]? = nil,
        sink: ((UnsafeRawBufferPointer) -> Bool)? = nil
    ) throws(CalDAVError) -> HTTPResponse {
        guard target.scheme == "https" || target.isLoopback else {
            throw .network(
                "refusing plain http:// to \(target.host): use https:// (plain http is only for loopback addresses)")
        }
        if user != nil || password != nil {
            guard let origin, origin.sameOrigin(target) else {
                throw .network(
                    "refusing to send the account's credentials to \(target.origin + target.pathOnly): the server named another host than "
                        + "\(origin?.origin ?? "the account's"); if that server is the account's, give its URL to sync add"
                )
            }
        }
        for (name, value) in headers where !HTTPClient.isHeaderSafe(name) || !HTTPClient.isHeaderSafe(value) {
            throw .malformed(
                "refusing to send a \(HTTPClient.isHeaderSafe(name) ? name : "header") with a control character (from the server's answer)"
            )
        }
        guard let handle else { throw .network("libcurl could not be initialised") }
        curl_easy_reset(handle)
        let transfer = Transfer(limit: sink == nil ? responseLimit : min(responseLimit, 1 << 20), stall: timeouts.stall)
        transfer.sink = sink
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(list) }
        for (name, value) in headers { list = curl_slist_append(list, "\(name): \(value)") }
        list = curl_slist_append(list, "Expect:") // no 100-continue round trip before a body

        _ = todod_curl_set_string(handle, CURLOPT_URL, target.string)
        _ = todod_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method)
        _ = todod_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = todod_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = todod_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = todod_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = todod_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        var allowed = timeouts.total
        if let deadline {
            allowed = min(allowed, deadline - MonotonicClock.seconds())
            guard allowed > 0 else { throw .timeout }
        }
        _ = todod_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(min(timeouts.connect, allowed) * 1000)))
        _ = todod_curl_set_long(handle, CURLOPT_TIMEOUT_MS, max(1, Int(min(allowed, 1e9) * 1000)))
        _ = todod_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = todod_curl_set_progress(handle, watchProgress)
        _ = todod_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context.toOpaque())
        // A proxy from the environment (https_proxy ...) is used for real servers, never for
        // this machine.
        if target.isLoopback { _ = todod_curl_set_string(handle, CURLOPT_NOPROXY, "*") }
        _ = todod_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        _ = todod_curl_set_string(handle, CURLOPT_USERAGENT, "todod-sync")
        if let user, let password {
            _ = todod_curl_set_long(handle, CURLOPT_HTTPAUTH, todod_curlauth_basic)
            _ = todod_curl_set_string(handle, CURLOPT_USERNAME, user)
            _ = todod_curl_set_string(handle, CURLOPT_PASSWORD, password)
        }
        _ = todod_curl_set_list(handle, CURLOPT_HTTPHEADER, list)
        _ = todod_curl_set_function(handle, CURLOPT_WRITEFUNCTION, writeBody)
        _ = todod_curl_set_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque())
        _ = todod_curl_set_function(handle, CURLOPT_HEADERFUNCTION, writeHeader)
        _ = todod_curl_set_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque())

        // A non-null pointer even for an empty body, so that curl sends Content-Length: 0.
        let payload = body.map { $0.isEmpty ? [0] : $0 } ?? []
        let code: CURLcode = payload.withUnsafeBytes { bytes in
            if let body {
                _ = todod_curl_set_size(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                _ = todod_curl_set_pointer(
                    handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            return curl_easy_perform(handle)
        }
        requestCount += 1
        var connects = 0
        _ = todod_curl_get_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        connectionCount += connects
        if code != CURLE_OK {
            if transfer.sinkStopped {
                return HTTPResponse(status: transfer.status, headers: transfer.headers, body: [])
            }
            if transfer.stalled { throw .timeout }
            if transfer.tooLarge {
                throw .malformed("the answer of \(target.host) is larger than \(responseLimit >> 20) MiB")
            }
            throw error(code, target, handle)
        }
        var status = 0
        _ = todod_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    /// The CalDAVError for a failed transfer to `target`.
    private func error(_ code: CURLcode, _ target: HTTPURL, _ handle: UnsafeMutableRawPointer) -> CalDAVError {
        let host = target.authority
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT:
            var osError = 0
            _ = todod_curl_get_long(handle, CURLINFO_OS_ERRNO, &osError)
            let reason: String
            switch Int32(osError) {
            case ECONNREFUSED: reason = "connection refused"
            case EHOSTUNREACH: reason = "host unreachable"
            case ENETUNREACH: reason = "network unreachable"
            case ETIMEDOUT: reason = "timed out"
            case 0: reason = "no connection"
            default: reason = String(cString: strerror(Int32(osError))).lowercased()
            }
            return .network("could not connect to \(host): \(reason)")
        case CURLE_COULDNT_RESOLVE_HOST:
            return .network("could not resolve host \(target.host)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .network("TLS certificate of \(target.host) not trusted")
        case CURLE_SSL_CONNECT_ERROR:
            return .network("TLS handshake with \(host) failed")
        case CURLE_GOT_NOTHING:
            return .network("connection to \(host) closed without an answer")
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return .network("connection to \(host) cut before the answer was complete")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .network("cannot request \(Self.redacted(target.string))")
        default:
            return .network("request to \(host) failed: \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// Whether `text` may go into a header line: no control character (CR, LF, NUL ...), so a
    /// value a server gave (an ETag) cannot add headers or end the request early.
    static func isHeaderSafe(_ text: String) -> Bool {
        !text.utf8.contains { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
    }

    /// `url` with any user information replaced, for error messages.
    static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else {
            return url.contains("@") ? "(a URL with credentials)" : url
        }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + "…@" + rest[rest.index(after: at)...]
    }
}
