import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// Undo and redo through the real todod and todoctl keep what an iCalendar import kept
/// (`todos.ical_extra`, docs/ICALENDAR.md "What is kept"; the log's images since migration 10).
@Suite struct ICalendarUndoTests {
    static let env = ["TZ": "Asia/Tokyo", "NO_COLOR": "1"]

    /// A VTODO with an unknown property (with a parameter and Japanese text), an X- property, and
    /// an e-mail VALARM (not mapped: kept whole) with X- lines, beside the DISPLAY alarm todod maps.
    static func calendar(modified: String, kept: [String]) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//ical undo//EN", "BEGIN:VTODO", "UID:undo-kept-1",
            "SUMMARY:会議の準備", "DUE:20300115T010000Z", "CREATED:20261101T000000Z", "LAST-MODIFIED:\(modified)",
            "DTSTAMP:\(modified)"
        ] + kept + [
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;RELATED=END:-PT15M", "X-WR-ALARMUID:A1B2C3D4", "END:VALARM",
            "END:VTODO", "END:VCALENDAR"
        ]).joined(separator: "\r\n") + "\r\n"
    }

    static let first = [
        "LOCATION;LANGUAGE=ja:第二会議室", "X-MOZ-GENERATION:3", "BEGIN:VALARM", "ACTION:EMAIL",
        "TRIGGER:-PT1H", "ATTENDEE:mailto:会議@example.com", "X-EVOLUTION-ALARM-UID:e-1", "X-TEST-NOTE;X-P=1:a\\,b",
        "END:VALARM"
    ]
    static let second = ["GEO:35.68;139.76", "X-MOZ-GENERATION:4"]

    func run(_ d: DaemonProcess, _ args: [String], input: String? = nil) throws -> ChildProcess.Result {
        let r = try d.todoctl(args, input: input, environment: Self.env)
        #expect(r.status == 0, "todoctl \(args): \(r.stderr)")
        return r
    }

    func ics(_ d: DaemonProcess) throws -> String { try run(d, ["export", "--format", "ics"]).stdout }

    /// Import, rm, undo: the export is the same bytes as before the rm, kept lines included; redo
    /// removes the todo again. An import that replaces the kept lines, undone, gives the old ones
    /// back; redone, the new ones.
    @Test func undoAndRedoKeepTheLinesAnImportKept() throws {
        let d = try DaemonProcess()
        _ = try run(d, ["add", "made here"])
        _ = try run(d, ["import", "-"], input: Self.calendar(modified: "20261102T000000Z", kept: Self.first))
        let imported = try ics(d)
        for line in Self.first + ["X-WR-ALARMUID:A1B2C3D4"] {
            #expect(imported.contains("\r\n" + line + "\r\n"), "\(line) not exported after the import")
        }

        _ = try run(d, ["rm", "2"])
        #expect(!(try ics(d)).contains("UID:undo-kept-1"))
        _ = try run(d, ["undo"])
        #expect(try ics(d) == imported)
        _ = try run(d, ["redo"])
        let removed = try ics(d)
        #expect(!removed.contains("UID:undo-kept-1") && !removed.contains("X-MOZ-GENERATION"))
        _ = try run(d, ["undo"])
        #expect(try ics(d) == imported)

        // A later version from elsewhere with other kept lines.
        _ = try run(d, ["import", "-"], input: Self.calendar(modified: "20261103T000000Z", kept: Self.second))
        let updated = try ics(d)
        #expect(
            updated.contains("\r\nGEO:35.68;139.76\r\n") && !updated.contains("LOCATION")
                && !updated.contains("ACTION:EMAIL"))
        _ = try run(d, ["undo"])
        #expect(try ics(d) == imported)
        _ = try run(d, ["redo"])
        #expect(try ics(d) == updated)
    }
}
