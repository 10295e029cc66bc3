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
    static let thunderbirdSnoozed = [
        "BEGIN:VTODO", "CREATED:20210210T151826Z", "LAST-MODIFIED:20210210T152235Z", "DTSTAMP:20210210T152235Z",
        "UID:4CBBC669-70E3-474D-A0A3-0FC42A14A5A5", "SUMMARY:Test snooze", "STATUS:NEEDS-ACTION",
        "X-MOZ-LASTACK:20210210T152235Z", "DTSTART:20210210T151900Z", "DUE:20210210T151900Z",
        "X-MOZ-SNOOZE-TIME:20210210T155235Z", "X-MOZ-GENERATION:1",
        "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION:PT0S", "DESCRIPTION:Default Mozilla Description",
        "END:VALARM", "END:VTODO"
    ]

    @Test func thunderbirdLastAckAndSnooze() throws {
        let e = try Self.entry(Self.thunderbirdSnoozed)
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

    /// The entry of a VTODO written by todod.
    static func read(_ text: String) throws -> ExportDocument.Entry {
        try #require(try reader.items(Array(text.utf8)).first).entry
    }

    /// Dismissed here as `store.acknowledgeAlarm` does: acknowledged now, its snooze gone.
    static func dismissed(_ e: ExportDocument.Entry, at now: Instant) -> ExportDocument.Entry {
        var e = e
        e.alarms?[0].acknowledged = now
        e.alarms?[0].snoozedUntil = nil
        e.reminded = now
        return e
    }

    /// The unfolded lines of `text` whose name starts with `prefix`.
    static func lines(_ text: String, _ prefix: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").split(separator: "\r\n").map(String.init).filter {
            $0.hasPrefix(prefix)
        }
    }

    /// Thunderbird snoozed the todo (tasks.org's `SNOOZED` VTODO); dismissed here, the VTODO says
    /// so in Thunderbird's terms too: `X-MOZ-LASTACK` is the dismissal and the snooze is gone (as
    /// Thunderbird's own dismissal does, calAlarmService.js), so Thunderbird, where a snooze wins
    /// over an earlier acknowledgement, does not show it again. Snoozed here: the snooze.
    @Test func dismissedOrSnoozedHereReadsSoInThunderbird() throws {
        let now = try #require(Instant(rfc3339: "2021-02-10T15:40:00Z"))
        let e = Self.dismissed(try Self.entry(Self.thunderbirdSnoozed), at: now)
        let text = ICalWriter().calendar([e])
        #expect(Self.lines(text, "X-MOZ-") == ["X-MOZ-LASTACK:20210210T154000Z", "X-MOZ-GENERATION:1"])
        #expect(!text.contains("RELTYPE=SNOOZE"))
        let again = try Self.read(text)
        #expect(again.alarms?[0].acknowledged == now && again.alarms?[0].snoozedUntil == nil)
        #expect(again.reminded == now)
        #expect(ICalWriter().calendar([again]) == text)

        // Then snoozed here (`todoctl snooze`: the reminder moved to an instant no alarm fires at).
        var snoozed = again
        let until = try #require(Instant(rfc3339: "2021-02-10T16:00:00Z"))
        snoozed.remind = until
        snoozed.reminded = nil
        snoozed.updated = try #require(Instant(rfc3339: "2021-02-10T15:45:00Z"))
        let snoozedText = ICalWriter().calendar([snoozed])
        // Acknowledged when snoozed, as Thunderbird's snooze does.
        #expect(
            Self.lines(snoozedText, "X-MOZ-") == [
                "X-MOZ-LASTACK:20210210T154500Z", "X-MOZ-GENERATION:1", "X-MOZ-SNOOZE-TIME:20210210T160000Z"
            ])
        let read = try Self.read(snoozedText)
        #expect(read.remind == until && read.reminded == nil)
        #expect(read.alarms?[0].snoozedUntil == until)

        // Snoozed as the store snoozes the alarm that fired: acknowledged then, snoozed until.
        var alarmSnoozed = again
        let at = try #require(Instant(rfc3339: "2021-02-10T15:50:00Z"))
        alarmSnoozed.alarms?[0].acknowledged = at
        alarmSnoozed.alarms?[0].snoozedUntil = until
        alarmSnoozed.remind = until
        alarmSnoozed.reminded = nil
        let alarmSnoozedText = ICalWriter().calendar([alarmSnoozed])
        #expect(
            Self.lines(alarmSnoozedText, "X-MOZ-") == [
                "X-MOZ-LASTACK:20210210T155000Z", "X-MOZ-GENERATION:1", "X-MOZ-SNOOZE-TIME:20210210T160000Z"
            ])
        #expect(try Self.read(alarmSnoozedText).alarms == alarmSnoozed.alarms)
    }

    /// A VTODO Thunderbird wrote (an `X-MOZ-` property) gains `X-MOZ-LASTACK` when an alarm is
    /// dismissed here; one from another client gains no `X-MOZ-` property.
    @Test func lastAckIsAddedOnlyToThunderbirdTodos() throws {
        // tasks/tasks app/src/test/resources/thunderbird/reminder_before_end.txt, with a DUE.
        let thunderbird = [
            "BEGIN:VTODO", "CREATED:20220121T054934Z", "LAST-MODIFIED:20220121T055751Z", "DTSTAMP:20220121T055751Z",
            "UID:5b3a42d5-e99c-2f47-87d5-8ba0e2b753ab", "SUMMARY:Test", "PERCENT-COMPLETE:0", "X-MOZ-GENERATION:2",
            "SEQUENCE:1", "DUE:20220122T090000Z", "BEGIN:VALARM", "ACTION:DISPLAY",
            "TRIGGER;VALUE=DURATION;RELATED=END:-PT15M", "DESCRIPTION:Default Mozilla Description", "END:VALARM",
            "END:VTODO"
        ]
        let now = try #require(Instant(rfc3339: "2022-01-22T08:46:00Z"))
        let text = ICalWriter().calendar([Self.dismissed(try Self.entry(thunderbird), at: now)])
        #expect(Self.lines(text, "X-MOZ-") == ["X-MOZ-GENERATION:2", "X-MOZ-LASTACK:20220122T084600Z"])
        #expect(ICalWriter().calendar([try Self.read(text)]) == text)
        let other = ICalWriter().calendar([Self.dismissed(try Self.entry(Self.tasksOrg), at: now)])
        #expect(Self.lines(other, "X-MOZ-").isEmpty)
        #expect(other.contains("ACKNOWLEDGED:20220122T084600Z"))
    }

    /// A recurring todo of Thunderbird (tasks/tasks app/src/test/resources/thunderbird/
    /// completed_repeating_task.txt: daily at 17:00 in Chicago, the first occurrence completed),
    /// given an alarm 15 minutes before and snoozed at its current occurrence as Thunderbird
    /// writes it: `X-MOZ-SNOOZE-TIME-<RECURRENCE-ID in microseconds>` (calAlarmService.js,
    /// `recurrenceId.nativeTime`), beside a stale one of the completed occurrence.
    static func thunderbirdRecurring(snoozeKey: String) -> [String] {
        [
            "BEGIN:VTODO", "CREATED:20201220T220126Z", "LAST-MODIFIED:20201220T220139Z", "DTSTAMP:20201220T220139Z",
            "UID:e0600bbe-b9d0-ba48-80b0-998409625d03", "SUMMARY:Recurring", "RRULE:FREQ=DAILY",
            "DTSTART;TZID=America/Chicago:20201220T170000", "DUE;TZID=America/Chicago:20201220T170000",
            "X-MOZ-GENERATION:1", "X-MOZ-LASTACK:20201221T225000Z",
            "X-MOZ-SNOOZE-TIME-\(snoozeKey):20201221T231000Z", "X-MOZ-SNOOZE-TIME-1608505200000000:20201220T231000Z",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION:-PT15M",
            "DESCRIPTION:Default Mozilla Description", "END:VALARM", "END:VTODO",
            "BEGIN:VTODO", "CREATED:20201220T220135Z", "LAST-MODIFIED:20201220T220139Z", "DTSTAMP:20201220T220139Z",
            "UID:e0600bbe-b9d0-ba48-80b0-998409625d03", "SUMMARY:Recurring", "STATUS:COMPLETED",
            "RECURRENCE-ID;TZID=America/Chicago:20201220T170000", "DTSTART;TZID=America/Chicago:20201220T170000",
            "DUE;TZID=America/Chicago:20201220T170000", "COMPLETED:20201220T220139Z", "PERCENT-COMPLETE:100",
            "SEQUENCE:1", "END:VTODO"
        ]
    }

    @Test(arguments: ["1608591600000000", "20201221T230000Z"])
    func thunderbirdSnoozeOfTheCurrentOccurrence(key: String) throws {
        let e = try Self.entry(Self.thunderbirdRecurring(snoozeKey: key))
        // At the second occurrence (the first was completed in Thunderbird): 23:00 UTC.
        #expect(e.due == Instant(rfc3339: "2020-12-21T23:00:00Z"))
        let alarm = try #require(e.alarms?.first)
        #expect(alarm.acknowledged == Instant(rfc3339: "2020-12-21T22:50:00Z")) // its 22:45 dismissed
        #expect(alarm.snoozedUntil == Instant(rfc3339: "2020-12-21T23:10:00Z"))
        #expect(e.remind == Instant(rfc3339: "2020-12-21T23:10:00Z"))
        // Written back in the form it came, the stale one as it was; read again the same.
        let text = ICalWriter().calendar([e])
        #expect(
            Self.lines(text, "X-MOZ-SNOOZE-TIME") == [
                "X-MOZ-SNOOZE-TIME-\(key):20201221T231000Z", "X-MOZ-SNOOZE-TIME-1608505200000000:20201220T231000Z"
            ])
        // (Its VALARM has no UID: the one made for it follows the trigger, now written RELATED=END.)
        let reread = try #require(try Self.read(text).alarms?.first)
        #expect(reread.acknowledged == alarm.acknowledged && reread.snoozedUntil == alarm.snoozedUntil)
        // Dismissed here: that occurrence's snooze is gone, the acknowledgement is the dismissal.
        let now = try #require(Instant(rfc3339: "2020-12-21T23:12:00Z"))
        let dismissedText = ICalWriter().calendar([Self.dismissed(e, at: now)])
        #expect(
            Self.lines(dismissedText, "X-MOZ-SNOOZE-TIME") == ["X-MOZ-SNOOZE-TIME-1608505200000000:20201220T231000Z"])
        #expect(Self.lines(dismissedText, "X-MOZ-LASTACK") == ["X-MOZ-LASTACK:20201221T231200Z"])
        let read = try Self.read(dismissedText)
        #expect(read.alarms?[0].snoozedUntil == nil && read.reminded == now)
    }

    /// Snoozed here, a recurring todo's snooze is written under its occurrence's name, a date's at
    /// its UTC midnight, as Thunderbird names it.
    @Test func snoozedHereOnARecurringAllDayTodo() throws {
        var e = try Self.entry([
            "BEGIN:VTODO", "UID:allday", "SUMMARY:毎日", "DTSTART;VALUE=DATE:20261207", "DUE;VALUE=DATE:20261207",
            "RRULE:FREQ=DAILY", "X-MOZ-GENERATION:1", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:PT9H",
            "END:VALARM", "END:VTODO"
        ])
        // Its alarm (09:00 in Tokyo) fired, then it was snoozed at 09:05 for 25 minutes.
        let until = try #require(Instant(rfc3339: "2026-12-07T00:30:00Z"))
        e.remind = until
        e.updated = try #require(Instant(rfc3339: "2026-12-07T00:05:00Z"))
        let text = ICalWriter().calendar([e])
        #expect(
            Self.lines(text, "X-MOZ-") == [
                "X-MOZ-GENERATION:1", "X-MOZ-LASTACK:20261207T000500Z",
                "X-MOZ-SNOOZE-TIME-1796601600000000:20261207T003000Z"
            ])
        let read = try Self.read(text)
        #expect(read.remind == until && read.alarms?[0].snoozedUntil == until)
    }

    /// An alarm set here as an instant (`--remind "tomorrow 9am"`) on a timed todo is written
    /// relative to the due: the store keeps an instant's lead time when the due moves, so another
    /// client moving the due moves the alarm as well. An absolute trigger that came so (Apple's,
    /// Thunderbird's) stays absolute, written back as it came, and stays put when the due moves.
    @Test func anInstantSetHereFollowsTheDueOneThatCameAbsoluteStays() throws {
        let at = try #require(Instant(rfc3339: "2026-12-10T00:00:00Z"))
        var e = try Self.entry(["BEGIN:VTODO", "UID:i", "SUMMARY:書類", "DUE:20261210T090000Z", "END:VTODO"])
        e.alarms = [Alarm(uid: "a1", trigger: .at(at))]
        e.remind = at
        let text = ICalWriter().calendar([e])
        #expect(Self.lines(text, "TRIGGER") == ["TRIGGER;RELATED=END:-PT9H"])
        let again = try Self.read(text)
        #expect(again.alarms?.map(\.trigger) == [.due(-9 * 3_600_000_000)] && again.remind == at)
        let moved = try Self.read(Self.dueMovedADay(text))
        #expect(moved.remind == at.adding(usec: 86_400_000_000))

        let absolute = [
            "BEGIN:VTODO", "UID:j", "SUMMARY:書類", "DUE:20261210T090000Z", "BEGIN:VALARM", "UID:a2",
            "ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:20261210T000000Z", "END:VALARM", "END:VTODO"
        ]
        let came = try Self.entry(absolute)
        #expect(came.alarms?.map(\.trigger) == [.at(at)])
        let written = ICalWriter().calendar([came])
        #expect(Self.lines(written, "TRIGGER") == ["TRIGGER;VALUE=DATE-TIME:20261210T000000Z"])
        let movedThere = try Self.read(Self.dueMovedADay(written))
        #expect(movedThere.alarms?[0].trigger == .at(at) && movedThere.remind == at)
    }

    /// A VALARM without UID (Thunderbird writes none) gets a uid made from its place, action and
    /// trigger: written back unchanged it still has none; its trigger changed here, it is written
    /// with that uid, so the next read finds the same alarm (it had been given another).
    @Test func anAlarmWithoutUIDKeepsItsMadeUIDWhenChangedHere() throws {
        let came = try Self.entry([
            "BEGIN:VTODO", "UID:t", "SUMMARY:会議の準備", "DUE:20261210T090000Z", "BEGIN:VALARM", "ACTION:DISPLAY",
            "TRIGGER;RELATED=END:-PT15M", "DESCRIPTION:会議の準備", "END:VALARM", "END:VTODO"
        ])
        let uid = try #require(came.alarms?.first?.uid)
        #expect(uid.hasPrefix("todod-"))
        let unchanged = ICalWriter().calendar([came])
        #expect(Self.lines(unchanged, "UID:") == ["UID:t"], "\(unchanged)")
        #expect(try Self.read(unchanged).alarms?.first?.uid == uid)
        var changed = came
        changed.alarms?[0].trigger = .due(-1_800_000_000)
        let written = ICalWriter().calendar([changed])
        #expect(Self.lines(written, "UID:") == ["UID:t", "UID:" + uid], "\(written)")
        let again = try Self.read(written)
        #expect(again.alarms?.map(\.uid) == [uid] && again.alarms?.first?.trigger == .due(-1_800_000_000))
    }

    /// `text` with its DUE a day later (another client moved it), in whatever form it is written.
    static func dueMovedADay(_ text: String) -> String {
        let lines = text.components(separatedBy: "\r\n").map { line in
            line.hasPrefix("DUE") ? line.replacingOccurrences(of: "20261210T", with: "20261211T") : line
        }
        #expect(lines.contains { $0.hasPrefix("DUE") && $0.contains("20261211T") })
        return lines.joined(separator: "\r\n")
    }
}
