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
        guard case .array(let items) = value else {
            throw RPCError.invalidParams(key, "must be an array of strings, not \(value.typeName)")
        }
        guard items.count <= max else { throw RPCError.invalidParams(key, "may hold at most \(max) strings") }
        var strings: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else {
                throw RPCError.invalidParams("\(key)[\(i)]", "must be a string, not \(item.typeName)")
            }
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
                throw RPCError.invalidParams(
                    "\(key)[\(i)]", "must be a date (2026-12-07) or a UTC time (2026-12-07T08:00:00Z)")
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
        guard let r = recurrence else {
            self = .null
            return
        }
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
        return TodoRecurrence(
            rule: rule, from: self["from"]?.stringValue.flatMap(RecurrenceBase.init(rawValue:)) ?? .due,
            exdates: dates("exdates"), rdates: dates("rdates"),
            ruleStart: self["ruleStart"]?.stringValue.flatMap { Instant(rfc3339: $0) })
    }
}

// The alarms (v4): an array of alarm objects,
// `{"uid": s, "related": "due"|"start"|null, "offset": seconds, "at": instant|null,
//   "repeat": n, "interval": seconds, "acknowledged": instant|null, "snoozedUntil": instant|null,
//   "ical": text (only for an alarm todod keeps without acting on it)}`.
// `related` with `offset` (signed seconds, negative before), or `at`. docs/PROTOCOL.md.

extension Params {
    /// Alarms that may be absent (nil) or null (none).
    package mutating func optionalAlarms(_ key: String) throws(RPCError) -> [Alarm]? {
        switch raw(key) {
        case nil: return nil
        case .null?: return []
        case let value?: return try Params.alarmsValue(value, key)
        }
    }

    /// An update's alarms: absent keeps, null or `[]` clears, an array sets.
    package mutating func alarmsChange(_ key: String) throws(RPCError) -> FieldChange<[Alarm]> {
        switch raw(key) {
        case nil: return .keep
        case .null?: return .clear
        case let value?:
            let alarms = try Params.alarmsValue(value, key)
            return alarms.isEmpty ? .clear : .set(alarms)
        }
    }

    static func alarmsValue(_ value: JSON, _ key: String) throws(RPCError) -> [Alarm] {
        guard case .array(let items) = value else {
            throw RPCError.invalidParams(key, "must be an array of alarm objects, not \(value.typeName)")
        }
        guard items.count <= Alarm.maxPerTodo else {
            throw RPCError.invalidParams(key, "may hold at most \(Alarm.maxPerTodo) alarms")
        }
        var alarms: [Alarm] = []
        for (i, item) in items.enumerated() {
            let place = "\(key)[\(i)]"
            guard case .object(let o) = item else {
                throw RPCError.invalidParams(place, "must be an alarm object, not \(item.typeName)")
            }
            do throws(RPCError) {
                var a = Params(o)
                let uid = try a.optionalString("uid") ?? ""
                let related = try a.optionalString("related")
                let offset = try a.optionalInt("offset", in: -3_162_240_000...3_162_240_000)
                let at = try a.optionalInstant("at")
                let trigger: Alarm.Trigger
                switch (related, at) {
                case (nil, let at?):
                    guard offset == nil else {
                        throw RPCError.invalidParams("offset", "goes with related, not with at")
                    }
                    trigger = .at(at)
                case ("due"?, nil): trigger = .due((offset ?? 0) * 1_000_000)
                case ("start"?, nil): trigger = .start((offset ?? 0) * 1_000_000)
                case (let r?, nil):
                    throw RPCError.invalidParams("related", "must be due or start, not \"\(r.prefix(40))\"")
                case (nil, nil):
                    throw RPCError.invalidParams(
                        "at", "an alarm needs at (an instant) or related (due or start) with offset")
                case (_?, _?): throw RPCError.invalidParams("at", "an alarm has at or related, not both")
                }
                let count = try a.optionalInt("repeat", in: 0...Int64(Alarm.maxRepeats)) ?? 0
                let interval = try a.optionalInt("interval", in: 0...31_622_400) ?? 0
                var alarm = Alarm(
                    uid: uid, trigger: trigger, repeatCount: Int(count), intervalUsec: interval * 1_000_000,
                    acknowledged: try a.optionalInstant("acknowledged"),
                    snoozedUntil: try a.optionalInstant("snoozedUntil"))
                alarm.ical = try a.optionalString("ical")
                _ = a.raw("next") // what the todo object says, read back: not an input
                try a.finish()
                alarms.append(alarm)
            } catch {
                throw error.nested(under: "\(place).")
            }
        }
        return alarms
    }
}

