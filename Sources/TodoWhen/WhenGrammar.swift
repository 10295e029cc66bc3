import TodoCore
import TodoTime

/// A resolved WHEN: the instant, and whether it names a whole local day (a date given without a
/// time of day: `friday`, `Dec 24`, `2026-12-24`, `next week`). An all-day instant is the start
/// of that local day (00:00, or the first instant that exists when the day starts in a DST gap).
package struct When: Equatable, Sendable {
    /// The instant the value names.
    package var instant: Instant
    /// True for a date without a time of day.
    package var allDay: Bool

    /// A WHEN at `instant`.
    package init(instant: Instant, allDay: Bool = false) {
        self.instant = instant
        self.allDay = allDay
    }

    /// The local day (days since 1970-01-01) of an all-day value, read in `zone`.
    package func day(in zone: ZoneInfo) -> Int64 { LocalTime(instant, in: zone).days }
}

/// The natural-language part of WHEN (todoctl(1), WHEN AND DURATION): day words, weekdays, month
/// names, bare times, ends of periods and relative phrases. Every form is resolved in the local
/// zone against `now`; tokens are already lowercased.
extension TimeExpression {
    /// Seconds after local midnight of the default morning time of all-day reminders (09:00).
    package static let defaultRemindTime: Int64 = 9 * 3600

    /// The instant a reminder of `when` counts from: the due instant, or for an all-day value that
    /// day at `remindTime` (seconds after local midnight). Nil outside the years 0001 to 9999.
    package static func reminderAnchor(_ when: When, remindTime: Int64, timeZone: ZoneInfo) -> Instant? {
        guard when.allDay else { return when.instant }
        return LocalTime.instant(days: when.day(in: timeZone), secondOfDay: remindTime, in: timeZone)
    }

    /// The forms that are not RFC 3339, `now`, `@EPOCH` or a local ISO date: nil when `tokens`
    /// are none of them.
    package static func natural(_ tokens: [Substring], now: Instant, timeZone: ZoneInfo, remindTime: Int64) -> When? {
        guard let first = tokens.first else { return nil }
        let rest = Array(tokens.dropFirst())
        if first.hasPrefix("+") || (first.hasPrefix("-") && first.count > 1) {
            guard rest.isEmpty, let parts = RelativeParts(compact: first.dropFirst()) else { return nil }
            return shifted(now, by: parts, sign: first.hasPrefix("+") ? 1 : -1, calendarDays: false, timeZone: timeZone)
        }
        if first == "in" {
            guard let parts = RelativeParts(words: rest) else { return nil }
            return shifted(now, by: parts, sign: 1, calendarDays: true, timeZone: timeZone)
        }
        if tokens.last == "ago" {
            guard let parts = RelativeParts(words: tokens.dropLast()) else { return nil }
            return shifted(now, by: parts, sign: -1, calendarDays: true, timeZone: timeZone)
        }
        guard checked(now.usec) != nil else { return nil }
        let today = LocalTime(now, in: timeZone).days
        if tokens.count == 1, let end = endOf(first, today: today) {
            return LocalTime.instant(days: end, secondOfDay: 86_399, in: timeZone).map { When(instant: $0) }
        }
        // `end of month`, `end of this week`, `end of next month`: as eom, eow, eonm.
        if tokens.count >= 3, tokens[0] == "end", tokens[1] == "of" {
            var unit = tokens[2...]
            var next = false
            if unit.first == "next" || unit.first == "this" {
                next = unit.first == "next"
                unit = unit.dropFirst()
            }
            let words: [Substring: Substring] = ["day": "eod", "week": "eow", "month": "eom", "year": "eoy"]
            guard unit.count == 1, let name = unit.first, let word = words[name],
                let end = endOf(next ? "eon" + word.dropFirst(2) : word, today: today)
            else { return nil }
            return LocalTime.instant(days: end, secondOfDay: 86_399, in: timeZone).map { When(instant: $0) }
        }
        if tokens == ["tonight"] {
            return LocalTime.instant(days: today, secondOfDay: 20 * 3600, in: timeZone).map { When(instant: $0) }
        }
        // `on friday`, `on Dec 24 at 5pm`: `on` before a date phrase changes nothing.
        let words = first == "on" && tokens.count > 1 ? Array(rest) : tokens
        return dayAndTime(words, now: now, today: today, timeZone: timeZone, remindTime: remindTime)
    }

