// WebDAV pieces shared by the collection and discovery: a request with an XML body, the
// multistatus answer taken apart, and HTTP statuses mapped to CalDAVError.

/// One `DAV:response` of a multistatus.
struct DAVResponse {
    /// The href exactly as the server wrote it (trimmed of white space).
    var href: String
    /// The response-level `DAV:status` (a removed member in sync-collection, 404 in a multiget).
    var status: Int?
    /// `DAV:propstat` blocks: each status with the properties it covers.
    var propstats: [(status: Int, properties: [XMLElement])]

    /// The property `{namespace}name` reported with a 2xx status.
    func property(_ namespace: String, _ name: String) -> XMLElement? {
        for block in propstats where (200..<300).contains(block.status) {
            if let found = block.properties.first(where: { $0.is(namespace, name) }) { return found }
        }
        return nil
    }
}

/// A parsed `DAV:multistatus`.
struct Multistatus {
    var responses: [DAVResponse]
    /// The top-level `DAV:sync-token` (sync-collection), if any.
    var syncToken: String?

    init(_ body: [UInt8]) throws(CalDAVError) {
        let root = try XMLDocument.parse(body)
        guard root.is(XMLNamespace.dav, "multistatus") else {
            throw .malformed("expected a DAV:multistatus, got \(root.name)")
        }
        syncToken = root.child(XMLNamespace.dav, "sync-token")?.trimmedText
        responses = root.children(XMLNamespace.dav, "response").flatMap(Self.responses)
    }

    /// The resources one `DAV:response` element names.
    static func responses(_ response: XMLElement) -> [DAVResponse] {
        let status = response.child(XMLNamespace.dav, "status").flatMap { Self.status($0.text) }
        var propstats: [(Int, [XMLElement])] = []
        for block in response.children(XMLNamespace.dav, "propstat") {
            let code = block.child(XMLNamespace.dav, "status").flatMap { Self.status($0.text) } ?? 200
            propstats.append((code, block.child(XMLNamespace.dav, "prop")?.children ?? []))
        }
        // RFC 4918 allows several hrefs in a response with a status; each is one resource.
        return response.children(XMLNamespace.dav, "href").compactMap { href in
            let text = href.trimmedText
            return text.isEmpty ? nil : DAVResponse(href: text, status: status, propstats: propstats)
        }
    }

    /// The code of a status line such as `HTTP/1.1 404 Not Found`.
    static func status(_ line: String) -> Int? {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard parts.count >= 2 else { return nil }
        return Int(parts[1])
    }
}

extension HTTPClient {
    /// Sends `method` with an XML `body` and reads a 207 answer as it arrives: each resource of
    /// the multistatus goes to `onResponse` (false: stop reading) and only one `DAV:response` is
    /// held at a time, each text of it at most `textLimit` bytes (longer: `truncated`). Returns
    /// the answer (its body empty when it was a 2xx) and the multistatus's sync token.
    func streamMultistatus(
        _ method: String, _ url: HTTPURL, depth: String, body: String, textLimit: Int,
        onResponse: @escaping (DAVResponse) throws(CalDAVError) -> Bool
    ) throws(CalDAVError) -> (response: HTTPResponse, token: String?) {
        var token: String?
        var failure: CalDAVError?
        var checkedRoot = false
        var stream: XMLStream?
        stream = XMLStream(depth: 2, textLimit: textLimit) { element in
            if element.is(XMLNamespace.dav, "sync-token") {
                token = element.trimmedText
                return true
            }
            guard element.is(XMLNamespace.dav, "response") else { return true }
            do throws(CalDAVError) {
                for response in Multistatus.responses(element) { guard try onResponse(response) else { return false } }
            } catch {
                failure = error
                return false
            }
            return true
        }
        let response = try dav(method, url, depth: depth, body: body, headers: [:]) { bytes in
            guard let parser = stream else { return false }
            do throws(CalDAVError) {
                try parser.feed(bytes)
                if !checkedRoot, let root = parser.root {
                    checkedRoot = true
                    guard root.namespace == XMLNamespace.dav, root.name == "multistatus" else {
                        throw .malformed("expected a DAV:multistatus, got \(root.name)")
                    }
                }
            } catch {
                failure = failure ?? error
                return false
            }
            return failure == nil
        }
        if let failure { throw failure }
        if (200..<300).contains(response.status), let parser = stream {
            try parser.finish()
            if let root = parser.root, !(root.namespace == XMLNamespace.dav && root.name == "multistatus") {
                throw .malformed("expected a DAV:multistatus, got \(root.name)")
            }
        }
        return (response, token)
    }

    /// Sends `method` with an XML `body` (and a `Depth` header when given).
    func dav(
        _ method: String, _ url: HTTPURL, depth: String?, body: String, headers: [String: String] = [:],
        sink: ((UnsafeRawBufferPointer) -> Bool)? = nil
    ) throws(CalDAVError) -> HTTPResponse {
        var all = headers
        all["Content-Type"] = "application/xml; charset=utf-8"
        if let depth { all["Depth"] = depth }
        return try send(method, url, headers: all, body: Array(body.utf8), sink: sink)
    }
}

enum DAVStatus {
    /// The error for an answer whose status the request did not expect.
    static func error(_ response: HTTPResponse) -> CalDAVError {
        switch response.status {
        case 401: return .unauthorized
        case 412: return .preconditionFailed
        case 404, 410: return .notFound
        default: return .http(status: response.status, reason(response))
        }
    }

    /// A short reason for an error answer: the name of the precondition in a `DAV:error` body
    /// (RFC 4918 §16), else the standard phrase of the status.
    static func reason(_ response: HTTPResponse) -> String {
        if let condition = preconditions(response).first { return condition }
        return phrase(response.status)
    }

    /// The local names of the conditions in a `DAV:error` body ([] when the body is not one).
    static func preconditions(_ response: HTTPResponse) -> [String] {
        guard response.header("Content-Type")?.lowercased().contains("xml") ?? true,
            !response.body.isEmpty,
            let root = try? XMLDocument.parse(response.body), root.is(XMLNamespace.dav, "error")
        else { return [] }
        return root.children.map(\.name)
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: return "bad request"
        case 403: return "forbidden"
        case 405: return "method not allowed"
        case 409: return "conflict"
        case 415: return "unsupported media type"
        case 423: return "locked"
        case 500: return "internal server error"
        case 501: return "not implemented"
        case 502: return "bad gateway"
        case 503: return "service unavailable"
        case 504: return "gateway timeout"
        case 507: return "insufficient storage"
        default: return ""
        }
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters (for a resource name in a path).
func percentEncodedPathSegment(_ name: String) -> String {
    var out = ""
    let hex: [Character] = Array("0123456789ABCDEF")
    for byte in name.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            out.append(Character(Unicode.Scalar(byte)))
        default:
            out.append("%")
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
    }
    return out
}

/// The path of `href` with percent-encoding decoded and without a trailing slash, for comparing
/// two spellings of the same resource (never for sending).
func comparablePath(_ href: String, base: HTTPURL) -> String {
    let path = base.resolving(href)?.pathOnly ?? href
    var bytes: [UInt8] = []
    var utf8 = Array(path.utf8)[...]
    while let byte = utf8.popFirst() {
        if byte == UInt8(ascii: "%"), utf8.count >= 2,
            let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
        {
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
}
