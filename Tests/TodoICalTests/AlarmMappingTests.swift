import Foundation
import Testing
import TodoCore
import TodoTime

@testable import TodoICal

/// Each VALARM of a VTODO is one alarm, both ways (docs/ICALENDAR.md), read from real clients'
/// files.
@Suite struct AlarmMappingTests {
    static let reader = ICalReader(
        zone: ZoneInfo(identifier: "Asia/Tokyo")!, zoneName: "Asia/Tokyo",
        now: Instant(rfc3339: "2026-12-01T09:00:00Z")!)

    static func calendar(_ vtodo: [String]) -> [UInt8] {
        Array(
            (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"] + vtodo + ["END:VCALENDAR", ""]).joined(
                separator: "\r\n"
            ).utf8)
    }

    static func entry(_ vtodo: [String]) throws -> ExportDocument.Entry {
        try #require(try reader.items(calendar(vtodo)).first).entry
    }

    /// Written and read again: the same todo, and the same text when written again.
    static func roundTrip(_ e: ExportDocument.Entry) throws -> (ExportDocument.Entry, String) {
        let text = ICalWriter().calendar([e])
        let again = try #require(try reader.items(Array(text.utf8)).first).entry
        return (again, text)
    }

    /// The VALARMs are the ones tasks.org writes (tasks/tasks,
    /// app/src/test/java/org/tasks/caldav/extensions/VAlarmTests.kt: RELATED=START, RELATED=END,
    /// and REPEAT/DURATION nagging), each given an RFC 9074 UID; the EMAIL alarm is Thunderbird's
    /// default (mozilla comm-central calendar/test/unit/test_calitiparser.js).
    static let tasksOrg = [
        "BEGIN:VTODO", "UID:tasks-org-1", "SUMMARY:牛乳を買う", "DTSTART:20261210T090000Z", "DUE:20261210T120000Z",
        "BEGIN:VALARM", "TRIGGER;RELATED=START:-PT1H15M", "ACTION:DISPLAY", "DESCRIPTION:Default Tasks.org description",
        "UID:A1", "END:VALARM",
        "BEGIN:VALARM", "TRIGGER;RELATED=END:-PT1H15M", "ACTION:DISPLAY", "DESCRIPTION:Default Tasks.org description",
        "UID:A2", "END:VALARM",
        "BEGIN:VALARM", "TRIGGER;RELATED=START:P1DT8H", "ACTION:DISPLAY", "DESCRIPTION:Default Tasks.org description",
        "REPEAT:15", "DURATION:PT15M", "UID:A3", "END:VALARM",
        "BEGIN:VALARM", "ACTION:EMAIL", "TRIGGER;VALUE=DURATION:-PT20M", "SUMMARY:Default Mozilla Summary",
        "DESCRIPTION:Default Mozilla Description", "END:VALARM",
        "END:VTODO"
    ]

    @Test func threeAlarmsAreThreeAlarmsWithTheirUIDs() throws {
        let e = try Self.entry(Self.tasksOrg)
        let alarms = try #require(e.alarms)
        #expect(alarms.count == 4)
        #expect(alarms.prefix(3).map(\.uid) == ["A1", "A2", "A3"])
        #expect(alarms[0].trigger == .start(-75 * 60_000_000))
        #expect(alarms[1].trigger == .due(-75 * 60_000_000))
        #expect(alarms[2].trigger == .start((32 * 3600) * 1_000_000))
        #expect(alarms[2].repeatCount == 15 && alarms[2].intervalUsec == 15 * 60_000_000)
        #expect(alarms.prefix(3).allSatisfy { $0.acts })
        #expect(e.remind == Instant(rfc3339: "2026-12-10T07:45:00Z"))
        // The e-mail alarm: kept whole, never fired.
        #expect(!alarms[3].acts)
        #expect(alarms[3].ical == Self.tasksOrg[25...30].joined(separator: "\n"))
        // A made UID is the same on every read.
        let reread = try Self.entry(Self.tasksOrg)
        #expect(reread.alarms?[3].uid == alarms[3].uid)
    }

