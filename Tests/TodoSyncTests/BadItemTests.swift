import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// One bad item blocks nothing (docs/SYNC.md "What does not sync"): a resource todod's rules
/// refuse, one it cannot read, and a write the server refuses are each left out and named in the
/// state's problems (and so in `sync status`) while everything else syncs; nothing todod could
/// not read is overwritten or deleted; the first round of a store against a calendar that both
/// hold todos follows `--initial`; a state of another store is never applied.
@Suite struct BadItemTests {
    /// Remote todos the store's rules refuse, each by its name in the test.
    static let refusedHere: [(name: String, uid: String, extra: [String], summary: String)] = [
        ("long title", "bad-title", [], String(repeating: "長", count: 1001)),
        ("invisible title", "bad-invisible", [], "\u{200B}"),
        ("uid with a space", "bad uid", [], "uid with a space"),
        ("uid over 255 bytes", String(repeating: "u", count: 300), [], "long uid"),
        ("long description", "bad-notes", ["DESCRIPTION:" + String(repeating: "n", count: 70_000)], "long notes"),
        ("long category", "bad-category", ["CATEGORIES:" + String(repeating: "c", count: 300)], "long category")
    ]

    @Test func aRemoteTodoTheStoreRefusesIsNamedAndTheRestSyncs() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        cal.put("good-1.ics", vtodo(uid: "good-1", summary: "良い 1"))
        for bad in Self.refusedHere {
            // Folded as a server would store it (the long lines).
            cal.put(
                "\(bad.name.replacingOccurrences(of: " ", with: "-")).ics",
                vtodo(uid: bad.uid, summary: bad.summary, extra: bad.extra))
        }
        cal.put("good-2.ics", vtodo(uid: "good-2", summary: "良い 2"))
        let local = try #require(try m.add("ここから")["uid"]?.stringValue)

