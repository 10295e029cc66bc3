import TodoCalendar
import TodoCore
import TodoProtocol
import TodoTime
import TodoWhen

/// `task export` (Taskwarrior 2.6 and 3.x: a JSON array, or one object per line) as an export
/// document: description → title, project → category, tags, priority H/M/L, due, entry/modified/
/// end → created/updated/completed, uuid → uid (so importing again changes nothing), annotations
/// and depends → notes lines, scheduled (else wait) → start, a recurring
/// template and its instances → one recurring todo due at the next pending instance.
struct TaskwarriorImport {
    let context: ForeignImport.Context

    /// The members todod reads; anything else (user-defined attributes) goes to the report.
    static let known: Set<String> = [
        "id", "uuid", "description", "status", "entry", "modified", "end", "due", "wait", "scheduled", "until",
        "recur", "rtype", "mask", "imask", "parent", "project", "tags", "priority", "annotations", "depends",
        "urgency", "start"
    ]

    /// One task as read, before the recurring ones are folded.
    private struct Task {
        var object: JSONObject
        var uuid: String
        var status: String
        var entry: ExportDocument.Entry
        /// A recur value todod has no rule for: the task imports as a one-off todo.
        var foreignRecur: String? = nil
    }

    /// The tasks of `bytes` converted; an entry that cannot be read is refused (listed with its
    /// place) and the others are converted. Throws only when the file is no Taskwarrior export at all.
    func convert(_ bytes: [UInt8]) throws(ForeignImportError) -> ForeignImport {
        var tasks: [Task] = []
        var places: [String: String] = [:]
        var refused: [String] = []
        for (place, item) in try Self.objects(bytes) {
            do throws(ForeignImportError) {
                let t = try task(try item.get(), place)
                if let first = places[t.uuid] {
                    throw ForeignImportError("\(place): uuid \(t.uuid) is also the uuid of \(first)")
                }
                places[t.uuid] = place
                tasks.append(t)
            } catch {
                refused.append(error.message)
            }
        }

        var unmapped: [String] = []
        var deleted: [String] = []
        var instances = 0
        var orphans: [String] = []
        var started: [String] = []
        var extra: [String: Int] = [:]
        var foreignRecur: [String] = []
        var waitDropped: [String] = []
        var otherPriority: [String] = []
        var expiring: [String] = []
        let byUUID = Dictionary(uniqueKeysWithValues: tasks.map { ($0.uuid, $0) })
        // The next pending instance of each template: the earliest due among its pending children.
        // Without one (Taskwarrior makes the next instance only later), the occurrence after the
        // latest instance of any status.
        var nextDue: [String: Instant] = [:]
        var lastDue: [String: Instant] = [:]
        var lastChange: [String: Instant] = [:]
        for t in tasks {
            guard let parent = t.object["parent"]?.stringValue else { continue }
            lastChange[parent] = max(lastChange[parent] ?? t.entry.updated, t.entry.updated)
            guard let due = t.entry.due else { continue }
            if lastDue[parent].map({ due > $0 }) ?? true { lastDue[parent] = due }
            guard t.status == "pending" || t.status == "waiting" else { continue }
            if nextDue[parent].map({ due < $0 }) ?? true { nextDue[parent] = due }
        }
        var todos: [ExportDocument.Entry] = []
        for t in tasks {
            let o = t.object
            for key in o.keys where !Self.known.contains(key) { extra[key, default: 0] += 1 }
            if t.status == "deleted" {
                deleted.append(t.entry.title)
                continue
            }
            if let parent = o["parent"]?.stringValue {
                if let template = byUUID[parent], template.status != "deleted" {
                    instances += 1
                    continue
                }
                orphans.append(t.entry.title)
            }
            var e = t.entry
            if t.status == "recurring", let start = e.due {
                // A change to any instance (one completed) is a change to the recurring todo.
                e.updated = max(e.updated, lastChange[t.uuid] ?? e.updated)
                if let next = nextDue[t.uuid] {
                    e.due = next
                } else if let last = lastDue[t.uuid],
                    let rule = e.recurrence.flatMap({ try? RecurrenceRule(parsing: $0.rule) })
                {
                    if let next = rule.next(after: last, start: start, zone: context.zone, allDay: e.allDay) {
                        e.due = next
                    } else { // the series ended with its last instance
                        e.due = last
                        e.done = true
                        e.completed = e.updated
                    }
                }
                e.allDay = e.due.map(isMidnight) ?? false
            }
            if let recur = t.foreignRecur { foreignRecur.append("\(e.title) (\(recur))") }
            if o["start"] != nil, !e.done { started.append(e.title) }
            if o["wait"] != nil, o["scheduled"] != nil { waitDropped.append(e.title) }
            if let p = o["priority"]?.stringValue, !["H", "M", "L"].contains(p) { otherPriority.append(p) }
            if e.recurrence == nil, let until = o["until"]?.stringValue.flatMap(Self.instant) {
                // Taskwarrior deletes the task then; todod keeps it, and says so in the notes.
                e.notes = Self.joined(
                    e.notes, "Until (Taskwarrior deletes it then): " + LocalTime(until, in: context.zone).text)
                expiring.append(e.title)
            }
            // Dependencies by title where the file has the task, with the uuid in any case.
            if let depends = o["depends"] {
                let uuids =
                    depends.arrayValue?.compactMap(\.stringValue)
                    ?? depends.stringValue.map { $0.split(separator: ",").map(String.init) } ?? []
                if !uuids.isEmpty {
                    let named = uuids.map { u in byUUID[u].map { "\($0.entry.title) (\(u))" } ?? u }
                    e.notes = Self.joined(e.notes, "Depends on: " + named.joined(separator: ", "))
                }
            }
            todos.append(e)
        }
        if !deleted.isEmpty { unmapped.append("not imported: \(ForeignImport.some(deleted, "deleted task"))") }
        if instances > 0 {
            unmapped.append(
                "\(instances) instance\(instances == 1 ? "" : "s") of recurring tasks folded into their recurring todo (due at the next pending one)"
            )
        }
        if !orphans.isEmpty {
            unmapped.append(
                "imported as one-off todos: \(ForeignImport.some(orphans, "recurring instance")) whose template is not in the file"
            )
        }
        if !foreignRecur.isEmpty {
            unmapped.append(
                "imported as one-off todos (todod repeats by days at the finest): \(ForeignImport.some(foreignRecur, "task"))"
            )
        }
        if !started.isEmpty {
            unmapped.append(
                "no start/stop tracking in todod: \(ForeignImport.some(started, "active task")) imported as not started"
            )
        }
        if !waitDropped.isEmpty {
            unmapped.append("wait dropped where scheduled was the start: \(ForeignImport.some(waitDropped, "task"))")
        }
        if !otherPriority.isEmpty {
            unmapped.append(
                "priorities other than H, M and L imported as none: \(Set(otherPriority).sorted().joined(separator: ", "))"
            )
        }
        for (key, n) in extra.sorted(by: { $0.key < $1.key }) {
            unmapped.append("attribute \(key) (\(n) task\(n == 1 ? "" : "s")) has no counterpart and was not imported")
        }
        if tasks.contains(where: { $0.object["urgency"] != nil }) {
            unmapped.append("urgency is computed by Taskwarrior; todod sorts by priority and due instead")
        }
        if !expiring.isEmpty {
            unmapped.append(
                "until (the date Taskwarrior deletes a task) has no counterpart: kept as a notes line on \(ForeignImport.some(expiring, "task"))"
            )
        }
        return ForeignImport(
            document: ExportDocument(categories: ForeignImport.categories(todos), todos: todos, exported: context.now),
            unmapped: unmapped, refused: refused)
    }

