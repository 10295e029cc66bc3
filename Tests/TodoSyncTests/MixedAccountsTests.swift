import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// An account with lists (`lists = yes`) and one without in one store, each on a server of its
/// own: the built `todod-sync --once` against two real servers of each kind, another client's
/// todos and edits made there over plain CalDAV (docs/SYNC.md, "Accounts with lists and
/// without"). The account without lists is a copy of the whole store; the one with lists
/// holds its calendars' categories, and the rest too only when it comes first in sync.conf.
@Suite(.serialized, .enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct MixedAccountsTests {
    typealias Host = CalDAVSyncTests.Host

    /// Adds the account `name` of `server` to `host`'s sync.conf, after its accounts: with
    /// lists, or syncing the one calendar `calendar`.
    static func add(
        _ name: String, _ server: CalDAVServer, calendar: String? = nil, lists: Bool,
        to host: Host
    ) throws {
        let passwordFile = host.home.file("\(name).password")
        let password = Data(((server.password ?? "unused") + "\n").utf8)
        let created = FileManager.default.createFile(
            atPath: passwordFile, contents: password,
            attributes: [.posixPermissions: 0o600])
        #expect(created)
        var account = SyncAccount(
            name: name, url: server.rootURL, user: server.user ?? "anyone",
            passwordFile: passwordFile, calendar: calendar)
        account.lists = lists
        if lists && calendar == nil { account.defaultList = ListSyncTests.defaultName }
        let accounts = try SyncConfig.load(environment: host.environment) + [account]
        try SyncConfig.save(accounts, environment: host.environment)
    }

    /// Turns lists on (or off) for the account `name` of `host`'s sync.conf, leaving its place.
    static func setLists(_ name: String, _ on: Bool, in host: Host) throws {
        let accounts = try SyncConfig.load(environment: host.environment).map { account in
            var account = account
            if account.name == name {
                account.lists = on
                if !on { account.defaultList = nil }
            }
            return account
        }
        try SyncConfig.save(accounts, environment: host.environment)
    }

    /// The todos of one calendar as an account without lists reads them (`X-TODOD-CATEGORY` is
    /// the category): by UID, and how many resources hold each UID.
    static func calendar(_ server: CalDAVServer, _ url: String) throws
        -> (items: [String: SyncItem], copies: [String: Int])
    {
        let collection = dav(server).collection(url: url)
        var items: [String: SyncItem] = [:]
        var copies: [String: Int] = [:]
        for object in try collection.fetch(try collection.versions().map(\.href)) {
            guard let item = try? VTodoCodec().item(object.data).get(), let uid = item.entry.uid else { continue }
            items[uid] = item
            copies[uid, default: 0] += 1
        }
        return (items, copies)
    }

    /// Each UID on `server` → the display names of the calendars holding it (sorted).
    static func placed(_ server: CalDAVServer) throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for (name, list) in try ListSyncTests.lists(server) {
            for uid in list.items.keys { out[uid, default: []].append(name) }
        }
        return out.mapValues { $0.sorted() }
    }

    /// Another client changes the SUMMARY of the todo `uid` in the calendar `url` to `title`.
    static func retitle(
        _ uid: String, in url: String, _ server: CalDAVServer, to title: String,
        modified: String = icalStamp(fromNow: 3_600)
    ) throws {
        let collection = dav(server).collection(url: url)
        let object = try resource(uid, in: collection)
        let text = String(decoding: object.data, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        if lines.count < 3 { lines = text.components(separatedBy: "\n") }
        // The SUMMARY and its folded continuation lines give way to the new one.
        guard let at = lines.firstIndex(where: { $0.hasPrefix("SUMMARY") }) else {
            Issue.record("no SUMMARY: \(text)")
            return
        }
        var end = at + 1
        while end < lines.count, lines[end].hasPrefix(" ") || lines[end].hasPrefix("\t") { end += 1 }
        lines.replaceSubrange(at..<end, with: ["SUMMARY:\(title)"])
        if let at = lines.firstIndex(where: { $0.hasPrefix("LAST-MODIFIED") }) {
            lines[at] = "LAST-MODIFIED:\(modified)"
        }
        let data = Array(lines.joined(separator: "\r\n").utf8)
        _ = try collection.update(href: object.href, data: data, ifMatch: object.etag)
    }

    /// Another client moves the todo `uid` from the calendar `from` to `to` (created there, then
    /// deleted here, as Nextcloud Tasks and tasks.org move a todo between lists; Cyrus takes a UID
    /// in one calendar of the user only: there it is deleted first).
    static func move(_ uid: String, from: String, to: String, _ server: CalDAVServer) throws {
        let dav = dav(server)
        let old = dav.collection(url: from)
        let object = try resource(uid, in: old)
        let name = "moved-\(UUID().uuidString).ics"
        if server.kind == .cyrus {
            try old.delete(href: object.href, ifMatch: object.etag)
            _ = try dav.collection(url: to).create(name: name, data: object.data)
        } else {
            _ = try dav.collection(url: to).create(name: name, data: object.data)
            try old.delete(href: object.href, ifMatch: object.etag)
        }
    }

    /// An account of `server`'s user.
    static func dav(_ server: CalDAVServer) -> CalDAVAccount {
        CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
    }

    /// The resource of the todo `uid` in `collection`.
    static func resource(_ uid: String, in collection: CalDAVCollection) throws -> RemoteObject {
        let objects = try collection.fetch(try collection.versions().map(\.href))
        return try #require(
            objects.first { (try? VTodoCodec().item($0.data).get())?.entry.uid == uid },
            "\(uid) not in \(collection.url)")
    }

    /// The store's todos: UID → category (nil: none).
    static func categories(_ host: Host) throws -> [String: String?] {
        try ListSyncTests.byUID(host).mapValues { $0["category"]?.stringValue }
    }

    /// A store whose account home syncs one calendar of a server of `kind` and comes first, and
    /// whose account work, after it, has lists on another server (with a phone's todo in each).
    static func homeWithoutListsThenWorkWithLists(_ kind: CalDAVServer.Kind) throws
        -> (
            homeServer: CalDAVServer, homeCalendar: String,
            work: (server: CalDAVServer, urls: [String: String], phone: [String: String]), host: Host
        )
    {
        let (homeServer, homeCalendar) = try ListSyncTests.server(kind)
        let work = try ListAccountsTests.server(kind, phone: "work")
        let host = try CalDAVSyncTests.host(homeServer, homeCalendar)
        try add("work", work.server, lists: true, to: host)
        return (homeServer, homeCalendar, work, host)
    }

    /// Two rounds of every account (a todo one account brings down goes to the other in the next).
    static func twice(_ host: Host) throws {
        try ListSyncTests.once(host)
        try ListSyncTests.once(host)
    }

    /// A store syncing the one calendar of `home` for rounds, then the account `work` with lists
    /// added after it: work's calendars come in as categories (its default calendar one too),
    /// and only they go to work's server; nothing of home's moves or is deleted, home's calendar
    /// gets a copy of every todo. Then edits on either server arrive, moves between categories
    /// move the resource on work's server only, a second store agrees, and home turning lists
    /// on later keeps every todo in its category.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func anAccountWithListsAfterOneWithoutHoldsOnlyItsLists(_ kind: CalDAVServer.Kind) throws {
        let (homeServer, homeCalendar) = try ListSyncTests.server(kind)
        let a = try CalDAVSyncTests.host(homeServer, homeCalendar)
        let plain = try #require(try a.machine.add("plain")["uid"]?.stringValue)
        let meeting = try #require(try a.machine.add("会議", ["category": "仕事", "tags": ["週次"]])["uid"]?.stringValue)
        let eggs = try #require(try a.machine.add("卵", ["category": "買い物"])["uid"]?.stringValue)
        let homePhone = "homephone-" + UUID().uuidString
        let phoneTodo = Array(vtodo(uid: homePhone, summary: "home phone").utf8)
        _ = try Self.dav(homeServer).collection(url: homeCalendar).create(name: "homephone.ics", data: phoneTodo)
        try Self.twice(a)
        #expect(try Self.calendar(homeServer, homeCalendar).items.count == 4)

        // work, with the lists Tasks タスク (its default calendar), Tasks and 仕事, after home.
        let work = try ListAccountsTests.server(kind, phone: "work")
        try Self.add("work", work.server, lists: true, to: a)
        try Self.twice(a)

        // Work's calendars are categories, its default calendar one too (home holds the todos
        // without a category); a category of home's of the same name (仕事) is that list.
        var expected: [String: String?] = [plain: nil, homePhone: nil, meeting: "仕事", eggs: "買い物"]
        for name in ["Tasks タスク", "Tasks", "仕事"] { expected[work.phone[name] ?? ""] = name }
        #expect(try Self.categories(a) == expected)
        // Cyrus makes each user a calendar `personal`, empty: a category from the first round too.
        #expect(
            try ListAccountsTests.categories(a)
                == (["Tasks", "Tasks タスク", "仕事", "買い物"] + (kind == .cyrus ? ["personal"] : [])).sorted())
        #expect(try ListSyncTests.byUID(a)[meeting]?["tags"]?.arrayValue?.compactMap(\.stringValue) == ["週次"])
        // Work's server holds its lists' todos only, each in its list's calendar, once; no
        // calendar is made there for home's categories.
        var onWork = try Self.placed(work.server)
        var placedOnWork: [String: [String]] = [meeting: ["仕事"]]
        for name in ["Tasks タスク", "Tasks", "仕事"] { placedOnWork[work.phone[name] ?? ""] = [name] }
        #expect(onWork == placedOnWork, "\(onWork)")
        #expect(try ListSyncTests.lists(work.server)["買い物"] == nil)
        // Home's calendar holds every todo of the store once, its category as X-TODOD-CATEGORY.
        var onHome = try Self.calendar(homeServer, homeCalendar)
        #expect(onHome.copies == expected.mapValues { _ in 1 }, "\(onHome.copies)")
        #expect(onHome.items.mapValues(\.entry.category) == expected)
        try ListAccountsTests.expectQuiet(a)

        // An edit on either server arrives in the store and on the other server.
        let workTasks = try #require(work.urls["Tasks"])
        let workWork = try #require(work.urls["仕事"])
        try Self.retitle(work.phone["Tasks"] ?? "", in: workTasks, work.server, to: "edited on work")
        try Self.retitle(meeting, in: homeCalendar, homeServer, to: "edited on home")
        try Self.twice(a)
        let todos = try ListSyncTests.byUID(a)
        #expect(todos[work.phone["Tasks"] ?? ""]?["title"]?.stringValue == "edited on work")
        #expect(todos[meeting]?["title"]?.stringValue == "edited on home")
        #expect(try ListSyncTests.lists(work.server)["仕事"]?.items[meeting]?.entry.title == "edited on home")
        onHome = try Self.calendar(homeServer, homeCalendar)
        #expect(onHome.items[work.phone["Tasks"] ?? ""]?.entry.title == "edited on work")

        // Moves here: into a list of work's (the resource made there), out of one to a category of
        // home's or none (the resource deleted there); home's calendar keeps each, recategorized.
        try a.machine.update(uid: eggs, ["category": "Tasks"])
        try a.machine.update(uid: work.phone["Tasks"] ?? "", ["category": .null])
        try a.machine.update(uid: meeting, ["category": "買い物"])
        // A move by another client of work's, between two of its calendars.
        try Self.move(work.phone["仕事"] ?? "", from: workWork, to: workTasks, work.server)
        try Self.twice(a)
        expected[eggs] = "Tasks"
        expected[work.phone["Tasks"] ?? ""] = .some(nil)
        expected[meeting] = "買い物"
        expected[work.phone["仕事"] ?? ""] = "Tasks"
        #expect(try Self.categories(a) == expected)
        onWork = try Self.placed(work.server)
        placedOnWork = [
            eggs: ["Tasks"], work.phone["Tasks タスク"] ?? "": ["Tasks タスク"],
            work.phone["仕事"] ?? "": ["Tasks"]
        ]
        #expect(onWork == placedOnWork, "\(onWork)")
        onHome = try Self.calendar(homeServer, homeCalendar)
        #expect(onHome.copies == expected.mapValues { _ in 1 }, "\(onHome.copies)")
        #expect(onHome.items.mapValues(\.entry.category) == expected)
        try ListAccountsTests.expectQuiet(a)
        try ListAccountsTests.expectQuiet(a)

        // A second store with the same accounts in the same order agrees.
        let b = try CalDAVSyncTests.host(homeServer, homeCalendar)
        try Self.add("work", work.server, lists: true, to: b)
        try Self.twice(b)
        #expect(try Self.categories(b) == expected)
        try ListAccountsTests.expectQuiet(b)
        try ListAccountsTests.expectQuiet(a)
        #expect(try Self.placed(work.server) == placedOnWork)

        // Home turns lists on (in both stores): it comes first, so it holds the todos without a
        // category and makes a calendar for its category 買い物; the todos of work's lists leave
        // its calendar. No todo changes category or goes away here, nothing changes on work's.
        try Self.setLists("home", true, in: a)
        try Self.setLists("home", true, in: b)
        try Self.twice(a)
        try Self.twice(b)
        #expect(try Self.categories(a) == expected)
        #expect(try Self.categories(b) == expected)
        #expect(try Self.placed(work.server) == placedOnWork)
        let onHomeLists = try Self.placed(homeServer)
        let placedOnHome: [String: [String]] = [
            plain: ["Tasks タスク"], homePhone: ["Tasks タスク"],
            work.phone["Tasks"] ?? "": ["Tasks タスク"], meeting: ["買い物"]
        ]
        #expect(onHomeLists == placedOnHome, "\(onHomeLists)")
        try ListAccountsTests.expectQuiet(a)
        try ListAccountsTests.expectQuiet(b)
    }

    /// A store with the account `home` with lists first (holding the todos without a category),
    /// then `work`, one calendar without lists, a copy of the whole store; work turns lists on
    /// after rounds: its calendar becomes a list of its own and what it held as a copy leaves
    /// it, but no todo of the store changes category, goes away or moves on home's server.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func anAccountTurningListsOnAfterOneWithListsMovesNoTodo(_ kind: CalDAVServer.Kind) throws {
        let home = try ListAccountsTests.server(kind, phone: "home")
        let (workServer, workCalendar) = try ListSyncTests.server(kind)
        let workPhone = "workphone-" + UUID().uuidString
        let phoneTodo = Array(vtodo(uid: workPhone, summary: "work phone").utf8)
        _ = try Self.dav(workServer).collection(url: workCalendar).create(name: "workphone.ics", data: phoneTodo)
        let a = try ListSyncTests.host(home.server)
        try Self.add("work", workServer, calendar: workCalendar, lists: false, to: a)
        let plain = try #require(try a.machine.add("plain")["uid"]?.stringValue)
        let report = try #require(try a.machine.add("報告書", ["category": "仕事"])["uid"]?.stringValue)
        let eggs = try #require(try a.machine.add("卵", ["category": "買い物"])["uid"]?.stringValue)
        try Self.twice(a)

        // Home holds the todos without a category and its lists (買い物 made there); work's
        // calendar is a copy of the whole store.
        var expected: [String: String?] = [
            plain: nil, workPhone: nil, report: "仕事", eggs: "買い物",
            home.phone["Tasks タスク"] ?? "": nil
        ]
        for name in ["Tasks", "仕事"] { expected[home.phone[name] ?? ""] = name }
        #expect(try Self.categories(a) == expected)
        let onHome = try Self.placed(home.server)
        var placedOnHome: [String: [String]] = [
            plain: ["Tasks タスク"], workPhone: ["Tasks タスク"],
            report: ["仕事"], eggs: ["買い物"]
        ]
        for name in ["Tasks タスク", "Tasks", "仕事"] { placedOnHome[home.phone[name] ?? ""] = [name] }
        #expect(onHome == placedOnHome, "\(onHome)")
        let copy = try Self.calendar(workServer, workCalendar)
        #expect(copy.copies == expected.mapValues { _ in 1 } && copy.items.mapValues(\.entry.category) == expected)
        try ListAccountsTests.expectQuiet(a)

        // Work turns lists on: its calendar is a list like its others (its display name a
        // category), and the todos of home's it held as a copy leave it.
        try Self.setLists("work", true, in: a)
        try Self.twice(a)
        #expect(try Self.categories(a) == expected)
        #expect(try Self.placed(home.server) == placedOnHome)
        let left = try Self.calendar(workServer, workCalendar)
        #expect(left.copies.isEmpty, "\(left.copies)")
        try ListAccountsTests.expectQuiet(a)

        // Work's list is one like the others: a todo moved to it goes to work's server only. Its
        // calendar is named as home's default calendar, whose name is home's: it is `(work)`'s.
        #expect(try ListAccountsTests.categories(a).contains("Tasks タスク (work)"))
        try a.machine.update(uid: plain, ["category": "Tasks タスク (work)"])
        try Self.twice(a)
        let moved = try Self.placed(home.server)
        let there = try Self.placed(workServer)
        #expect(moved[plain] == nil && there[plain] == ["Tasks タスク"], "\(moved) \(there)")
        try ListAccountsTests.expectQuiet(a)
    }

    /// Home without lists first, work with lists: one todo of work's list edited on both servers
    /// between two rounds (the same field: the later LAST-MODIFIED wins, once, everywhere), then
    /// deleted on home's calendar (a copy: the todo goes from the store and from work's server).
    @Test(arguments: CalDAVServer.Kind.allCases)
    func aTodoEditedOnBothServersEndsTheSameOnBoth(_ kind: CalDAVServer.Kind) throws {
        let (homeServer, homeCalendar, work, a) = try Self.homeWithoutListsThenWorkWithLists(kind)
        let uid = try #require(a.machine.add("見積もり", ["category": "Tasks"])["uid"]?.stringValue)
        try Self.twice(a)
        let workTasks = try #require(work.urls["Tasks"])
        #expect(try ListSyncTests.lists(work.server)["Tasks"]?.items[uid] != nil)

        try Self.retitle(uid, in: workTasks, work.server, to: "work's title", modified: icalStamp(fromNow: 3_600))
        try Self.retitle(uid, in: homeCalendar, homeServer, to: "home's title", modified: icalStamp(fromNow: 7_200))
        try Self.twice(a)
        #expect(try a.machine.todo(uid: uid)?["title"]?.stringValue == "home's title")
        #expect(try ListSyncTests.lists(work.server)["Tasks"]?.items[uid]?.entry.title == "home's title")
        let onHome = try Self.calendar(homeServer, homeCalendar)
        #expect(onHome.items[uid]?.entry.title == "home's title" && onHome.copies[uid] == 1)
        #expect(onHome.items[uid]?.entry.category == "Tasks")
        try ListAccountsTests.expectQuiet(a)

        // Deleted on home's calendar by another client: gone here and from work's server.
        let home = Self.dav(homeServer).collection(url: homeCalendar)
        let object = try Self.resource(uid, in: home)
        try home.delete(href: object.href, ifMatch: object.etag)
        try Self.twice(a)
        #expect(try a.machine.todo(uid: uid) == nil)
        #expect(try Self.placed(work.server)[uid] == nil)
        try ListAccountsTests.expectQuiet(a)
    }

    /// The same mix under the service, not `--once`: todod-sync running with home (one calendar,
    /// first) and work (lists). A local todo in work's list and one without a category reach
    /// their calendars as soon as they are committed; another client's edit on work's server
    /// comes in at the next pull and goes on to home's calendar; then, with the service stopped,
    /// a round of each account finds nothing left to send or receive.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func theServiceKeepsAMixOfAccountsInStep(_ kind: CalDAVServer.Kind) throws {
        let (homeServer, homeCalendar, work, a) = try Self.homeWithoutListsThenWorkWithLists(kind)
        let service = try a.service(interval: 2)
        defer { _ = service.stop() }
        let workTasks = try #require(work.urls["Tasks"])

        let report = try #require(try a.machine.add("報告書", ["category": "Tasks"])["uid"]?.stringValue)
        let plain = try #require(try a.machine.add("牛乳を買う")["uid"]?.stringValue)
        func inStep() throws -> Bool {
            let onHome = try Self.calendar(homeServer, homeCalendar).items
            let onWork = try Self.placed(work.server)
            return onHome[report]?.entry.category == "Tasks" && onHome[plain] != nil
                && onWork[report] == ["Tasks"] && onWork[plain] == nil
        }
        #expect(try NotifyTestSupport.eventually(timeout: 30, inStep), "\(service.log)")

        let phoneTodo = try #require(work.phone["仕事"])
        try Self.retitle(phoneTodo, in: try #require(work.urls["仕事"]), work.server, to: "電話で編集")
        try Self.retitle(report, in: workTasks, work.server, to: "報告書 (phone)")
        func arrived() throws -> Bool {
            let here = try ListSyncTests.byUID(a)
            let onHome = try Self.calendar(homeServer, homeCalendar).items
            return here[phoneTodo]?["title"]?.stringValue == "電話で編集"
                && here[report]?["title"]?.stringValue == "報告書 (phone)"
                && onHome[phoneTodo]?.entry.title == "電話で編集" && onHome[report]?.entry.title == "報告書 (phone)"
        }
        #expect(try NotifyTestSupport.eventually(timeout: 30, arrived), "\(service.log)")
        #expect(try Self.calendar(homeServer, homeCalendar).copies.values.allSatisfy { $0 == 1 })
        #expect(try Self.placed(work.server)[report] == ["Tasks"])

        #expect(service.stop() == 0, "\(service.log)")
        try ListAccountsTests.expectQuiet(a)
    }
}
