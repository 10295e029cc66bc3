import Foundation
import FoundationEssentials
import Testing
import TodoCore
import TodoTime

@testable import TodoICal

/// Zones as other clients need them: a zoned todo is written `DUE;TZID=...` with a VTIMEZONE
/// generated from the tz database, which a reader without the tz database follows to the same
/// instants across every DST change; Windows zone names and VTIMEZONEs of custom names travel.
@Suite struct ZoneWritingTests {
    static let now = Instant(rfc3339: "2026-12-01T09:00:00Z")!
    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }
    /// A reader on a machine without the tz database: every TZID is what the file's VTIMEZONE says.
    static let bare = ICalReader(zone: .utc, zoneName: nil, tzdir: "/nonexistent/zoneinfo", now: now)
    static let reader = ICalReader(zone: ZoneInfo(identifier: "Asia/Tokyo")!, zoneName: "Asia/Tokyo", now: now)

    static func file(_ lines: [String], zones: [String] = []) -> [UInt8] {
        Array(
            (["BEGIN:VCALENDAR", "VERSION:2.0"] + zones + ["BEGIN:VTODO"] + lines + ["END:VTODO", "END:VCALENDAR", ""])
                .joined(separator: "\r\n").utf8)
    }

    @Test func aZonedTodoIsWrittenInItsZoneWithAVTIMEZONE() throws {
        let e = ExportDocument.Entry(
            title: "daily 09:00", due: Self.at("2026-12-01T08:00:00Z"), created: Self.now, updated: Self.now,
            uid: "berlin", zone: "Europe/Berlin", recurrence: TodoRecurrence(rule: "FREQ=DAILY", from: .due))
        let text = ICalWriter().calendar([e])
        #expect(text.contains("\r\nDUE;TZID=Europe/Berlin:20261201T090000\r\n"))
        #expect(!text.contains("X-TODOD-ZONE"))
        #expect(!text.contains("DUE:"))
        for line in [
            "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
            "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "BEGIN:STANDARD", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"
        ] {
            #expect(text.contains("\r\n" + line + "\r\n"), "\(line) missing")
        }
        // The VTIMEZONE comes before the todo, and a reader without the tz database reads the same instant.
        #expect(text.range(of: "BEGIN:VTIMEZONE")!.lowerBound < text.range(of: "BEGIN:VTODO")!.lowerBound)
        let back = try #require(try Self.bare.items(Array(text.utf8)).first).entry
        #expect(back.due == e.due)
        // With the tz database the zone comes back, and the file is the same when written again.
        let again = try #require(try Self.reader.items(Array(text.utf8)).first).entry
        #expect(again.zone == "Europe/Berlin")
        #expect(ICalWriter().calendar([again]) == text)
        // A recurring todo carries its anchor, DTSTART, at its due; read back, that one is implied (not kept).
        #expect(text.contains("\r\nDTSTART;TZID=Europe/Berlin:20261201T090000\r\n"))
        #expect(again.ical == nil)
        // An all-day todo keeps its zone as X-TODOD-ZONE (a date has no TZID); a todo without zone is in UTC.
        var allDay = e
        allDay.allDay = true
        #expect(ICalWriter().calendar([allDay]).contains("\r\nX-TODOD-ZONE:Europe/Berlin\r\n"))
        #expect(!ICalWriter().calendar([allDay]).contains("VTIMEZONE"))
        var utc = e
        utc.zone = nil
        #expect(ICalWriter().calendar([utc]).contains("\r\nDUE:20261201T080000Z\r\n"))
    }

    /// The generated VTIMEZONE against the tz database: every local time of a day across the
    /// years of the todos (09:00, the 02:30 of spring gaps and autumn overlaps, midnight), in
    /// zones with rules north and south, none, a 45-minute offset and a negative DST, reads as
    /// the same instant with only the VTIMEZONE as with the zone itself.
    @Test(arguments: [
        "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Tokyo", "America/Sao_Paulo",
        "Pacific/Chatham", "Asia/Kathmandu", "Europe/Dublin", "Africa/Casablanca", "America/Santiago"
    ])
    func generatedZonesAgreeWithTheDatabase(_ name: String) throws {
        let zone = try #require(ZoneInfo(identifier: name))
        let first = Self.at("2025-06-01T12:00:00Z")
        let last = Self.at("2027-06-01T12:00:00Z")
        let entries = [first, last].enumerated().map { i, due in
            ExportDocument.Entry(
                title: "t\(i)", due: due, created: Self.now, updated: Self.now, uid: "u\(i)", zone: name)
        }
        let text = ICalWriter().calendar(entries)
        let zones = try TimeZones(try Component.parse(Array(text.utf8)), tzdir: "/nonexistent/zoneinfo")
        #expect(zones.vtimezones[name] != nil)
        let startDay = LocalTime(first, in: zone).days - 365
        let endDay = LocalTime(last, in: zone).days + 365
        var disagreements: [String] = []
        for day in startDay...endDay {
            for second: Int64 in [0, 3_600, 9_000, 32_400, 82_800] {
                let expected = LocalTime.instant(days: day, secondOfDay: second, in: zone)
                let got = try zones.instant(days: day, second: second, tzid: name, line: 0)
                if got != expected {
                    disagreements.append(
                        "\(LocalTime.dateText(days: day)) \(second): \(got) != \(String(describing: expected))")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    /// A Windows zone name (as Outlook writes it, without VTIMEZONE) is its IANA zone; the kept
    /// DTSTART with that name gets a VTIMEZONE in todod's export, which imports again, also where
    /// there is no tz database.
    @Test func aWindowsZoneNameIsItsIANAZoneAndItsExportImportsAgain() throws {
        let bytes = Self.file([
            "UID:outlook", "SUMMARY:Quarterly report", "DTSTART;TZID=W. Europe Standard Time:20260710T090000",
            "DUE;TZID=W. Europe Standard Time:20260715T090000"
        ])
        let e = try #require(try Self.reader.items(bytes).first).entry
        #expect(e.zone == "Europe/Berlin")
        #expect(e.due == Self.at("2026-07-15T07:00:00Z"))
        let text = ICalWriter().calendar([e])
        #expect(text.contains("\r\nDTSTART;TZID=W. Europe Standard Time:20260710T090000\r\n"))
        #expect(text.contains("\r\nTZID:W. Europe Standard Time\r\n"))
        #expect(text.contains("\r\nTZID:Europe/Berlin\r\n"))
        let back = try #require(try Self.bare.items(Array(text.utf8)).first).entry
        #expect(back.due == e.due)
        #expect(try Self.reader.items(Array(text.utf8)).first?.entry == e)
    }

    /// A custom TZID that only its VTIMEZONE explains keeps that VTIMEZONE for the kept lines that
    /// use it; todod's export of it imports again to the same todo.
    @Test func aCustomZoneKeepsItsVTIMEZONE() throws {
        let custom = [
            "BEGIN:VTIMEZONE", "TZID:Mitteleuropa (Büro)", "BEGIN:STANDARD", "DTSTART:16011028T030000",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
            "BEGIN:DAYLIGHT", "DTSTART:16010325T020000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "TZOFFSETFROM:+0100",
            "TZOFFSETTO:+0200", "END:DAYLIGHT", "END:VTIMEZONE"
        ]
        let bytes = Self.file(
            [
                "UID:custom", "SUMMARY:Call", "DTSTART;TZID=\"Mitteleuropa (Büro)\":20260710T090000",
                "DUE;TZID=\"Mitteleuropa (Büro)\":20260715T090000"
            ], zones: custom)
        let e = try #require(try Self.reader.items(bytes).first).entry
        #expect(e.due == Self.at("2026-07-15T07:00:00Z"))
        let text = ICalWriter().calendar([e])
        #expect(text.contains("\r\nTZID:Mitteleuropa (Büro)\r\n"))
        #expect(text.contains("\r\nDTSTART;TZID=\"Mitteleuropa (Büro)\":20260710T090000\r\n"))
        let back = try #require(try Self.reader.items(Array(text.utf8)).first).entry
        #expect(back == e)
        #expect(ICalWriter().calendar([back]) == text)
        // A todo whose lines no longer use the zone does not carry its VTIMEZONE out.
        var plain = e
        plain.ical = e.ical?.split(separator: "\n").filter { !$0.hasPrefix("^") }.joined(separator: "\n")
        plain.start = nil
        #expect(!ICalWriter().calendar([plain]).contains("Mitteleuropa"))
    }

    /// A kept DTSTART moves with DUE (completing a recurring todo, rescheduling it), keeping the
    /// distance it was read at, in its own form; while DUE stays, it is written as it came.
    /// A DTSTART read is the todo's start, written as it came while the start is that; a start
    /// moved (the store moves it with DUE when a recurring todo is completed) is written in the
    /// line's own form.
    @Test func aStartIsWrittenInTheFormItCameIn() throws {
        for (line, moved) in [
            ("DTSTART;TZID=Europe/Berlin:20261207T090000", "DTSTART;TZID=Europe/Berlin:20261214T090000"),
            ("DTSTART:20261207T080000Z", "DTSTART:20261214T080000Z"),
            ("DTSTART;VALUE=DATE:20261207", "DTSTART;VALUE=DATE:20261214"),
            (
                "DTSTART;X-FOO=bar;TZID=W. Europe Standard Time:20261207T090000",
                "DTSTART;X-FOO=bar;TZID=W. Europe Standard Time:20261214T090000"
            )
        ] {
            let due = line.contains("VALUE=DATE") ? "DUE;VALUE=DATE:20261209" : "DUE;TZID=Europe/Berlin:20261209T170000"
            let e = try #require(
                try Self.reader.items(Self.file(["UID:s", "SUMMARY:Wochenbericht", line, due, "RRULE:FREQ=WEEKLY"]))
                    .first
            ).entry
            #expect(e.start != nil)
            #expect(ICalWriter().calendar([e]).contains("\r\n" + line + "\r\n"), "\(line) not as it came")
            var next = e
            next.due = e.due!.adding(usec: 7 * 86_400 * 1_000_000)
            next.start = e.start!.adding(usec: 7 * 86_400 * 1_000_000)
            let text = ICalWriter().calendar([next])
            #expect(text.contains("\r\n" + moved + "\r\n"), "\(line): \(text)")
            #expect(!text.contains(line + "\r\n"))
            #expect(
                text.components(separatedBy: "BEGIN:VTODO")[1].components(separatedBy: "\r\nDTSTART").count == 2,
                "one DTSTART")
            let back = try #require(try Self.reader.items(Array(text.utf8)).first).entry
            #expect(back.start == next.start && back.due == next.due)
        }
        // A start moved past what its line's form can say is written in DUE's form.
        var far = try #require(
            try Self.reader.items(
                Self.file([
                    "UID:f", "SUMMARY:t", "DTSTART;TZID=Europe/Berlin:20261207T090000",
                    "DUE;TZID=Europe/Berlin:20261209T170000"
                ])
            ).first
        ).entry
        far.start = Instant(seconds: 253_402_300_799) // 9999-12-31T23:59:59Z: the year 10000 in Berlin
        #expect(ICalWriter().calendar([far]).contains("\r\nDTSTART:99991231T235959Z\r\n"))
    }
}
