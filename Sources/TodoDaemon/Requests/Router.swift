import TodoCore
import TodoProtocol
import TodoStore

/// Serves each JSON-RPC method (docs/PROTOCOL.md): decodes its params (`MethodParams`), calls the
/// store, and returns the result and the `watch` events the change causes. One function per
/// method. Runs on the store queue, inside the transaction the executor opened (`reminder.list`
/// on the journal-read queue). A class: each method's handler is passed as a closure over it,
/// which for a struct copied all of it for every request.
final class Router: Sendable {
    /// What one request produced.
    struct Outcome {
        /// The result as JSON text, written once here on the store queue; nil when it went out
        /// through a `ResponseStream`.
        var encodedResult: [UInt8]?
        var events: [Event] = []
        /// For `watch`: what the connection now subscribes to (nil: the request changes nothing).
        var subscription: Subscription? = nil
        /// The seq of the change `events` belong to; set by `perform` for a write that has events.
        var seq: Int64? = nil
        /// For `watch` with `since`: the replayed events, each a whole notification line.
        var replay: ReplayOutput? = nil

        /// A method's reply, its result written by the result type's one encoder.
        init<R: WireCodable>(_ reply: Reply<R>) {
            self.init(encodedResult: reply.result.wireBytes, events: reply.events, subscription: reply.subscription)
            replay = reply.replay
        }

        init(encodedResult: [UInt8]?, events: [Event] = [], subscription: Subscription? = nil) {
            self.encodedResult = encodedResult
            self.events = events
            self.subscription = subscription
        }
    }

    /// What one method's handler returns: its params type's `Result`, and the events the
    /// change causes (`Outcome` encodes the result).
    struct Reply<R: WireCodable> {
        var result: R
        var events: [Event] = []
        var subscription: Subscription? = nil
        var replay: ReplayOutput? = nil
    }

    let status: StatusSource
    let reminders: any ReminderHistoryReading
    /// Called on the store queue between the slices of long work (a large import, undo or redo).
    let progress: @Sendable () -> Void
    /// Where a `watch` replay's lines past the bound in memory wait (nil: all in memory).
    let spoolBudget: SpoolBudget?

    init(
        status: StatusSource, reminders: any ReminderHistoryReading, progress: @escaping @Sendable () -> Void = {},
        spoolBudget: SpoolBudget? = nil
    ) {
        self.status = status
        self.reminders = reminders
        self.progress = progress
        self.spoolBudget = spoolBudget
    }

    /// Performs `request` in `tx`. Errors are the domain's mapped to wire codes.
    /// `heldImport` is what the connection holds of a `store.import` sent in parts. With a
    /// `stream`, a `todo.list` result is written to it as the todos are read.
    /// The events of a change carry its `seq` (read once the change is written).
    func perform(
        _ request: RPCRequest, in tx: StoreTransaction, heldImport: inout HeldImport?,
        stream: ResponseStream? = nil
    ) throws(RPCError) -> Outcome {
        guard let method = request.known else { throw RPCError.methodNotFound(request.method) }
        var outcome = try route(method, request.params, tx, heldImport: &heldImport, stream: stream)
        if method.kind == .write, !outcome.events.isEmpty {
            do { outcome.seq = try tx.currentSeq() } catch { throw RPCError(error) }
        }
        return outcome
    }