extension JSON {
    /// The alarms of a todo object, read leniently (client side): what cannot be read is left out.
    package var alarmsValue: [Alarm] {
        guard let items = arrayValue else { return [] }
        return items.compactMap { item -> Alarm? in (try? Params.alarmsValue(.array([item]), "alarms"))?.first }
    }
}

extension ByteWriter {
    /// Writes the alarm objects of a todo: `next` is each one's next firing (read-only).
    mutating func put(alarms: [Alarm], due: Instant?, start: Instant?, after: Instant?, next: Bool = true) {
        put(UInt8(ascii: "["))
        for (i, a) in alarms.enumerated() {
            if i > 0 { put(UInt8(ascii: ",")) }
            var uid = a.uid
            uid.withUTF8 { uid in
                guard var ical = a.ical else {
                    return put(alarm: a.timing, uid: uid, ical: nil, due: due, start: start, after: after, next: next)
                }
                ical.withUTF8 {
                    put(alarm: a.timing, uid: uid, ical: $0, due: due, start: start, after: after, next: next)
                }
            }
        }
        put(UInt8(ascii: "]"))
    }

    /// `put(alarms:…)` for the alarms as the store keeps them (`Todo.storedAlarms`), written as
    /// they are read: no list, no `Alarm`, no String per uid.
    mutating func put(storedAlarms: String?, due: Instant?, start: Instant?, after: Instant?) {
        put(UInt8(ascii: "["))
        var first = true
        Alarm.forEachStored(storedAlarms) { timing, uid, storedICal in
            if !first { put(UInt8(ascii: ",")) }
            first = false
            guard let storedICal else {
                return put(alarm: timing, uid: uid, ical: nil, due: due, start: start, after: after, next: true)
            }
            Alarm.unescaped(storedICal).withUnsafeBufferPointer {
                put(alarm: timing, uid: uid, ical: $0, due: due, start: start, after: after, next: true)
            }
        }
        put(UInt8(ascii: "]"))
    }

    /// One alarm object from its parts: `ical` is the kept iCalendar text of an alarm todod does
    /// not act on (it has no next firing).
    private mutating func put(
        alarm a: Alarm.Timing, uid: UnsafeBufferPointer<UInt8>, ical: UnsafeBufferPointer<UInt8>?, due: Instant?,
        start: Instant?, after: Instant?, next: Bool
    ) {
        put(#"{"uid":"#)
        put(string: uid)
        switch a.trigger {
        case .due(let o):
            put(#","related":"due","offset":"#)
            put(decimal: o / 1_000_000)
            put(#","at":null"#)
        case .start(let o):
            put(#","related":"start","offset":"#)
            put(decimal: o / 1_000_000)
            put(#","at":null"#)
        case .at(let t):
            put(#","related":null,"offset":null,"at":"#)
            put(instant: t)
        }
        put(#","repeat":"#)
        put(decimal: Int64(a.repeatCount))
        put(#","interval":"#)
        put(decimal: a.intervalUsec / 1_000_000)
        put(#","acknowledged":"#)
        if let t = a.acknowledged { put(instant: t) } else { put("null") }
        put(#","snoozedUntil":"#)
        if let t = a.snoozedUntil { put(instant: t) } else { put("null") }
        if let ical {
            put(#","ical":"#)
            put(string: ical)
        }
        if next {
            put(#","next":"#)
            if ical == nil, let t = a.nextFiring(after: after, due: due, start: start) {
                put(instant: t)
            } else {
                put("null")
            }
        }
        put(UInt8(ascii: "}"))
    }
}

extension JSON {
    /// The alarms as JSON values (the export document).
    package init(alarms: [Alarm]) {
        var w = [UInt8]()
        w.append(roomFor: 64 + alarms.count * 400) {
            $0.put(alarms: alarms, due: nil, start: nil, after: nil, next: false)
        }
        self = (try? JSON.parse(w)) ?? .array([])
    }
}
