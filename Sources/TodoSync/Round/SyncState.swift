import TodoCore
import TodoSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// What the sync knows of one todo on the server: where it is, which version, and the VTODO last
/// synced (the merge base).
package struct SyncedItem: Sendable, Equatable {
    package var uid: String
    package var href: String
    package var etag: String
    /// The VTODO bytes both sides agreed on last.
    package var base: [UInt8]
    /// The server holds a version not merged yet (an import found the todo changed meanwhile):
    /// fetch it again next round.
    package var refetch: Bool

    package init(uid: String, href: String, etag: String, base: [UInt8], refetch: Bool = false) {
        self.uid = uid
        self.href = href
        self.etag = etag
        self.base = base
        self.refetch = refetch
    }
}

/// A todo or resource that does not sync, named in `sync status` until it is fixed or deleted.
package struct SyncProblem: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// A resource on the server that todod cannot read (by href): left alone there.
        case unreadable
        /// A resource todod reads but its rules refuse (a title too long, an unknown rule ...).
        case rejected
        /// A local change the server refused (403, 409, 415, 507 ...): tried again every round.
        case refused
    }
    package var kind: Kind
    package var uid: String?
    package var href: String
    package var etag: String
    /// The todo's title, or the href when none could be read.
    package var title: String
    /// Why, in one line (the server's reason for a refusal).
    package var reason: String

    package init(kind: Kind, uid: String?, href: String, etag: String = "", title: String, reason: String) {
        self.kind = kind
        self.uid = uid
        self.href = href
        self.etag = etag
        self.title = title
        self.reason = reason
    }

    /// What identifies it: the todo for a refusal, the resource otherwise.
    var key: String { kind == .refused ? (uid ?? href) : href }
}