    private func route(
        _ method: TodoProtocol.Method, _ p: JSONObject, _ tx: StoreTransaction, heldImport: inout HeldImport?,
        stream: ResponseStream?
    ) throws(RPCError) -> Outcome {
        switch method {
        case .todoGet: return try onStore(TodoGetParams(decoding: p), tx, todoGet)
        case .todoAdd: return try onStore(TodoAddParams(decoding: p), tx, todoAdd)
        case .todoList:
            let query = try TodoListParams(decoding: p)
            do { return try todoList(query, stream, tx) } catch { throw RPCError(error) }
        case .todoUpdate: return try onStore(TodoUpdateParams(decoding: p), tx, todoUpdate)
        case .todoComplete: return try onStore(TodoCompleteParams(decoding: p), tx, todoComplete)
        case .todoReopen: return try onStore(TodoReopenParams(decoding: p), tx, todoReopen)
        case .todoDelete: return try onStore(TodoDeleteParams(decoding: p), tx, todoDelete)
        case .todoMove: return try onStore(TodoMoveParams(decoding: p), tx, todoMove)
        case .todoSnooze: return try onStore(TodoSnoozeParams(decoding: p), tx, todoSnooze)
        case .todoAlarmAck: return try onStore(TodoAlarmAckParams(decoding: p), tx, todoAlarmAck)
        case .todoBatch: return try onStore(TodoBatchParams(decoding: p), tx, todoBatch)
        case .categoryList: return try onStore(CategoryListParams(decoding: p), tx, categoryList)
        case .categoryAdd: return try onStore(CategoryAddParams(decoding: p), tx, categoryAdd)
        case .categoryRename: return try onStore(CategoryRenameParams(decoding: p), tx, categoryRename)
        case .categoryDelete: return try onStore(CategoryDeleteParams(decoding: p), tx, categoryDelete)
        case .categoryMove: return try onStore(CategoryMoveParams(decoding: p), tx, categoryMove)
        case .daemonStatus: return try onStore(DaemonStatusParams(decoding: p), tx, daemonStatus)
        case .watch: return try onStore(WatchParams(decoding: p), tx, watch)
        case .storeChanges: return try onStore(StoreChangesParams(decoding: p), tx, storeChanges)
        case .storeExport: return try onStore(StoreExportParams(decoding: p), tx, storeExport)
        case .storeImport: return Outcome(try storeImport(StoreImportParams(decoding: p), held: &heldImport, tx))
        case .reminderList: return Outcome(try reminderList(ReminderListParams(decoding: p)))
        case .storeUndo:
            return try onStore(StoreUndoParams(decoding: p), tx) { (p, tx) throws(TodoError) in
                try storeReverse(redo: false, p.steps, tx)
            }
        case .storeRedo:
            return try onStore(StoreRedoParams(decoding: p), tx) { (p, tx) throws(TodoError) in
                try storeReverse(redo: true, p.steps, tx)
            }
        case .storeHistory: return try onStore(StoreHistoryParams(decoding: p), tx, storeHistory)
        }
    }

    /// Runs a method's store work on its decoded params: the store's errors become wire errors
    /// (a params error was already one). The handler answers with the params' own result type.
    @inline(__always)
    private func onStore<P: MethodParams>(
        _ params: P, _ tx: StoreTransaction,
        _ body: (P, StoreTransaction) throws(TodoError) -> Reply<P.Result>
    ) throws(RPCError) -> Outcome {
        do { return Outcome(try body(params, tx)) } catch { throw RPCError(error) }
    }

    /// Performs a `reminder.list` request: reads the journal, not the store (the executor runs
    /// it on the journal-read queue).
    func listReminders(_ request: RPCRequest) throws(RPCError) -> Outcome {
        Outcome(try reminderList(ReminderListParams(decoding: request.params)))
    }

    // MARK: - todo.*