        let report = try m.sync(cal)
        let uids = Set(try m.todos().compactMap { $0["uid"]?.stringValue })
        #expect(uids == ["good-1", "good-2", local])
        #expect(cal.href(uid: local) != nil, "the local todo reached the server")
        let named = Dictionary(report.problems.map { ($0.uid ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        for bad in Self.refusedHere {
            let problem = named[bad.uid]
            #expect(problem?.kind == .rejected, "\(bad.name): \(report.problems)")
            #expect(problem?.reason.hasPrefix("todod refuses it: ") == true, "\(bad.name)")
        }
        #expect(named["bad-title"]?.reason.contains("title") == true)
        #expect(named["bad-notes"]?.reason.contains("notes") == true)
        #expect(report.problems.count == Self.refusedHere.count)

        // A later round (from the token) still names them, and the rest keeps syncing.
        try m.add("後から")
        let again = try m.sync(cal)
        #expect(again.problems.count == Self.refusedHere.count)
        #expect(again.sent == 1)
        // Fixed on the server: it comes in and is no longer named; deleted: no longer named.
        try cal.edit(#require(cal.href(uid: "bad-title"))) {
            $0.replacingOccurrences(of: String(repeating: "長", count: 1001), with: "短い")
        }
        cal.remove(try #require(cal.href(uid: "bad-notes")))
        let fixed = try m.sync(cal)
        #expect(try m.todo(uid: "bad-title")?["title"]?.stringValue == "短い")
        #expect(
            Set(fixed.problems.compactMap(\.uid))
                == Set(Self.refusedHere.map(\.uid)).subtracting(["bad-title", "bad-notes"]))
        // Nothing was written over or deleted on the server.
        #expect(cal.deletes == 0)
    }

    @Test func anUnreadableResourceStaysNamedAndIsNeverOverwrittenOrDeleted() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(try m.add("読める")["uid"]?.stringValue)
        try m.sync(cal)
        let href = try #require(cal.href(uid: uid))
        // Another client writes something todod cannot read over it, and one more such resource.
        let garbage =
            "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:\(uid)\r\nSUMMARY:\u{FFFD}\r\nBEGIN:VALARM\r\nEND:VTODO\r\n"
        cal.edit(href) { _ in garbage }
        cal.put("other.ics", "not iCalendar at all\r\n")
        let first = try m.sync(cal)
        #expect(first.problems.map(\.kind) == [.unreadable, .unreadable], "\(first.problems)")
        #expect(Set(first.problems.map(\.href)) == [href, cal.path + "other.ics"])
        // Later rounds, with and without local edits of that todo, keep naming both; the store
        // keeps its todo, and the server keeps what it has.
        for i in 0..<3 {
            if i == 1 { try m.update(uid: uid, ["title": "ここで直した"]) }
            let r = try m.sync(cal)
            #expect(r.problems.count == 2, "round \(i)")
            #expect(try m.todo(uid: uid) != nil)
            let there = String(decoding: cal.resources[href]?.data ?? [], as: UTF8.self)
            #expect(there == garbage)
            if i >= 1 { #expect(r.pending == 1, "the local edit waits, counted") }
        }
        #expect(cal.deletes == 0 && cal.updates == 0)
        // Fixed on the server: the edits merge, and it is named no more.
        cal.edit(href) { _ in vtodo(uid: uid, summary: "読める", modified: "20200101T000000Z") }
        let fixed = try m.sync(cal)
        #expect(fixed.problems.map(\.href) == [cal.path + "other.ics"])
        #expect(try m.todo(uid: uid)?["title"]?.stringValue == "ここで直した")
        let now = String(decoding: cal.resources[href]?.data ?? [], as: UTF8.self)
        #expect(now.contains("SUMMARY:ここで直した"))
        #expect(fixed.pending == 0)
    }

    @Test func aWriteTheServerRefusesStopsNothingAndIsTriedAgain() throws {
        let m = try Machine()
        let cal = RefusingCollection()
        for i in 0..<6 { try m.add(i == 2 ? "refuse me" : "todo \(i)") }
        let first = try m.sync(cal)
        #expect(cal.resources.count == 5, "every other todo reached the server")
        #expect(first.problems.map(\.kind) == [.refused])
        #expect(first.problems.first?.title == "refuse me")
        #expect(first.problems.first?.reason == "the server answered 403: valid-calendar-data")
        #expect(first.pending == 1)
        // Tried again next round (still refused), then accepted.
        let second = try m.sync(cal)
        #expect(second.problems.count == 1 && second.pending == 1 && cal.refusals == 2)
        cal.refusing = nil
        let third = try m.sync(cal)
        #expect(third.problems.isEmpty && third.pending == 0)
        #expect(cal.resources.count == 6)
    }

    // MARK: A store is itself

    /// The store and the calendar both hold todos: a todo only the store has, one only the
    /// calendar has, and one both have in different versions.
    static func firstRound(_ mode: String?) throws -> (Machine, InMemoryCollection, RoundReport, localOnly: String) {
        let m = try Machine()
        let cal = InMemoryCollection()
        let localOnly = try #require(try m.add("ここだけ")["uid"]?.stringValue)
        let both = try #require(try m.add("両方 (ここ)")["uid"]?.stringValue)
        try m.update(uid: both, ["title": "両方 (ここ)"])
        cal.put("remote-only.ics", vtodo(uid: "remote-only", summary: "向こうだけ"))
        cal.put("both.ics", vtodo(uid: both, summary: "両方 (向こう)", modified: "20200101T000000Z"))
        let store = try LocalStore(socket: m.daemon.socket)
        let (state, _) = try SyncState.open(path: m.statePath)
        let round = SyncRound(
            account: "home", collection: cal, store: store, state: state, codec: VTodoCodec(),
            options: .init(initial: mode))
        let report = try round.run()
        return (m, cal, report, localOnly)
    }

    @Test func initialMergeTakesBothSides() throws {
        let (m, cal, _, localOnly) = try Self.firstRound(nil)
        #expect(try m.todo(uid: localOnly) != nil && cal.href(uid: localOnly) != nil)
        #expect(try m.todo(uid: "remote-only") != nil)
        #expect(try m.todos().count == 3 && cal.resources.count == 3)
    }

    @Test func initialRemoteLetsTheCalendarWinInOneUndoableChange() throws {
        let (m, cal, _, localOnly) = try Self.firstRound("remote")
        #expect(try m.todo(uid: localOnly) == nil, "what only the store had is removed here")
        #expect(cal.href(uid: localOnly) == nil, "and never uploaded")
        let titles = Set(try m.todos().compactMap { $0["title"]?.stringValue })
        #expect(titles == ["向こうだけ", "両方 (向こう)"])
        // One undo brings the removed todo back.
        _ = try m.client.result("store.undo", [:])
        #expect(try m.todo(uid: localOnly) != nil)
    }

    @Test func initialLocalLetsTheStoreWin() throws {
        let (m, cal, _, localOnly) = try Self.firstRound("local")
        #expect(cal.href(uid: "remote-only") == nil, "what only the calendar had is deleted there")
        #expect(try m.todo(uid: "remote-only") == nil)
        #expect(cal.href(uid: localOnly) != nil)
        let both = try #require(cal.items().values.first { $0.entry.title.hasPrefix("両方") })
        #expect(both.entry.title == "両方 (ここ)")
    }

    /// The state of store A run against store B (a TODOD_SOCKET mix-up) is not applied: B is
    /// matched by UID from full listings, nothing of B is deleted, and A's todos stay on the
    /// server; back on A, A's todos are all still there.
    @Test func aStateOfAnotherStoreIsNeverApplied() throws {
        let a = try Machine()
        let cal = InMemoryCollection()
        for i in 0..<5 { try a.add("A \(i)") }
        try a.sync(cal)
        let b = try Machine()
        try b.add("B のもの")
        // B with A's state file.
        let store = try LocalStore(socket: b.daemon.socket)
        let (state, _) = try SyncState.open(path: a.statePath)
        let report = try SyncRound(account: "home", collection: cal, store: store, state: state, codec: VTodoCodec())
            .run()
        #expect(report.sent == 1 && report.received == 5)
        #expect(try b.todos().count == 6)
        #expect(cal.resources.count == 6 && cal.deletes == 0)
        #expect(state.storeID == report.storeID)
        // A again, with the state now B's: nothing deleted either side.
        let back = try SyncRound(
            account: "home", collection: cal, store: try LocalStore(socket: a.daemon.socket), state: state,
            codec: VTodoCodec()
        ).run()
        #expect(back.received == 1)
        #expect(try a.todos().count == 6 && cal.resources.count == 6 && cal.deletes == 0)
    }
}

/// An in-memory collection that refuses, with 403 `valid-calendar-data`, every PUT whose body
/// holds `refusing` (Cyrus refusing one VTODO).
final class RefusingCollection: CalendarCollection, @unchecked Sendable {
    let inner = InMemoryCollection()
    var refusing: String? = "SUMMARY:refuse me"
    private(set) var refusals = 0
    var url: String { inner.url }
    var resources: [String: (etag: String, data: [UInt8])] { inner.resources }

    func refuse(_ data: [UInt8]) throws(CalDAVError) {
        if let refusing, String(decoding: data, as: UTF8.self).contains(refusing) {
            refusals += 1
            throw .http(status: 403, "valid-calendar-data")
        }
    }
    func changes(since token: String?) throws(CalDAVError) -> CollectionDelta { try inner.changes(since: token) }
    func versions() throws(CalDAVError) -> [RemoteVersion] { try inner.versions() }
    func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject] { try inner.fetch(hrefs) }
    func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?) {
        try refuse(data)
        return try inner.create(name: name, data: data)
    }
    func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String? {
        try refuse(data)
        return try inner.update(href: href, data: data, ifMatch: etag)
    }
    func delete(href: String, ifMatch etag: String) throws(CalDAVError) { try inner.delete(href: href, ifMatch: etag) }
}

