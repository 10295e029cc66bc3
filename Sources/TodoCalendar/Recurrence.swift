import TodoCore
import TodoTime

/// Advancing ONE recurring todo (SPEC §3.1): its `due` moves to the next occurrence when it is
/// completed; the stored rule keeps what is left of it. See docs/RECURRENCE.md.
package enum Recurrence {
    /// The todo's next `due` and the rule to store with it, or nil when the rule is exhausted:
    /// what the store calls when a recurring todo is completed (`from` as in its `recurrence`).
    /// See `advance(rule:fromCompletion:due:zone:completed:allDay:)`.
    package static func advance(
        rule: String, from: RecurrenceBase, due: Instant, zone: ZoneInfo, completed: Instant,
        allDay: Bool = false
    ) throws(RecurrenceError) -> (due: Instant, rule: String)? {
        try advance(
            rule: rule, fromCompletion: from == .completion, due: due, zone: zone, completed: completed, allDay: allDay)
    }

    /// The todo's next `due` and the rule to store with it, or nil when the rule is exhausted
    /// (COUNT used up, past UNTIL, or past the year 9999): completing it then closes it for good.
    ///
    /// - `fromCompletion == false` (`from: due`): the first occurrence after both `due` and
    ///   `completed`, with `due` as DTSTART — occurrences that passed while the todo was open are
    ///   skipped. COUNT in the returned rule is decreased by the occurrences used up (the current
    ///   one and any skipped), so the stored rule with the new `due` as DTSTART names exactly the
    ///   rest of the original series.
    /// - `fromCompletion == true` (`from: completion`): the local date of `completed` plus one
    ///   interval (INTERVAL days, weeks, months or years; a month or year that lacks the day takes
    ///   its last day), at `due`'s time of day; when the rule has BYDAY, BYMONTHDAY or BYMONTH,
    ///   the first day of the rule on or after that date. COUNT decreases by one.
    /// - `allDay`: the todo is due on dates; the result is the local midnight of the next date.
    package static func advance(
        rule text: String, fromCompletion: Bool, due: Instant, zone: ZoneInfo, completed: Instant,
        allDay: Bool = false
    ) throws(RecurrenceError) -> (due: Instant, rule: String)? {
        var rule = try RecurrenceRule(parsing: text)
        if fromCompletion {
            let local = LocalTime(due, in: zone)
            let doneDay = LocalTime(completed, in: zone).days
            guard let anchorDay = Self.add(intervals: rule.interval, of: rule.frequency, to: doneDay),
                let anchor = LocalTime.instant(
                    days: anchorDay, secondOfDay: allDay ? 0 : local.secondOfDay,
                    micros: allDay ? 0 : (due.usec % 1_000_000 + 1_000_000) % 1_000_000, in: zone)
            else { return nil }
            var walk = OccurrenceIterator(rule: rule.withoutEnd, start: anchor, zone: zone, allDay: allDay)
            guard let next = walk.next() else { return nil }
            switch rule.until {
            case .date(let days)?: if LocalTime(next, in: zone).days > days { return nil }
            case .instant(let until)?: if next > until { return nil }
            case .local(let seconds)?:
                let l = LocalTime(next, in: zone)
                if (allDay ? l.days * 86_400 : l.days * 86_400 + l.secondOfDay)
                    > (allDay ? seconds - ((seconds % 86_400) + 86_400) % 86_400 : seconds)
                {
                    return nil
                }
            case nil: break
            }
            if let count = rule.count {
                if count <= 1 { return nil }
                rule.count = count - 1
            }
            return (next, rule.text)
        }
        let after = max(due, completed)
        // The current `due` counts as an occurrence even when it is off the schedule.
        var walk = OccurrenceIterator(rule: rule, start: due, zone: zone, allDay: allDay, countingStart: true)
        walk.skip(toward: LocalTime(after, in: zone).days)
        while let t = walk.next() {
            guard t > after else { continue }
            if let count = rule.count {
                // Used up: the current `due` and every occurrence after it up to the completion.
                let used = walk.produced - 1
                if used >= count { return nil }
                rule.count = count - used
            }
            return (t, rule.text)
        }
        return nil
    }

    /// The todo's next `count` dates, its current `due` first, for `show` and `list --recurring`:
    /// the rule's occurrences from `due` (`from: due`), or `due` alone for an `after done` rule
    /// (its later dates depend on when it is done). Empty when the rule does not parse.
    /// `start`: the todo's start, the rule's anchor when it has one (see `laterDues`).
    package static func upcoming(
        _ recurrence: TodoRecurrence, due: Instant, start: Instant? = nil, zone: ZoneInfo,
        allDay: Bool = false, count: Int
    ) -> [Instant] {
        guard count > 0, (try? RecurrenceRule(parsing: recurrence.rule)) != nil else { return [] }
        guard recurrence.from == .due else { return [due] }
        return [due] + laterDues(recurrence, due: due, start: start, zone: zone, allDay: allDay, limit: count - 1)
    }

    /// The first local date on or after `day` (days since 1970-01-01) that `rule` names with
    /// that day as DTSTART: the first `due` of a todo given `--every` without `--due` (SPEC §4.1:
    /// "the first occurrence from today"). Nil when the rule names no date from there.
    package static func firstDate(rule text: String, onOrAfter day: Int64) throws(RecurrenceError) -> Int64? {
        let rule = try RecurrenceRule(parsing: text)
        var walk = OccurrenceIterator(rule: rule, start: Instant(seconds: day * 86_400), zone: .utc, allDay: true)
        return walk.nextDate()?.days
    }

    /// `day` plus `n` periods of `frequency`; months and years keep the day of month or take the
    /// month's last day when it is shorter (31 January + 1 month = 28 or 29 February).
    static func add(intervals n: Int, of frequency: Frequency, to day: Int64) -> Int64? {
        let result: Int64
        switch frequency {
        case .daily: result = day + Int64(n)
        case .weekly: result = day + 7 * Int64(n)
        case .monthly, .yearly:
            let (y, m, d) = Instant.civil(days: day)
            let index = y * 12 + (m - 1) + Int64(n) * (frequency == .monthly ? 1 : 12)
            let (ny, nm) = (index / 12, index % 12 + 1)
            guard ny <= 9999 else { return nil }
            return Instant.days(year: ny, month: nm, day: min(d, Instant.monthLength(year: ny, month: nm)))
        }
        return result < 2_932_897 ? result : nil
    }
}

extension RecurrenceRule {
    /// The rule without COUNT and UNTIL.
    var withoutEnd: RecurrenceRule {
        var r = self
        r.count = nil
        r.until = nil
        return r
    }
}