    private func todoGet(_ p: TodoGetParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Todo> {
        Reply(result: try tx.todo(p.id))
    }

    private func todoAdd(_ new: TodoAddParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Todo> {
        let created = try newCategory(new.category, tx)
        let todo = try tx.add(new)
        return Reply(result: todo, events: try categoryEvents(created, tx) + [.todos(.todoAdded, [todo])])
    }

    /// `todo.list`, written to `stream` while the todos are read when there is one (by the
    /// pieces of `TodoPage`'s encoder).
    private func todoList(_ query: TodoListParams, _ stream: ResponseStream?, _ tx: StoreTransaction) throws(TodoError)
        -> Outcome
    {
        // A keyset window is one page, read before it is written (a window before its anchor is
        // read backwards and turned round).
        guard let stream, query.seek == nil else {
            return Outcome(Reply<TodoListParams.Result>(result: try tx.list(query)))
        }
        // Nothing is written until the rows are being read: an error before then (the statement
        // failing to prepare, say) is still answered as an error, not cut into a started line.
        var head: [UInt8]? = nil
        var first = true
        try tx.list(query, chunk: Router.streamedTodos, total: { head = TodoPage.encodedHead(total: $0) }) { todos in
            var piece = head ?? []
            head = nil
            TodoPage.append(todos, first: first, to: &piece)
            first = false
            stream.write(piece)
            return stream.isOpen // nobody left to read the rest
        }
        stream.write((head ?? []) + TodoPage.encodedTail)
        return Outcome(encodedResult: nil)
    }

    /// Todos per piece of a streamed listing.
    static let streamedTodos = 500

    private func todoUpdate(_ p: TodoUpdateParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Todo> {
        let before = try tx.todo(p.id)
        let created: String? = if case .set(let name) = p.patch.category { try newCategory(name, tx) } else { nil }
        let todo = try tx.update(p.id, p.patch, ifRevision: p.ifRevision)
        return Reply(
            result: todo,
            events: try categoryEvents(created, tx) + (todo == before ? [] : [.todos(.todoUpdated, [todo])]))
    }

    private func todoComplete(_ p: TodoCompleteParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<[Todo]> {
        try setDone(true, p.ids, stop: p.stop, tx)
    }

    private func todoReopen(_ p: TodoReopenParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<[Todo]> {
        try setDone(false, p.ids, stop: false, tx)
    }

    /// Completes or reopens `ids`; the event names only the todos that changed (a recurring todo
    /// that advanced to its next occurrence did, though it is still open), the named ones and
    /// every subtask completed or parent reopened with them (those changed by being there).
    private func setDone(_ done: Bool, _ ids: [Int64], stop: Bool, _ tx: StoreTransaction) throws(TodoError) -> Reply<
        [Todo]
    > {
        var wasDone: Set<Int64> = []
        for id in ids where try tx.todo(id).done { wasDone.insert(id) }
        let todos = done ? try tx.complete(ids, stop: stop) : try tx.reopen(ids)
        let named = Set(ids)
        let changed = todos.filter { !named.contains($0.id) || wasDone.contains($0.id) != done }
        return Reply(
            result: todos, events: changed.isEmpty ? [] : [.todos(done ? .todoCompleted : .todoReopened, changed)])
    }

    private func todoDelete(_ p: TodoDeleteParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<[Todo]> {
        let todos = try tx.delete(p.ids, recursive: p.recursive)
        return Reply(result: todos, events: todos.isEmpty ? [] : [.todos(.todoDeleted, todos)])
    }

    private func todoMove(_ p: TodoMoveParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Todo> {
        let before = try tx.todo(p.id)
        let todo = try tx.move(p.id, to: p.target)
        // A done todo has no position; its place still moved when `updated` changed.
        let moved = todo.position != before.position || todo.updated != before.updated
        return Reply(result: todo, events: moved ? [.todos(.todoMoved, [todo])] : [])
    }

    private func todoSnooze(_ p: TodoSnoozeParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Todo> {
        let todo = try tx.snooze(p.id, until: p.until)
        return Reply(result: todo, events: [.todos(.todoUpdated, [todo])])
    }

    private func todoAlarmAck(_ p: TodoAlarmAckParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Todo> {
        let before = try tx.todo(p.id)
        let todo = try tx.acknowledgeAlarm(p.id, uid: p.alarm, at: tx.now)
        // Nothing to acknowledge: no change, no event.
        return Reply(result: todo, events: todo.revision == before.revision ? [] : [.todos(.todoUpdated, [todo])])
    }

    /// `todo.batch`: each op as its own method does it, all in this request's savepoint (one
    /// failing op undoes them all), logged as one change. The result is every todo an op
    /// answered with, once each, as the batch left it (a deleted one as it was); the events are
    /// the ops' own, in order.
    private func todoBatch(_ p: TodoBatchParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<[Todo]> {
        var events: [Event] = []
        var order: [Int64] = []
        var latest: [Int64: Todo] = [:]
        func keep(_ todos: [Todo]) {
            for todo in todos {
                if latest.updateValue(todo, forKey: todo.id) == nil { order.append(todo.id) }
            }
        }
        try tx.asOneChange(
            .batch,
            { () throws(TodoError) in
                for op in p.ops {
                    switch op {
                    case .update(let u):
                        let reply = try todoUpdate(u, tx)
                        keep([reply.result])
                        events += reply.events
                    case .complete(let c):
                        let reply = try todoComplete(c, tx)
                        keep(reply.result)
                        events += reply.events
                    case .reopen(let r):
                        let reply = try todoReopen(r, tx)
                        keep(reply.result)
                        events += reply.events
                    case .delete(let d):
                        let reply = try todoDelete(d, tx)
                        keep(reply.result)
                        events += reply.events
                    case .move(let m):
                        let reply = try todoMove(m, tx)
                        keep([reply.result])
                        events += reply.events
                    case .snooze(let s):
                        let reply = try todoSnooze(s, tx)
                        keep([reply.result])
                        events += reply.events
                    case .alarmAck(let a):
                        let reply = try todoAlarmAck(a, tx)
                        keep([reply.result])
                        events += reply.events
                    }
                }
            }, description: { Self.batchDescription(p.ops) })
        // A todo moved after it was changed is answered with its final position.
        let todos = order.compactMap { latest[$0] }
        return Reply(result: todos, events: events)
    }

    /// The log's description of a batch: `edit 3, 4, 5` when every op is the same kind, else
    /// `batch of N changes: …`.
    static func batchDescription(_ ops: [TodoBatchParams.Op]) -> String {
        func verb(_ op: TodoBatchParams.Op) -> String {
            switch op {
            case .update: "edit"
            case .complete: "done"
            case .reopen: "reopen"
            case .delete: "delete"
            case .move: "move"
            case .snooze: "snooze"
            case .alarmAck: "dismiss"
            }
        }
        func ids(_ op: TodoBatchParams.Op) -> [Int64] {
            switch op {
            case .update(let u): [u.id]
            case .complete(let c): c.ids
            case .reopen(let r): r.ids
            case .delete(let d): d.ids
            case .move(let m): [m.id]
            case .snooze(let s): [s.id]
            case .alarmAck(let a): [a.id]
            }
        }
        var seen = Set<Int64>()
        let all = ops.flatMap(ids).filter { seen.insert($0).inserted }
        let verbs = Set(ops.map(verb))
        let list = all.prefix(10).map(String.init).joined(separator: ", ") + (all.count > 10 ? ", …" : "")
        if verbs.count == 1, let only = verbs.first { return "\(only) \(list)" }
        return "batch of \(ops.count) changes: \(verbs.sorted().joined(separator: ", ")) \(list)"
    }

    // MARK: - category.*

    private func categoryList(_: CategoryListParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<[Category]> {
        Reply(result: try tx.categories())
    }

    private func categoryAdd(_ p: CategoryAddParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Category> {
        let category = try tx.addCategory(p.name)
        return Reply(result: category, events: [.category(.categoryAdded, category)])
    }

    private func categoryRename(_ p: CategoryRenameParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Category>
    {
        let old = try tx.category(named: p.name)
        let category = try tx.renameCategory(p.name, to: p.newName)
        guard category.name != old.name else { return Reply(result: category) }
        // Its todos changed with it (the change log holds them; sync sends them again).
        var events = [Event.category(.categoryRenamed, category, oldName: old.name)]
        let renamed = try tx.list(Self.all(inCategory: category.name)).todos
        if !renamed.isEmpty { events.append(.todos(.todoUpdated, renamed)) }
        return Reply(result: category, events: events)
    }

    private func categoryDelete(_ p: CategoryDeleteParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Category>
    {
        let old = try tx.category(named: p.name)
        var unlinked = try tx.list(Self.all(inCategory: old.name)).todos
        let category = try tx.deleteCategory(p.name, force: p.force)
        var events = [Event.category(.categoryDeleted, category)]
        if !unlinked.isEmpty {
            unlinked = try unlinked.map { (t) throws(TodoError) in try tx.todo(t.id) }
            events.append(.todos(.todoUpdated, unlinked))
        }
        return Reply(result: category, events: events)
    }

    private func categoryMove(_ p: CategoryMoveParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<Category> {
        let before = try tx.category(named: p.name)
        let category = try tx.moveCategory(p.name, to: Int(p.position))
        return Reply(
            result: category, events: category.position == before.position ? [] : [.category(.categoryMoved, category)])
    }

    // MARK: - reminder.*, daemon.*, watch

    private func reminderList(_ p: ReminderListParams) throws(RPCError) -> Reply<[ReminderRecord]> {
        do {
            return Reply(result: try reminders.list(since: p.since, limit: p.limit ?? ReminderListParams.defaultLimit))
        } catch {
            throw RPCError(error)
        }
    }

    private func daemonStatus(_: DaemonStatusParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<DaemonStatus> {
        let counts = try tx.counts()
        return Reply(
            result: DaemonStatus(
                version: TododVersion.string, storeID: status.storeID, pid: Int64(status.pid), uptime: status.uptime(),
                database: status.database, open: Int64(counts.open), done: Int64(counts.done),
                nextReminder: try tx.nextPendingReminder(), seq: try tx.currentSeq(),
                databaseProblem: status.databaseProblem()))
    }

    /// `watch`; with `since`, the events of the changes after it up to the newest, to be sent
    /// after the answer. The connection is subscribed when the answer is delivered, in the order
    /// the store queue made the replies: the events of every later change reach it live, those
    /// of the changes replayed here do not (`ConnectionRegistry.deliver`).
    private func watch(_ p: WatchParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<WatchAnswer> {
        let subscription = Subscription(p)
        var outcome = Reply(result: WatchAnswer(), subscription: subscription)
        guard let since = p.since else { return outcome }
        let replay = ReplayOutput(budget: spoolBudget)
        let through = try tx.currentSeq()
        var from = since
        repeat { // read 256 changes at a time: the log's todos are never all in memory either
            let (next, past) = from.addingReportingOverflow(256) // `since` may be any seq sent
            let to = past ? through : min(through, next)
            for change in try tx.loggedChanges(after: from, through: to) {
                for event in Event.replayed(change) where subscription.includes(event.type) {
                    replay.append(event.line(seq: change.seq))
                }
            }
            from = to
        } while from < through
        outcome.replay = replay
        return outcome
    }

    /// `store.changes`: `seq` is what to ask with next — the last item's while `more`, else the
    /// newest change's.
    private func storeChanges(_ p: StoreChangesParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<ChangesPage> {
        let page = try tx.changedTodos(after: p.since, limit: p.limit ?? StoreChangesParams.defaultLimit)
        let next = page.more ? page.changes.last?.seq ?? p.since : try tx.currentSeq()
        return Reply(
            result: ChangesPage(
                seq: next,
                changes: page.changes.map {
                    ChangesPage.Item(seq: $0.seq, kind: $0.kind, uid: $0.uid, todo: $0.todo, ical: $0.ical)
                }, more: page.more))
    }

    // MARK: - store.*

    private func storeExport(_: StoreExportParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<ExportDocument> {
        Reply(result: try tx.export())
    }

    /// The most todos one import may hold before it is applied.
    static let maxImportTodos = 1_000_000
    /// The most memory the parts of one import may take while held (`ExportDocument.estimatedBytes`).
    static let maxImportBytes = 256 << 20

    /// Why parts holding `bytes` (more than `maxImportBytes`) are refused: the size in tenths of
    /// a MiB rounded up, so it never reads as the limit itself.
    static func importTooLarge(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + (1 << 20) - 1) >> 20
        return
            "an import in parts may hold at most \(maxImportBytes >> 20) MiB; with this part it holds \(tenths / 10).\(tenths % 10) MiB"
            + " (send it as several imports)"
    }

    /// `store.import`, one part of it. A document too long for one line (1 MiB) arrives in parts
    /// on one connection: each but the last says `"more": true` and is only checked and `held`
    /// (nothing is written); the last applies every part in this one transaction. Any error drops
    /// what is held, and so does closing the connection: the import stays all or nothing.
    func storeImport(_ p: StoreImportParams, held: inout HeldImport?, _ tx: StoreTransaction) throws(RPCError) -> Reply<
        ImportResult
    > {
        let before = held?.document
        let heldBytes = held?.bytes ?? 0
        held = nil
        let part = try p.read(firstTodo: before?.todos.count ?? 0)
        var document = part
        if let before {
            document = ExportDocument(
                categories: before.categories + part.categories, todos: before.todos + part.todos,
                exported: before.exported)
        }
        guard document.todos.count <= Router.maxImportTodos else {
            throw RPCError.invalidParams("todos", "an import holds at most \(Router.maxImportTodos) todos")
        }
        if p.more {
            let bytes = heldBytes + part.estimatedBytes
            guard bytes <= Router.maxImportBytes else {
                throw RPCError.invalidParams("todos", Router.importTooLarge(bytes))
            }
            held = HeldImport(document: document, bytes: bytes)
            return Reply(result: ImportResult(heldTodos: document.todos.count, categories: document.categories.count))
        }
        let counts: ImportCounts
        do { counts = try tx.importDocument(document, label: p.label, progress: progress) } catch {
            throw RPCError(error)
        }
        progress() // the commit follows, which cannot tell the watchdog it moves
        return Reply(
            result: ImportResult(counts), events: [.imported(todos: counts.todos, categories: counts.categories)])
    }

    /// `store.undo` / `store.redo`: `{seq, description, changes, todos, categories, deletedTodos,
    /// deletedCategories}`, and the ordinary events of what it changed.
    private func storeReverse(redo: Bool, _ steps: Int, _ tx: StoreTransaction) throws(TodoError) -> Reply<
        ReversalResult
    > {
        let r = redo ? try tx.redo(steps: steps, progress: progress) : try tx.undo(steps: steps, progress: progress)
        let result = ReversalResult(
            seq: r.seq, description: r.description, changes: r.changes, categories: r.categories,
            deletedCategories: r.deletedCategories, todos: r.todos, deletedTodos: r.deletedTodos)
        let events = Self.events(of: r)
        progress() // the commit follows, which cannot tell the watchdog it moves
        return Reply(result: result, events: events)
    }

    /// The events a client watching would have seen had the changes an undo or redo made been
    /// made one by one: categories made first, then the todos by kind, categories deleted last.
    static func events(of r: Reversal) -> [Event] {
        var events: [Event] = []
        for category in r.categories {
            guard let before = r.categoriesBefore[category.id] else {
                events.append(.category(.categoryAdded, category))
                continue
            }
            if before.name != category.name {
                events.append(.category(.categoryRenamed, category, oldName: before.name))
            }
            if before.position != category.position { events.append(.category(.categoryMoved, category)) }
        }
        var byType: [(EventType, [Todo])] = [
            (.todoAdded, []), (.todoUpdated, []), (.todoCompleted, []), (.todoReopened, []), (.todoMoved, [])
        ]
        // What a todo is without its place in the order: equal for one that only moved.
        func placeless(_ t: Todo) -> Todo {
            var t = t
            t.position = nil
            t.updated = t.created
            t.revision = 0
            return t
        }
        for todo in r.todos {
            let type: EventType
            if var before = r.todosBefore[todo.id] {
                before.revision = todo.revision // a renumbered order key alone is no event
                guard before != todo else { continue }
                if before.done != todo.done {
                    type = todo.done ? .todoCompleted : .todoReopened
                } else {
                    type = placeless(before) == placeless(todo) ? .todoMoved : .todoUpdated
                }
            } else {
                type = .todoAdded
            }
            if let i = byType.firstIndex(where: { $0.0 == type }) { byType[i].1.append(todo) }
        }
        for (type, todos) in byType where !todos.isEmpty { events.append(.todos(type, todos)) }
        if !r.deletedTodos.isEmpty { events.append(.todos(.todoDeleted, r.deletedTodos)) }
        for category in r.deletedCategories { events.append(.category(.categoryDeleted, category)) }
        return events
    }

    /// `store.history`: the newest changes first.
    private func storeHistory(_ p: StoreHistoryParams, _ tx: StoreTransaction) throws(TodoError) -> Reply<
        [HistoryEntry]
    > {
        let entries = try tx.history(limit: p.limit ?? StoreHistoryParams.defaultLimit)
        return Reply(
            result: entries.map { e in
                HistoryEntry(
                    seq: e.seq, at: e.at, kind: e.kind, description: e.description, canUndo: e.canUndo,
                    canRedo: e.canRedo)
            })
    }

    // MARK: -

    /// `name` when naming it will create a category (it does not exist yet).
    private func newCategory(_ name: String?, _ tx: StoreTransaction) throws(TodoError) -> String? {
        guard let name else { return nil }
        do {
            _ = try tx.category(named: name, field: "category")
            return nil
        } catch  where error.code == .notFound {
            return name
        }
    }

    /// The `category.added` event for a category a todo change created.
    private func categoryEvents(_ created: String?, _ tx: StoreTransaction) throws(TodoError) -> [Event] {
        guard let created else { return [] }
        return [.category(.categoryAdded, try tx.category(named: created))]
    }

    private static func all(inCategory name: String) -> TodoQuery {
        var q = TodoQuery()
        q.status = .all
        q.category = name
        return q
    }
}

/// What a connection holds of a `store.import` sent in parts, and about how much memory it
/// takes (`ExportDocument.estimatedBytes`, the estimate clients cut their parts by).
struct HeldImport {
    var document: ExportDocument
    var bytes: Int
}

/// What `daemon.status` reports beyond the store's counts.
struct StatusSource: Sendable {
    /// The store's id (`daemon.status` `storeId`), read once at start.
    let storeID: String
    let pid: Int32
    let database: String
    let started: Double
    let monotonic: @Sendable () -> Double
    /// Why the database file is no longer the one open (deleted or replaced), or nil.
    let databaseProblem: @Sendable () -> String?

    func uptime() -> Double { (monotonic() - started).rounded(.down) }
}
