import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTime

@testable import TodoCLI

/// All-day todos in todoctl: what `add`, `edit` and `snooze` send, and how they are shown.
/// `Fixtures.now` is Monday 2026-06-01 21:00 in Tokyo.
@Suite struct AllDayTests {
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo") ?? .utc

    static func run(
        _ arguments: [String], transport: FakeTransport = FakeTransport(), timeZone: ZoneInfo = tokyo,
        zoneName: String? = "Asia/Tokyo", isTerminal: Bool = false
    ) -> Fixtures.Result {
        Fixtures.run(
            arguments, transport: transport, isTerminal: isTerminal,
            environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "TERM": "xterm"], timeZone: timeZone, zoneName: zoneName)
    }

    static func instant(_ text: String) -> Instant { Instant(rfc3339: text) ?? Fixtures.now }

    /// A todo as the daemon sends it.
    static func todo(
        due: String?, remind: String?, allDay: Bool = false, zone: String? = "Asia/Tokyo", title: String = "x"
    ) -> JSON {
        Fixtures.json(
            Todo(
                id: 12, title: title, due: due.map(instant), remind: remind.map(instant), position: 1,
                created: Fixtures.now, updated: Fixtures.now, zone: zone, allDay: allDay))
    }

    /// A transport whose `todo.get` answers `current`.
    static func transport(current: JSON) -> FakeTransport {
        FakeTransport { (method, params) throws(ClientError) in
            method == "todo.get" ? current : try FakeTransport.canned(method, params)
        }
    }

    // MARK: - add

    @Test func addWithADateIsAllDayAndRemindedThatMorning() {
        let transport = FakeTransport()
        let result = Self.run(["add", "x", "--due", "friday"], transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        let expected: JSON = [
            "title": "x", "due": "2026-06-04T15:00:00Z", "allDay": true, "remind": "2026-06-05T00:00:00Z",
            "zone": "Asia/Tokyo"
        ]
        #expect(transport.calls.first.map { JSON.object($0.params).sortedKeys } == expected.sortedKeys)
    }

    static let addCases: [([String], JSON)] = [
        (
            ["--due", "friday", "--remind", "15m"],
            ["due": "2026-06-04T15:00:00Z", "allDay": true, "remind": "2026-06-04T23:45:00Z"]
        ),
        (
            ["--due", "Dec 24", "--remind", "1d"],
            ["due": "2026-12-23T15:00:00Z", "allDay": true, "remind": "2026-12-23T00:00:00Z"]
        ),
        (["--due", "friday 5pm"], ["due": "2026-06-05T08:00:00Z"]),
        (
            ["--due", "tomorrow at 9am", "--remind", "15m"],
            ["due": "2026-06-02T00:00:00Z", "remind": "2026-06-01T23:45:00Z"]
        ),
        (["--remind", "tomorrow"], ["remind": "2026-06-02T00:00:00Z"]),
        (["--due", "in 1 month"], ["due": "2026-07-01T12:00:00Z"])
    ]

    @Test(arguments: addCases)
    func addSends(arguments: [String], expected: JSON) {
        let transport = FakeTransport()
        let result = Self.run(["add", "x"] + arguments, transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        var params = expected.objectValue ?? [:]
        params["title"] = "x"
        params["zone"] = "Asia/Tokyo"
        #expect(transport.calls.first.map { JSON.object($0.params).sortedKeys } == JSON.object(params).sortedKeys)
    }

    @Test func noZoneNameSendsNoZone() {
        let transport = FakeTransport()
        _ = Self.run(["add", "x", "--due", "friday"], transport: transport, zoneName: nil)
        #expect(transport.calls.first?.params["zone"] == nil)
        #expect(transport.calls.first?.params["allDay"] == true)
        // A todo without dates has no zone to tell.
        let plain = FakeTransport()
        _ = Self.run(["add", "x"], transport: plain)
        #expect(plain.calls.first?.params == ["title": "x"])
    }

    @Test func theMorningTimeIsOneParameter() throws {
        var parser = Parser(now: Fixtures.now, timeZone: Self.tokyo, zoneName: "Asia/Tokyo")
        parser.remindTime = 7 * 3600 + 30 * 60
        guard case .add(let options) = try parser.parse(["add", "x", "--due", "friday"]).command else {
            Issue.record("not an add")
            return
        }
        #expect(options.remind == Self.instant("2026-06-04T22:30:00Z"))
        guard case .snooze(_, let until) = try parser.parse(["snooze", "3", "tomorrow"]).command else {
            Issue.record("not a snooze")
            return
        }
        #expect(until == Self.instant("2026-06-01T22:30:00Z"))
    }

    /// A date-only bound is the start of that day; `--due-before eod` the end of today, its last
    /// second included. The daemon is asked for 27 hours more on each side (the client compares
    /// all-day todos by their local day).
    @Test func filterBoundsTakeEveryForm() throws {
        let parser = Parser(now: Fixtures.now, timeZone: Self.tokyo)
        func bounds(_ arguments: [String]) throws -> (String?, String?) {
            guard case .list(let o) = try parser.parse(arguments).command else { return (nil, nil) }
            return (o.query.dueAfter?.rfc3339(), o.query.dueBefore?.rfc3339())
        }
        #expect(
            try bounds(["list", "--due-after", "today", "--due-before", "Dec 24"]) == (
                "2026-05-31T15:00:00Z", "2026-12-23T15:00:00Z"
            ))
        #expect(
            try bounds(["list", "--due-before", "eod", "--due-after", "2 days ago"]) == (
                "2026-05-30T12:00:00Z", "2026-06-01T15:00:00Z"
            ))
        #expect(try bounds(["list", "--due-before", "月末"]) == (nil, "2026-06-30T15:00:00Z"))
        #expect(try bounds(["list", "--due-before", "tomorrow 18:00"]) == (nil, "2026-06-02T09:00:00Z"))
        let transport = FakeTransport()
        let result = Self.run(["list", "--due-after", "today", "--due-before", "Dec 24"], transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(transport.calls.map(\.method) == ["todo.list", "todo.list"]) // counted, then read whole
        #expect(transport.calls.first?.params["limit"] == 0)
        #expect(transport.calls.last?.params["dueAfter"] == "2026-05-30T12:00:00Z")
        #expect(transport.calls.last?.params["dueBefore"] == "2026-12-24T18:00:00Z")
        #expect(transport.calls.last?.params["limit"] == nil)
        // A listing longer than the client reads whole keeps the daemon's own bounds and order.
        let long = FakeTransport { (method, params) throws(ClientError) in
            guard method == "todo.list" else { return try FakeTransport.canned(method, params) }
            return ["todos": .array([]), "total": .int(Int64(LocalDayListing.maxRows) + 1)]
        }
        _ = Self.run(["list", "--due-before", "Dec 24", "--limit", "3"], transport: long)
        #expect(
            long.calls.count == 2 && long.calls.last?.params["dueBefore"] == "2026-12-23T15:00:00Z"
                && long.calls.last?.params["limit"] == 3)
    }

    // MARK: - edit

    static let editCases: [([String], JSON, JSON)] = [
        // timed, reminded 15 minutes ahead -> all-day: 15 minutes before that morning
        (
            ["--due", "friday"], todo(due: "2026-06-03T10:00:00Z", remind: "2026-06-03T09:45:00Z"),
            ["due": "2026-06-04T15:00:00Z", "allDay": true, "remind": "2026-06-04T23:45:00Z"]
        ),
        // timed without a reminder -> all-day: still none
        (
            ["--due", "friday"], todo(due: "2026-06-03T10:00:00Z", remind: nil),
            ["due": "2026-06-04T15:00:00Z", "allDay": true]
        ),
        // no due and no reminder -> all-day: that morning
        (
            ["--due", "friday"], todo(due: nil, remind: nil),
            ["due": "2026-06-04T15:00:00Z", "allDay": true, "remind": "2026-06-05T00:00:00Z"]
        ),
        // all-day reminded that morning -> a time: reminded at that time
        (
            ["--due", "friday 5pm"], todo(due: "2026-06-02T15:00:00Z", remind: "2026-06-03T00:00:00Z", allDay: true),
            ["due": "2026-06-05T08:00:00Z", "remind": "2026-06-05T08:00:00Z"]
        ),
        // all-day -> all-day: the same lead before the morning
        (
            ["--due", "Dec 24"], todo(due: "2026-06-02T15:00:00Z", remind: "2026-06-02T23:00:00Z", allDay: true),
            ["due": "2026-12-23T15:00:00Z", "allDay": true, "remind": "2026-12-23T23:00:00Z"]
        ),
        // timed -> timed: the daemon keeps the lead
        (
            ["--due", "friday 5pm"], todo(due: "2026-06-03T10:00:00Z", remind: "2026-06-03T09:45:00Z"),
            ["due": "2026-06-05T08:00:00Z"]
        ),
        // --remind DURATION counts back from the current all-day todo's morning
        (
            ["--remind", "15m"], todo(due: "2026-06-02T15:00:00Z", remind: "2026-06-03T00:00:00Z", allDay: true),
            ["remind": "2026-06-02T23:45:00Z"]
        )
    ]

    @Test(arguments: editCases)
    func editSends(arguments: [String], current: JSON, expected: JSON) {
        let transport = Self.transport(current: current)
        let result = Self.run(["edit", "12"] + arguments, transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(transport.methods == ["todo.get", "todo.update"])
        var params = expected.objectValue ?? [:]
        params["id"] = 12
        params["zone"] = "Asia/Tokyo"
        params["ifRevision"] = 1 // the revision of the todo it read
        #expect(transport.calls.last.map { JSON.object($0.params).sortedKeys } == JSON.object(params).sortedKeys)
    }

    // MARK: - Output

    @Test func anAllDayTodoShowsItsDateAndIsOverdueOnlyAfterItsDay() {
        let transport = FakeTransport { (method, params) throws(ClientError) in
            guard method == "todo.list" else { return try FakeTransport.canned(method, params) }
            return [
                "total": 4,
                "todos": [
                    Self.todo(due: "2026-05-31T15:00:00Z", remind: nil, allDay: true, title: "today"),
                    Self.todo(due: "2026-05-30T15:00:00Z", remind: nil, allDay: true, title: "yesterday"),
                    Self.todo(due: "2026-06-01T15:00:00Z", remind: nil, allDay: true, title: "tomorrow"),
                    Self.todo(due: "2026-06-01T11:00:00Z", remind: nil, title: "timed")
                ]
            ]
        }
        let result = Self.run(["list"], transport: transport, isTerminal: true)
        #expect(result.status == 0)
        let lines = result.stdoutLines
        func row(_ title: String) -> String { lines.first { $0.hasSuffix(title) } ?? "" }
        let red = "\u{1B}[31m"
        #expect(row("today").contains("2026-06-01") && row("today").contains("today") && !row("today").contains(red))
        #expect(!row("today").contains(":"), "no time: \(row("today"))")
        #expect(
            row("yesterday").contains("2026-05-31") && row("yesterday").contains("1d overdue")
                && row("yesterday").contains(red))
        #expect(
            row("tomorrow").contains("2026-06-02") && row("tomorrow").contains("tomorrow")
                && !row("tomorrow").contains(red))
        #expect(
            row("timed").contains("2026-06-01 20:00") && row("timed").contains("1h overdue")
                && row("timed").contains(red))
    }

    @Test func showAndSummary() {
        let today = Self.todo(due: "2026-05-31T15:00:00Z", remind: "2026-06-01T00:00:00Z", allDay: true)
        let shown = Self.run(["show", "12"], transport: Self.transport(current: today))
        #expect(shown.stdoutLines.contains("Due:      2026-06-01 (today)"), "\(shown.stdout)")
        let added = Self.run(
            ["add", "x", "--due", "tomorrow"],
            transport: FakeTransport { (method, params) throws(ClientError) in
                Self.todo(
                    due: params["due"]?.stringValue, remind: params["remind"]?.stringValue,
                    allDay: params["allDay"] == true)
            })
        #expect(added.stdout == "Added 12: x (due tomorrow)\n")
    }

    /// An all-day date is the day it was entered for, wherever it is shown: Tuesday in Tokyo is
    /// still Tuesday for someone in New York, where it is Monday morning.
    @Test func anAllDayDateIsReadInItsOwnZone() {
        let tuesday = Self.todo(due: "2026-06-01T15:00:00Z", remind: nil, allDay: true)
        let newYork = ZoneInfo(identifier: "America/New_York") ?? .utc
        let shown = Self.run(
            ["show", "12"], transport: Self.transport(current: tuesday), timeZone: newYork, zoneName: "America/New_York"
        )
        #expect(shown.stdoutLines.contains("Due:      2026-06-02 (tomorrow)"), "\(shown.stdout)")
    }
}

