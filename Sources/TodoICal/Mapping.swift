import TodoCalendar
import TodoCore
import TodoTime

// The todo <-> VTODO mapping of SPEC §9 (docs/ICALENDAR.md has the table).

/// `Entry.ical` holds one unfolded content line per line; lines starting with `>` after a line
/// `!ALARM <uid>` belong to that alarm (its properties todod does not map, DESCRIPTION unless it is
/// the title, and its form: `>!AUDIO`, `>!NO-RELATED`; `>!ABSOLUTE` of an older release is left out) and are written back inside its
/// VALARM (`>` lines before any `!ALARM`, from an older release, belong to the first alarm); a line starting with `+`
/// belongs to another component of the same resource (an instance of a recurring todo edited
/// or completed elsewhere: a VTODO with RECURRENCE-ID), written back after the todo's own VTODO.
/// Lines starting with `~` are a VTIMEZONE the kept lines' TZID needs that names no zone known
/// here (written back when a line of the calendar uses that TZID).
/// Lines starting with `!` are notes of the mapping itself and are never written: `!NO-SUMMARY`
/// (the VTODO had no SUMMARY; its title is `untitled` until it gets one), `!CATEGORIES:...`
/// (the CATEGORIES values as they came, so tags made of them are written back as they were),
/// `!START-DATE` (the start was a date on a todo with a time), `^<usec> DTSTART...` (the line the
/// start was read from and the start it said: written as it came while the start is that),
/// `!ALARM-ABSOLUTE` (the mapped alarm's trigger was an instant, and is written as one),
/// `!ALARM-START` and `!ALARM-RELATED-START` (its trigger was relative to DTSTART, without RELATED
/// or with `RELATED=START`, and is written so while the todo has a start), `!ALARM-AUDIO` (its
/// ACTION was AUDIO, and is written so), `!REMIND-DEFAULT <usec>` (the VTODO had no alarm; its
/// reminder is the default, this far after the due date, and no VALARM is written while it is).
///
/// The properties the mapping writes itself. A VTODO's other properties, and these when they carry
/// parameters todod does not model (or a value it would write differently, for STATUS, PRIORITY
/// and PERCENT-COMPLETE), are kept in `Entry.ical`.
let mappedNames: Set<String> = [
    "UID", "SUMMARY", "DESCRIPTION", "DUE", "STATUS", "COMPLETED", "PERCENT-COMPLETE", "CATEGORIES",
    "X-TODOD-CATEGORY", "PRIORITY", "RRULE", "X-TODOD-RECUR-FROM", "X-APPLE-SORT-ORDER", "CREATED",
    "LAST-MODIFIED", "DTSTAMP", "X-TODOD-ZONE", "X-TODOD-NO-CATEGORY", "DTSTART", "X-TODOD-NO-REMIND"
]

/// Parameters the mapping itself decides; others on a mapped property are kept.
let mappedParameters: Set<String> = ["VALUE", "TZID"]

