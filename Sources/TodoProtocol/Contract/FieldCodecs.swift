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

    /// An update's todo id (`parent`): absent keeps, null clears.
    package mutating func idChange(_ key: String) throws(RPCError) -> FieldChange<Int64> {
        switch raw(key) {
        case nil: return .keep
        case .null?: return .clear
        case let value?: return .set(try Params.integer(value, key, 1...Int64.max))
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
            let exdates = try r.recurrenceDates("exdates")
            let rdates = try r.recurrenceDates("rdates")
            let ruleStart = try r.optionalInstant("ruleStart")
            try r.finish()
            return TodoRecurrence(rule: rule, from: from, exdates: exdates, rdates: rdates, ruleStart: ruleStart)
        } catch {
            throw error.nested(under: "\(key).")
        }
    }

    /// EXDATE or RDATE values (`RecurrenceDate.text`): an array of strings, empty when absent or null.
    mutating func recurrenceDates(_ key: String) throws(RPCError) -> [RecurrenceDate] {
        var dates: [RecurrenceDate] = []
        for (i, text) in try strings(key, max: 10_000).enumerated() {
            guard let date = RecurrenceDate(text: text) else {
                throw RPCError.invalidParams("\(key)[\(i)]", "must be a date (2026-12-07) or a UTC time (2026-12-07T08:00:00Z)")
            }
            dates.append(date)
        }
        return dates
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

    /// `{"rule": ..., "from": ...}` (with `exdates`, `rdates`, `ruleStart` when it has them) or null.
    package init(_ recurrence: TodoRecurrence?) {
        guard let r = recurrence else { self = .null; return }
        var o: JSONObject = ["rule": .string(r.rule), "from": .string(r.from.rawValue)]
        if !r.exdates.isEmpty { o["exdates"] = JSON(r.exdates.map(\.text)) }
        if !r.rdates.isEmpty { o["rdates"] = JSON(r.rdates.map(\.text)) }
        if let start = r.ruleStart { o["ruleStart"] = JSON(start) }
        self = .object(o)
    }

    /// Reads what `init(_ recurrence:)` wrote (client side); nil for null or a malformed value.
    package var recurrenceValue: TodoRecurrence? {
        guard let rule = self["rule"]?.stringValue else { return nil }
        func dates(_ key: String) -> [RecurrenceDate] {
            guard case .array(let items)? = self[key] else { return [] }
            return items.compactMap { $0.stringValue.flatMap(RecurrenceDate.init(text:)) }
        }
        return TodoRecurrence(rule: rule, from: self["from"]?.stringValue.flatMap(RecurrenceBase.init(rawValue:)) ?? .due,
                              exdates: dates("exdates"), rdates: dates("rdates"),
                              ruleStart: self["ruleStart"]?.stringValue.flatMap { Instant(rfc3339: $0) })
    }
}
