import TodoCore
import TodoTime

/// A bad WHEN or DURATION value: `message` quotes the value and lists the accepted forms, one line.
package struct TimeExpressionError: Error, Equatable, Sendable {
    /// One line for the user, without the `todoctl:` prefix.
    package let message: String
    /// For a value that could not be read: `invalid time "xyz"`, the part before the problem.
    private let subject: String?
    /// For a value that could not be read: what is wrong with it (`expected ...`).
    private let problem: String?

    /// An error with the given one-line message.
    package init(message: String) {
        self.message = message
        subject = nil
        problem = nil
    }

    /// `invalid KIND "TEXT": PROBLEM`, KIND being `time`, `duration` or `reminder`.
    package init(invalid kind: String, _ text: String, _ problem: String) {
        let subject = "invalid \(kind) \(TimeExpression.quoted(text))"
        self.message = "\(subject): \(problem)"
        self.subject = subject
        self.problem = problem
    }

    /// The message with the option that gave the value named right after it:
    /// `invalid time "xyz" for --due: expected ...`; a message about no one value ends `(--due)`.
    package func naming(_ option: String) -> String {
        guard let subject, let problem else { return message + " (\(option))" }
        return "\(subject) for \(option): \(problem)"
    }

    /// Two errors are equal when they say the same.
    package static func == (a: TimeExpressionError, b: TimeExpressionError) -> Bool { a.message == b.message }
}

