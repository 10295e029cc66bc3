import TodoCalendar
import TodoCore
import TodoTime

/// The properties of one VTODO, each read into the field it carries (`TodoField.vtodoProperties`)
/// as it came, before the reader puts them together (`ICalReader.item`); what no field takes is
/// kept (`kept`, in the notation of `KeptLines`).
struct VTodoProperties {
    var kept: [String] = []
    var givenUID: String?
    var title: String?
    var notes: String?
    var due: (Instant, allDay: Bool, tzid: String?)?
    var status: String?
    var completed: Instant?
    var percent: Int?
    var categories: [String] = []
    var todoCategory: String??
    var priority: TodoPriority?
    var rule: String?
    var ruleLine: ContentLine?
    var fromCompletion = false
    var sortOrder: Int64?
    var created: Instant?
    var modified: Instant?
    var stamp: Instant?
    var zoneName: String?
    var dtstart: Instant?
    var dtstartLine: ContentLine?
    var dtstartTzid: String?
    var durationLine: ContentLine?
    var parentUID: String?
    var childUIDs: [String] = []
    var startIsDate = false
    var exdates: [RecurrenceDate] = []
    var rdates: [RecurrenceDate] = []

    /// Reads every property of `c` (its components are the reader's: alarms and others).
    init(reading c: Component, _ reader: ICalReader, _ zones: TimeZones) throws(ICalError) {
        for p in c.properties {
            let value = p.value.trimmingSpaces
            // The default, which some servers add.
            if p.name == "CLASS", value.uppercased() == "PUBLIC", p.parameters.isEmpty { continue }
            guard let field = TodoField.byVTodoProperty[p.name] else {
                if !value.isEmpty { kept.append(p.raw) } // an empty property says nothing (servers drop them)
                continue
            }
            try read(p, value: value, as: field, reader, zones)
        }
    }

    /// Done: `STATUS` COMPLETED or CANCELLED, or without STATUS a COMPLETED or PERCENT-COMPLETE 100.
    var isDone: Bool {
        status == "COMPLETED" || status == "CANCELLED" || (status == nil && (completed != nil || percent == 100))
    }

    /// The category and the tags of the CATEGORIES values: with `X-TODOD-CATEGORY` exactly that
    /// category (the other values are tags), with `X-TODOD-NO-CATEGORY` (or when every value is a
    /// tag, `categoriesAreTags`) none, else the first value.
    func categoryAndTags(categoriesAreTags: Bool) -> (category: String?, tags: [String]) {
        var tags = categories
        switch todoCategory {
        case .some(let named):
            if let named, let i = tags.firstIndex(where: { $0.lowercased() == named.lowercased() }) {
                tags.remove(at: i)
            }
            return (named, tags)
        case .none where categoriesAreTags:
            return (nil, tags)
        case .none:
            let category = tags.first
            if !tags.isEmpty { tags.removeFirst() }
            return (category, tags)
        }
    }

    /// Whether `l` has parameters the mapping does not decide (it is then kept, and lends them to
    /// the line written back).
    static func hasOwnParameters(_ l: ContentLine) -> Bool {
        l.parameters.contains { !mappedParameters.contains($0.name) }
    }

    mutating func keepIfParameters(_ l: ContentLine) {
        if Self.hasOwnParameters(l) { kept.append(l.raw) }
    }

