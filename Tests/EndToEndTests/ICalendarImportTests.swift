import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// `todoctl import` and `add` with the built todod and todoctl on what real files and users give
/// them: values that used to trap, imperfect files, files of other tools, the first due date of
/// a rule, a JSON export imported over the same data's iCalendar export.
@Suite struct ICalendarImportTests {
    static let env = ["TZ": "UTC"]

    func run(_ d: DaemonProcess, _ args: [String], input: String? = nil) throws -> ChildProcess.Result {
        try d.todoctl(args, input: input, environment: Self.env)
    }

    func file(_ d: DaemonProcess, _ name: String, _ lines: [String]) throws -> String {
        let path = d.directory.file(name)
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func calendar(_ todo: [String]) -> [String] {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VTODO"] + todo + ["END:VTODO", "END:VCALENDAR"]
    }

    /// `TRIGGER:-P999999999D` trapped todoctl (SIGILL); now the todo imports with the alarm kept,
    /// and an impossible UTC offset is refused with the file and line, changing nothing.
    @Test func hostileValuesNeitherTrapNorImport() throws {
        let d = try DaemonProcess()
        let huge = try file(
            d, "huge.ics",
            Self.calendar([
                "UID:huge", "SUMMARY:Huge alarm", "DUE:20261201T090000Z", "BEGIN:VALARM",
                "ACTION:DISPLAY", "TRIGGER:-P999999999D", "END:VALARM"
            ]))
        let r = try run(d, ["import", huge])
        #expect(r.status == 0 && r.stdout == "Imported 1 todo and 0 categories.\n", "\(r.status) \(r.stderr)")
        let export = try run(d, ["export", "--format", "ics"])
        #expect(export.stdout.contains("TRIGGER:-P999999999D"))
        let offset = try file(
            d, "offset.ics",
            [
                "BEGIN:VCALENDAR", "BEGIN:VTIMEZONE", "TZID:X", "BEGIN:STANDARD", "DTSTART:19700101T000000",
                "TZOFFSETFROM:+9999", "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE", "BEGIN:VTODO",
                "UID:o", "SUMMARY:o", "DUE;TZID=X:20261201T090000", "END:VTODO", "END:VCALENDAR"
            ])
        let refused = try run(d, ["import", offset])
        #expect(refused.status == 1 && refused.stderr.contains("\(offset): line 6: TZOFFSETFROM"), "\(refused.stderr)")
        #expect(try run(d, ["--json", "list", "--all"]).stdout.components(separatedBy: "\"title\"").count == 2)
    }

    /// Synology's PERCENT_COMPLETE, a VTODO without SUMMARY, an empty PRIORITY: imported; the
    /// untitled one is shown as such. An events-only file says what it skipped.
    @Test func imperfectFilesImportAndSayWhatTheySkipped() throws {
        let d = try DaemonProcess()
        let path = try file(
            d, "synology.ics",
            [
                "BEGIN:VCALENDAR", "BEGIN:VTODO", "UID:s1", "SUMMARY:Synology", "PERCENT_COMPLETE:100",
                "PRIORITY:", "END:VTODO", "BEGIN:VTODO", "UID:s2", "DUE:20261201T090000Z", "END:VTODO",
                "END:VCALENDAR"
            ])
        let r = try run(d, ["import", path])
        #expect(r.status == 0 && r.stdout == "Imported 2 todos and 0 categories.\n", "\(r.stderr)")
        let list = try run(d, ["list", "--all"]).stdout
        #expect(list.contains("(no title)") && list.contains("Synology"), "\(list)")
        let events = try file(
            d, "events.ics",
            [
                "BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:e1", "SUMMARY:Meeting", "END:VEVENT",
                "BEGIN:VEVENT", "UID:e2", "SUMMARY:Lunch", "END:VEVENT", "END:VCALENDAR"
            ])
        let e = try run(d, ["import", events])
        #expect(
            e.status == 0 && e.stdout == "Imported 0 todos and 0 categories; skipped 2 events (not todos).\n",
            "\(e.stdout)\(e.stderr)")
        let json = try JSON.parse(Array(try run(d, ["--json", "import", events]).stdout.utf8))
        #expect(json["skipped"] == ["VEVENT": 2])
    }

