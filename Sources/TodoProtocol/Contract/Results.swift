import TodoCore

/// A method's result (or a part of one) with its one encoder and its one decoder: todod writes it
/// with `write(wire:)`, clients read it back with `init(wire:)`. Each `MethodParams` names its
/// `Result`, so a method's two sides cannot drift apart (docs/PROTOCOL.md has the shapes).
package protocol WireCodable: Sendable {
    /// Reads the value a daemon sent (client side); a malformed one is a one-line error.
    init(wire: JSON) throws(DecodingError)
    /// Appends the value's JSON text (daemon side).
    func write(wire out: inout [UInt8])
    /// The value's JSON text (daemon side).
    var wireBytes: [UInt8] { get }
}

extension WireCodable {
    /// The value's JSON text, appended to an empty array.
    package var wireBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024) // a todo is about 500 bytes: no regrowing on the way there
        write(wire: &bytes)
        return bytes
    }
}

/// Reads the members of a result object, each failure a `DecodingError` naming the member and
/// what holds it. Absent and null read the same for the optional ones.
struct WireFields {
    let object: JSONObject
    let what: String

    init(_ json: JSON, _ what: String) throws(DecodingError) {
        guard case .object(let o) = json else { throw DecodingError("\(what) is not an object but \(json.typeName)") }
        object = o
        self.what = what
    }

    private func bad(_ key: String, _ expected: String) -> DecodingError {
        DecodingError("\(what).\(key) is not \(expected)")
    }

    func int(_ key: String) throws(DecodingError) -> Int64 {
        guard let value = try optionalInt(key) else { throw bad(key, "an integer") }
        return value
    }

    /// An integer (a whole double is accepted, as older daemons wrote some counts that way).
    func optionalInt(_ key: String) throws(DecodingError) -> Int64? {
        switch object[key] {
        case nil, .null?: return nil
        case .int(let i)?: return i
        case .double(let d)? where d.isFinite && d == d.rounded() && abs(d) < 9e15: return Int64(d)
        default: throw bad(key, "an integer")
        }
    }

    /// A count (an integer that fits in `Int` and is not negative).
    func count(_ key: String) throws(DecodingError) -> Int {
        guard let value = try optionalCount(key) else { throw bad(key, "a count") }
        return value
    }

    func optionalCount(_ key: String) throws(DecodingError) -> Int? {
        guard let i = try optionalInt(key) else { return nil }
        guard i >= 0, let n = Int(exactly: i) else { throw bad(key, "a count") }
        return n
    }

    func optionalDouble(_ key: String) throws(DecodingError) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case .int(let i)?: return Double(i)
        case .double(let d)? where d.isFinite: return d
        default: throw bad(key, "a number")
        }
    }

    func string(_ key: String) throws(DecodingError) -> String {
        guard let value = try optionalString(key) else { throw bad(key, "a string") }
        return value
    }

    func optionalString(_ key: String) throws(DecodingError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw bad(key, "a string")
        }
    }

    func bool(_ key: String, default fallback: Bool) throws(DecodingError) -> Bool {
        switch object[key] {
        case nil, .null?: return fallback
        case .bool(let b)?: return b
        default: throw bad(key, "a boolean")
        }
    }

    func instant(_ key: String) throws(DecodingError) -> Instant {
        guard let value = try optionalInstant(key) else { throw bad(key, "an RFC 3339 instant") }
        return value
    }

    func optionalInstant(_ key: String) throws(DecodingError) -> Instant? {
        guard let text = try optionalString(key) else { return nil }
        guard let instant = Instant(rfc3339: text) else { throw bad(key, "an RFC 3339 instant") }
        return instant
    }

    /// A member of a wire type (`Todo`, `Category`, an array of them, ...).
    func value<T: WireCodable>(_ key: String, _: T.Type = T.self) throws(DecodingError) -> T {
        guard let json = object[key] else { throw DecodingError("\(what) has no \(key)") }
        do { return try T(wire: json) } catch { throw DecodingError("\(what).\(key): \(error.description)") }
    }

    func optionalValue<T: WireCodable>(_ key: String, _: T.Type = T.self) throws(DecodingError) -> T? {
        guard let json = object[key], json != .null else { return nil }
        do { return try T(wire: json) } catch { throw DecodingError("\(what).\(key): \(error.description)") }
    }
}

// MARK: - Values

