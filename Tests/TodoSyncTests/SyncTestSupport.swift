import Foundation
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// A calendar collection in memory, for the sync tests: RFC 6578 tokens (or none, `tokens =
/// false`), ETags that change with every write, If-Match / If-None-Match enforced, and hooks a
/// test uses to change a resource between the engine's steps.
final class InMemoryCollection: CalendarCollection, @unchecked Sendable {
    let url = "http://127.0.0.1:5232/alice/tasks/"
    let path = "/alice/tasks/"
    private(set) var resources: [String: (etag: String, data: [UInt8])] = [:]
    /// Every write as (change number, href): what `changes(since:)` reads.
    private var history: [(n: Int, href: String)] = []
    private var counter = 0
    /// Tokens older than this are refused as invalid (a server that forgot them).
    var oldestToken = 0
    var tokens = true
    /// A delta compares the collection's states at the token and now, as xandikos does: a
    /// resource created after the token and deleted since is not reported removed.
    var comparesStates = false
    /// The change number at which each resource was last created.
    private var born: [String: Int] = [:]
    /// Called with the href before an update or delete is carried out (a concurrent client).
    var beforeWrite: ((String) -> Void)?
    /// Called before a fetch (a concurrent local edit, say).
    var beforeFetch: (([String]) -> Void)?
    private(set) var creates = 0, updates = 0, deletes = 0
    /// The next this many creations are answered 412 without creating anything (a proxy's fault).
    var refuseCreates = 0
    /// Listings of changes left before the network goes (nil: it never does).
    var changesBeforeCut: Int?
    /// Writes (creations, updates, deletes) left before the network goes (nil: it never does).
    var writesBeforeCut: Int?

    private func write() throws(CalDAVError) {
        guard let left = writesBeforeCut else { return }
        guard left > 0 else { throw .network("connection cut") }
        writesBeforeCut = left - 1
    }

    private func bump(_ href: String) -> String {
        counter += 1
        history.append((counter, href))
        return "\"e\(counter)\""
    }

    func changes(since token: String?) throws(CalDAVError) -> CollectionDelta {
        if let left = changesBeforeCut {
            guard left > 0 else { throw .network("connection cut") }
            changesBeforeCut = left - 1
        }
        guard tokens else { throw .unsupported("sync-collection") }
        var from = 0
        if let token {
            guard token.hasPrefix("t"), let n = Int(token.dropFirst()), n >= oldestToken, n <= counter else {
                throw .tokenInvalid
            }
            from = n
        }
        var changed: [RemoteVersion] = []
        var removed: [String] = []
        var seen = Set<String>()
        for h in history.reversed() where h.n > from && seen.insert(h.href).inserted {
            if let r = resources[h.href] {
                changed.append(RemoteVersion(href: h.href, etag: r.etag))
            } else if token != nil, !comparesStates || (born[h.href] ?? 0) <= from {
                removed.append(h.href)
            }
        }
        return CollectionDelta(changed: changed, removed: removed, token: "t\(counter)")
    }

    func versions() throws(CalDAVError) -> [RemoteVersion] {
        resources.map { RemoteVersion(href: $0.key, etag: $0.value.etag) }
    }