/// The WHEN and DURATION grammar of `todoctl` (todoctl(1), WHEN AND DURATION).
///
/// WHEN, case-insensitive, surrounding whitespace ignored, commas read as spaces:
/// - RFC 3339: `2026-12-01T09:00:00Z`, `2026-12-01T18:00:00+09:00`; `@EPOCHSECONDS`; `now`.
/// - A date: `YYYY-MM-DD`, `today`, `tomorrow`, `yesterday`, a weekday (`monday` or `mon` …; the
///   next such day, 1 to 7 days ahead), `next WEEKDAY` (the same), `last WEEKDAY` (1 to 7 days
///   back), `next week` (Monday), `next month` (the 1st), `next year` (1 January), or a month name
///   or abbreviation with a day and maybe a year (`Dec 24`, `24 Dec`, `December 24th, 2027`;
///   without a year the coming one). A date alone is all-day (`When.allDay`): the start of that day.
/// - A date and a TIME in either order, `at` before the time and `on` before a date allowed
///   (`tomorrow at 9am`, `Dec 24 5pm`, `5pm friday`); `YYYY-MM-DDTHH:MM[:SS]`. A bare weekday with
///   a time is today when that time is still ahead.
/// - TIME: `17:30`, `17:30:15`, `9am`, `9:30am`, `5:30pm`, `9 am`, `noon`, `midnight` (00:00);
///   `12am` is 00:00 and `12pm` noon. Alone, a TIME is today when still ahead, else tomorrow.
/// - `tonight` (today 20:00); `eod`, `eow`, `eom`, `eoy`: 23:59:59 on the last day of this day,
///   week (Monday to Sunday), month or year, as in Taskwarrior.
/// - Relative: `+` or `-` and a compact value with the units `y mo w d h m s` in that order
///   (`+90s`, `+1h30m`, `-2h`, `+1mo`, `+1y`); `in` and words (`in 2 hours`, `in a week`,
///   `in 1 month`, `in 1h30m`); words and `ago` (`2 hours ago`, `3 days ago`).
///
/// Months and years are calendar arithmetic in local time: the day of the month is kept, or the
/// last day of a shorter month (31 January + 1 month = 28 or 29 February), and so is the
/// wall-clock time. In `in`/`ago` phrases days and weeks are calendar days too (`in 1 day` keeps the
/// wall-clock time across a DST change); after `+`/`-` they are exactly 24 hours, as in a DURATION.
/// Hours, minutes and seconds are always elapsed time, applied last.
///
/// Local wall-clock times are resolved like this:
/// - a time that does not exist (in a spring-forward gap) is read with the UTC offset in effect
///   before the gap, which moves it forward by the gap length (02:30 on 2026-03-08 in New York
///   becomes 03:30 EDT);
/// - an ambiguous time (in a fall-back overlap) is the earlier instant, the first time the clock
///   shows it (01:30 on 2026-11-01 in New York is 01:30 EDT).
///
/// DURATION: numbers with the units `w d h m s`, each unit at most once and in that order
/// (`1h30m`, `1w2d`); `1h1h`, `30m1h` and `0s` are rejected. A day is exactly 24 hours here.
///
/// Results must lie in years 0001…9999 (UTC); anything larger, and any number with more than
/// 15 digits, is an error, never an overflow.
///
/// Local conversions use `ZoneInfo.secondsFromUTC(at:)` and the proleptic Gregorian calendar
/// of `TodoCore.Instant` rather than `Calendar`, whose Gregorian calendar switches to the Julian one
/// before 1582 and whose handling of nonexistent local times is not documented.
package enum TimeExpression {
    /// Parses WHEN relative to `now` in `timeZone` (todoctl passes the zone TZ names), in English
    /// or Japanese; `morning` and `朝` are `remindTime` (seconds after local midnight).
    package static func when(
        _ text: String, now: Instant, timeZone: ZoneInfo,
        remindTime: Int64 = defaultRemindTime
    ) throws(TimeExpressionError) -> When {
        guard let value = parseWhen(text, now: now, timeZone: timeZone, remindTime: remindTime) else {
            throw whenError(text)
        }
        return value
    }

    /// Why `text` is no WHEN: a date that does not exist is named as such, else the forms.
    package static func whenError(_ text: String, kind: String = "time", forms: String = "expected \(whenForms)")
        -> TimeExpressionError
    {
        if Instant.isOutOfRangeRFC3339(Validation.trimmed(text)) {
            return TimeExpressionError(invalid: kind, text, "outside the years 0001 to 9999 once its offset is applied")
        }
        if let reason = impossibleDate(normalize(text)) { return TimeExpressionError(invalid: kind, text, reason) }
        return TimeExpressionError(invalid: kind, text, forms)
    }

    /// The instant of `when(_:now:timeZone:)` (an all-day value: the start of its day).
    package static func instant(_ text: String, now: Instant, timeZone: ZoneInfo) throws(TimeExpressionError) -> Instant
    {
        try when(text, now: now, timeZone: timeZone).instant
    }

    /// Parses DURATION: `30s`, `15m`, `2h`, `1d`, `1w`, and sums like `1h30m` (units in the order
    /// w d h m s, each at most once). Returns microseconds, always > 0.
    package static func duration(_ text: String) throws(TimeExpressionError) -> Int64 {
        guard let parts = DurationParts(normalize(text)), let usec = parts.totalUsec, usec > 0 else {
            throw TimeExpressionError(invalid: "duration", text, "expected \(durationForms)")
        }
        return usec
    }

    /// `--remind DURATION|WHEN`: a DURATION means that long before `due` (error if due is nil:
    /// "a reminder given as a duration needs a due date"; for an all-day todo the caller passes
    /// `reminderAnchor`, its morning time); otherwise a WHEN, where a date without a time means
    /// that day at `remindTime` (seconds after local midnight).
    package static func remind(
        _ text: String, due: Instant?, now: Instant, timeZone: ZoneInfo,
        remindTime: Int64 = defaultRemindTime
    ) throws(TimeExpressionError) -> Instant {
        if isLead(text) {
            let usec = try lead(text)
            guard let due else {
                throw TimeExpressionError(message: "a reminder given as a duration needs a due date")
            }
            guard let value = checkedAdd(due.usec, -usec) else {
                throw TimeExpressionError(
                    invalid: "reminder", text, "that long before the due time falls before the year 0001")
            }
            return value
        }
        guard let value = parseWhen(text, now: now, timeZone: timeZone, remindTime: remindTime),
            let instant = reminderAnchor(value, remindTime: remindTime, timeZone: timeZone)
        else {
            throw whenError(
                text, kind: "reminder",
                forms: "expected a duration before the due date (like 15m, 2h, 1h30m or 15分前) or a time: \(whenForms)")
        }
        return instant
    }

    /// Whether a `--remind` value counts back from the due time: a DURATION (`15m`) or its
    /// Japanese "before" form (`15分前`).
    package static func isLead(_ text: String) -> Bool {
        DurationParts(normalize(text)) != nil || japaneseLead(text) != nil
    }

    /// The microseconds of a lead (`isLead`).
    package static func lead(_ text: String) throws(TimeExpressionError) -> Int64 {
        if let usec = japaneseLead(text) { return usec }
        return try duration(text)
    }

    // MARK: - Messages

    package static let whenForms =
        "a date (2026-12-24, today, friday, Dec 24, 明日, 金曜, 12月24日), a time (9am, 17:30, noon, 15時), "
        + "both (tomorrow at 9am, 明日の朝), eod, +2h, in 1 month, 3日後, 2 hours ago, @EPOCH or RFC 3339"
    package static let durationForms = "a number with a unit, like 30s, 15m, 2h, 1d, 1w or 1h30m"

    /// The value in double quotes with quotes, backslashes and control characters escaped, cut
    /// after 60 characters so the message stays one short line.
    package static func quoted(_ text: String) -> String {
        let cut = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return cut.debugDescription
    }

    // MARK: - Range

    /// 0001-01-01T00:00:00Z.
    package static let minUsec: Int64 = Instant.earliest.usec
    /// 9999-12-31T23:59:59.999999Z.
    package static let maxUsec: Int64 = Instant.latest.usec

    package static func checked(_ usec: Int64) -> Instant? {
        usec >= minUsec && usec <= maxUsec ? Instant(usec: usec) : nil
    }

    /// `a + b` or nil on overflow or outside years 0001…9999.
    package static func checkedAdd(_ a: Int64, _ b: Int64) -> Instant? {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : checked(sum)
    }

    // MARK: - WHEN

    package static func normalize(_ text: String) -> String {
        halfWidth(Validation.trimmed(text)).lowercased()
    }

    /// `text` with full-width ASCII (`１５時`, `：`, `＋`) and the ideographic space as their ASCII
    /// forms, as Japanese input methods type them.
    package static func halfWidth(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value == 0x3000 || (0xFF01...0xFF5E).contains($0.value) }) else {
            return text
        }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x3000: scalars.append(" ")
            case 0xFF01...0xFF5E: scalars.append(Unicode.Scalar(scalar.value - 0xFEE0)!)
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    package static func parseWhen(
        _ text: String, now: Instant, timeZone: ZoneInfo, remindTime: Int64 = defaultRemindTime
    ) -> When? {
        let trimmed = Validation.trimmed(halfWidth(text))
        guard !trimmed.isEmpty, trimmed.utf8.count <= 200 else { return nil }
        if let instant = Instant(rfc3339: trimmed) { return checked(instant.usec).map { When(instant: $0) } }
        let lower = trimmed.lowercased()
        // Every English form is ASCII (full-width text was made so above): the rest is Japanese.
        if !lower.utf8.allSatisfy({ $0 < 0x80 }) {
            return japanese(lower, now: now, timeZone: timeZone, remindTime: remindTime)
        }
        // A comma is a separator too: `Dec 24, 2027`.
        let tokens = lower.split(whereSeparator: { $0.isWhitespace || $0 == "," })
        guard let first = tokens.first else { return nil }
        let rest = Array(tokens.dropFirst())

        if first == "now" {
            return rest.isEmpty ? checked(now.usec).map { When(instant: $0) } : nil
        }
        if first.hasPrefix("@") {
            guard rest.isEmpty else { return nil }
            return epoch(first.dropFirst()).map { When(instant: $0) }
        }
        if rest.isEmpty, let t = first.firstIndex(of: "t"), let days = date(first[..<t]) {
            guard let time = time24(first[first.index(after: t)...]) else { return nil }
            return LocalTime.instant(days: days, secondOfDay: time, in: timeZone).map { When(instant: $0) }
        }
        if let value = natural(tokens, now: now, timeZone: timeZone, remindTime: remindTime) { return value }
        return japanese(lower, now: now, timeZone: timeZone, remindTime: remindTime)
    }

    /// The year, month and day of `YYYY-M-D` (month and day of one or two digits), not checked.
    package static func dateFields(_ s: Substring) -> (Int64, Int64, Int64)? {
        // 2026-12-24, or 2026/12/24 as Japanese dates are written (one separator throughout).
        let separator: Character = s.contains("/") ? "/" : "-"
        let parts = s.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
            let y = number(parts[0]), let m = number(parts[1]), let d = number(parts[2])
        else { return nil }
        return (y, m, d)
    }

    /// Days since the epoch for `YYYY-MM-DD` (or unpadded, `2027-1-5`) naming a real date.
    package static func date(_ s: Substring) -> Int64? {
        guard let (y, m, d) = dateFields(s) else { return nil }
        return Instant.days(year: y, month: m, day: d)
    }

    /// For a WHEN (normalized) that writes a date which does not exist (`2026-02-30`, `Feb 30`,
    /// `2月30日`, `2026-13-01`): what is wrong with it.
    package static func impossibleDate(_ text: String) -> String? {
        var found: (year: Int64?, month: Int64, day: Int64)?
        let tokens = text.split(whereSeparator: { $0.isWhitespace || $0 == "," })
        for (i, token) in tokens.enumerated() {
            let datePart = token.split(separator: "t", maxSplits: 1).first ?? token
            if let (y, m, d) = dateFields(datePart) {
                found = (y, m, d)
                break
            }
            if let m = monthNames[String(token.hasSuffix(".") ? token.dropLast() : token)] {
                let near = [i > 0 ? tokens[i - 1] : nil, i + 1 < tokens.count ? tokens[i + 1] : nil].compactMap { $0 }
                if let d = near.lazy.compactMap({ w -> Int64? in
                    let digits = w.prefix(while: { $0.isASCII && $0.isNumber })
                    return digits.count == w.count
                        || ["st", "nd", "rd", "th"].contains(String(w.dropFirst(digits.count))) ? number(digits) : nil
                }).first {
                    found = (nil, m, d)
                    break
                }
            }
        }
        if found == nil, let (y, m, d) = japaneseDateFields(text) { found = (y, m, d) }
        guard let (year, month, day) = found else { return nil }
        let names = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December"
        ]
        guard (1...12).contains(month) else { return "there is no month \(month); months are 1 to 12" }
        if let year {
            guard year >= 1, year <= 9999 else { return nil }
            let length = Instant.monthLength(year: year, month: month)
            guard day < 1 || day > length else { return nil }
            return "\(names[Int(month - 1)]) \(year) has \(length) days"
        }
        let longest: Int64 = month == 2 ? 29 : Instant.monthLength(year: 2001, month: month)
        guard day < 1 || day > longest else { return nil }
        return "\(names[Int(month - 1)]) has \(longest) days at most"
    }

    /// The time tokens after a day word: none (00:00), one (`17:30`, `9am`, `evening`) or a number
    /// and `am`/`pm` (`9 am`). Returns seconds since local midnight.
    package static func timeOfDay(_ tokens: [Substring], remindTime: Int64 = defaultRemindTime) -> Int64? {
        switch tokens.count {
        case 0: return 0
        case 1: return time(tokens[0]) ?? partOfDay(tokens[0], remindTime: remindTime)
        case 2 where tokens[1] == "am" || tokens[1] == "pm": return time(tokens[0] + tokens[1])
        default: return nil
        }
    }

    /// `morning` (the morning time of reminders, 09:00 unless configured), `afternoon` (15:00),
    /// `evening` (18:00), `night` (20:00): the times of `朝`, `午後`, `夕方` and `夜`.
    package static func partOfDay(_ word: Substring, remindTime: Int64) -> Int64? {
        switch word {
        case "morning": remindTime
        case "afternoon": 15 * 3600
        case "evening": 18 * 3600
        case "night": 20 * 3600
        default: nil
        }
    }

    /// `H:MM`, `HH:MM[:SS]` (24-hour), `H[:MM[:SS]]am|pm` (12-hour), `noon` or `midnight` (00:00).
    package static func time(_ s: Substring) -> Int64? {
        if s == "noon" { return 12 * 3600 }
        if s == "midnight" { return 0 }
        for (suffix, base) in [("am", Int64(0)), ("pm", Int64(12))] where s.hasSuffix(suffix) {
            let fields = s.dropLast(2).split(separator: ":", omittingEmptySubsequences: false)
            guard (1...3).contains(fields.count), (1...2).contains(fields[0].count),
                let hour = number(fields[0]), (1...12).contains(hour),
                let rest = minutesSeconds(fields.dropFirst())
            else { return nil }
            return ((hour % 12) + base) * 3600 + rest
        }
        return time24(s)
    }

    /// `H:MM` or `HH:MM[:SS]`, hours 0…23.
    package static func time24(_ s: Substring) -> Int64? {
        let fields = s.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), (1...2).contains(fields[0].count),
            let hour = number(fields[0]), hour < 24,
            let rest = minutesSeconds(fields.dropFirst())
        else { return nil }
        return hour * 3600 + rest
    }

    /// `MM[:SS]` fields (two digits each, below 60) as seconds; nothing is 0.
    package static func minutesSeconds(_ fields: ArraySlice<Substring>) -> Int64? {
        var total: Int64 = 0
        for (i, field) in fields.enumerated() {
            guard field.count == 2, let v = number(field), v < 60 else { return nil }
            total += i == 0 ? v * 60 : v
        }
        return total
    }

    /// `@EPOCHSECONDS`.
    package static func epoch(_ s: Substring) -> Instant? {
        let negative = s.hasPrefix("-")
        guard let secs = number(negative ? s.dropFirst() : s) else { return nil }
        let (usec, overflow) = secs.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return nil }
        return checked(negative ? -usec : usec)
    }

    package static let weekdays: [String: Int64] = [
        "sunday": 0, "sun": 0, "monday": 1, "mon": 1, "tuesday": 2, "tue": 2, "wednesday": 3, "wed": 3,
        "thursday": 4, "thu": 4, "friday": 5, "fri": 5, "saturday": 6, "sat": 6
    ]

    /// 0 for Sunday … 6 for Saturday; 1970-01-01 was a Thursday.
    package static func weekday(ofDays days: Int64) -> Int64 {
        ((days % 7) + 7 + 4) % 7
    }

    /// A non-negative decimal integer of 1…15 ASCII digits (so products with unit sizes cannot overflow).
    package static func number(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.count <= 15 else { return nil }
        var v: Int64 = 0
        for c in s {
            guard let d = c.asciiDigitValue else { return nil }
            v = v * 10 + d
        }
        return v
    }
}

