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
            "open": .int(Int64(category.open)), "done": .int(Int64(category.done)),
        ])
    }

    /// The export document (see docs/PROTOCOL.md).
    package init(_ document: ExportDocument) {
        let todos: [JSON] = document.todos.map { e in
            var o: JSONObject = [
                "uid": JSON(e.uid), "title": .string(e.title), "notes": JSON(e.notes), "category": JSON(e.category),
                "due": JSON(e.due), "remind": JSON(e.remind), "reminded": JSON(e.reminded), "done": .bool(e.done),
                "completed": JSON(e.completed), "created": JSON(e.created), "updated": JSON(e.updated),
                "priority": JSON(e.priority), "tags": JSON(e.tags), "zone": JSON(e.zone), "allDay": .bool(e.allDay),
                "recurrence": JSON(e.recurrence),
            ]
            if let parent = e.parent { o["parent"] = .string(parent) }
            if let start = e.start { o["start"] = JSON(start) }
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
            "categories": .array(document.categories.map(JSON.string)), "todos": .array(todos),
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
              let done = o["done"]?.boolValue, let position = o["position"], position == .null || position.intValue != nil,
              let created = o["created"]?.stringValue.flatMap(Instant.init(rfc3339:)),
              let updated = o["updated"]?.stringValue.flatMap(Instant.init(rfc3339:))
        else { throw DecodingError("malformed todo object") }
        func instant(_ key: String) -> Instant? { o[key]?.stringValue.flatMap(Instant.init(rfc3339:)) }
        self.init(
            id: id, uid: o["uid"]?.stringValue ?? "", title: title, notes: o["notes"]?.stringValue, category: o["category"]?.stringValue,
            due: instant("due"), remind: instant("remind"), reminded: instant("reminded"), done: done,
            completed: instant("completed"), position: position.intValue.map { Int($0) }, created: created, updated: updated,
            priority: o["priority"]?.stringValue.flatMap(TodoPriority.init(rawValue:)),
            tags: o["tags"]?.arrayValue?.compactMap(\.stringValue) ?? [], zone: o["zone"]?.stringValue,
            allDay: o["allDay"]?.boolValue ?? false, recurrence: o["recurrence"]?.recurrenceValue,
            revision: o["revision"]?.intValue ?? 0)
        parent = o["parent"]?.intValue
        subtasks = o["subtasks"]?.arrayValue?.compactMap(\.intValue) ?? []
        parentUid = o["parentUid"]?.stringValue
        start = instant("start")
    }
}

extension Category {
    /// Reads a category object (client side).
    package init(json: JSON) throws(DecodingError) {
        guard let id = json["id"]?.intValue, let name = json["name"]?.stringValue,
              let position = json["position"]?.intValue, let open = json["open"]?.intValue, let done = json["done"]?.intValue
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
            throw RPCError.invalidParams("version", "\(version) is not supported (this todod reads version \(ExportDocument.version))")
        }
        let exported = try p.optionalInstant("exported") ?? Instant(usec: 0)
        guard case .array(let names)? = p.raw("categories") else { throw RPCError.invalidParams("categories", "must be an array") }
        var categories: [String] = []
        for (i, name) in names.enumerated() {
            guard case .string(let s) = name else { throw RPCError.invalidParams("categories[\(i)]", "must be a string") }
            categories.append(s)
        }
        guard case .array(let items)? = p.raw("todos") else { throw RPCError.invalidParams("todos", "must be an array") }
        try p.finish()
        var todos: [Entry] = []
        todos.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else { throw RPCError.invalidParams("todos[\(firstTodo + i)]", "must be an object") }
            var e = Params(o)
            do throws(RPCError) {
                // Written by another tool, a todo may not say when it was made: when it was last
                // changed, else when the document was written, else now.
                let updated = try e.optionalInstant("updated")
                let created = try e.optionalInstant("created") ?? updated ?? (exported.usec != 0 ? exported : Instant.now())
                todos.append(Entry(
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
                todos[todos.count - 1].ifRevision = try e.optionalInt("ifRevision", in: 0...Int64.max)
                todos[todos.count - 1].deleted = try e.flag("deleted")
                if todos[todos.count - 1].deleted, (todos[todos.count - 1].ifRevision ?? 0) == 0 {
                    throw RPCError.invalidParams("deleted", "needs ifRevision (the revision of the todo to delete)")
                }
                _ = e.raw("id")
                _ = e.raw("position")  // accepted for convenience; the import assigns its own
                try e.finish()
            } catch {
                throw error.nested(under: "todos[\(firstTodo + i)].")
            }
        }
        self.init(categories: categories, todos: todos, exported: exported)
    }
}

