import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoTestSupport

/// python-caldav (the test venv's `caldav`, with `icalendar`) as a second client on Radicale,
/// against the built todod-sync and a real todod: alarms relative to DUE and DTSTART, recurring
/// todos completed with `complete(handle_rrule=True)` in both its modes (and completed here), and
/// zoned due dates with their VTIMEZONEs, each read right on both sides. What python-caldav
/// reads comes from scripts/lib/pycaldav_phone.py's `dump`.
@Suite(.serialized, .enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct PythonCalDAVTests {
    /// python-caldav on one calendar.
    struct Phone {
        let calendar: String
        let server: CalDAVServer

        /// Runs python `body` with `cal` (the calendar), `dt`, `ZoneInfo`, `icalendar` and the
        /// helpers of scripts/lib/pycaldav_phone.py; its standard output.
        @discardableResult
        func run(_ body: String) throws -> String {
            let script = """
                import sys
                sys.path.insert(0, \(JSON.string(NotifyTestSupport.repository + "/scripts/lib").serialized()))
                import datetime as dt, icalendar
                from zoneinfo import ZoneInfo
                from pycaldav_phone import *
                cal = calendar()
                UTC = dt.timezone.utc
                \(body)
                """
            let arguments = ["-c", script, calendar, server.user ?? "", server.password ?? ""]
            let r = try ChildProcess.run(NotifyTestSupport.python, arguments)
            try #require(r.status == 0, "python-caldav: \(r.stderr)")
            return r.stdout
        }

        /// What python-caldav and icalendar read from the calendar (`dump`).
        func read() throws -> JSON { try JSON.parse(Array(try run("dump(cal)").utf8)) }

        /// The components python-caldav reads for `uid` (the master first, as stored).
        func todos(_ uid: String) throws -> [JSON] {
            try read()["todos"]?.arrayValue?.filter { $0["uid"]?.stringValue == uid } ?? []
        }
    }

    /// A new calendar on Radicale, a todod store syncing it, and python-caldav on it.
    static func setUp() throws -> (CalDAVSyncTests.Host, Phone) {
        guard (try? ChildProcess.run(NotifyTestSupport.python, ["-c", "import caldav, icalendar"]).status) == 0 else {
            throw CalDAVTestError.notConfigured("python-caldav in the test venv (scripts/test installs it)")
        }
        let server = try CalDAVSyncTests.server(.radicale)
        let calendar = try CalDAVSyncTests.calendar(server)
        return (try CalDAVSyncTests.host(server, calendar), Phone(calendar: calendar, server: server))
    }

    /// One `todod-sync --once` that succeeds: its summary line.
    @discardableResult
    static func once(_ host: CalDAVSyncTests.Host) throws -> String {
        let r = try host.once()
        #expect(r.status == 0, "todod-sync --once: \(r.stdout)\(r.stderr)")
        return r.stdout
    }

    /// `todoctl` of the host's store with the zone `tz`.
    static func todoctl(_ host: CalDAVSyncTests.Host, _ arguments: [String], tz: String = "UTC") throws -> String {
        var environment = host.environment
        environment["TZ"] = tz
        let r = try ChildProcess.run(BuiltProducts.path("todoctl"), arguments, environment: environment)
        #expect(r.status == 0, "todoctl \(arguments): \(r.stdout)\(r.stderr)")
        return r.stdout
    }

    /// The lines of a VALARM as a set (the order of properties inside a component means nothing).
    static func lines(_ alarm: JSON?) -> Set<String> {
        Set(alarm?["lines"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    /// Alarms python-caldav writes relative to DUE (`RELATED=END`), to DTSTART (`RELATED=START`,
    /// and without RELATED, which means START) are reminded here at the instant icalendar gives
    /// them; after an edit here each goes back to the server as it came; a reminder made here
    /// (relative and all-day absolute) is the same instant for icalendar.
    @Test func alarmsFromPythonCalDAVAreReadAtTheirInstantAndGoBackAsTheyCame() throws {
        let (host, phone) = try Self.setUp()
        try phone.run(
            """
            tokyo = ZoneInfo("Asia/Tokyo")
            def todo(uid, summary, related, start, trigger=dt.timedelta(minutes=-15)):
                t = icalendar.Todo()
                t.add("UID", uid); t.add("SUMMARY", summary); t.add("DTSTAMP", dt.datetime(2026, 12, 1, tzinfo=UTC))
                if start: t.add("DTSTART", dt.datetime(2026, 12, 10, 8, 0, tzinfo=tokyo))
                t.add("DUE", dt.datetime(2026, 12, 10, 10, 0, tzinfo=tokyo))
                a = icalendar.Alarm(); a.add("ACTION", "DISPLAY"); a.add("DESCRIPTION", "15分前です")
                a.add("TRIGGER", trigger, parameters={"RELATED": related} if related else {})
                t.add_component(a)
                save(cal, [t])
            todo("end-due", "DUEだけ", "END", False)
            todo("end-both", "開始と期限 END", "END", True)
            todo("start-both", "開始と期限 START", "START", True)
            todo("default-both", "開始と期限 既定", None, True, dt.timedelta(minutes=-30))
            """)
        let before = try phone.read()
        // python-caldav writes no sort order: each open todo goes back with its place here.
        #expect(try Self.once(host).contains(": 4 sent, 4 received"))
        let expected = [
            "end-due": "2026-12-10T00:45:00Z", "end-both": "2026-12-10T00:45:00Z",
            "start-both": "2026-12-09T22:45:00Z", "default-both": "2026-12-09T22:30:00Z"
        ]
        for (uid, at) in expected {
            let here = try #require(try host.machine.todo(uid: uid), "\(uid) did not arrive")
            #expect(here["remind"]?.stringValue == at, "\(uid): todod reminds at \(here["remind"] ?? .null)")
            let theirs = try #require(before["todos"]?.arrayValue?.first { $0["uid"]?.stringValue == uid })
            let placed = theirs["alarms"]?.arrayValue?.first?["at"]?.stringValue
            #expect(placed == at, "icalendar places \(uid)'s alarm at \(placed ?? "no instant"), todod at \(at)")
        }

        // Edited here (the title): each alarm goes back as it came, at the same instant.
        for uid in expected.keys.sorted() {
            try host.machine.update(uid: uid, ["title": .string("\(uid) 編集")])
        }
        #expect(try Self.once(host).contains(": 4 sent, 0 received"))
        let after = try phone.read()
        for (uid, at) in expected {
            let old = before["todos"]?.arrayValue?.first { $0["uid"]?.stringValue == uid }?["alarms"]?.arrayValue?.first
            let new = try #require(after["todos"]?.arrayValue?.first { $0["uid"]?.stringValue == uid })
            #expect(new["alarms"]?.arrayValue?.count == 1)
            #expect(Self.lines(new["alarms"]?.arrayValue?.first) == Self.lines(old), "\(uid)'s VALARM was rewritten")
            #expect(new["alarms"]?.arrayValue?.first?["at"]?.stringValue == at)
        }

        // Made here: a timed reminder and an all-day one; icalendar places each at todod's instant.
        let timed = try host.machine.add(
            "15分前に知らせる",
            [
                "due": "2026-12-11T09:00:00+09:00",
                "remind": "2026-12-11T08:45:00+09:00", "zone": "Asia/Tokyo"
            ])
        let allDay = try host.machine.add(
            "終日",
            [
                "due": "2026-12-12T00:00:00+09:00", "allDay": true,
                "zone": "Asia/Tokyo", "remind": "2026-12-12T08:00:00+09:00"
            ])
        #expect(try Self.once(host).contains(": 2 sent, 0 received"))
        for made in [timed, allDay] {
            let uid = try #require(made["uid"]?.stringValue)
            let theirs = try phone.todos(uid)
            #expect(theirs.first?["alarms"]?.arrayValue?.first?["at"] == made["remind"], "\(uid): \(theirs)")
        }
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
    }

    /// A due with `TZID=Asia/Tokyo` and its VTIMEZONE written by python-caldav is read as that
    /// instant in that zone (`todoctl show` in another zone says Tokyo's local time); todos made
    /// here in Asia/Tokyo and America/New_York (one recurring across New York's DST change) are
    /// read by icalendar as the same instants and TZIDs, with VTIMEZONEs that icalendar turns into
    /// the tz database's offsets.
    @Test func zonedDueDatesTravelBothWaysWithTheirVTimezones() throws {
        let (host, phone) = try Self.setUp()
        try phone.run(
            """
            t = icalendar.Todo()
            t.add("UID", "tokyo-due"); t.add("SUMMARY", "東京で9時"); t.add("DTSTAMP", dt.datetime(2026, 12, 1, tzinfo=UTC))
            t.add("DUE", dt.datetime(2026, 12, 10, 9, 0, tzinfo=ZoneInfo("Asia/Tokyo")))
            save(cal, [t])
            """)
        let written = try phone.read()
        #expect(written["zones"]?["Asia/Tokyo"] == .null, "python-caldav wrote its VTIMEZONE: \(written)")
        #expect(try Self.once(host).contains(": 1 sent, 1 received")) // with its place (python-caldav writes none)
        let tokyo = try #require(try host.machine.todo(uid: "tokyo-due"))
        #expect(tokyo["due"] == "2026-12-10T00:00:00Z" && tokyo["zone"] == "Asia/Tokyo", "\(tokyo)")
        #expect(tokyo["allDay"] == false)
        let shown = try Self.todoctl(host, ["show", String(try #require(tokyo["id"]?.intValue))], tz: "Europe/Berlin")
        #expect(shown.contains("2026-12-10 09:00") && shown.contains("Asia/Tokyo"), "\(shown)")

        let made = [
            try host.machine.add("東京の会議", ["due": "2026-12-15T14:30:00+09:00", "zone": "Asia/Tokyo"]),
            try host.machine.add("NY call", ["due": "2026-12-15T09:00:00-05:00", "zone": "America/New_York"]),
            try host.machine.add(
                "NY weekly",
                [
                    "due": "2027-03-08T09:00:00-05:00", "zone": "America/New_York",
                    "recurrence": ["rule": "FREQ=WEEKLY;BYDAY=MO"]
                ])
        ]
        #expect(try Self.once(host).contains(": 3 sent, 0 received"))
        let read = try phone.read()
        for (todo, local) in zip(made, ["2026-12-15T14:30:00", "2026-12-15T09:00:00", "2027-03-08T09:00:00"]) {
            let theirs = try #require(read["todos"]?.arrayValue?.first { $0["uid"] == todo["uid"] })
            #expect(theirs["due"]?["utc"] == todo["due"], "\(theirs)")
            #expect(theirs["due"]?["tzid"] == todo["zone"], "\(theirs)")
            #expect(theirs["due"]?["local"]?.stringValue == local, "\(theirs)")
        }
        #expect(
            read["zones"]?["Asia/Tokyo"] == .null && read["zones"]?["America/New_York"] == .null,
            "icalendar reads todod's VTIMEZONEs as the tz database: \(read["zones"] ?? .null)")
        // The weekly one, expanded by icalendar/dateutil from what todod wrote, stays at 09:00 after 14 March.
        let expanded = try phone.run(
            """
            from dateutil.rrule import rrulestr
            r = by_uid(cal, \(JSON.string(made[2]["uid"]?.stringValue ?? "").serialized())).icalendar_component
            rule = rrulestr(r["RRULE"].to_ical().decode(), dtstart=r["DTSTART"].dt)
            print(" ".join(x.strftime("%m-%d %H:%M%z") for x in rule[:3]))
            """)
        #expect(expanded == "03-08 09:00-0500 03-15 09:00-0400 03-22 09:00-0400\n", "\(expanded)")
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
    }

    /// A todo made here recurring by `rule` in `zone`, due at `due` and starting 30 minutes before,
    /// sent to the server: its uid and due.
    static func recurring(
        _ host: CalDAVSyncTests.Host, _ zone: String, _ due: String,
        _ rule: String
    ) throws -> (String, Instant) {
        let dueAt = try #require(Instant(rfc3339: due))
        let made = try host.machine.add(
            "ゴミ出し \(zone)",
            [
                "due": .string(due), "start": .string(dueAt.adding(usec: -1_800_000_000).description),
                "zone": .string(zone), "recurrence": ["rule": .string(rule)]
            ])
        #expect(try once(host).contains(": 1 sent, 0 received"))
        return (try #require(made["uid"]?.stringValue), dueAt)
    }

    static let weekly = "FREQ=WEEKLY;BYDAY=MO"

    /// Recurring todos made here (weekly on Mondays, 08:30 to 09:00, in Asia/Tokyo and in
    /// Europe/Berlin the week before its clocks change) completed by python-caldav with
    /// `complete(handle_rrule=True)` in its default mode, `safe`: python-caldav saves a completed
    /// copy (a new UID, no RRULE) and moves the todo's DTSTART and DUE to the next occurrence,
    /// written in UTC. todod then holds exactly that: the open todo at python-caldav's instants,
    /// start and due 30 minutes apart, and the done copy; one open todo, nothing lost.
    ///
    /// python-caldav expands the rule in UTC (`_next` turns DTSTART into UTC): Monday 08:30 in
    /// Tokyo is Sunday 23:30 UTC, so its next "Monday" is Monday 23:30 UTC, Tuesday 08:30 in Tokyo;
    /// across Berlin's change its next occurrence is 10:00 local, not 09:00; a rule without BY
    /// parts (daily) it counts from the completion time (09:05 in Tokyo), not from DTSTART. todod
    /// shows what it wrote. The completion time is given as python code often has it, a local time
    /// with a fixed offset, which Radicale stores as `COMPLETED;TZID="UTC+09:00"` with no
    /// VTIMEZONE: read as that offset.
    @Test(arguments: [
        ("Asia/Tokyo", "2026-12-07T09:00:00+09:00", weekly, "2026-12-08T00:00:00Z"),
        ("Europe/Berlin", "2027-03-22T09:00:00+01:00", weekly, "2027-03-29T08:00:00Z"),
        ("Asia/Tokyo", "2026-12-07T09:00:00+09:00", "FREQ=DAILY", "2026-12-08T00:35:00Z")
    ])
    func pythonCalDAVCompletesARecurringTodoMadeHereSafely(
        _ zone: String, _ due: String, _ rule: String,
        _ next: String
    ) throws {
        let (host, phone) = try Self.setUp()
        let (uid, dueAt) = try Self.recurring(host, zone, due, rule)
        try phone.run(
            """
            done_at = dt.datetime.fromisoformat(\(JSON.string(due).serialized())) + dt.timedelta(minutes=5)
            by_uid(cal, \(JSON.string(uid).serialized())).complete(handle_rrule=True, completion_timestamp=done_at)
            """)
        let theirs = try phone.read()["todos"]?.arrayValue ?? []
        let open = try #require(theirs.first { $0["uid"]?.stringValue == uid })
        let copy = try #require(theirs.first { $0["uid"]?.stringValue != uid }, "python-caldav saved a completed copy")
        #expect(open["due"]?["utc"]?.stringValue == next, "\(theirs)")
        #expect(copy["status"] == "COMPLETED" && copy["rrule"] == .null, "\(theirs)")

        #expect(try Self.once(host).contains(": 0 sent, 2 received"))
        let todos = try host.machine.todos()
        #expect(todos.count == 2, "\(todos)")
        let here = try #require(try host.machine.todo(uid: uid))
        #expect(here["done"] == false && here["due"] == open["due"]?["utc"], "\(here)")
        #expect(here["start"] == open["dtstart"]?["utc"], "\(here)")
        #expect(here["recurrence"]?["rule"]?.stringValue == rule)
        let start = try #require(here["start"]?.stringValue.flatMap { Instant(rfc3339: $0) })
        let hereDue = try #require(here["due"]?.stringValue.flatMap { Instant(rfc3339: $0) })
        #expect(hereDue.usec - start.usec == 1_800_000_000, "start and due kept their distance")
        let done = try #require(try host.machine.todo(uid: copy["uid"]?.stringValue ?? ""))
        #expect(done["done"] == true && done["recurrence"] == .null, "\(done)")
        #expect(done["due"]?.stringValue == dueAt.description, "the done copy keeps the occurrence it was: \(done)")
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
    }

    /// The same todos completed by python-caldav with `rrule_mode="thisandfuture"`: it keeps the
    /// master as it was and adds an instance completed at the master's DTSTART (`RECURRENCE-ID`,
    /// here 30 minutes before DUE) and a `RANGE=THISANDFUTURE` instance for the rest. todod holds
    /// one open todo, due at the rule's next occurrence in the todo's zone (09:00 local on both
    /// sides of Berlin's change), its start 30 minutes before; writing it back keeps every
    /// component of the resource.
    @Test(arguments: [
        ("Asia/Tokyo", "2026-12-07T09:00:00+09:00", weekly, "2026-12-14T00:00:00Z"),
        ("Europe/Berlin", "2027-03-22T09:00:00+01:00", weekly, "2027-03-29T07:00:00Z"),
        ("Asia/Tokyo", "2026-12-07T09:00:00+09:00", "FREQ=DAILY", "2026-12-08T00:00:00Z")
    ])
    func pythonCalDAVCompletesThisAndFuture(_ zone: String, _ due: String, _ rule: String, _ next: String) throws {
        let (host, phone) = try Self.setUp()
        let (uid, _) = try Self.recurring(host, zone, due, rule)
        try phone.run(
            """
            done_at = dt.datetime.fromisoformat(\(JSON.string(due).serialized())).astimezone(UTC)
            done_at += dt.timedelta(minutes=5)
            todo = by_uid(cal, \(JSON.string(uid).serialized()))
            # python-caldav's thisandfuture takes every component for a VTODO (the first is the
            # master, the last the one to complete): a VTIMEZONE, which Radicale stores with every
            # zoned resource, fails it (KeyError 'RRULE'). Without it, as python-caldav's own new
            # todos are, it works (the TZIDs are Olson names).
            todo.icalendar_instance.subcomponents[:] = todo.icalendar_instance.walk("VTODO")
            todo.complete(handle_rrule=True, rrule_mode="thisandfuture", completion_timestamp=done_at)
            """)
        let theirs = try phone.todos(uid)
        #expect(theirs.count == 3 && theirs.filter { $0["completed"] == true }.count == 1, "\(theirs)")

        #expect(try Self.once(host).contains(": 0 sent, 1 received"))
        #expect(try host.machine.todos().count == 1)
        let here = try #require(try host.machine.todo(uid: uid))
        #expect(here["done"] == false, "\(here)")
        #expect(here["due"]?.stringValue == next, "the completed instance is not due here: \(here)")
        let start = try #require(here["start"]?.stringValue.flatMap { Instant(rfc3339: $0) })
        let hereDue = try #require(here["due"]?.stringValue.flatMap { Instant(rfc3339: $0) })
        #expect(hereDue.usec - start.usec == 1_800_000_000, "start and due kept their distance: \(here)")
        let shown = try Self.todoctl(host, ["show", String(try #require(here["id"]?.intValue))], tz: zone)
        #expect(shown.contains(" 09:00"), "\(shown)")

        // Edited here: the resource keeps python-caldav's instances.
        try host.machine.update(uid: uid, ["notes": "編集"])
        #expect(try Self.once(host).contains(": 1 sent, 0 received"))
        let back = try phone.todos(uid)
        #expect(
            back.count == 3 && back.filter { $0["completed"] == true }.count == 1
                && back.contains { $0["range"] == "THISANDFUTURE" }, "\(back)")
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
    }

    /// A recurring todo python-caldav makes (`DTSTART;TZID` 08:30, `DUE;TZID` 09:00, weekly on
    /// Mondays, in Tokyo and in Berlin the week before its change) completed here: python-caldav
    /// reads DTSTART and DUE advanced to the next Monday at 08:30 and 09:00 local in the same TZID.
    @Test(arguments: [
        ("Asia/Tokyo", "dt.datetime(2026, 12, 7, 9, 0)", "2026-12-14"),
        ("Europe/Berlin", "dt.datetime(2027, 3, 22, 9, 0)", "2027-03-29")
    ])
    func aRecurringTodoPythonCalDAVMadeIsCompletedHere(_ zone: String, _ due: String, _ nextDay: String) throws {
        let (host, phone) = try Self.setUp()
        try phone.run(
            """
            z = ZoneInfo(\(JSON.string(zone).serialized()))
            t = icalendar.Todo()
            t.add("UID", "phone-weekly"); t.add("SUMMARY", "週次レビュー")
            t.add("DTSTAMP", dt.datetime(2026, 12, 1, tzinfo=UTC))
            due = \(due).replace(tzinfo=z)
            t.add("DTSTART", due - dt.timedelta(minutes=30)); t.add("DUE", due)
            t.add("RRULE", {"FREQ": "WEEKLY", "BYDAY": "MO"})
            save(cal, [t])
            """)
        #expect(try Self.once(host).contains(": 1 sent, 1 received")) // with its place (python-caldav writes none)
        let here = try #require(try host.machine.todo(uid: "phone-weekly"))
        #expect(here["zone"]?.stringValue == zone && here["recurrence"]?["rule"] == "FREQ=WEEKLY;BYDAY=MO", "\(here)")
        _ = try host.machine.client.result("todo.complete", ["ids": [try #require(here["id"])]])
        #expect(try Self.once(host).contains(": 1 sent, 0 received"))
        let theirs = try phone.todos("phone-weekly")
        #expect(theirs.count == 1)
        let t = try #require(theirs.first)
        #expect(t["due"]?["tzid"]?.stringValue == zone, "\(t)")
        #expect(t["due"]?["local"]?.stringValue == nextDay + "T09:00:00", "\(t)")
        #expect(t["dtstart"]?["tzid"]?.stringValue == zone, "\(t)")
        #expect(t["dtstart"]?["local"]?.stringValue == nextDay + "T08:30:00", "\(t)")
        #expect(t["status"] != "COMPLETED" && t["completed"] == false)
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
    }
}
