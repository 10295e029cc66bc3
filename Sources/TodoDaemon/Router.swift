import TodoCore
import TodoProtocol
import TodoStore

/// Maps each JSON-RPC method to store operations (SPEC §5). Runs on the store queue, inside the
/// transaction the executor opened; returns the result and the `watch` events the change causes.
struct Router {
    /// Whether a method changes the store (and so needs the write transaction and an fsync).
    enum Kind { case read, write }

    /// What one request produced.
    struct Outcome {
        /// The result as JSON text, written once here on the store queue; nil when it went out
        /// through a `ResponseStream`.
        var encodedResult: [UInt8]?
        var events: [Event] = []
        /// For `watch`: the event types the connection subscribes to (nil: all).
        var subscription: Set<String>?? = nil

        init(result: JSON, events: [Event] = [], subscription: Set<String>?? = nil) {
            var bytes: [UInt8] = []
            result.write(to: &bytes)
            self.init(encodedResult: bytes, events: events, subscription: subscription)
        }

        init(encodedResult: [UInt8]?, events: [Event] = [], subscription: Set<String>?? = nil) {
            self.encodedResult = encodedResult
            self.events = events
            self.subscription = subscription
        }
    }

    let status: StatusSource
    let reminders: any ReminderHistoryReading
    /// Called on the store queue between the slices of long work (a large import).
    var progress: @Sendable () -> Void = {}

    /// Whether `method` reads or writes the store; nil for a method todod does not know. A switch
    /// compares a few short strings, cheaper per request than hashing one into a dictionary.
    static func kind(of method: String) -> Kind? {
        switch method {
        case "todo.get", "todo.list", "category.list", "store.export", "daemon.status", "watch", "reminder.list":
            .read
        case "todo.add", "todo.update", "todo.complete", "todo.reopen", "todo.delete", "todo.move", "todo.snooze",
             "category.add", "category.rename", "category.delete", "category.move", "store.import":
            .write
        default:
            nil
        }
    }

    /// Performs `request` in `tx`. Errors are the domain's mapped to wire codes.
    /// `heldImport` is what the connection holds of a `store.import` sent in parts. With a
    /// `stream`, a `todo.list` result is written to it as the todos are read.
    func perform(_ request: RPCRequest, in tx: StoreTransaction, heldImport: inout HeldImport?,
                 stream: ResponseStream? = nil) throws(RPCError) -> Outcome {
        var p = Params(request.params)
        do {
            if request.method == "store.import" { return try importPart(&p, held: &heldImport, tx) }
            if request.method == "todo.list", let stream { return try streamList(&p, stream, tx) }
            return try dispatch(request.method, &p, tx)
        } catch let error as RPCError {
            throw error
        } catch let error as TodoError {
            throw RPCError(error)
        } catch {
            throw RPCError(code: RPCError.internalErrorCode, message: "internal error: \(error)")
        }
    }

    /// Whether `method` reads the journal rather than the store: it runs on the journal-read
    /// queue, off the store queue (see `RequestExecutor`).
    static func readsJournal(_ method: String) -> Bool { method == "reminder.list" }

    /// Performs a `reminder.list` request: reads the journal, not the store.
    func listReminders(_ request: RPCRequest) throws(RPCError) -> Outcome {
        var p = Params(request.params)
        let since = try p.optionalInstant("since")
        let limit = try p.optionalInt("limit", in: 1...10_000) ?? 100
        try p.finish()
        do {
            return Outcome(result: .array(try reminders.list(since: since, limit: Int(limit))))
        } catch {
            throw RPCError(error)
        }
    }