/// Every change travels: a category rename, a forced category delete, and their undo and redo
/// reach the server like an edit.
@Suite struct CategoryChangeSyncTests {
    @Test func aCategoryRenameAndAForcedDeleteReachTheServer() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        _ = try m.client.result("category.add", ["name": "買い物"])
        let uid = try #require(try m.add("牛乳", ["category": "買い物"])["uid"]?.stringValue)
        try m.sync(cal)
        #expect(cal.items()[uid]?.entry.category == "買い物")
        func synced(_ expected: String?, _ step: String) throws {
            let r = try m.sync(cal)
            #expect(r.sent == 1, "\(step): \(r)")
            #expect(cal.items()[uid]?.entry.category == expected, "\(step)")
        }
        _ = try m.client.result("category.rename", ["name": "買い物", "newName": "お買い物"])
        try synced("お買い物", "rename")
        _ = try m.client.result("store.undo", [:])
        try synced("買い物", "undo")
        _ = try m.client.result("store.redo", [:])
        try synced("お買い物", "redo")
        _ = try m.client.result("category.delete", ["name": "お買い物", "force": true])
        try synced(nil, "category rm --force")
        _ = try m.client.result("store.undo", [:])
        try synced("お買い物", "undo of the delete")
    }
}

/// What sync reports is true: a conflict names the value that lost, an edit made on one side
/// only is no conflict (whatever the other client keeps that todod does not model), and what
/// sync changed in the store is named for its account in the undo history.
@Suite struct HonestSyncReportTests {
    @Test func aPhoneOnlyEditIsNoConflict() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let extra = [
            "CLASS:PUBLIC", "X-PHONE-COLOR;VALUE=TEXT:#ff0000", "GEO:35.68;139.76", "X-EMPTYISH:a\\, b",
            "DTSTART:20261130T090000Z", "ATTACH;FMTTYPE=text/plain:https://example.org/a.txt", "PERCENT-COMPLETE:10",
            "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:-PT5M", "END:VALARM", "SEQUENCE:3", "X-MOZ-GENERATION:2",
            "RELATED-TO;RELTYPE=PARENT:parent-uid", "X-QUOTED;X-P=\"a;b:c\":v",
            "X-LONG:" + String(repeating: "長い行", count: 40), "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x",
            "TRIGGER;VALUE=DATE-TIME:20261201T080000Z", "ACKNOWLEDGED:20261201T080100Z", "END:VALARM"
        ]
        cal.put("phone.ics", vtodo(uid: "phone", summary: "電話から", extra: extra))
        try m.sync(cal)
        try m.update(uid: "phone", ["notes": "ここでメモ"])
        try m.sync(cal)
        let href = try #require(cal.href(uid: "phone"))
        cal.edit(href) { text in
            text.replacingOccurrences(of: "SUMMARY:電話から", with: "SUMMARY:電話で直した")
                .replacingOccurrences(
                    of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:20301201T090000Z", options: .regularExpression)
        }
        var conflicts: [SyncStatus.Conflict] = []
        let r = try m.sync(cal, conflicts: { conflicts.append($0) })
        #expect(r.conflicts.isEmpty && conflicts.isEmpty, "\(conflicts)")
        #expect(try m.todo(uid: "phone")?["title"]?.stringValue == "電話で直した")
    }

