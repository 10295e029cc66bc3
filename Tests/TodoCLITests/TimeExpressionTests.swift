import Foundation
import Testing
import TodoCore
import TodoTime
import TodoWhen

@testable import TodoCLI

/// Parses `text` as WHEN and formats the result as RFC 3339 UTC (with microseconds when present).
private func when(_ text: String, now: String, zone: String) throws -> String {
    let tz = try #require(ZoneInfo(identifier: zone))
    let start = try #require(Instant(rfc3339: now))
    return try TimeExpression.instant(text, now: start, timeZone: tz).rfc3339(fractional: true)
}

@Suite struct TimeExpressionTests {
    // 2026-12-01T09:00:00Z is Tuesday 18:00 in Tokyo.
    static let tokyoNow = "2026-12-01T09:00:00Z"

    @Test(arguments: [
        // RFC 3339
        ("2026-12-01T09:00:00Z", "2026-12-01T09:00:00Z"),
        ("2026-12-01T18:00:00+09:00", "2026-12-01T09:00:00Z"),
        ("2026-12-01t09:00:00z", "2026-12-01T09:00:00Z"),
        ("2026-12-01T09:00:00.25Z", "2026-12-01T09:00:00.250000Z"),
        // local dates and times
        ("2026-12-24", "2026-12-23T15:00:00Z"),
        ("2026-12-24 09:30", "2026-12-24T00:30:00Z"),
        ("2026-12-24 9:30", "2026-12-24T00:30:00Z"),
        ("2026-12-24 09:30:15", "2026-12-24T00:30:15Z"),
        ("2026-12-24T09:30", "2026-12-24T00:30:00Z"),
        ("2026-12-24T09:30:15", "2026-12-24T00:30:15Z"),
        ("2026-12-24 5pm", "2026-12-24T08:00:00Z"),
        ("2024-02-29", "2024-02-28T15:00:00Z"),
        // now, today, tomorrow
        ("now", "2026-12-01T09:00:00Z"),
        ("  NOW \n", "2026-12-01T09:00:00Z"),
        ("today", "2026-11-30T15:00:00Z"),
        ("\tToday", "2026-11-30T15:00:00Z"),
        ("today 17:30", "2026-12-01T08:30:00Z"),
        ("today 8am", "2026-11-30T23:00:00Z"),
        ("tomorrow", "2026-12-01T15:00:00Z"),
        ("tomorrow 9am", "2026-12-02T00:00:00Z"),
        ("tomorrow 9 am", "2026-12-02T00:00:00Z"),
        ("Tomorrow 5:30PM", "2026-12-02T08:30:00Z"),
        ("tomorrow   17:30:45", "2026-12-02T08:30:45Z"),
        ("tomorrow 12am", "2026-12-01T15:00:00Z"),
        ("tomorrow 12pm", "2026-12-02T03:00:00Z"),
        ("tomorrow 12:30am", "2026-12-01T15:30:00Z"),
        ("tomorrow 0:05", "2026-12-01T15:05:00Z"),
        ("tomorrow 23:59", "2026-12-02T14:59:00Z"),
        // weekdays: today is Tuesday 2026-12-01 in Tokyo
        ("wednesday", "2026-12-01T15:00:00Z"),
        ("wed", "2026-12-01T15:00:00Z"),
        ("thursday", "2026-12-02T15:00:00Z"),
        ("Fri 17:30", "2026-12-04T08:30:00Z"),
        ("saturday 9am", "2026-12-05T00:00:00Z"),
        ("sun", "2026-12-05T15:00:00Z"),
        ("monday", "2026-12-06T15:00:00Z"),
        ("tuesday", "2026-12-07T15:00:00Z"),
        ("TUE 12pm", "2026-12-08T03:00:00Z"),
        // relative
        ("+90s", "2026-12-01T09:01:30Z"),
        ("+15m", "2026-12-01T09:15:00Z"),
        ("+2h", "2026-12-01T11:00:00Z"),
        ("+3d", "2026-12-04T09:00:00Z"),
        ("+1w", "2026-12-08T09:00:00Z"),
        ("+1h30m", "2026-12-01T10:30:00Z"),
        ("+1d2h", "2026-12-02T11:00:00Z"),
        ("+1w1d1h1m1s", "2026-12-09T10:01:01Z"),
        ("+0s", "2026-12-01T09:00:00Z"),
        ("+2H", "2026-12-01T11:00:00Z"),
        ("in 2 hours", "2026-12-01T11:00:00Z"),
        ("in 1 hour", "2026-12-01T10:00:00Z"),
        ("in 1 hr", "2026-12-01T10:00:00Z"),
        ("in 3 hrs", "2026-12-01T12:00:00Z"),
        ("in 90 minutes", "2026-12-01T10:30:00Z"),
        ("in 1 minute", "2026-12-01T09:01:00Z"),
        ("in 5 min", "2026-12-01T09:05:00Z"),
        ("in 5 mins", "2026-12-01T09:05:00Z"),
        ("in 30 seconds", "2026-12-01T09:00:30Z"),
        ("in 1 second", "2026-12-01T09:00:01Z"),
        ("in 10 sec", "2026-12-01T09:00:10Z"),
        ("in 10 secs", "2026-12-01T09:00:10Z"),
        ("in 1 day", "2026-12-02T09:00:00Z"),
        ("in 2 days", "2026-12-03T09:00:00Z"),
        ("in 1 week", "2026-12-08T09:00:00Z"),
        ("in 3 weeks", "2026-12-22T09:00:00Z"),
        ("In 2 Hours", "2026-12-01T11:00:00Z"),
        ("in 2h", "2026-12-01T11:00:00Z"),
        ("in 90min", "2026-12-01T10:30:00Z"),
        ("in 1h30m", "2026-12-01T10:30:00Z"),
        // epoch seconds
        ("@1796115600", "2026-12-01T09:00:00Z"),
        ("@0", "1970-01-01T00:00:00Z"),
        ("@-86400", "1969-12-31T00:00:00Z")
    ])
    func tokyo(text: String, expected: String) throws {
        #expect(try when(text, now: Self.tokyoNow, zone: "Asia/Tokyo") == expected)
    }

