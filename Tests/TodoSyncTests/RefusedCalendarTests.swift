import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// A new category whose calendar the server will not make (`MKCALENDAR` refused): it stays in
/// the store, `todoctl sync status` names it with the server's reason and counts its todos as
/// pending, every other todo syncs, and once the calendar is there (made by the server's
/// administrator, or the server allows it) its todos go to it. The built `todod-sync --once`
/// against Radicale with a rights file that denies the user new calendars, and against every
/// server kind behind the fault proxy answering `MKCALENDAR` with 501 or 405.
@Suite(.serialized, .enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct RefusedCalendarTests {
    /// Radicale's rights: `admin` may do anything; alice reads her home and writes only in the
    /// calendars `0-default` and `given-*` (so her MKCALENDAR elsewhere is refused, 403).
    static let rights = """
        [root]
        user: .+
        collection:
        permissions: R

        [admin]
        user: admin
        collection: .*
        permissions: RrWw

        [principal]
        user: alice
        collection: {user}
        permissions: RrW

        [given]
        user: alice
        collection: {user}/(0-default|given-[^/]*)(/.*)?
        permissions: RrWw

        [rest]
        user: alice
        collection: {user}/.*
        permissions: Rr
        """

    /// `todoctl sync status` of the host.
    static func statusText(_ host: CalDAVSyncTests.Host) throws -> String {
        let r = try ChildProcess.run(BuiltProducts.path("todoctl"), ["sync", "status"], environment: host.environment)
        return r.stdout + r.stderr
    }

    /// The host's todos `milk` and `eggs` (category 買い物, refused a calendar) and `plain`,
    /// after a first round: nothing of 買い物 on the server, the list named in `sync status` with
    /// `reason` (the server's words), its two todos pending; then an edit and a new todo of the
    /// default list still sync.
    static func refusedFirst(
        _ host: CalDAVSyncTests.Host, _ server: CalDAVServer, reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws
        -> (milk: String, eggs: String, plain: String)
    {
        let milk = try #require(try host.machine.add("牛乳", ["category": "買い物"])["uid"]?.stringValue)
        let eggs = try #require(try host.machine.add("卵", ["category": "買い物"])["uid"]?.stringValue)
        let plain = try #require(try host.machine.add("plain")["uid"]?.stringValue)
        // --once says it and exits 1: not everything is on the server.
        let r = try host.once(["--verbose"])
        #expect(
            r.status == 1 && r.stdout.contains("2 pending, 1 not syncing"), "\(r.stdout)\(r.stderr)",
            sourceLocation: sourceLocation)
        var lists = try ListSyncTests.lists(server)
        #expect(
            lists["買い物"] == nil && lists["Tasks タスク"]?.items[plain] != nil, "\(lists.keys.sorted())",
            sourceLocation: sourceLocation)
        let status = try statusText(host)
        let line = status.split(separator: "\n").first { $0.contains("買い物") && $0.contains("stays in this store only") }
        #expect(line?.contains(reason) == true, "\(status)", sourceLocation: sourceLocation)
        #expect(
            host.status?.pending == 2 && host.status?.problems.count == 1, "\(status)",
            sourceLocation: sourceLocation)

        // Every other todo still syncs, and the list is tried again each round.
        try host.machine.update(uid: plain, ["title": "plain edited"])
        let later = try #require(try host.machine.add("later")["uid"]?.stringValue)
        let again = try host.once(["--verbose"])
        #expect(
            again.status == 1 && again.stdout.contains("2 sent"), "\(again.stdout)\(again.stderr)",
            sourceLocation: sourceLocation)
        lists = try ListSyncTests.lists(server)
        let tasks = lists["Tasks タスク"]?.items
        #expect(tasks?[plain]?.entry.title == "plain edited" && tasks?[later] != nil, sourceLocation: sourceLocation)
        #expect(lists["買い物"] == nil && host.status?.pending == 2, sourceLocation: sourceLocation)
        return (milk, eggs, plain)
    }

    /// Once the list has its calendar: its todos are there, nothing is pending or named, and
    /// the next round is quiet.
    static func expectArrived(
        _ host: CalDAVSyncTests.Host, _ server: CalDAVServer, _ uids: [String], at url: String?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let r = try host.once(["--verbose"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)", sourceLocation: sourceLocation)
        let shopping = try ListSyncTests.lists(server)["買い物"]
        #expect(shopping.map { Set($0.items.keys) } == Set(uids), "\(r.stdout)", sourceLocation: sourceLocation)
        if let url { #expect(shopping?.url == url, sourceLocation: sourceLocation) }
        let status = try statusText(host)
        #expect(
            host.status?.pending == 0 && host.status?.problems == []
                && !status.contains("stays in this store only"),
            "\(status)", sourceLocation: sourceLocation)
        let category = try ListSyncTests.byUID(host)[uids[0]]?["category"]?.stringValue
        #expect(category == "買い物", sourceLocation: sourceLocation)
        let quiet = try host.once()
        #expect(
            quiet.stdout.contains(": 0 sent, 0 received"), "\(quiet.stdout)\(quiet.stderr)",
            sourceLocation: sourceLocation)
    }

    @Test func aPrincipalWithoutTheRightKeepsTheListUntilTheCalendarIsMade() throws {
        let server = try CalDAVServer.radicale(rights: Self.rights, users: [("admin", "管理者-pw")])
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        _ = try? dav.calendars() // Radicale makes the principal on first access
        try dav.makeCalendar(at: server.homeURL + "0-default/", name: "Tasks タスク")
        let host = try ListSyncTests.host(server)
        let (milk, eggs, _) = try Self.refusedFirst(host, server, reason: "403")

        // The administrator makes the calendar for her, by the list's name: its todos go there.
        let admin = CalDAVAccount(url: server.rootURL, user: "admin", password: "管理者-pw")
        let given = server.homeURL + "given-shopping/"
        try admin.makeCalendar(at: given, name: "買い物")
        try Self.expectArrived(host, server, [milk, eggs], at: given)
    }

    @Test(arguments: CalDAVServer.Kind.allCases)
    func aServerThatRefusesMKCALENDARKeepsTheListUntilItAllowsIt(_ kind: CalDAVServer.Kind) throws {
        let server = try ListSyncTests.server(kind).server
        let proxy = try FaultProxy(upstream: server.rootURL)
        // Each round asks once; the first two are refused, as a server without MKCALENDAR does.
        let refusal = kind == .xandikos ? (405, "Method Not Allowed") : (501, "MKCALENDAR is not implemented here")
        for _ in 0..<2 { try proxy.injectAnswer(status: refusal.0, body: refusal.1, method: "MKCALENDAR") }
        // DAViCal redirects discovery from its root to its own port: the principal's URL instead.
        let url = proxy.rootURL + (kind == .davical ? String(server.homeURL.dropFirst(server.rootURL.count)) : "")
        let host = try CalDAVSyncTests.Host(
            url: url, calendar: nil, user: server.user ?? "anyone",
            password: server.password ?? "unused")
        var account = try #require(try SyncConfig.load(environment: host.environment).first)
        account.lists = true
        account.defaultList = ListSyncTests.defaultName // Cyrus's own `personal` beside it
        try SyncConfig.save([account], environment: host.environment)
        let (milk, eggs, _) = try Self.refusedFirst(host, server, reason: String(refusal.0))

        // The server allows it now: the next round makes the calendar and the todos go there.
        try Self.expectArrived(host, server, [milk, eggs], at: nil)
    }
}
