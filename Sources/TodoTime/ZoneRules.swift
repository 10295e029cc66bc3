import TodoCore

// What a zone's data says about its changes of offset, for writing them down elsewhere (an
// iCalendar VTIMEZONE): the changes of a span, and the yearly rule of the TZif footer with the
// instant from which it gives every change.

extension ZoneInfo {
    /// One change of UTC offset.
    package struct Change: Sendable, Equatable {
        /// The instant of the change (seconds since the Unix epoch).
        package var utc: Int64
        /// The offsets (seconds east of UTC) before and after it.
        package var from: Int64
        package var to: Int64
        /// Whether the offset after it is daylight-saving time.
        package var isDaylight: Bool
    }

    /// A yearly daylight-saving rule whose dates are "weekday `w` of month `m`" (POSIX `Mm.w.d`),
    /// at a time of day: what an iCalendar `RRULE:FREQ=YEARLY;BYMONTH=m;BYDAY=wD` says.
    package struct YearlyRule: Sendable, Equatable {
        /// When one offset starts each year.
        package struct Onset: Sendable, Equatable {
            package var month: Int64
            /// 1 to 4: that weekday of the month; 5: the last one.
            package var week: Int64
            /// 0 = Sunday.
            package var weekday: Int64
            /// Seconds after midnight, local time in the offset before the change (0 to 86 399).
            package var time: Int64

            /// Days since 1970-01-01 of the onset's date in `year`.
            package func day(in year: Int64) -> Int64 {
                PosixRule.RuleDate.monthWeekDay(month: month, week: week, weekday: weekday).day(in: year)
            }
        }

        package var standardOffset: Int64
        package var daylightOffset: Int64
        package var daylightStart: Onset
        package var standardStart: Onset
        /// The instant from which the rule gives every change of the zone (nil: always).
        package var since: Int64?
    }

    /// Whether daylight-saving time is in effect at `utcSeconds`.
    package func isDaylight(at utcSeconds: Int64) -> Bool {
        if let rule, transitions.last.map({ utcSeconds >= $0 }) ?? true {
            guard let d = rule.daylight else { return false }
            return rule.secondsFromUTC(at: utcSeconds) == d.offset && d.offset != rule.standardOffset
        }
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = low + (high - low) / 2
            if transitions[middle] <= utcSeconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? false : daylight[low - 1]
    }

    /// The yearly rule of the zone's data (the TZif footer), when it has daylight-saving time in
    /// the `Mm.w.d` form at times within the day; nil otherwise (no daylight-saving time, or
    /// rules no yearly RRULE can say).
    package var yearlyRule: YearlyRule? {
        guard let rule, let d = rule.daylight,
            case .monthWeekDay(let sm, let sw, let sd) = d.start, case .monthWeekDay(let em, let ew, let ed) = d.end,
            (0..<86_400).contains(d.startTime), (0..<86_400).contains(d.endTime), d.offset != rule.standardOffset
        else { return nil }
        // The earliest transition from which on every transition of the table is the rule's.
        var since: Int64?
        var i = transitions.count - 1
        while i >= 0 {
            let before = i > 0 ? offsets[i - 1] : initialOffset
            guard rule.secondsFromUTC(at: transitions[i]) == offsets[i],
                rule.secondsFromUTC(at: transitions[i] - 1) == before
            else { break }
            since = transitions[i]
            i -= 1
        }
        if since == nil { since = transitions.last } // nil only for a zone that is its rule alone
        return YearlyRule(
            standardOffset: rule.standardOffset, daylightOffset: d.offset,
            daylightStart: .init(month: sm, week: sw, weekday: sd, time: d.startTime),
            standardStart: .init(month: em, week: ew, weekday: ed, time: d.endTime), since: since)
    }

    /// The changes of offset from `start` through `end` (UTC seconds), in order: those of the
    /// table, then those of the yearly rule after it.
    package func changes(from start: Int64, through end: Int64) -> [Change] {
        guard start <= end else { return [] }
        var out: [Change] = []
        for (i, t) in transitions.enumerated() where t >= start && t <= end {
            let before = i > 0 ? offsets[i - 1] : initialOffset
            if before != offsets[i] {
                out.append(Change(utc: t, from: before, to: offsets[i], isDaylight: daylight[i]))
            }
        }
        guard let rule, let d = rule.daylight else { return out }
        let after = max(start, transitions.last.map { $0 + 1 } ?? start)
        guard after <= end else { return out }
        let firstYear = Instant.civil(days: after / 86_400 - 1).year
        let lastYear = Instant.civil(days: end / 86_400 + 1).year
        guard firstYear <= lastYear else { return out }
        var ruled: [Change] = []
        for year in firstYear...lastYear {
            let on = d.start.day(in: year) * 86_400 + d.startTime - rule.standardOffset
            let off = d.end.day(in: year) * 86_400 + d.endTime - d.offset
            ruled.append(Change(utc: on, from: rule.standardOffset, to: d.offset, isDaylight: true))
            ruled.append(Change(utc: off, from: d.offset, to: rule.standardOffset, isDaylight: false))
        }
        return out + ruled.filter { $0.utc >= after && $0.utc <= end && $0.from != $0.to }.sorted { $0.utc < $1.utc }
    }
}
