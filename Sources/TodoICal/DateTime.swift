import TodoCore
import TodoTime

/// A DATE or DATE-TIME value as written (RFC 5545 §3.3.4, §3.3.5).
package enum ICalDate: Sendable, Equatable {
    /// `VALUE=DATE`: days since 1970-01-01.
    case date(days: Int64)
    /// `...Z`.
    case utc(Instant)
    /// Wall-clock time without a zone (floating) or with a `TZID`: days and second of the day.
    case local(days: Int64, second: Int64, tzid: String?)

    /// Parses `value` of `line` (its `VALUE` and `TZID` parameters decide the form).
    static func parse(_ line: ContentLine) throws(ICalError) -> ICalDate {
        let v = line.value.trimmingSpaces
        let digits = Array(v.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= digits.count else { return nil }
            var n: Int64 = 0
            for b in digits[from..<(from + count)] {
                guard b >= 0x30, b <= 0x39 else { return nil }
                n = n * 10 + Int64(b - 0x30)
            }
            return n
        }
        let bad = ICalError(
            line: line.number,
            "\(line.name): \(ContentLine.quote(v)) is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS[Z])")
        guard let y = number(0, 4), let m = number(4, 2), let d = number(6, 2), y >= 1, (1...12).contains(m),
            d >= 1, d <= Instant.monthLength(year: y, month: m), let days = Instant.days(year: y, month: m, day: d)
        else { throw bad }
        if digits.count == 8 {
            return .date(days: days)
        }
        guard line.parameter("VALUE")?.uppercased() != "DATE" else { throw bad }
        guard digits.count == 15 || (digits.count == 16 && digits[15] == UInt8(ascii: "Z")),
            digits[8] == UInt8(ascii: "T"),
            let h = number(9, 2), let mi = number(11, 2), let s = number(13, 2), h < 24, mi < 60, s <= 60
        else { throw bad }
        let second = h * 3600 + mi * 60 + min(s, 59)
        if digits.count == 16 {
            return .utc(Instant(seconds: days * 86_400 + second))
        }
        return .local(days: days, second: second, tzid: line.parameter("TZID"))
    }

    /// `YYYYMMDDTHHMMSSZ`.
    package static func utcText(_ instant: Instant) -> String {
        let s = instant.seconds
        let days = s >= 0 ? s / 86_400 : -((-s + 86_399) / 86_400)
        return dateText(days: days) + "T" + timeText(s - days * 86_400) + "Z"
    }

    /// `YYYYMMDD`.
    package static func dateText(days: Int64) -> String {
        let (y, m, d) = Instant.civil(days: days)
        return pad(y, 4) + pad(m, 2) + pad(d, 2)
    }

    static func timeText(_ second: Int64) -> String {
        pad(second / 3600, 2) + pad(second / 60 % 60, 2) + pad(second % 60, 2)
    }

    static func pad(_ v: Int64, _ count: Int) -> String {
        let s = String(v)
        return s.count >= count ? s : String(repeating: "0", count: count - s.count) + s
    }
}

/// Durations (RFC 5545 §3.3.6): `-PT15M`, `P1DT2H`, `P1W`.
package enum ICalDuration {
    /// The span of the instants todod keeps (the years 0001 to 9999) and a day: a longer duration
    /// is read as this long. Added to any instant it lands outside that span (so it places
    /// nothing), and in microseconds it cannot overflow.
    package static let maximumSeconds: Int64 = (2_932_897 + 719_162 + 1) * 86_400

    /// Seconds (at most `maximumSeconds` either way), nil when `text` is not a duration.
    package static func parse(_ text: String) -> Int64? {
        var s = Substring(text.trimmingSpaces)
        var sign: Int64 = 1
        if s.hasPrefix("-") {
            sign = -1
            s = s.dropFirst()
        } else if s.hasPrefix("+") {
            s = s.dropFirst()
        }
        guard s.hasPrefix("P") else { return nil }
        s = s.dropFirst()
        var total: Int64 = 0
        var inTime = false
        var n: Int64? = nil
        var any = false
        for c in s {
            if let d = c.wholeNumberValue, c.isASCII {
                n = (n ?? 0) * 10 + Int64(d)
                guard n! < 1_000_000_000 else { return nil }
                continue
            }
            if c == "T" {
                guard n == nil, !inTime else { return nil }
                inTime = true
                continue
            }
            guard let v = n else { return nil }
            switch (c, inTime) {
            case ("W", false): total += v * 604_800
            case ("D", false): total += v * 86_400
            case ("H", true): total += v * 3600
            case ("M", true): total += v * 60
            case ("S", true): total += v
            default: return nil
            }
            total = min(total, maximumSeconds) // a part may repeat (`P9W9W...`)
            n = nil
            any = true
        }
        guard any, n == nil else { return nil }
        return sign * total
    }

    /// The text of `seconds`: `PT0S`, `-PT15M`, `P1DT2H`, `-P2D`.
    package static func text(_ seconds: Int64) -> String {
        var v = seconds.magnitude
        var out = seconds < 0 ? "-P" : "P"
        let days = v / 86_400
        v %= 86_400
        if days > 0 { out += "\(days)D" }
        if v > 0 || days == 0 {
            out += "T"
            let h = v / 3600
            let m = v / 60 % 60
            let s = v % 60
            if h > 0 { out += "\(h)H" }
            if m > 0 { out += "\(m)M" }
            if s > 0 || (h == 0 && m == 0) { out += "\(s)S" }
        }
        return out
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
