// What todod-sync needs from one CalDAV calendar collection (RFC 4791, RFC 6578). The engine in
// TodoSync talks only to this protocol; CalDAVCollection implements it over HTTP, and the sync
// tests implement it in memory.

/// A calendar object resource as the server lists it: where it is and which version.
package struct RemoteVersion: Sendable, Equatable, Hashable {
    /// The resource's path on the server (as the server wrote it in the multistatus, percent-encoded).
    package var href: String
    /// Its strong ETag, quotes included, exactly as the server sent it.
    package var etag: String
    package init(href: String, etag: String) {
        self.href = href
        self.etag = etag
    }
}

/// A resource with its body (an iCalendar object, UTF-8).
package struct RemoteObject: Sendable, Equatable {
    package var href: String
    package var etag: String
    package var data: [UInt8]
    /// Larger than the client reads (`data` is empty): one resource that cannot be read.
    package var tooLarge: Bool
    package init(href: String, etag: String, data: [UInt8], tooLarge: Bool = false) {
        self.href = href
        self.etag = etag
        self.data = data
        self.tooLarge = tooLarge
    }
}

/// What changed in a collection since a sync token (RFC 6578 `sync-collection`).
package struct CollectionDelta: Sendable, Equatable {
    /// Resources added or changed since the token.
    package var changed: [RemoteVersion]
    /// Hrefs of resources removed since the token.
    package var removed: [String]
    /// The token to send next time.
    package var token: String
    package init(changed: [RemoteVersion], removed: [String], token: String) {
        self.changed = changed
        self.removed = removed
        self.token = token
    }
}

/// Why a CalDAV request failed. `message` is one line for `todoctl sync status`, and never holds
/// a password.
package enum CalDAVError: Error, Equatable, Sendable {
    /// 401 (or 403 on a request that needs no special privilege): wrong user or password.
    case unauthorized
    /// 412: the resource changed since its ETag (If-Match) or already exists (If-None-Match: *).
    case preconditionFailed
    /// 404 or 410.
    case notFound
    /// The sync token is no longer valid (DAV:valid-sync-token): read everything again.
    case tokenInvalid
    /// The server cannot do this (for example no `sync-collection`): use the fallback.
    case unsupported(String)
    /// Any other status the request did not expect, with a short reason.
    case http(status: Int, String)
    /// Could not connect, the connection was cut, DNS, or TLS (certificate) failure.
    case network(String)
    /// The server did not answer in time.
    case timeout
    /// The server answered with a body that cannot be read.
    case malformed(String)

    /// One line saying what is wrong, for a person.
    package var message: String {
        switch self {
        case .unauthorized: return "wrong user name or password (the server answered 401)"
        case .preconditionFailed: return "the item changed on the server (412)"
        case .notFound: return "not found on the server (404)"
        case .tokenInvalid: return "the server no longer knows the sync token"
        case .unsupported(let what): return "the server does not support \(what)"
        case .http(let status, let reason): return "the server answered \(status)\(reason.isEmpty ? "" : ": \(reason)")"
        case .network(let reason): return reason
        case .timeout: return "the server did not answer in time"
        case .malformed(let reason): return "unreadable answer from the server: \(reason)"
        }
    }
}

/// One calendar collection holding VTODOs.
package protocol CalendarCollection: AnyObject {
    /// The collection's URL.
    var url: String { get }
    /// RFC 6578 `sync-collection` from `token` (nil: everything). Throws `.tokenInvalid` when the
    /// token expired and `.unsupported` when the server has no sync tokens.
    func changes(since token: String?) throws(CalDAVError) -> CollectionDelta
    /// Every VTODO resource's href and ETag (PROPFIND depth 1, or a calendar-query): the fallback
    /// for servers without sync tokens.
    func versions() throws(CalDAVError) -> [RemoteVersion]
    /// The bodies of these resources (`calendar-multiget`); hrefs that no longer exist are left out.
    func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject]
    /// PUT a new resource named `name` (a file name, no slash) with `If-None-Match: *`. Returns its
    /// href and ETag (nil when the server sent none).
    func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?)
    /// PUT over an existing resource with `If-Match: etag`. Returns the new ETag (nil when none
    /// was sent).
    func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String?
    /// DELETE with `If-Match: etag`.
    func delete(href: String, ifMatch etag: String) throws(CalDAVError)
    /// Sets when (monotonic seconds, CLOCK_MONOTONIC) the requests of this round must end; nil
    /// lifts it. A request then gets at most what is left, and fails with `.timeout` after it.
    func setDeadline(_ deadline: Double?)
}

extension CalendarCollection {
    package func setDeadline(_ deadline: Double?) {}
}