    @Test func writtenAndReadAgainIdentical() throws {
        let e = try Self.entry(Self.tasksOrg)
        let (again, text) = try Self.roundTrip(e)
        #expect(again.alarms == e.alarms)
        #expect(again.remind == e.remind)
        let third = try Self.roundTrip(again)
        #expect(third.1 == text)
        // Each alarm one VALARM, in order, in the form it came; the e-mail one byte for byte.
        let lines = text.split(separator: "\r\n").map(String.init)
        #expect(
            lines.filter { $0.hasPrefix("TRIGGER") } == [
                "TRIGGER;RELATED=START:-PT1H15M", "TRIGGER;RELATED=END:-PT1H15M",
                "TRIGGER;RELATED=START:P1DT8H", "TRIGGER;VALUE=DURATION:-PT20M"
            ])
        #expect(lines.filter { $0.hasPrefix("UID:A") } == ["UID:A1", "UID:A2", "UID:A3"])
        #expect(text.contains(Self.tasksOrg[25...30].joined(separator: "\r\n")))
        #expect(text.contains("REPEAT:15\r\nDURATION:PT15M\r\n"))
        #expect(text.contains("DESCRIPTION:Default Tasks.org description"))
    }

    /// Thunderbird keeps dismissal and snooze on the todo (tasks/tasks,
    /// app/src/androidTest/java/org/tasks/opentasks/OpenTasksPropertiesTests.kt, `SNOOZED`), here
    /// with the alarm Thunderbird writes for "at the start".
    @Test func thunderbirdLastAckAndSnooze() throws {
        let e = try Self.entry([
            "BEGIN:VTODO", "CREATED:20210210T151826Z", "LAST-MODIFIED:20210210T152235Z", "DTSTAMP:20210210T152235Z",
            "UID:4CBBC669-70E3-474D-A0A3-0FC42A14A5A5", "SUMMARY:Test snooze", "STATUS:NEEDS-ACTION",
            "X-MOZ-LASTACK:20210210T152235Z", "DTSTART:20210210T151900Z", "DUE:20210210T151900Z",
            "X-MOZ-SNOOZE-TIME:20210210T155235Z", "X-MOZ-GENERATION:1",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION:PT0S", "DESCRIPTION:Default Mozilla Description",
            "END:VALARM", "END:VTODO"
        ])
        let alarm = try #require(e.alarms?.first)
        #expect(alarm.acknowledged == Instant(rfc3339: "2021-02-10T15:22:35Z"))
        #expect(alarm.snoozedUntil == Instant(rfc3339: "2021-02-10T15:52:35Z"))
        #expect(e.remind == Instant(rfc3339: "2021-02-10T15:52:35Z"))
        // Written with the snooze as an RFC 9074 snooze alarm; read again the same.
        let (again, text) = try Self.roundTrip(e)
        #expect(text.contains("RELATED-TO;RELTYPE=SNOOZE:" + alarm.uid))
        #expect(text.contains("ACKNOWLEDGED:20210210T152235Z"))
        #expect(again.alarms == e.alarms)
    }

    /// An RFC 9074 snooze alarm is the snooze of the alarm it names, not an alarm of its own.
    @Test func rfc9074SnoozeAlarm() throws {
        let e = try Self.entry([
            "BEGIN:VTODO", "UID:t", "SUMMARY:t", "DUE:20261210T120000Z",
            "BEGIN:VALARM", "UID:first", "ACTION:DISPLAY", "TRIGGER:-PT1H", "ACKNOWLEDGED:20261210T110100Z",
            "END:VALARM",
            "BEGIN:VALARM", "UID:second", "ACTION:AUDIO", "TRIGGER;RELATED=END:PT0S", "END:VALARM",
            "BEGIN:VALARM", "UID:snz", "ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:20261210T111000Z",
            "RELATED-TO;RELTYPE=SNOOZE:first", "END:VALARM", "END:VTODO"
        ])
        let alarms = try #require(e.alarms)
        #expect(alarms.map(\.uid) == ["first", "second"])
        #expect(alarms[0].snoozedUntil == Instant(rfc3339: "2026-12-10T11:10:00Z"))
        #expect(e.remind == Instant(rfc3339: "2026-12-10T11:10:00Z"))
        let (again, text) = try Self.roundTrip(e)
        #expect(again.alarms == alarms)
        #expect(text.contains("ACTION:AUDIO"))
    }

    /// Apple Reminders' location alarm (tasks/tasks, app/src/test/resources/apple/geofence_arrival.txt)
    /// is kept and travels unchanged.
    @Test func aLocationAlarmTravelsUnchanged() throws {
        let alarm = [
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z",
            "UID:9EF67428-7209-4EA4-9029-4049F577F4FF", "X-APPLE-PROXIMITY:ARRIVE",
            "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS=1600 Amphitheatre Pkwy\\\\nMountain View CA 94043\\\\nUnited States;X-APPLE-RADIUS=141.1748408176572;X-APPLE-REFERENCEFRAME=1;X-TITLE=Google Mountain View - Headquarters:geo:37.422338,-122.084370",
            "X-WR-ALARMUID:9EF67428-7209-4EA4-9029-4049F577F4FF", "END:VALARM"
        ]
        let e = try Self.entry(
            [
                "BEGIN:VTODO", "CREATED:20220119T050820Z", "STATUS:NEEDS-ACTION", "SUMMARY:Test",
                "UID:5F1A1AD2-6412-4F61-AE56-7D0EE8CE4CE5"
            ] + alarm + ["END:VTODO"])
        let kept = try #require(e.alarms?.first)
        #expect(kept.uid == "9EF67428-7209-4EA4-9029-4049F577F4FF" && !kept.acts)
        #expect(e.remind == nil)
        let (again, text) = try Self.roundTrip(e)
        #expect(again.alarms == e.alarms)
        #expect(text.replacingOccurrences(of: "\r\n ", with: "").contains(alarm.joined(separator: "\r\n")))
    }
}
