import TodoCore

/// The params of one method, read by the daemon and written by clients from this one definition.
/// Decoding reports each mistake as a -32602 error naming the field, and refuses any member the
/// method does not take (`Params.finish`). Each also names the method's `Result`, whose one
/// encoder the daemon writes and whose one decoder clients read (Results.swift). Adding a method:
/// a case of `Method`, a type here and its result type.
package protocol MethodParams: Sendable {
    /// What the method answers.
    associatedtype Result: WireCodable
    /// The method these are the params of.
    static var method: Method { get }
    /// Reads the params of a request (daemon side).
    init(decoding object: JSONObject) throws(RPCError)
    /// The params object asking for this (client side); defaults are left out.
    var encoded: JSONObject { get }
}

// MARK: - todo.*

/// `todo.get`.
package struct TodoGetParams: MethodParams, Equatable {
    package static let method = Method.todoGet
    package typealias Result = Todo
    package var id: Int64

    package init(id: Int64) { self.id = id }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        id = try p.int("id", in: 1...Int64.max)
        try p.finish()
    }

    package var encoded: JSONObject { ["id": .int(id)] }
}

/// `todo.add`: the new todo's fields (`noReminder` is not on the wire: a client sends no
/// `remind`, and the reminder defaults to the due time).
package typealias TodoAddParams = NewTodo

extension NewTodo: MethodParams {
    package static let method = Method.todoAdd
    package typealias Result = Todo

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        self.init(title: try p.string(TodoField.title.wireKey))
        // Every field a new todo is given by its key: a new field must say here how it is read.
        for field in TodoField.allCases {
            let key = field.wireKey
            switch field {
            case .title: continue
            case .notes: notes = try p.optionalString(key)
            case .category: category = try p.optionalString(key)
            case .due: due = try p.optionalInstant(key)
            case .remind: remind = try p.optionalInstant(key)
            case .priority: priority = try p.optionalPriority(key)
            case .tags: tags = try p.strings(key)
            case .zone: zone = try p.optionalString(key)
            case .allDay: allDay = try p.flag(key)
            case .recurrence: recurrence = try p.optionalRecurrence(key)
            case .parent: parent = try p.optionalInt(key, in: 1...Int64.max)
            case .start: start = try p.optionalInstant(key)
            case .alarms: alarms = try p.optionalAlarms(key)
            // The store's: a new todo is not given them.
            case .id, .uid, .reminded, .done, .completed, .position, .created, .updated, .revision, .subtasks,
                .parentUid:
                continue
            }
        }
        top = try p.flag("top")
        after = try p.optionalInt("after", in: 1...Int64.max)
        try p.finish()
        if top && after != nil { throw RPCError.invalidParams("after", "cannot be combined with top") }
    }

    package var encoded: JSONObject {
        var p = JSONObject()
        // Every field a new todo is given, by its key (absent when it has none).
        for field in TodoField.allCases {
            let key = field.wireKey
            switch field {
            case .title: p[key] = .string(title)
            case .notes: p[key] = notes.map(JSON.string)
            case .category: p[key] = category.map(JSON.string)
            case .due: p[key] = due.map(JSON.instant)
            case .remind: p[key] = remind.map(JSON.instant)
            case .priority: p[key] = priority.map { JSON($0) }
            case .tags: if !tags.isEmpty { p[key] = JSON(tags) }
            case .zone: p[key] = zone.map(JSON.string)
            case .allDay: if allDay { p[key] = .bool(true) }
            case .recurrence: p[key] = recurrence.map { JSON($0) }
            case .parent: p[key] = parent.map(JSON.int)
            case .start: p[key] = start.map(JSON.instant)
            case .alarms: p[key] = alarms.map { JSON(alarms: $0) }
            case .id, .uid, .reminded, .done, .completed, .position, .created, .updated, .revision, .subtasks,
                .parentUid:
                continue
            }
        }
        if top { p["top"] = .bool(true) }
        if let after { p["after"] = .int(after) }
        return p
    }
}

/// `todo.list`: the query (QueryCodec.swift reads and writes its members).
package typealias TodoListParams = TodoQuery

extension TodoQuery: MethodParams {
    package static let method = Method.todoList
    package typealias Result = TodoPage

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        try self.init(params: &p)
        try p.finish()
    }

    package var encoded: JSONObject { params }
}

