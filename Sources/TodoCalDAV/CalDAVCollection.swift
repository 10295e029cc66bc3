// A CalDAV calendar collection over HTTP (RFC 4791, RFC 6578): the CalendarCollection the sync
// engine uses against real servers.

/// One calendar collection on a CalDAV server, reached through one kept-alive connection.
/// Not for use from two threads at once.
package final class CalDAVCollection: CalendarCollection {
    /// The collection's URL (with a trailing slash).
    package let url: String
    private let base: HTTPURL?
    let client: HTTPClient
    /// Hrefs per calendar-multiget request.
    package var fetchBatchSize = 100
    /// The most members one listing may name (all its sync-collection pages together): a
    /// server naming more is refused rather than followed into memory.
    package var maxMembers = 100_000
    /// The most pages one sync-collection may take (a server truncating forever).
    package var maxPages = 1000
    /// The largest resource read (larger ones come back `tooLarge`, without their data).
    package var maxResourceBytes = 1 << 20
    /// The longest href or ETag taken from a listing.
    static let listingTextLimit = 64 << 10

    /// The collection at `url`, authenticating as `user` with `password` (HTTP Basic) when given,
    /// to `origin` alone (the account's URL; nil: the collection's own). A URL that is not
    /// absolute http(s) makes every request fail with `.network`.
    package convenience init(
        url: String, user: String?, password: String?, origin: String? = nil,
        timeouts: CalDAVTimeouts = CalDAVTimeouts()
    ) {
        self.init(
            url: url, client: HTTPClient(user: user, password: password, origin: origin ?? url, timeouts: timeouts))
    }

    init(url: String, client: HTTPClient) {
        var parsed = HTTPURL(url)
        if let p = parsed, !p.pathOnly.hasSuffix("/") {
            parsed!.path = p.pathOnly + "/" + p.path.dropFirst(p.pathOnly.count)
        }
        self.base = parsed
        self.url = parsed?.string ?? url
        self.client = client
    }

    package func setDeadline(_ deadline: Double?) { client.deadline = deadline }

    /// Requests sent and connections opened so far (one connection serves many requests).
    package var requestCount: Int { client.requestCount }
    package var connectionCount: Int { client.connectionCount }

    private func collectionURL() throws(CalDAVError) -> HTTPURL {
        guard let base else {
            throw .network("not an http(s) URL without user information: \(HTTPClient.redacted(url))")
        }
        return base
    }

    private func resourceURL(_ href: String) throws(CalDAVError) -> HTTPURL {
        let base = try collectionURL()
        guard let target = base.resolving(href) else { throw .malformed("bad href \(href)") }
        guard base.sameOrigin(target) else {
            throw .malformed("the server named \(href), on another host than the calendar's")
        }
        return target
    }

    // MARK: - Reading

    /// sync-collection, repeated with each new token while the server answers 507 (truncated).
    /// A changed member listed without its ETag comes with `etag` "" (fetch it to learn it).
    package func changes(since token: String?) throws(CalDAVError) -> CollectionDelta {
        let target = try collectionURL()
        let selfPath = comparablePath(target.path, base: target)
        var order: [String] = [] // hrefs in the order first seen
        var latest: [String: RemoteVersion?] = [:] // href -> version, or nil when removed
        var current = token
        let limit = maxMembers
        for _ in 0..<maxPages { // a server that truncates forever must not keep us here
            let body = """
                <?xml version="1.0" encoding="utf-8"?>
                <d:sync-collection xmlns:d="DAV:"><d:sync-token>\((current ?? "").xmlEscaped)</d:sync-token>\
                <d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>
                """
            var truncated = false
            let (response, token) = try client.streamMultistatus(
                "REPORT", target, depth: "0", body: body, textLimit: Self.listingTextLimit
            ) {
                (item) throws(CalDAVError) -> Bool in
                if comparablePath(item.href, base: target) == selfPath {
                    if item.status == 507 { truncated = true }
                    return true
                }
                if item.href.hasSuffix("/") { return true } // a sub-collection, not a calendar object
                guard self.isMember(item.href, of: target) else { return true }
                // Removed: a 404 status on the response (RFC 6578 §3.5.2). A response with neither
                // status nor properties says nothing, and must not delete anything; a member whose
                // ETag is not given (a 404 propstat) changed, and the engine fetches it.
                let version: RemoteVersion?
                if item.status == 404 {
                    version = nil
                } else if item.propstats.isEmpty {
                    return true
                } else {
                    version = RemoteVersion(
                        href: item.href, etag: item.property(XMLNamespace.dav, "getetag")?.trimmedText ?? "")
                }
                if latest[item.href] == nil {
                    guard order.count < limit else {
                        throw .malformed("the server lists more than \(limit) members in the calendar")
                    }
                    order.append(item.href)
                }
                latest[item.href] = .some(version)
                return true
            }
            guard response.status == 207 else { throw syncError(response, token: current) }
            guard let next = token, !next.isEmpty else { throw .unsupported("sync-collection") }
            if !truncated || next == current {
                var changed: [RemoteVersion] = []
                var removed: [String] = []
                for href in order {
                    if let version = latest[href]! { changed.append(version) } else { removed.append(href) }
                }
                return CollectionDelta(changed: changed, removed: removed, token: next)
            }
            current = next
        }
        throw .malformed("the server truncated sync-collection answers \(maxPages) times")
    }

    /// Whether `href` may be a member of the collection: on its origin (an absolute href naming
    /// another host is no member, and nothing is ever sent there).
    private func isMember(_ href: String, of target: HTTPURL) -> Bool {
        target.resolving(href).map(target.sameOrigin) ?? false
    }

    /// The error for a sync-collection answer that is not a multistatus.
    private func syncError(_ response: HTTPResponse, token: String?) -> CalDAVError {
        let conditions = DAVStatus.preconditions(response)
        let hadToken = !(token ?? "").isEmpty
        if response.status == 401 { return .unauthorized }
        if [403, 409, 412].contains(response.status) && conditions.contains("valid-sync-token") { return .tokenInvalid }
        if response.status == 400 && hadToken { return .tokenInvalid }
        if [403, 405, 501].contains(response.status) { return .unsupported("sync-collection") }
        if response.status == 400
            && (conditions.contains("supported-report") || conditions.contains("supported-report-set"))
        {
            return .unsupported("sync-collection")
        }
        return DAVStatus.error(response)
    }

    package func versions() throws(CalDAVError) -> [RemoteVersion] {
        let target = try collectionURL()
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop>\
            <c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter></c:filter></c:calendar-query>
            """
        let selfPath = comparablePath(target.path, base: target)
        var result: [RemoteVersion] = []
        let limit = maxMembers
        let (response, _) = try client.streamMultistatus(
            "REPORT", target, depth: "1", body: body, textLimit: Self.listingTextLimit
        ) {
            (item) throws(CalDAVError) -> Bool in
            guard item.status.map({ (200..<300).contains($0) }) ?? true,
                !item.href.hasSuffix("/"), comparablePath(item.href, base: target) != selfPath,
                self.isMember(item.href, of: target),
                let etag = item.property(XMLNamespace.dav, "getetag")?.trimmedText
            else { return true }
            guard result.count < limit else {
                throw .malformed("the server lists more than \(limit) members in the calendar")
            }
            result.append(RemoteVersion(href: item.href, etag: etag))
            return true
        }
        guard response.status == 207 else { throw DAVStatus.error(response) }
        return result
    }

    package func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject] {
        let target = try collectionURL()
        var result: [RemoteObject] = []
        result.reserveCapacity(hrefs.count)
        var start = 0
        while start < hrefs.count {
            let batch = hrefs[start..<min(hrefs.count, start + max(1, fetchBatchSize))]
            start += batch.count
            var body = """
                <?xml version="1.0" encoding="utf-8"?>
                <c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">\
                <d:prop><d:getetag/><c:calendar-data/></d:prop>
                """
            for href in batch { body += "<d:href>\(href.xmlEscaped)</d:href>" }
            body += "</c:calendar-multiget>"
            // Only what was asked for: a server answering with more is not followed into memory.
            let asked = Set(batch)
            var answered = 0
            let (response, _) = try client.streamMultistatus(
                "REPORT", target, depth: "1", body: body, textLimit: maxResourceBytes
            ) {
                (item) throws(CalDAVError) -> Bool in
                guard item.status.map({ (200..<300).contains($0) }) ?? true, self.isMember(item.href, of: target),
                    let data = item.property(XMLNamespace.caldav, "calendar-data")
                else { return true }
                answered += 1
                guard answered <= 2 * asked.count + 10 else {
                    throw .malformed("the server answered a calendar-multiget with more than was asked")
                }
                let etag = item.property(XMLNamespace.dav, "getetag")?.trimmedText ?? ""
                if data.truncated {
                    result.append(RemoteObject(href: item.href, etag: etag, data: [], tooLarge: true))
                } else {
                    result.append(RemoteObject(href: item.href, etag: etag, data: Self.restoringCRLF(data.text)))
                }
                return true
            }
            guard response.status == 207 else { throw DAVStatus.error(response) }
        }
        return result
    }

    /// The calendar data as UTF-8 with CRLF line ends: XML parsing turns the CRLF of iCalendar
    /// into LF (XML 1.0 §2.11), and a bare LF cannot occur in iCalendar content, so putting the
    /// CR back restores the bytes the server stored.
    static func restoringCRLF(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 64)
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\n") && previous != UInt8(ascii: "\r") { out.append(UInt8(ascii: "\r")) }
            out.append(byte)
            previous = byte
        }
        return out
    }

    // MARK: - Writing

    package func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw .malformed("bad resource name \(name)")
        }
        let target = try collectionURL()
        var resource = target
        resource.path = target.pathOnly + percentEncodedPathSegment(name)
        let response = try client.send("PUT", resource, headers: Self.putHeaders(["If-None-Match": "*"]), body: data)
        guard (200..<300).contains(response.status) else { throw DAVStatus.error(response) }
        var href = resource.path
        if response.status == 201, let location = response.header("Location"), let moved = target.resolving(location) {
            href = moved.path
        }
        return (href, Self.strongETag(response))
    }

    package func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String? {
        let response = try client.send(
            "PUT", try resourceURL(href), headers: Self.putHeaders(["If-Match": etag]), body: data)
        guard (200..<300).contains(response.status) else { throw DAVStatus.error(response) }
        return Self.strongETag(response)
    }

    package func delete(href: String, ifMatch etag: String) throws(CalDAVError) {
        let response = try client.send("DELETE", try resourceURL(href), headers: ["If-Match": etag])
        guard (200..<300).contains(response.status) else { throw DAVStatus.error(response) }
    }

    private static func putHeaders(_ extra: [String: String]) -> [String: String] {
        var headers = extra
        headers["Content-Type"] = "text/calendar; charset=utf-8"
        return headers
    }

    /// The ETag header when it is strong; a weak one (`W/"..."`) cannot be used with If-Match.
    static func strongETag(_ response: HTTPResponse) -> String? {
        guard let etag = response.header("ETag"), !etag.isEmpty, !etag.hasPrefix("W/") else { return nil }
        return etag
    }
}