    /// `eod`, `eow`, `eom`, `eoy`: the last day of this day, week (weeks start on Monday), month or
    /// year, as in Taskwarrior; `eond`, `eonw`, `eonm`, `eony` of the next one (`end of next
    /// month`, `来月末`). The caller adds 23:59:59.
    package static func endOf(_ word: Substring, today: Int64) -> Int64? {
        let (year, month, _) = Instant.civil(days: today)
        switch word {
        case "eod": return today
        case "eow": return today + (7 - weekday(ofDays: today)) % 7
        case "eom": return Instant.days(year: year, month: month, day: Instant.monthLength(year: year, month: month))
        case "eoy": return Instant.days(year: year, month: 12, day: 31)
        case "eond": return today + 1
        case "eonw": return endOf("eow", today: today + 7)
        case "eonm":
            return Instant.days(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1).flatMap
            { endOf("eom", today: $0) }
        case "eony": return Instant.days(year: year + 1, month: 1, day: 1).flatMap { endOf("eoy", today: $0) }
        default: return nil
        }
    }

    // MARK: - A day and a time

    /// Which day a date phrase names; some depend on the time of day that comes with it.
    package enum DayPhrase {
        /// A fixed local day.
        case day(Int64)
        /// No date at all (a bare time): today when the time is still ahead, else tomorrow.
        case comingTime
        /// A bare weekday (0 = Sunday): with a time, today when that time is still ahead;
        /// otherwise the next such day (1 to 7 days ahead).
        case weekday(Int64)
    }

    /// A date phrase and a time in either order: `tomorrow 9am`, `tomorrow at 9am`, `Dec 24 5pm`,
    /// `9am`, `at noon`, `5pm friday`, `noon on Dec 24`, `tomorrow evening`; or a date phrase alone
    /// (all-day).
    package static func dayAndTime(
        _ tokens: [Substring], now: Instant, today: Int64, timeZone: ZoneInfo, remindTime: Int64
    ) -> When? {
        var datePart = tokens[...]
        var secondOfDay: Int64?
        if let (time, used) = trailingTime(tokens[...], remindTime: remindTime) {
            secondOfDay = time
            datePart = tokens.dropLast(used)
        } else if let (time, used) = leadingTime(tokens[...], remindTime: remindTime) {
            secondOfDay = time
            datePart = tokens.dropFirst(used)
            if datePart.first == "on" { datePart = datePart.dropFirst() }
            guard !datePart.isEmpty else { return nil }
        }
        guard let phrase = dayPhrase(Array(datePart), today: today) else { return nil }
        return resolve(phrase, secondOfDay: secondOfDay, now: now, today: today, timeZone: timeZone)
    }

    /// The instant a date phrase with an optional time of day names; the one set of rules for both
    /// languages. Without a time the phrase is all-day (a bare time needs one); a bare time or
    /// weekday with a time is today when that time is still ahead.
    package static func resolve(
        _ phrase: DayPhrase, secondOfDay: Int64?, now: Instant, today: Int64, timeZone: ZoneInfo
    ) -> When? {
        guard let secondOfDay else {
            let day: Int64
            switch phrase {
            case .day(let d): day = d
            case .comingTime: return nil
            case .weekday(let target): day = today + nextDelta(from: today, to: target)
            }
            return LocalTime.instant(days: day, secondOfDay: 0, in: timeZone).map { When(instant: $0, allDay: true) }
        }
        let day: Int64
        switch phrase {
        case .day(let d):
            day = d
        case .comingTime, .weekday:
            let sameDay: Bool
            if case .weekday(let target) = phrase { sameDay = weekday(ofDays: today) == target } else { sameDay = true }
            let ahead = LocalTime.instant(days: today, secondOfDay: secondOfDay, in: timeZone).map { $0 > now } ?? false
            if sameDay && ahead {
                day = today
            } else if case .weekday(let target) = phrase {
                day = today + nextDelta(from: today, to: target)
            } else {
                day = today + 1
            }
        }
        return LocalTime.instant(days: day, secondOfDay: secondOfDay, in: timeZone).map { When(instant: $0) }
    }

    /// Days from `today` to the next `target` weekday: 1…7, never 0.
    package static func nextDelta(from today: Int64, to target: Int64) -> Int64 {
        let delta = (target - weekday(ofDays: today) + 7) % 7
        return delta == 0 ? 7 : delta
    }

