import TodoCore
import TodoTime

/// The local dates a rule names, period by period (RFC 5545 §3.3.10: BYxxx parts expand or limit
/// the dates of each FREQ period, then BYSETPOS picks among them). Works on days since
/// 1970-01-01; the time of day is added by `OccurrenceIterator`.
struct DateExpander {
    let rule: RecurrenceRule
    let startDays: Int64
    let startYear: Int64, startMonth: Int64, startDay: Int64
    /// BYDAY, or the start's weekday for a WEEKLY rule without BYDAY.
    let byDay: [WeekdayNumber]
    /// BYMONTHDAY, or the start's day for a MONTHLY/YEARLY rule without BYDAY and BYMONTHDAY.
    let byMonthDay: [Int]
    /// BYMONTH, or the start's month for a YEARLY rule without BYDAY, BYMONTHDAY and BYMONTH.
    let byMonth: [Int]
    /// The first day of the week holding the start (WEEKLY periods).
    let weekBase: Int64

    init(rule: RecurrenceRule, startDays: Int64) {
        self.rule = rule
        self.startDays = startDays
        (startYear, startMonth, startDay) = Instant.civil(days: startDays)
        let bare = rule.byDay.isEmpty && rule.byMonthDay.isEmpty
        byDay = rule.frequency == .weekly && rule.byDay.isEmpty ? [WeekdayNumber(Weekday(days: startDays))] : rule.byDay
        byMonthDay =
            bare && (rule.frequency == .monthly || rule.frequency == .yearly) ? [Int(startDay)] : rule.byMonthDay
        byMonth = bare && rule.frequency == .yearly && rule.byMonth.isEmpty ? [Int(startMonth)] : rule.byMonth
        weekBase = startDays - Int64((Weekday(days: startDays).rawValue - rule.weekStart.rawValue + 7) % 7)
    }

    /// The index of the period holding `days` (negative before the start's period).
    func period(containing days: Int64) -> Int64 {
        let i = Int64(rule.interval)
        func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
        switch rule.frequency {
        case .daily: return floorDiv(days - startDays, i)
        case .weekly: return floorDiv(days - weekBase, 7 * i)
        case .monthly:
            let (y, m, _) = Instant.civil(days: days)
            return floorDiv((y * 12 + m) - (startYear * 12 + startMonth), i)
        case .yearly: return floorDiv(Instant.civil(days: days).year - startYear, i)
        }
    }

    /// The first day of period `k`, nil past the year 9999.
    func periodStart(_ k: Int64) -> Int64? {
        let i = Int64(rule.interval)
        switch rule.frequency {
        case .daily:
            let d = startDays + k * i
            return d < 2_932_897 ? d : nil
        case .weekly:
            let d = weekBase + 7 * k * i
            return d < 2_932_897 ? d : nil
        case .monthly:
            let index = startYear * 12 + (startMonth - 1) + k * i
            return Instant.days(year: index / 12, month: index % 12 + 1, day: 1)
        case .yearly: return Instant.days(year: startYear + k * i, month: 1, day: 1)
        }
    }

    /// The dates of period `k` in ascending order after BYSETPOS (possibly before the start),
    /// nil when the period lies past the year 9999.
    func dates(period k: Int64) -> [Int64]? {
        guard let first = periodStart(k) else { return nil }
        var set: [Int64]
        switch rule.frequency {
        case .daily:
            set = matches(first) ? [first] : []
        case .weekly:
            set = (first..<first + 7).filter { day in
                byDay.contains { $0.weekday == Weekday(days: day) } && monthAllowed(day)
            }
        case .monthly:
            let (y, m, _) = Instant.civil(days: first)
            set =
                byMonth.isEmpty || byMonth.contains(Int(m)) ? monthDates(year: y, month: m, ordinalsInMonth: true) : []
        case .yearly:
            let y = Instant.civil(days: first).year
            if byMonthDay.isEmpty && byMonth.isEmpty {
                // BYDAY alone: ordinals count within the year.
                set = expand(byDay, first: first, last: Instant.days(year: y, month: 12, day: 31)!)
            } else {
                let months = byMonth.isEmpty ? Array(1...12) : byMonth.sorted()
                set = months.flatMap { monthDates(year: y, month: Int64($0), ordinalsInMonth: !byMonth.isEmpty) }
            }
        }
        set.sort()
        if !rule.bySetPos.isEmpty, !set.isEmpty {
            var picked: [Int64] = []
            for pos in rule.bySetPos {
                let index = pos > 0 ? pos - 1 : set.count + pos
                if index >= 0, index < set.count { picked.append(set[index]) }
            }
            set = Array(Set(picked)).sorted()
        }
        return set
    }

