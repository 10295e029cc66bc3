import TodoCalendar
import TodoCore
import TodoTime

/// The places of a VTODO's lines, in the order they are written (other clients and the golden
/// files read them in this order): each field's lines go to their place (`VTodoWriter.lines`).
enum VTodoPlace: Int, Comparable {
    case uid, stamp, created, modified, summary, description, due, start, status, completed, percent, priority
    case categories, categoryMark, rule, recurFrom, parent, zone, sortOrder
    /// The kept lines written back as they came.
    case kept
    case noRemind, alarms

    static func < (a: VTodoPlace, b: VTodoPlace) -> Bool { a.rawValue < b.rawValue }
}

/// Writes one entry as the lines of a VTODO: each field of `TodoField` by an exhaustive switch
/// (`lines(of:)`), placed by `VTodoPlace`, with the kept lines (`KeptLines`) in theirs.
struct VTodoWriter {
    var e: ExportDocument.Entry
    var kept: KeptLines
    /// Its `X-APPLE-SORT-ORDER`.
    var sortOrder: Int
    /// The todo's zone as read from the tz database, and its name (the TZID written) when known there.
    var zone: (info: ZoneInfo, tzid: String?)
    var tzdir: String?

    /// The unfolded lines, `BEGIN:VTODO` to `END:VTODO`, then the resource's other components.
    func lines() -> [String] {
        var placed: [(VTodoPlace, String)] = []
        for field in TodoField.allCases { placed += lines(of: field) }
        // Thunderbird's dismissal and snooze brought up to date with the alarms.
        let recurs =
            e.recurrence != nil || kept.templates["RRULE"] != nil
            || kept.rest.contains { $0.uppercased().hasPrefix("RDATE") }
        let occurrence = (e.start ?? e.due).flatMap { anchor in
            recurs ? ThunderbirdAlarmState.Occurrence(anchor: anchor, allDay: e.allDay, zone: zone.info) : nil
        }
        placed += ICalWriter.wellFormed(ThunderbirdAlarmState.written(kept.rest, e, occurrence: occurrence)).map {
            (.kept, $0)
        }
        // Stable: the lines of one place keep the order they were made in.
        var lines = ["BEGIN:VTODO"]
        lines += placed.enumerated().sorted { a, b in
            a.element.0 != b.element.0 ? a.element.0 < b.element.0 : a.offset < b.offset
        }.map(\.element.1)
        // The one alarm of an older export without `alarms` first among the components.
        if e.alarms?.isEmpty ?? true, e.remind != nil { ICalWriter.mappedAlarmFirst(&lines) }
        lines.append("END:VTODO")
        // The resource's other components (instances edited elsewhere), as they came.
        lines += ICalWriter.wellFormedInstances(kept.instances)
        return lines
    }