    /// A TIME at the end, optionally after `at`: seconds since midnight and how many tokens it took.
    package static func trailingTime(_ tokens: ArraySlice<Substring>, remindTime: Int64) -> (Int64, Int)? {
        for used in [2, 1] where tokens.count >= used {
            guard let time = timeOfDay(Array(tokens.suffix(used)), remindTime: remindTime) else { continue }
            let before = tokens.dropLast(used)
            return before.last == "at" ? (time, used + 1) : (time, used)
        }
        return nil
    }

    /// A TIME at the start (`5pm friday`, `at 9am tomorrow`): seconds since midnight and tokens taken.
    package static func leadingTime(_ tokens: ArraySlice<Substring>, remindTime: Int64) -> (Int64, Int)? {
        let skip = tokens.first == "at" ? 1 : 0
        let rest = tokens.dropFirst(skip)
        for used in [2, 1] where rest.count >= used {
            if let time = timeOfDay(Array(rest.prefix(used)), remindTime: remindTime) { return (time, used + skip) }
        }
        return nil
    }

    /// A date phrase: nothing (a bare time follows), `today`, `tomorrow`, `yesterday`, a weekday,
    /// `next WEEKDAY`, `last WEEKDAY`, `next week|month|year`, `YYYY-MM-DD`, or a month name with a
    /// day and optionally a year (`Dec 24`, `24 Dec`, `December 24th 2027`).
    package static func dayPhrase(_ words: [Substring], today: Int64) -> DayPhrase? {
        switch words.count {
        case 0:
            return .comingTime
        case 1:
            let word = words[0]
            switch word {
            case "today": return .day(today)
            case "tomorrow", "tmrw", "tmr", "tmw": return .day(today + 1)
            case "yesterday": return .day(today - 1)
            default: break
            }
            if let target = weekdays[String(word)] { return .weekday(target) }
            return (date(word) ?? slashMonthDay(word, today: today)).map { .day($0) }
        case 2 where words[0] == "next" || words[0] == "last":
            let next = words[0] == "next"
            if let target = weekdays[String(words[1])] {
                // Never today: 1 to 7 days ahead, or 1 to 7 days back.
                let back = (weekday(ofDays: today) - target + 7) % 7
                return .day(next ? today + nextDelta(from: today, to: target) : today - (back == 0 ? 7 : back))
            }
            guard next else { return nil }
            let (year, month, _) = Instant.civil(days: today)
            switch words[1] {
            case "week": return .day(today + nextDelta(from: today, to: 1))
            case "month":
                return Instant.days(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1).map
                { .day($0) }
            case "year": return Instant.days(year: year + 1, month: 1, day: 1).map { .day($0) }
            default: return nil
            }
        default:
            return monthDay(words, today: today).map { .day($0) }
        }
    }

    package static let monthNames: [String: Int64] = [
        "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
        "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
        "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
        "december": 12, "dec": 12
    ]

    /// `MONTH DAY [YEAR]` or `DAY MONTH [YEAR]` (a month name or abbreviation, optionally with a
    /// dot; a day of 1 or 2 digits, optionally with st/nd/rd/th; a 4-digit year). Without a year
    /// it is the coming one: this year when that day is today or later, else the next year in
    /// which the date exists (29 February waits for a leap year).
    package static func monthDay(_ words: [Substring], today: Int64) -> Int64? {
        guard words.count == 2 || words.count == 3 else { return nil }
        func month(_ w: Substring) -> Int64? { monthNames[String(w.hasSuffix(".") ? w.dropLast() : w)] }
        let m: Int64
        let dayWord: Substring
        if let first = month(words[0]) {
            (m, dayWord) = (first, words[1])
        } else if let second = month(words[1]) {
            (m, dayWord) = (second, words[0])
        } else {
            return nil
        }
        guard let d = dayOfMonth(dayWord) else { return nil }
        if words.count == 3 {
            guard words[2].count == 4, let year = number(words[2]) else { return nil }
            return Instant.days(year: year, month: m, day: d)
        }
        let (thisYear, thisMonth, thisDay) = Instant.civil(days: today)
        let start = (m, d) >= (thisMonth, thisDay) ? thisYear : thisYear + 1
        for year in start..<(start + 8) {
            if let day = Instant.days(year: year, month: m, day: d) { return day }
        }
        return nil
    }