/// `todo.update`: absent keeps a field, null clears it, a value sets it. `addTags` and
/// `removeTags` change the tag set atomically (applied after `tags`).
package struct TodoUpdateParams: MethodParams, Equatable {
    package static let method = Method.todoUpdate
    package typealias Result = Todo
    package var id: Int64
    package var patch: TodoPatch
    /// Refuse the update (-32002) unless the todo's `revision` is still this.
    package var ifRevision: Int64?

    package init(id: Int64, patch: TodoPatch, ifRevision: Int64? = nil) {
        self.id = id
        self.patch = patch
        self.ifRevision = ifRevision
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        id = try p.int("id", in: 1...Int64.max)
        patch = TodoPatch()
        // Every field an update may change, by its key: a new field must say here how it is read.
        for field in TodoField.allCases {
            let key = field.wireKey
            func instant(_ text: String) throws(RPCError) -> Instant { try Params.instantValue(text, key) }
            switch field {
            case .title: patch.title = try p.change(key) { $0 }
            case .notes: patch.notes = try p.change(key) { $0 }
            case .category: patch.category = try p.change(key) { $0 }
            case .due: patch.due = try p.change(key, instant)
            case .remind: patch.remind = try p.change(key, instant)
            case .priority: patch.priority = try p.priorityChange(key)
            case .tags:
                patch.tags = try p.stringsChange(key)
                patch.addTags = try p.strings("addTags")
                patch.removeTags = try p.strings("removeTags")
            case .zone: patch.zone = try p.change(key) { $0 }
            case .allDay: patch.allDay = try p.optionalFlag(key)
            case .recurrence: patch.recurrence = try p.recurrenceChange(key)
            case .parent: patch.parent = try p.idChange(key)
            case .start: patch.start = try p.change(key, instant)
            case .alarms: patch.alarms = try p.alarmsChange(key)
            // The store's: an update does not change them.
            case .id, .uid, .reminded, .done, .completed, .position, .created, .updated, .revision, .subtasks,
                .parentUid:
                continue
            }
        }
        ifRevision = try p.optionalInt("ifRevision", in: 1...Int64.max)
        try p.finish()
    }

    package var encoded: JSONObject {
        var p: JSONObject = ["id": .int(id)]
        if let ifRevision { p["ifRevision"] = .int(ifRevision) }
        // Every field an update may change, by its key: absent to keep, null to clear.
        for field in TodoField.allCases {
            let key = field.wireKey
            switch field {
            case .title: p[key] = Self.encode(patch.title) { .string($0) }
            case .notes: p[key] = Self.encode(patch.notes) { .string($0) }
            case .category: p[key] = Self.encode(patch.category) { .string($0) }
            case .due: p[key] = Self.encode(patch.due) { .instant($0) }
            case .remind: p[key] = Self.encode(patch.remind) { .instant($0) }
            case .priority: p[key] = Self.encode(patch.priority) { JSON($0) }
            case .tags:
                p[key] = Self.encode(patch.tags) { JSON($0) }
                if !patch.addTags.isEmpty { p["addTags"] = JSON(patch.addTags) }
                if !patch.removeTags.isEmpty { p["removeTags"] = JSON(patch.removeTags) }
            case .zone: p[key] = Self.encode(patch.zone) { .string($0) }
            case .allDay: p[key] = patch.allDay.map(JSON.bool)
            case .recurrence: p[key] = Self.encode(patch.recurrence) { JSON($0) }
            case .parent: p[key] = Self.encode(patch.parent) { .int($0) }
            case .start: p[key] = Self.encode(patch.start) { .instant($0) }
            case .alarms: p[key] = Self.encode(patch.alarms) { JSON(alarms: $0) }
            case .id, .uid, .reminded, .done, .completed, .position, .created, .updated, .revision, .subtasks,
                .parentUid:
                continue
            }
        }
        return p
    }

    /// An update field's JSON: absent to keep, null to clear.
    private static func encode<T>(_ change: FieldChange<T>, _ value: (T) -> JSON) -> JSON? {
        switch change {
        case .keep: nil
        case .clear: .null
        case .set(let v): value(v)
        }
    }
}

/// The params of `todo.complete`, `todo.reopen` and `todo.delete`: the todos, by id.
package protocol TodoIDsParams: MethodParams where Result == [Todo] {
    var ids: [Int64] { get }
    init(ids: [Int64])
}

extension TodoIDsParams {
    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        let ids = try p.ids("ids")
        try p.finish()
        self.init(ids: ids)
    }

    package var encoded: JSONObject { ["ids": .array(ids.map { .int($0) })] }
}