    /// The lines that carry `field`, each with its place.
    func lines(of field: TodoField) -> [(VTodoPlace, String)] {
        func put(
            _ place: VTodoPlace, _ name: String, _ value: String, parameters: [(name: String, values: [String])] = [],
            keepValue: (String) -> Bool = { _ in false }
        ) -> [(VTodoPlace, String)] {
            kept.line(name, value, parameters: parameters, keepValue: keepValue).map { [(place, $0)] } ?? []
        }
        switch field {
        case .uid: return put(.uid, "UID", ContentLines.escape(e.uid ?? ""))
        case .updated:
            return put(.stamp, "DTSTAMP", ICalDate.utcText(e.updated))
                + put(.modified, "LAST-MODIFIED", ICalDate.utcText(e.updated))
        case .created: return put(.created, "CREATED", ICalDate.utcText(e.created))
        case .title:
            guard !(kept.notes.contains("!NO-SUMMARY") && e.title == ICalReader.untitled) else { return [] }
            return put(.summary, "SUMMARY", ContentLines.escape(e.title))
        case .notes: return e.notes.map { put(.description, "DESCRIPTION", ContentLines.escape($0)) } ?? []
        case .due:
            guard let due = e.due else { return [] }
            let v = dateValue(due)
            return put(.due, "DUE", v.value, parameters: v.parameters)
        case .start: return startLine().map { [(.start, $0)] } ?? []
        case .done:
            let open: (String) -> Bool = { $0 == "IN-PROCESS" || $0 == "NEEDS-ACTION" }
            let closed: (String) -> Bool = { $0 == "CANCELLED" || $0 == "COMPLETED" }
            let status = put(
                .status, "STATUS", e.done ? "COMPLETED" : "NEEDS-ACTION", keepValue: e.done ? closed : open)
            if e.done { return status + put(.percent, "PERCENT-COMPLETE", "100") }
            if let t = kept.templates["PERCENT-COMPLETE"], let p = Int(t.value.trimmingSpaces), (0..<100).contains(p) {
                return status + put(.percent, "PERCENT-COMPLETE", String(p))
            }
            return status
        case .completed:
            return e.done ? put(.completed, "COMPLETED", ICalDate.utcText(e.completed ?? e.updated)) : []
        case .priority:
            guard let p = e.priority else { return [] }
            let value = p == .high ? "1" : p == .medium ? "5" : "9"
            return put(.priority, "PRIORITY", value) { kept in
                guard let v = Int(kept) else { return false }
                return p == .high ? (1...4).contains(v) : p == .medium ? v == 5 : (6...9).contains(v)
            }
        case .tags:
            // Each tag as the value it came from, when it came from one (`Home Office` for `Home-Office`).
            let tagValues = e.tags.map { tag in
                kept.categoryValues.first { ICalReader.tags([$0]).first?.lowercased() == tag.lowercased() } ?? tag
            }
            let categories = (e.category.map { [$0] } ?? []) + tagValues
            guard !categories.isEmpty else { return [] }
            return put(.categories, "CATEGORIES", categories.map(ContentLines.escape).joined(separator: ","))
        case .category:
            guard e.category != nil || !e.tags.isEmpty else { return [] }
            if let category = e.category {
                return put(.categoryMark, "X-TODOD-CATEGORY", ContentLines.escape(category))
            }
            // The tags alone: no value is the first one's category.
            return put(.categoryMark, "X-TODOD-NO-CATEGORY", "TRUE")
        case .recurrence:
            if let r = e.recurrence {
                return put(.rule, "RRULE", r.rule)
                    + (r.from == .completion ? put(.recurFrom, "X-TODOD-RECUR-FROM", "COMPLETION") : [])
            }
            // A rule todod does not follow (no due date, or outside its subset).
            return kept.templates["RRULE"].map { [(.rule, $0.raw)] } ?? []
        case .parent:
            guard let parent = e.parent else { return [] }
            return [
                (
                    .parent,
                    ContentLine(
                        name: "RELATED-TO", parameters: [("RELTYPE", ["PARENT"])], value: ContentLines.escape(parent)
                    )
                    .text
                )
            ]
        case .zone:
            // The zone of a todo whose DUE does not name it (all-day, or a zone unknown here).
            guard let z = e.zone, e.allDay || zone.tzid == nil || e.due == nil else { return [] }
            return put(.zone, "X-TODOD-ZONE", ContentLines.escape(z))
        case .position: return put(.sortOrder, "X-APPLE-SORT-ORDER", String(sortOrder))
        case .remind:
            // A due date without a reminder, which another client's file would give one by default.
            let none = e.due != nil && e.remind == nil ? put(.noRemind, "X-TODOD-NO-REMIND", "TRUE") : []
            guard e.alarms?.isEmpty ?? true else { return none }
            return none + AlarmWriter(e: e, kept: kept).onlyAlarm().map { (.alarms, $0) }
        case .alarms:
            guard let alarms = e.alarms, !alarms.isEmpty else { return [] }
            return AlarmWriter(e: e, kept: kept).valarms(alarms).map { (.alarms, $0) }
        // In DUE's and DTSTART's form, in the alarms' ACKNOWLEDGED, in `parent`'s RELATED-TO.
        case .allDay, .reminded, .parentUid: return []
        // Not in a VTODO: the store's own, or following from other todos.
        case .id, .revision, .subtasks: return []
        }
    }