    /// The dates of one month: BYMONTHDAY (limited by BYDAY), else BYDAY expanded in it.
    private func monthDates(year y: Int64, month m: Int64, ordinalsInMonth: Bool) -> [Int64] {
        let first = Instant.days(year: y, month: m, day: 1)!
        let length = Instant.monthLength(year: y, month: m)
        let last = first + length - 1
        if !byMonthDay.isEmpty {
            var out: [Int64] = []
            for md in byMonthDay {
                let day = md > 0 ? Int64(md) : length + 1 + Int64(md)
                guard day >= 1, day <= length else { continue }
                let date = first + day - 1
                if byDay.isEmpty || dayMatchesByDay(date, inMonth: ordinalsInMonth) { out.append(date) }
            }
            return Array(Set(out))
        }
        return expand(byDay, first: first, last: last)
    }

    /// Whether a DAILY period's date passes BYMONTH, BYMONTHDAY and BYDAY.
    private func matches(_ day: Int64) -> Bool {
        guard monthAllowed(day) else { return false }
        if !byMonthDay.isEmpty {
            let (y, m, d) = Instant.civil(days: day)
            let length = Instant.monthLength(year: y, month: m)
            guard byMonthDay.contains(where: { $0 > 0 ? Int64($0) == d : length + 1 + Int64($0) == d }) else {
                return false
            }
        }
        return byDay.isEmpty || byDay.contains { $0.weekday == Weekday(days: day) }
    }

    private func monthAllowed(_ day: Int64) -> Bool {
        byMonth.isEmpty || byMonth.contains(Int(Instant.civil(days: day).month))
    }

    /// Whether `date` is one of the BYDAY days, ordinals counted in its month or its year.
    private func dayMatchesByDay(_ date: Int64, inMonth: Bool) -> Bool {
        let (y, m, _) = Instant.civil(days: date)
        let first = inMonth ? Instant.days(year: y, month: m, day: 1)! : Instant.days(year: y, month: 1, day: 1)!
        let last =
            inMonth ? first + Instant.monthLength(year: y, month: m) - 1 : Instant.days(year: y, month: 12, day: 31)!
        let weekday = Weekday(days: date)
        return byDay.contains { entry in
            guard entry.weekday == weekday else { return false }
            if entry.ordinal > 0 { return (date - first) / 7 == Int64(entry.ordinal - 1) }
            if entry.ordinal < 0 { return (last - date) / 7 == Int64(-entry.ordinal - 1) }
            return true
        }
    }

    /// BYDAY entries expanded over the days first…last.
    private func expand(_ entries: [WeekdayNumber], first: Int64, last: Int64) -> [Int64] {
        var out = Set<Int64>()
        for entry in entries {
            let firstMatch = first + Int64((entry.weekday.rawValue - Weekday(days: first).rawValue + 7) % 7)
            let lastMatch = last - Int64((Weekday(days: last).rawValue - entry.weekday.rawValue + 7) % 7)
            if entry.ordinal == 0 {
                for d in stride(from: firstMatch, through: last, by: 7) { out.insert(d) }
            } else if entry.ordinal > 0 {
                let d = firstMatch + 7 * Int64(entry.ordinal - 1)
                if d <= last { out.insert(d) }
            } else {
                let d = lastMatch - 7 * Int64(-entry.ordinal - 1)
                if d >= first { out.insert(d) }
            }
        }
        return Array(out)
    }
}

