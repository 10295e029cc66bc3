import TodoCore

/// A day of the week, Monday first (the RFC 5545 default week start).
package enum Weekday: Int, Sendable, CaseIterable, Comparable {
    case monday = 0
    case tuesday, wednesday, thursday, friday, saturday, sunday

    /// The two-letter RRULE code (`MO`).
    package var code: String { ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][rawValue] }
    /// The English name (`Monday`).
    package var name: String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][rawValue]
    }

    /// The weekday of a count of days since 1970-01-01 (a Thursday).
    package init(days: Int64) {
        let r = (days + 3) % 7
        self = Weekday(rawValue: Int(r < 0 ? r + 7 : r))!
    }

    init?(code: Substring) {
        guard let found = Weekday.allCases.first(where: { $0.code == code }) else { return nil }
        self = found
    }

    package static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}

/// One BYDAY entry: a weekday, with an ordinal (`2MO`, `-1FR`) or without (0: every such day).
package struct WeekdayNumber: Sendable, Hashable {
    package var ordinal: Int
    package var weekday: Weekday
    package init(_ weekday: Weekday, ordinal: Int = 0) {
        self.weekday = weekday
        self.ordinal = ordinal
    }
    var code: String { (ordinal == 0 ? "" : String(ordinal)) + weekday.code }
}

/// The frequencies todod supports (RFC 5545 FREQ; SECONDLY, MINUTELY and HOURLY are refused).
package enum Frequency: String, Sendable, CaseIterable {
    case daily = "DAILY"
    case weekly = "WEEKLY"
    case monthly = "MONTHLY"
    case yearly = "YEARLY"

    /// `day`, `week`, `month`, `year`.
    var periodName: String {
        switch self {
        case .daily: "day"
        case .weekly: "week"
        case .monthly: "month"
        case .yearly: "year"
        }
    }
}

/// Where a rule ends: UNTIL as a date (through that local day) or a UTC date-time.
package enum RuleUntil: Sendable, Equatable {
    /// `UNTIL=20261224`: through that date (days since 1970-01-01) in the todo's zone.
    case date(days: Int64)
    /// `UNTIL=20261224T080000Z`: through that instant.
    case instant(Instant)
    /// `UNTIL=20261224T090000` (floating, as Nextcloud Tasks writes it): through that wall-clock
    /// time (seconds since 1970-01-01 local) in the zone the rule is followed in.
    case local(seconds: Int64)
}