    /// An instant as DUE writes it: the day of an all-day todo, local time in a known zone, else UTC.
    func dateValue(_ t: Instant) -> (parameters: [(name: String, values: [String])], value: String) {
        if e.allDay {
            // Within the years 0001 to 9999 even where the zone's day starts outside them.
            let day = min(max(LocalTime(t, in: zone.info).days, -719_162), 2_932_896)
            return ([("VALUE", ["DATE"])], ICalDate.dateText(days: day))
        }
        if let tzid = zone.tzid, case let local = LocalTime(t, in: zone.info),
            (-719_162...2_932_896).contains(local.days)
        {
            // In its zone, which the calendar's VTIMEZONE explains to every reader (UTC for an
            // instant whose local day falls outside the years 0001 to 9999).
            return (
                [("TZID", [tzid])], ICalDate.dateText(days: local.days) + "T" + ICalDate.timeText(local.secondOfDay)
            )
        }
        return ([], ICalDate.utcText(t))
    }

    /// The DTSTART line: the start in the form it came, else in DUE's form (a date for an all-day
    /// todo or a date start); a DTSTART kept by a release that did not read starts; for a
    /// recurring todo without a start, at its due (the rule's anchor, RFC 5545, so every reader
    /// computes the occurrences todod does).
    func startLine() -> String? {
        if let start = e.start {
            if let t = kept.startForm,
                let written = t.usec == start.usec ? t.line.raw : startLine(t.line, at: start)
            {
                return written
            }
            // In DUE's form (a date for an all-day todo or a date start).
            var v = dateValue(start)
            if !e.allDay, kept.notes.contains("!START-DATE") {
                v = (
                    [("VALUE", ["DATE"])],
                    ICalDate.dateText(days: min(max(LocalTime(start, in: zone.info).days, -719_162), 2_932_896))
                )
            }
            return ContentLine(name: "DTSTART", parameters: v.parameters, value: v.value).text
        }
        if let t = kept.startTemplate { return t.raw }
        if let due = e.due, e.recurrence != nil {
            let v = dateValue(due)
            return ContentLine(name: "DTSTART", parameters: v.parameters, value: v.value).text
        }
        return nil
    }

    /// DTSTART `t` (the line the start was read from) moved to `start`, in its own form: a date,
    /// local time in its TZID's zone, floating (the todo's zone) or UTC. Nil when its form cannot
    /// say it (a TZID only its own VTIMEZONE explains, a year past 9999).
    func startLine(_ t: ContentLine, at start: Instant) -> String? {
        var value: String
        if t.parameter("VALUE")?.uppercased() == "DATE" {
            let days = LocalTime(start, in: zone.info).days
            guard (-719_162...2_932_896).contains(days) else { return nil }
            value = ICalDate.dateText(days: days)
        } else if t.value.trimmingSpaces.uppercased().hasSuffix("Z") {
            value = ICalDate.utcText(start)
        } else {
            var local = zone.info
            if let tzid = t.parameter("TZID") {
                guard let resolved = TimeZones.resolve(tzid, tzdir: tzdir)?.zone else { return nil }
                local = resolved
            }
            let l = LocalTime(start, in: local)
            guard (-719_162...2_932_896).contains(l.days) else { return nil }
            value = ICalDate.dateText(days: l.days) + "T" + ICalDate.timeText(l.secondOfDay)
        }
        return value == t.value.trimmingSpaces
            ? t.raw : ContentLine(name: "DTSTART", parameters: t.parameters, value: value).text
    }
}
