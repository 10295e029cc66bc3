import TodoCore

// The JSON shapes of the protocol and of `todoctl --json`: todo and category objects, the export document, pages.

extension JSON {
    /// An instant as RFC 3339 UTC, with microseconds only when it has them.
    package init(_ instant: Instant?) {
        self = instant.map { .string($0.rfc3339(fractional: true)) } ?? .null
    }

    init(_ string: String?) { self = string.map(JSON.string) ?? .null }

    /// The category object: `id`, `name`, `position`, `open`, `done`.
    package init(_ category: Category) {
        self = .object([
            "id": .int(category.id), "name": .string(category.name), "position": .int(Int64(category.position)),
            "open": .int(Int64(category.open)), "done": .int(Int64(category.done))
        ])
    }

    /// The export document (see docs/PROTOCOL.md).
    package init(_ document: ExportDocument) {
        let todos: [JSON] = document.todos.map { e in
            var o = JSONObject()
            for field in TodoField.allCases {
                let key = field.wireKey
                switch field {
                case .id, .position, .revision, .subtasks, .parentUid: continue // not members of an entry
                case .uid: o[key] = JSON(e.uid)
                case .title: o[key] = .string(e.title)
                case .notes: o[key] = JSON(e.notes)
                case .category: o[key] = JSON(e.category)
                case .due: o[key] = JSON(e.due)
                case .remind: o[key] = JSON(e.remind)
                case .reminded: o[key] = JSON(e.reminded)
                case .done: o[key] = .bool(e.done)
                case .completed: o[key] = JSON(e.completed)
                case .created: o[key] = JSON(e.created)
                case .updated: o[key] = JSON(e.updated)
                case .priority: o[key] = JSON(e.priority)
                case .tags: o[key] = JSON(e.tags)
                case .zone: o[key] = JSON(e.zone)
                case .allDay: o[key] = .bool(e.allDay)
                case .recurrence: o[key] = JSON(e.recurrence)
                // The parent's uid, only when it has one.
                case .parent: if let parent = e.parent { o[key] = .string(parent) }
                case .start: if let start = e.start { o[key] = JSON(start) }
                case .alarms: if let alarms = e.alarms { o[key] = JSON(alarms: alarms) }
                }
            }
            // Only where an iCalendar import kept something (docs/PROTOCOL.md, docs/ICALENDAR.md).
            if let ical = e.ical { o["ical"] = .string(ical) }
            // Import conditions: only in documents a sync client sends.
            if let r = e.ifRevision { o["ifRevision"] = .int(r) }
            if e.deleted { o["deleted"] = true }
            return .object(o)
        }
        self = .object([
            "format": .string(ExportDocument.format), "version": .int(Int64(ExportDocument.version)),
            "exported": JSON(document.exported),
            "categories": .array(document.categories.map(JSON.string)), "todos": .array(todos)
        ])
    }
}

/// A value the client could not read from the daemon's answer.
package struct DecodingError: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension Todo {
    /// Reads a todo object (client side).
    package init(json: JSON) throws(DecodingError) {
        guard case .object(let o) = json, let id = o["id"]?.intValue, let title = o["title"]?.stringValue,
            let done = o["done"]?.boolValue, let position = o["position"],
            position == .null || position.intValue != nil,
            let created = o["created"]?.stringValue.flatMap(Instant.init(rfc3339:)),
            let updated = o["updated"]?.stringValue.flatMap(Instant.init(rfc3339:))
        else { throw DecodingError("malformed todo object") }
        self.init(
            id: id, title: title, done: done, position: position.intValue.map { Int($0) }, created: created,
            updated: updated,
            revision: 0)
        // Every other field by its key: a new field must say here how it is read.
        for field in TodoField.allCases {
            let value = o[field.wireKey]
            let instant = value?.stringValue.flatMap(Instant.init(rfc3339:))
            switch field {
            case .id, .title, .done, .position, .created, .updated: continue
            case .uid: uid = value?.stringValue ?? ""
            case .notes: notes = value?.stringValue
            case .category: category = value?.stringValue
            case .due: due = instant
            case .remind: remind = instant
            case .reminded: reminded = instant
            case .completed: completed = instant
            case .priority: priority = value?.stringValue.flatMap(TodoPriority.init(rawValue:))
            case .tags: tags = value?.arrayValue?.compactMap(\.stringValue) ?? []
            case .zone: zone = value?.stringValue
            case .allDay: allDay = value?.boolValue ?? false
            case .recurrence: recurrence = value?.recurrenceValue
            case .revision: revision = value?.intValue ?? 0
            case .parent: parent = value?.intValue
            case .subtasks: subtasks = value?.arrayValue?.compactMap(\.intValue) ?? []
            case .parentUid: parentUid = value?.stringValue
            case .start: start = instant
            case .alarms: alarms = value?.alarmsValue ?? []
            }
        }
    }
}