extension Todo: WireCodable {
    package init(wire: JSON) throws(DecodingError) { try self.init(json: wire) }
    package func write(wire out: inout [UInt8]) { writeJSON(to: &out) }
    package var wireBytes: [UInt8] { encodedJSON }
}

extension Category: WireCodable {
    package init(wire: JSON) throws(DecodingError) { try self.init(json: wire) }
    package func write(wire out: inout [UInt8]) { JSON(self).write(to: &out) }
}

extension Array: WireCodable where Element: WireCodable {
    package init(wire: JSON) throws(DecodingError) {
        guard case .array(let items) = wire else { throw DecodingError("expected an array, not \(wire.typeName)") }
        var values: [Element] = []
        values.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            do { values.append(try Element(wire: item)) } catch { throw DecodingError("[\(i)]: \(error.description)") }
        }
        self = values
    }

    package func write(wire out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, value) in enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            value.write(wire: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}

extension String: WireCodable {
    package init(wire: JSON) throws(DecodingError) {
        guard case .string(let s) = wire else { throw DecodingError("expected a string, not \(wire.typeName)") }
        self = s
    }

    package func write(wire out: inout [UInt8]) { JSON.writeString(self, to: &out) }
}

extension Int64: WireCodable {
    package init(wire: JSON) throws(DecodingError) {
        guard case .int(let i) = wire else { throw DecodingError("expected an integer, not \(wire.typeName)") }
        self = i
    }

    package func write(wire out: inout [UInt8]) { JSON.int(self).write(to: &out) }
}

extension ChangeKind: WireCodable {
    /// An unknown kind is an error: todod and its clients ship together, and a client that
    /// guessed would misread the change (`move` decides how sync orders a todo).
    package init(wire: JSON) throws(DecodingError) {
        guard case .string(let s) = wire else {
            throw DecodingError("a change kind must be a string, not \(wire.typeName)")
        }
        guard let kind = ChangeKind(rawValue: s) else { throw DecodingError("unknown change kind \"\(s.prefix(40))\"") }
        self = kind
    }

    package func write(wire out: inout [UInt8]) { JSON.writeString(rawValue, to: &out) }
}

// MARK: - todo.list

extension TodoPage: WireCodable {
    package init(wire: JSON) throws(DecodingError) {
        let f = try WireFields(wire, "todo.list result")
        self.init(todos: try f.value("todos"), total: try f.count("total"), offset: try f.optionalCount("offset"))
    }

    package func write(wire out: inout [UInt8]) { out.append(contentsOf: encoded) }
}

// MARK: - reminder.list

/// One fired reminder of `reminder.list`, as the journal recorded it: every member but `fired`
/// and `allDay` may be null (an entry written by an older todod lacks some). `due` is the text
/// the journal holds, passed on as it is.
package struct ReminderRecord: WireCodable, Equatable {
    package var id: Int64?
    package var uid: String?
    package var title: String?
    package var category: String?
    package var due: String?
    package var remind: Instant?
    package var fired: Instant?
    package var lateUsec: Int64?
    package var allDay: Bool
    package var zone: String?

    package init(
        id: Int64?, uid: String?, title: String?, category: String?, due: String?, remind: Instant?,
        fired: Instant?, lateUsec: Int64?, allDay: Bool, zone: String?
    ) {
        self.id = id
        self.uid = uid
        self.title = title
        self.category = category
        self.due = due
        self.remind = remind
        self.fired = fired
        self.lateUsec = lateUsec
        self.allDay = allDay
        self.zone = zone
    }

    package init(wire: JSON) throws(DecodingError) {
        let f = try WireFields(wire, "reminder")
        self.init(
            id: try f.optionalInt("id"), uid: try f.optionalString("uid"), title: try f.optionalString("title"),
            category: try f.optionalString("category"), due: try f.optionalString("due"),
            remind: try? f.optionalInstant("remind"), fired: try? f.optionalInstant("fired"),
            lateUsec: try f.optionalInt("lateUsec"), allDay: try f.bool("allDay", default: false),
            zone: try f.optionalString("zone"))
    }

    package func write(wire out: inout [UInt8]) {
        JSON.object([
            "id": id.map(JSON.int) ?? .null, "uid": JSON(uid), "title": JSON(title), "category": JSON(category),
            "due": JSON(due), "remind": JSON(remind), "fired": JSON(fired), "lateUsec": lateUsec.map(JSON.int) ?? .null,
            "allDay": .bool(allDay), "zone": JSON(zone)
        ]).write(to: &out)
    }
}

// MARK: - daemon.status

