import TodoCore

// The wire forms of the v2 todo fields: `priority` ("high"·"medium"·"low"·null), `tags` (an
// array of strings), `zone` (a string), `allDay` (a boolean) and `recurrence` (null or
// `{"rule": RRULE, "from": "due"|"completion"}`). Shapes are checked here; the store checks the
// values (Validation) and TodoCalendar the rule's meaning.

extension Params {
    /// A priority that may be absent or null.
    package mutating func optionalPriority(_ key: String) throws(RPCError) -> TodoPriority? {
        guard let text = try optionalString(key) else { return nil }
        return try Params.priorityValue(text, key)
    }

    /// An update's priority: absent keeps, null clears.
    package mutating func priorityChange(_ key: String) throws(RPCError) -> FieldChange<TodoPriority> {
        try change(key) { (s) throws(RPCError) in try Params.priorityValue(s, key) }
    }

    static func priorityValue(_ text: String, _ key: String) throws(RPCError) -> TodoPriority {
        guard let p = TodoPriority(rawValue: text) else {
            throw RPCError.invalidParams(key, "must be high, medium, low or null, not \"\(text.prefix(40))\"")
        }
        return p
    }

    /// An array of strings that may be absent or null (empty then).
    package mutating func strings(_ key: String, max: Int = 1_000) throws(RPCError) -> [String] {
        switch raw(key) {
        case nil, .null?: return []
        case let value?: return try Params.stringArray(value, key, max: max)
        }
    }

    /// An update's string array: absent keeps, null clears, an array sets.
    package mutating func stringsChange(_ key: String, max: Int = 1_000) throws(RPCError) -> FieldChange<[String]> {
        switch raw(key) {
        case nil: return .keep
        case .null?: return .clear
        case let value?: return .set(try Params.stringArray(value, key, max: max))
        }
    }

    static func stringArray(_ value: JSON, _ key: String, max: Int) throws(RPCError) -> [String] {
        guard case .array(let items) = value else { throw RPCError.invalidParams(key, "must be an array of strings, not \(value.typeName)") }
        guard items.count <= max else { throw RPCError.invalidParams(key, "may hold at most \(max) strings") }
        var strings: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else { throw RPCError.invalidParams("\(key)[\(i)]", "must be a string, not \(item.typeName)") }
            strings.append(s)
        }
        return strings
    }

    /// A recurrence that may be absent or null.
    package mutating func optionalRecurrence(_ key: String) throws(RPCError) -> TodoRecurrence? {
        switch raw(key) {
        case nil, .null?: return nil
        case let value?: return try Params.recurrenceValue(value, key)
        }
    }

    /// An update's recurrence: absent keeps, null clears.
    package mutating func recurrenceChange(_ key: String) throws(RPCError) -> FieldChange<TodoRecurrence> {
        switch raw(key) {
        case nil: return .keep
        case .null?: return .clear
        case let value?: return .set(try Params.recurrenceValue(value, key))
        }
    }

    static func recurrenceValue(_ value: JSON, _ key: String) throws(RPCError) -> TodoRecurrence {
        guard case .object(let o) = value else {
            throw RPCError.invalidParams(key, "must be an object {rule, from} or null, not \(value.typeName)")
        }
        do throws(RPCError) {
            var r = Params(o)
            let rule = try r.string("rule")
            let fromText = try r.optionalString("from") ?? RecurrenceBase.due.rawValue
            guard let from = RecurrenceBase(rawValue: fromText) else {
                throw RPCError.invalidParams("from", "must be due or completion, not \"\(fromText.prefix(40))\"")
            }
            try r.finish()
            return TodoRecurrence(rule: rule, from: from)
        } catch {
            throw error.nested(under: "\(key).")
        }
    }

    /// An optional boolean: nil when absent or null.
    package mutating func optionalFlag(_ key: String) throws(RPCError) -> Bool? {
        switch raw(key) {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let other?: throw RPCError.invalidParams(key, "must be a boolean, not \(other.typeName)")
        }
    }
}

extension JSON {
    /// `"high"`, `"medium"`, `"low"` or null.
    package init(_ priority: TodoPriority?) { self = priority.map { .string($0.rawValue) } ?? .null }

    /// An array of strings.
    package init(_ strings: [String]) { self = .array(strings.map(JSON.string)) }

    /// `{"rule": ..., "from": ...}` or null.
    package init(_ recurrence: TodoRecurrence?) {
        self = recurrence.map { .object(["rule": .string($0.rule), "from": .string($0.from.rawValue)]) } ?? .null
    }

    /// Reads what `init(_ recurrence:)` wrote (client side); nil for null or a malformed value.
    package var recurrenceValue: TodoRecurrence? {
        guard let rule = self["rule"]?.stringValue else { return nil }
        return TodoRecurrence(rule: rule, from: self["from"]?.stringValue.flatMap(RecurrenceBase.init(rawValue:)) ?? .due)
    }
}
