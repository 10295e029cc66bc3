import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// Two accounts of one store, each with lists (`lists = yes`) on a server of its own, whose
/// calendars have the same names (`Tasks`, `仕事`): the built `todod-sync --once` against two
/// real servers of each kind, another client's todos written there over plain CalDAV.
@Suite(.serialized, .enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct ListAccountsTests {
    /// A server of `kind` with its default list (`Tasks タスク`) and the calendars `Tasks` and
    /// `仕事`, each holding a phone's todo (`PHONE Tasks`, ...): the calendars' URLs and the phone
    /// todos' UIDs by calendar name.
    static func server(_ kind: CalDAVServer.Kind, phone: String) throws
        -> (server: CalDAVServer, urls: [String: String], phone: [String: String])
    {
        let (server, defaultList) = try ListSyncTests.server(kind)
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        var urls: [String: String] = ["Tasks タスク": defaultList]
        var uids: [String: String] = [:]
        for (path, name) in [("default", "Tasks タスク"), ("tasks", "Tasks"), ("work", "仕事")] {
            let url = urls[name] ?? server.homeURL + path + "-" + UUID().uuidString.lowercased().prefix(8) + "/"
            if urls[name] == nil { try dav.makeCalendar(at: url, name: name) }
            let uid = "\(phone)-\(path)-" + UUID().uuidString
            let data = Array(vtodo(uid: uid, summary: "\(phone) \(name)").utf8)
            _ = try dav.collection(url: url).create(name: "\(phone).ics", data: data)
            urls[name] = url
            uids[name] = uid
        }
        return (server, urls, uids)
    }

    /// A host whose account `home` has the lists of `home` and whose account `work` (after it in
    /// sync.conf) those of `work`.
    static func host(_ home: CalDAVServer, _ work: CalDAVServer) throws -> CalDAVSyncTests.Host {
        let host = try ListSyncTests.host(home)
        let passwordFile = host.home.file("work.password")
        let password = Data(((work.password ?? "unused") + "\n").utf8)
        let created = FileManager.default.createFile(
            atPath: passwordFile, contents: password,
            attributes: [.posixPermissions: 0o600])
        #expect(created)
        var account = SyncAccount(
            name: "work", url: work.rootURL, user: work.user ?? "anyone",
            passwordFile: passwordFile)
        account.lists = true
        account.defaultList = ListSyncTests.defaultName
        let accounts = try SyncConfig.load(environment: host.environment) + [account]
        try SyncConfig.save(accounts, environment: host.environment)
        return host
    }

    /// The store's category names, sorted.
    static func categories(_ host: CalDAVSyncTests.Host) throws -> [String] {
        let list = try host.machine.client.result("category.list", [:]).arrayValue ?? []
        return list.compactMap { $0["name"]?.stringValue }.sorted()
    }

    /// Every UID on `server`, in any calendar.
    static func uids(_ server: CalDAVServer) throws -> Set<String> {
        Set(try ListSyncTests.lists(server).values.flatMap(\.items.keys))
    }

    /// A quiet round: every account's line says nothing went either way.
    static func expectQuiet(_ host: CalDAVSyncTests.Host, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try host.once()
        let lines = r.stdout.split(separator: "\n").filter { $0.hasPrefix("home:") || $0.hasPrefix("work:") }
        #expect(
            r.status == 0 && lines.count == 2 && lines.allSatisfy { $0.contains(": 0 sent, 0 received") },
            "\(r.stdout)\(r.stderr)", sourceLocation: sourceLocation)
    }

    @Test(arguments: CalDAVServer.Kind.allCases)
    func listsOfOneNameInTwoAccountsStayApart(_ kind: CalDAVServer.Kind) throws {
        let home = try Self.server(kind, phone: "home")
        let work = try Self.server(kind, phone: "work")
        let a = try Self.host(home.server, work.server)
        let plain = try #require(try a.machine.add("plain")["uid"]?.stringValue)
        try ListSyncTests.once(a)

        // Each calendar is a category of its own; the later account's names that clash carry it.
        let first = try Self.categories(a)
        // Cyrus makes each user a calendar `personal`, empty: a category from the first round too.
        let own = kind == .cyrus ? ["personal", "personal (work)"] : []
        #expect(first == (["Tasks", "Tasks (work)", "Tasks タスク (work)", "仕事", "仕事 (work)"] + own).sorted(), "\(first)")
        var todos = try ListSyncTests.byUID(a)
        for (phone, suffix) in [(home.phone, ""), (work.phone, " (work)")] {
            #expect(todos[phone["Tasks"] ?? ""]?["category"]?.stringValue == "Tasks" + suffix)
            #expect(todos[phone["仕事"] ?? ""]?["category"]?.stringValue == "仕事" + suffix)
        }
        // The todos without a category are the first account's: work's default list is a list.
        #expect(todos[home.phone["Tasks タスク"] ?? ""]?["category"] == .null)
        #expect(todos[work.phone["Tasks タスク"] ?? ""]?["category"]?.stringValue == "Tasks タスク (work)")
        var homeUIDs = try Self.uids(home.server)
        var workUIDs = try Self.uids(work.server)
        #expect(homeUIDs.contains(plain) && !workUIDs.contains(plain))

        // Todos made here go to their own account's calendar only; a new category is a calendar
        // of the first account (the one holding the todos without a category), not of both.
        let milk = try #require(try a.machine.add("牛乳", ["category": "Tasks"])["uid"]?.stringValue)
        let slides = try #require(try a.machine.add("会議資料", ["category": "Tasks (work)"])["uid"]?.stringValue)
        let quote = try #require(try a.machine.add("見積もり", ["category": "仕事 (work)"])["uid"]?.stringValue)
        let eggs = try #require(try a.machine.add("卵", ["category": "買い物"])["uid"]?.stringValue)
        try ListSyncTests.once(a)
        var onHome = try ListSyncTests.lists(home.server)
        var onWork = try ListSyncTests.lists(work.server)
        #expect(onHome["Tasks"]?.items[milk] != nil && onWork["Tasks"]?.items[slides] != nil)
        #expect(onWork["仕事"]?.items[quote] != nil && onHome["買い物"]?.items[eggs] != nil)
        #expect(onWork["買い物"] == nil, "\(onWork.keys.sorted())")
        homeUIDs = try Self.uids(home.server)
        workUIDs = try Self.uids(work.server)
        #expect(homeUIDs.isDisjoint(with: [slides, quote] + work.phone.values), "\(homeUIDs)")
        #expect(workUIDs.isDisjoint(with: [milk, eggs, plain] + home.phone.values), "\(workUIDs)")
        try Self.expectQuiet(a)

        // A move to the other account's category moves the todo to that server (same UID).
        try a.machine.update(uid: milk, ["category": "Tasks (work)"])
        try a.machine.update(uid: slides, ["category": "仕事"])
        try ListSyncTests.once(a)
        onHome = try ListSyncTests.lists(home.server)
        onWork = try ListSyncTests.lists(work.server)
        homeUIDs = try Self.uids(home.server)
        workUIDs = try Self.uids(work.server)
        #expect(onWork["Tasks"]?.items[milk]?.entry.title == "牛乳" && !homeUIDs.contains(milk))
        #expect(onHome["仕事"]?.items[slides]?.entry.title == "会議資料" && !workUIDs.contains(slides))
        todos = try ListSyncTests.byUID(a)
        #expect(todos[milk]?["category"]?.stringValue == "Tasks (work)")
        #expect(todos[slides]?["category"]?.stringValue == "仕事")
        try Self.expectQuiet(a)

        // Renamed here: the calendar of that account follows, the other account's stays.
        _ = try a.machine.client.result("category.rename", ["name": "Tasks (work)", "newName": "Errands"])
        try ListSyncTests.once(a)
        onHome = try ListSyncTests.lists(home.server)
        onWork = try ListSyncTests.lists(work.server)
        #expect(
            onWork["Errands"]?.url == work.urls["Tasks"] && onWork["Errands"]?.items[milk] != nil,
            "\(onWork.keys.sorted())")
        #expect(onHome["Tasks"]?.url == home.urls["Tasks"] && onWork["Tasks"] == nil)
        // Renamed there (another client of work): the category follows, still apart from home's.
        let workDAV = CalDAVAccount(url: work.server.rootURL, user: work.server.user, password: work.server.password)
        try workDAV.renameCalendar(at: try #require(work.urls["仕事"]), to: "Tasks")
        try ListSyncTests.once(a)
        let renamed = try Self.categories(a)
        #expect(
            renamed == (["Errands", "Tasks", "Tasks (work)", "Tasks タスク (work)", "仕事", "買い物"] + own).sorted(),
            "\(renamed)")
        #expect(try ListSyncTests.byUID(a)[quote]?["category"]?.stringValue == "Tasks (work)")

        // The names hold across rounds and processes (each --once is a new todod-sync).
        try Self.expectQuiet(a)
        try Self.expectQuiet(a)
        #expect(try Self.categories(a) == renamed)

        // A second store with the same accounts gets the same categories, each todo in its own.
        let b = try Self.host(home.server, work.server)
        try ListSyncTests.once(b)
        #expect(try Self.categories(b) == renamed)
        let inA = try ListSyncTests.byUID(a)
        let inB = try ListSyncTests.byUID(b)
        #expect(inA.keys.sorted() == inB.keys.sorted())
        for (uid, todo) in inA {
            #expect(inB[uid]?["category"] == todo["category"], "\(todo["title"] ?? .null)")
        }
        try Self.expectQuiet(b)
        try Self.expectQuiet(a)
    }
}
