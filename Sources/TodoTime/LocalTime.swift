import TodoCore

/// The local calendar date and wall-clock time of an instant in a zone, and back: the one place
/// todoctl (reading and showing times) and todod (reminder messages, status) convert local time.
package struct LocalTime: Sendable, Equatable {
    /// Days since 1970-01-01 of the local date.
    package var days: Int64
    /// Seconds since local midnight (wall clock).
    package var secondOfDay: Int64
    /// Seconds east of UTC in effect at the instant.
    package var offset: Int64

    /// The local date and time of `instant` in `zone` (sub-second part dropped).
    package init(_ instant: Instant, in zone: ZoneInfo) {
        let utc = instant.seconds
        offset = zone.secondsFromUTC(at: utc)
        let local = utc + offset
        days = local >= 0 ? local / 86_400 : -((-local + 86_399) / 86_400)
        secondOfDay = local - days * 86_400
    }

    /// "2026-12-01 09:00": date and minute, for people.
    package var text: String {
        let (y, m, d) = Instant.civil(days: days)
        return "\(Self.digits(y, 4))-\(Self.digits(m, 2))-\(Self.digits(d, 2)) "
            + "\(Self.digits(secondOfDay / 3600, 2)):\(Self.digits(secondOfDay / 60 % 60, 2))"
    }

    /// "2026-12-01": the date of a day counted from 1970-01-01, for all-day dates.
    package static func dateText(days: Int64) -> String {
        let (y, m, d) = Instant.civil(days: days)
        return "\(digits(y, 4))-\(digits(m, 2))-\(digits(d, 2))"
    }

    /// "2026-12-01 18:00 +09:00": `text` with the UTC offset, where the zone is not implied.
    package var textWithOffset: String {
        text + " " + (offset < 0 ? "-" : "+") + Self.digits(abs(offset) / 3600, 2) + ":"
            + Self.digits(abs(offset) / 60 % 60, 2)
    }

    /// The instant a local wall-clock time names in `zone`, nil outside the years 0001 to 9999.
    /// In a gap (clocks jump forward) the time is read with the offset before the gap; in an
    /// overlap (clocks go back) the earlier of the two instants is taken.
    package static func instant(days: Int64, secondOfDay: Int64, micros: Int64 = 0, in zone: ZoneInfo) -> Instant? {
        guard days >= -719_162, days < 2_932_897 else { return nil }
        let naive = days * 86_400 + secondOfDay
        // Transitions are far more than a day apart, so the offsets a day either side of the naive
        // reading (plus the one at it) are the only candidates.
        let before = zone.secondsFromUTC(at: naive - 86_400)
        let candidates = [before, zone.secondsFromUTC(at: naive), zone.secondsFromUTC(at: naive + 86_400)]
        let valid = candidates.map { naive - $0 }.filter { naive - zone.secondsFromUTC(at: $0) == $0 }
        let utc = valid.min() ?? (naive - before)
        let instant = Instant(usec: utc * 1_000_000 + micros)
        return instant.isInRange ? instant : nil
    }

    /// `v` in decimal, zero-padded to `count` digits (a leading `-` for negative years).
    static func digits(_ v: Int64, _ count: Int) -> String {
        let s = String(v.magnitude)
        let padded = s.count >= count ? s : String(repeating: "0", count: count - s.count) + s
        return v < 0 ? "-" + padded : padded
    }
}
