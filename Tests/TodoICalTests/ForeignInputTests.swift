import Foundation
import Testing
import TodoCore
import TodoTime

@testable import TodoICal

/// What other clients and servers write, read as they mean it: values that could overflow,
/// imperfect files, instances edited elsewhere, acknowledged alarms, and what must go back out
/// as it came.
@Suite struct ForeignInputTests {
    static let reader = ICalReader(zone: .utc, zoneName: "UTC", now: Instant(rfc3339: "2026-12-01T09:00:00Z")!)

    static func file(_ todo: [String], extra: [String] = []) -> [UInt8] {
        Array(
            (["BEGIN:VCALENDAR", "VERSION:2.0"] + extra + ["BEGIN:VTODO"] + todo + ["END:VTODO", "END:VCALENDAR"])
                .joined(separator: "\r\n").appending("\r\n").utf8)
    }

    static func entry(_ todo: [String], extra: [String] = []) throws -> ExportDocument.Entry {
        try #require(try reader.items(file(todo, extra: extra)).first).entry
    }

    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    /// Durations far past the span of the years 0001 to 9999 (a part repeated, every unit at its
    /// largest) are read without trapping: the alarm cannot be placed and is kept as it came.
    @Test(arguments: [
        "-P999999999D", "P999999999W", "-P999999999W999999999D", "-PT999999999H999999999M999999999S",
        "P" + String(repeating: "999999999W", count: 40)
    ])
    func hugeDurationsAreKeptNotTrapped(_ duration: String) throws {
        let e = try Self.entry([
            "UID:x", "SUMMARY:t", "DUE:20261201T090000Z", "BEGIN:VALARM", "ACTION:DISPLAY",
            "TRIGGER:" + duration, "END:VALARM"
        ])
        #expect(e.remind == nil)
        #expect(e.alarms?.first?.ical?.contains("TRIGGER:" + duration) == true)
        #expect(ICalDuration.parse(duration).map { abs($0) <= ICalDuration.maximumSeconds } == true)
    }