    @Test(arguments: [
        ("today", "2026-12-01T00:00:00Z"),
        ("tomorrow 17:30", "2026-12-02T17:30:00Z"),
        ("2026-12-01 09:00", "2026-12-01T09:00:00Z"),
        ("wednesday 5:30pm", "2026-12-02T17:30:00Z"),
        ("+1d", "2026-12-02T09:00:00Z"),
        ("9999-12-31 23:59:59", "9999-12-31T23:59:59Z"),
        ("0001-01-01", "0001-01-01T00:00:00Z")
    ])
    func utc(text: String, expected: String) throws {
        #expect(try when(text, now: Self.tokyoNow, zone: "UTC") == expected)
    }

    @Test func keepsMicrosecondsOfNowOnlyForRelativeForms() throws {
        let now = "2026-12-01T09:00:00.500000Z"
        #expect(try when("now", now: now, zone: "UTC") == "2026-12-01T09:00:00.500000Z")
        #expect(try when("+1d", now: now, zone: "UTC") == "2026-12-02T09:00:00.500000Z")
        #expect(try when("+1s", now: now, zone: "UTC") == "2026-12-01T09:00:01.500000Z")
        #expect(try when("today", now: now, zone: "UTC") == "2026-12-01T00:00:00Z")
        #expect(try when("tomorrow 9am", now: now, zone: "UTC") == "2026-12-02T09:00:00Z")
    }