/// `daemon.status`. todod sends every member; a client reads the ones an older todod did not
/// send as nil (`version` as "?").
package struct DaemonStatus: WireCodable, Equatable {
    package var version: String
    package var storeID: String?
    package var pid: Int64?
    /// Seconds since todod started.
    package var uptime: Double?
    package var database: String?
    package var open: Int64?
    package var done: Int64?
    package var nextReminder: Instant?
    /// The newest change's seq.
    package var seq: Int64?
    /// Why the database file is no longer the one open, or nil.
    package var databaseProblem: String?

    package init(
        version: String, storeID: String?, pid: Int64?, uptime: Double?, database: String?, open: Int64?,
        done: Int64?, nextReminder: Instant?, seq: Int64?, databaseProblem: String?
    ) {
        self.version = version
        self.storeID = storeID
        self.pid = pid
        self.uptime = uptime
        self.database = database
        self.open = open
        self.done = done
        self.nextReminder = nextReminder
        self.seq = seq
        self.databaseProblem = databaseProblem
    }

    package init(wire: JSON) throws(DecodingError) {
        let f = try WireFields(wire, "daemon.status result")
        self.init(
            version: try f.optionalString("version") ?? "?", storeID: try f.optionalString("storeId"),
            pid: try f.optionalInt("pid"), uptime: try f.optionalDouble("uptime"),
            database: try f.optionalString("database"),
            open: try f.optionalInt("open"), done: try f.optionalInt("done"),
            nextReminder: try f.optionalInstant("nextReminder"), seq: try f.optionalInt("seq"),
            databaseProblem: try f.optionalString("databaseProblem"))
    }

    package func write(wire out: inout [UInt8]) {
        JSON.object([
            "version": .string(version), "storeId": JSON(storeID), "pid": pid.map(JSON.int) ?? .null,
            "uptime": uptime.map(JSON.double) ?? .null, "database": JSON(database),
            "open": open.map(JSON.int) ?? .null, "done": done.map(JSON.int) ?? .null,
            "nextReminder": JSON(nextReminder), "seq": seq.map(JSON.int) ?? .null,
            "databaseProblem": JSON(databaseProblem)
        ]).write(to: &out)
    }
}

// MARK: - watch

/// The answer to `watch`: `{"subscribed": true}`; the events follow as notifications.
package struct WatchAnswer: WireCodable, Equatable {
    package var subscribed: Bool

    package init(subscribed: Bool = true) { self.subscribed = subscribed }

    package init(wire: JSON) throws(DecodingError) {
        subscribed = try WireFields(wire, "watch result").bool("subscribed", default: false)
    }

    package func write(wire out: inout [UInt8]) { JSON.object(["subscribed": .bool(subscribed)]).write(to: &out) }
}

// MARK: - store.*

extension ExportDocument: WireCodable {
    package init(wire: JSON) throws(DecodingError) {
        do { try self.init(json: wire) } catch { throw DecodingError("store.export result: \(error.message)") }
    }

    package func write(wire out: inout [UInt8]) { JSON(self).write(to: &out) }
}

/// `store.import`: for a part with `more`, what is held so far (`todos`, `categories`,
/// `more: true`); for the last part, what the import did. `deleted` and `stale` are sent only
/// when entries carried `ifRevision`.
package struct ImportResult: WireCodable, Equatable {
    package var todos: Int
    package var categories: Int
    /// A part was held; nothing is written until the last one.
    package var more: Bool
    package var added: Int
    package var updated: Int
    package var unchanged: Int
    package var deleted: Int?
    package var stale: [String]?

    /// The answer to a part that is held.
    package init(heldTodos todos: Int, categories: Int) {
        self.todos = todos
        self.categories = categories
        more = true
        added = 0
        updated = 0
        unchanged = 0
    }

    /// The answer to the last part.
    package init(_ counts: ImportCounts) {
        todos = counts.todos
        categories = counts.categories
        more = false
        added = counts.added
        updated = counts.updated
        unchanged = counts.unchanged
        if counts.conditional {
            deleted = counts.deleted
            stale = counts.stale
        }
    }

    /// Counts an older todod did not send read as: every todo added (none for a held part), none
    /// updated or unchanged.
    package init(wire: JSON) throws(DecodingError) {
        let f = try WireFields(wire, "store.import result")
        todos = try f.optionalCount("todos") ?? 0
        categories = try f.optionalCount("categories") ?? 0
        more = try f.bool("more", default: false)
        added = try f.optionalCount("added") ?? (more ? 0 : todos)
        updated = try f.optionalCount("updated") ?? 0
        unchanged = try f.optionalCount("unchanged") ?? 0
        deleted = try f.optionalCount("deleted")
        stale = try f.optionalValue("stale")
    }

    package func write(wire out: inout [UInt8]) {
        var o: JSONObject = ["todos": .int(Int64(todos)), "categories": .int(Int64(categories))]
        if more {
            o["more"] = true
        } else {
            o["added"] = .int(Int64(added))
            o["updated"] = .int(Int64(updated))
            o["unchanged"] = .int(Int64(unchanged))
            if let deleted { o["deleted"] = .int(Int64(deleted)) }
            if let stale { o["stale"] = JSON(stale) }
        }
        JSON.object(o).write(to: &out)
    }
}