    /// `12/24` (month/day, as Japanese and American dates are written): the coming one, as
    /// `Dec 24`.
    package static func slashMonthDay(_ word: Substring, today: Int64) -> Int64? {
        let parts = word.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), let m = number(parts[0]), (1...12).contains(m),
            let d = dayOfMonth(parts[1]), !parts[1].contains(where: { $0.isLetter })
        else { return nil }
        let names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        return monthDay([Substring(names[Int(m) - 1]), Substring(String(d))], today: today)
    }

    /// `24`, `24th`, `1st`, `2nd`, `3rd`: 1…31.
    package static func dayOfMonth(_ word: Substring) -> Int64? {
        var digits = word
        for suffix in ["st", "nd", "rd", "th"] where word.hasSuffix(suffix) {
            digits = word.dropLast(2)
        }
        guard (1...2).contains(digits.count), let d = number(digits), (1...31).contains(d) else { return nil }
        return d
    }

    // MARK: - Relative phrases

    /// `now` moved by `parts` times `sign`: years and months as calendar months in local time first
    /// (the day of month is kept, or the month's last day when it has fewer; the wall-clock time is
    /// kept), then weeks and days (calendar days with the wall-clock time kept when
    /// `calendarDays`, else exactly 24 hours each), then hours, minutes and seconds as elapsed time.
    package static func shifted(
        _ now: Instant, by parts: RelativeParts, sign: Int64, calendarDays: Bool, timeZone: ZoneInfo
    ) -> When? {
        let months = parts.years * 12 + parts.months
        let days = parts.weeks * 7 + parts.days
        // More than fit between the years 1 and 9999 cannot give a valid instant.
        guard months <= 120_000, days <= 4_000_000 else { return nil }
        var exact: Int64 = parts.fractionUsec
        for (count, size) in [
            (parts.hours, Int64(3_600_000_000)), (parts.minutes, 60_000_000), (parts.seconds, 1_000_000),
            (calendarDays ? 0 : days, 86_400_000_000)
        ] {
            let (product, o1) = count.multipliedReportingOverflow(by: size)
            let (sum, o2) = exact.addingReportingOverflow(product)
            guard !o1, !o2 else { return nil }
            exact = sum
        }
        var base = now
        if months != 0 || (calendarDays && days != 0) {
            guard checked(now.usec) != nil else { return nil }
            let local = LocalTime(now, in: timeZone)
            var day = local.days
            if months != 0 {
                let (y, m, d) = Instant.civil(days: local.days)
                let total = y * 12 + (m - 1) + sign * months
                let year = total >= 0 ? total / 12 : -((-total + 11) / 12)
                let month = total - year * 12 + 1
                guard year >= 1, year <= 9999,
                    let moved = Instant.days(
                        year: year, month: month, day: min(d, Instant.monthLength(year: year, month: month)))
                else { return nil }
                day = moved
            }
            if calendarDays { day += sign * days }
            let micros = now.usec - now.seconds * 1_000_000
            guard let moved = LocalTime.instant(days: day, secondOfDay: local.secondOfDay, micros: micros, in: timeZone)
            else { return nil }
            base = moved
        }
        return checkedAdd(base.usec, sign * exact).map { When(instant: $0) }
    }

    /// Counts per unit of a relative WHEN, each at most 15 digits.
    package struct RelativeParts: Equatable {
        var years: Int64 = 0
        var months: Int64 = 0
        var weeks: Int64 = 0
        var days: Int64 = 0
        var hours: Int64 = 0
        var minutes: Int64 = 0
        var seconds: Int64 = 0
        /// The fractional part of a decimal count of hours or minutes (`in 1.5 hours`), in µs.
        var fractionUsec: Int64 = 0

        /// Microseconds per unit of the units that take a decimal count.
        static let fractionalUnits: [String: Int64] = ["h": 3_600_000_000, "m": 60_000_000, "s": 1_000_000]

        /// The unit letters of the compact form, in the order they must come.
        static let compactUnits = ["y", "mo", "w", "d", "h", "m", "s"]

        /// The words of `in N UNIT` and `N UNIT ago`, as compact units.
        static let unitWords: [String: String] = [
            "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
            "m": "m", "min": "m", "mins": "m", "minute": "m", "minutes": "m",
            "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
            "d": "d", "day": "d", "days": "d",
            "w": "w", "wk": "w", "wks": "w", "week": "w", "weeks": "w",
            "mo": "mo", "mos": "mo", "month": "mo", "months": "mo",
            "y": "y", "yr": "y", "yrs": "y", "year": "y", "years": "y"
        ]

        private var given: Set<String> = []

        /// `1y2mo3w4d5h6m7s` (lowercase, each unit at most once and in that order, at least one).
        init?(compact text: Substring) {
            var next = 0
            var rest = text
            guard !rest.isEmpty else { return nil }
            while !rest.isEmpty {
                let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
                rest = rest.dropFirst(digits.count)
                let unit = String(rest.prefix(while: { $0.isASCII && $0.isLetter }))
                rest = rest.dropFirst(unit.count)
                guard let n = TimeExpression.number(digits),
                    let rank = Self.compactUnits.firstIndex(of: unit), rank >= next
                else { return nil }
                next = rank + 1
                set(n, unit)
            }
        }

        /// The words after `in` or before `ago`: `2 hours`, `a week`, `1 hour 30 minutes`,
        /// `1 year and 2 months`, `90min`, `1h30m`, `1mo` (each unit at most once).
        init?<Words: Collection>(words: Words) where Words.Element == Substring {
            var items = Array(words)
            guard !items.isEmpty else { return nil }
            while !items.isEmpty {
                let word = items.removeFirst()
                if word == "and", !given.isEmpty, !items.isEmpty { continue }
                let count: Int64?
                if word == "a" || word == "an" {
                    count = 1
                } else {
                    count = word.allSatisfy({ $0.isASCII && $0.isNumber }) ? TimeExpression.number(word) : nil
                }
                if let count {
                    guard let unitWord = items.first, let unit = Self.unitWords[String(unitWord)] else { return nil }
                    items.removeFirst()
                    guard add(count, unit) else { return nil }
                    continue
                }
                // `1.5 hours`, `1.5h`, `2.25 minutes`: a decimal count of hours, minutes or seconds.
                let decimal = word.prefix(while: { ($0.isASCII && $0.isNumber) || $0 == "." })
                if decimal.contains(".") {
                    let unitText = decimal.count == word.count ? items.first : word.dropFirst(decimal.count)
                    guard let unitText, let unit = Self.unitWords[String(unitText)], addDecimal(decimal, unit) else {
                        return nil
                    }
                    if decimal.count == word.count { items.removeFirst() }
                    continue
                }
                // `90min`, `2hours`: digits and a unit word in one; else a compact value (`1h30m`).
                let digits = word.prefix(while: { $0.isASCII && $0.isNumber })
                if let unit = Self.unitWords[String(word.dropFirst(digits.count))],
                    let n = TimeExpression.number(digits)
                {
                    guard add(n, unit) else { return nil }
                    continue
                }
                guard let compact = RelativeParts(compact: word) else { return nil }
                for unit in compact.given {
                    guard add(compact.value(unit), unit) else { return nil }
                }
            }
        }

        private func value(_ unit: String) -> Int64 {
            switch unit {
            case "y": years
            case "mo": months
            case "w": weeks
            case "d": days
            case "h": hours
            case "m": minutes
            default: seconds
            }
        }

        /// Sets `unit` to a decimal count (`1.5`: at most 6 digits after the point) unless it was
        /// given already; only hours, minutes and seconds take one.
        mutating func addDecimal(_ text: Substring, _ unit: String) -> Bool {
            let halves = text.split(separator: ".", omittingEmptySubsequences: false)
            guard halves.count == 2, let size = Self.fractionalUnits[unit], (1...6).contains(halves[1].count),
                let whole = halves[0].isEmpty ? 0 : TimeExpression.number(halves[0]),
                let fraction = TimeExpression.number(halves[1]), add(whole, unit)
            else { return false }
            var scale: Int64 = 1
            for _ in 0..<halves[1].count { scale *= 10 }
            fractionUsec += fraction * size / scale
            return true
        }

        /// Sets `unit` unless it was given already.
        mutating func add(_ count: Int64, _ unit: String) -> Bool {
            guard !given.contains(unit) else { return false }
            set(count, unit)
            return true
        }

        private mutating func set(_ count: Int64, _ unit: String) {
            given.insert(unit)
            switch unit {
            case "y": years = count
            case "mo": months = count
            case "w": weeks = count
            case "d": days = count
            case "h": hours = count
            case "m": minutes = count
            default: seconds = count
            }
        }
    }
}