    /// The task objects of an export, each parsed on its own, with its place for messages:
    /// `line N` (where the entry starts; in an array also `entry N`). An entry that is not valid
    /// JSON is a failure of its own; the others are read.
    static func objects(_ bytes: [UInt8]) throws(ForeignImportError) -> [(String, Result<JSON, ForeignImportError>)] {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        let body = bytes[start...]
        guard let first = body.first(where: { ![0x20, 0x09, 0x0D, 0x0A].contains($0) }) else { return [] }
        func parsed(_ text: ArraySlice<UInt8>, _ place: String) -> (String, Result<JSON, ForeignImportError>) {
            do { return (place, .success(try JSON.parse(text))) } catch {
                return (place, .failure(ForeignImportError("\(place): not valid JSON: \(error.description)")))
            }
        }
        if first == UInt8(ascii: "[") {
            return arrayEntries(body).enumerated().map {
                parsed($0.element.bytes, "line \($0.element.line) (entry \($0.offset + 1))")
            }
        }
        var result: [(String, Result<JSON, ForeignImportError>)] = []
        for (i, line) in lines(body).enumerated() {
            var text = line
            while let last = text.last, [0x20, 0x09, 0x2C].contains(last) { text = text.dropLast() } // "},"
            guard text.contains(where: { ![0x20, 0x09].contains($0) }) else { continue }
            result.append(parsed(text, "line \(i + 1)"))
        }
        return result
    }

