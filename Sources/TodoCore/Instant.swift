/// A point in time with microsecond precision, stored as microseconds since the Unix epoch (UTC).
///
/// Instants cross the wire and the JSON output as RFC 3339 strings in UTC with a `Z`
/// (`2026-12-01T09:00:00Z`); the store keeps them as 64-bit integers.
package struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    package var usec: Int64

    package init(usec: Int64) { self.usec = usec }

    /// An instant a whole number of seconds after the epoch.
    package init(seconds: Int64) { self.usec = seconds &* 1_000_000 }

    package static func < (a: Instant, b: Instant) -> Bool { a.usec < b.usec }

    /// The instant `micros` microseconds later (negative for earlier).
    package func adding(usec micros: Int64) -> Instant { Instant(usec: usec &+ micros) }

    /// The earliest instant todod stores, reads or writes: 0001-01-01T00:00:00Z.
    package static let earliest = Instant(usec: -719_162 * 86_400 * 1_000_000)
    /// The latest: 9999-12-31T23:59:59.999999Z. RFC 3339 has four-digit years, so an instant
    /// outside these could be stored but not exported and imported again.
    package static let latest = Instant(usec: 2_932_897 * 86_400 * 1_000_000 - 1)

    /// Whether the instant lies within the years 0001 to 9999 (UTC).
    package var isInRange: Bool { self >= Instant.earliest && self <= Instant.latest }

    /// The instant `micros` microseconds later, or nil when that overflows or leaves the years
    /// 0001 to 9999.
    package func checkedAdding(usec micros: Int64) -> Instant? {
        let (sum, overflow) = usec.addingReportingOverflow(micros)
        let moved = Instant(usec: sum)
        return !overflow && moved.isInRange ? moved : nil
    }

    /// Whole seconds since the epoch, rounded toward negative infinity.
    package var seconds: Int64 {
        let (quotient, remainder) = usec.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    package var description: String { rfc3339() }

    /// Formats as RFC 3339 UTC: `2026-12-01T09:00:00Z`, with `.ffffff` when
    /// `fractional` is true and the instant is not on a whole second.
    package func rfc3339(fractional: Bool = false) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Instant.rfc3339Capacity) { buffer in
            let count = writeRFC3339(fractional: fractional, into: buffer.baseAddress!)
            return String(decoding: UnsafeBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }

    /// Room for the longest text `writeRFC3339` makes, whatever the year.
    package static let rfc3339Capacity = 48

    /// Writes the RFC 3339 text of `rfc3339(fractional:)` at `buffer`, which has room for
    /// `rfc3339Capacity` bytes, and returns its length.
    package func writeRFC3339(fractional: Bool, into buffer: UnsafeMutablePointer<UInt8>) -> Int {
        let secs = seconds
        let micros = (usec % 1_000_000 + 1_000_000) % 1_000_000
        let (q, r) = secs.quotientAndRemainder(dividingBy: 86_400)
        let days = r < 0 ? q - 1 : q
        let secOfDay = secs - days * 86_400
        let (y, m, d) = Instant.civil(days: days)
        var n = 0
        func put(_ byte: UInt8) {
            buffer[n] = byte
            n += 1
        }
        /// Two digits of `value` (0...99) at once; each instant writes seven or ten such pairs.
        func pair(_ value: Int64) {
            let v = UInt8(truncatingIfNeeded: value)
            buffer[n] = 0x30 &+ v / 10
            buffer[n &+ 1] = 0x30 &+ v % 10
            n &+= 2
        }
        if (0...9999).contains(y) {
            pair(y / 100)
            pair(y % 100)
        } else { // beyond what the parser accepts; written in full
            for byte in String(y).utf8 { put(byte) }
        }
        put(0x2D)
        pair(m)
        put(0x2D)
        pair(d)
        put(0x54)
        pair(secOfDay / 3600)
        put(0x3A)
        pair(secOfDay / 60 % 60)
        put(0x3A)
        pair(secOfDay % 60)
        if fractional && micros != 0 {
            put(0x2E)
            pair(micros / 10_000)
            pair(micros / 100 % 100)
            pair(micros % 100)
        }
        put(0x5A)
        return n
    }

    /// Parses an RFC 3339 date-time with `Z` or a numeric offset and optional fractional seconds
    /// (at most microseconds are kept). Returns nil for anything else, including impossible dates
    /// and instants that the offset moves outside the years 0001 to 9999 UTC
    /// (`9999-12-31T23:59:59-23:59`).
    package init?(rfc3339 text: String) {
        guard let usec = Instant.rfc3339Usec(text) else { return nil }
        self.usec = usec
        guard isInRange else { return nil }
    }

    /// Whether `text` is a well-formed RFC 3339 date-time whose offset moves it outside the
    /// years 0001 to 9999 UTC: what makes `init?(rfc3339:)` refuse an otherwise valid text.
    package static func isOutOfRangeRFC3339(_ text: String) -> Bool {
        guard let usec = rfc3339Usec(text) else { return false }
        return !Instant(usec: usec).isInRange
    }

    /// Microseconds since the epoch of an RFC 3339 text, with no range check after the offset.
    private static func rfc3339Usec(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        func num(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let y = num(4), expect(0x2D), let mo = num(2), expect(0x2D), let d = num(2) else { return nil }
        guard i < b.count, b[i] == 0x54 || b[i] == 0x74 || b[i] == 0x20 else { return nil }
        i += 1
        guard let h = num(2), expect(0x3A), let mi = num(2), expect(0x3A), let s = num(2) else { return nil }
        var micros: Int64 = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 6 { micros = micros * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offset: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            let sign: Int64 = b[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = num(2), expect(0x3A), let om = num(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        guard let days = Instant.days(year: y, month: mo, day: d), h < 24, mi < 60, s < 60 else { return nil }
        let total = (days * 86_400 + h * 3600 + mi * 60 + s - offset)
        return total * 1_000_000 + micros
    }

    // MARK: - Civil calendar (proleptic Gregorian), after Howard Hinnant's algorithms

    /// Days since the epoch for a valid calendar date, or nil when the date does not exist.
    package static func days(year: Int64, month: Int64, day: Int64) -> Int64? {
        guard year >= 1, year <= 9999, month >= 1, month <= 12, day >= 1, day <= monthLength(year: year, month: month)
        else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Whether `year` has a February 29.
    package static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days of `month` (1…12) in `year`.
    package static func monthLength(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Year, month and day of a count of days since the epoch.
    package static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Instant {
    /// The current wall-clock time (`CLOCK_REALTIME`).
    package static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(usec: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }
}
