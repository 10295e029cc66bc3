import TodoCore
import TodoProtocol
import TodoRPC
import TodoUserFiles

/// One list of the store as the round of its calendar sees it: only the todos of its category
/// (the default list: those without one), each without its category (the calendar is it). What
/// the round writes gets the category back; a todo another list held moves into this one (a
/// client moved its resource here); a place in the order is one among this list's todos.
final class ListView: LocalStore {
    /// The list's category; nil: the default list.
    let category: String?
    /// Of the default list: the category named as its calendar, whose todos live there too (they
    /// keep it, written as `X-TODOD-CATEGORY`, so the calendar never has a twin of its name).
    let alias: String?

    init(transport: any RPCTransport, category: String?, alias: String? = nil) {
        self.category = category
        self.alias = category == nil ? alias : nil
        super.init(transport: transport)
    }

    /// Whether the todo is in this list.
    func holds(_ todo: Todo) -> Bool { todo.category == category || (alias != nil && todo.category == alias) }

    /// The todo as the round sees it: without its category (but the default list's alias).
    func shown(_ todo: Todo) -> Todo {
        var copy = todo
        if alias == nil || todo.category != alias { copy.category = nil }
        return copy
    }

    override func changes(since: Int64) throws(SyncError) -> (
        todos: [(uid: String, todo: Todo?, kind: ChangeKind, ical: String?)], seq: Int64
    )? {
        guard let all = try super.changes(since: since) else { return nil }
        // A todo that left this list is gone from it (its new list's round sends it there).
        return (all.todos.map { c in (c.uid, c.todo.flatMap { holds($0) ? shown($0) : nil }, c.kind, c.ical) }, all.seq)
    }

    override func allTodos() throws(SyncError) -> [Todo] {
        try super.allTodos().filter(holds).map(shown)
    }

    override func apply(_ entries: [ExportDocument.Entry], label: String? = nil) throws(SyncError) -> ApplyResult {
        // A todo new to this list that the store holds in another: moved here by another client
        // (it goes on as the same todo, now of this category).
        var current: [String: Todo] = [:]
        if entries.contains(where: { $0.ifRevision == 0 }) {
            current = Dictionary(try super.allTodos().map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        }
        let listed = entries.map { e -> ExportDocument.Entry in
            var e = e
            // The default list keeps what X-TODOD-CATEGORY says (an account of one calendar wrote it).
            if category != nil || !e.deleted { e.category = category ?? e.category }
            if e.ifRevision == 0, let uid = e.uid, let there = current[uid], !holds(there) {
                e.ifRevision = there.revision
            }
            return e
        }
        return try super.apply(listed, label: label)
    }

    override func move(id: Int64, position: Int) throws(SyncError) -> Todo {
        // The `position`-th place among this list's open todos is just before the todo there now
        // (the moved one left out), or just after the list's last.
        let open = try allTodos().filter { $0.position != nil }.sorted { $0.position! < $1.position! }
        guard let todo = open.first(where: { $0.id == id }) else {
            throw SyncError("todod: the todo \(id) is not open in this list")
        }
        let others = open.filter { $0.id != id }
        let target: MoveTarget
        if position - 1 < others.count, position >= 1 {
            target = .before(others[position - 1].id)
        } else if let last = others.last {
            target = .after(last.id)
        } else {
            return todo
        }
        return shown(try call(TodoMoveParams(id: id, target: target)))
    }

    override func complete(id: Int64) throws(SyncError) -> Todo? {
        try super.complete(id: id).map(shown)
    }
}