    /// Every weekday name from every day of a week: 1…7 days ahead, on that weekday, never today.
    @Test(arguments: ["UTC", "Asia/Tokyo", "America/New_York"])
    func weekdaysAreTheNextSuchDay(zone: String) throws {
        let tz = try #require(ZoneInfo(identifier: zone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        let names = [
            ["sunday", "sun"], ["monday", "mon"], ["tuesday", "tue"], ["wednesday", "wed"],
            ["thursday", "thu"], ["friday", "fri"], ["saturday", "sat"]
        ]
        let start = try #require(Instant(rfc3339: "2026-11-29T12:00:00Z"))
        for dayOffset in 0..<7 {
            let now = start.adding(usec: Int64(dayOffset) * 86_400_000_000)
            let nowDate = Date(timeIntervalSince1970: Double(now.seconds))
            let today = calendar.startOfDay(for: nowDate)
            for (index, forms) in names.enumerated() {
                for name in forms {
                    let result = try TimeExpression.instant(name, now: now, timeZone: tz)
                    let date = Date(timeIntervalSince1970: Double(result.seconds))
                    #expect(calendar.component(.weekday, from: date) == index + 1, "\(name) from \(now)")
                    #expect(calendar.component(.hour, from: date) == 0 && calendar.component(.minute, from: date) == 0)
                    let days = try #require(calendar.dateComponents([.day], from: today, to: date).day)
                    #expect((1...7).contains(days), "\(name) from \(now) is \(days) days ahead")
                }
            }
        }
    }

    // MARK: - DST

    // New York: 2026-03-08 02:00 EST -> 03:00 EDT (07:00Z); 2026-11-01 02:00 EDT -> 01:00 EST (06:00Z).
    @Test(arguments: [
        // spring-forward gap: shifted forward by the gap length
        ("2026-03-08 02:30", "2026-03-07T12:00:00Z", "2026-03-08T07:30:00Z"),
        ("2026-03-08 02:00", "2026-03-07T12:00:00Z", "2026-03-08T07:00:00Z"),
        ("2026-03-08 01:59:59", "2026-03-07T12:00:00Z", "2026-03-08T06:59:59Z"),
        ("2026-03-08 03:00", "2026-03-07T12:00:00Z", "2026-03-08T07:00:00Z"),
        ("2026-03-08T02:59:59", "2026-03-07T12:00:00Z", "2026-03-08T07:59:59Z"),
        // fall-back overlap: the earlier instant (EDT)
        ("2026-11-01 01:30", "2026-10-31T12:00:00Z", "2026-11-01T05:30:00Z"),
        ("2026-11-01 01:00", "2026-10-31T12:00:00Z", "2026-11-01T05:00:00Z"),
        ("2026-11-01 01:59:59", "2026-10-31T12:00:00Z", "2026-11-01T05:59:59Z"),
        ("2026-11-01 00:59", "2026-10-31T12:00:00Z", "2026-11-01T04:59:00Z"),
        ("2026-11-01 02:00", "2026-10-31T12:00:00Z", "2026-11-01T07:00:00Z"),
        ("sunday 1:30am", "2026-10-31T12:00:00Z", "2026-11-01T05:30:00Z"),
        // `in 1 day` keeps the wall-clock time (23 hours in spring, 25 in autumn); `+1d` is 24 hours
        ("+1d", "2026-03-07T14:00:00Z", "2026-03-08T14:00:00Z"),
        ("in 1 day", "2026-03-07T14:00:00Z", "2026-03-08T13:00:00Z"),
        ("+24h", "2026-03-07T14:00:00Z", "2026-03-08T14:00:00Z"),
        ("tomorrow 9am", "2026-03-07T14:00:00Z", "2026-03-08T13:00:00Z"),
        ("tomorrow", "2026-03-07T14:00:00Z", "2026-03-08T05:00:00Z"),
        ("+1w", "2026-03-04T14:00:00Z", "2026-03-11T14:00:00Z"),
        ("in 1 week", "2026-03-04T14:00:00Z", "2026-03-11T13:00:00Z"),
        ("+1d", "2026-10-31T13:00:00Z", "2026-11-01T13:00:00Z"),
        ("in 1 day", "2026-10-31T13:00:00Z", "2026-11-01T14:00:00Z"),
        ("+1d1h", "2026-10-31T13:00:00Z", "2026-11-01T14:00:00Z"),
        ("in 1 day 1 hour", "2026-10-31T13:00:00Z", "2026-11-01T15:00:00Z"),
        ("+24h", "2026-10-31T13:00:00Z", "2026-11-01T13:00:00Z"),
        ("tomorrow", "2026-10-31T13:00:00Z", "2026-11-01T04:00:00Z"),
        // `in 1 day` landing in the gap (02:30 EST the day before) or the overlap (01:30 EDT the day before)
        ("in 1 day", "2026-03-07T07:30:00Z", "2026-03-08T07:30:00Z"),
        ("in 1 day", "2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z"),
        // hours are exact elapsed time across the change
        ("+2h", "2026-03-08T06:30:00Z", "2026-03-08T08:30:00Z"),
        ("in 90 minutes", "2026-11-01T05:15:00Z", "2026-11-01T06:45:00Z")
    ])
    func newYork(text: String, now: String, expected: String) throws {
        #expect(try when(text, now: now, zone: "America/New_York") == expected)
    }

    // Berlin: 2026-03-29 02:00 CET -> 03:00 CEST (01:00Z); 2026-10-25 03:00 CEST -> 02:00 CET (01:00Z).
    @Test(arguments: [
        ("2026-03-29 02:30", "2026-03-28T12:00:00Z", "2026-03-29T01:30:00Z"),
        ("2026-03-29 01:59", "2026-03-28T12:00:00Z", "2026-03-29T00:59:00Z"),
        ("2026-03-29 03:00", "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"),
        ("2026-10-25 02:30", "2026-10-24T12:00:00Z", "2026-10-25T00:30:00Z"),
        ("2026-10-25 03:00", "2026-10-24T12:00:00Z", "2026-10-25T02:00:00Z"),
        ("in 1 day", "2026-03-28T11:00:00Z", "2026-03-29T10:00:00Z"),
        ("in 1 day", "2026-10-24T10:00:00Z", "2026-10-25T11:00:00Z"),
        ("+1d", "2026-03-28T11:00:00Z", "2026-03-29T11:00:00Z"),
        ("+1d", "2026-10-24T10:00:00Z", "2026-10-25T10:00:00Z"),
        ("tomorrow 12pm", "2026-10-24T10:00:00Z", "2026-10-25T11:00:00Z"),
        ("sunday", "2026-10-24T10:00:00Z", "2026-10-24T22:00:00Z"),
        ("+3h", "2026-10-24T23:30:00Z", "2026-10-25T02:30:00Z")
    ])
    func berlin(text: String, now: String, expected: String) throws {
        #expect(try when(text, now: now, zone: "Europe/Berlin") == expected)
    }

    // MARK: - Errors

    @Test(arguments: [
        "", "   ", "tomorow", "+5x", "+", "+h", "+-5m", "+5m3", "+1h1h", "+30m1h", "2026-02-30", "2026-13-01",
        "26-12-01", "2026/12", "12/", "2026-12-01T25:00", "2026-12-01 24:00", "2026-12-01 9",
        "2026-12-01T9am", "25:00", "now 17:30", "today 25:00", "9", "at", "at tomorrow", "noon noon",
        "today 13pm", "today 0am", "today 12:60", "today 9:5", "today 09:00:60", "tomorrow 9 pm pm",
        "tomorrow 1 7:30", "monday tuesday", "mond", "in two hours", "in 2", "in hours", "in 1 fortnight",
        "in 2 hours ago", "in -2 hours", "in 1.5 days", "@abc", "@", "@1.5", "@ 100", "@9999999999999",
        "@99999999999999999999", "+99999999999999999999d", "+999999999999999s", "+999999999999999w",
        "+90000000h", "in 9999999 days", "1h1h", "15m",
        "Dec 32", "Feb 30 2027", "Dec 24 27", "24 24", "Dec", "next", "next day", "last week", "in 1 month ago",
        "2 hours", "ago", "in 1 hour 1 hour", "+1mo1y", "+1m1mo", "in 200000 months", "+1y1y", "tonight 9pm", "eod 5pm",
        "2026-12-01T09:00:00+25:00", "9999-12-31T23:59:59-01:00"
    ])
    func rejects(text: String) throws {
        let tz = try #require(ZoneInfo(identifier: "America/New_York"))
        let now = try #require(Instant(rfc3339: Self.tokyoNow))
        #expect(throws: TimeExpressionError.self) { try TimeExpression.instant(text, now: now, timeZone: tz) }
    }

    @Test func absurdClocksGiveErrorsNotTraps() throws {
        let tz = try #require(ZoneInfo(identifier: "Europe/Berlin"))
        for now in [Instant(usec: .max), Instant(usec: .min)] {
            for text in ["now", "today", "tomorrow 9am", "monday", "+1d", "+1s", "in 2 hours"] {
                #expect(throws: TimeExpressionError.self) { try TimeExpression.instant(text, now: now, timeZone: tz) }
            }
            #expect(
                try TimeExpression.instant("2026-12-01T09:00:00Z", now: now, timeZone: tz).rfc3339()
                    == "2026-12-01T09:00:00Z")
            #expect(throws: TimeExpressionError.self) {
                try TimeExpression.remind("1h", due: now, now: now, timeZone: tz)
            }
        }
    }

    @Test func whenErrorMessageQuotesTheValueAndListsTheForms() throws {
        do {
            let value = try TimeExpression.instant("tomorow", now: Instant(usec: 0), timeZone: ZoneInfo.utc)
            Issue.record("parsed as \(value)")
        } catch {
            #expect(error.message == "invalid time \"tomorow\": expected \(TimeExpression.whenForms)")
            #expect(
                error.message.contains("Dec 24") && error.message.contains("tomorrow at 9am")
                    && error.message.contains("ago"))
        }
        do {
            _ = try TimeExpression.instant(
                "a\n\"b\"", now: Instant(usec: 0), timeZone: .named(byTZ: "America/New_York"))
        } catch {
            #expect(error.message.hasPrefix("invalid time \"a\\n\\\"b\\\"\": expected"))
            #expect(!error.message.contains("\n"))
        }
        do {
            _ = try TimeExpression.instant(
                String(repeating: "x", count: 500), now: Instant(usec: 0), timeZone: .named(byTZ: "America/New_York"))
        } catch {
            #expect(error.message.count < 300) // the forms of both languages, one line
        }
    }

    // MARK: - DURATION

    @Test(arguments: [
        ("30s", Int64(30)), ("15m", 900), ("2h", 7200), ("1d", 86_400), ("1w", 604_800),
        ("1h30m", 5400), ("1w2d3h4m5s", 788_645), ("90M", 5400), (" 2h\n", 7200), ("0h1s", 1),
        ("1d12h", 129_600), ("100000w", 60_480_000_000)
    ])
    func duration(text: String, seconds: Int64) throws {
        #expect(try TimeExpression.duration(text) == seconds * 1_000_000)
    }

    @Test(arguments: [
        "", " ", "0s", "0h0m", "1h1h", "30m1h", "5x", "h", "1.5h", "-5m", "+5m", "1h 30m", "2 hours",
        "2hours", "1h30", "99999999999999999999s", "999999999999999w", "20000000000000d", "now"
    ])
    func rejectsDuration(text: String) {
        #expect(throws: TimeExpressionError.self) { try TimeExpression.duration(text) }
    }

    @Test func durationErrorMessage() {
        #expect(
            throws: TimeExpressionError(
                message: "invalid duration \"5x\": expected a number with a unit, like 30s, 15m, 2h, 1d, 1w or 1h30m")
        ) {
            try TimeExpression.duration("5x")
        }
    }

    // MARK: - --remind

    @Test func remindDurationIsBeforeDue() throws {
        let tz = try #require(ZoneInfo(identifier: "Europe/Berlin"))
        let now = try #require(Instant(rfc3339: "2026-10-24T10:00:00Z"))
        let due = try #require(Instant(rfc3339: "2026-10-25T11:00:00Z"))
        #expect(try TimeExpression.remind("15m", due: due, now: now, timeZone: tz).rfc3339() == "2026-10-25T10:45:00Z")
        // A day before is exactly 24 hours before, even across a DST change.
        #expect(try TimeExpression.remind("1d", due: due, now: now, timeZone: tz).rfc3339() == "2026-10-24T11:00:00Z")
        #expect(
            try TimeExpression.remind("1h30m", due: due, now: now, timeZone: tz).rfc3339() == "2026-10-25T09:30:00Z")
        #expect(
            try TimeExpression.remind("tomorrow 9am", due: due, now: now, timeZone: tz).rfc3339()
                == "2026-10-25T08:00:00Z")
        #expect(try TimeExpression.remind("+15m", due: nil, now: now, timeZone: tz).rfc3339() == "2026-10-24T10:15:00Z")
        #expect(
            try TimeExpression.remind("2026-10-25T09:00:00Z", due: nil, now: now, timeZone: tz).rfc3339()
                == "2026-10-25T09:00:00Z")
    }

    @Test func remindErrors() throws {
        let now = try #require(Instant(rfc3339: "2026-10-24T10:00:00Z"))
        let due = try #require(Instant(rfc3339: "2026-10-25T11:00:00Z"))
        #expect(throws: TimeExpressionError(message: "a reminder given as a duration needs a due date")) {
            try TimeExpression.remind("15m", due: nil, now: now, timeZone: .named(byTZ: "America/New_York"))
        }
        #expect(
            throws: TimeExpressionError(
                message: "invalid duration \"0m\": expected a number with a unit, like 30s, 15m, 2h, 1d, 1w or 1h30m")
        ) {
            try TimeExpression.remind("0m", due: due, now: now, timeZone: .named(byTZ: "America/New_York"))
        }
        #expect(throws: TimeExpressionError.self) {
            try TimeExpression.remind(
                "999999999999999w", due: due, now: now, timeZone: .named(byTZ: "America/New_York"))
        }
        #expect(throws: TimeExpressionError.self) {
            try TimeExpression.remind("900000000h", due: due, now: now, timeZone: .named(byTZ: "America/New_York"))
        }
        do {
            _ = try TimeExpression.remind("soon", due: due, now: now, timeZone: .named(byTZ: "America/New_York"))
            Issue.record("accepted soon")
        } catch {
            #expect(
                error.message.hasPrefix(
                    "invalid reminder \"soon\": expected a duration before the due date (like 15m, 2h, 1h30m or 15分前) or a time: \(TimeExpression.whenForms)"
                ))
        }
    }
}