    /// Reads the params (throwing `RPCError`) and calls the store (throwing `TodoError`).
    private func dispatch(_ method: String, _ p: inout Params, _ tx: StoreTransaction) throws -> Outcome {
        switch method {
        case "todo.add":
            let new = NewTodo(
                title: try p.string("title"), notes: try p.optionalString("notes"),
                category: try p.optionalString("category"), due: try p.optionalInstant("due"),
                remind: try p.optionalInstant("remind"), top: try p.flag("top"))
            try p.finish()
            let created = try newCategory(new.category, tx)
            let todo = try tx.add(new)
            return Outcome(encodedResult: todo.encodedJSON, events: try categoryEvents(created, tx) + [Event.todos("todo.added", [todo])])

        case "todo.get":
            let id = try p.int("id", in: 1...Int64.max)
            try p.finish()
            return Outcome(encodedResult: try tx.todo(id).encodedJSON)

        case "todo.list":
            let query = try TodoQuery(params: &p)
            try p.finish()
            return Outcome(encodedResult: try tx.list(query).encoded)

        case "todo.update":
            let id = try p.int("id", in: 1...Int64.max)
            let patch = TodoPatch(
                title: try p.change("title") { $0 }, notes: try p.change("notes") { $0 },
                category: try p.change("category") { $0 },
                due: try p.change("due") { (s) throws(RPCError) in try Params.instantValue(s, "due") },
                remind: try p.change("remind") { (s) throws(RPCError) in try Params.instantValue(s, "remind") })
            try p.finish()
            let before = try tx.todo(id)
            let created: String? = if case .set(let name) = patch.category { try newCategory(name, tx) } else { nil }
            let todo = try tx.update(id, patch)
            return Outcome(encodedResult: todo.encodedJSON,
                           events: try categoryEvents(created, tx) + (todo == before ? [] : [Event.todos("todo.updated", [todo])]))

        case "todo.complete", "todo.reopen", "todo.delete":
            let ids = try p.ids("ids")
            try p.finish()
            let todos: [Todo]
            let changed: [Todo]
            let type: String
            switch method {
            case "todo.complete", "todo.reopen":
                let done = method == "todo.complete"
                let wasDone = Set(try ids.filter { (id) throws in try tx.todo(id).done })
                todos = done ? try tx.complete(ids) : try tx.reopen(ids)
                changed = todos.filter { wasDone.contains($0.id) != done }
                type = done ? "todo.completed" : "todo.reopened"
            default:
                todos = try tx.delete(ids)
                changed = todos
                type = "todo.deleted"
            }
            return Outcome(encodedResult: Todo.encodedJSON(todos), events: changed.isEmpty ? [] : [Event.todos(type, changed)])

        case "todo.move":
            let id = try p.int("id", in: 1...Int64.max)
            let given = ["position", "before", "after"].filter { p.has($0) }
            guard given.count == 1 else {
                throw RPCError(code: RPCError.invalidParamsCode, message: "invalid params: give exactly one of position, before and after",
                               field: given.count == 0 ? "position" : given[1])
            }
            let target: MoveTarget
            switch given[0] {
            case "position": target = .position(Int(try p.int("position", in: 1...Int64(Int32.max))))
            case "before": target = .before(try p.int("before", in: 1...Int64.max))
            default: target = .after(try p.int("after", in: 1...Int64.max))
            }
            try p.finish()
            let before = try tx.todo(id)
            let todo = try tx.move(id, to: target)
            return Outcome(encodedResult: todo.encodedJSON, events: todo.position == before.position ? [] : [Event.todos("todo.moved", [todo])])

        case "todo.snooze":
            let id = try p.int("id", in: 1...Int64.max)
            let until = try p.instant("until")
            try p.finish()
            let todo = try tx.snooze(id, until: until)
            return Outcome(encodedResult: todo.encodedJSON, events: [Event.todos("todo.updated", [todo])])

        case "category.add":
            let name = try p.string("name")
            try p.finish()
            let category = try tx.addCategory(name)
            return Outcome(result: JSON(category), events: [Event.category("category.added", category)])

        case "category.list":
            try p.finish()
            return Outcome(result: .array(try tx.categories().map(JSON.init)))

        case "category.rename":
            let (name, newName) = (try p.string("name"), try p.string("newName"))
            try p.finish()
            let old = try tx.category(named: name)
            let category = try tx.renameCategory(name, to: newName)
            return Outcome(result: JSON(category),
                           events: category.name == old.name ? [] : [Event.category("category.renamed", category, oldName: old.name)])

        case "category.delete":
            let (name, force) = (try p.string("name"), try p.flag("force"))
            try p.finish()
            let old = try tx.category(named: name)
            var unlinked = try tx.list(Self.all(inCategory: old.name)).todos
            let category = try tx.deleteCategory(name, force: force)
            var events = [Event.category("category.deleted", category)]
            if !unlinked.isEmpty {
                unlinked = try unlinked.map { (t) throws(TodoError) in try tx.todo(t.id) }
                events.append(Event.todos("todo.updated", unlinked))
            }
            return Outcome(result: JSON(category), events: events)

        case "category.move":
            let (name, position) = (try p.string("name"), try p.int("position", in: 1...Int64(Int32.max)))
            try p.finish()
            let before = try tx.category(named: name)
            let category = try tx.moveCategory(name, to: Int(position))
            return Outcome(result: JSON(category),
                           events: category.position == before.position ? [] : [Event.category("category.moved", category)])

        case "store.export":
            try p.finish()
            return Outcome(result: JSON(try tx.export()))


        case "daemon.status":
            try p.finish()
            let counts = try tx.counts()
            return Outcome(result: .object([
                "version": .string(TododVersion.string), "storeId": .string(status.storeID), "pid": .int(Int64(status.pid)),
                "uptime": .double(status.uptime()), "database": .string(status.database),
                "open": .int(Int64(counts.open)), "done": .int(Int64(counts.done)),
                "nextReminder": JSON(try tx.nextPendingReminder()),
                "databaseProblem": status.databaseProblem().map(JSON.string) ?? .null,
            ]))

        case "watch":
            let filter = try Self.eventFilter(&p)
            try p.finish()
            return Outcome(result: ["subscribed": true], subscription: .some(filter))

        default:
            throw RPCError.methodNotFound(method)
        }
    }

