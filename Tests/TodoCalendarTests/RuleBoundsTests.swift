import Testing
import TodoCalendar
import TodoCore
import TodoTime

/// Rules that can never occur are refused; every search ends, whatever the rule; COUNT counts a
/// `due` off the schedule as RFC 5545 counts DTSTART, in what `show` and `agenda` list too.
@Suite struct RuleBoundsTests {
    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    /// A BYSETPOS past the most dates one period can hold never picks one.
    @Test(arguments: [
        "FREQ=DAILY;BYDAY=MO;BYSETPOS=2", "FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=3,-3", "FREQ=MONTHLY;BYMONTH=3;BYSETPOS=2",
        "FREQ=MONTHLY;BYMONTHDAY=1,2;BYSETPOS=3", "FREQ=YEARLY;BYDAY=SA,5MO;BYSETPOS=366"
    ])
    func rulesThatNeverOccurAreRefused(_ rule: String) {
        #expect(throws: RecurrenceError.self) { try RecurrenceRule(parsing: rule) }
        do { _ = try RecurrenceRule(parsing: rule) } catch {
            #expect(error.message.hasPrefix("RRULE never occurs: BYSETPOS="), "\(error.message)")
        }
    }

    /// A BYMONTHDAY that no BYDAY with an ordinal can fall on (the 1st Sunday is never the 15th).
    @Test(arguments: ["FREQ=MONTHLY;BYDAY=1SU;BYMONTHDAY=15,30,31", "FREQ=YEARLY;BYMONTH=2;BYDAY=-1FR;BYMONTHDAY=-10"])
    func monthDaysNoOrdinalReachesAreRefused(_ rule: String) {
        #expect(throws: RecurrenceError.self) { try RecurrenceRule(parsing: rule) }
        #expect((try? RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=2SU;BYMONTHDAY=8,9,10,11,12,13,14")) != nil)
        #expect((try? RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=-1SU;BYMONTHDAY=25")) != nil)
    }

    /// Rules that still occur are not refused by the bound.
    @Test(arguments: [
        "FREQ=DAILY;BYDAY=MO;BYSETPOS=1", "FREQ=WEEKLY;BYDAY=MO,TU;BYSETPOS=-1", "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5",
        "FREQ=YEARLY;BYDAY=MO;BYSETPOS=53"
    ])
    func rulesThatOccurAreKept(_ rule: String) throws {
        _ = try RecurrenceRule(parsing: rule)
    }

    /// Rules that never occur from their start (every 7 days on another weekday; 29 February
    /// every 4 years from a common year) end the search instead of walking to the year 9999;
    /// a rare one (29 February on a Monday) is still found.
    @Test func searchesEnd() throws {
        let monday = Self.at("2026-11-30T09:00:00Z")
        #expect(
            try RecurrenceRule(parsing: "FREQ=DAILY;INTERVAL=7;BYDAY=TU").next(after: monday, start: monday, zone: .utc)
                == nil)
        let y2025 = Self.at("2025-01-10T09:00:00Z")
        #expect(
            try RecurrenceRule(parsing: "FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29").next(
                after: y2025, start: y2025, zone: .utc) == nil)
        #expect(
            try Recurrence.advance(
                rule: "FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29", from: .due, due: y2025, zone: .utc,
                completed: y2025) == nil)
        let rare = try RecurrenceRule(parsing: "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO")
        #expect(rare.next(after: y2025, start: y2025, zone: .utc) == Self.at("2044-02-29T09:00:00Z"))
    }

    /// COUNT=3 from a `due` off the schedule: that `due` and two more, in `upcoming` (show) and
    /// in the occurrences the agenda asks for.
    @Test func countCountsADueOffTheSchedule() throws {
        let tuesday = Self.at("2026-12-01T09:00:00Z")
        let rule = "FREQ=WEEKLY;BYDAY=MO;COUNT=3"
        let dates = Recurrence.upcoming(TodoRecurrence(rule: rule), due: tuesday, zone: .utc, count: 10)
        #expect(dates == [tuesday, Self.at("2026-12-07T09:00:00Z"), Self.at("2026-12-14T09:00:00Z")])
        let later = try RecurrenceRule(parsing: rule).occurrences(
            start: tuesday, zone: .utc, from: tuesday.adding(usec: 1), through: .latest,
            countingStart: true)
        #expect(later.count == 2)
        // On the schedule, the due is the first of the three.
        let monday = Self.at("2026-11-30T09:00:00Z")
        #expect(Recurrence.upcoming(TodoRecurrence(rule: rule), due: monday, zone: .utc, count: 10).count == 3)
    }
}
