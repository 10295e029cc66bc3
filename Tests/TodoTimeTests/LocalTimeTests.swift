import Foundation
import Testing
import TodoCore
import TodoTime

/// `LocalTime`: an instant's local date and time in a zone, its text, and the way back.
@Suite struct LocalTimeTests {
    @Test(arguments: [
        ("2026-12-01T09:00:00Z", "Asia/Tokyo", "2026-12-01 18:00"),
        ("2026-12-01T09:00:00Z", "UTC", "2026-12-01 09:00"),
        ("2026-12-01T09:00:59.999999Z", "UTC", "2026-12-01 09:00"),
        ("2026-12-01T03:00:00Z", "America/New_York", "2026-11-30 22:00"),
        ("2026-11-01T05:30:00Z", "America/New_York", "2026-11-01 01:30"),
        ("2026-11-01T06:30:00Z", "America/New_York", "2026-11-01 01:30"),
        ("2026-03-08T07:00:00Z", "America/New_York", "2026-03-08 03:00"),
        ("2026-10-25T00:30:00Z", "Europe/Berlin", "2026-10-25 02:30"),
        ("1969-12-31T23:59:59.5Z", "UTC", "1969-12-31 23:59"),
        ("2024-02-29T15:00:00Z", "Asia/Tokyo", "2024-03-01 00:00")
    ])
    func text(instant: String, zone: String, expected: String) throws {
        let tz = try #require(ZoneInfo(identifier: zone))
        let value = try #require(Instant(rfc3339: instant))
        #expect(LocalTime(value, in: tz).text == expected)
    }

    /// Local times in messages follow the zone as todoctl reads it: negative and half-hour
    /// offsets, and POSIX rules.
    @Test func textWithOffset() throws {
        let due = try #require(Instant(rfc3339: "2026-12-01T09:00:00Z"))
        for (zone, text) in [
            ("America/St_Johns", "2026-12-01 05:30 -03:30"), ("Asia/Kolkata", "2026-12-01 14:30 +05:30"),
            ("EST5EDT,M3.2.0,M11.1.0", "2026-12-01 04:00 -05:00"), ("", "2026-12-01 09:00 +00:00")
        ] {
            #expect(LocalTime(due, in: .named(byTZ: zone)).textWithOffset == text)
        }
    }

    @Test func theExtremesDoNotTrap() {
        #expect(!LocalTime(Instant(usec: .max), in: .named(byTZ: "America/New_York")).text.isEmpty)
        #expect(!LocalTime(Instant(usec: .min), in: .named(byTZ: "America/New_York")).textWithOffset.isEmpty)
        #expect(LocalTime.instant(days: 2_932_897, secondOfDay: 0, in: .utc) == nil)
        #expect(LocalTime.instant(days: -719_162, secondOfDay: 0, in: .utc) == Instant.earliest)
    }

    /// Composing a local time from an instant's own wall-clock reading gives the instant back,
    /// except for the second pass through a fall-back overlap, which resolves to the first.
    @Test(arguments: ["America/New_York", "Europe/Berlin", "Asia/Tokyo", "UTC", "Australia/Lord_Howe"])
    func localRoundTrip(zone: String) throws {
        let tz = try #require(ZoneInfo(identifier: zone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        var seconds: Int64 = 946_684_800 // 2000-01-01
        while seconds < 4_102_444_800 { // 2100-01-01
            let local = LocalTime(Instant(seconds: seconds), in: tz)
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second],
                from: Date(timeIntervalSince1970: Double(seconds)))
            let (y, m, d) = Instant.civil(days: local.days)
            #expect([Int(y), Int(m), Int(d)] == [parts.year, parts.month, parts.day])
            #expect(Int(local.secondOfDay) == (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0))
            let back = try #require(LocalTime.instant(days: local.days, secondOfDay: local.secondOfDay, in: tz))
            if back.seconds != seconds {
                // Only allowed in an overlap: the earlier reading of the same wall-clock time.
                #expect(back.seconds < seconds && seconds - back.seconds <= 3600)
                #expect(LocalTime(back, in: tz).secondOfDay == local.secondOfDay)
            }
            seconds += 86_400 * 2 + 3_607
        }
    }
}