/// A rule todod cannot use, with a one-line reason naming the part.
package struct RecurrenceError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// An iCalendar recurrence rule (RFC 5545 §3.3.10) of the subset todod supports: FREQ DAILY,
/// WEEKLY, MONTHLY, YEARLY; INTERVAL; BYDAY (ordinals with MONTHLY and YEARLY); BYMONTHDAY
/// (negative counts from the month's end); BYMONTH; BYSETPOS; COUNT; UNTIL; WKST. Anything else
/// (BYHOUR, BYMINUTE, BYSECOND, BYYEARDAY, BYWEEKNO, sub-daily FREQ, unknown parts) is refused.
package struct RecurrenceRule: Sendable, Equatable {
    package var frequency: Frequency
    package var interval: Int = 1
    package var byDay: [WeekdayNumber] = []
    package var byMonthDay: [Int] = []
    package var byMonth: [Int] = []
    package var bySetPos: [Int] = []
    package var count: Int?
    package var until: RuleUntil?
    package var weekStart: Weekday = .monday

    /// The largest INTERVAL and COUNT accepted (a century of daily occurrences is plenty).
    package static let maximumInterval = 1000
    package static let maximumCount = 100_000

    package init(frequency: Frequency) { self.frequency = frequency }

    /// Parses RRULE text (`FREQ=MONTHLY;BYDAY=-1FR`, optionally prefixed `RRULE:`); names and
    /// values are case-insensitive.
    package init(parsing text: String) throws(RecurrenceError) {
        var body = Substring(text.uppercased()).trimmingSpaces
        if body.hasPrefix("RRULE:") { body = body.dropFirst(6) }
        guard !body.isEmpty else { throw RecurrenceError("empty RRULE") }
        var seen = Set<Substring>()
        var frequency: Frequency?
        var rule = RecurrenceRule(frequency: .daily)
        for part in body.split(separator: ";", omittingEmptySubsequences: false) {
            guard let eq = part.firstIndex(of: "="), eq != part.startIndex else {
                throw RecurrenceError("RRULE part \"\(part)\" is not NAME=VALUE")
            }
            let name = part[..<eq]
            let value = part[part.index(after: eq)...]
            guard seen.insert(name).inserted else { throw RecurrenceError("RRULE part \(name) appears twice") }
            guard !value.isEmpty else { throw RecurrenceError("RRULE part \(name) has no value") }
            switch name {
            case "FREQ":
                guard let f = Frequency(rawValue: String(value)) else {
                    if ["SECONDLY", "MINUTELY", "HOURLY"].contains(value) {
                        throw RecurrenceError(
                            "RRULE part FREQ=\(value) is not supported (use DAILY, WEEKLY, MONTHLY or YEARLY)")
                    }
                    throw RecurrenceError(
                        "RRULE part FREQ=\(value) is not a frequency (DAILY, WEEKLY, MONTHLY or YEARLY)")
                }
                frequency = f
            case "INTERVAL":
                rule.interval = try Self.number(value, name, 1...Self.maximumInterval)
            case "COUNT":
                rule.count = try Self.number(value, name, 1...Self.maximumCount)
            case "UNTIL":
                rule.until = try Self.until(value)
            case "WKST":
                guard let day = Weekday(code: value) else {
                    throw RecurrenceError("RRULE part WKST=\(value) is not a weekday (MO…SU)")
                }
                rule.weekStart = day
            case "BYMONTH":
                rule.byMonth = try Self.list(value, name) { (v: Substring) throws(RecurrenceError) -> Int in
                    try Self.number(v, name, 1...12)
                }
            case "BYMONTHDAY":
                rule.byMonthDay = try Self.list(value, name) { (v: Substring) throws(RecurrenceError) -> Int in
                    try Self.number(v, name, -31...31, nonZero: true)
                }
            case "BYSETPOS":
                rule.bySetPos = try Self.list(value, name) { (v: Substring) throws(RecurrenceError) -> Int in
                    try Self.number(v, name, -366...366, nonZero: true)
                }
            case "BYDAY":
                rule.byDay = try Self.list(value, name) { (item: Substring) throws(RecurrenceError) -> WeekdayNumber in
                    let code = item.suffix(2)
                    guard let day = Weekday(code: code) else {
                        throw RecurrenceError("RRULE part BYDAY has \"\(item)\", not a weekday such as MO, 2MO or -1FR")
                    }
                    let prefix = item.dropLast(2)
                    let ordinal = prefix.isEmpty ? 0 : try Self.number(prefix, "BYDAY ordinal", -53...53, nonZero: true)
                    return WeekdayNumber(day, ordinal: ordinal)
                }
            case "BYHOUR", "BYMINUTE", "BYSECOND", "BYYEARDAY", "BYWEEKNO":
                throw RecurrenceError(
                    "RRULE part \(name) is not supported (todos recur on days: use FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, COUNT, UNTIL, WKST)"
                )
            default:
                throw RecurrenceError(
                    "RRULE part \(name) is unknown (use FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, COUNT, UNTIL, WKST)"
                )
            }
        }
        guard let frequency else { throw RecurrenceError("RRULE has no FREQ part") }
        rule.frequency = frequency
        try rule.validate()
        self = rule
    }

    /// Checks the combinations RFC 5545 forbids and rules that can never occur.
    func validate() throws(RecurrenceError) {
        if count != nil && until != nil { throw RecurrenceError("RRULE has both COUNT and UNTIL (use one)") }
        for bad in byDay where bad.ordinal != 0 {
            switch frequency {
            case .daily, .weekly:
                throw RecurrenceError(
                    "RRULE part BYDAY=\(bad.code) has an ordinal, which only FREQ=MONTHLY or YEARLY allows")
            case .monthly where abs(bad.ordinal) > 5:
                throw RecurrenceError("RRULE part BYDAY=\(bad.code): a month has at most 5 of each weekday")
            case .yearly where !byMonth.isEmpty && abs(bad.ordinal) > 5:
                throw RecurrenceError(
                    "RRULE part BYDAY=\(bad.code): with BYMONTH the ordinal counts within the month (at most 5)")
            default: break
            }
        }
        if frequency == .weekly && !byMonthDay.isEmpty {
            throw RecurrenceError("RRULE part BYMONTHDAY cannot be used with FREQ=WEEKLY")
        }
        if !bySetPos.isEmpty && byDay.isEmpty && byMonthDay.isEmpty && byMonth.isEmpty {
            throw RecurrenceError("RRULE part BYSETPOS needs another BY part (BYDAY, BYMONTHDAY or BYMONTH)")
        }
        if !bySetPos.isEmpty {
            // The most dates one period can hold; a BYSETPOS past it never picks one.
            let most: Int
            switch frequency {
            case .daily: most = 1
            case .weekly: most = byDay.isEmpty ? 1 : Set(byDay.map(\.weekday)).count
            case .monthly:
                most =
                    byMonthDay.isEmpty
                    ? (byDay.isEmpty ? 1 : byDay.reduce(0) { $0 + ($1.ordinal == 0 ? 5 : 1) }) : byMonthDay.count
            case .yearly:
                let perMonth = byDay.reduce(0) { $0 + ($1.ordinal == 0 ? 5 : 1) }
                if !byMonthDay.isEmpty {
                    most = (byMonth.isEmpty ? 12 : byMonth.count) * byMonthDay.count
                } else if !byDay.isEmpty {
                    most =
                        byMonth.isEmpty ? byDay.reduce(0) { $0 + ($1.ordinal == 0 ? 53 : 1) } : byMonth.count * perMonth
                } else {
                    most = byMonth.isEmpty ? 366 : byMonth.count // BYMONTH alone: the start's day in each
                }
            }
            if bySetPos.allSatisfy({ abs($0) > most }) {
                let positions = bySetPos.map(String.init).joined(separator: ",")
                throw RecurrenceError(
                    "RRULE never occurs: BYSETPOS=\(positions) picks from at most \(most) date\(most == 1 ? "" : "s") per \(frequency.periodName)"
                )
            }
        }
        // BYMONTHDAY limited by BYDAY with ordinals counted in the month: the 1st Sunday is one
        // of days 1–7, the last one of the last 7 days; a day outside every such week never is.
        if !byMonthDay.isEmpty, !byDay.isEmpty, byDay.allSatisfy({ $0.ordinal != 0 }),
            frequency == .monthly || (frequency == .yearly && !byMonth.isEmpty)
        {
            let possible = byMonthDay.contains { day in
                byDay.contains { entry in
                    switch (day > 0, entry.ordinal > 0) {
                    case (true, true): return (7 * (entry.ordinal - 1) + 1...7 * entry.ordinal).contains(day)
                    case (false, false): return (7 * (-entry.ordinal - 1) + 1...7 * -entry.ordinal).contains(-day)
                    default:
                        // Counted from the other end, in a month of 28 to 31 days.
                        let k = abs(entry.ordinal)
                        return (29 - 7 * k...38 - 7 * k).contains(abs(day))
                    }
                }
            }
            if !possible {
                throw RecurrenceError(
                    "RRULE never occurs: no day of BYMONTHDAY=\(byMonthDay.map(String.init).joined(separator: ",")) is a BYDAY=\(byDay.map(\.code).joined(separator: ",")) of its month"
                )
            }
        }
        if !byMonthDay.isEmpty {
            let months = byMonth.isEmpty ? Array(1...12) : byMonth
            let longest =
                months.map { $0 == 2 ? 29 : Int(Instant.monthLength(year: 2001, month: Int64($0))) }.max() ?? 31
            if byMonthDay.allSatisfy({ abs($0) > longest }) {
                throw RecurrenceError(
                    "RRULE never occurs: no month it names has day \(byMonthDay.map(String.init).joined(separator: ","))"
                )
            }
        }
    }

    /// The canonical text: parts in a fixed order, defaults (INTERVAL=1, WKST=MO) left out.
    package var text: String {
        var parts = ["FREQ=\(frequency.rawValue)"]
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        if !byMonth.isEmpty { parts.append("BYMONTH=" + byMonth.map(String.init).joined(separator: ",")) }
        if !byMonthDay.isEmpty { parts.append("BYMONTHDAY=" + byMonthDay.map(String.init).joined(separator: ",")) }
        if !byDay.isEmpty { parts.append("BYDAY=" + byDay.map(\.code).joined(separator: ",")) }
        if !bySetPos.isEmpty { parts.append("BYSETPOS=" + bySetPos.map(String.init).joined(separator: ",")) }
        if weekStart != .monday { parts.append("WKST=" + weekStart.code) }
        if let count { parts.append("COUNT=\(count)") }
        switch until {
        case .date(let days)?: parts.append("UNTIL=" + Self.basicDate(days))
        case .instant(let instant)?:
            let seconds = instant.seconds
            let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
            let s = seconds - days * 86_400
            parts.append(
                "UNTIL=" + Self.basicDate(days) + "T" + Self.pad(s / 3600, 2) + Self.pad(s / 60 % 60, 2)
                    + Self.pad(s % 60, 2) + "Z")
        case .local(let seconds)?:
            let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
            let s = seconds - days * 86_400
            parts.append(
                "UNTIL=" + Self.basicDate(days) + "T" + Self.pad(s / 3600, 2) + Self.pad(s / 60 % 60, 2)
                    + Self.pad(s % 60, 2))
        case nil: break
        }
        return parts.joined(separator: ";")
    }

    // MARK: - Parsing helpers

    static func number(_ text: Substring, _ name: Substring, _ range: ClosedRange<Int>, nonZero: Bool = false)
        throws(RecurrenceError) -> Int
    {
        let digits = text.hasPrefix("+") || text.hasPrefix("-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let n = Int(text.hasPrefix("+") ? digits : text),
            range.contains(n), !(nonZero && n == 0)
        else {
            throw RecurrenceError(
                "RRULE part \(name) has \"\(text)\", not a number in \(range.lowerBound)…\(range.upperBound)\(nonZero ? " other than 0" : "")"
            )
        }
        return n
    }

    static func list<T: Equatable>(
        _ value: Substring, _ name: Substring, _ item: (Substring) throws(RecurrenceError) -> T
    ) throws(RecurrenceError) -> [T] {
        var out: [T] = []
        for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
            guard !piece.isEmpty else { throw RecurrenceError("RRULE part \(name) has an empty item") }
            let v = try item(piece)
            if !out.contains(v) { out.append(v) }
        }
        guard out.count <= 400 else { throw RecurrenceError("RRULE part \(name) has too many items") }
        return out
    }

    static func until(_ value: Substring) throws(RecurrenceError) -> RuleUntil {
        let bytes = Array(value.utf8)
        func digits(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= bytes.count else { return nil }
            var n: Int64 = 0
            for b in bytes[range] {
                guard b >= 48, b <= 57 else { return nil }
                n = n * 10 + Int64(b - 48)
            }
            return n
        }
        let bad = RecurrenceError(
            "RRULE part UNTIL=\(value) is not a date (20261224) or a date-time (20261224T090000Z, 20261224T090000)")
        guard let y = digits(0..<4), let m = digits(4..<6), let d = digits(6..<8),
            let days = Instant.days(year: y, month: m, day: d)
        else { throw bad }
        if bytes.count == 8 { return .date(days: days) }
        guard bytes.count == 16 && bytes[15] == UInt8(ascii: "Z") || bytes.count == 15, bytes[8] == UInt8(ascii: "T"),
            let hh = digits(9..<11), let mm = digits(11..<13), let ss = digits(13..<15), hh < 24, mm < 60, ss < 61
        else { throw bad }
        let seconds = days * 86_400 + hh * 3600 + mm * 60 + min(ss, 59)
        return bytes.count == 15 ? .local(seconds: seconds) : .instant(Instant(seconds: seconds))
    }

    static func basicDate(_ days: Int64) -> String {
        let (y, m, d) = Instant.civil(days: days)
        return pad(y, 4) + pad(m, 2) + pad(d, 2)
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return s
    }
}
