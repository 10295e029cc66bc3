import Foundation
import Testing
import TodoCore
import TodoTime
import TodoWhen

@testable import TodoCLI

/// Every WHEN form of todoctl(1) in zones with DST in the north (Berlin) and the south (Sydney),
/// without DST (Tokyo) and with a 30-minute offset (Adelaide, which also has DST; Kolkata, which
/// has none). Results are checked as local wall-clock times through Foundation's own time zones,
/// an implementation independent of `ZoneInfo`.
@Suite struct WhenGrammarTests {
    static let zones = ["Europe/Berlin", "Australia/Sydney", "Asia/Tokyo", "Australia/Adelaide", "Asia/Kolkata"]

    /// The instant a local wall-clock time ("2026-12-01 10:00:00") names in `zone`, read by Foundation.
    static func instant(local: String, zone: String) throws -> Instant {
        let date = try #require(formatter(zone).date(from: local), "\(local) in \(zone)")
        return Instant(seconds: Int64(date.timeIntervalSince1970))
    }

    /// `instant` as local wall-clock time in `zone`, written by Foundation.
    static func local(_ instant: Instant, zone: String) throws -> String {
        try formatter(zone).string(from: Date(timeIntervalSince1970: Double(instant.usec) / 1_000_000))
    }

    static func formatter(_ zone: String) throws -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.calendar = Calendar(identifier: .gregorian)
        f.timeZone = TimeZone(identifier: zone)
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f
    }

    /// `text` read at `now` (RFC 3339) in `zone`: local wall-clock time, and "all-day" when it is.
    static func read(_ text: String, now: Instant, zone: String) throws -> String {
        let tz = try #require(ZoneInfo(identifier: zone))
        let when = try TimeExpression.when(text, now: now, timeZone: tz)
        return try local(when.instant, zone: zone) + (when.allDay ? " all-day" : "")
    }

    // MARK: - Every form, from Tuesday 2026-12-01 10:00 local

    static let tuesdayMorning = "2026-12-01 10:00:00"

    static let forms: [(String, String)] = [
        // bare times: today while still ahead, else tomorrow
        ("9am", "2026-12-02 09:00:00"),
        ("5pm", "2026-12-01 17:00:00"),
        ("17:30", "2026-12-01 17:30:00"),
        ("9 AM", "2026-12-02 09:00:00"),
        ("10:00", "2026-12-02 10:00:00"),
        ("10:00:01", "2026-12-01 10:00:01"),
        ("noon", "2026-12-01 12:00:00"),
        ("Midnight", "2026-12-02 00:00:00"),
        ("at 9am", "2026-12-02 09:00:00"),
        ("at noon", "2026-12-01 12:00:00"),
        // named times and ends of periods
        ("tonight", "2026-12-01 20:00:00"),
        ("eod", "2026-12-01 23:59:59"),
        ("EOW", "2026-12-06 23:59:59"),
        ("eom", "2026-12-31 23:59:59"),
        ("eoy", "2026-12-31 23:59:59"),
        // day words: all-day without a time
        ("today", "2026-12-01 00:00:00 all-day"),
        ("tomorrow", "2026-12-02 00:00:00 all-day"),
        ("yesterday", "2026-11-30 00:00:00 all-day"),
        ("yesterday 5pm", "2026-11-30 17:00:00"),
        ("today 9am", "2026-12-01 09:00:00"),
        ("tomorrow at 9am", "2026-12-02 09:00:00"),
        ("tomorrow noon", "2026-12-02 12:00:00"),
        ("Tomorrow At 9 PM", "2026-12-02 21:00:00"),
        ("9am tomorrow", "2026-12-02 09:00:00"),
        // weekdays (today is Tuesday)
        ("friday", "2026-12-04 00:00:00 all-day"),
        ("fri", "2026-12-04 00:00:00 all-day"),
        ("tuesday", "2026-12-08 00:00:00 all-day"),
        ("tuesday 5pm", "2026-12-01 17:00:00"),
        ("tue at 10:30", "2026-12-01 10:30:00"),
        ("tuesday 9am", "2026-12-08 09:00:00"),
        ("wednesday 9am", "2026-12-02 09:00:00"),
        ("5pm friday", "2026-12-04 17:00:00"),
        ("at 5pm on friday", "2026-12-04 17:00:00"),
        ("next friday", "2026-12-04 00:00:00 all-day"),
        ("next tuesday", "2026-12-08 00:00:00 all-day"),
        ("next tuesday 5pm", "2026-12-08 17:00:00"),
        ("last tuesday", "2026-11-24 00:00:00 all-day"),
        ("last friday", "2026-11-27 00:00:00 all-day"),
        ("next week", "2026-12-07 00:00:00 all-day"),
        ("next week 9am", "2026-12-07 09:00:00"),
        ("next month", "2027-01-01 00:00:00 all-day"),
        ("next year", "2027-01-01 00:00:00 all-day"),
        // month names: the coming one without a year
        ("Dec 24", "2026-12-24 00:00:00 all-day"),
        ("24 Dec", "2026-12-24 00:00:00 all-day"),
        ("dec. 24th", "2026-12-24 00:00:00 all-day"),
        ("Dec 24 5pm", "2026-12-24 17:00:00"),
        ("24 Dec 5pm", "2026-12-24 17:00:00"),
        ("December 24 5pm", "2026-12-24 17:00:00"),
        ("December 24th at 5:30pm", "2026-12-24 17:30:00"),
        ("noon on Dec 24", "2026-12-24 12:00:00"),
        ("Dec 24 2027", "2027-12-24 00:00:00 all-day"),
        ("Dec 24, 2027", "2027-12-24 00:00:00 all-day"),
        ("24 December 2027 9:30am", "2027-12-24 09:30:00"),
        ("Dec 1", "2026-12-01 00:00:00 all-day"),
        ("Nov 30", "2027-11-30 00:00:00 all-day"),
        ("jan 31", "2027-01-31 00:00:00 all-day"),
        ("Feb 29", "2028-02-29 00:00:00 all-day"),
        ("Sept 1", "2027-09-01 00:00:00 all-day"),
        ("1st may", "2027-05-01 00:00:00 all-day"),
        ("2026-12-24", "2026-12-24 00:00:00 all-day"),
        ("2026-12-24 at 5pm", "2026-12-24 17:00:00"),
        ("2026-12-24 noon", "2026-12-24 12:00:00"),
        // relative: months and years are calendar arithmetic, the time is kept
        ("in 1 month", "2027-01-01 10:00:00"),
        ("in 2 months", "2027-02-01 10:00:00"),
        ("in 1 year", "2027-12-01 10:00:00"),
        ("+1mo", "2027-01-01 10:00:00"),
        ("+1y", "2027-12-01 10:00:00"),
        ("+1y2mo", "2028-02-01 10:00:00"),
        ("+1mo2d3h", "2027-01-03 13:00:00"),
        ("in 3 days", "2026-12-04 10:00:00"),
        ("in a week", "2026-12-08 10:00:00"),
        ("in 1 hour 30 minutes", "2026-12-01 11:30:00"),
        ("in 1 year and 2 months", "2028-02-01 10:00:00"),
        ("in 1mo", "2027-01-01 10:00:00"),
        ("+2h", "2026-12-01 12:00:00"),
        // past forms
        ("-2h", "2026-12-01 08:00:00"),
        ("-1d", "2026-11-30 10:00:00"),
        ("-1mo", "2026-11-01 10:00:00"),
        ("2 hours ago", "2026-12-01 08:00:00"),
        ("3 days ago", "2026-11-28 10:00:00"),
        ("1 month ago", "2026-11-01 10:00:00"),
        ("an hour ago", "2026-12-01 09:00:00"),
        ("1 year ago", "2025-12-01 10:00:00")
    ]

    @Test(arguments: zones)
    func everyForm(zone: String) throws {
        let now = try Self.instant(local: Self.tuesdayMorning, zone: zone)
        for (text, expected) in Self.forms {
            #expect(try Self.read(text, now: now, zone: zone) == expected, "\(text) in \(zone)")
        }
    }

    // MARK: - Month ends and leap days

    @Test(arguments: zones)
    func monthArithmeticKeepsTheDayOrTakesTheLastOne(zone: String) throws {
        let cases: [(now: String, text: String, expected: String)] = [
            ("2027-01-31 08:15:00", "+1mo", "2027-02-28 08:15:00"),
            ("2027-01-31 08:15:00", "in 1 month", "2027-02-28 08:15:00"),
            ("2028-01-31 08:15:00", "in 1 month", "2028-02-29 08:15:00"),
            ("2028-02-29 08:15:00", "+1y", "2029-02-28 08:15:00"),
            ("2028-02-29 08:15:00", "in 4 years", "2032-02-29 08:15:00"),
            ("2027-03-31 08:15:00", "1 month ago", "2027-02-28 08:15:00"),
            ("2027-08-31 08:15:00", "in 1 month", "2027-09-30 08:15:00"),
            ("2027-12-31 08:15:00", "in 2 months", "2028-02-29 08:15:00"),
            ("2028-02-10 08:15:00", "eom", "2028-02-29 23:59:59"),
            ("2027-02-10 08:15:00", "eom", "2027-02-28 23:59:59"),
            ("2026-12-06 08:15:00", "eow", "2026-12-06 23:59:59"),
            ("2026-12-07 08:15:00", "eow", "2026-12-13 23:59:59"),
            ("2026-12-31 23:30:00", "next month", "2027-01-01 00:00:00 all-day"),
            ("2026-12-31 23:30:00", "noon", "2027-01-01 12:00:00"),
            ("2027-01-10 08:15:00", "Feb 29", "2028-02-29 00:00:00 all-day"),
            ("2028-03-01 08:15:00", "Feb 29", "2032-02-29 00:00:00 all-day"),
            ("2026-12-25 08:15:00", "dec 24", "2027-12-24 00:00:00 all-day")
        ]
        for c in cases {
            let now = try Self.instant(local: c.now, zone: zone)
            #expect(try Self.read(c.text, now: now, zone: zone) == c.expected, "\(c.text) at \(c.now) in \(zone)")
        }
    }

    // MARK: - Across both DST changes

    /// A `now` (RFC 3339 with the offset in effect) just before or after a change, a WHEN, and the
    /// expected local time. `tomorrow 9am` stays 09:00; `+1d` is 24 hours (so its wall-clock time
    /// moves by the change); `in 1 day` is a calendar day (the wall-clock time stays).
    static let dstCases: [(zone: String, now: String, text: String, expected: String)] = [
        // Berlin, spring: Sunday 2026-03-29 02:00 CET -> 03:00 CEST.
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "tomorrow 9am", "2026-03-29 09:00:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "+1d", "2026-03-29 10:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "in 1 day", "2026-03-29 09:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "tomorrow", "2026-03-29 00:00:00 all-day"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "9am", "2026-03-29 09:00:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "in 1 month", "2026-04-28 09:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "sunday 2:30am", "2026-03-29 03:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "eow", "2026-03-29 23:59:59"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "-1d", "2026-03-28 02:00:30"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "1 day ago", "2026-03-28 03:00:30"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "2 hours ago", "2026-03-29 00:00:30"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "today", "2026-03-29 00:00:00 all-day"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "noon", "2026-03-29 12:00:00"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "yesterday 9am", "2026-03-28 09:00:00"),
        // Berlin, autumn: Sunday 2026-10-25 03:00 CEST -> 02:00 CET.
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "tomorrow 9am", "2026-10-25 09:00:00"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "+1d", "2026-10-25 08:30:00"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "in 1 day", "2026-10-25 09:30:00"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "sunday", "2026-10-25 00:00:00 all-day"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "+1mo", "2026-11-24 09:30:00"),
        ("Europe/Berlin", "2026-10-25T02:00:30+01:00", "-1d", "2026-10-24 03:00:30"),
        ("Europe/Berlin", "2026-10-25T02:00:30+01:00", "1 day ago", "2026-10-24 02:00:30"),
        ("Europe/Berlin", "2026-10-25T02:00:30+01:00", "today", "2026-10-25 00:00:00 all-day"),
        ("Europe/Berlin", "2026-10-25T02:00:30+01:00", "eod", "2026-10-25 23:59:59"),
        ("Europe/Berlin", "2026-10-25T02:00:30+01:00", "tonight", "2026-10-25 20:00:00"),
        // Sydney, autumn: Sunday 2026-04-05 03:00 AEDT -> 02:00 AEST.
        ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "tomorrow 9am", "2026-04-05 09:00:00"),
        ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "+1d", "2026-04-05 08:30:00"),
        ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "in 1 day", "2026-04-05 09:30:00"),
        ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "sunday", "2026-04-05 00:00:00 all-day"),
        ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "in 1 month", "2026-05-04 09:30:00"),
        ("Australia/Sydney", "2026-04-05T02:00:30+10:00", "-1d", "2026-04-04 03:00:30"),
        ("Australia/Sydney", "2026-04-05T02:00:30+10:00", "1 day ago", "2026-04-04 02:00:30"),
        ("Australia/Sydney", "2026-04-05T02:00:30+10:00", "today", "2026-04-05 00:00:00 all-day"),
        ("Australia/Sydney", "2026-04-05T02:00:30+10:00", "noon", "2026-04-05 12:00:00"),
        // Sydney, spring: Sunday 2026-10-04 02:00 AEST -> 03:00 AEDT.
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "tomorrow 9am", "2026-10-04 09:00:00"),
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "+1d", "2026-10-04 10:30:00"),
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "in 1 day", "2026-10-04 09:30:00"),
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "sunday 2:30am", "2026-10-04 03:30:00"),
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "9am", "2026-10-04 09:00:00"),
        ("Australia/Sydney", "2026-10-04T03:00:30+11:00", "-1d", "2026-10-03 02:00:30"),
        ("Australia/Sydney", "2026-10-04T03:00:30+11:00", "1 day ago", "2026-10-03 03:00:30"),
        ("Australia/Sydney", "2026-10-04T03:00:30+11:00", "today", "2026-10-04 00:00:00 all-day"),
        ("Australia/Sydney", "2026-10-04T03:00:30+11:00", "2 hours ago", "2026-10-04 00:00:30"),
        // Adelaide (30-minute offset), autumn: 2026-04-05 03:00 ACDT -> 02:00 ACST.
        ("Australia/Adelaide", "2026-04-04T09:30:00+10:30", "tomorrow 9am", "2026-04-05 09:00:00"),
        ("Australia/Adelaide", "2026-04-04T09:30:00+10:30", "+1d", "2026-04-05 08:30:00"),
        ("Australia/Adelaide", "2026-04-04T09:30:00+10:30", "in 1 day", "2026-04-05 09:30:00"),
        ("Australia/Adelaide", "2026-04-04T09:30:00+10:30", "sunday", "2026-04-05 00:00:00 all-day"),
        ("Australia/Adelaide", "2026-04-05T02:00:30+09:30", "-1d", "2026-04-04 03:00:30"),
        ("Australia/Adelaide", "2026-04-05T02:00:30+09:30", "1 day ago", "2026-04-04 02:00:30"),
        ("Australia/Adelaide", "2026-04-05T02:00:30+09:30", "today", "2026-04-05 00:00:00 all-day"),
        // Adelaide, spring: 2026-10-04 02:00 ACST -> 03:00 ACDT.
        ("Australia/Adelaide", "2026-10-03T09:30:00+09:30", "tomorrow 9am", "2026-10-04 09:00:00"),
        ("Australia/Adelaide", "2026-10-03T09:30:00+09:30", "+1d", "2026-10-04 10:30:00"),
        ("Australia/Adelaide", "2026-10-03T09:30:00+09:30", "in 1 day", "2026-10-04 09:30:00"),
        ("Australia/Adelaide", "2026-10-03T09:30:00+09:30", "sunday 2:30am", "2026-10-04 03:30:00"),
        ("Australia/Adelaide", "2026-10-04T03:00:30+10:30", "-1d", "2026-10-03 02:00:30"),
        ("Australia/Adelaide", "2026-10-04T03:00:30+10:30", "1 day ago", "2026-10-03 03:00:30"),
        ("Australia/Adelaide", "2026-10-04T03:00:30+10:30", "today", "2026-10-04 00:00:00 all-day"),
        // Tokyo and Kolkata have no DST: +1d and in 1 day agree.
        ("Asia/Tokyo", "2026-03-28T09:30:00+09:00", "+1d", "2026-03-29 09:30:00"),
        ("Asia/Tokyo", "2026-03-28T09:30:00+09:00", "in 1 day", "2026-03-29 09:30:00"),
        ("Asia/Kolkata", "2026-10-24T09:30:00+05:30", "+1d", "2026-10-25 09:30:00"),
        ("Asia/Kolkata", "2026-10-24T09:30:00+05:30", "in 1 day", "2026-10-25 09:30:00")
    ]

    @Test func acrossDSTChanges() throws {
        for c in Self.dstCases {
            let now = try #require(Instant(rfc3339: c.now))
            #expect(try Self.read(c.text, now: now, zone: c.zone) == c.expected, "\(c.text) at \(c.now) in \(c.zone)")
        }
    }

    /// In the autumn overlap a wall-clock time is the earlier instant (the first time the clock shows it).
    @Test func anAmbiguousTimeIsTheEarlierInstant() throws {
        let cases: [(String, String, String, String)] = [
            ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "sunday 2:30am", "2026-10-25T00:30:00Z"),
            ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "sunday 2:30am", "2026-04-04T15:30:00Z"),
            ("Australia/Adelaide", "2026-04-04T09:30:00+10:30", "sunday 2:30am", "2026-04-04T16:00:00Z")
        ]
        for (zone, now, text, expected) in cases {
            let tz = try #require(ZoneInfo(identifier: zone))
            #expect(
                try TimeExpression.instant(text, now: #require(Instant(rfc3339: now)), timeZone: tz).rfc3339()
                    == expected, "\(text) in \(zone)")
        }
    }

    // MARK: - All-day reminders

    @Test(arguments: zones)
    func anAllDayReminderIsThatMorning(zone: String) throws {
        let tz = try #require(ZoneInfo(identifier: zone))
        let now = try Self.instant(local: Self.tuesdayMorning, zone: zone)
        let friday = try TimeExpression.when("friday", now: now, timeZone: tz)
        #expect(friday.allDay)
        let morning = try #require(
            TimeExpression.reminderAnchor(friday, remindTime: TimeExpression.defaultRemindTime, timeZone: tz))
        #expect(try Self.local(morning, zone: zone) == "2026-12-04 09:00:00")
        let fifteen = try TimeExpression.remind("15m", due: morning, now: now, timeZone: tz)
        #expect(try Self.local(fifteen, zone: zone) == "2026-12-04 08:45:00")
        // A reminder given as a date is that day at the morning time (here 07:30).
        let dated = try TimeExpression.remind("Dec 24", due: nil, now: now, timeZone: tz, remindTime: 7 * 3600 + 1800)
        #expect(try Self.local(dated, zone: zone) == "2026-12-24 07:30:00")
        // A timed due counts from itself.
        let timed = try TimeExpression.when("friday 5pm", now: now, timeZone: tz)
        #expect(
            TimeExpression.reminderAnchor(timed, remindTime: TimeExpression.defaultRemindTime, timeZone: tz)
                == timed.instant)
    }

    /// On a day that starts in a DST gap (Santiago moves 00:00 to 01:00), the all-day instant is
    /// the first instant of the day.
    @Test func aDayStartingInAGapStartsAtItsFirstInstant() throws {
        let tz = try #require(ZoneInfo(identifier: "America/Santiago"))
        let now = try #require(Instant(rfc3339: "2026-09-05T12:00:00-04:00"))
        let sunday = try TimeExpression.when("2026-09-06", now: now, timeZone: tz)
        #expect(sunday.allDay)
        #expect(sunday.instant.rfc3339() == "2026-09-06T04:00:00Z")
        #expect(
            LocalTime(sunday.instant, in: tz).days == LocalTime(sunday.instant.adding(usec: 3_600_000_000), in: tz).days
        )
    }
}