extension Category {
    /// Reads a category object (client side).
    package init(json: JSON) throws(DecodingError) {
        guard let id = json["id"]?.intValue, let name = json["name"]?.stringValue,
            let position = json["position"]?.intValue, let open = json["open"]?.intValue,
            let done = json["done"]?.intValue
        else { throw DecodingError("malformed category object") }
        self.init(id: id, name: name, position: Int(position), open: Int(open), done: Int(done))
    }
}

extension ExportDocument {
    /// Reads an export document; every problem is a -32602 error naming its place
    /// (`todos[3].due`, counting from `firstTodo` for a later part of a long import). Unknown
    /// members are refused.
    package init(json: JSON, firstTodo: Int = 0) throws(RPCError) {
        guard case .object(let object) = json else { throw RPCError.invalidParams("document", "must be an object") }
        var p = Params(object)
        let format = try p.string("format")
        guard format == ExportDocument.format else {
            throw RPCError.invalidParams("format", "must be \"\(ExportDocument.format)\", not \"\(format.prefix(40))\"")
        }
        let version = try p.int("version")
        guard version == Int64(ExportDocument.version) else {
            throw RPCError.invalidParams(
                "version", "\(version) is not supported (this todod reads version \(ExportDocument.version))")
        }
        let exported = try p.optionalInstant("exported") ?? Instant(usec: 0)
        guard case .array(let names)? = p.raw("categories") else {
            throw RPCError.invalidParams("categories", "must be an array")
        }
        var categories: [String] = []
        for (i, name) in names.enumerated() {
            guard case .string(let s) = name else {
                throw RPCError.invalidParams("categories[\(i)]", "must be a string")
            }
            categories.append(s)
        }
        guard case .array(let items)? = p.raw("todos") else {
            throw RPCError.invalidParams("todos", "must be an array")
        }
        try p.finish()
        var todos: [Entry] = []
        todos.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else {
                throw RPCError.invalidParams("todos[\(firstTodo + i)]", "must be an object")
            }
            var e = Params(o)
            do throws(RPCError) {
                // Written by another tool, a todo may not say when it was made: when it was last
                // changed, else when the document was written, else now.
                let updated = try e.optionalInstant("updated")
                let created =
                    try e.optionalInstant("created") ?? updated ?? (exported.usec != 0 ? exported : Instant.now())
                todos.append(
                    Entry(
                        title: try e.string("title"), notes: try e.optionalString("notes"),
                        category: try e.optionalString("category"), due: try e.optionalInstant("due"),
                        remind: try e.optionalInstant("remind"), reminded: try e.optionalInstant("reminded"),
                        done: try e.flag("done"), completed: try e.optionalInstant("completed"),
                        created: created, updated: updated ?? created,
                        uid: try e.optionalString("uid"), priority: try e.optionalPriority("priority"),
                        tags: try e.strings("tags"), zone: try e.optionalString("zone"),
                        allDay: try e.flag("allDay"), recurrence: try e.optionalRecurrence("recurrence"),
                        ical: try e.optionalString("ical")))
                todos[todos.count - 1].parent = try e.optionalString("parent")
                todos[todos.count - 1].start = try e.optionalInstant("start")
                todos[todos.count - 1].alarms = try e.optionalAlarms("alarms")
                todos[todos.count - 1].ifRevision = try e.optionalInt("ifRevision", in: 0...Int64.max)
                todos[todos.count - 1].deleted = try e.flag("deleted")
                if todos[todos.count - 1].deleted, (todos[todos.count - 1].ifRevision ?? 0) == 0 {
                    throw RPCError.invalidParams("deleted", "needs ifRevision (the revision of the todo to delete)")
                }
                _ = e.raw("id")
                _ = e.raw("position") // accepted for convenience; the import assigns its own
                try e.finish()
            } catch {
                throw error.nested(under: "todos[\(firstTodo + i)].")
            }
        }
        self.init(categories: categories, todos: todos, exported: exported)
    }
}

