import TodoCore
import TodoProtocol
import TodoRPC

/// What the sync round needs from todod, over its socket (docs/PROTOCOL.md). `ListView` shows a
/// round one list of it.
package class LocalStore {
    let transport: any RPCTransport

    /// Over `transport` (tests wrap todod's socket). Internal, as `ListView`, which does not
    /// inherit it: a `package` designated initializer an internal subclass does not inherit gets
    /// a vtable thunk for the subclass's stub that Swift 6.3 emits calling itself ("function call
    /// causes an infinite recursion" at the subclass).
    init(transport: any RPCTransport) { self.transport = transport }

    /// Connects to todod at `socket` (`SocketPaths.socket`, as todoctl resolves it).
    package convenience init(socket: String) throws(SyncError) {
        do {
            self.init(transport: try UnixSocketTransport(path: socket, timeout: 30))
        } catch {
            throw SyncError(Self.describe(error))
        }
    }

    /// One line for a failure to talk to todod.
    static func describe(_ error: ClientError) -> String {
        switch error {
        case .unreachable(let socket, let reason): return "todod is not reachable at \(socket): \(reason)"
        case .refused(let e): return "todod refused: \(e.message)"
        case .badAnswer(let reason): return "todod: \(reason)"
        case .untrustedDaemon(let socket, let uid): return "the socket \(socket) belongs to another user (uid \(uid))"
        case .timedOut(let socket, let seconds): return "todod at \(socket) did not answer in \(Int(seconds)) s"
        case .badTimeout(let text): return "bad timeout \(text)"
        }
    }

    func call<P: MethodParams>(_ params: P) throws(SyncError) -> P.Result {
        do { return try transport.call(params) } catch { throw SyncError(Self.describe(error)) }
    }

    /// `daemon.status`: the store's id and its newest change.
    package func status() throws(SyncError) -> (storeID: String, seq: Int64) {
        let s = try call(DaemonStatusParams())
        guard let id = s.storeID, let seq = s.seq else { throw SyncError("todod sent no storeId or seq (too old?)") }
        return (id, seq)
    }

    /// The todos changed after `since` (nil: deleted), paged to the end, and the seq to go on from.
    /// Nil when the change log no longer reaches back to `since` (-32005) or `since` is after the
    /// store's newest change (a store restored from an older copy): read everything.
    /// Each item also has the lines an iCalendar import kept of the todo (`ical`), nil when none.
    package func changes(since: Int64) throws(SyncError) -> (
        todos: [(uid: String, todo: Todo?, kind: ChangeKind, ical: String?)], seq: Int64
    )? {
        var since = since
        var out: [(uid: String, todo: Todo?, kind: ChangeKind, ical: String?)] = []
        var index: [String: Int] = [:]
        while true {
            let page: ChangesPage
            do {
                page = try transport.call(StoreChangesParams(since: since, limit: 1000))
            } catch .refused(let e)
                where e.code == RPCError.historyGoneCode || (e.code == RPCError.invalidParamsCode && e.field == "since")
            {
                return nil // history gone, or a seq this store never reached (an older copy of it): read it whole
            } catch {
                throw SyncError(Self.describe(error))
            }
            for item in page.changes {
                // A todo that changed again on a later page comes again: the later state wins.
                if let i = index[item.uid] {
                    out[i].todo = item.todo
                    out[i].kind = item.kind
                    out[i].ical = item.ical
                } else {
                    index[item.uid] = out.count
                    out.append((item.uid, item.todo, item.kind, item.ical))
                }
            }
            since = page.seq
            if !page.more { return (out, page.seq) }
        }
    }

    /// Every todo, open and done, in manual order.
    package func allTodos() throws(SyncError) -> [Todo] {
        var todos: [Todo] = []
        do {
            var query = TodoListParams()
            query.status = .all
            _ = try transport.list(query) { (item, _) throws(ClientError) in todos.append(try Todo.decoded(item)) }
        } catch {
            throw SyncError(Self.describe(error))
        }
        return todos
    }

    /// The lines iCalendar imports kept of the todos (`store.export`'s `ical`), by uid.
    package func keptLines() throws(SyncError) -> [String: String] {
        var out: [String: String] = [:]
        for t in try call(StoreExportParams()).todos {
            if let uid = t.uid, let ical = t.ical { out[uid] = ical }
        }
        return out
    }

    /// What one `store.import` did: applied (with the uids skipped because their todo changed
    /// meanwhile), or refused whole because of one entry (its index and why).
    package enum ApplyResult: Equatable {
        case applied(stale: Set<String>)
        case refused(index: Int, reason: String)
    }

    /// One `store.import` of conditional entries (each with `ifRevision`), sent in parts of at
    /// most about 512 KiB (a request line holds 1 MiB) on this one connection and applied in one
    /// transaction: all or nothing.
    package func apply(_ entries: [ExportDocument.Entry], label: String? = nil) throws(SyncError) -> ApplyResult {
        guard !entries.isEmpty else { return .applied(stale: []) }
        var parts: [[ExportDocument.Entry]] = [[]]
        var size = 0
        for e in entries {
            let bytes = e.estimatedBytes
            if size + bytes > 512 << 10, !parts[parts.count - 1].isEmpty {
                parts.append([])
                size = 0
            }
            parts[parts.count - 1].append(e)
            size += bytes
        }
        var result: ImportResult?
        for (i, part) in parts.enumerated() {
            guard
                case .object(let document) = JSON(
                    ExportDocument(categories: [], todos: part, exported: Instant(usec: 0)))
            else { return .applied(stale: []) }
            do {
                result = try transport.call(
                    StoreImportParams(document: document, more: i < parts.count - 1, label: label))
            } catch .refused(let e) where e.code == RPCError.invalidParamsCode {
                if let field = e.field, let entry = Self.entryIndex(field) {
                    var reason = e.message
                    if let range = reason.firstRange(of: field) { reason = String(reason[range.upperBound...]) }
                    let name = field.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
                    return .refused(index: entry, reason: (name.isEmpty ? "" : name + " ") + reason.trimmingPrefix(" "))
                }
                throw SyncError(Self.describe(.refused(e)))
            } catch {
                throw SyncError(Self.describe(error))
            }
        }
        return .applied(stale: Set(result?.stale ?? []))
    }

    /// N of a field `todos[N]...`.
    static func entryIndex(_ field: String) -> Int? {
        guard field.hasPrefix("todos["), let close = field.firstIndex(of: "]") else { return nil }
        return Int(field[field.index(field.startIndex, offsetBy: 6)..<close])
    }

    /// `todo.move` of one todo to the `position`-th place among the open todos.
    package func move(id: Int64, position: Int) throws(SyncError) -> Todo {
        try call(TodoMoveParams(id: id, target: .position(position)))
    }

    /// `todo.complete` of one todo: a recurring one advances to its next occurrence.
    package func complete(id: Int64) throws(SyncError) -> Todo? {
        try call(TodoCompleteParams(ids: [id])).first
    }
}