    /// A JSON document that is not a todod export, or a bare array (`task export`), is refused
    /// with one line naming the file; a todod export without `created` imports.
    @Test func jsonOfOtherToolsGetsAClearError() throws {
        let d = try DaemonProcess()
        let other = d.directory.file("other.json")
        let array = d.directory.file("task.json")
        let bare = d.directory.file("bare.json")
        try Data(#"{"tasks": [{"title": "x"}]}"#.utf8).write(to: URL(fileURLWithPath: other))
        try Data(#"[{"description": "x", "status": "pending"}]"#.utf8).write(to: URL(fileURLWithPath: array))
        try Data(
            #"{"format": "todod-export", "version": 1, "categories": [], "todos": [{"title": "No created", "updated": "2026-11-01T00:00:00Z"}, {"title": "Nothing"}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: bare))
        for path in [other, array] {
            let r = try run(d, ["import", path])
            #expect(
                r.status == 1 && r.stderr.hasPrefix("todoctl: \(path) is not a todod export document")
                    && r.stderr.split(separator: "\n").count == 1,
                "\(r.stderr)")
        }
        let ok = try run(d, ["import", bare])
        #expect(ok.status == 0 && ok.stdout == "Imported 2 todos and 0 categories.\n", "\(ok.stderr)")
        let todos = try JSON.parse(Array(try run(d, ["--json", "list", "--all"]).stdout.utf8)).arrayValue ?? []
        #expect(todos.first { $0["title"] == "No created" }?["created"] == "2026-11-01T00:00:00Z")
    }

    /// A store loaded from an iCalendar export (whole seconds) takes the JSON export of the same
    /// todos (microseconds) as unchanged, not as 4 updates.
    @Test func aJSONExportOverTheSameICalendarExportChangesNothing() throws {
        let a = try DaemonProcess()
        let b = try DaemonProcess()
        for title in ["One", "Two 二", "Three", "Four"] { _ = try run(a, ["add", title, "--due", "2030-01-15 10:00"]) }
        let ics = a.directory.file("all.ics")
        let json = a.directory.file("all.json")
        #expect(try run(a, ["export", "--format", "ics", "--output", ics]).status == 0)
        #expect(try run(a, ["export", "--output", json]).status == 0)
        #expect(try run(b, ["import", ics]).status == 0)
        let again = try JSON.parse(Array(try run(b, ["--json", "import", json]).stdout.utf8))
        #expect(again["updated"] == 0 && again["unchanged"] == 4, "\(again.serialized())")
    }

    /// COUNT=3 from a due date off the rule (a Tuesday, on a Monday rule, from another program's
    /// file) is that Tuesday and two Mondays: `show` lists two more dates, not three.
    @Test func countFromADueOffTheRuleIsNotOvercounted() throws {
        let d = try DaemonProcess()
        let path = try file(
            d, "count.ics",
            Self.calendar([
                "UID:c", "SUMMARY:Three times", "DUE:20300115T090000Z",
                "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"
            ]))
        #expect(try run(d, ["import", path]).status == 0)
        let show = try run(d, ["show", "1"]).stdout
        #expect(show.contains("2030-01-21 09:00") && show.contains("2030-01-28 09:00"), "\(show)")
        #expect(!show.contains("2030-02-04"), "\(show)")
    }

    /// `--every mon,thu --due 7:00` on a Tuesday is due Thursday 07:00 (the rule's first date on
    /// or after the given one), and an all-day `--every weekday --due saturday` the Monday after.
    @Test func theFirstDueDateIsOneTheRuleNames() throws {
        let d = try DaemonProcess()
        func due(_ args: [String]) throws -> JSON? {
            let r = try run(d, ["--json", "add", "x"] + args)
            #expect(r.status == 0, "\(r.stderr)")
            return try JSON.parse(Array(r.stdout.utf8))["due"]
        }
        // a Tuesday → Thursday
        #expect(try due(["--every", "mon,thu", "--due", "2030-01-15 07:00"]) == "2030-01-17T07:00:00Z")
        #expect(try due(["--every", "weekday", "--due", "2030-01-19"]) == "2030-01-21T00:00:00Z") // a Saturday → Monday
        #expect(try due(["--every", "month on the last friday", "--due", "2030-01-10"]) == "2030-01-25T00:00:00Z")
    }
}