/// A page by due date is read from the daemon a part at a time: `LocalDayListing.settles` says
/// when the rows read hold the page by local day (rows not read can move no more than a day
/// earlier than the last one read).
@Suite struct LocalDayPartsTests {
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo") ?? .utc

    static func listing(limit: Int, descending: Bool = false) -> LocalDayListing? {
        var query = TodoQuery()
        query.sort = [TodoQuery.SortKey(.due, descending: descending)]
        query.limit = limit
        return LocalDayListing(query: query, zone: tokyo, zones: { ZoneInfo(identifier: $0) })
    }

    /// Todos due an hour apart from `base`, in the daemon's order (the hours given).
    static func hourly(_ hours: some Sequence<Int>, undated: Int = 0) -> [Todo] {
        let base = Instant(rfc3339: "2026-06-01T00:00:00Z") ?? Fixtures.now
        return hours.map {
            Todo(
                id: Int64($0), title: "t", due: base.adding(usec: Int64($0) * 3_600_000_000), position: $0,
                created: Fixtures.now, updated: Fixtures.now)
        }
            + (0..<undated).map {
                Todo(id: 10_000 + Int64($0), title: "u", position: 1, created: Fixtures.now, updated: Fixtures.now)
            }
    }

    @Test func aPageSettlesOnceTheRowsReadReachADayPastIt() throws {
        let page = try #require(Self.listing(limit: 50))
        #expect(page.readsInParts && page.firstPart == 256)
        // The 50th is due at hour 49; a row not read could be due by its local day 27 hours
        // before the last one read.
        #expect(!page.settles(Self.hourly(0..<60), todo: { $0 }))
        #expect(!page.settles(Self.hourly(0..<77), todo: { $0 }))
        #expect(page.settles(Self.hourly(0..<78), todo: { $0 }))
        #expect(!page.settles(Self.hourly(0..<40), todo: { $0 }))
        // Undated rows come after every dated one: once one is read, nothing dated is left.
        #expect(page.settles(Self.hourly(0..<40, undated: 1), todo: { $0 }))
        // Descending: the mirror image.
        let latest = try #require(Self.listing(limit: 50, descending: true))
        #expect(!latest.settles(Self.hourly((123..<200).reversed()), todo: { $0 }))
        #expect(latest.settles(Self.hourly((122..<200).reversed()), todo: { $0 }))
        // A due-date filter reads the whole range (its count is the listing's).
        var filtered = TodoQuery()
        filtered.sort = [TodoQuery.SortKey(.due)]
        filtered.limit = 5
        filtered.dueBefore = Fixtures.now
        let whole = try #require(
            LocalDayListing(query: filtered, zone: Self.tokyo, zones: { ZoneInfo(identifier: $0) }))
        #expect(!whole.readsInParts && whole.firstPart == nil)
    }
}
