import TodoCore
import TodoTime

/// The VALARMs of a VTODO read as alarms (docs/ICALENDAR.md, the `alarms` row).
struct ReadAlarms {
    /// Each VALARM one alarm, in order (at most `Alarm.maxPerTodo`); RFC 9074 snooze alarms are
    /// the snooze of the alarm they name. One todod can act on (DISPLAY or AUDIO with a trigger it
    /// can place) is mapped; any other is kept whole (`Alarm.ical`) and written back as it came.
    var alarms: [Alarm] = []
    /// Kept lines: each mapped alarm's other properties (`!ALARM <uid>` then `>` lines), the
    /// VTODO's components that are no alarm, and alarms past the most.
    var kept: [String] = []
    /// Whether an alarm todod acts on is relative to the due or the start (not an instant).
    var relative = false
}

extension ICalReader {
    /// The uid made for a VALARM without one (`todod-` and 16 hex digits): from its place among
    /// the VTODO's components, its action and its trigger, the same on every read while those stay.
    static func madeAlarmUID(place: Int, action: String, trigger: String, related: String) -> String {
        "todod-" + StableHash.hex("\(place)\n\(action)\n\(trigger)\n\(related)")
    }

    /// The alarms of VTODO `c` whose due and start (DTSTART) are `due` and `dtstart` and whose
    /// title is `title`; `mozAck` is Thunderbird's acknowledgement (`X-MOZ-LASTACK`), an alarm's
    /// when it says none and its trigger is not after it.
    func readAlarms(
        of c: Component, due: (Instant, allDay: Bool, tzid: String?)?, dtstart: Instant?, title: String?,
        mozAck: Instant?, _ zones: TimeZones
    ) -> ReadAlarms {
        var read = ReadAlarms()
        var alarms: [Alarm] = []
        var kept: [String] = []
        var relative = false
        var alarmUIDs: Set<String> = []
        var snoozes: [(uid: String, at: Instant)] = []
        for (n, a) in c.components.enumerated() {
            guard a.name == "VALARM", alarms.count < Alarm.maxPerTodo else {
                kept += a.rawLines
                continue
            }
            if let rel = a.property("RELATED-TO"), rel.parameter("RELTYPE")?.uppercased() == "SNOOZE",
                let trigger = a.property("TRIGGER"), let at = try? instant(trigger, zones).0
            {
                snoozes.append((ICalReader.text(rel).trimmingSpaces, at))
                continue
            }
            // Its UID (RFC 9074), else one made from its lines and place, the same on every read.
            var alarmUID = a.property("UID").map { ICalReader.text($0).trimmingSpaces } ?? ""
            if alarmUID.isEmpty || alarmUID.count > 255
                || alarmUID.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" })
                || alarmUIDs.contains(alarmUID)
            {
                // Made from its place, action and trigger (what todod writes back as it came), and
                // not written: the VALARM goes back with the lines it came with.
                let t = a.property("TRIGGER")
                alarmUID =
                    a.property("ACTION").map {
                        ICalReader.madeAlarmUID(
                            place: n, action: $0.value.trimmingSpaces.uppercased(),
                            trigger: t?.value.trimmingSpaces ?? "", related: t?.parameter("RELATED")?.uppercased() ?? ""
                        )
                    } ?? "todod-" + StableHash.hex("\(n)\n" + a.rawLines.joined(separator: "\n"))
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
            // An absolute trigger on a timed todo stays one (Apple, Thunderbird write them).
            if case .at = alarm.trigger, due?.allDay == false { extra.append(">!ABSOLUTE") }
            // Its DESCRIPTION is kept unless it is the title (what todod writes there).
            extra += a.properties.filter {
                !own.contains($0.name) && !$0.value.trimmingSpaces.isEmpty
                    && !($0.name == "DESCRIPTION" && $0.parameters.isEmpty && ICalReader.text($0) == title)
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
        read.alarms = alarms
        read.kept = kept
        read.relative = relative
        return read
    }
}
