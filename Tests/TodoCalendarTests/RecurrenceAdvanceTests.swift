import Foundation
import Testing
import TodoCalendar
import TodoCore
import TodoTestSupport
import TodoTime

/// `Recurrence.advance`: one recurring todo's `due` moving on completion, in its zone, COUNT and
/// UNTIL ending it, `after done` counting from the completion, month ends as a person means them.
@Suite struct RecurrenceAdvanceTests {
    static func zone(_ name: String) -> ZoneInfo { ZoneInfo(identifier: name)! }
    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }
    /// The local text ("2026-03-30 09:00") of an instant in a zone.
    static func local(_ t: Instant?, _ zone: ZoneInfo) -> String { t.map { LocalTime($0, in: zone).text } ?? "none" }

    /// Advances `times` times, completing each occurrence a minute after it is due.
    static func walk(
        _ rule: String, from: RecurrenceBase = .due, due: String, zone: String, times: Int, allDay: Bool = false
    ) throws -> [String] {
        let tz = Self.zone(zone)
        var due = at(due)
        var rule = rule
        var out: [String] = []
        for _ in 0..<times {
            guard
                let next = try Recurrence.advance(
                    rule: rule, from: from, due: due, zone: tz, completed: due.adding(usec: 60_000_000), allDay: allDay)
            else {
                out.append("end")
                break
            }
            (due, rule) = next
            out.append(local(due, tz))
        }
        return out
    }

    /// 09:00 Berlin stays 09:00 across the March and October changes; 09:00 Tokyo stays 09:00.
    @Test func wallClockTimeIsKeptAcrossDST() throws {
        #expect(
            try Self.walk("FREQ=DAILY", due: "2026-03-28T08:00:00Z", zone: "Europe/Berlin", times: 2) == [
                "2026-03-29 09:00", "2026-03-30 09:00"
            ])
        #expect(
            try Self.walk("FREQ=WEEKLY", due: "2026-10-20T07:00:00Z", zone: "Europe/Berlin", times: 2) == [
                "2026-10-27 09:00", "2026-11-03 09:00"
            ])
        #expect(
            try Self.walk("FREQ=DAILY", due: "2026-03-28T00:00:00Z", zone: "Asia/Tokyo", times: 1) == [
                "2026-03-29 09:00"
            ])
        #expect(
            try Self.walk("FREQ=DAILY", due: "2026-04-03T22:00:00Z", zone: "Australia/Sydney", times: 2) == [
                "2026-04-05 09:00", "2026-04-06 09:00"
            ])
    }

    /// A time that does not exist that day moves forward by the gap; an ambiguous one takes the first.
    @Test func gapsAndOverlaps() throws {
        let berlin = Self.zone("Europe/Berlin")
        // 02:30 daily: on 29 March 2026 02:30 does not exist in Berlin → 03:30 CEST (01:30Z).
        let rule = try RecurrenceRule(parsing: "FREQ=DAILY")
        let start = Self.at("2026-03-28T01:30:00Z") // 02:30 CET
        #expect(rule.next(after: start, start: start, zone: berlin) == Self.at("2026-03-29T01:30:00Z"))
        #expect(
            rule.next(after: Self.at("2026-03-29T01:30:00Z"), start: start, zone: berlin)
                == Self.at("2026-03-30T00:30:00Z"))
        // 02:30 on 25 October 2026 happens twice: the first (CEST, 00:30Z) is taken.
        let autumn = Self.at("2026-10-24T00:30:00Z")
        #expect(rule.next(after: autumn, start: autumn, zone: berlin) == Self.at("2026-10-25T00:30:00Z"))
    }

    @Test func monthEndsAsAPersonMeansThem() throws {
        #expect(
            try Self.walk(
                "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", due: "2026-01-31T08:00:00Z", zone: "Europe/Berlin",
                times: 4)
                == ["2026-02-28 09:00", "2026-03-31 09:00", "2026-04-30 09:00", "2026-05-31 09:00"])
        #expect(
            try Self.walk(
                "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1", due: "2028-02-29T00:00:00Z", zone: "Asia/Tokyo",
                times: 4)
                == ["2029-02-28 09:00", "2030-02-28 09:00", "2031-02-28 09:00", "2032-02-29 09:00"])
        #expect(
            try Self.walk("FREQ=MONTHLY;BYDAY=-1FR", due: "2026-11-27T08:00:00Z", zone: "Europe/Berlin", times: 2) == [
                "2026-12-25 09:00", "2027-01-29 09:00"
            ])
    }

    /// COUNT counts the current `due`: COUNT=3 is this one and two more; the stored rule keeps the rest.
    @Test func countIsDecrementedInTheStoredRule() throws {
        let tz = Self.zone("Asia/Tokyo")
        let due = Self.at("2026-12-01T00:00:00Z")
        let first = try #require(
            try Recurrence.advance(rule: "FREQ=DAILY;COUNT=3", from: .due, due: due, zone: tz, completed: due))
        #expect(first.rule == "FREQ=DAILY;COUNT=2")
        let second = try #require(
            try Recurrence.advance(rule: first.rule, from: .due, due: first.due, zone: tz, completed: first.due))
        #expect(second.rule == "FREQ=DAILY;COUNT=1")
        #expect(
            try Recurrence.advance(rule: second.rule, from: .due, due: second.due, zone: tz, completed: second.due)
                == nil)
        #expect(
            try Self.walk("FREQ=WEEKLY;BYDAY=MO,TH;COUNT=3", due: "2026-11-30T00:00:00Z", zone: "Asia/Tokyo", times: 3)
                == ["2026-12-03 09:00", "2026-12-07 09:00", "end"])
    }

    /// Completed late, a todo skips the occurrences that passed (they count toward COUNT).
    @Test func completingLateSkipsPassedOccurrences() throws {
        let tz = Self.zone("Europe/Berlin")
        let due = Self.at("2026-12-01T08:00:00Z")
        let late = try #require(
            try Recurrence.advance(
                rule: "FREQ=DAILY;COUNT=10", from: .due, due: due, zone: tz, completed: Self.at("2026-12-04T12:00:00Z"))
        )
        #expect(Self.local(late.due, tz) == "2026-12-05 09:00")
        #expect(late.rule == "FREQ=DAILY;COUNT=6")
        // Completed early, before due: the next one after due.
        let early = try #require(
            try Recurrence.advance(
                rule: "FREQ=DAILY", from: .due, due: due, zone: tz, completed: Self.at("2026-11-20T12:00:00Z")))
        #expect(Self.local(early.due, tz) == "2026-12-02 09:00")
    }

    @Test func untilEndsIt() throws {
        #expect(
            try Self.walk(
                "FREQ=DAILY;UNTIL=20261203T080000Z", due: "2026-12-01T08:00:00Z", zone: "Europe/Berlin", times: 3)
                == ["2026-12-02 09:00", "2026-12-03 09:00", "end"])
        #expect(
            try Self.walk("FREQ=DAILY;UNTIL=20261202", due: "2026-12-01T08:00:00Z", zone: "Europe/Berlin", times: 3)
                == ["2026-12-02 09:00", "end"])
    }

    /// `after done`: the completion's date plus the interval, at the todo's time of day.
    @Test func afterDoneCountsFromTheCompletion() throws {
        let tz = Self.zone("Europe/Berlin")
        let due = Self.at("2026-12-01T08:00:00Z") // 09:00
        let next = try #require(
            try Recurrence.advance(
                rule: "FREQ=WEEKLY;INTERVAL=2", from: .completion, due: due, zone: tz,
                completed: Self.at("2026-12-05T17:00:00Z")))
        #expect(Self.local(next.due, tz) == "2026-12-19 09:00")
        let month = try #require(
            try Recurrence.advance(
                rule: "FREQ=MONTHLY;COUNT=2", from: .completion, due: due, zone: tz,
                completed: Self.at("2027-01-31T10:00:00Z")))
        #expect(Self.local(month.due, tz) == "2027-02-28 09:00")
        #expect(month.rule == "FREQ=MONTHLY;COUNT=1")
        #expect(
            try Recurrence.advance(rule: month.rule, from: .completion, due: month.due, zone: tz, completed: month.due)
                == nil)
        #expect(
            try Recurrence.advance(
                rule: "FREQ=DAILY;UNTIL=20261210T000000Z", from: .completion, due: due, zone: tz,
                completed: Self.at("2026-12-10T12:00:00Z")) == nil)
    }

    /// All-day todos work on dates: the next due is the local midnight of the next date.
    @Test func allDayWorksOnDates() throws {
        #expect(
            try Self.walk("FREQ=WEEKLY", due: "2026-03-22T23:00:00Z", zone: "Europe/Berlin", times: 2, allDay: true)
                == ["2026-03-30 00:00", "2026-04-06 00:00"])
    }

    /// Advancing again and again (each completion on time, or late) walks exactly the dates the
    /// first rule names from the first `due`: the stored rule with the new `due` as DTSTART is the
    /// rest of it, COUNT included. Each new `due` is at the wall-clock time of the `due` before it,
    /// so a time moved forward by a DST gap is carried from then on (docs/RECURRENCE.md).
    @Test func advancingWalksTheOriginalSeries() throws {
        let seed = SeededRandom.seed(from: "TODOD_RRULE_SEED")
        var random = SeededRandom(seed: seed)
        let zoneNames = ["Europe/Berlin", "Australia/Sydney", "America/New_York"]
        var checked = 0
        while checked < 300 {
            guard var rule = try? RecurrenceRule(parsing: DateutilOracleTests.randomRule(&random)) else { continue }
            rule.until = nil
            rule.count = Int.random(in: 1...12, using: &random)
            let zoneName = zoneNames.randomElement(using: &random)!
            let zone = Self.zone(zoneName)
            let day = Instant.days(year: 2020, month: 1, day: 1)! + Int64.random(in: 0..<3650, using: &random)
            let firstSeries = LocalTime.instant(
                days: day, secondOfDay: Int64.random(in: 0..<86_400, using: &random) / 900 * 900, in: zone)!
            // The series' local dates (COUNT of them; a DTSTART off the schedule is not one). The
            // todo is due at the first occurrence with the same rule.
            var series = OccurrenceIterator(rule: rule, start: firstSeries, zone: zone)
            guard let first = series.next() else { continue }
            var dates = [LocalTime(first, in: zone).days]
            while let next = series.nextDate() { dates.append(next.days) }
            // Each later date at the time of day of the `due` before it: a todo's `due` is all the
            // store knows of its time (02:30 moved to 03:30 by a gap stays 03:30 from then on).
            var expected = [first]
            for date in dates.dropFirst() {
                expected.append(
                    LocalTime.instant(
                        days: date, secondOfDay: LocalTime(expected.last!, in: zone).secondOfDay, in: zone)!)
            }
            var text = rule.text
            var due = first
            var completed = first
            var walked = [first]
            while let next = try Recurrence.advance(rule: text, from: .due, due: due, zone: zone, completed: completed)
            {
                (due, text) = next
                walked.append(due)
                if walked.count > 20 { break }
                // On time, or late but before the next date (later would skip it, as it should).
                completed = due
                if Bool.random(using: &random), walked.count < expected.count,
                    expected[walked.count].usec - due.usec > 1
                {
                    completed = due.adding(
                        usec: Int64.random(in: 1..<(expected[walked.count].usec - due.usec), using: &random))
                }
            }
            #expect(walked == expected, "seed \(seed): \(rule.text) in \(zoneName) from \(firstSeries)")
            checked += 1
        }
    }

    /// A daily 02:30 todo due on the night of the March change is due at 03:30 (the gap) and keeps
    /// 03:30 from then on, COUNT counting on; the rule's series from the first `due` keeps 02:30.
    @Test func aDueMovedByAGapKeepsItsNewTime() throws {
        #expect(
            try Self.walk("FREQ=DAILY;COUNT=4", due: "2026-03-28T01:30:00Z", zone: "Europe/Berlin", times: 4)
                == ["2026-03-29 03:30", "2026-03-30 03:30", "2026-03-31 03:30", "end"])
        // Seed 12's rule: every other month's Sundays at 02:30 New York, across 8 March 2020.
        #expect(
            try Self.walk(
                "FREQ=MONTHLY;INTERVAL=2;BYDAY=SU;COUNT=7", due: "2020-01-26T07:30:00Z", zone: "America/New_York",
                times: 4)
                == ["2020-03-01 02:30", "2020-03-08 03:30", "2020-03-15 03:30", "2020-03-22 03:30"])
        let berlin = Self.zone("Europe/Berlin")
        let start = Self.at("2026-03-28T01:30:00Z")
        #expect(
            try RecurrenceRule(parsing: "FREQ=DAILY").occurrences(
                start: start, zone: berlin, from: start, through: .latest, limit: 3
            ).map { Self.local($0, berlin) }
                == ["2026-03-28 02:30", "2026-03-29 03:30", "2026-03-30 02:30"])
    }

    /// A `due` at the second of two equal wall-clock times (02:30 CET on the October change, after
    /// 02:30 CEST) is the first occurrence: the earlier 02:30 that day is before it and not counted.
    @Test func aDueAtTheRepeatedHourCountsAsOne() throws {
        let berlin = Self.zone("Europe/Berlin")
        let second = Self.at("2026-10-25T01:30:00Z") // 02:30 CET; 00:30Z is 02:30 CEST
        let next = try #require(
            try Recurrence.advance(rule: "FREQ=DAILY;COUNT=3", from: .due, due: second, zone: berlin, completed: second)
        )
        #expect(next.due == Self.at("2026-10-26T01:30:00Z"))
        #expect(next.rule == "FREQ=DAILY;COUNT=2")
        // The series from it: itself not again, the earlier 02:30 not at all, COUNT=3 whole.
        let series = try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=3").occurrences(
            start: second, zone: berlin, from: .earliest, through: .latest)
        #expect(
            series == [
                Self.at("2026-10-26T01:30:00Z"), Self.at("2026-10-27T01:30:00Z"), Self.at("2026-10-28T01:30:00Z")
            ])
    }

    /// A `due` off the rule's schedule counts as one occurrence (RFC 5545: DTSTART is the first).
    @Test func aDueOffTheScheduleCountsAsOne() throws {
        let tz = Self.zone("Asia/Tokyo")
        let wednesday = Self.at("2026-12-02T00:00:00Z")
        let next = try #require(
            try Recurrence.advance(
                rule: "FREQ=WEEKLY;BYDAY=MO;COUNT=2", from: .due, due: wednesday, zone: tz, completed: wednesday))
        #expect(Self.local(next.due, tz) == "2026-12-07 09:00" && next.rule == "FREQ=WEEKLY;BYDAY=MO;COUNT=1")
        #expect(
            try Recurrence.advance(rule: next.rule, from: .due, due: next.due, zone: tz, completed: next.due) == nil)
    }

    @Test func upcomingDates() {
        let tz = Self.zone("Europe/Berlin")
        let due = Self.at("2026-10-23T07:00:00Z") // Friday 09:00 CEST
        #expect(
            Recurrence.upcoming(TodoRecurrence(rule: "FREQ=WEEKLY;BYDAY=MO,FR"), due: due, zone: tz, count: 3).map {
                Self.local($0, tz)
            }
                == ["2026-10-23 09:00", "2026-10-26 09:00", "2026-10-30 09:00"])
        #expect(
            Recurrence.upcoming(TodoRecurrence(rule: "FREQ=DAILY;COUNT=2"), due: due, zone: tz, count: 5).count == 2)
        #expect(
            Recurrence.upcoming(TodoRecurrence(rule: "FREQ=DAILY", from: .completion), due: due, zone: tz, count: 5)
                == [due])
    }

    /// `--every` without `--due`: the first occurrence from today.
    @Test func theFirstDateFromToday() throws {
        let tuesday = Instant.days(year: 2026, month: 12, day: 1)!
        #expect(try Recurrence.firstDate(rule: "FREQ=WEEKLY;BYDAY=MO,TH", onOrAfter: tuesday) == tuesday + 2)
        #expect(try Recurrence.firstDate(rule: "FREQ=MONTHLY", onOrAfter: tuesday) == tuesday)
        #expect(
            try Recurrence.firstDate(rule: "FREQ=MONTHLY;BYDAY=-1FR", onOrAfter: tuesday)
                == Instant.days(year: 2026, month: 12, day: 25))
        #expect(try Recurrence.firstDate(rule: "FREQ=DAILY;UNTIL=20261130", onOrAfter: tuesday) == nil)
    }

    @Test func aBadStoredRuleIsAnError() {
        #expect(throws: RecurrenceError.self) {
            try Recurrence.advance(
                rule: "FREQ=HOURLY", from: .due, due: Self.at("2026-12-01T08:00:00Z"), zone: .utc,
                completed: Self.at("2026-12-01T08:00:00Z"))
        }
    }
}
