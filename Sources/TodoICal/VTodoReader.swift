import TodoCalendar
import TodoCore
import TodoTime

extension ICalReader {
    /// One VTODO (its other VTODOs of the same UID, `instances`, are kept with it) as an entry:
    /// its properties read into their fields (`VTodoProperties`), its alarms (`readAlarms`), then
    /// put together: the due of DTSTART and DURATION, the untitled, the reminder, the category
    /// and tags, the rule and the occurrence it is at, the zone.
    func item(_ c: Component, _ zones: TimeZones, instances: [Component] = []) throws(ICalError) -> Item {
        let properties = try VTodoProperties(reading: c, self, zones)
        var kept = properties.kept
        let givenUID = properties.givenUID
        var title = properties.title
        let notes = properties.notes
        var due = properties.due
        let completed = properties.completed
        let priority = properties.priority
        let rule = properties.rule
        let ruleLine = properties.ruleLine
        let fromCompletion = properties.fromCompletion
        let sortOrder = properties.sortOrder
        let created = properties.created
        let modified = properties.modified
        let stamp = properties.stamp
        let zoneName = properties.zoneName
        var dtstart = properties.dtstart
        let dtstartLine = properties.dtstartLine
        let dtstartTzid = properties.dtstartTzid
        let durationLine = properties.durationLine
        let parentUID = properties.parentUID
        let childUIDs = properties.childUIDs
        var startIsDate = properties.startIsDate
        let exdates = properties.exdates
        let rdates = properties.rdates
        // DTSTART and DURATION without DUE: due at their end (RFC 5545 §3.6.2), written back as DUE.
        if let duration = durationLine {
            if due == nil, let start = dtstart,
                let end = dueEnd(
                    start: start, tzid: dtstartTzid, isDate: startIsDate,
                    utc: dtstartLine?.value.trimmingSpaces.uppercased().hasSuffix("Z") == true,
                    duration: duration.value)
            {
                due = (end, allDay: startIsDate, tzid: dtstartTzid)
                if VTodoProperties.hasOwnParameters(duration) { kept.append(duration.raw) }
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
        var remind: Instant?
        var reminded: Instant?
        let readInstant = { (l: ContentLine) in try? instant(l, zones).0 }
        let mozAck = ThunderbirdAlarmState.lastAck(c, readInstant)
        // Thunderbird's snooze of a todo that recurs names its occurrence: read once it is known.
        let recurs = ruleLine != nil || c.property("RDATE") != nil
        let mozSnooze = recurs ? nil : ThunderbirdAlarmState.snooze(c, occurrence: nil, lastAck: mozAck, readInstant)
        let read = readAlarms(of: c, due: due, dtstart: dtstart, title: title, mozAck: mozAck, zones)
        var alarms = read.alarms
        kept += read.kept
        let relative = read.relative
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
            (remind, reminded) = Alarm.reminder(alarms, due: due, start: start)
        }
        placeReminder(due: due?.0, start: dtstart)
        let done = properties.isDone
        let (category, tags) = properties.categoryAndTags(categoriesAreTags: categoriesAreTags)
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
        for instance in instances { kept += instance.rawLines.map { "+" + $0 } }
        let completedInstances = completedInstances(instances, zones)
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
            !done,
            let at = due?.allDay == true
                ? LocalTime.instant(days: LocalTime(current, in: zone).days, secondOfDay: seconds, in: zone) : current
        {
            remind = at
            reminded = nil
            kept.append("!REMIND-DEFAULT \(at.usec - current.usec)")
        }
        // The VTIMEZONEs of TZIDs in kept lines that name no zone known here, so those lines stay valid.
        kept += Self.keptZoneLines(kept, zones)
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

    /// The RECURRENCE-IDs (in seconds) of the instances completed elsewhere (`STATUS` COMPLETED
    /// or CANCELLED, or without STATUS a COMPLETED or PERCENT-COMPLETE 100).
    func completedInstances(_ instances: [Component], _ zones: TimeZones) -> Set<Int64> {
        var completed: Set<Int64> = []
        for instance in instances {
            guard let rid = instance.property("RECURRENCE-ID"), let at = try? instant(rid, zones).0 else { continue }
            let state = instance.property("STATUS")?.value.trimmingSpaces.uppercased()
            let percentDone = instance.property("PERCENT-COMPLETE").flatMap { Int($0.value.trimmingSpaces) } == 100
            if state == "COMPLETED" || state == "CANCELLED"
                || (state == nil && (instance.property("COMPLETED") != nil || percentDone))
            {
                completed.insert(at.seconds)
            }
        }
        return completed
    }

    /// The VTIMEZONEs (`~` lines) of TZIDs in kept lines that name no zone known here, so those
    /// lines stay valid.
    static func keptZoneLines(_ kept: [String], _ zones: TimeZones) -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for raw in kept where raw.contains(";") {
            let body =
                raw.hasPrefix(">") || raw.hasPrefix("+")
                ? String(raw.dropFirst())
                : raw.hasPrefix("^") ? String(raw.drop { $0 != " " }.dropFirst()) : raw
            guard let tzid = (try? ContentLine(parsing: body, number: 0))?.parameter("TZID"),
                seen.insert(tzid).inserted,
                let definition = zones.keptDefinition(tzid)
            else { continue }
            out += definition.map { "~" + $0 }
        }
        return out
    }
}