/// `todo.complete`: a recurring todo advances to its next occurrence unless `stop` ends it.
package struct TodoCompleteParams: TodoIDsParams, Equatable {
    package static let method = Method.todoComplete
    package typealias Result = [Todo]
    package var ids: [Int64]
    /// Ends recurring todos for good instead of advancing them.
    package var stop: Bool

    package init(ids: [Int64]) { self.init(ids: ids, stop: false) }

    package init(ids: [Int64], stop: Bool) {
        self.ids = ids
        self.stop = stop
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        ids = try p.ids("ids")
        stop = try p.flag("stop")
        try p.finish()
    }

    package var encoded: JSONObject {
        var p: JSONObject = ["ids": .array(ids.map { .int($0) })]
        if stop { p["stop"] = .bool(true) }
        return p
    }
}

/// `todo.reopen`.
package struct TodoReopenParams: TodoIDsParams, Equatable {
    package static let method = Method.todoReopen
    package typealias Result = [Todo]
    package var ids: [Int64]
    package init(ids: [Int64]) { self.ids = ids }
}

/// `todo.delete`: a todo with subtasks is deleted only with `recursive` (its subtasks with it).
package struct TodoDeleteParams: TodoIDsParams, Equatable {
    package static let method = Method.todoDelete
    package typealias Result = [Todo]
    package var ids: [Int64]
    package var recursive: Bool
    package init(ids: [Int64]) { self.init(ids: ids, recursive: false) }

    package init(ids: [Int64], recursive: Bool) {
        self.ids = ids
        self.recursive = recursive
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        ids = try p.ids("ids")
        recursive = try p.flag("recursive")
        try p.finish()
    }

    package var encoded: JSONObject {
        var p: JSONObject = ["ids": .array(ids.map { .int($0) })]
        if recursive { p["recursive"] = .bool(true) }
        return p
    }
}

/// `todo.move`: exactly one of `position`, `before` and `after`.
package struct TodoMoveParams: MethodParams, Equatable {
    package static let method = Method.todoMove
    package typealias Result = Todo
    package var id: Int64
    package var target: MoveTarget

    package init(id: Int64, target: MoveTarget) {
        self.id = id
        self.target = target
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        id = try p.int("id", in: 1...Int64.max)
        let given = ["position", "before", "after"].filter { p.has($0) }
        guard given.count == 1 else {
            throw RPCError(
                code: RPCError.invalidParamsCode,
                message: "invalid params: give exactly one of position, before and after",
                field: given.count == 0 ? "position" : given[1])
        }
        switch given[0] {
        case "position": target = .position(Int(try p.int("position", in: 1...Int64(Int32.max))))
        case "before": target = .before(try p.int("before", in: 1...Int64.max))
        default: target = .after(try p.int("after", in: 1...Int64.max))
        }
        try p.finish()
    }

    package var encoded: JSONObject {
        var p: JSONObject = ["id": .int(id)]
        switch target {
        case .position(let n): p["position"] = .int(Int64(n))
        case .before(let other): p["before"] = .int(other)
        case .after(let other): p["after"] = .int(other)
        }
        return p
    }
}

/// `todo.snooze`.
package struct TodoSnoozeParams: MethodParams, Equatable {
    package static let method = Method.todoSnooze
    package typealias Result = Todo
    package var id: Int64
    package var until: Instant

    package init(id: Int64, until: Instant) {
        self.id = id
        self.until = until
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        id = try p.int("id", in: 1...Int64.max)
        until = try p.instant("until")
        try p.finish()
    }

    package var encoded: JSONObject { ["id": .int(id), "until": .instant(until)] }
}

/// `todo.alarm.ack`: acknowledges (dismisses) one alarm of a todo, named by its uid, or
/// without one every alarm of it that has fired and was not acknowledged since.
package struct TodoAlarmAckParams: MethodParams, Equatable {
    package static let method = Method.todoAlarmAck
    package typealias Result = Todo
    package var id: Int64
    /// The alarm's uid; nil: every alarm that has fired and was not acknowledged.
    package var alarm: String?

    package init(id: Int64, alarm: String?) {
        self.id = id
        self.alarm = alarm
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        id = try p.int("id", in: 1...Int64.max)
        alarm = try p.optionalString("alarm")
        guard alarm?.isEmpty != true else { throw RPCError.invalidParams("alarm", "must not be empty") }
        try p.finish()
    }

    package var encoded: JSONObject {
        var p: JSONObject = ["id": .int(id)]
        if let alarm { p["alarm"] = .string(alarm) }
        return p
    }
}