    @Test func aConflictShowsTheValueThatLostAndSyncChangesAreNamed() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(try m.add("元の題")["uid"]?.stringValue)
        try m.sync(cal)
        try m.update(uid: uid, ["title": "ここの題"])
        cal.edit(try #require(cal.href(uid: uid))) { text in
            text.replacingOccurrences(of: "SUMMARY:元の題", with: "SUMMARY:向こうの題")
                .replacingOccurrences(
                    of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:20300101T000000Z", options: .regularExpression)
        }
        let r = try m.sync(cal)
        let conflict = try #require(r.conflicts.first)
        #expect(conflict.kept == "remote" && conflict.fields == ["title"])
        #expect(conflict.lost == "title \"ここの題\"", "\(String(describing: conflict.lost))")
        // The round's change to the store is named for the account.
        let history = try m.client.result("store.history", [:]).arrayValue ?? []
        #expect(history.contains { $0["description"]?.stringValue == "sync home: 0 added, 1 updated" }, "\(history)")
        #expect(!history.contains { $0["description"]?.stringValue?.hasPrefix("import:") == true })
        // Undoing it says where it came from.
        let undo = try ChildProcess.run(
            BuiltProducts.path("todoctl"), ["undo"],
            environment: [
                "TODOD_SOCKET": m.daemon.socket, "HOME": m.directory.path,
                "XDG_CONFIG_HOME": m.directory.file("config"), "LANG": "C.UTF-8"
            ])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.hasPrefix("Undid: sync home: 0 added, 1 updated\n"), "\(undo.stdout)")
        #expect(undo.stdout.contains("came from the server of sync account home"))
        #expect(try m.todo(uid: uid)?["title"]?.stringValue == "ここの題")
    }
}