extension Todo {
    /// Appends the todo object to `out`: one member per `TodoField`, in its order, keyed by its
    /// `wireKey` (`id`, `uid`, `title`, …, `start`; absent values are null; instants RFC 3339 UTC,
    /// with microseconds only when they have them). The one encoder of a todo, written field by
    /// field: answers, listings and events never build a tree of JSON values for it.
    package func writeJSON(to out: inout [UInt8]) {
        append(to: &out)
    }

    /// The todo's JSON text, in an array with room left for an answer's envelope
    /// (`RPCMessage.resultLine`).
    package var encodedJSON: [UInt8] {
        var out: [UInt8] = []
        append(to: &out, reservingFor: 64)
        return out
    }

    /// Appends the text, written on the stack first (or, when large, into an array of its own).
    /// `reservingFor`: `out` is empty and gets room for the text and that many bytes more, no
    /// more: an array of up to about 1,000 bytes comes from malloc's per-thread cache, a larger
    /// one (what the size hint would ask for) from its slower path. (Not `Array.append(roomFor:)`:
    /// the closure it takes copied the whole todo; nor `init(unsafeUninitializedCapacity:)`:
    /// that allocates through the standard library's generic code, which looks the storage type
    /// up in the runtime's metadata cache on every call, some 300 instructions.)
    private func append(to out: inout [UInt8], reservingFor envelope: Int? = nil) {
        let room = Swift.max(jsonSizeHint, 64)
        let written =
            room <= 4096
            && withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
                var w = ByteWriter(buffer)
                write(into: &w)
                guard !w.overflowed else { return false }
                if let envelope { out.reserveCapacity(w.count + envelope) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<w.count]))
                return true
            }
        guard !written else { return }
        let text = [UInt8](roomFor: room <= 4096 ? room * 2 : room) { write(into: &$0) }
        if out.isEmpty { out = text } else { out.append(contentsOf: text) }
    }

    /// Each field's key with what comes before it (`{"id":`, `,"uid":`, …), one after the other
    /// in `bytes`, by `TodoField.rawValue`.
    private static let keys: (bytes: [UInt8], ranges: [Range<Int>]) = {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in TodoField.allCases {
            let from = bytes.count
            bytes += Array(((field.rawValue == 0 ? "{" : ",") + "\"" + field.wireKey + "\":").utf8)
            ranges.append(from..<bytes.count)
        }
        return (bytes, ranges)
    }()
    private static let fields = TodoField.allCases

    private func write(into w: inout ByteWriter) {
        let keys = Todo.keys
        keys.bytes.withUnsafeBufferPointer { keyBytes in
            for field in Todo.fields {
                w.put(bytes: UnsafeBufferPointer(rebasing: keyBytes[keys.ranges[field.rawValue]]))
                switch field {
                case .id: w.put(decimal: id)
                case .uid: w.put(string: uid)
                case .title: w.put(string: title)
                case .notes: Todo.put(notes, &w)
                case .category: Todo.put(category, &w)
                case .due: Todo.put(due, &w)
                case .remind: Todo.put(remind, &w)
                case .reminded: Todo.put(reminded, &w)
                case .done: w.put(done ? "true" : "false")
                case .completed: Todo.put(completed, &w)
                case .position: if let position { w.put(decimal: Int64(position)) } else { w.put("null") }
                case .created: w.put(instant: created)
                case .updated: w.put(instant: updated)
                case .priority: Todo.put(priority?.rawValue, &w)
                case .tags:
                    w.put(UInt8(ascii: "["))
                    for (i, tag) in tags.enumerated() {
                        if i > 0 { w.put(UInt8(ascii: ",")) }
                        w.put(string: tag)
                    }
                    w.put(UInt8(ascii: "]"))
                case .zone: Todo.put(zone, &w)
                case .allDay: w.put(allDay ? "true" : "false")
                case .recurrence: Todo.put(recurrence, &w)
                case .revision: w.put(decimal: revision)
                case .parent: if let parent { w.put(decimal: parent) } else { w.put("null") }
                case .subtasks:
                    w.put(UInt8(ascii: "["))
                    for (i, id) in subtasks.enumerated() {
                        if i > 0 { w.put(UInt8(ascii: ",")) }
                        w.put(decimal: id)
                    }
                    w.put(UInt8(ascii: "]"))
                case .parentUid: Todo.put(parentUid, &w)
                case .start: Todo.put(start, &w)
                case .alarms:
                    w.put(
                        storedAlarms: storedAlarms, due: due, start: start,
                        after: remind.map { $0.adding(usec: -1) } ?? reminded)
                }
            }
        }
        w.put(UInt8(ascii: "}"))
    }

    private static func put(_ recurrence: TodoRecurrence?, _ w: inout ByteWriter) {
        guard let recurrence else { return w.put("null") }
        w.put(#"{"rule":"#)
        w.put(string: recurrence.rule)
        w.put(#","from":"#)
        w.put(string: recurrence.from.rawValue)
        let sets: [(StaticString, [RecurrenceDate])] = [
            (#","exdates":["#, recurrence.exdates), (#","rdates":["#, recurrence.rdates)
        ]
        for (key, dates) in sets where !dates.isEmpty {
            w.put(key)
            for (i, date) in dates.enumerated() {
                if i > 0 { w.put(UInt8(ascii: ",")) }
                w.put(string: date.text)
            }
            w.put(UInt8(ascii: "]"))
        }
        if let start = recurrence.ruleStart {
            w.put(#","ruleStart":"#)
            w.put(instant: start)
        }
        w.put(UInt8(ascii: "}"))
    }

    /// The room `writeJSON` asks for first: the keys, punctuation and fixed-size values, then the
    /// texts' own bytes. Only a hint: a todo that needs more (escaped text) is written again into
    /// more room (`ByteWriter`).
    private var jsonSizeHint: Int {
        var n =
            640 + uid.utf8.count + title.utf8.count + (notes?.utf8.count ?? 0) + (category?.utf8.count ?? 0)
            + (parentUid?.utf8.count ?? 0) + (zone?.utf8.count ?? 0)
        for tag in tags { n += tag.utf8.count + 3 }
        n += subtasks.count * 21
        if let recurrence {
            n += recurrence.rule.utf8.count + (recurrence.exdates.count + recurrence.rdates.count) * 33
        }
        // An alarm's object takes some 260 bytes beside its uid; its line (`uid due -900000000`)
        // at least 40. (Kept small: a todo with one alarm stays in malloc's per-thread cache.)
        if let storedAlarms {
            let count = storedAlarms.utf8.count
            n += 260 * (1 + count / 64) + count
        }
        return n
    }

    /// `todos` as a JSON array.
    package static func encodedJSON(_ todos: [Todo]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (i, todo) in todos.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            todo.writeJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    private static func put(_ text: String?, _ w: inout ByteWriter) {
        if let text { w.put(string: text) } else { w.put("null") }
    }

    private static func put(_ instant: Instant?, _ w: inout ByteWriter) {
        if let instant { w.put(instant: instant) } else { w.put("null") }
    }
}

extension TodoPage {
    /// The page as JSON text, `{"total": n, "todos": [...]}`, built one todo at a time: a long
    /// listing never exists as a tree of JSON values. `total` comes first, so a client reading
    /// the answer as it arrives knows it before the todos.
    package var encoded: [UInt8] {
        var bytes = TodoPage.encodedHead(total: total)
        if let offset { // `{"total":N,"offset":M,"todos":[`
            bytes.insert(
                contentsOf: Array(#","offset":"#.utf8) + Array(String(offset).utf8),
                at: bytes.count - #","todos":["#.utf8.count)
        }
        TodoPage.append(todos, first: true, to: &bytes)
        bytes.append(contentsOf: TodoPage.encodedTail)
        return bytes
    }

    /// `{"total":N,"todos":[`: how the JSON text of a page begins.
    package static func encodedHead(total: Int) -> [UInt8] {
        Array(#"{"total":"#.utf8) + Array(String(total).utf8) + Array(#","todos":["#.utf8)
    }

    /// Appends `todos` to a page's JSON text, after a comma unless they come `first`.
    package static func append(_ todos: [Todo], first: Bool, to bytes: inout [UInt8]) {
        for (i, todo) in todos.enumerated() {
            if i > 0 || !first { bytes.append(UInt8(ascii: ",")) }
            todo.writeJSON(to: &bytes)
        }
    }

    /// `]}`: how the JSON text of a page ends.
    package static let encodedTail = Array("]}".utf8)
}