extension TimeExpression {
    /// A parsed DURATION: counts per unit, each at most 15 digits.
    package struct DurationParts: Equatable {
        package var weeks: Int64 = 0
        package var days: Int64 = 0
        package var hours: Int64 = 0
        package var minutes: Int64 = 0
        package var seconds: Int64 = 0

        private mutating func set(_ count: Int64, _ unit: Character) {
            switch unit {
            case "w": weeks = count
            case "d": days = count
            case "h": hours = count
            case "m": minutes = count
            default: seconds = count
            }
        }

        /// Parses `1w2d3h4m5s`-style text (already lowercased): units in that order, each at most once.
        package init?(_ text: String) {
            let order: [Character] = ["w", "d", "h", "m", "s"]
            var next = 0
            var rest = Substring(text)
            guard !rest.isEmpty else { return nil }
            while !rest.isEmpty {
                let digits = rest.prefix(while: \.isASCIIDigit)
                rest = rest.dropFirst(digits.count)
                guard let n = TimeExpression.number(digits), let unit = rest.first,
                    let rank = order.firstIndex(of: unit), rank >= next
                else { return nil }
                rest = rest.dropFirst()
                next = rank + 1
                set(n, unit)
            }
        }

        /// Weeks and days as calendar days (at most ~10^16, no overflow).
        var calendarDays: Int64 { weeks * 7 + days }

        /// Hours, minutes and seconds in microseconds, or nil on overflow.
        var exactUsec: Int64? {
            var total: Int64 = 0
            for (count, size) in [(hours, Int64(3_600_000_000)), (minutes, 60_000_000), (seconds, 1_000_000)] {
                let (product, o1) = count.multipliedReportingOverflow(by: size)
                let (sum, o2) = total.addingReportingOverflow(product)
                guard !o1, !o2 else { return nil }
                total = sum
            }
            return total
        }

        /// Everything in microseconds with a day of exactly 24 hours, or nil on overflow.
        var totalUsec: Int64? {
            guard let exact = exactUsec else { return nil }
            let (product, o1) = calendarDays.multipliedReportingOverflow(by: 86_400_000_000)
            let (sum, o2) = exact.addingReportingOverflow(product)
            return o1 || o2 ? nil : sum
        }
    }
}

extension Character {
    /// True for the ASCII digits 0…9 only (not other scripts' digits or fullwidth ones).
    fileprivate var isASCIIDigit: Bool { asciiDigitValue != nil }

    /// The value of an ASCII digit, or nil.
    fileprivate var asciiDigitValue: Int64? {
        guard let a = asciiValue, a >= 48, a <= 57 else { return nil }
        return Int64(a - 48)
    }
}