/// One account's sync state (SPEC §9): a small SQLite file of its own (`SyncPaths.stateFile`),
/// one row per todo, so a change rewrites one row, not the whole state. A missing or unreadable
/// file starts empty (`SyncState.open`): the next round resyncs by UID.
package final class SyncState {
    let connection: Connection
    package let path: String

    static let schema = """
        PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS items (uid TEXT PRIMARY KEY, href TEXT NOT NULL UNIQUE, etag TEXT NOT NULL,
                                          base TEXT NOT NULL, refetch INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS moves (uid TEXT PRIMARY KEY, updated INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS problems (kind TEXT NOT NULL, key TEXT NOT NULL, uid TEXT, href TEXT NOT NULL, etag TEXT NOT NULL,
                                             title TEXT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (kind, key));
        """
    static let version = "1"

    init(path: String) throws(TodoError) {
        self.path = path
        // Made (or kept) 0600 before SQLite opens it: its -wal and -shm files take its mode.
        for file in [path, path + "-wal", path + "-shm"] {
            let fd = Glibc.open(file, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (file == path ? O_CREAT : 0), 0o600)
            if fd >= 0 {
                _ = fchmod(fd, 0o600)
                close(fd)
            }
        }
        connection = try Connection(path: path)
        try connection.execute(Self.schema)
        let version = try connection.firstRow("SELECT value FROM meta WHERE key = 'version'") { $0.text(0) }
        if version == nil {
            try connection.run("INSERT INTO meta (key, value) VALUES ('version', ?)", [.text(Self.version)])
        }
        guard version == nil || version == Self.version else {
            throw TodoError.invalid("state", "unknown state version \(version ?? "")")
        }
        // A file SQLite opens but cannot read (garbage written over it) fails here.
        _ = try connection.scalar("SELECT COUNT(*) FROM items")
    }

    /// Opens the state at `path`; a file that is not a readable state is moved aside
    /// (`NAME.state.corrupt`) and an empty state started: the round then resyncs by UID.
    /// - Returns: the state, and the reason when it started over.
    package static func open(path: String) throws(SyncError) -> (SyncState, reset: String?) {
        do {
            return (try SyncState(path: path), nil)
        } catch {
            let reason = "the sync state \(path) was unreadable (\(error)); starting over with a resync by UID"
            for suffix in ["", "-wal", "-shm"] { _ = rename(path + suffix, path + ".corrupt" + suffix) }
            do {
                return (try SyncState(path: path), reason)
            } catch {
                throw .cannotCreateState(path: path, reason: "\(error)")
            }
        }
    }

    // MARK: - Account-wide values

    func meta(_ key: String) -> String? {
        try? connection.firstRow("SELECT value FROM meta WHERE key = ?", [.text(key)]) { $0.text(0) }
    }

    func setMeta(_ key: String, _ value: String?) throws(TodoError) {
        if let value {
            try connection.run(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(value)])
        } else {
            try connection.run("DELETE FROM meta WHERE key = ?", [.text(key)])
        }
    }

    /// The calendar collection's URL the state belongs to.
    package var calendar: String? { meta("calendar") }
    /// The RFC 6578 sync token of the last pull.
    package var token: String? { meta("token") }
    /// The `storeId` of the todod store the state belongs to.
    package var storeID: String? { meta("store") }
    /// The last store change consumed (`store.changes` `since`); nil: read the whole store.
    package var seq: Int64? { meta("seq").flatMap { Int64($0) } }

    package func setToken(_ token: String?) throws(TodoError) { try setMeta("token", token) }
    package func setSeq(_ seq: Int64?) throws(TodoError) { try setMeta("seq", seq.map { String($0) }) }

    /// Starts over for another calendar or store: no token, no seq, no items (the next round
    /// matches the two sides by UID).
    package func reset(calendar: String, storeID: String) throws(TodoError) {
        try connection.execute(
            "BEGIN; DELETE FROM items; DELETE FROM moves; DELETE FROM problems; DELETE FROM meta WHERE key IN ('token', 'seq', 'renumber');"
        )
        do {
            try setMeta("calendar", calendar)
            try setMeta("store", storeID)
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    // MARK: - Items

    static func item(_ s: Statement) -> SyncedItem {
        SyncedItem(
            uid: s.text(0), href: s.text(1), etag: s.text(2), base: Array(s.text(3).utf8), refetch: s.int64(4) != 0)
    }

    package func item(uid: String) throws(TodoError) -> SyncedItem? {
        try connection.firstRow(
            "SELECT uid, href, etag, base, refetch FROM items WHERE uid = ?", [.text(uid)], Self.item)
    }

    package func item(href: String) throws(TodoError) -> SyncedItem? {
        try connection.firstRow(
            "SELECT uid, href, etag, base, refetch FROM items WHERE href = ?", [.text(href)], Self.item)
    }

    /// Every item's href and ETag (the ETag comparison of servers without sync tokens).
    package func versions() throws(TodoError) -> [String: (uid: String, etag: String)] {
        var out: [String: (uid: String, etag: String)] = [:]
        for row in try connection.rows(
            "SELECT href, uid, etag FROM items", [], { ($0.text(0), $0.text(1), $0.text(2)) })
        {
            out[row.0] = (row.1, row.2)
        }
        return out
    }

    /// The items to fetch again this round.
    package func refetching() throws(TodoError) -> [SyncedItem] {
        try connection.rows("SELECT uid, href, etag, base, refetch FROM items WHERE refetch <> 0", [], Self.item)
    }

    package var count: Int { Int((try? connection.scalar("SELECT COUNT(*) FROM items")) ?? 0) }

    package func save(_ item: SyncedItem) throws(TodoError) {
        // A new item may take the href of an item the server lost (unlikely, but hrefs are unique).
        try connection.run("DELETE FROM items WHERE href = ? AND uid <> ?", [.text(item.href), .text(item.uid)])
        try connection.run(
            """
            INSERT INTO items (uid, href, etag, base, refetch) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (uid) DO UPDATE SET href = excluded.href, etag = excluded.etag, base = excluded.base, refetch = excluded.refetch
            """,
            [
                .text(item.uid), .text(item.href), .text(item.etag), .text(String(decoding: item.base, as: UTF8.self)),
                .integer(item.refetch ? 1 : 0)
            ])
    }

    package func markRefetch(uid: String) throws(TodoError) {
        try connection.run("UPDATE items SET refetch = 1 WHERE uid = ?", [.text(uid)])
    }

    package func remove(uid: String) throws(TodoError) {
        try connection.run("DELETE FROM items WHERE uid = ?", [.text(uid)])
        try connection.run("DELETE FROM moves WHERE uid = ?", [.text(uid)])
    }

    /// Every item's `X-APPLE-SORT-ORDER` in its base (items without one left out): the places
    /// the server's order gave the todos when they were last synced.
    package func sortOrders() throws(TodoError) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for row in try connection.rows("SELECT uid, base FROM items", [], { ($0.text(0), $0.text(1)) }) {
            if let order = Self.sortOrder(in: row.1) { out[row.0] = order }
        }
        return out
    }

    /// The value of the first `X-APPLE-SORT-ORDER` line of a VTODO's text (by bytes: a CRLF is
    /// one Character).
    static func sortOrder(in text: String) -> Int64? {
        let name = Array("X-APPLE-SORT-ORDER".utf8)
        for line in text.utf8.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) where line.starts(with: name) {
            guard let colon = line.firstIndex(of: 0x3A) else { return nil }
            return Int64(
                String(decoding: line[line.index(after: colon)...].filter { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self))
        }
        return nil
    }

    /// Records a move the round itself made in the store (the todo's `updated` after it), so the
    /// next round does not take it for a move made here and send it back.
    package func recordMove(uid: String, updated: Instant) throws(TodoError) {
        try connection.run(
            "INSERT INTO moves (uid, updated) VALUES (?, ?) ON CONFLICT (uid) DO UPDATE SET updated = excluded.updated",
            [.text(uid), .integer(updated.usec)])
    }

    /// Whether the todo's latest change is the move a round made (`recordMove`), nothing since.
    package func isOwnMove(uid: String, updated: Instant) throws(TodoError) -> Bool {
        try connection.firstRow("SELECT updated FROM moves WHERE uid = ?", [.text(uid)]) { $0.int64(0) } == updated.usec
    }

    // MARK: - Items that do not sync

    /// Records a problem (replacing one of the same kind for the same todo or resource).
    package func record(_ problem: SyncProblem) throws(TodoError) {
        try connection.run(
            """
            INSERT INTO problems (kind, key, uid, href, etag, title, reason) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (kind, key) DO UPDATE SET uid = excluded.uid, href = excluded.href, etag = excluded.etag,
                title = excluded.title, reason = excluded.reason
            """,
            [
                .text(problem.kind.rawValue), .text(problem.key), .optional(problem.uid), .text(problem.href),
                .text(problem.etag),
                .text(problem.title), .text(problem.reason)
            ])
    }

    /// Every problem, oldest first.
    package func problems() throws(TodoError) -> [SyncProblem] {
        try connection.rows("SELECT kind, uid, href, etag, title, reason FROM problems ORDER BY rowid", []) { s in
            SyncProblem(
                kind: SyncProblem.Kind(rawValue: s.text(0)) ?? .unreadable, uid: s.isNull(1) ? nil : s.text(1),
                href: s.text(2),
                etag: s.text(3), title: s.text(4), reason: s.text(5))
        }
    }

    /// Forgets the server-side problems of the resource at `href` (read again, or gone).
    package func clearRemoteProblems(href: String) throws(TodoError) {
        try connection.run("DELETE FROM problems WHERE kind <> 'refused' AND key = ?", [.text(href)])
    }

    /// Forgets that the server refused the todo `uid` (it went through, or has nothing to send).
    package func clearRefused(uid: String) throws(TodoError) {
        try connection.run("DELETE FROM problems WHERE kind = 'refused' AND key = ?", [.text(uid)])
    }

    /// Runs `body` in one transaction (many item writes, one fsync).
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try connection.execute("COMMIT")
            return value
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