    func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject] {
        beforeFetch?(hrefs)
        return hrefs.compactMap { h in resources[h].map { RemoteObject(href: h, etag: $0.etag, data: $0.data) } }
    }

    func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?) {
        let href = path + name
        try write()
        if refuseCreates > 0 {
            refuseCreates -= 1
            throw .preconditionFailed
        }
        guard resources[href] == nil else { throw .preconditionFailed }
        creates += 1
        resources[href] = (bump(href), data)
        born[href] = counter
        return (href, resources[href]?.etag)
    }

    func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String? {
        try write()
        beforeWrite?(href)
        guard let r = resources[href] else { throw .notFound }
        guard r.etag == etag else { throw .preconditionFailed }
        updates += 1
        resources[href] = (bump(href), data)
        return resources[href]?.etag
    }

    func delete(href: String, ifMatch etag: String) throws(CalDAVError) {
        try write()
        beforeWrite?(href)
        guard let r = resources[href] else { throw .notFound }
        guard r.etag == etag else { throw .preconditionFailed }
        deletes += 1
        resources[href] = nil
        _ = bump(href)
    }

    // MARK: Another client of the server (todoman, a phone)

    /// Puts a resource as another client would (no preconditions).
    @discardableResult
    func put(_ name: String, _ text: String) -> String {
        let href = name.hasPrefix("/") ? name : path + name
        if resources[href] == nil { born[href] = counter + 1 }
        resources[href] = (bump(href), Array(text.utf8))
        return href
    }

    func remove(_ href: String) {
        resources[href] = nil
        _ = bump(href)
    }

    /// Changes a resource's text as another client would.
    func edit(_ href: String, _ change: (String) -> String) {
        guard let r = resources[href] else { return }
        resources[href] = (bump(href), Array(change(String(decoding: r.data, as: UTF8.self)).utf8))
    }

    /// Gives the todo `uid` another X-APPLE-SORT-ORDER, as a client reordering it would.
    func setSortOrder(uid: String, _ order: Int64, modified: String? = nil) throws {
        guard let href = href(uid: uid) else { throw RawClientError.failed("no resource for \(uid)") }
        edit(href) { text in
            var t = text.replacingOccurrences(
                of: #"X-APPLE-SORT-ORDER:-?\d+"#, with: "X-APPLE-SORT-ORDER:\(order)", options: .regularExpression)
            if let modified {
                t = t.replacingOccurrences(
                    of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:\(modified)", options: .regularExpression)
            }
            return t
        }
    }

    /// The href of the resource holding `uid`.
    func href(uid: String) -> String? {
        resources.first { String(decoding: $0.value.data, as: UTF8.self).contains("UID:\(uid)\r\n") }?.key
    }

    /// Every resource read, by uid (duplicates would show as fewer keys than `resources`).
    func items(_ codec: VTodoCodec = VTodoCodec()) -> [String: SyncItem] {
        var out: [String: SyncItem] = [:]
        for (_, r) in resources {
            if let item = try? codec.item(r.data).get(), let uid = item.entry.uid { out[uid] = item }
        }
        return out
    }

    /// The uids of the open todos on the server, in X-APPLE-SORT-ORDER order (the order another
    /// client shows; ties by uid, as todod orders them).
    func openUIDsBySortOrder() -> [String] {
        items().filter { !$0.value.entry.done }.sorted { a, b in
            let (x, y) = (a.value.sortOrder ?? .max, b.value.sortOrder ?? .max) // none: last
            return x != y ? x < y : a.key < b.key
        }.map(\.key)
    }

    /// The sort orders Apple Reminders gives four todos (large, negative), put on the server as
    /// `apple-0` ... `apple-3`.
    static let appleSortOrders: [Int64] = [-700_000_000, -699_999_000, -699_998_000, -699_997_000]
    func putAppleTodos() {
        for (i, order) in Self.appleSortOrders.enumerated() {
            put(
                "apple-\(i).ics",
                vtodo(uid: "apple-\(i)", summary: "リマインダー \(i)", extra: ["X-APPLE-SORT-ORDER:\(order)"]))
        }
    }
}

/// An iCalendar UTC time `seconds` from now (`20261202T140000Z`): a LAST-MODIFIED another
/// client writes after the test's own changes, on whatever day the suite runs (a fixed date
/// stops being later once the day passes it).
func icalStamp(fromNow seconds: Int64) -> String {
    let text = Instant(usec: Instant.now().usec + seconds * 1_000_000).rfc3339() // 2026-12-02T14:00:00Z
    return text.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
}

/// A VTODO as another client writes it.
func vtodo(uid: String, summary: String, modified: String = "20261201T090000Z", extra: [String] = []) -> String {
    ([
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//other client//EN", "BEGIN:VTODO", "UID:\(uid)",
        "DTSTAMP:\(modified)",
        "CREATED:20261101T090000Z", "LAST-MODIFIED:\(modified)", "SUMMARY:\(summary)", "STATUS:NEEDS-ACTION"
    ] + extra
        + ["END:VTODO", "END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}

/// The sync round's connection to todod, with a hook run before each `store.import` (a test
/// changes a todo there, between the round's read and its write).
final class ImportHook: RPCTransport {
    let inner: any RPCTransport
    let beforeImport: () -> Void

    init(_ inner: any RPCTransport, beforeImport: @escaping () -> Void) {
        self.inner = inner
        self.beforeImport = beforeImport
    }

    func call(_ method: TodoProtocol.Method, _ params: JSONObject) throws(ClientError) -> JSON {
        if method == .storeImport { beforeImport() }
        return try inner.call(method, params)
    }

    func stream(
        _ method: TodoProtocol.Method, _ params: JSONObject, arrayKey: String,
        element: (JSON, JSONObject) throws(ClientError) -> Void
    ) throws(ClientError) -> JSONObject {
        try inner.stream(method, params, arrayKey: arrayKey, element: element)
    }

    func watch(_ params: WatchParams, onEvent: (JSON) -> Bool) throws(ClientError) {
        try inner.watch(params, onEvent: onEvent)
    }
}

/// One "machine": a todod with its store, and the sync state of one account against a collection.
final class Machine {
    let daemon: DaemonProcess
    let directory: TemporaryDirectory
    let client: RawClient
    var statePath: String { directory.file("home.state") }

    init() throws {
        directory = TemporaryDirectory("sync")
        daemon = try DaemonProcess(environment: ["TZ": "UTC"])
        client = try daemon.client()
    }

    /// One round of the account against `collection`.
    @discardableResult
    func sync(
        _ collection: any CalendarCollection, beforeApply: @escaping () -> Void = {},
        conflicts: ((SyncStatus.Conflict) -> Void)? = nil,
        timeLimit: Double = SyncAccount.defaultRoundLimit
    ) throws -> RoundReport {
        let transport = ImportHook(try UnixSocketTransport(path: daemon.socket, timeout: 30), beforeImport: beforeApply)
        let (state, _) = try SyncState.open(path: statePath)
        let round = SyncRound(
            account: "home", collection: collection, store: LocalStore(transport: transport), state: state,
            codec: VTodoCodec(),
            options: .init(timeLimit: timeLimit, onConflict: conflicts ?? { _ in }))
        return try round.run()
    }

    @discardableResult
    func add(_ title: String, _ extra: JSONObject = [:]) throws -> JSON {
        var p = extra
        p["title"] = .string(title)
        return try client.result("todo.add", p)
    }

    func todos() throws -> [JSON] {
        try client.result("todo.list", ["status": "all"])["todos"]?.arrayValue ?? []
    }

    /// The open todos' uids in the manual order.
    func openUIDs() throws -> [String] {
        try client.result("todo.list", [:])["todos"]?.arrayValue?.compactMap { $0["uid"]?.stringValue } ?? []
    }

    func todo(uid: String) throws -> JSON? {
        try todos().first { $0["uid"]?.stringValue == uid }
    }

    func update(uid: String, _ patch: JSONObject) throws {
        guard let id = try todo(uid: uid)?["id"]?.intValue else { throw RawClientError.failed("no todo \(uid)") }
        var p = patch
        p["id"] = .int(id)
        _ = try client.result("todo.update", p)
    }

    func delete(uid: String) throws {
        guard let id = try todo(uid: uid)?["id"]?.intValue else { throw RawClientError.failed("no todo \(uid)") }
        _ = try client.result("todo.delete", ["ids": [.int(id)]])
    }
}
