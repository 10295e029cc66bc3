import TodoCore
import TodoTime

/// Writes a todo's alarms as VALARMs (docs/ICALENDAR.md, the `alarms` row): each alarm one
/// VALARM, in the form it came, with its kept lines (`KeptLines.alarms`).
struct AlarmWriter {
    var e: ExportDocument.Entry
    var kept: KeptLines

    /// The VALARMs of `alarms`: none while they are only the default reminder of a todo that came
    /// without an alarm (relative to the due date where the default put it); one the user
    /// changed is written.
    func valarms(_ alarms: [Alarm]) -> [String] {
        let isDefault =
            kept.defaultLead != nil && alarms.count == 1 && alarms[0].acts && alarms[0].repeatCount == 0
            && e.due.flatMap { d in alarms[0].triggerInstant(due: d, start: e.start).map { $0.usec - d.usec } }
                == kept.defaultLead
        guard !isDefault else { return [] }
        let first = alarms.first(where: \.acts)?.uid
        var lines: [String] = []
        for a in alarms {
            // Its place among the VALARMs written (a snooze is one more).
            let place = lines.lazy.filter { $0 == "BEGIN:VALARM" }.count
            lines += valarm(a, extra: kept.alarms[a.uid] ?? (a.uid == first ? kept.firstAlarm : []), place: place)
        }
        return lines
    }

    /// The one VALARM of an entry of an older export, which has `remind` and no `alarms`, in the
    /// form its notes say it came (`!ALARM-AUDIO`, `!ALARM-START`, `!ALARM-RELATED-START`,
    /// `!ALARM-ABSOLUTE`); none for the default reminder of a todo that came without an alarm
    /// while it is where the default put it.
    func onlyAlarm() -> [String] {
        let notes = kept.notes
        let alarm = kept.firstAlarm
        guard let remind = e.remind,
            !(kept.defaultLead != nil && e.due.map { remind.usec - $0.usec } == kept.defaultLead)
        else { return [] }
        var lines = ["BEGIN:VALARM"]
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
        lines += ICalWriter.wellFormed(alarm)
        lines.append("END:VALARM")
        return lines
    }

    /// One alarm as a VALARM: a kept one as it came; else its ACTION, DESCRIPTION (the alarm's own
    /// when it came with one, else the title; none for AUDIO), UID, TRIGGER in the form it came
    /// (an instant, `RELATED=END` from the due, `RELATED=START` or no RELATED from the start),
    /// REPEAT and DURATION, ACKNOWLEDGED, its kept lines, then its snooze as an RFC 9074 snooze
    /// alarm.
    /// `place`: its place among the VTODO's VALARMs, for a uid the reader made (below).
    func valarm(_ a: Alarm, extra: [String], place: Int = 0) -> [String] {
        if let kept = a.ical {
            return ICalWriter.wellFormed(kept.split(separator: "\n", omittingEmptySubsequences: true).map(String.init))
        }
        let audio = extra.contains("!AUDIO")
        let own = extra.filter { !$0.hasPrefix("!") }
        var lines = ["BEGIN:VALARM", audio ? "ACTION:AUDIO" : "ACTION:DISPLAY"]
        if !audio, !own.contains(where: { $0.uppercased().hasPrefix("DESCRIPTION") }) {
            lines.append("DESCRIPTION:" + ContentLines.escape(e.title))
        }
        var trigger = a.trigger
        // An all-day todo's alarm is an instant (a client that later gives the todo a time of day
        // still reminds at the same instant), as is one relative to a due or start it lacks.
        // One set here as an instant on a timed todo is written relative to its due: the store
        // keeps an instant's lead time when the due moves (TodoStore.update), so another client
        // moving the due moves it too. One that came absolute stays absolute.
        if case .at(let t) = trigger, let due = e.due, !e.allDay, !extra.contains("!ABSOLUTE"),
            let o = t.usec.subtractingReportingOverflow(due.usec) as (partialValue: Int64, overflow: Bool)?, !o.overflow
        {
            trigger = .due(o.partialValue)
        } else if case .at = trigger {
        } else if e.allDay || a.triggerInstant(due: e.due, start: e.start) == nil
            || { if case .start = trigger { e.start == nil } else { e.due == nil } }()
        {
            if let t = a.triggerInstant(due: e.due, start: e.start) { trigger = .at(t) }
        }
        let (value, related): (String, String)
        switch trigger {
        case .at(let t): (value, related) = (ICalDate.utcText(t), "")
        case .due(let o): (value, related) = (ICalDuration.text(o / 1_000_000), "END")
        case .start(let o):
            (value, related) = (ICalDuration.text(o / 1_000_000), extra.contains("!NO-RELATED") ? "" : "START")
        }
        // A uid the reader made (`todod-` and 16 hex digits, for a VALARM without UID) is not
        // written while the VALARM would make it again (the same place, action and trigger); one
        // changed here carries it, so the alarm keeps its identity on the next read.
        let made =
            a.uid.hasPrefix("todod-") && a.uid.utf8.count == 22
            && a.uid.utf8.dropFirst(6).allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
        if !made
            || ICalReader.madeAlarmUID(
                place: place, action: audio ? "AUDIO" : "DISPLAY", trigger: value, related: related) != a.uid
        {
            lines.append(ContentLine(name: "UID", parameters: [], value: ContentLines.escape(a.uid)).text)
        }
        switch trigger {
        case .at: lines.append("TRIGGER;VALUE=DATE-TIME:" + value)
        case .due: lines.append("TRIGGER;RELATED=END:" + value)
        case .start: lines.append((related.isEmpty ? "TRIGGER:" : "TRIGGER;RELATED=START:") + value)
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
        lines += ICalWriter.wellFormed(own)
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
}

extension ICalWriter {
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
}
