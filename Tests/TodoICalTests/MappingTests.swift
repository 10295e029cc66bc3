import Foundation
import Testing
import TodoCore
import TodoTime

@testable import TodoICal

/// The todo <-> VTODO mapping (SPEC §9): the writer against golden files, files written by other
/// programs (Golden/foreign, see its README), what is kept through a round trip, malformed files.
///
/// Update the golden files after a deliberate change with
///     TODOD_GOLDEN_UPDATE=1 swift test --filter MappingTests
@Suite struct MappingTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        .path
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo")!
    static let now = Instant(rfc3339: "2026-12-01T09:00:00Z")!
    static let reader = ICalReader(zone: tokyo, zoneName: "Asia/Tokyo", now: now)

    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: golden + "/" + path)))
    }

    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    /// A store's worth of todos using every mapped field.
    static let entries: [ExportDocument.Entry] = [
        ExportDocument.Entry(
            title: "請求書を送る, then file it; really", notes: "Line one\nLine two with \\ and ,;", category: "仕事",
            due: at("2026-12-03T00:00:00Z"), remind: at("2026-12-02T23:45:00Z"), created: at("2026-11-30T08:00:00Z"),
            updated: at("2026-12-01T08:30:00Z"), uid: "0b6a3c1e-5d2f-4e8a-9c7b-1f2e3d4c5b6a", priority: .high,
            tags: ["billing", "月末"], zone: "Asia/Tokyo"),
        ExportDocument.Entry(
            title: "Team lunch", due: at("2026-12-23T15:00:00Z"), created: at("2026-11-01T00:00:00Z"),
            updated: at("2026-11-02T00:00:00Z"), uid: "all-day@example.org", priority: .low, zone: "Asia/Tokyo",
            allDay: true),
        ExportDocument.Entry(
            title: "Water the plants", due: at("2026-12-05T00:00:00Z"), remind: at("2026-12-05T00:00:00Z"),
            reminded: at("2026-12-05T00:00:05Z"), created: at("2026-10-01T00:00:00Z"),
            updated: at("2026-11-28T00:00:10Z"),
            uid: "plants", priority: .medium, tags: ["home"], zone: "Europe/Berlin",
            recurrence: TodoRecurrence(rule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA", from: .completion)),
        ExportDocument.Entry(
            title: "Old thing", done: true, completed: at("2026-11-20T10:00:00Z"), created: at("2026-11-19T10:00:00Z"),
            updated: at("2026-11-20T10:00:00Z"), uid: "old-thing"),
        ExportDocument.Entry(
            title: "Wake-up call", remind: at("2026-12-10T21:00:00Z"), created: at("2026-12-01T00:00:00Z"),
            updated: at("2026-12-01T00:00:00Z"), uid: "wake", tags: ["tag-only"])
    ]

    /// The writer's output, byte for byte.
    @Test func writerGolden() throws {
        let text = ICalWriter().calendar(Self.entries)
        let path = Self.golden + "/ical/store.ics"
        if ProcessInfo.processInfo.environment["TODOD_GOLDEN_UPDATE"] != nil {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        let expected = String(decoding: try Self.bytes("ical/store.ics"), as: UTF8.self)
        #expect(text == expected)
        for line in text.split(separator: "\r\n") { #expect(line.utf8.count <= 75) }
    }

    /// Written and read back, every field is what it was (order from X-APPLE-SORT-ORDER); a
    /// dated todo without a zone gets the reader's.
    @Test func roundTrip() throws {
        let text = ICalWriter().calendar(Self.entries.reversed(), firstSortOrder: 1)
        let document = ICalReader.document(try Self.reader.items(Array(text.utf8)), exported: Self.now)
        // Each reminder is read back as its alarm (the entries here give `remind` alone).
        #expect(
            document.todos.map { e in
                var e = e
                e.alarms = nil
                return e
            }
                == Self.entries.reversed().map { e in
                    var e = e
                    e.zone = e.zone ?? (e.due != nil ? "Asia/Tokyo" : nil)
                    return e
                })
        #expect(document.categories == ["仕事"])
    }

    /// Unknown properties, parameters and components survive a read and a write byte for byte
    /// (as unfolded lines), including ones on mapped properties and on the mapped alarm.
    @Test func unknownLinesSurvive() throws {
        let input = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            BEGIN:VTODO\r
            UID:keep-1\r
            SUMMARY;LANGUAGE=ja:お茶\r
            X-FOO;X-PARAM="a:b":some value\\, escaped\r
            GEO:37.386013;-122.082932\r
            DTSTART:20261201T090000Z\r
            DUE:20261202T090000Z\r
            PRIORITY:2\r
            STATUS:IN-PROCESS\r
            PERCENT-COMPLETE:30\r
            BEGIN:X-WIDGET\r
            X-INNER:1\r
            END:X-WIDGET\r
            BEGIN:VALARM\r
            ACTION:DISPLAY\r
            DESCRIPTION:x\r
            TRIGGER;RELATED=END:-PT15M\r
            X-WR-ALARMUID:alarm-1\r
            END:VALARM\r
            BEGIN:VALARM\r
            ACTION:EMAIL\r
            TRIGGER:-P1D\r
            SUMMARY:メールの件名\r
            DESCRIPTION:Mail body\r
            ATTENDEE:mailto:alice@example.org\r
            END:VALARM\r
            END:VTODO\r
            END:VCALENDAR\r

            """
        let items = try Self.reader.items(Array(input.utf8))
        let e = try #require(items.first?.entry)
        #expect(e.priority == .high)
        #expect(e.done == false)
        #expect(e.remind == Self.at("2026-12-02T08:45:00Z"))
        let out = ICalWriter().vtodo(e, sortOrder: 1)
        for kept in [
            "X-FOO;X-PARAM=\"a:b\":some value\\, escaped", "GEO:37.386013;-122.082932", "DTSTART:20261201T090000Z",
            "BEGIN:X-WIDGET", "X-INNER:1", "END:X-WIDGET", "X-WR-ALARMUID:alarm-1", "ACTION:EMAIL", "TRIGGER:-P1D",
            "SUMMARY;LANGUAGE=ja:お茶", "PRIORITY:2", "STATUS:IN-PROCESS", "PERCENT-COMPLETE:30"
        ] {
            #expect(out.contains(kept), "\(kept) lost: \(out)")
        }
        // A kept component's own SUMMARY and DESCRIPTION (an e-mail alarm's subject and body) stay
        // in it: they are not the VTODO's.
        let mail = try #require(out.firstIndex(of: "ACTION:EMAIL"))
        #expect(
            Array(out[mail...].prefix(6)) == [
                "ACTION:EMAIL", "TRIGGER:-P1D", "SUMMARY:メールの件名", "DESCRIPTION:Mail body",
                "ATTENDEE:mailto:alice@example.org", "END:VALARM"
            ], "\(out)")
        #expect(out.filter { $0.hasPrefix("SUMMARY") }.count == 2)
        #expect(out.filter { $0.hasPrefix("PRIORITY") }.count == 1)
        // The kept value yields where it no longer fits: a completed todo is not IN-PROCESS.
        var done = e
        done.done = true
        done.completed = Self.now
        done.priority = .low
        let closed = ICalWriter().vtodo(done, sortOrder: 1)
        #expect(closed.contains("STATUS:COMPLETED"))
        #expect(closed.contains("PERCENT-COMPLETE:100"))
        #expect(closed.contains("PRIORITY:9"))
        #expect(!closed.contains("STATUS:IN-PROCESS"))
    }

    /// DTSTART is the todo's start, written back once (a date as a date); RELATED-TO names the
    /// parent (RELTYPE defaults to PARENT), and a parent's RELTYPE=CHILD links a subtask of the
    /// same file that names no parent; other relations are kept as they came.
    @Test func startAndRelationsMap() throws {
        let text = """
            BEGIN:VCALENDAR
            BEGIN:VTODO
            UID:child-a
            SUMMARY:子A
            DTSTART:20261201T090000Z
            RELATED-TO:parent-1
            RELATED-TO;RELTYPE=SIBLING:child-b
            END:VTODO
            BEGIN:VTODO
            UID:parent-1
            SUMMARY:親
            DTSTART;VALUE=DATE:20261130
            RELATED-TO;RELTYPE=CHILD:child-b
            END:VTODO
            BEGIN:VTODO
            UID:child-b
            SUMMARY:子B
            END:VTODO
            END:VCALENDAR

            """
        let items = try Self.reader.items(Array(text.utf8))
        let (a, parent, b) = (items[0].entry, items[1].entry, items[2].entry)
        #expect(a.start == Self.at("2026-12-01T09:00:00Z") && a.parent == "parent-1")
        #expect(a.ical == "^1796115600000000 DTSTART:20261201T090000Z\nRELATED-TO;RELTYPE=SIBLING:child-b")
        #expect(b.parent == "parent-1" && parent.parent == nil)
        let outA = ICalWriter().vtodo(a, sortOrder: 1)
        #expect(outA.filter { $0.hasPrefix("DTSTART") } == ["DTSTART:20261201T090000Z"])
        #expect(
            outA.filter { $0.hasPrefix("RELATED-TO") }.sorted() == [
                "RELATED-TO;RELTYPE=PARENT:parent-1", "RELATED-TO;RELTYPE=SIBLING:child-b"
            ])
        // A date start on a todo without a due date stays a date.
        let outParent = ICalWriter().vtodo(parent, sortOrder: 2)
        #expect(outParent.filter { $0.hasPrefix("DTSTART") } == ["DTSTART;VALUE=DATE:20261130"], "\(outParent)")
        // Read back, the same todo.
        let again = try Self.reader.items(
            Array((["BEGIN:VCALENDAR"] + outA + ["END:VCALENDAR", ""]).joined(separator: "\r\n").utf8))
        #expect(
            again.first?.entry.start == a.start && again.first?.entry.parent == a.parent
                && again.first?.entry.ical == a.ical)
    }

    /// An RRULE without a DUE (todod recurs on its due date) is kept and written back as it was.
    @Test func aRuleWithoutDueIsKept() throws {
        let text =
            "BEGIN:VCALENDAR\nBEGIN:VTODO\nUID:r\nSUMMARY:r\nDTSTART:20260101T090000Z\nRRULE:FREQ=WEEKLY;BYDAY=MO\nEND:VTODO\nEND:VCALENDAR\n"
        let e = try #require(try Self.reader.items(Array(text.utf8)).first?.entry)
        #expect(e.recurrence == nil)
        let out = ICalWriter().vtodo(e, sortOrder: 1)
        #expect(out.filter { $0.hasPrefix("RRULE") } == ["RRULE:FREQ=WEEKLY;BYDAY=MO"])
    }

    /// An `ical` member from a JSON document cannot break the VTODO it is written into.
    @Test func keptLinesCannotBreakTheFile() throws {
        var e = Self.entries[3]
        e.ical =
            "END:VTODO\nBEGIN:VTODO\nSUMMARY:injected\nBEGIN:X-OPEN\nX-A:1\nnot a line\nX-BELL:\u{07}\nEND:VCALENDAR"
        let text = ICalWriter().calendar([e])
        let items = try Self.reader.items(Array(text.utf8))
        #expect(items.count == 1)
        #expect(items[0].entry.title == "Old thing")
        // The VTODO it tries to open is left out whole, with what is inside it (its lines could
        // break the one they would land in: an alarm without its END, a second DUE).
        #expect(items[0].entry.ical == nil)
        e.ical = "BEGIN:X-OPEN\nX-A:1\nnot a line\nX-BELL:\u{07}\nEND:VCALENDAR"
        let open = try Self.reader.items(Array(ICalWriter().calendar([e]).utf8))
        #expect(open.first?.entry.ical == "BEGIN:X-OPEN\nX-A:1\nEND:X-OPEN")
    }

    // MARK: - Files other programs write (Golden/foreign/README.md)

    static func document(_ name: String) throws -> ExportDocument {
        ICalReader.document(try reader.items(try bytes("foreign/" + name)), exported: now)
    }

    @Test func appleReminders() throws {
        let d = try Self.document("apple-reminders.ics")
        // X-APPLE-SORT-ORDER decides the order, not the file.
        #expect(d.todos.map(\.title) == ["Call the bank", "Water the plants"])
        let plants = d.todos[1]
        // 14:00 in Chicago on 11 March 2025 is CDT (UTC-5): 19:00Z.
        #expect(plants.due == Self.at("2025-03-11T19:00:00Z"))
        #expect(plants.zone == "America/Chicago")
        #expect(plants.recurrence == TodoRecurrence(rule: "FREQ=DAILY"))
        #expect(plants.remind == Self.at("2025-03-11T18:50:00Z"))
        #expect(d.todos[0].priority == .low)
        #expect(plants.ical?.contains(">X-WR-ALARMUID:0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0") == true)
        #expect(plants.ical?.contains("SEQUENCE:0") == true)
    }

    /// Thunderbird: a TZID only its VTIMEZONE explains (not an IANA name); a completed todo.
    @Test func thunderbird() throws {
        let d = try Self.document("thunderbird.ics")
        let passport = try #require(d.todos.first { $0.title == "Renew the passport" })
        // 09:30 PDT (UTC-7) on 15 July 2025, from the VTIMEZONE's DAYLIGHT rule.
        #expect(passport.due == Self.at("2025-07-15T16:30:00Z"))
        #expect(passport.priority == .high)
        #expect(passport.category == "Personal")
        #expect(passport.tags == ["Errands"])
        // No alarm: reminded at its due by default, nothing of it written back (`!REMIND-DEFAULT`).
        #expect(passport.ical?.split(separator: "\n").sorted() == ["!REMIND-DEFAULT 0", "X-MOZ-GENERATION:3"])
        #expect(passport.remind == passport.due)
        let dentist = try #require(d.todos.first { $0.title == "Book the dentist" })
        #expect(dentist.done)
        #expect(dentist.completed == Self.at("2025-06-02T10:00:00Z"))
    }

    /// Nextcloud Tasks writes floating times (read in the user's zone) and IN-PROCESS with a percentage.
    @Test func nextcloudTasks() throws {
        let t = try #require(try Self.document("nextcloud-tasks.ics").todos.first)
        #expect(t.due == Self.at("2025-04-20T08:00:00Z")) // 17:00 in Tokyo
        #expect(t.created == Self.at("2025-04-17T07:32:03Z"))
        #expect(t.priority == .high)
        #expect(!t.done)
        #expect(t.notes == "Numbers from Q2, then the summary")
        #expect(t.category == "Work")
        let out = ICalWriter().vtodo(t, sortOrder: 1)
        #expect(out.contains("STATUS:IN-PROCESS"))
        #expect(out.contains("PERCENT-COMPLETE:40"))
        #expect(out.contains("PRIORITY:3"))
        #expect(out.contains("X-OC-HIDESUBTASKS:0"))
    }

    /// tasks.org (through ical4android): an all-day DUE, Japanese categories, a relative alarm,
    /// an e-mail alarm and RELATED-TO kept.
    @Test func tasksOrg() throws {
        let t = try #require(try Self.document("tasks-org.ics").todos.first)
        #expect(t.title == "牛乳を買う")
        #expect(t.allDay)
        #expect(t.due == Self.at("2025-09-04T15:00:00Z")) // 5 September in Tokyo
        #expect(t.remind == Self.at("2025-09-04T14:45:00Z"))
        #expect(t.category == "買い物")
        #expect(t.tags == ["home"])
        #expect(t.priority == .medium)
        #expect(t.parent == "0f9e8d7c6b5a4321" && t.ical?.contains("RELATED-TO") != true)
        #expect(t.alarms?.contains { $0.ical?.contains("ATTENDEE:mailto:me@example.org") == true } == true)
        let out = ICalWriter().vtodo(t, sortOrder: 1)
        #expect(out.contains("DUE;VALUE=DATE:20250905"))
        #expect(out.filter { $0.hasPrefix("RELATED-TO") } == ["RELATED-TO;RELTYPE=PARENT:0f9e8d7c6b5a4321"])
        // An all-day todo's reminder is an instant (another client may give the todo a time later).
        #expect(out.contains("TRIGGER;VALUE=DATE-TIME:20250904T144500Z"))
    }

    /// Synology: STATUS:COMPLETED beside PERCENT-COMPLETE:0, empty DESCRIPTION, a IANA TZID
    /// with a VTIMEZONE, no LAST-MODIFIED.
    @Test func synology() throws {
        let t = try #require(try Self.document("synology.ics").todos.first)
        #expect(t.done)
        #expect(t.notes == nil)
        #expect(t.due == Self.at("2025-01-12T07:00:00Z")) // 08:00 CET
        #expect(t.zone == "Europe/Prague")
        #expect(t.priority == nil)
    }

    /// A file written by todoman 4.7 (`todo new ... --priority high --location Office`).
    @Test func todoman() throws {
        let t = try #require(try Self.document("todoman.ics").todos.first)
        #expect(t.title == "Ship the release 出荷")
        #expect(t.due == Self.at("2025-10-01T17:00:00Z"))
        #expect(t.priority == .high) // todoman writes high as 4
        #expect(t.ical?.contains("LOCATION:Office") == true)
        #expect(ICalWriter().vtodo(t, sortOrder: 1).contains("PRIORITY:4"))
    }

    /// A TZID that only the file's VTIMEZONE explains (a custom name): standard and
    /// daylight time from its yearly rules, the local time in the spring gap read with the offset
    /// before it; a TZID naming an IANA zone inside a prefixed name.
    @Test func vtimezoneRules() throws {
        let text = """
            BEGIN:VCALENDAR
            BEGIN:VTIMEZONE
            TZID:Westeuropa
            BEGIN:STANDARD
            DTSTART:16011028T030000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
            TZOFFSETFROM:+0200
            TZOFFSETTO:+0100
            END:STANDARD
            BEGIN:DAYLIGHT
            DTSTART:16010325T020000
            RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
            TZOFFSETFROM:+0100
            TZOFFSETTO:+0200
            END:DAYLIGHT
            END:VTIMEZONE
            BEGIN:VTODO
            UID:winter
            SUMMARY:winter
            DUE;TZID=Westeuropa:20260115T090000
            END:VTODO
            BEGIN:VTODO
            UID:summer
            SUMMARY:summer
            DUE;TZID="Westeuropa":20260715T090000
            END:VTODO
            BEGIN:VTODO
            UID:gap
            SUMMARY:gap
            DUE;TZID=Westeuropa:20260329T023000
            END:VTODO
            BEGIN:VTODO
            UID:overlap
            SUMMARY:overlap
            DUE;TZID=Westeuropa:20261025T023000
            END:VTODO
            BEGIN:VTODO
            UID:prefixed
            SUMMARY:prefixed
            DUE;TZID=/mozilla.org/20050126_1/Europe/Berlin:20260715T090000
            END:VTODO
            END:VCALENDAR

            """
        let due = Dictionary(
            uniqueKeysWithValues: try Self.reader.items(Array(text.utf8)).map { ($0.entry.uid!, $0.entry) })
        #expect(due["winter"]?.due == Self.at("2026-01-15T08:00:00Z"))
        #expect(due["summer"]?.due == Self.at("2026-07-15T07:00:00Z"))
        #expect(due["gap"]?.due == Self.at("2026-03-29T01:30:00Z"))
        #expect(due["overlap"]?.due == Self.at("2026-10-25T00:30:00Z")) // the earlier of the two
        #expect(due["winter"]?.zone == "Asia/Tokyo") // no IANA name: the user's zone
        #expect(due["prefixed"]?.due == Self.at("2026-07-15T07:00:00Z"))
        #expect(due["prefixed"]?.zone == "Europe/Berlin")
    }

    // MARK: - Malformed files

    @Test(arguments: [
        ("bad-date.ics", "line 6: DUE: \"2025-01-01\" is not a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS[Z])"),
        ("mismatched-end.ics", "line 5: END:VEVENT closes BEGIN:VTODO of line 2"),
        ("unterminated.ics", "line 6: the file ends inside BEGIN:VCALENDAR of line 1"),
        ("no-colon.ics", "line 4: expected ':' after SUMMARY"),
        (
            "unknown-tzid.ics",
            "line 5: TZID \"Mars/Olympus\" is neither a time zone known here nor given by a VTIMEZONE"
        ),
        ("bad-priority-second.ics", "line 9: PRIORITY must be 0 to 9, not \"high\""),
        ("not-utf8.ics", "line 4: not valid UTF-8")
    ])
    func malformed(_ file: String, _ message: String) throws {
        let bytes = try Self.bytes("malformed/" + file)
        #expect(throws: (any Error).self) { try Self.reader.items(bytes) }
        do {
            _ = try Self.reader.items(bytes)
        } catch {
            #expect(error.description == message)
        }
    }

    /// Text that is not iCalendar at all.
    @Test func notACalendar() {
        #expect(throws: ICalError(line: 1, "SUMMARY outside BEGIN:VCALENDAR ... END:VCALENDAR")) {
            try Self.reader.items(Array("SUMMARY:loose\nBEGIN:VTODO\nEND:VTODO\n".utf8))
        }
        #expect(throws: ICalError(line: 1, "no BEGIN:VCALENDAR: not an iCalendar file")) { try Self.reader.items([]) }
    }

    /// The fields say their VTODO properties once (`TodoField.vtodoProperties`): each property is
    /// one field's, the property `icalProperty` names is among its field's, and the properties
    /// the writer writes itself are those of docs/ICALENDAR.md's table.
    @Test func fieldsDeclareTheirProperties() {
        let all = TodoField.allCases.flatMap(\.vtodoProperties)
        #expect(Set(all).count == all.count && TodoField.byVTodoProperty.count == all.count)
        for field in TodoField.allCases where !field.vtodoProperties.isEmpty {
            // A parameter (`TZID`) or a component (`VALARM`) is not a property of the VTODO.
            guard let p = field.icalProperty, !p.contains(" "), !p.contains("="), p != "TZID" else { continue }
            #expect(field.vtodoProperties.contains(p), "\(field)")
        }
        #expect(
            mappedNames == [
                "UID", "SUMMARY", "DESCRIPTION", "DUE", "STATUS", "COMPLETED", "PERCENT-COMPLETE", "CATEGORIES",
                "X-TODOD-CATEGORY", "PRIORITY", "RRULE", "X-TODOD-RECUR-FROM", "X-APPLE-SORT-ORDER", "CREATED",
                "LAST-MODIFIED", "DTSTAMP", "X-TODOD-ZONE", "X-TODOD-NO-CATEGORY", "DTSTART", "X-TODOD-NO-REMIND"
            ])
    }
}