    /// Reads property `p` (its value `value`, trimmed) into `field`.
    mutating func read(
        _ p: ContentLine, value: String, as field: TodoField, _ reader: ICalReader, _ zones: TimeZones
    ) throws(ICalError) {
        let text = { ICalReader.text(p) }
        switch field {
        case .uid:
            // The first, as instances are grouped by it (a second UID is invalid and dropped).
            guard givenUID == nil else { return }
            givenUID = text().trimmingSpaces
            keepIfParameters(p)
        case .title:
            title = text()
            keepIfParameters(p)
        case .notes:
            notes = text()
            keepIfParameters(p)
        case .due:
            if p.name == "DURATION" {
                // Read with DTSTART once every property is (`ICalReader.item`); a second is kept.
                if durationLine == nil {
                    durationLine = p
                } else if !value.isEmpty {
                    kept.append(p.raw)
                }
                return
            }
            due = try reader.instant(p, zones)
            keepIfParameters(p)
        case .done where p.name == "STATUS":
            guard !value.isEmpty else { return }
            status = value.uppercased()
            if status != "NEEDS-ACTION" && status != "COMPLETED" || p.parameters.count > 0 { kept.append(p.raw) }
        case .done:
            guard !value.isEmpty else { return } // an empty value says nothing
            guard let v = Int(value), (0...100).contains(v) else {
                throw ICalError(line: p.number, "PERCENT-COMPLETE must be 0 to 100, not \(ContentLine.quote(p.value))")
            }
            percent = v
            if v != 100 && v != 0 || p.parameters.count > 0 { kept.append(p.raw) }
        case .completed:
            completed = try reader.instant(p, zones).0
            keepIfParameters(p)
        case .tags:
            categories += ContentLines.unescape(p.value, separator: ",").map(\.trimmingSpaces).filter { !$0.isEmpty }
            keepIfParameters(p)
        case .category where p.name == "X-TODOD-CATEGORY":
            let v = text().trimmingSpaces
            todoCategory = .some(v.isEmpty ? nil : v)
        case .category:
            if todoCategory == nil { todoCategory = .some(nil) }
        case .remind: return // X-TODOD-NO-REMIND: read by `ICalReader.item` (no default reminder)
        case .priority:
            guard !value.isEmpty else { return } // an empty value says nothing
            guard let v = Int(value), (0...9).contains(v) else {
                throw ICalError(line: p.number, "PRIORITY must be 0 to 9, not \(ContentLine.quote(p.value))")
            }
            priority = v == 0 ? nil : v <= 4 ? .high : v == 5 ? .medium : .low
            if ![0, 1, 5, 9].contains(v) || p.parameters.count > 0 { kept.append(p.raw) }
        case .recurrence:
            switch p.name {
            case "RRULE":
                // Parts in one order, whatever order a server stores them in.
                rule = (try? RecurrenceRule(parsing: value))?.text ?? value.uppercased()
                ruleLine = p
            case "EXDATE":
                kept.append(p.raw) // travels as it came; its dates are honoured (docs/ICALENDAR.md)
                exdates += reader.recurrenceDates(p, zones)
            case "RDATE":
                kept.append(p.raw)
                rdates += reader.recurrenceDates(p, zones)
            default: fromCompletion = value.uppercased() == "COMPLETION" // X-TODOD-RECUR-FROM
            }
        case .position: sortOrder = Int64(value)
        case .created: created = try reader.instant(p, zones).0
        case .updated where p.name == "LAST-MODIFIED": modified = try reader.instant(p, zones).0
        case .updated: stamp = try reader.instant(p, zones).0
        case .zone: zoneName = text().trimmingSpaces
        case .start:
            let start = try reader.instant(p, zones)
            dtstart = start.0
            dtstartLine = p
            dtstartTzid = start.tzid
            kept.append("^\(start.0.usec) " + p.raw) // the line it came in, written again while it says the start
            // A date on a todo whose due is a time (or that has none): written back as a date.
            if start.allDay {
                kept.append("!START-DATE")
                startIsDate = true
            }
        case .parent:
            // RELTYPE defaults to PARENT; CHILD names a subtask (linked by the reader of the
            // whole file); other relations are kept as they are.
            let reltype = p.parameter("RELTYPE")?.uppercased() ?? "PARENT"
            let related = text().trimmingSpaces
            if related.isEmpty { return }
            if reltype == "PARENT", parentUID == nil, p.parameters.allSatisfy({ $0.name == "RELTYPE" }) {
                parentUID = related
            } else {
                if reltype == "CHILD" { childUIDs.append(related) }
                kept.append(p.raw)
            }
        // No property of their own (`vtodoProperties` is empty): never dispatched here.
        case .id, .reminded, .revision, .subtasks, .parentUid, .allDay, .alarms:
            if !value.isEmpty { kept.append(p.raw) }
        }
    }
}