/// Walks the occurrences of a rule from its start (DTSTART) in order: local dates from
/// `DateExpander`, each at the start's wall-clock time in the zone (a time that does not exist
/// that day moves forward by the gap, an ambiguous one takes the first instant — RFC 5545 §3.3.5,
/// as `LocalTime.instant` does), COUNT counted from the start, UNTIL inclusive. A start at the
/// second of two equal wall-clock times (a fall-back overlap) is after its own day's occurrence,
/// the first of them; that one is before DTSTART, so it is neither returned nor counted.
package struct OccurrenceIterator: IteratorProtocol, Sendable {
    let expander: DateExpander
    let zone: ZoneInfo
    let secondOfDay: Int64
    let micros: Int64
    let untilDays: Int64?
    let untilInstant: Instant?
    /// The start (DTSTART); nil for an all-day walk, which works on dates (its start day is one).
    let start: Instant?
    var period: Int64 = 0
    var buffer: [Int64] = []
    var index = 0
    /// How many occurrences from the start have been produced (or skipped over).
    package private(set) var produced = 0
    var finished = false
    /// Dates before this day are counted (for COUNT) but not turned into instants or returned.
    var countOnlyBefore: Int64 = .min
    /// The last period that held a date, and how many periods without one end the walk: the
    /// calendar repeats every 400 years (146,097 days, a whole number of weeks), so a rule that
    /// names no date in one such cycle of its periods names none ever after. This bounds every
    /// search, whatever the rule.
    var lastDatedPeriod: Int64 = 0
    let cycle: Int64

    /// `allDay`: the occurrences are the local midnights of the dates (whatever the start's time).
    /// `countingStart`: a start that is not itself on the rule's schedule still counts as the
    /// first occurrence for COUNT, as RFC 5545 counts DTSTART (it is not returned): the dates
    /// a todo's rule gives from its current `due`.
    package init(
        rule: RecurrenceRule, start: Instant, zone: ZoneInfo, allDay: Bool = false, countingStart: Bool = false
    ) {
        let local = LocalTime(start, in: zone)
        expander = DateExpander(rule: rule, startDays: local.days)
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        let i = Int64(rule.interval)
        switch rule.frequency {
        case .daily: cycle = 146_097 / gcd(146_097, i)
        case .weekly: cycle = 20_871 / gcd(20_871, i)
        case .monthly: cycle = 4_800 / gcd(4_800, i)
        case .yearly: cycle = 400 / gcd(400, i)
        }
        self.zone = zone
        secondOfDay = allDay ? 0 : local.secondOfDay
        micros = allDay ? 0 : (start.usec % 1_000_000 + 1_000_000) % 1_000_000
        self.start = allDay ? nil : start
        switch rule.until {
        case .date(let days)?:
            untilDays = days
            untilInstant = nil
        case .instant(let instant)?:
            untilDays = nil
            untilInstant = instant
        case .local(let seconds)?:
            // Floating: that wall-clock time in the zone followed (for an all-day walk, its day).
            let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
            untilDays = allDay ? days : nil
            untilInstant =
                allDay
                ? nil : (LocalTime.instant(days: days, secondOfDay: seconds - days * 86_400, in: zone) ?? .latest)
        case nil:
            untilDays = nil
            untilInstant = nil
        }
        // A DAILY rule whose INTERVAL is whole weeks stays on the start's weekday.
        if rule.frequency == .daily, i % 7 == 0, !rule.byDay.isEmpty,
            !rule.byDay.contains(where: { $0.weekday == Weekday(days: local.days) })
        {
            finished = true
        }
        if countingStart, rule.count != nil {
            var probe = OccurrenceIterator(rule: rule.withoutEnd, start: start, zone: zone, allDay: allDay)
            let first = probe.nextDate()
            if first?.days != local.days || (!allDay && first?.instant != start) { produced = 1 }
        }
    }

    /// The next occurrence: its local date (days since 1970-01-01) and instant.
    package mutating func nextDate() -> (days: Int64, instant: Instant)? {
        while !finished {
            if index < buffer.count {
                let day = buffer[index]
                index += 1
                guard day >= expander.startDays else { continue }
                if let count = expander.rule.count, produced >= count {
                    finished = true
                    break
                }
                if let untilDays, day > untilDays {
                    finished = true
                    break
                }
                if day == expander.startDays, let start,
                    let first = LocalTime.instant(days: day, secondOfDay: secondOfDay, micros: micros, in: zone),
                    first < start
                {
                    continue
                }
                if day < countOnlyBefore {
                    produced += 1
                    continue
                }
                guard let instant = LocalTime.instant(days: day, secondOfDay: secondOfDay, micros: micros, in: zone)
                else {
                    finished = true
                    break
                }
                if let untilInstant, instant > untilInstant {
                    finished = true
                    break
                }
                produced += 1
                return (day, instant)
            }
            guard period - lastDatedPeriod <= cycle, let dates = expander.dates(period: period) else {
                finished = true
                break
            }
            if !dates.isEmpty { lastDatedPeriod = period }
            buffer = dates
            index = 0
            period += 1
            skipExcludedMonths()
        }
        return nil
    }

    package mutating func next() -> Instant? { nextDate()?.instant }

    /// Moves the walk toward the local day `days`: without COUNT it starts at the period holding
    /// it (or just before); with COUNT the dates more than a day before it are only counted.
    mutating func skip(toward days: Int64) {
        countOnlyBefore = days - 1
        guard expander.rule.count == nil, index >= buffer.count else { return }
        let target = expander.period(containing: days) - 1
        if target > period {
            period = target
            lastDatedPeriod = target
        }
    }

    /// A DAILY rule with BYMONTH: jump over whole months it excludes instead of testing each day.
    private mutating func skipExcludedMonths() {
        guard expander.rule.frequency == .daily, !expander.byMonth.isEmpty, let day = expander.periodStart(period)
        else { return }
        var (y, m, _) = Instant.civil(days: day)
        var months = 0
        while !expander.byMonth.contains(Int(m)), months < 12 {
            (y, m) = m == 12 ? (y + 1, 1) : (y, m + 1)
            months += 1
        }
        guard months > 0, let monthStart = Instant.days(year: y, month: m, day: 1) else { return }
        let target = expander.period(containing: monthStart - 1) + 1
        if target > period { period = target }
    }
}