/// `store.undo` and `store.redo`: the seq of the undo or redo itself (nil when it changed
/// nothing), the changes it reverted or applied again, their descriptions, and what it touched.
package struct ReversalResult: WireCodable, Equatable {
    package var seq: Int64?
    package var description: String
    package var changes: [Int64]
    package var categories: [Category]
    package var deletedCategories: [Category]
    package var todos: [Todo]
    package var deletedTodos: [Todo]

    package init(
        seq: Int64?, description: String, changes: [Int64], categories: [Category], deletedCategories: [Category],
        todos: [Todo], deletedTodos: [Todo]
    ) {
        self.seq = seq
        self.description = description
        self.changes = changes
        self.categories = categories
        self.deletedCategories = deletedCategories
        self.todos = todos
        self.deletedTodos = deletedTodos
    }

    package init(wire: JSON) throws(DecodingError) {
        let f = try WireFields(wire, "store.undo result")
        self.init(
            seq: try f.optionalInt("seq"), description: try f.string("description"), changes: try f.value("changes"),
            categories: try f.value("categories"), deletedCategories: try f.value("deletedCategories"),
            todos: try f.value("todos"), deletedTodos: try f.value("deletedTodos"))
    }

    package func write(wire out: inout [UInt8]) {
        out.append(literal: #"{"seq":"#)
        if let seq { seq.write(wire: &out) } else { out.append(literal: "null") }
        out.append(literal: #","description":"#)
        description.write(wire: &out)
        out.append(literal: #","changes":"#)
        changes.write(wire: &out)
        out.append(literal: #","categories":"#)
        categories.write(wire: &out)
        out.append(literal: #","deletedCategories":"#)
        deletedCategories.write(wire: &out)
        out.append(literal: #","todos":"#)
        todos.write(wire: &out)
        out.append(literal: #","deletedTodos":"#)
        deletedTodos.write(wire: &out)
        out.append(UInt8(ascii: "}"))
    }
}

/// One entry of `store.history`, newest first.
package struct HistoryEntry: WireCodable, Equatable {
    package var seq: Int64
    package var at: Instant
    package var kind: ChangeKind
    package var description: String
    package var canUndo: Bool
    package var canRedo: Bool

    package init(seq: Int64, at: Instant, kind: ChangeKind, description: String, canUndo: Bool, canRedo: Bool) {
        self.seq = seq
        self.at = at
        self.kind = kind
        self.description = description
        self.canUndo = canUndo
        self.canRedo = canRedo
    }

    package init(wire: JSON) throws(DecodingError) {
        let f = try WireFields(wire, "store.history entry")
        self.init(
            seq: try f.int("seq"), at: try f.instant("at"), kind: try f.value("kind"),
            description: try f.string("description"),
            canUndo: try f.bool("canUndo", default: false), canRedo: try f.bool("canRedo", default: false))
    }

    package func write(wire out: inout [UInt8]) {
        JSON.object([
            "seq": .int(seq), "at": JSON(at), "kind": .string(kind.rawValue), "description": .string(description),
            "canUndo": .bool(canUndo), "canRedo": .bool(canRedo)
        ]).write(to: &out)
    }
}

/// `store.changes`: `seq` to ask with next, the changed todos oldest change first, and whether
/// more follow.
package struct ChangesPage: WireCodable, Equatable {
    /// One todo that changed: its state now (nil: deleted), and the lines an iCalendar import
    /// kept of it (`ical`, sent only when there are some).
    package struct Item: WireCodable, Equatable {
        package var seq: Int64
        package var kind: ChangeKind
        package var uid: String
        package var todo: Todo?
        package var ical: String?

        package init(seq: Int64, kind: ChangeKind, uid: String, todo: Todo?, ical: String?) {
            self.seq = seq
            self.kind = kind
            self.uid = uid
            self.todo = todo
            self.ical = ical
        }

        package init(wire: JSON) throws(DecodingError) {
            let f = try WireFields(wire, "store.changes item")
            self.init(
                seq: try f.int("seq"), kind: try f.value("kind"), uid: try f.string("uid"),
                todo: try f.optionalValue("todo"), ical: try f.optionalString("ical"))
        }

        package func write(wire out: inout [UInt8]) {
            out.append(literal: #"{"seq":"#)
            seq.write(wire: &out)
            out.append(literal: #","kind":"#)
            kind.write(wire: &out)
            out.append(literal: #","uid":"#)
            uid.write(wire: &out)
            out.append(literal: #","todo":"#)
            if let todo { todo.writeJSON(to: &out) } else { out.append(literal: "null") }
            if let ical {
                out.append(literal: #","ical":"#)
                ical.write(wire: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    package var seq: Int64
    package var changes: [Item]
    package var more: Bool

    package init(seq: Int64, changes: [Item], more: Bool) {
        self.seq = seq
        self.changes = changes
        self.more = more
    }

    package init(wire: JSON) throws(DecodingError) {
        let f = try WireFields(wire, "store.changes result")
        self.init(seq: try f.int("seq"), changes: try f.value("changes"), more: try f.bool("more", default: false))
    }

    package func write(wire out: inout [UInt8]) {
        out.append(literal: #"{"seq":"#)
        seq.write(wire: &out)
        out.append(literal: #","changes":"#)
        changes.write(wire: &out)
        out.append(literal: #","more":"#)
        out.append(literal: more ? "true" : "false")
        out.append(UInt8(ascii: "}"))
    }
}

// MARK: - watch events

/// The `params` of one `watch` event notification, read by clients (todod writes them in its
/// `Event`): `type`, the change's `seq` (none for `reminder`), and the members its type has.
/// Read leniently, for forward compatibility: a client may be older than the daemon, so a type
/// it does not know is `.unknown(name)` with the whole `params` kept in `json`, and a todo it
/// cannot read is left out of `todos` rather than failing the stream.
package struct WatchEvent: Sendable {
    /// The event's type: one this client knows, or the name of one it does not.
    package enum Kind: Sendable, Equatable {
        case known(EventType)
        case unknown(String)

        package init(name: String) { self = EventType(rawValue: name).map(Kind.known) ?? .unknown(name) }

        /// The name on the wire.
        package var name: String {
            switch self {
            case .known(let type): type.name
            case .unknown(let name): name
            }
        }
    }

    /// The category an event names: `category.*` events carry the category object (only `id`
    /// and `name` when replayed from the log).
    package struct CategoryRef: Sendable, Equatable {
        package var id: Int64?
        package var name: String?
    }

    /// The type; nil when `params` has no `type` string.
    package var kind: Kind?
    package var seq: Int64?
    /// The todos of a `todo.*` event, or the one todo of a `reminder` (the readable ones).
    package var todos: [Todo]
    /// Whether `params` had a `todos` array (even one with nothing readable in it).
    package var hasTodos: Bool
    package var category: CategoryRef?
    /// The old name of a `category.renamed`.
    package var oldName: String?
    /// When a `reminder` was delivered, and how late against its reminder time.
    package var fired: Instant?
    package var lateUsec: Int64?
    /// The whole `params`, as sent.
    package var json: JSON

    /// Reads an event's `params`; never fails (what it cannot read stays only in `json`).
    package init(params: JSON) {
        json = params
        kind = params["type"]?.stringValue.map(Kind.init(name:))
        seq = params["seq"]?.intValue
        let items = params["todos"]?.arrayValue
        hasTodos = items != nil
        todos = (items ?? []).compactMap { try? Todo(json: $0) }
        if kind == .known(.reminder), todos.isEmpty, let todo = params["todo"].flatMap({ try? Todo(json: $0) }) {
            todos = [todo] // written by a todod before `todos`
        }
        if case .object(let o)? = params["category"] {
            category = CategoryRef(id: o["id"]?.intValue, name: o["name"]?.stringValue)
        }
        oldName = params["oldName"]?.stringValue
        fired = params["fired"]?.stringValue.flatMap(Instant.init(rfc3339:))
        lateUsec = params["lateUsec"]?.intValue
    }
}