/// `todo.batch`: several changes of todos made as one request: all of them or none, in one
/// transaction, logged as one change (one `store.undo` reverts all of it). Each op is the
/// method and params of a `todo.update`, `todo.complete`, `todo.reopen`, `todo.delete`,
/// `todo.move`, `todo.snooze` or `todo.alarm.ack`, applied in order.
package struct TodoBatchParams: MethodParams, Equatable {
    package static let method = Method.todoBatch
    package typealias Result = [Todo]

    /// One change of the batch.
    package enum Op: Equatable, Sendable {
        case update(TodoUpdateParams)
        case complete(TodoCompleteParams)
        case reopen(TodoReopenParams)
        case delete(TodoDeleteParams)
        case move(TodoMoveParams)
        case snooze(TodoSnoozeParams)
        case alarmAck(TodoAlarmAckParams)

        /// The op's method.
        package var method: Method {
            switch self {
            case .update: TodoUpdateParams.method
            case .complete: TodoCompleteParams.method
            case .reopen: TodoReopenParams.method
            case .delete: TodoDeleteParams.method
            case .move: TodoMoveParams.method
            case .snooze: TodoSnoozeParams.method
            case .alarmAck: TodoAlarmAckParams.method
            }
        }

        /// The op's params object.
        package var params: JSONObject {
            switch self {
            case .update(let p): p.encoded
            case .complete(let p): p.encoded
            case .reopen(let p): p.encoded
            case .delete(let p): p.encoded
            case .move(let p): p.encoded
            case .snooze(let p): p.encoded
            case .alarmAck(let p): p.encoded
            }
        }

        /// The methods an op may be.
        package static let methods: [Method] = [
            .todoUpdate, .todoComplete, .todoReopen, .todoDelete, .todoMove, .todoSnooze, .todoAlarmAck
        ]
    }

    /// The most ops one batch takes.
    package static let maxOps = 10_000

    package var ops: [Op]

    package init(ops: [Op]) { self.ops = ops }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        guard case .array(let items)? = p.raw("ops") else {
            throw RPCError.invalidParams("ops", "must be an array of {method, params}")
        }
        guard !items.isEmpty, items.count <= Self.maxOps else {
            throw RPCError.invalidParams("ops", "must hold 1 to \(Self.maxOps) ops")
        }
        ops = []
        ops.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else {
                throw RPCError.invalidParams("ops[\(i)]", "must be an object {method, params}")
            }
            var q = Params(o)
            let name = try q.string("method")
            let params: JSONObject
            switch q.raw("params") {
            case nil, .null?: params = [:]
            case .object(let given)?: params = given
            default: throw RPCError.invalidParams("ops[\(i)].params", "must be an object")
            }
            try q.finish()
            do throws(RPCError) {
                switch Method(name: name) {
                case .todoUpdate?: ops.append(.update(try TodoUpdateParams(decoding: params)))
                case .todoComplete?: ops.append(.complete(try TodoCompleteParams(decoding: params)))
                case .todoReopen?: ops.append(.reopen(try TodoReopenParams(decoding: params)))
                case .todoDelete?: ops.append(.delete(try TodoDeleteParams(decoding: params)))
                case .todoMove?: ops.append(.move(try TodoMoveParams(decoding: params)))
                case .todoSnooze?: ops.append(.snooze(try TodoSnoozeParams(decoding: params)))
                case .todoAlarmAck?: ops.append(.alarmAck(try TodoAlarmAckParams(decoding: params)))
                default:
                    throw RPCError.invalidParams(
                        "ops[\(i)].method", "must be one of \(Op.methods.map(\.name).joined(separator: ", "))")
                }
            } catch {
                guard error.field?.hasPrefix("ops[") == false else { throw error }
                throw error.nested(under: "ops[\(i)].params.")
            }
        }
        try p.finish()
    }

    package var encoded: JSONObject {
        ["ops": .array(ops.map { op in .object(["method": .string(op.method.name), "params": .object(op.params)]) })]
    }
}

// MARK: - category.*

/// `category.list`: no params.
package struct CategoryListParams: NoParams {
    package static let method = Method.categoryList
    package typealias Result = [Category]
    package init() {}
}