extension RecurrenceRule {
    /// The first occurrence strictly after `after`, with `start` as DTSTART, in `zone`; nil when
    /// the rule ends before (COUNT, UNTIL, or the year 9999).
    package func next(after: Instant, start: Instant, zone: ZoneInfo, allDay: Bool = false) -> Instant? {
        var walk = OccurrenceIterator(rule: self, start: start, zone: zone, allDay: allDay)
        walk.skip(toward: LocalTime(after, in: zone).days)
        while let t = walk.next() {
            if t > after { return t }
        }
        return nil
    }

    /// The occurrences from `from` through `through` (both inclusive), at most `limit`;
    /// `countingStart` as for `OccurrenceIterator`.
    package func occurrences(
        start: Instant, zone: ZoneInfo, from: Instant, through: Instant, limit: Int = .max, allDay: Bool = false,
        countingStart: Bool = false
    ) -> [Instant] {
        var out: [Instant] = []
        guard limit > 0, from <= through else { return out }
        var walk = OccurrenceIterator(
            rule: self, start: start, zone: zone, allDay: allDay, countingStart: countingStart)
        walk.skip(toward: LocalTime(from, in: zone).days)
        while let t = walk.next(), t <= through {
            if t >= from {
                out.append(t)
                if out.count >= limit { break }
            }
        }
        return out
    }
}