    /// The lines of `bytes`: LF, CRLF and CR each end one.
    static func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == 0x0A || b == 0x0D {
                result.append(bytes[start..<i])
                if b == 0x0D, i + 1 < bytes.endIndex, bytes[i + 1] == 0x0A { i += 1 }
                start = i + 1
            }
            i += 1
        }
        if start < bytes.endIndex { result.append(bytes[start...]) }
        return result
    }

    /// The members of the JSON array `bytes` as text, each with the line it starts on, found
    /// by brackets and strings alone, so one entry that is not valid JSON spoils only itself.
    static func arrayEntries(_ bytes: ArraySlice<UInt8>) -> [(bytes: ArraySlice<UInt8>, line: Int)] {
        var entries: [(bytes: ArraySlice<UInt8>, line: Int)] = []
        var depth = 0
        var inString = false
        var escaped = false
        var line = 1
        var afterCR = false
        var start: Int?
        var startLine = 1
        func close(_ end: Int) {
            if let s = start {
                var text = bytes[s..<end]
                while let last = text.last, [0x20, 0x09, 0x0D, 0x0A].contains(last) { text = text.dropLast() }
                entries.append((text, startLine))
            }
            start = nil
        }
        for i in bytes.indices {
            let b = bytes[i]
            if b == 0x0A { if !afterCR { line += 1 } } else if b == 0x0D { line += 1 }
            afterCR = b == 0x0D
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                }
                continue
            }
            switch b {
            case 0x5B, 0x7B: // [ {
                if depth == 1 && start == nil {
                    start = i
                    startLine = line
                }
                depth += 1
            case 0x5D, 0x7D: // ] }
                depth -= 1
                if depth == 0 {
                    close(i)
                    return entries
                }
            case 0x2C where depth == 1:
                close(i)
            case 0x20, 0x09, 0x0D, 0x0A:
                break
            default:
                if depth == 1 && start == nil {
                    start = i
                    startLine = line
                }
                if b == 0x22 { inString = true }
            }
        }
        close(bytes.endIndex) // an array never closed: its last entry as far as it goes
        return entries
    }

    private func task(_ value: JSON, _ place: String) throws(ForeignImportError) -> Task {
        func fail(_ what: String) -> ForeignImportError { ForeignImportError("\(place): \(what)") }
        guard case .object(let o) = value else { throw fail("expected a task object, found \(value.typeName)") }
        func string(_ key: String) throws(ForeignImportError) -> String? {
            guard let v = o[key], v != .null else { return nil }
            guard let s = v.stringValue else { throw fail("\(key) must be a string") }
            return s
        }
        func date(_ key: String) throws(ForeignImportError) -> Instant? {
            guard let s = try string(key) else { return nil }
            guard let instant = Self.instant(s) else {
                throw fail("\(key) \(quote(s)) is not a Taskwarrior date (20261224T090000Z)")
            }
            return instant
        }
        guard let uuid = try string("uuid"), !uuid.isEmpty else { throw fail("has no uuid") }
        guard let description = try string("description") else { throw fail("has no description") }
        let status = try string("status") ?? "pending"
        guard ["pending", "waiting", "completed", "deleted", "recurring"].contains(status) else {
            throw fail("unknown status \(quote(status))")
        }
        let created = try date("entry") ?? context.now
        let due = try date("due")
        var e = ExportDocument.Entry(title: "", created: created, updated: try date("modified") ?? created, uid: uuid)
        let project = try string("project")
        var tagList: [String] = []
        if let tags = o["tags"] {
            guard let list = tags.arrayValue?.map(\.stringValue), !list.contains(nil) else {
                throw fail("tags must be an array of strings")
            }
            tagList = list.compactMap { $0 }
        }
        do throws(TodoError) {
            e.title = try Validation.title(description)
            if let project { e.category = try Validation.categoryName(project) }
            e.tags = try Validation.tags(tagList)
        } catch {
            throw fail("\(error)")
        }
        e.priority =
            switch try string("priority") {
            case "H": .high
            case "M": .medium
            case "L": .low
            default: nil
            }
        e.due = due
        if let due {
            e.allDay = isMidnight(due)
            e.zone = context.zoneName
        }
        if status == "completed" {
            e.done = true
            e.completed = try date("end") ?? e.updated
        }
        // Annotations: one notes line each, with its local date and time.
        if let annotations = o["annotations"] {
            guard let list = annotations.arrayValue else { throw fail("annotations must be an array") }
            for (i, a) in list.enumerated() {
                guard let text = a["description"]?.stringValue else {
                    throw fail("annotations[\(i)] has no description")
                }
                let when =
                    a["entry"]?.stringValue.flatMap(Self.instant).map { LocalTime($0, in: context.zone).text + " " }
                    ?? ""
                e.notes = Self.joined(e.notes, when + text)
            }
        }
        let scheduled = try date("scheduled")
        let wait = try date("wait")
        e.start = scheduled ?? wait
        var foreign: String?
        if status == "recurring", let recur = try string("recur"), due != nil {
            if var rule = Self.rule(recur) {
                if let until = try date("until") { rule += ";UNTIL=" + Self.basic(until) }
                do { rule = try RecurrenceRule(parsing: rule).text } catch {
                    throw fail("recur \(quote(recur)): \(error)")
                }
                e.recurrence = TodoRecurrence(rule: rule, from: .due)
            } else {
                foreign = recur
            }
        }
        do throws(TodoError) {
            if let notes = e.notes { e.notes = try Validation.notes(notes) }
        } catch {
            throw fail("\(error)")
        }
        return Task(object: o, uuid: uuid, status: status, entry: e, foreignRecur: foreign)
    }

    /// Whether `instant` is a local midnight: Taskwarrior's `due:2026-12-24` (an all-day todo here).
    private func isMidnight(_ instant: Instant) -> Bool {
        LocalTime(instant, in: context.zone).secondOfDay == 0 && instant.usec % 1_000_000 == 0
    }

    private func quote(_ text: String) -> String { TimeExpression.quoted(text) }

    private static func joined(_ notes: String?, _ line: String) -> String { notes.map { $0 + "\n" + line } ?? line }

    /// `20261224T090000Z` (and the extended `2026-12-24T09:00:00Z`) as an instant.
    static func instant(_ text: String) -> Instant? {
        let b = Array(text.utf8)
        guard b.count == 16, b[8] == UInt8(ascii: "T"), b[15] == UInt8(ascii: "Z") else {
            return Instant(rfc3339: text)
        }
        let s = String(decoding: b, as: UTF8.self)
        func part(_ from: Int, _ count: Int) -> Substring { s.dropFirst(from).prefix(count) }
        return Instant(
            rfc3339: "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(9, 2)):\(part(11, 2)):\(part(13, 2))Z")
    }

    /// An instant in iCalendar's UTC form, `20261224T090000Z`.
    static func basic(_ instant: Instant) -> String {
        instant.rfc3339().filter { $0 != "-" && $0 != ":" }
    }

    /// Taskwarrior's `recur` (`weekly`, `3d`, `2wks`, `monthly`, `P1Y`…) as an RRULE, or nil
    /// where todod has none (hours, minutes, seconds).
    static func rule(_ recur: String) -> String? {
        let named: [String: String] = [
            "daily": "FREQ=DAILY", "day": "FREQ=DAILY", "weekdays": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
            "weekly": "FREQ=WEEKLY", "week": "FREQ=WEEKLY", "biweekly": "FREQ=WEEKLY;INTERVAL=2",
            "fortnight": "FREQ=WEEKLY;INTERVAL=2", "monthly": "FREQ=MONTHLY", "month": "FREQ=MONTHLY",
            "bimonthly": "FREQ=MONTHLY;INTERVAL=2", "quarterly": "FREQ=MONTHLY;INTERVAL=3",
            "semiannual": "FREQ=MONTHLY;INTERVAL=6", "biannual": "FREQ=YEARLY;INTERVAL=2",
            "biyearly": "FREQ=YEARLY;INTERVAL=2",
            "annual": "FREQ=YEARLY", "yearly": "FREQ=YEARLY", "year": "FREQ=YEARLY"
        ]
        var text = recur.lowercased().filter { $0 != " " }
        if let rule = named[text] { return rule }
        // ISO 8601 durations of one unit: P1D, P2W, P3M, P1Y.
        if text.hasPrefix("p"), !text.contains("t") { text.removeFirst() }
        let digits = text.prefix(while: \.isASCII).prefix(while: \.isNumber)
        let unit = text.dropFirst(digits.count)
        guard let n = digits.isEmpty ? 1 : Int(digits), n >= 1, n <= 1000 else { return nil }
        let freq: String
        let factor: Int
        switch unit {
        case "d", "day", "days", "daily": (freq, factor) = ("DAILY", 1)
        case "w", "wk", "wks", "week", "weeks", "weekly": (freq, factor) = ("WEEKLY", 1)
        case "mo", "mos", "mth", "mths", "month", "months", "monthly": (freq, factor) = ("MONTHLY", 1)
        case "q", "qtr", "qtrs", "quarter", "quarters", "quarterly": (freq, factor) = ("MONTHLY", 3)
        case "y", "yr", "yrs", "year", "years", "yearly": (freq, factor) = ("YEARLY", 1)
        default: return nil
        }
        let interval = n * factor
        return "FREQ=\(freq)" + (interval == 1 ? "" : ";INTERVAL=\(interval)")
    }
}