/// Reads VTODOs into export-document entries.
package struct ICalReader: Sendable {
    /// The zone floating times and dates are read in (the user's), and its IANA name (the
    /// `zone` of todos that name none).
    package var zone: ZoneInfo
    package var zoneName: String?
    package var tzdir: String?
    /// `created` of a VTODO that says nothing about when it was made.
    package var now: Instant
    /// Every `CATEGORIES` value is a tag (a calendar that is a list is the category): without
    /// `X-TODOD-CATEGORY` no value becomes the category.
    package var categoriesAreTags = false
    /// The reminder of a VTODO from elsewhere that has a due date and no alarm (`remind-default`):
    /// at its due, or for an all-day due at this many seconds after that day's midnight
    /// (`remind-time`); nil (`remind-default = none`): none. No VALARM is written for it
    /// (`!REMIND-DEFAULT`) while it stays so far from the due date. A VTODO with
    /// `X-TODOD-NO-REMIND` (todod writes it for a due date without a reminder) gets none.
    package var defaultRemindTime: Int64? = 9 * 3600

    /// The title of a VTODO without SUMMARY (what todod shows; no SUMMARY is written back for it
    /// until the title changes).
    package static let untitled = "(no title)"

    package init(zone: ZoneInfo, zoneName: String?, tzdir: String? = nil, now: Instant) {
        self.zone = zone
        self.zoneName = zoneName
        self.tzdir = tzdir
        self.now = now
    }

    /// One VTODO read, with its place in the manual order (`X-APPLE-SORT-ORDER`) when it has one.
    package struct Item: Sendable {
        package var entry: ExportDocument.Entry
        package var sortOrder: Int64?
        /// The BEGIN:VTODO line.
        package var line: Int
        /// Whether `remind` was read from a trigger relative to the due date (else an instant).
        package var relativeReminder = false
        /// The uids this VTODO names as its subtasks (`RELATED-TO;RELTYPE=CHILD`).
        package var children: [String] = []
    }

    /// Every VTODO of an iCalendar file (VEVENTs, VJOURNALs and others are not todos and are skipped).
    /// - Throws: `ICalError` with the line number: the first problem in the file, so that nothing
    ///   of a bad file is imported.
    package func items(_ bytes: [UInt8]) throws(ICalError) -> [Item] { try file(bytes).items }

    /// The todos of an iCalendar file and how many components of each other kind (`VEVENT`,
    /// `VJOURNAL`, ...) it holds beside them. VTODOs sharing a UID are one todo: the one without
    /// RECURRENCE-ID (or else the first) is the todo, the others (instances edited or completed
    /// elsewhere) are kept with it, and an instance completed elsewhere is not due here.
    package func file(_ bytes: [UInt8]) throws(ICalError) -> (items: [Item], skipped: [String: Int]) {
        let calendars = try Component.parse(bytes)
        let zones = try TimeZones(calendars, tzdir: tzdir)
        var skipped: [String: Int] = [:]
        var groups: [[Component]] = []
        var byUID: [String: Int] = [:]
        for cal in calendars {
            for c in cal.components {
                guard c.name == "VTODO" else {
                    if c.name != "VTIMEZONE" { skipped[c.name, default: 0] += 1 }
                    continue
                }
                let uid = c.property("UID").map { ContentLines.unescape($0.value)[0].trimmingSpaces } ?? ""
                if !uid.isEmpty, let i = byUID[uid] {
                    groups[i].append(c)
                } else {
                    if !uid.isEmpty { byUID[uid] = groups.count }
                    groups.append([c])
                }
            }
        }
        var items: [Item] = []
        items.reserveCapacity(groups.count)
        for group in groups {
            let master = group.firstIndex { $0.property("RECURRENCE-ID") == nil } ?? 0
            var others = group
            others.remove(at: master)
            items.append(try item(group[master], zones, instances: others))
        }
        // A parent that names its subtasks (RELTYPE=CHILD): each such subtask of this file
        // that names no parent of its own is its subtask.
        let index = Dictionary(
            items.enumerated().compactMap { i, item in item.entry.uid.map { ($0, i) } }, uniquingKeysWith: { a, _ in a }
        )
        for item in items {
            guard let uid = item.entry.uid else { continue }
            for child in item.children {
                if let c = index[child], items[c].entry.parent == nil, child != uid { items[c].entry.parent = uid }
            }
        }
        return (items, skipped)
    }

    /// The export document of one or more files' items: sorted by `X-APPLE-SORT-ORDER` (items
    /// without one after, in file order), categories in the order they first appear.
    package static func document(_ items: [Item], exported: Instant) -> ExportDocument {
        let sorted = items.enumerated().sorted { a, b in
            switch (a.element.sortOrder, b.element.sortOrder) {
            case (let x?, let y?): return x != y ? x < y : a.offset < b.offset
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element.entry)
        var seen: Set<String> = []
        var categories: [String] = []
        for e in sorted {
            if let c = e.category, seen.insert(c.lowercased()).inserted { categories.append(c) }
        }
        return ExportDocument(categories: categories, todos: sorted, exported: exported)
    }

    func instant(_ line: ContentLine, _ zones: TimeZones) throws(ICalError) -> (Instant, allDay: Bool, tzid: String?) {
        switch try ICalDate.parse(line) {
        case .utc(let i): return (i, false, nil)
        case .date(let days):
            // The first and last days of the years 0001 to 9999 may start outside them in a zone
            // far from UTC: such a day starts at its UTC midnight.
            let utcStart = Instant(seconds: days * 86_400)
            guard
                let i = LocalTime.instant(days: days, secondOfDay: 0, in: zone) ?? (utcStart.isInRange ? utcStart : nil)
            else {
                throw ICalError(line: line.number, "\(line.name) out of range")
            }
            return (i, true, nil)
        case .local(let days, let second, let tzid):
            if let tzid {
                return (
                    try zones.instant(days: days, second: second, tzid: tzid, line: line.number), false,
                    zones.ianaName(tzid)
                )
            }
            guard let i = LocalTime.instant(days: days, secondOfDay: second, in: zone) else {
                throw ICalError(line: line.number, "\(line.name) out of range")
            }
            return (i, false, nil)
        }
    }

    /// The dates of an EXDATE or RDATE line, several per line (a PERIOD's start; values that are
    /// not dates are left out: the line is kept as it came anyway).
    func recurrenceDates(_ line: ContentLine, _ zones: TimeZones) -> [RecurrenceDate] {
        line.value.split(separator: ",").compactMap { part in
            var one = line
            one.value = String(part.split(separator: "/").first ?? part)
            guard let parsed = try? ICalDate.parse(one) else { return nil }
            if case .date(let days) = parsed { return .date(days) }
            return (try? instant(one, zones)).map { .instant($0.0) }
        }
    }

    func item(_ c: Component, _ zones: TimeZones, instances: [Component] = []) throws(ICalError) -> Item {
        var kept: [String] = []
        func keepIfParameters(_ l: ContentLine) {
            if l.parameters.contains(where: { !mappedParameters.contains($0.name) }) { kept.append(l.raw) }
        }
        func text(_ l: ContentLine) -> String { ContentLines.unescape(l.value)[0] }
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
        for p in c.properties {
            let value = p.value.trimmingSpaces
            switch p.name {
            case "UID":
                // The first, as instances are grouped by it (a second UID is invalid and dropped).
                guard givenUID == nil else { continue }
                givenUID = text(p).trimmingSpaces
                keepIfParameters(p)
            case "SUMMARY":
                title = text(p)
                keepIfParameters(p)
            case "DESCRIPTION":
                notes = text(p)
                keepIfParameters(p)
            case "DUE":
                due = try instant(p, zones)
                keepIfParameters(p)
            case "STATUS":
                guard !value.isEmpty else { continue }
                status = value.uppercased()
                if status != "NEEDS-ACTION" && status != "COMPLETED" || p.parameters.count > 0 { kept.append(p.raw) }
            case "COMPLETED":
                completed = try instant(p, zones).0
                keepIfParameters(p)
            case "PERCENT-COMPLETE":
                guard !value.isEmpty else { continue } // an empty value says nothing
                guard let v = Int(value), (0...100).contains(v) else {
                    throw ICalError(
                        line: p.number, "PERCENT-COMPLETE must be 0 to 100, not \(ContentLine.quote(p.value))")
                }
                percent = v
                if v != 100 && v != 0 || p.parameters.count > 0 { kept.append(p.raw) }
            case "CATEGORIES":
                categories += ContentLines.unescape(p.value, separator: ",").map(\.trimmingSpaces).filter {
                    !$0.isEmpty
                }
                keepIfParameters(p)
            case "X-TODOD-CATEGORY":
                let v = text(p).trimmingSpaces
                todoCategory = .some(v.isEmpty ? nil : v)
            case "X-TODOD-NO-REMIND": continue // read below (no default reminder)
            case "X-TODOD-NO-CATEGORY":
                if todoCategory == nil { todoCategory = .some(nil) }
            case "PRIORITY":
                guard !value.isEmpty else { continue } // an empty value says nothing
                guard let v = Int(value), (0...9).contains(v) else {
                    throw ICalError(line: p.number, "PRIORITY must be 0 to 9, not \(ContentLine.quote(p.value))")
                }
                priority = v == 0 ? nil : v <= 4 ? .high : v == 5 ? .medium : .low
                if ![0, 1, 5, 9].contains(v) || p.parameters.count > 0 { kept.append(p.raw) }
            case "RRULE":
                // Parts in one order, whatever order a server stores them in.
                rule = (try? RecurrenceRule(parsing: value))?.text ?? value.uppercased()
                ruleLine = p
            case "EXDATE", "RDATE":
                kept.append(p.raw) // travels as it came; its dates are honoured (docs/ICALENDAR.md)
                if p.name == "EXDATE" {
                    exdates += recurrenceDates(p, zones)
                } else {
                    rdates += recurrenceDates(p, zones)
                }
            case "X-TODOD-RECUR-FROM": fromCompletion = value.uppercased() == "COMPLETION"
            case "X-APPLE-SORT-ORDER": sortOrder = Int64(value)
            case "CREATED": created = try instant(p, zones).0
            case "LAST-MODIFIED": modified = try instant(p, zones).0
            case "DTSTAMP": stamp = try instant(p, zones).0
            case "X-TODOD-ZONE": zoneName = text(p).trimmingSpaces
            case "DTSTART":
                let start = try instant(p, zones)
                dtstart = start.0
                dtstartLine = p
                dtstartTzid = start.tzid
                kept.append("^\(start.0.usec) " + p.raw) // the line it came in, written again while it says the start
                // A date on a todo whose due is a time (or that has none): written back as a date.
                if start.allDay {
                    kept.append("!START-DATE")
                    startIsDate = true
                }
            case "RELATED-TO":
                // RELTYPE defaults to PARENT; CHILD names a subtask (linked by the reader of the
                // whole file); other relations are kept as they are.
                let reltype = p.parameter("RELTYPE")?.uppercased() ?? "PARENT"
                let related = text(p).trimmingSpaces
                if related.isEmpty { continue }
                if reltype == "PARENT", parentUID == nil, p.parameters.allSatisfy({ $0.name == "RELTYPE" }) {
                    parentUID = related
                } else {
                    if reltype == "CHILD" { childUIDs.append(related) }
                    kept.append(p.raw)
                }
            case "DURATION" where durationLine == nil: durationLine = p
            case "CLASS" where value.uppercased() == "PUBLIC" && p.parameters.isEmpty:
                continue // the default, which some servers add
            default:
                if !value.isEmpty { kept.append(p.raw) } // an empty property says nothing (servers drop them)
            }
        }
        // DTSTART and DURATION without DUE: due at their end (RFC 5545 §3.6.2), written back as DUE.
        if let duration = durationLine {
            if due == nil, let start = dtstart,
                let end = dueEnd(
                    start: start, tzid: dtstartTzid, isDate: startIsDate,
                    utc: dtstartLine?.value.trimmingSpaces.uppercased().hasSuffix("Z") == true,
                    duration: duration.value)
            {
                due = (end, allDay: startIsDate, tzid: dtstartTzid)
                keepIfParameters(duration)
            } else {
                kept.append(duration.raw)
            }
        }
        // A VTODO without UID (UID is required, but some files lack it) gets one made from its
        // lines, the same on every import of the same file.
        let uid =
            givenUID.flatMap { $0.isEmpty ? nil : $0 } ?? "todod-" + StableHash.hex(c.rawLines.joined(separator: "\n"))
        if (title ?? "").trimmingSpaces.isEmpty {
            // Untitled (a VTODO without SUMMARY): shown as such, and no SUMMARY is invented for it.
            title = ICalReader.untitled
            kept.append("!NO-SUMMARY")
        }
        // The alarms: each VALARM one alarm (RFC 9074 snooze alarms are the snooze of the alarm
        // they name). One todod can act on (DISPLAY or AUDIO with a trigger it can place) is
        // mapped; any other is kept whole (`Alarm.ical`) and written back as it came.
        var alarms: [Alarm] = []
        var remind: Instant?
        var reminded: Instant?
        var relative = false
        var alarmUIDs: Set<String> = []
        var snoozes: [(uid: String, at: Instant)] = []
        let readInstant = { (l: ContentLine) in try? instant(l, zones).0 }
        let mozAck = ThunderbirdAlarmState.lastAck(c, readInstant)
        // Thunderbird's snooze of a todo that recurs names its occurrence: read once it is known.
        let recurs = ruleLine != nil || c.property("RDATE") != nil
        let mozSnooze = recurs ? nil : ThunderbirdAlarmState.snooze(c, occurrence: nil, lastAck: mozAck, readInstant)
        for (n, a) in c.components.enumerated() {
            guard a.name == "VALARM", alarms.count < Alarm.maxPerTodo else {
                kept += a.rawLines
                continue
            }
            if let rel = a.property("RELATED-TO"), rel.parameter("RELTYPE")?.uppercased() == "SNOOZE",
                let trigger = a.property("TRIGGER"), let at = try? instant(trigger, zones).0
            {
                snoozes.append((text(rel).trimmingSpaces, at))
                continue
            }
            // Its UID (RFC 9074), else one made from its lines and place, the same on every read.
            var alarmUID = a.property("UID").map { text($0).trimmingSpaces } ?? ""
            if alarmUID.isEmpty || alarmUID.count > 255
                || alarmUID.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" })
                || alarmUIDs.contains(alarmUID)
            {
                // Made from its place, action and trigger (what todod writes back as it came), and
                // not written: the VALARM goes back with the lines it came with.
                let action = a.property("ACTION")?.value.trimmingSpaces.uppercased() ?? ""
                let t = a.property("TRIGGER")
                let trigger = (t?.value.trimmingSpaces ?? "") + "\n" + (t?.parameter("RELATED")?.uppercased() ?? "")
                alarmUID =
                    "todod-"
                    + StableHash.hex(
                        a.property("ACTION").map { _ in "\(n)\n\(action)\n\(trigger)" }
                            ?? "\(n)\n" + a.rawLines.joined(separator: "\n"))
            }
            alarmUIDs.insert(alarmUID)
            let action = a.property("ACTION")?.value.trimmingSpaces.uppercased()
            let proximity = a.property("PROXIMITY") != nil || a.property("X-APPLE-PROXIMITY") != nil
            // A trigger todod cannot read or place (malformed, or outside the years 0001 to 9999)
            // leaves the alarm as it is, kept.
            var trigger: Alarm.Trigger?
            var at: Instant?
            var noRelated = false
            if let t = a.property("TRIGGER") {
                if t.parameter("VALUE")?.uppercased() == "DATE-TIME" || t.value.trimmingSpaces.hasSuffix("Z") {
                    at = try? instant(t, zones).0
                    trigger = at.map { .at($0) }
                } else if let offset = ICalDuration.parse(t.value) {
                    let related = t.parameter("RELATED")?.uppercased()
                    let usec = offset * 1_000_000
                    if related != "END", let s = dtstart, let i = s.checkedAdding(usec: usec) {
                        at = i
                        trigger = .start(usec)
                        noRelated = related == nil
                    } else if let d = due?.0, let i = d.checkedAdding(usec: usec) {
                        at = i
                        trigger = .due(usec)
                    }
                    // An all-day todo's alarm is an instant (written back as one).
                    if due?.allDay == true, let i = at { trigger = .at(i) }
                }
            }
            guard action == nil || action == "DISPLAY" || action == "AUDIO", !proximity, let trigger, let at else {
                alarms.append(Alarm(uid: alarmUID, trigger: .due(0), ical: a.rawLines.joined(separator: "\n")))
                continue
            }
            if case .at = trigger {} else { relative = true }
            var alarm = Alarm(uid: alarmUID, trigger: trigger)
            if let ack = a.property("ACKNOWLEDGED") { alarm.acknowledged = try? instant(ack, zones).0 }
            if alarm.acknowledged == nil, let mozAck, mozAck >= at { alarm.acknowledged = mozAck }
            var own: Set<String> = ["ACTION", "TRIGGER", "ACKNOWLEDGED", "UID"]
            // Nagging: REPEAT and DURATION (RFC 5545 §3.8.6.2), when todod can follow them.
            if let r = a.property("REPEAT").flatMap({ Int($0.value.trimmingSpaces) }),
                let d = a.property("DURATION").flatMap({ ICalDuration.parse($0.value) }),
                (1...Alarm.maxRepeats).contains(r), d * 1_000_000 >= Alarm.minIntervalUsec
            {
                alarm.repeatCount = r
                alarm.intervalUsec = d * 1_000_000
                own.formUnion(["REPEAT", "DURATION"])
            }
            // The alarm's other properties go back into the VALARM todod writes: kept with `>`
            // after `!ALARM <uid>`, with its form (`>!AUDIO`, `>!NO-RELATED`).
            var extra: [String] = []
            if action == "AUDIO" { extra.append(">!AUDIO") }
            if noRelated { extra.append(">!NO-RELATED") }
            // Its DESCRIPTION is kept unless it is the title (what todod writes there).
            extra += a.properties.filter {
                !own.contains($0.name) && !$0.value.trimmingSpaces.isEmpty
                    && !($0.name == "DESCRIPTION" && $0.parameters.isEmpty && text($0) == title)
            }.map { ">" + $0.raw }
            for sub in a.components { extra += sub.rawLines.map { ">" + $0 } }
            if !extra.isEmpty { kept += ["!ALARM " + alarmUID] + extra }
            alarms.append(alarm)
        }
        for s in snoozes {
            if let i = alarms.firstIndex(where: { $0.uid == s.uid && $0.acts }) ?? alarms.firstIndex(where: \.acts) {
                alarms[i].snoozedUntil = max(alarms[i].snoozedUntil ?? s.at, s.at)
            }
        }
        // Thunderbird's snooze (on the VTODO): the first alarm's, unless RFC 9074 says one.
        func snoozeFirstAlarm(_ snooze: Instant?) -> Bool {
            guard let snooze, let i = alarms.firstIndex(where: \.acts), alarms[i].snoozedUntil == nil else {
                return false
            }
            alarms[i].snoozedUntil = snooze
            return true
        }
        _ = snoozeFirstAlarm(mozSnooze)
        // `remind`: the next pending firing; when every one was dismissed, the last trigger, fired.
        func placeReminder(due: Instant?, start: Instant?) {
            remind = Alarm.nextFiring(alarms, after: nil, due: due, start: start)
            reminded = nil
            if remind == nil {
                let fired = alarms.filter(\.acts).compactMap { a in
                    a.triggerInstant(due: due, start: start).map { (a, $0) }
                }.max { $0.1 < $1.1 }
                remind = fired?.1
                reminded = fired?.0.acknowledged
            }
        }
        placeReminder(due: due?.0, start: dtstart)
        let done =
            status == "COMPLETED" || status == "CANCELLED" || (status == nil && (completed != nil || percent == 100))
        var category: String?
        var tags = categories
        switch todoCategory {
        case .some(let named):
            category = named
            if let named, let i = tags.firstIndex(where: { $0.lowercased() == named.lowercased() }) {
                tags.remove(at: i)
            }
        case .none where categoriesAreTags:
            category = nil
        case .none:
            category = tags.first
            if !tags.isEmpty { tags.removeFirst() }
        }
        // Tag values that a tag cannot hold as they are (`Home Office`, `a,b`): the values as they
        // came, so that they are written back so.
        if tags.contains(where: { ICalReader.tags([$0]) != [$0] }) {
            kept.append("!CATEGORIES:" + tags.map(ContentLines.escape).joined(separator: ","))
        }
        var recurrence: TodoRecurrence?
        if let rule, due != nil {
            recurrence = TodoRecurrence(
                rule: rule, from: fromCompletion ? .completion : .due, exdates: exdates, rdates: rdates)
        } else if let ruleLine {
            kept.append(ruleLine.raw) // todod needs a due date to recur on
        }
        // DTSTART: the one todod writes for a recurring todo (at its due, in its form) is implied;
        // another is the todo's start.
        if let line = dtstartLine, let due, dtstart == due.0, recurrence != nil,
            !line.parameters.contains(where: { !mappedParameters.contains($0.name) }),
            (line.parameter("VALUE")?.uppercased() == "DATE") == due.allDay
        {
            dtstart = nil
            kept.removeAll { $0 == "!START-DATE" || $0.hasPrefix("^") }
            startIsDate = false
        }
        // A rule anchored in UTC (its DTSTART, else its DUE, a UTC time `...Z`) keeps its UTC
        // instants across DST: the todo gets no zone, which todod computes in UTC and writes as UTC.
        let anchorLine = dtstartLine ?? c.property("DUE")
        let utcAnchored =
            recurrence != nil && zoneName == nil
            && anchorLine.map {
                $0.parameter("TZID") == nil && $0.parameter("VALUE")?.uppercased() != "DATE"
                    && $0.value.trimmingSpaces.uppercased().hasSuffix("Z")
            } == true && due?.allDay == false
        // The zone the rule's dates are computed in (see `utcAnchored`).
        let ruleZone =
            utcAnchored
            ? ZoneInfo.utc
            : zoneName.flatMap { ZoneInfo(identifier: $0, tzdir: tzdir) }
                ?? due?.tzid.flatMap { ZoneInfo(identifier: $0, tzdir: tzdir) } ?? self.zone
        // Instances edited or completed elsewhere: kept whole; the ones completed are not due here.
        var dueAt = due?.0
        // The todo moved to a later occurrence: its alarms with it, none of them fired yet.
        var alarmsMovedBy: Int64?
        func alarmsMoved(by usec: Int64) {
            alarmsMovedBy = (alarmsMovedBy ?? 0) + usec
        }
        var completedInstances: Set<Int64> = []
        for instance in instances {
            kept += instance.rawLines.map { "+" + $0 }
            guard let rid = instance.property("RECURRENCE-ID"), let at = try? instant(rid, zones).0 else { continue }
            let state = instance.property("STATUS")?.value.trimmingSpaces.uppercased()
            let percentDone = instance.property("PERCENT-COMPLETE").flatMap { Int($0.value.trimmingSpaces) } == 100
            if state == "COMPLETED" || state == "CANCELLED"
                || (state == nil && (instance.property("COMPLETED") != nil || percentDone))
            {
                completedInstances.insert(at.seconds)
            }
        }
        if let start = dueAt, let rec = recurrence, rec.from == .due, !completedInstances.isEmpty,
            let parsed = try? RecurrenceRule(parsing: rec.rule)
        {
            let localZone = ruleZone
            let allDay = due?.allDay ?? false
            // An instance is named by its DTSTART (RFC 5545 RECURRENCE-ID), which is this far from its due.
            let lead = (dtstart ?? start).usec - start.usec
            func isDone(_ due: Instant) -> Bool {
                let t = due.adding(usec: lead)
                guard allDay else { return completedInstances.contains(t.seconds) }
                let day = LocalTime(t, in: localZone).days
                return completedInstances.contains { LocalTime(Instant(seconds: $0), in: localZone).days == day }
            }
            if isDone(start) {
                // The first occurrence not completed elsewhere (a bounded look: the rule's next dates).
                let next = parsed.occurrences(
                    start: start, zone: localZone, from: start.adding(usec: 1), through: .latest,
                    limit: completedInstances.count + 1, allDay: allDay
                ).first { !isDone($0) }
                if let next {
                    dueAt = next
                    // The start as far before the due as it was.
                    if let s = dtstart { dtstart = s.checkedAdding(usec: next.usec - start.usec) }
                    alarmsMoved(by: next.usec - start.usec)
                }
            }
        }
        // A first occurrence an EXDATE removes is not due: the todo starts at the set's next one.
        if let current = dueAt, let rec = recurrence, rec.from == .due, !rec.exdates.isEmpty,
            let parsed = try? RecurrenceRule(parsing: rec.rule)
        {
            let localZone = ruleZone
            let allDay = due?.allDay ?? false
            let walk = RecurrenceSetWalk(
                rule: parsed, recurrence: rec, current: dtstart ?? current, zone: localZone, allDay: allDay)
            if walk.isExcluded(dtstart ?? current),
                let next = try? Recurrence.advance(
                    rec, due: current, start: dtstart, zone: localZone, completed: .earliest,
                    allDay: allDay)
            {
                dueAt = next.due
                dtstart = next.start
                recurrence = next.recurrence
                alarmsMoved(by: next.due.usec - current.usec)
            }
        }
        // The start dropped (implied by the rule): alarms relative to it are relative to the due.
        if dtstart == nil {
            alarms = alarms.map { a in
                guard case .start(let o) = a.trigger else { return a }
                var m = a
                m.trigger = .due(o)
                return m
            }
        }
        if let usec = alarmsMovedBy {
            alarms = alarms.map { a in
                guard a.acts else { return a }
                var m = a.shifted(by: usec) ?? a
                m.acknowledged = nil
                m.snoozedUntil = nil
                // Thunderbird's dismissal is an instant: every alarm time up to it is dismissed.
                if let mozAck, let at = m.triggerInstant(due: dueAt, start: dtstart), mozAck >= at {
                    m.acknowledged = mozAck
                }
                return m
            }
            placeReminder(due: dueAt, start: dtstart)
        }
        // Thunderbird's snooze of the occurrence the todo is at.
        if recurs, let anchor = dtstart ?? dueAt,
            snoozeFirstAlarm(
                ThunderbirdAlarmState.snooze(
                    c, occurrence: .init(anchor: anchor, allDay: due?.allDay ?? false, zone: zone), lastAck: mozAck,
                    readInstant))
        {
            placeReminder(due: dueAt, start: dtstart)
        }
        // No alarm at all on an open todo from elsewhere with a due date: reminded at its due (an
        // all-day one at `defaultRemindTime` that day), nothing written back for it. A todo made
        // here without a reminder says so (`X-TODOD-NO-REMIND`).
        if remind == nil, c.property("X-TODOD-NO-REMIND") == nil,
            !c.components.contains(where: { $0.name == "VALARM" }),
            let seconds = defaultRemindTime,
            let current = dueAt,
            !(status == "COMPLETED" || status == "CANCELLED"
                || (status == nil && (completed != nil || percent == 100))),
            let at = due?.allDay == true
                ? LocalTime.instant(days: LocalTime(current, in: zone).days, secondOfDay: seconds, in: zone) : current
        {
            remind = at
            reminded = nil
            kept.append("!REMIND-DEFAULT \(at.usec - current.usec)")
        }
        // The VTIMEZONEs of TZIDs in kept lines that name no zone known here, so those lines stay valid.
        var keptZones: Set<String> = []
        for raw in kept where raw.contains(";") {
            let body =
                raw.hasPrefix(">") || raw.hasPrefix("+")
                ? String(raw.dropFirst())
                : raw.hasPrefix("^") ? String(raw.drop { $0 != " " }.dropFirst()) : raw
            guard let tzid = (try? ContentLine(parsing: body, number: 0))?.parameter("TZID"),
                keptZones.insert(tzid).inserted,
                let definition = zones.keptDefinition(tzid)
            else { continue }
            kept += definition.map { "~" + $0 }
        }
        let createdAt = created ?? modified ?? stamp ?? now
        var zone =
            zoneName.flatMap { ZoneInfo(identifier: $0, tzdir: tzdir) != nil ? $0 : nil } ?? due?.tzid
            ?? (due != nil ? self.zoneName : nil)
        if zone?.isEmpty == true { zone = nil }
        if zone == nil, startIsDate { zone = self.zoneName } // the day a date start names
        if utcAnchored { zone = nil }
        let entry = ExportDocument.Entry(
            title: title!, notes: notes.flatMap { $0.isEmpty ? nil : $0 }, category: category, due: dueAt,
            remind: remind, reminded: reminded, done: done,
            completed: done ? (completed ?? modified ?? createdAt) : nil,
            created: createdAt, updated: max(modified ?? stamp ?? createdAt, createdAt), uid: uid, priority: priority,
            tags: ICalReader.tags(tags), zone: zone, allDay: due?.allDay ?? false, recurrence: recurrence,
            ical: kept.isEmpty ? nil : kept.joined(separator: "\n"))
        var item = Item(entry: entry, sortOrder: sortOrder, line: c.number)
        item.entry.start = dtstart
        if !alarms.isEmpty { item.entry.alarms = alarms }
        item.entry.parent = parentUID
        item.children = childUIDs
        item.relativeReminder = relative && remind != nil
        return item
    }

    /// The end of a DURATION from DTSTART `start`: its weeks and days nominal (the same time of
    /// day that many dates on, in DTSTART's zone), its hours, minutes and seconds exact. Nil when
    /// the value is not a positive duration, or, for a date start, is not whole days.
    func dueEnd(start: Instant, tzid: String?, isDate: Bool, utc: Bool, duration text: String) -> Instant? {
        let value = text.trimmingSpaces.uppercased()
        guard !value.hasPrefix("-"), let total = ICalDuration.parse(value), total > 0 else { return nil }
        let datePart = value.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let days = ICalDuration.parse(String(datePart)).map { $0 / 86_400 } ?? 0
        let exact = total - days * 86_400
        if isDate && exact != 0 { return nil }
        let zone = utc ? ZoneInfo.utc : tzid.flatMap { TimeZones.resolve($0, tzdir: tzdir)?.zone } ?? self.zone
        let local = LocalTime(start, in: zone)
        guard let day = LocalTime.instant(days: local.days + days, secondOfDay: local.secondOfDay, in: zone) else {
            return nil
        }
        return day.checkedAdding(usec: exact * 1_000_000)
    }

    /// Category values as tags: white space inside becomes `-`, commas are dropped, at most 64
    /// characters, unique case-insensitively, at most 32.
    static func tags(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for v in values {
            let words = v.split(whereSeparator: { $0.isWhitespace || $0 == "," })
            let tag = String(words.joined(separator: "-").prefix(64))
            guard !tag.isEmpty, out.count < 32, seen.insert(tag.lowercased()).inserted else { continue }
            out.append(tag)
        }
        return out
    }
}

/// Writes export-document entries as VTODOs.
package struct ICalWriter: Sendable {
    package var tzdir: String?
    /// The PRODID of the files todod writes.
    package static let prodID = "-//todod//todod//EN"

    package init(tzdir: String? = nil) { self.tzdir = tzdir }

    /// One VCALENDAR holding every entry, `X-APPLE-SORT-ORDER` counting their order from 1.
    package func calendar(_ entries: [ExportDocument.Entry], firstSortOrder: Int = 1) -> String {
        var body = ""
        var zones = ZoneDefinitions(tzdir: tzdir)
        // Each zone read from the tz database once per file, not once per todo.
        var known: [String: ZoneInfo?] = [:]
        for (i, e) in entries.enumerated() {
            var zone: ZoneInfo?
            if let name = e.zone {
                if let z = known[name] {
                    zone = z
                } else {
                    zone = ZoneInfo(identifier: name, tzdir: tzdir)
                    known[name] = .some(zone)
                }
            }
            for line in vtodo(e, sortOrder: firstSortOrder + i, zone: zone) {
                zones.note(line)
                body += ContentLines.fold(line)
            }
            if let ical = e.ical, ical.hasPrefix("~") || ical.contains("\n~") {
                zones.keep(ical.split(separator: "\n").filter { $0.hasPrefix("~") }.map { String($0.dropFirst()) })
            }
        }
        var out =
            ContentLines.fold("BEGIN:VCALENDAR") + ContentLines.fold("VERSION:2.0")
            + ContentLines.fold("PRODID:" + Self.prodID)
        for line in zones.components() { out += ContentLines.fold(line) }
        return out + body + ContentLines.fold("END:VCALENDAR")
    }

    /// Kept lines that cannot break the file they go into (an `ical` member may come from any
    /// JSON document): each a content line without control characters, components balanced and
    /// never a VCALENDAR or VTODO; anything else is left out.
    static func wellFormed(_ lines: [String]) -> [String] {
        var out: [String] = []
        var open: [String] = []
        var skipping = 0 // inside a component left out (with everything in it)
        for raw in lines {
            guard !raw.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }),
                let l = try? ContentLine(parsing: raw, number: 0)
            else { continue }
            let name = l.value.uppercased()
            if skipping > 0 {
                if l.name == "BEGIN" { skipping += 1 } else if l.name == "END" { skipping -= 1 }
                continue
            }
            if l.name == "BEGIN" {
                guard open.count < 8, !["VCALENDAR", "VTODO"].contains(name), !name.isEmpty else {
                    skipping = 1
                    continue
                }
                open.append(name)
            } else if l.name == "END" {
                guard open.last == name else { continue }
                open.removeLast()
            }
            out.append(raw)
        }
        for name in open.reversed() { out.append("END:" + name) }
        return out
    }

    /// The unfolded lines of one VTODO.
    package func vtodo(_ e: ExportDocument.Entry, sortOrder: Int) -> [String] {
        vtodo(e, sortOrder: sortOrder, zone: e.zone.flatMap { ZoneInfo(identifier: $0, tzdir: tzdir) })
    }

    /// The unfolded lines of one VTODO whose zone (`e.zone` read from the tz database, nil when
    /// unknown there) the caller has already read.
    func vtodo(_ e: ExportDocument.Entry, sortOrder: Int, zone known: ZoneInfo?) -> [String] {
        // Kept lines: mapped properties among them lend their parameters (and, where consistent,
        // their value) to the line written; the rest are written back as they were.
        var templates: [String: ContentLine] = [:]
        var rest: [String] = []
        var alarm: [String] = []
        var instances: [String] = []
        var notes: Set<String> = []
        var categoryValues: [String] = []
        // How far after the due date the default reminder of a todo from elsewhere was (`!REMIND-DEFAULT`).
        var defaultLead: Int64?
        // A kept DTSTART, and how long before DUE it was read.
        var startTemplate: ContentLine?
        // The DTSTART the start was read from (its form: date, TZID, floating or UTC).
        var startForm: (line: ContentLine, usec: Int64)?
        // The kept components open at this line (an e-mail VALARM's SUMMARY is its own, not the
        // VTODO's; a kept VTODO's lines are its own too, though `wellFormed` leaves it out).
        var openComponents: [String] = []
        // The kept lines of each alarm (`!ALARM <uid>` then its `>` lines).
        var alarmLines: [String: [String]] = [:]
        var alarmOf: String?
        for raw in (e.ical ?? "").split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if raw.hasPrefix(">") {
                if let uid = alarmOf {
                    alarmLines[uid, default: []].append(String(raw.dropFirst()))
                } else {
                    alarm.append(String(raw.dropFirst()))
                }
                continue
            }
            if raw.hasPrefix("!ALARM ") {
                alarmOf = String(raw.dropFirst(7))
                continue
            }
            alarmOf = nil
            if raw.hasPrefix("+") {
                instances.append(String(raw.dropFirst()))
                continue
            }
            if raw.hasPrefix("~") { continue } // a VTIMEZONE: `calendar` writes it
            if raw.hasPrefix("^") {
                // `^<usec> DTSTART...`: the line the start was read from, and the start it said.
                let said = Int64(raw.dropFirst().prefix { $0 != " " })
                startForm = (try? ContentLine(parsing: String(raw.drop { $0 != " " }.dropFirst()), number: 0)).flatMap {
                    l in said.map { (l, $0) }
                }
                continue
            }
            if raw.hasPrefix("!") {
                if raw.hasPrefix("!REMIND-DEFAULT ") {
                    defaultLead = Int64(raw.dropFirst("!REMIND-DEFAULT ".count))
                } else if raw.hasPrefix("!CATEGORIES:") {
                    categoryValues = ContentLines.unescape(String(raw.dropFirst(12)), separator: ",")
                } else {
                    notes.insert(raw)
                }
                continue
            }
            let line = try? ContentLine(parsing: raw, number: 0)
            if openComponents.isEmpty, let line, line.name == "DTSTART", startTemplate == nil {
                startTemplate = line
                continue
            }
            if openComponents.isEmpty, let line, mappedNames.contains(line.name), templates[line.name] == nil {
                templates[line.name] = line
                continue
            }
            if let line, line.name == "BEGIN" {
                openComponents.append(line.value.uppercased())
            } else if let line, line.name == "END", openComponents.last == line.value.uppercased() {
                openComponents.removeLast()
            }
            rest.append(raw)
        }
        var lines = ["BEGIN:VTODO"]
        func put(_ name: String, _ value: String) { put(name, [], value, keepValue: { _ in false }) }
        func put(_ name: String, _ value: String, keepValue: (String) -> Bool) {
            put(name, [], value, keepValue: keepValue)
        }
        func put(
            _ name: String, _ parameters: [(name: String, values: [String])], _ value: String,
            keepValue: (String) -> Bool = { _ in false }
        ) {
            var params = parameters
            var v = value
            if let t = templates[name] {
                params += t.parameters.filter { p in
                    !mappedParameters.contains(p.name) && !params.contains { $0.name == p.name }
                }
                if keepValue(t.value.trimmingSpaces.uppercased()) { v = t.value }
            }
            guard !v.trimmingSpaces.isEmpty else { return } // never an empty value (servers refuse `X-FOO:`)
            lines.append(ContentLine(name: name, parameters: params, value: v).text)
        }
        let zone = (info: known ?? .utc, tzid: known.map { _ in e.zone! })
        put("UID", ContentLines.escape(e.uid ?? ""))
        put("DTSTAMP", ICalDate.utcText(e.updated))
        put("CREATED", ICalDate.utcText(e.created))
        put("LAST-MODIFIED", ICalDate.utcText(e.updated))
        if !(notes.contains("!NO-SUMMARY") && e.title == ICalReader.untitled) {
            put("SUMMARY", ContentLines.escape(e.title))
        }
        if let notes = e.notes { put("DESCRIPTION", ContentLines.escape(notes)) }
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
        if let due = e.due {
            let v = dateValue(due)
            put("DUE", v.parameters, v.value)
        }
        if let start = e.start {
            if let t = startForm, let written = t.usec == start.usec ? t.line.raw : startLine(t.line, at: start, zone) {
                lines.append(written)
            } else {
                // In DUE's form (a date for an all-day todo or a date start).
                var v = dateValue(start)
                if !e.allDay, notes.contains("!START-DATE") {
                    v = (
                        [("VALUE", ["DATE"])],
                        ICalDate.dateText(days: min(max(LocalTime(start, in: zone.info).days, -719_162), 2_932_896))
                    )
                }
                lines.append(ContentLine(name: "DTSTART", parameters: v.parameters, value: v.value).text)
            }
        } else if let t = startTemplate {
            lines.append(t.raw) // kept by a release that did not read starts
        } else if let due = e.due, e.recurrence != nil {
            // The rule's anchor (RFC 5545), so every reader computes the occurrences todod does.
            let v = dateValue(due)
            lines.append(ContentLine(name: "DTSTART", parameters: v.parameters, value: v.value).text)
        }
        let open: (String) -> Bool = { $0 == "IN-PROCESS" || $0 == "NEEDS-ACTION" }
        let closed: (String) -> Bool = { $0 == "CANCELLED" || $0 == "COMPLETED" }
        put("STATUS", e.done ? "COMPLETED" : "NEEDS-ACTION", keepValue: e.done ? closed : open)
        if e.done {
            put("COMPLETED", ICalDate.utcText(e.completed ?? e.updated))
            put("PERCENT-COMPLETE", "100")
        } else if let t = templates["PERCENT-COMPLETE"], let p = Int(t.value.trimmingSpaces), (0..<100).contains(p) {
            put("PERCENT-COMPLETE", String(p))
        }
        if let p = e.priority {
            let value = p == .high ? "1" : p == .medium ? "5" : "9"
            put("PRIORITY", value) { kept in
                guard let v = Int(kept) else { return false }
                return p == .high ? (1...4).contains(v) : p == .medium ? v == 5 : (6...9).contains(v)
            }
        }
        // Each tag as the value it came from, when it came from one (`Home Office` for `Home-Office`).
        let tagValues = e.tags.map { tag in
            categoryValues.first { ICalReader.tags([$0]).first?.lowercased() == tag.lowercased() } ?? tag
        }
        let categories = (e.category.map { [$0] } ?? []) + tagValues
        if !categories.isEmpty {
            put("CATEGORIES", categories.map(ContentLines.escape).joined(separator: ","))
            if let category = e.category {
                put("X-TODOD-CATEGORY", ContentLines.escape(category))
            } else {
                put("X-TODOD-NO-CATEGORY", "TRUE") // the tags alone: no value is the first one's category
            }
        }
        if let r = e.recurrence {
            put("RRULE", r.rule)
            if r.from == .completion { put("X-TODOD-RECUR-FROM", "COMPLETION") }
        } else if let kept = templates["RRULE"] {
            lines.append(kept.raw) // a rule todod does not follow (no due date, or outside its subset)
        }
        if let parent = e.parent {
            lines.append(
                ContentLine(
                    name: "RELATED-TO", parameters: [("RELTYPE", ["PARENT"])], value: ContentLines.escape(parent)
                ).text)
        }
        // The zone of a todo whose DUE does not name it (all-day, or a zone unknown here).
        if let z = e.zone, e.allDay || zone.tzid == nil || e.due == nil { put("X-TODOD-ZONE", ContentLines.escape(z)) }
        put("X-APPLE-SORT-ORDER", String(sortOrder))
        // Thunderbird's dismissal and snooze brought up to date with the alarms.
        let recurs =
            e.recurrence != nil || templates["RRULE"] != nil || rest.contains { $0.uppercased().hasPrefix("RDATE") }
        let occurrence = (e.start ?? e.due).flatMap { anchor in
            recurs ? ThunderbirdAlarmState.Occurrence(anchor: anchor, allDay: e.allDay, zone: zone.info) : nil
        }
        lines += Self.wellFormed(ThunderbirdAlarmState.written(rest, e, occurrence: occurrence))
        // A due date without a reminder, which another client's file would give one by default.
        if e.due != nil, e.remind == nil { put("X-TODOD-NO-REMIND", "TRUE") }
        if let alarms = e.alarms, !alarms.isEmpty {
            // The default reminder of a todo that came without an alarm is not written back while
            // it is where the default put it (relative to the due date); one the user changed is.
            let isDefault =
                defaultLead != nil && alarms.count == 1 && alarms[0].acts && alarms[0].repeatCount == 0
                && e.due.flatMap { d in alarms[0].triggerInstant(due: d, start: e.start).map { $0.usec - d.usec } }
                    == defaultLead
            if !isDefault {
                for a in alarms {
                    lines += valarm(
                        a, e, extra: alarmLines[a.uid] ?? (a.uid == alarms.first(where: \.acts)?.uid ? alarm : []))
                }
            }
        } else {
            // The default reminder of a todo that came without an alarm is not written back while it is
            // where the default put it (relative to the due date); one the user changed is.
            if let remind = e.remind, !(defaultLead != nil && e.due.map { remind.usec - $0.usec } == defaultLead) {
                lines.append("BEGIN:VALARM")
                // An AUDIO alarm stays one (it has no DESCRIPTION of its own, RFC 5545 §3.6.6).
                let audio = notes.contains("!ALARM-AUDIO")
                lines.append(audio ? "ACTION:AUDIO" : "ACTION:DISPLAY")
                // The alarm's own DESCRIPTION when it came with one (kept), else the title.
                if !audio, !alarm.contains(where: { $0.uppercased().hasPrefix("DESCRIPTION") }) {
                    lines.append("DESCRIPTION:" + ContentLines.escape(e.title))
                }
                let startForm =
                    notes.contains("!ALARM-RELATED-START")
                    ? "TRIGGER;RELATED=START:"
                    : notes.contains("!ALARM-START") ? "TRIGGER:" : nil
                if let start = e.start, let startForm, !e.allDay, !notes.contains("!ALARM-ABSOLUTE") {
                    // Relative to DTSTART as it came (python-caldav, Thunderbird write such alarms).
                    lines.append(startForm + ICalDuration.text((remind.usec - start.usec) / 1_000_000))
                } else if let due = e.due, !e.allDay, !notes.contains("!ALARM-ABSOLUTE") {
                    lines.append("TRIGGER;RELATED=END:" + ICalDuration.text((remind.usec - due.usec) / 1_000_000))
                } else {
                    // An all-day todo's reminder is an instant: it stays where it is if another client
                    // later gives the todo a time of day.
                    lines.append("TRIGGER;VALUE=DATE-TIME:" + ICalDate.utcText(remind))
                }
                if let r = e.reminded { lines.append("ACKNOWLEDGED:" + ICalDate.utcText(r)) }
                lines += Self.wellFormed(alarm)
                lines.append("END:VALARM")
            }
            if e.remind != nil { Self.mappedAlarmFirst(&lines) }
        }
        lines.append("END:VTODO")
        // The resource's other components (instances edited elsewhere), as they came.
        lines += Self.wellFormedInstances(instances)
        return lines
    }

    /// One alarm as a VALARM: a kept one as it came; else its ACTION, DESCRIPTION (the alarm's own
    /// when it came with one, else the title; none for AUDIO), UID, TRIGGER in the form it came
    /// (an instant, `RELATED=END` from the due, `RELATED=START` or no RELATED from the start),
    /// REPEAT and DURATION, ACKNOWLEDGED, its kept lines, then its snooze as an RFC 9074 snooze
    /// alarm.
    func valarm(_ a: Alarm, _ e: ExportDocument.Entry, extra: [String]) -> [String] {
        if let kept = a.ical {
            return Self.wellFormed(kept.split(separator: "\n", omittingEmptySubsequences: true).map(String.init))
        }
        let audio = extra.contains("!AUDIO")
        let own = extra.filter { !$0.hasPrefix("!") }
        var lines = ["BEGIN:VALARM", audio ? "ACTION:AUDIO" : "ACTION:DISPLAY"]
        if !audio, !own.contains(where: { $0.uppercased().hasPrefix("DESCRIPTION") }) {
            lines.append("DESCRIPTION:" + ContentLines.escape(e.title))
        }
        // A uid the reader made (`todod-` and 16 hex digits, for a VALARM without UID) is not written.
        let made =
            a.uid.hasPrefix("todod-") && a.uid.utf8.count == 22
            && a.uid.utf8.dropFirst(6).allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
        if !made { lines.append(ContentLine(name: "UID", parameters: [], value: ContentLines.escape(a.uid)).text) }
        var trigger = a.trigger
        // An instant stays one (`--remind "tomorrow 9am"`, or a trigger that came absolute): it
        // stays at its instant when another client moves the due. An all-day todo's alarm is an
        // instant too (a client that later gives the todo a time of day still reminds at the same
        // instant), as is one relative to a due or start it lacks.
        if case .at = trigger {
        } else if e.allDay || a.triggerInstant(due: e.due, start: e.start) == nil
            || { if case .start = trigger { e.start == nil } else { e.due == nil } }()
        {
            if let t = a.triggerInstant(due: e.due, start: e.start) { trigger = .at(t) }
        }
        switch trigger {
        case .at(let t): lines.append("TRIGGER;VALUE=DATE-TIME:" + ICalDate.utcText(t))
        case .due(let o): lines.append("TRIGGER;RELATED=END:" + ICalDuration.text(o / 1_000_000))
        case .start(let o):
            lines.append(
                (extra.contains("!NO-RELATED") ? "TRIGGER:" : "TRIGGER;RELATED=START:")
                    + ICalDuration.text(o / 1_000_000))
        }
        if a.repeatCount > 0, a.intervalUsec > 0 {
            lines.append("REPEAT:\(a.repeatCount)")
            lines.append("DURATION:" + ICalDuration.text(a.intervalUsec / 1_000_000))
        }
        // Acknowledged: the alarm's own, or the todo's `reminded` for the alarm that fired at `remind`.
        var ack = a.acknowledged
        if let r = e.reminded, let at = e.remind, a.fires(at: at, due: e.due, start: e.start),
            ack.map({ $0 < r }) ?? true
        {
            ack = r
        }
        if let ack { lines.append("ACKNOWLEDGED:" + ICalDate.utcText(ack)) }
        lines += Self.wellFormed(own)
        lines.append("END:VALARM")
        if let snooze = a.snoozedUntil {
            lines += [
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + ContentLines.escape(e.title),
                ContentLine(name: "UID", parameters: [], value: ContentLines.escape(a.uid + "-snooze")).text,
                "TRIGGER;VALUE=DATE-TIME:" + ICalDate.utcText(snooze),
                ContentLine(
                    name: "RELATED-TO", parameters: [("RELTYPE", ["SNOOZE"])], value: ContentLines.escape(a.uid)
                ).text,
                "END:VALARM"
            ]
        }
        return lines
    }

    /// Moves the alarm written for `remind` (the VTODO's last component so far) before the kept
    /// components: a reader takes the first alarm it can place as the reminder, so written first
    /// it is read back as the reminder, and the alarms kept stay kept (written and read again,
    /// a VTODO with several alarms is the same todo).
    static func mappedAlarmFirst(_ lines: inout [String]) {
        guard let mapped = lines.lastIndex(of: "BEGIN:VALARM"),
            let first = lines.indices.dropFirst().first(where: { lines[$0].hasPrefix("BEGIN:") }), first < mapped
        else { return }
        let block = lines[mapped...]
        lines.removeSubrange(mapped...)
        lines.insert(contentsOf: block, at: first)
    }

    /// DTSTART `t` (the line the start was read from) moved to `start`, in its own form: a date,
    /// local time in its TZID's zone, floating (the todo's zone) or UTC. Nil when its form cannot
    /// say it (a TZID only its own VTIMEZONE explains, a year past 9999).
    func startLine(_ t: ContentLine, at start: Instant, _ zone: (info: ZoneInfo, tzid: String?)) -> String? {
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

    /// Kept VTODO components (lines starting with `+`): whole `BEGIN:VTODO` ... `END:VTODO`
    /// blocks whose inner lines are well formed; anything else is left out.
    static func wellFormedInstances(_ lines: [String]) -> [String] {
        var out: [String] = []
        var block: [String]?
        for raw in lines {
            let upper = raw.uppercased()
            if upper == "BEGIN:VTODO" {
                block = []
            } else if upper == "END:VTODO" {
                if let inner = block { out += ["BEGIN:VTODO"] + wellFormed(inner) + ["END:VTODO"] }
                block = nil
            } else {
                block?.append(raw)
            }
        }
        return out
    }
}