extension Todo {
    /// Appends the todo object to `out`: `id`, `uid`, `title`, `notes`, `category`, `due`,
    /// `remind`, `reminded`, `done`, `completed`, `position`, `created`, `updated`, `priority`,
    /// `tags`, `zone`, `allDay`, `recurrence`, `revision`, `parent`, `subtasks`, `parentUid`,
    /// `start` (absent values
    /// are null; instants RFC 3339 UTC, with microseconds only when they have them). The one
    /// encoder of a todo, written field by field: answers, listings and events never build a tree
    /// of JSON values for it.
    package func writeJSON(to out: inout [UInt8]) {
        out.append(atMost: jsonBound) { write(into: &$0) }
    }

    /// The todo's JSON text.
    package var encodedJSON: [UInt8] { [UInt8](atMost: jsonBound) { write(into: &$0) } }

    private func write(into w: inout ByteWriter) {
        w.put(#"{"id":"#)
        w.put(decimal: id)
        w.put(#","uid":"#)
        w.put(string: uid)
        w.put(#","title":"#)
        w.put(string: title)
        w.put(#","notes":"#)
        Todo.put(notes, &w)
        w.put(#","category":"#)
        Todo.put(category, &w)
        w.put(#","due":"#)
        Todo.put(due, &w)
        w.put(#","remind":"#)
        Todo.put(remind, &w)
        w.put(#","reminded":"#)
        Todo.put(reminded, &w)
        w.put(done ? #","done":true,"completed":"# : #","done":false,"completed":"#)
        Todo.put(completed, &w)
        w.put(#","position":"#)
        if let position { w.put(decimal: Int64(position)) } else { w.put("null") }
        w.put(#","created":"#)
        w.put(instant: created)
        w.put(#","updated":"#)
        w.put(instant: updated)
        w.put(#","priority":"#)
        Todo.put(priority?.rawValue, &w)
        w.put(#","tags":["#)
        for (i, tag) in tags.enumerated() {
            if i > 0 { w.put(UInt8(ascii: ",")) }
            w.put(string: tag)
        }
        w.put(#"],"zone":"#)
        Todo.put(zone, &w)
        w.put(allDay ? #","allDay":true,"recurrence":"# : #","allDay":false,"recurrence":"#)
        if let recurrence {
            w.put(#"{"rule":"#)
            w.put(string: recurrence.rule)
            w.put(#","from":"#)
            w.put(string: recurrence.from.rawValue)
            let sets: [(StaticString, [RecurrenceDate])] = [(#","exdates":["#, recurrence.exdates), (#","rdates":["#, recurrence.rdates)]
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
        } else {
            w.put("null")
        }
        w.put(#","revision":"#)
        w.put(decimal: revision)
        w.put(#","parent":"#)
        if let parent { w.put(decimal: parent) } else { w.put("null") }
        w.put(#","subtasks":["#)
        for (i, id) in subtasks.enumerated() {
            if i > 0 { w.put(UInt8(ascii: ",")) }
            w.put(decimal: id)
        }
        w.put(#"],"parentUid":"#)
        Todo.put(parentUid, &w)
        w.put(#","start":"#)
        Todo.put(start, &w)
        w.put(UInt8(ascii: "}"))
    }

    /// The most `write(into:)` writes for this todo: the keys, punctuation and literals (under
    /// 400 bytes, recurrence's included), then each value's own bound.
    private var jsonBound: Int {
        typealias W = ByteWriter
        func bound(_ text: String?) -> Int { text.map(W.stringBound) ?? 0 }
        var n = 400 + 4 * W.decimalBound + 8 * W.instantBound + W.stringBound(uid) + W.stringBound(title)
            + bound(notes) + bound(category) + bound(zone) + bound(parentUid) + bound(priority?.rawValue)
        for tag in tags { n += W.stringBound(tag) + 1 }
        n += subtasks.count * (W.decimalBound + 1)
        if let recurrence {
            n += W.stringBound(recurrence.rule) + W.stringBound(recurrence.from.rawValue)
            // A date's text is never longer than an instant's.
            n += (recurrence.exdates.count + recurrence.rdates.count) * (W.instantBound + 1)
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