/// `category.add`.
package struct CategoryAddParams: MethodParams, Equatable {
    package static let method = Method.categoryAdd
    package typealias Result = Category
    package var name: String

    package init(name: String) { self.name = name }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        name = try p.string("name")
        try p.finish()
    }

    package var encoded: JSONObject { ["name": .string(name)] }
}

/// `category.rename`.
package struct CategoryRenameParams: MethodParams, Equatable {
    package static let method = Method.categoryRename
    package typealias Result = Category
    package var name: String
    package var newName: String

    package init(name: String, newName: String) {
        self.name = name
        self.newName = newName
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        name = try p.string("name")
        newName = try p.string("newName")
        try p.finish()
    }

    package var encoded: JSONObject { ["name": .string(name), "newName": .string(newName)] }
}

/// `category.delete`; `force` unlinks the category's todos instead of refusing.
package struct CategoryDeleteParams: MethodParams, Equatable {
    package static let method = Method.categoryDelete
    package typealias Result = Category
    package var name: String
    package var force: Bool

    package init(name: String, force: Bool = false) {
        self.name = name
        self.force = force
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        name = try p.string("name")
        force = try p.flag("force")
        try p.finish()
    }

    package var encoded: JSONObject { ["name": .string(name), "force": .bool(force)] }
}

/// `category.move`.
package struct CategoryMoveParams: MethodParams, Equatable {
    package static let method = Method.categoryMove
    package typealias Result = Category
    package var name: String
    package var position: Int64

    package init(name: String, position: Int64) {
        self.name = name
        self.position = position
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        name = try p.string("name")
        position = try p.int("position", in: 1...Int64(Int32.max))
        try p.finish()
    }

    package var encoded: JSONObject { ["name": .string(name), "position": .int(position)] }
}

// MARK: - reminder.*, daemon.*, watch

/// `reminder.list`: the fired reminders, oldest first, at most `limit` of the latest.
package struct ReminderListParams: MethodParams, Equatable {
    package static let method = Method.reminderList
    package typealias Result = [ReminderRecord]
    /// The limit when none is given, and the largest one.
    package static let defaultLimit = 100
    package static let maxLimit = 10_000
    package var since: Instant?
    package var limit: Int?

    package init(since: Instant? = nil, limit: Int? = nil) {
        self.since = since
        self.limit = limit
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        since = try p.optionalInstant("since")
        limit = try p.optionalInt("limit", in: 1...Int64(Self.maxLimit)).map(Int.init)
        try p.finish()
    }

    package var encoded: JSONObject {
        var p = JSONObject()
        if let since { p["since"] = .instant(since) }
        if let limit { p["limit"] = .int(Int64(limit)) }
        return p
    }
}

/// `daemon.status`: no params.
package struct DaemonStatusParams: NoParams {
    package static let method = Method.daemonStatus
    package typealias Result = DaemonStatus
    package init() {}
}

/// `watch`: the event types to receive (nil for all of them), and `since`, a seq: the events of
/// the changes after it are replayed before the live ones.
package struct WatchParams: MethodParams, Equatable {
    package static let method = Method.watch
    package typealias Result = WatchAnswer
    package var events: Set<EventType>?
    package var since: Int64?

    package init(events: Set<EventType>? = nil, since: Int64? = nil) {
        self.events = events
        self.since = since
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        since = try p.optionalInt("since", in: 0...Int64.max)
        events = nil
        if let value = p.raw("events"), value != .null {
            guard case .array(let names) = value else {
                throw RPCError.invalidParams("events", "must be an array of event types")
            }
            var types = Set<EventType>()
            for (i, name) in names.enumerated() {
                guard case .string(let s) = name, let type = EventType(rawValue: s) else {
                    throw RPCError.invalidParams(
                        "events[\(i)]",
                        "must be one of \(EventType.allCases.map(\.name).sorted().joined(separator: ", "))")
                }
                types.insert(type)
            }
            events = types
        }
        try p.finish()
    }

    package var encoded: JSONObject {
        var p = JSONObject()
        if let events { p["events"] = .array(events.map(\.name).sorted().map(JSON.string)) }
        if let since { p["since"] = .int(since) }
        return p
    }
}

// MARK: - store.*

/// `store.export`: no params.
package struct StoreExportParams: NoParams {
    package static let method = Method.storeExport
    package typealias Result = ExportDocument
    package init() {}
}

