import Testing
import TodoCalendar
import TodoCore
import TodoTime

/// `RecurrenceRule`: RRULE text in, the canonical text out, and one-line refusals naming the part.
@Suite struct RecurrenceRuleTests {
    @Test(arguments: [
        ("FREQ=DAILY", "FREQ=DAILY"),
        ("rrule:freq=weekly;interval=2;byday=mo,th", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH"),
        ("FREQ=MONTHLY;BYDAY=-1FR", "FREQ=MONTHLY;BYDAY=-1FR"),
        ("FREQ=MONTHLY;BYSETPOS=-1;BYMONTHDAY=28,29,30,31", "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1"),
        ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1;COUNT=3;INTERVAL=1", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1;COUNT=3"),
        ("FREQ=WEEKLY;WKST=SU;UNTIL=20261224T090000Z", "FREQ=WEEKLY;WKST=SU;UNTIL=20261224T090000Z"),
        ("FREQ=MONTHLY;BYDAY=+2MO;UNTIL=20270101", "FREQ=MONTHLY;BYDAY=2MO;UNTIL=20270101")
    ])
    func canonicalText(input: String, expected: String) throws {
        let rule = try RecurrenceRule(parsing: input)
        #expect(rule.text == expected)
        #expect(try RecurrenceRule(parsing: rule.text) == rule)
    }

    @Test(arguments: [
        ("FREQ=HOURLY", "FREQ=HOURLY is not supported"),
        ("FREQ=DAILY;BYHOUR=9", "RRULE part BYHOUR is not supported"),
        ("FREQ=YEARLY;BYWEEKNO=20", "RRULE part BYWEEKNO is not supported"),
        ("FREQ=DAILY;FOO=1", "RRULE part FOO is unknown"),
        ("INTERVAL=2", "RRULE has no FREQ part"),
        ("FREQ=DAILY;COUNT=2;UNTIL=20270101", "both COUNT and UNTIL"),
        ("FREQ=WEEKLY;BYDAY=2MO", "BYDAY=2MO has an ordinal"),
        ("FREQ=MONTHLY;BYDAY=6MO", "at most 5"),
        ("FREQ=WEEKLY;BYMONTHDAY=3", "BYMONTHDAY cannot be used with FREQ=WEEKLY"),
        ("FREQ=DAILY;INTERVAL=0", "RRULE part INTERVAL has \"0\""),
        ("FREQ=MONTHLY;BYMONTHDAY=0", "other than 0"),
        ("FREQ=DAILY;UNTIL=20261224T0900", "is not a date"),
        ("FREQ=DAILY;UNTIL=2026-12-24", "is not a date"),
        ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "never occurs"),
        ("FREQ=DAILY;BYSETPOS=1", "BYSETPOS needs another BY part"),
        ("FREQ=DAILY;FREQ=WEEKLY", "FREQ appears twice"),
        ("FREQ=DAILY;;COUNT=1", "is not NAME=VALUE"),
        ("", "empty RRULE")
    ])
    func refusals(input: String, fragment: String) {
        #expect {
            try RecurrenceRule(parsing: input)
        } throws: { error in
            let message = "\(error)"
            return message.contains(fragment) && !message.contains("\n")
        }
    }

    /// A floating UNTIL (RFC-valid; Nextcloud Tasks writes it) is that wall-clock time in the
    /// zone the rule is followed in, inclusive; written back as it came.
    @Test func floatingUntilIsAWallClockTimeInTheZone() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20261224T090000")
        #expect(rule.until == .local(seconds: Instant.days(year: 2026, month: 12, day: 24)! * 86_400 + 9 * 3600))
        #expect(rule.text == "FREQ=DAILY;UNTIL=20261224T090000")
        for name in ["Europe/Berlin", "Asia/Tokyo", "America/New_York"] {
            let zone = try #require(ZoneInfo(identifier: name))
            let start = try #require(
                LocalTime.instant(days: Instant.days(year: 2026, month: 12, day: 20)!, secondOfDay: 9 * 3600, in: zone))
            let all = rule.occurrences(start: start, zone: zone, from: start, through: .latest)
            #expect(all.count == 5, "\(name)") // the 20th to the 24th at 09:00, the bound included
            #expect(all.last.map { LocalTime($0, in: zone).text } == "2026-12-24 09:00")
            let allDay = rule.occurrences(
                start: start, zone: zone, from: start.adding(usec: -86_400_000_000), through: .latest, allDay: true)
            #expect(allDay.count == 5, "\(name) all-day")
        }
    }
}