    /// Todos per piece of a streamed listing.
    static let streamedTodos = 500

    /// `todo.list` written to `stream` while the todos are read.
    private func streamList(_ p: inout Params, _ stream: ResponseStream, _ tx: StoreTransaction) throws -> Outcome {
        let query = try TodoQuery(params: &p)
        try p.finish()
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
            return stream.isOpen  // nobody left to read the rest
        }
        stream.write((head ?? []) + TodoPage.encodedTail)
        return Outcome(encodedResult: nil)
    }

    /// The most todos one import may hold before it is applied.
    static let maxImportTodos = 1_000_000
    /// The most memory the parts of one import may take while held (`HeldImport.size`).
    static let maxImportBytes = 256 << 20

    /// `store.import`, one part of it. A document too long for one line (1 MiB) arrives in parts
    /// on one connection: each but the last says `"more": true` and is only checked and `held`
    /// (nothing is written); the last applies every part in this one transaction. Any error drops
    /// what is held, and so does closing the connection: the import stays all or nothing.
    func importPart(_ p: inout Params, held: inout HeldImport?, _ tx: StoreTransaction) throws -> Outcome {
        let before = held?.document
        let heldBytes = held?.bytes ?? 0
        held = nil
        let more = try p.flag("more")
        var object = p.object
        object["more"] = nil
        p = Params(JSONObject())  // the document is read whole below
        let part = try ExportDocument(json: .object(object), firstTodo: before?.todos.count ?? 0)
        var document = part
        if let before {
            document = ExportDocument(categories: before.categories + part.categories, todos: before.todos + part.todos,
                                      exported: before.exported)
        }
        guard document.todos.count <= Router.maxImportTodos else {
            throw RPCError.invalidParams("todos", "an import holds at most \(Router.maxImportTodos) todos")
        }
        if more {
            let bytes = heldBytes + HeldImport.size(of: part)
            guard bytes <= Router.maxImportBytes else {
                throw RPCError.invalidParams("todos", "an import in parts may hold at most \(Router.maxImportBytes >> 20) MiB; this one holds \(bytes >> 20) MiB")
            }
            held = HeldImport(document: document, bytes: bytes)
            return Outcome(result: ["todos": .int(Int64(document.todos.count)), "categories": .int(Int64(document.categories.count)),
                                    "more": true])
        }
        let counts = try tx.importDocument(document, progress: progress)
        let result: JSON = ["todos": .int(Int64(counts.todos)), "categories": .int(Int64(counts.categories))]
        return Outcome(result: result, events: [.imported(todos: counts.todos, categories: counts.categories)])
    }

    /// `name` when naming it will create a category (it does not exist yet).
    private func newCategory(_ name: String?, _ tx: StoreTransaction) throws -> String? {
        guard let name else { return nil }
        do {
            _ = try tx.category(named: name, field: "category")
            return nil
        } catch where error.code == .notFound {
            return name
        }
    }

    /// The `category.added` event for a category a todo change created.
    private func categoryEvents(_ created: String?, _ tx: StoreTransaction) throws -> [Event] {
        guard let created else { return [] }
        return [Event.category("category.added", try tx.category(named: created))]
    }

    private static func all(inCategory name: String) -> TodoQuery {
        var q = TodoQuery()
        q.status = .all
        q.category = name
        return q
    }

    static func eventFilter(_ p: inout Params) throws(RPCError) -> Set<String>? {
        guard let events = p.raw("events"), events != .null else { return nil }
        guard case .array(let names) = events else { throw RPCError.invalidParams("events", "must be an array of event types") }
        var filter = Set<String>()
        for (i, name) in names.enumerated() {
            guard case .string(let s) = name, Event.types.contains(s) else {
                throw RPCError.invalidParams("events[\(i)]", "must be one of \(Event.types.sorted().joined(separator: ", "))")
            }
            filter.insert(s)
        }
        return filter
    }
}

/// What a connection holds of a `store.import` sent in parts, and about how much memory it takes.
struct HeldImport {
    var document: ExportDocument
    var bytes: Int

    /// About the memory `part` takes once held: its text plus what each todo costs besides.
    static func size(of part: ExportDocument) -> Int {
        var bytes = 0
        for name in part.categories { bytes += name.utf8.count + 32 }
        for todo in part.todos {
            bytes += 160 + todo.title.utf8.count + (todo.notes?.utf8.count ?? 0) + (todo.category?.utf8.count ?? 0)
        }
        return bytes
    }
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