    /// A UTC offset of a day or more (or 60 minutes) is refused with its line, not computed with.
    @Test func badOffsetsAreRefusedWithTheirLine() {
        let zone = [
            "BEGIN:VTIMEZONE", "TZID:Custom", "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+9999",
            "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE"
        ]
        #expect(throws: ICalError(line: 7, "TZOFFSETFROM: \"+9999\" is not a UTC offset (+HHMM)")) {
            try Self.reader.items(Self.file(["UID:x", "SUMMARY:t", "DUE;TZID=Custom:20261201T090000"], extra: zone))
        }
    }

    /// A TZID naming a fixed offset with no VTIMEZONE (Radicale's vobject stores a Python time
    /// with a fixed offset as `TZID="UTC+09:00"`) is read as that offset; a name that only looks
    /// like one is still refused with its line.
    @Test func fixedOffsetTZIDsAreReadAsTheirOffset() throws {
        let cases = [
            ("\"UTC+09:00\"", "2026-12-07T00:05:00Z"),
            ("UTC-0500", "2026-12-07T14:05:00Z"), ("GMT+9", "2026-12-07T00:05:00Z"),
            ("\"UTC+05:30\"", "2026-12-07T03:35:00Z")
        ]
        for (tzid, instant) in cases {
            let e = try Self.entry([
                "UID:x", "SUMMARY:t", "STATUS:COMPLETED",
                "COMPLETED;TZID=\(tzid);X-VOBJ-FLOATINGTIME-ALLOWED=TRUE:20261207T090500"
            ])
            #expect(e.completed == Self.at(instant), "\(tzid)")
        }
        for tzid in ["\"UTC+25:00\"", "\"UTC+9:0\"", "UTC+", "\"UTCX+09:00\""] {
            #expect(throws: ICalError.self, "\(tzid)") {
                try Self.reader.items(Self.file(["UID:x", "SUMMARY:t", "DUE;TZID=\(tzid):20261201T090000"]))
            }
        }
    }

    /// Synology's `PERCENT_COMPLETE`, a VTODO without SUMMARY, an empty PRIORITY and STATUS: read.
    /// The untitled todo is written back without a SUMMARY (nothing invented), until it gets a title.
    @Test func imperfectFilesAreRead() throws {
        let e = try Self.entry(["UID:x", "PERCENT_COMPLETE:100", "PRIORITY:", "STATUS:"])
        #expect(e.title == ICalReader.untitled && e.done && e.priority == nil)
        let out = ICalWriter().vtodo(e, sortOrder: 1)
        #expect(!out.contains { $0.hasPrefix("SUMMARY") })
        #expect(!out.contains { $0.hasPrefix("!") })
        var titled = e
        titled.title = "Now it has one"
        #expect(ICalWriter().vtodo(titled, sortOrder: 1).contains("SUMMARY:Now it has one"))
        #expect(try Self.entry(["UID:y", "SUMMARY:t", "PERCENT_COMPLETE:40"]).ical == "PERCENT_COMPLETE:40")
    }

    /// A bare VTODO (no VCALENDAR around it, as icalendar's test files and some tools write) is
    /// read; one without UID gets one made from its lines, the same on every read, and two
    /// different ones get different uids.
    @Test func bareComponentsAndMissingUIDsAreRead() throws {
        let bare = try Self.reader.items(Array("BEGIN:VTODO\r\nUID:bare-1\r\nSUMMARY:裸のTODO\r\nEND:VTODO\r\n".utf8))
        #expect(bare.map(\.entry.uid) == ["bare-1"] && bare.first?.entry.title == "裸のTODO")
        let noUID = Self.file(["SUMMARY:牛乳"])
        let other = Self.file(["SUMMARY:パン"])
        let first = try #require(try Self.entry(["SUMMARY:牛乳"]).uid)
        #expect(first.hasPrefix("todod-") && first.count == 22)
        #expect(try Self.reader.items(noUID).first?.entry.uid == first)
        #expect(try Self.reader.items(other).first?.entry.uid != first)
        let events = try Self.reader.file(Array("BEGIN:VEVENT\r\nUID:e\r\nSUMMARY:会議\r\nEND:VEVENT\r\n".utf8))
        #expect(events.items.isEmpty && events.skipped == ["VEVENT": 1])
    }

    /// Components that are not todos are counted, for the import report.
    @Test func eventsAreCounted() throws {
        let text =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:b\r\nEND:VEVENT\r\n"
            + "BEGIN:VJOURNAL\r\nUID:c\r\nEND:VJOURNAL\r\nEND:VCALENDAR\r\n"
        let file = try Self.reader.file(Array(text.utf8))
        #expect(file.items.isEmpty && file.skipped == ["VEVENT": 2, "VJOURNAL": 1])
    }

    /// RFC 9074: an ACKNOWLEDGED before the alarm's current trigger (the todo was rescheduled
    /// since) leaves the reminder pending; one at or after it means reminded.
    @Test func anAcknowledgementBeforeTheTriggerIsPending() throws {
        func todo(_ ack: String) throws -> ExportDocument.Entry {
            try Self.entry([
                "UID:x", "SUMMARY:t", "DUE:20261210T090000Z", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M",
                "ACKNOWLEDGED:" + ack, "END:VALARM"
            ])
        }
        let moved = try todo("20261201T084500Z")
        #expect(moved.remind == Self.at("2026-12-10T08:45:00Z") && moved.reminded == nil)
        #expect(try todo("20261210T084512Z").reminded == Self.at("2026-12-10T08:45:12Z"))
    }

    /// An all-day todo's reminder goes out as an instant, so a client that later gives the todo a
    /// time of day still reminds at the same moment.
    @Test func anAllDayReminderIsAnInstant() {
        let e = ExportDocument.Entry(
            title: "t", due: Self.at("2026-12-10T00:00:00Z"), remind: Self.at("2026-12-10T09:00:00Z"),
            created: Self.at("2026-12-01T00:00:00Z"), updated: Self.at("2026-12-01T00:00:00Z"), uid: "x",
            zone: "UTC", allDay: true)
        let out = ICalWriter().vtodo(e, sortOrder: 1)
        #expect(out.contains("TRIGGER;VALUE=DATE-TIME:20261210T090000Z"))
        #expect(!out.contains { $0.contains("RELATED=END") })
    }

    /// No property is written with an empty value (Cyrus refuses `X-TODOD-CATEGORY:` with 403):
    /// tags without a category say so with a value; an old empty line still reads as none.
    @Test func noEmptyValueIsWritten() throws {
        let e = ExportDocument.Entry(
            title: "t", created: Self.at("2026-12-01T00:00:00Z"), updated: Self.at("2026-12-01T00:00:00Z"),
            uid: "x", tags: ["home", "急ぎ"])
        let out = ICalWriter().vtodo(e, sortOrder: 1)
        for line in out {
            let value = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).last ?? ""
            #expect(!value.trimmingCharacters(in: .whitespaces).isEmpty, "\(line)")
        }
        let back = try #require(try Self.reader.items(Array(ICalWriter().calendar([e]).utf8)).first).entry
        #expect(back.category == nil && back.tags == ["home", "急ぎ"])
        let old = try Self.entry(["UID:x", "SUMMARY:t", "CATEGORIES:home,work", "X-TODOD-CATEGORY:"])
        #expect(old.category == nil && old.tags == ["home", "work"])
    }

    /// CATEGORIES values go back out as they came (`Home Office`, `a\,b`), also when a server
    /// splits them into one line each; a tag added here is written as it is.
    @Test func categoriesAreWrittenBackAsTheyCame() throws {
        for lines in [
            ["CATEGORIES:Work,Home Office,a\\,b"], ["CATEGORIES:Work", "CATEGORIES:Home Office", "CATEGORIES:a\\,b"]
        ] {
            var e = try Self.entry(["UID:x", "SUMMARY:t"] + lines)
            #expect(e.category == "Work" && e.tags == ["Home-Office", "a-b"])
            #expect(ICalWriter().vtodo(e, sortOrder: 1).contains("CATEGORIES:Work,Home Office,a\\,b"))
            e.tags.append("new")
            #expect(ICalWriter().vtodo(e, sortOrder: 1).contains("CATEGORIES:Work,Home Office,a\\,b,new"))
        }
    }

    /// Thunderbird completes one instance of a recurring todo with a second VTODO (same UID,
    /// RECURRENCE-ID). It is one todo, not due at the completed instance but at the next, and
    /// written back with every component.
    @Test func anInstanceCompletedElsewhereIsKept() throws {
        let text = """
            BEGIN:VCALENDAR\r
            BEGIN:VTODO\r
            UID:weekly@thunderbird\r
            SUMMARY:Report\r
            DUE:20261207T090000Z\r
            RRULE:FREQ=WEEKLY\r
            END:VTODO\r
            BEGIN:VTODO\r
            UID:weekly@thunderbird\r
            RECURRENCE-ID:20261207T090000Z\r
            SUMMARY:Report\r
            STATUS:COMPLETED\r
            COMPLETED:20261207T100000Z\r
            END:VTODO\r
            END:VCALENDAR\r

            """
        let items = try Self.reader.items(Array(text.utf8))
        #expect(items.count == 1)
        let e = try #require(items.first).entry
        #expect(e.due == Self.at("2026-12-14T09:00:00Z") && !e.done)
        let out = ICalWriter().vtodo(e, sortOrder: 1)
        #expect(out.filter { $0 == "BEGIN:VTODO" }.count == 2)
        #expect(out.contains("RECURRENCE-ID:20261207T090000Z") && out.contains("COMPLETED:20261207T100000Z"))
        // Read again: the same todo (stable, so sync sends nothing more).
        let again = try #require(try Self.reader.items(Array(ICalWriter().calendar([e]).utf8)).first).entry
        #expect(again.due == e.due && again.ical == e.ical)
    }

    /// A VTODO with two UIDs (invalid) is its first UID's todo, the one its instances are grouped
    /// by, and reads again as the same todo (found by `todofuzz --ical`, seed 6775755394819072423:
    /// the second UID won, the instance became a todo of its own and the copy was refused).
    @Test func aSecondUIDIsDropped() throws {
        let text = """
            BEGIN:VCALENDAR\r
            BEGIN:VTODO\r
            UID:first\r
            SUMMARY:Report\r
            DUE:20261207T090000Z\r
            RRULE:FREQ=WEEKLY\r
            UID;X-A=b:second\r
            END:VTODO\r
            BEGIN:VTODO\r
            UID:first\r
            RECURRENCE-ID:20261207T090000Z\r
            SUMMARY:Report\r
            STATUS:COMPLETED\r
            PRIORITY:99\r
            END:VTODO\r
            END:VCALENDAR\r

            """
        let items = try Self.reader.items(Array(text.utf8))
        let e = try #require(items.first).entry
        #expect(items.count == 1 && e.uid == "first")
        let out = ICalWriter().calendar([e])
        #expect(!out.contains("second"))
        let again = try Self.reader.items(Array(out.utf8))
        #expect(again.count == 1 && again.first?.entry.uid == "first" && again.first?.entry.ical == e.ical)
    }

    /// What servers rewrite reads as the same todo: RRULE parts in another order, CATEGORIES one
    /// line per value, empty properties dropped, CLASS:PUBLIC added, another DTSTAMP, other folds.
    @Test func rewrittenCopiesReadTheSame() throws {
        let ours = try Self.entry([
            "UID:x", "SUMMARY:A long title that is folded somewhere else by the server", "DUE:20261201T090000Z",
            "CATEGORIES:Work,home", "RRULE:FREQ=WEEKLY;BYDAY=MO,TH;INTERVAL=2", "LOCATION:",
            "LAST-MODIFIED:20261130T000000Z",
            "DTSTAMP:20261130T000000Z", "X-FOO:bar"
        ])
        let theirs = try Self.entry([
            "UID:x", "SUMMARY:A long title that is folded some", " where else by the server", "DUE:20261201T090000Z",
            "CATEGORIES:Work", "CATEGORIES:home", "RRULE:INTERVAL=2;BYDAY=MO,TH;FREQ=WEEKLY", "CLASS:PUBLIC",
            "LAST-MODIFIED:20261130T000000Z", "DTSTAMP:20261201T120000Z", "X-FOO:bar"
        ])
        #expect(ours == theirs)
    }
}