/// `store.undo` and `store.redo`: how many changes to revert or apply again (default 1).
package struct StoreUndoParams: MethodParams, Equatable {
    package static let method = Method.storeUndo
    package typealias Result = ReversalResult
    package static let maxSteps = 10_000
    package var steps: Int

    package init(steps: Int = 1) { self.steps = steps }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        steps = try p.optionalInt("steps", in: 1...Int64(Self.maxSteps)).map(Int.init) ?? 1
        try p.finish()
    }

    package var encoded: JSONObject { steps == 1 ? [:] : ["steps": .int(Int64(steps))] }
}

/// `store.redo`: as `store.undo`.
package struct StoreRedoParams: MethodParams, Equatable {
    package static let method = Method.storeRedo
    package typealias Result = ReversalResult
    package var steps: Int

    package init(steps: Int = 1) { self.steps = steps }

    package init(decoding object: JSONObject) throws(RPCError) {
        steps = try StoreUndoParams(decoding: object).steps
    }

    package var encoded: JSONObject { StoreUndoParams(steps: steps).encoded }
}

/// `store.history`: the newest changes first, at most `limit` (default 20).
package struct StoreHistoryParams: MethodParams, Equatable {
    package static let method = Method.storeHistory
    package typealias Result = [HistoryEntry]
    package static let defaultLimit = 20
    package static let maxLimit = 10_000
    package var limit: Int?

    package init(limit: Int? = nil) { self.limit = limit }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        limit = try p.optionalInt("limit", in: 1...Int64(Self.maxLimit)).map(Int.init)
        try p.finish()
    }

    package var encoded: JSONObject {
        var p = JSONObject()
        if let limit { p["limit"] = .int(Int64(limit)) }
        return p
    }
}

/// `store.import`, one part of it: an export document (read whole by `ExportDocument(json:)`),
/// and `more` on every part but the last of a document too long for one line.
package struct StoreImportParams: MethodParams, Equatable {
    package static let method = Method.storeImport
    package typealias Result = ImportResult
    /// The document's members, `more` left out: checked when read as an `ExportDocument`.
    package var document: JSONObject
    package var more: Bool
    /// What the change is called in `undo --list` instead of `import` (`sync home`): at most
    /// 100 characters, one line.
    package var label: String?

    package init(document: JSONObject, more: Bool = false, label: String? = nil) {
        self.document = document
        self.more = more
        self.label = label
        self.document["more"] = nil
        self.document["label"] = nil
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        more = try p.flag("more")
        label = try p.optionalString("label")
        if let label,
            label.isEmpty || label.count > 100
                || label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw RPCError.invalidParams("label", "must be 1 to 100 characters on one line")
        }
        document = object
        document["more"] = nil
        document["label"] = nil
    }

    /// The document of this part; errors name todos counting from `firstTodo`.
    package func read(firstTodo: Int = 0) throws(RPCError) -> ExportDocument {
        try ExportDocument(json: .object(document), firstTodo: firstTodo)
    }

    package var encoded: JSONObject {
        var p = document
        if more { p["more"] = true }
        if let label { p["label"] = .string(label) }
        return p
    }
}

/// `store.changes`: the current state of every todo changed after the seq `since`, oldest
/// change first, at most `limit` of them (`more` says whether others follow).
package struct StoreChangesParams: MethodParams, Equatable {
    package static let method = Method.storeChanges
    package typealias Result = ChangesPage
    /// The limit when none is given, and the largest one.
    package static let defaultLimit = 1000
    package static let maxLimit = 10_000
    package var since: Int64
    package var limit: Int?

    package init(since: Int64, limit: Int? = nil) {
        self.since = since
        self.limit = limit
    }

    package init(decoding object: JSONObject) throws(RPCError) {
        var p = Params(object)
        since = try p.int("since", in: 0...Int64.max)
        limit = try p.optionalInt("limit", in: 1...Int64(Self.maxLimit)).map(Int.init)
        try p.finish()
    }

    package var encoded: JSONObject {
        var p: JSONObject = ["since": .int(since)]
        if let limit { p["limit"] = .int(Int64(limit)) }
        return p
    }
}

// MARK: -

/// The params of a method that takes none: any member is refused.
package protocol NoParams: MethodParams, Equatable {
    init()
}

extension NoParams {
    package init(decoding object: JSONObject) throws(RPCError) {
        self.init()
        try Params(object).finish()
    }

    package var encoded: JSONObject { JSONObject() }
}

extension JSON {
    /// An instant a client sends: RFC 3339 UTC to the second, as typed times are.
    static func instant(_ instant: Instant) -> JSON { .string(instant.rfc3339()) }
}
