import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// Recurrence sets and the DTSTART anchor (SPEC §11.1 "Start", "Recurrence sets") with the built
/// todod and todoctl on VTODOs as other clients write them: EXDATE and RDATE (several values per
/// line, several lines, DATE, TZID and UTC forms) in `show`, `agenda` and `done`; COUNT over the
/// set; a DTSTART before DUE as the rule's anchor.
@Suite struct RecurrenceSetTests {
    static let env = ["TZ": "UTC"]

    func run(_ d: DaemonProcess, _ args: [String]) throws -> ChildProcess.Result {
        let r = try d.todoctl(args, environment: Self.env)
        #expect(r.status == 0, "todoctl \(args.joined(separator: " ")): \(r.stderr)")
        return r
    }

    func json(_ d: DaemonProcess, _ args: [String]) throws -> JSON {
        try JSON.parse(Array(try run(d, ["--json"] + args).stdout.utf8))
    }

    func importing(_ d: DaemonProcess, _ lines: [String]) throws {
        let path = d.directory.file("set.ics")
        let text =
            (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VTODO"] + lines
            + ["END:VTODO", "END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        _ = try run(d, ["import", path])
    }

    /// Weekly on Mondays 09:00 Berlin from 7 January 2030, as Thunderbird writes a skipped week
    /// (EXDATE with TZID, two values on one line) plus a DATE EXDATE: the excluded Mondays are not
    /// in `show`, `done` skips them, and the lines go out again in the export as they came.
    @Test func excludedOccurrencesAreNotDue() throws {
        let d = try DaemonProcess()
        try importing(
            d,
            [
                "UID:ex", "SUMMARY:Weekly", "DTSTART;TZID=Europe/Berlin:20300107T090000",
                "DUE;TZID=Europe/Berlin:20300107T090000",
                "RRULE:FREQ=WEEKLY;BYDAY=MO", "EXDATE;TZID=Europe/Berlin:20300114T090000,20300121T090000",
                "EXDATE;VALUE=DATE:20300204"
            ])
        let show = try run(d, ["show", "1"]).stdout
        #expect(show.contains("2030-01-28 08:00") && show.contains("2030-02-11 08:00"), "\(show)")
        #expect(!show.contains("2030-01-14") && !show.contains("2030-01-21") && !show.contains("2030-02-04"), "\(show)")
        _ = try run(d, ["done", "1"])
        #expect(try json(d, ["show", "1"])["due"] == "2030-01-28T08:00:00Z")
        _ = try run(d, ["done", "1"])
        #expect(try json(d, ["show", "1"])["due"] == "2030-02-11T08:00:00Z")
        let ics = try run(d, ["export", "--format", "ics"]).stdout
        #expect(ics.contains("EXDATE;TZID=Europe/Berlin:20300114T090000,20300121T090000\r\n"), "\(ics)")
        #expect(ics.contains("EXDATE;VALUE=DATE:20300204\r\n"), "\(ics)")
    }

    /// COUNT=3 on Mondays with one Monday excluded and a Wednesday added (UTC RDATE): the
    /// occurrences are 7 (the start), 9 (the RDATE, not counted) and 21 January (14 is excluded
    /// but counted): completing walks them and the fourth completion ends the todo.
    @Test func countBoundsTheRuleOverTheSet() throws {
        let d = try DaemonProcess()
        try importing(
            d,
            [
                "UID:count", "SUMMARY:Three Mondays", "DTSTART:20300107T090000Z", "DUE:20300107T090000Z",
                "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3", "RDATE:20300109T090000Z", "EXDATE:20300114T090000Z"
            ])
        let show = try run(d, ["show", "1"]).stdout
        #expect(show.contains("2030-01-09 09:00") && show.contains("2030-01-21 09:00"), "\(show)")
        #expect(!show.contains("2030-01-14") && !show.contains("2030-01-28"), "\(show)")
        var dues: [JSON?] = []
        for _ in 0..<3 {
            _ = try run(d, ["done", "1"])
            let todo = try json(d, ["show", "1"])
            dues.append(todo["done"] == true ? "done" : todo["due"])
        }
        #expect(dues == ["2030-01-09T09:00:00Z", "2030-01-21T09:00:00Z", "done"])
    }

    /// An RDATE before the rule's next occurrence is where completing goes, and the rule keeps its
    /// own schedule after it (a bare WEEKLY rule stays on the start's weekday and time).
    @Test func anRDateComesFirstAndTheRuleKeepsItsDays() throws {
        let d = try DaemonProcess()
        try importing(
            d,
            [
                "UID:rdate", "SUMMARY:Tuesdays", "DTSTART;TZID=Asia/Tokyo:20300108T080000",
                "DUE;TZID=Asia/Tokyo:20300108T080000",
                "RRULE:FREQ=WEEKLY;INTERVAL=2", "RDATE;TZID=Asia/Tokyo:20300110T183000,20300125T070000"
            ])
        var dues: [JSON?] = []
        for _ in 0..<4 {
            _ = try run(d, ["done", "1"])
            dues.append(try json(d, ["show", "1"])["due"])
        }
        // Tokyo is UTC+9: 10 Jan 18:30, 22 Jan 08:00 (two weeks after the 8th), 25 Jan 07:00, 5 Feb 08:00.
        #expect(
            dues == ["2030-01-10T09:30:00Z", "2030-01-21T23:00:00Z", "2030-01-24T22:00:00Z", "2030-02-04T23:00:00Z"])
    }

    /// DTSTART Monday, DUE Wednesday, `BYDAY=MO` (the issue's case): the occurrences are Mondays,
    /// each due on its Wednesday, as RFC 5545 readers expand it; start and due advance together.
    @Test func theStartAnchorsTheRule() throws {
        let d = try DaemonProcess()
        try importing(
            d,
            [
                "UID:anchor", "SUMMARY:Report", "DTSTART;TZID=Europe/Berlin:20300107T090000",
                "DUE;TZID=Europe/Berlin:20300109T170000",
                "RRULE:FREQ=WEEKLY;BYDAY=MO"
            ])
        let show = try run(d, ["show", "1"]).stdout
        #expect(show.contains("2030-01-16 16:00") && show.contains("2030-01-23 16:00"), "\(show)")
        _ = try run(d, ["done", "1"])
        let todo = try json(d, ["show", "1"])
        #expect(todo["start"] == "2030-01-14T08:00:00Z" && todo["due"] == "2030-01-16T16:00:00Z", "\(todo)")
    }

    /// `agenda` leaves out an excluded day and shows an added one (dates from tomorrow on, the
    /// window is today's week).
    @Test func agendaShowsTheSet() throws {
        let d = try DaemonProcess()
        let day: (Int) -> String = { n in
            let f = DateFormatter()
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyyMMdd"
            return f.string(from: Date().addingTimeInterval(Double(n) * 86_400))
        }
        try importing(
            d,
            [
                "UID:agenda", "SUMMARY:Daily", "DTSTART:\(day(1))T100000Z", "DUE:\(day(1))T100000Z", "RRULE:FREQ=DAILY",
                "EXDATE:\(day(2))T100000Z", "RDATE:\(day(3))T150000Z"
            ])
        let agenda = try json(d, ["agenda", "--days", "5"])
        let ats = (agenda["days"]?.arrayValue ?? []).flatMap { $0["items"]?.arrayValue ?? [] }.compactMap {
            $0["at"]?.stringValue
        }
        func iso(_ n: Int, _ time: String) -> String {
            let t = day(n)
            return "\(t.prefix(4))-\(t.dropFirst(4).prefix(2))-\(t.suffix(2))T\(time)Z"
        }
        #expect(ats == [iso(1, "10:00:00"), iso(3, "10:00:00"), iso(3, "15:00:00"), iso(4, "10:00:00")], "\(agenda)")
    }
}
