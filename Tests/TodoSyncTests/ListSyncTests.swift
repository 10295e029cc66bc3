import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// Lists are calendars: the built `todod-sync --once` of accounts with `lists = yes` against a
/// real server of each kind (Radicale and xandikos started for the test, Cyrus IMAP and DAViCal
/// where they run here), with another client's writes made over plain CalDAV.
@Suite(.serialized, .enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct ListSyncTests {
    /// The display name of the default list `server(_:)` makes.
    static let defaultName = "Tasks タスク"

    /// A server of `kind` of the test's own (its home holds only what the test makes there), with
    /// a default list named `defaultName` (the accounts of `host` name it with `default-list`).
    /// Skipped with its reason where the server does not run here.
    static func server(_ kind: CalDAVServer.Kind) throws -> (server: CalDAVServer, defaultList: String) {
        if let reason = CalDAVTestSupport.unavailable(kind) {
            print(reason)
            try Test.cancel(Comment(rawValue: reason))
        }
        let server = try CalDAVServer.start(kind)
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        // Radicale and Cyrus make the user's collections on first access
        if kind != .xandikos { _ = try? dav.calendars() }
        let url = server.homeURL + "0-default/"
        try dav.makeCalendar(at: url, name: defaultName)
        return (server, url)
    }

    /// A host whose account `home` syncs the lists of `server` (`calendars`: the ones named).
    static func host(_ server: CalDAVServer, calendars: [String] = [], lists: Bool = true) throws
        -> CalDAVSyncTests.Host
    {
        let host = try CalDAVSyncTests.Host(
            url: server.rootURL, calendar: nil, user: server.user ?? "anyone", password: server.password ?? "unused")
        var account = SyncAccount(
            name: "home", url: server.rootURL, user: server.user ?? "anyone",
            passwordFile: host.home.file("home.password"),
            lists: calendars)
        account.lists = lists
        // The test's own default list (`server(_:)`), as `sync add --default-list` names it.
        if lists && calendars.isEmpty { account.defaultList = defaultName }
        try SyncConfig.save([account], environment: host.environment)
        return host
    }

    /// Every VTODO calendar of the server's home: display name → (url, the VTODOs there by uid).
    static func lists(_ server: CalDAVServer) throws -> [String: (url: String, items: [String: SyncItem])] {
        let account = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        var out: [String: (url: String, items: [String: SyncItem])] = [:]
        for info in try account.calendars() where info.holdsTodos {
            let collection = account.collection(info)
            var items: [String: SyncItem] = [:]
            for object in try collection.fetch(try collection.versions().map(\.href)) {
                if let item = try? VTodoCodec().list(isDefault: false).item(object.data).get(), let uid = item.entry.uid
                {
                    items[uid] = item
                }
            }
            out[ListSync.displayName(info.displayName)] = (info.url, items)
        }
        return out
    }

    /// What python-caldav, a client of its own, sees: each calendar's display name → its todos'
    /// SUMMARY → their CATEGORIES values. Nil without the test venv's interpreter.
    static func seenByPythonCalDAV(_ server: CalDAVServer) throws -> [String: [String: [String]]]? {
        guard let radicale = CalDAVTestSupport.radicale,
            let text = try? String(contentsOfFile: radicale, encoding: .utf8),
            let first = text.split(separator: "\n", maxSplits: 1).first, first.hasPrefix("#!")
        else { return nil }
        let python = String(first.dropFirst(2)).trimmingCharacters(in: .whitespaces)
        let script = """
            import sys, json, caldav
            c = caldav.DAVClient(url=sys.argv[1], username=sys.argv[2] or None, password=sys.argv[3] or None)
            out = {}
            for cal in c.principal().calendars():
                todos = {}
                for t in cal.todos(include_completed=True):
                    v = t.icalendar_component
                    cats = v.get("categories")
                    values = []
                    for one in (cats if isinstance(cats, list) else [cats] if cats is not None else []):
                        values += [str(x) for x in one.cats]
                    todos[str(v.get("summary"))] = values
                out[cal.get_display_name()] = todos
            print(json.dumps(out))
            """
        let r = try ChildProcess.run(
            python, ["-c", script, server.rootURL, server.user ?? "", server.password ?? ""],
            environment: ProcessInfo.processInfo.environment)
        guard r.status == 0, let json = try? JSON.parse(Array(r.stdout.utf8)), case .object(let calendars) = json else {
            Issue.record("python-caldav: \(r.stdout)\(r.stderr)")
            return [:]
        }
        var out: [String: [String: [String]]] = [:]
        for (name, todos) in calendars.pairs {
            var summaries: [String: [String]] = [:]
            for (summary, values) in todos.objectValue?.pairs ?? [] {
                let strings: [String] = (values.arrayValue ?? []).compactMap { $0.stringValue }
                summaries[summary] = strings
            }
            out[name] = summaries
        }
        return out
    }

    static func once(_ host: CalDAVSyncTests.Host) throws {
        let r = try host.once(["--verbose"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    }

    static func byUID(_ host: CalDAVSyncTests.Host) throws -> [String: JSON] {
        Dictionary(try host.machine.todos().map { ($0["uid"]?.stringValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// A calendar with no todos (a list just made on the phone) is a category after the first
    /// round; a todo put in it here goes to that calendar, and no second calendar of its name is made.
    @Test(arguments: [CalDAVServer.Kind.radicale, .cyrus])
    func anEmptyCalendarIsACategoryFromTheFirstRound(_ kind: CalDAVServer.Kind) throws {
        let (server, _) = try Self.server(kind)
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        let errands = server.homeURL + "errands/"
        try dav.makeCalendar(at: errands, name: "買い物 Errands")
        let host = try Self.host(server)
        #expect(try host.once().status == 0)
        #expect(try ListAccountsTests.categories(host).contains("買い物 Errands"))
        let milk = try #require(try host.machine.add("牛乳", ["category": "買い物 Errands"])["uid"]?.stringValue)
        #expect(try host.once().status == 0)
        let lists = try Self.lists(server)
        #expect(lists["買い物 Errands"]?.url == errands && lists["買い物 Errands"]?.items[milk] != nil, "\(lists)")
        #expect(try dav.calendars().filter { ListSync.displayName($0.displayName) == "買い物 Errands" }.count == 1)
        #expect(try host.once().stdout.contains(": 0 sent, 0 received"))
    }

    /// A category named as the default calendar lives in it (never a second calendar of that
    /// name): its todos there carry X-TODOD-CATEGORY, so another store gets them in the category
    /// and the todos without one without; a category named as another calendar takes it.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func aCalendarsNameIsOneCategoryNeverTwoCalendars(_ kind: CalDAVServer.Kind) throws {
        let (server, defaultList) = try Self.server(kind)
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        let errands = server.homeURL + "0-errands/"
        try dav.makeCalendar(at: errands, name: "買い物")
        let a = try Self.host(server)
        let named = try #require(try a.machine.add("週報", ["category": .string(Self.defaultName)])["uid"]?.stringValue)
        let plain = try #require(try a.machine.add("plain")["uid"]?.stringValue)
        let milk = try #require(try a.machine.add("牛乳", ["category": "買い物"])["uid"]?.stringValue)
        try Self.once(a)
        let calendars = try dav.calendars().filter(\.holdsTodos).map { ListSync.displayName($0.displayName) }
        #expect(
            calendars.filter { $0 == Self.defaultName }.count == 1 && calendars.filter { $0 == "買い物" }.count == 1,
            "\(calendars)")
        let lists = try Self.lists(server)
        #expect(
            lists[Self.defaultName]?.url == defaultList
                && Set(lists[Self.defaultName]?.items.keys.map { $0 } ?? []) == [named, plain])
        #expect(lists["買い物"]?.url == errands && lists["買い物"]?.items[milk] != nil)
        let b = try Self.host(server)
        try Self.once(b)
        let inB = try Self.byUID(b)
        #expect(inB[named]?["category"]?.stringValue == Self.defaultName, "\(String(describing: inB[named]))")
        #expect(inB[plain]?["category"] == .null && inB[milk]?["category"]?.stringValue == "買い物")
        // Moved out of it and back: one resource each time, and quiet rounds after.
        try b.machine.update(uid: named, ["category": "買い物"])
        try Self.once(b)
        try Self.once(a)
        #expect(try Self.byUID(a)[named]?["category"]?.stringValue == "買い物")
        try a.machine.update(uid: named, ["category": .string(Self.defaultName)])
        try Self.once(a)
        try Self.once(b)
        #expect(try Self.byUID(b)[named]?["category"]?.stringValue == Self.defaultName)
        #expect(
            try Self.lists(server)[Self.defaultName]?.items[named] != nil
                && (try Self.lists(server))["買い物"]?.items[named] == nil)
        let ra = try a.once()
        let rb = try b.once()
        #expect(
            ra.stdout.contains(": 0 sent, 0 received") && rb.stdout.contains(": 0 sent, 0 received"),
            "\(ra.stdout)\(rb.stdout)")
    }

    /// `category rm` of a list: the next round empties its calendar and deletes it; the todos
    /// (without a category now) go to the default list; another store loses the category too, and
    /// no store makes the calendar again. A calendar holding a todo another client put there
    /// after the last round stays, said in one line (and `--once` exits 1).
    @Test(arguments: CalDAVServer.Kind.allCases)
    func aRemovedCategoryDeletesItsCalendarOrSaysWhyNot(_ kind: CalDAVServer.Kind) throws {
        let (server, defaultList) = try Self.server(kind)
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        let work = server.homeURL + "work/"
        try dav.makeCalendar(at: work, name: "仕事")
        let a = try Self.host(server)
        let b = try Self.host(server)
        let milk = try #require(try a.machine.add("牛乳", ["category": "買い物"])["uid"]?.stringValue)
        let report = try #require(try a.machine.add("報告書", ["category": "仕事"])["uid"]?.stringValue)
        try Self.once(a)
        try Self.once(b)
        let shopping = try #require(try Self.lists(server)["買い物"]?.url)

        _ = try a.machine.client.result("category.delete", ["name": "買い物", "force": true])
        let removed = try a.once(["--verbose"])
        #expect(
            removed.status == 0
                && removed.stderr.contains("the list 買い物 was removed here: deleted its calendar \(shopping)"),
            "\(removed.stdout)\(removed.stderr)")
        var lists = try Self.lists(server)
        #expect(
            lists["買い物"] == nil && lists[Self.defaultName]?.url == defaultList
                && lists[Self.defaultName]?.items[milk] != nil, "\(lists.keys.sorted())")
        try Self.once(b)
        #expect(try Self.byUID(b)[milk]?["category"] == .null)
        #expect(try !ListAccountsTests.categories(b).contains("買い物"))
        try Self.once(a)
        try Self.once(b)
        lists = try Self.lists(server)
        #expect(lists["買い物"] == nil && lists[Self.defaultName]?.items[milk] != nil, "\(lists.keys.sorted())")

        // Another client puts a todo into 仕事 after the last round: 仕事 stays, and why is said.
        let phoneUID = "phone-" + UUID().uuidString
        _ = try dav.collection(url: work).create(
            name: "phone.ics", data: Array(vtodo(uid: phoneUID, summary: "電話").utf8))
        _ = try a.machine.client.result("category.delete", ["name": "仕事", "force": true])
        let stays = try a.once(["--verbose"])
        #expect(
            stays.status == 1 && stays.stdout.contains("1 not syncing")
                && stays.stderr.contains(
                    "the list 仕事 was removed here; its calendar \(work) stays: it holds 1 todo of other clients"),
            "\(stays.stdout)\(stays.stderr)")
        #expect(
            a.status?.problems.contains {
                $0.title == "仕事"
                    && $0.reason.hasPrefix("the list was removed here, but its calendar stays on the server")
            } == true)
        lists = try Self.lists(server)
        #expect(
            lists["仕事"]?.items.keys.sorted() == [phoneUID] && lists[Self.defaultName]?.items[report] != nil,
            "\(lists.keys.sorted())")
        #expect(try !ListAccountsTests.categories(a).contains("仕事"))
        #expect(try a.once().status == 1)
    }

    /// Subtasks live in their topmost parent's calendar: one given another category (or none)
    /// goes there with it, and a parent moved to another list takes them along; another store
    /// sees the tree whole in that list.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func subtasksLiveInTheirTopmostParentsCalendar(_ kind: CalDAVServer.Kind) throws {
        let server = try Self.server(kind).server
        let a = try Self.host(server)
        let parent = try a.machine.add("引っ越し", ["category": "家"])
        let child = try a.machine.add("箱を買う", ["parent": parent["id"]!, "category": "買い物"])
        let grandchild = try a.machine.add("テープ", ["parent": child["id"]!])
        let uids = try [parent, child, grandchild].map { try #require($0["uid"]?.stringValue) }
        try a.machine.update(uid: uids[2], ["category": .null])
        try Self.once(a)
        var lists = try Self.lists(server)
        #expect(
            Set(lists["家"]?.items.keys.map { $0 } ?? []) == Set(uids), "\(lists.mapValues { $0.items.keys.sorted() })")
        #expect(lists["買い物"].map { $0.items.isEmpty } ?? true)
        let b = try Self.host(server)
        try Self.once(b)
        let inB = try Self.byUID(b)
        #expect(
            uids.allSatisfy { inB[$0]?["category"]?.stringValue == "家" },
            "\(uids.map { inB[$0]?["category"] ?? .null })")
        #expect(inB[uids[2]]?["parentUid"]?.stringValue == uids[1])

        // The parent moves to another list: its subtasks go with it.
        try a.machine.update(uid: uids[0], ["category": "仕事"])
        try Self.once(a)
        lists = try Self.lists(server)
        #expect(
            Set(lists["仕事"]?.items.keys.map { $0 } ?? []) == Set(uids) && (lists["家"]?.items.isEmpty ?? true),
            "\(lists.mapValues { $0.items.keys.sorted() })")
        try Self.once(b)
        #expect(try uids.allSatisfy { try Self.byUID(b)[$0]?["category"]?.stringValue == "仕事" })
        let ra = try a.once()
        let rb = try b.once()
        #expect(
            ra.stdout.contains(": 0 sent, 0 received") && rb.stdout.contains(": 0 sent, 0 received"),
            "\(ra.stdout)\(rb.stdout)")
    }

    @Test(arguments: CalDAVServer.Kind.allCases)
    func everyCalendarIsACategoryAndAMoveMovesTheResource(_ kind: CalDAVServer.Kind) throws {
        let (server, defaultList) = try Self.server(kind)
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        // Another client's list 仕事 with a todo tagged urgent (CATEGORIES only).
        let work = server.homeURL + "work-" + UUID().uuidString.lowercased().prefix(8) + "/"
        try dav.makeCalendar(at: work, name: "仕事")
        let phoneUID = "phone-" + UUID().uuidString
        _ = try dav.collection(url: work).create(
            name: "phone.ics", data: Array(vtodo(uid: phoneUID, summary: "見積もり", extra: ["CATEGORIES:urgent"]).utf8))

        let a = try Self.host(server)
        let milk = try #require(try a.machine.add("牛乳を買う", ["category": "買い物", "tags": ["urgent"]])["uid"]?.stringValue)
        let report = try #require(try a.machine.add("報告書", ["category": "仕事"])["uid"]?.stringValue)
        let plain = try #require(try a.machine.add("plain")["uid"]?.stringValue)
        try Self.once(a)

        var lists = try Self.lists(server)
        // The phone's todo came down into the category of its calendar, its CATEGORIES a tag.
        let names = lists.mapValues(\.url)
        let phone = try #require(try Self.byUID(a)[phoneUID], "\(names)")
        #expect(phone["category"]?.stringValue == "仕事", "\(names) \(phone)")
        #expect(phone["tags"]?.arrayValue?.compactMap(\.stringValue) == ["urgent"])
        // Each category is its calendar (買い物 made with MKCALENDAR); tags are CATEGORIES.
        #expect(lists["仕事"]?.items[report] != nil)
        #expect(lists["仕事"]?.items[report]?.entry.category == nil)
        let shopping = try #require(lists["買い物"], "no calendar 買い物 on \(kind): \(lists.keys.sorted())")
        #expect(shopping.items[milk]?.entry.tags == ["urgent"])
        let withPlain = lists.values.filter { $0.items[plain] != nil }
        #expect(withPlain.map(\.url) == [defaultList], "\(names)")

        // Another client (python-caldav) sees the lists as calendars, tags as CATEGORIES.
        if kind == .radicale || kind == .xandikos, let seen = try Self.seenByPythonCalDAV(server) {
            #expect(seen["買い物"]?["牛乳を買う"] == ["urgent"], "\(seen)")
            #expect(seen["仕事"]?["報告書"] == [], "\(seen)")
            #expect(seen["Tasks タスク"]?["plain"] == [], "\(seen)")
        }

        // A second store sees the same lists as categories.
        let b = try Self.host(server)
        try Self.once(b)
        let inB = try Self.byUID(b)
        #expect(inB[milk]?["category"]?.stringValue == "買い物")
        #expect(inB[milk]?["tags"]?.arrayValue?.compactMap(\.stringValue) == ["urgent"])
        #expect(inB[report]?["category"]?.stringValue == "仕事")
        #expect(
            inB[plain]?["category"] == .null || inB[plain]?["category"] == nil,
            "\(names) \(String(describing: inB[plain]))")

        // A move to another category moves the resource: same UID, in one calendar only.
        try a.machine.update(uid: report, ["category": "買い物"])
        try Self.once(a)
        lists = try Self.lists(server)
        #expect(lists["仕事"]?.items[report] == nil)
        #expect(lists["買い物"]?.items[report]?.entry.title == "報告書")
        try Self.once(b)
        #expect(try Self.byUID(b)[report]?["category"]?.stringValue == "買い物")

        // Cut off between the PUT to the new calendar and the DELETE from the old one: the next
        // round leaves the todo on the new one alone. (Cyrus takes a UID in one calendar only:
        // there the state cannot arise, and the move is made as any other.)
        try a.machine.update(uid: milk, ["category": "仕事"])
        let copy = try #require(lists["買い物"]?.items[milk])
        if kind != .cyrus {
            _ = try dav.collection(url: work).create(
                name: "copy-of-milk.ics", data: VTodoCodec().list(isDefault: false).bytes(copy))
        }
        try Self.once(a)
        try Self.once(b)
        lists = try Self.lists(server)
        let holding = lists.filter { $0.value.items[milk] != nil }.map(\.key)
        #expect(holding == ["仕事"], "\(holding)")
        let milkInB = try Self.byUID(b)[milk]
        #expect(milkInB?["category"]?.stringValue == "仕事", "\(String(describing: milkInB))")
        #expect(try Self.byUID(a).count == 4 && (try Self.byUID(b).count) == 4)

        // Then rounds are quiet on both.
        let ra = try a.once()
        let rb = try b.once()
        #expect(
            ra.stdout.contains(": 0 sent, 0 received") && rb.stdout.contains(": 0 sent, 0 received"),
            "\(ra.stdout)\(rb.stdout)")
    }

    @Test(arguments: CalDAVServer.Kind.allCases)
    func aRenameTravelsBothWays(_ kind: CalDAVServer.Kind) throws {
        let server = try Self.server(kind).server
        let a = try Self.host(server)
        let b = try Self.host(server)
        let uid = try #require(try a.machine.add("卵", ["category": "買い物"])["uid"]?.stringValue)
        try Self.once(a)
        try Self.once(b)
        let before = try #require(try Self.lists(server)["買い物"])

        // Renamed here: the calendar's display name follows, its resource stays where it is.
        _ = try a.machine.client.result("category.rename", ["name": "買い物", "newName": "食料品"])
        // The summary counts the rename as sent (it said "0 sent").
        let renamedHere = try a.once([])
        #expect(
            renamedHere.status == 0 && renamedHere.stdout.contains("home: 1 sent, 0 received"),
            "\(renamedHere.stdout)\(renamedHere.stderr)")
        var lists = try Self.lists(server)
        #expect(lists["買い物"] == nil)
        #expect(lists["食料品"]?.url == before.url && lists["食料品"]?.items[uid] != nil)
        try Self.once(b)
        #expect(try Self.byUID(b)[uid]?["category"]?.stringValue == "食料品")

        // Renamed there (another client): the category follows on both stores.
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        try dav.renameCalendar(at: before.url, to: "Groceries")
        let renamedThere = try a.once([])
        #expect(
            renamedThere.status == 0 && renamedThere.stdout.contains("home: 0 sent, 1 received"),
            "\(renamedThere.stdout)\(renamedThere.stderr)")
        try Self.once(b)
        lists = try Self.lists(server)
        #expect(lists["Groceries"]?.url == before.url && lists["Groceries"]?.items[uid] != nil)
        #expect(try Self.byUID(a)[uid]?["category"]?.stringValue == "Groceries")
        #expect(try Self.byUID(b)[uid]?["category"]?.stringValue == "Groceries")
        let categories =
            try a.machine.client.result("category.list", [:]).arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(!categories.contains("食料品"), "\(categories)")
    }

    /// An account of one calendar (categories as X-TODOD-CATEGORY) that turns lists on: its
    /// state goes on, each category moves to a calendar of its own, nothing doubles or is lost.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func aOneCalendarAccountMovesOverToLists(_ kind: CalDAVServer.Kind) throws {
        let (server, calendar) = try Self.server(kind)
        let a = try CalDAVSyncTests.host(server, calendar)
        let work = try #require(try a.machine.add("会議", ["category": "仕事", "tags": ["週次"]])["uid"]?.stringValue)
        let plain = try #require(try a.machine.add("plain")["uid"]?.stringValue)
        try Self.once(a)
        let legacy = try #require(try Self.lists(server).first { $0.value.url == calendar }?.value)
        #expect(legacy.items.count == 2)
        let statePath = try #require(SyncPaths.stateFile(account: "home", environment: a.environment))
        let stateBefore = try SyncState.open(path: statePath).0.token

        // lists = yes, the calendar it had named first (the default list).
        var account = try #require(try SyncConfig.load(environment: a.environment).first)
        account.lists = true
        try SyncConfig.save([account], environment: a.environment)
        try Self.once(a)
        let lists = try Self.lists(server)
        #expect(lists.first { $0.value.url == calendar }?.value.items.keys.sorted() == [plain])
        #expect(lists["仕事"]?.items[work]?.entry.tags == ["週次"])
        let todos = try Self.byUID(a)
        #expect(todos.count == 2 && todos[work]?["category"]?.stringValue == "仕事")
        #expect(stateBefore != nil)
        let r = try a.once()
        #expect(r.stdout.contains(": 0 sent, 0 received"), "\(r.stdout)\(r.stderr)")
    }

    /// A sync token the server does not know (a server restored from a backup, a token of
    /// another server): DAViCal answers it as if it knew it, listing every resource and no
    /// deletion. A todo deleted on the server meanwhile is still deleted here.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func aDeletionIsFoundThoughTheServerDidNotKnowTheToken(_ kind: CalDAVServer.Kind) throws {
        let (server, calendar) = try Self.server(kind)
        let host = try CalDAVSyncTests.host(server, calendar)
        var uids: [String] = []
        for title in ["一", "二", "三", "四", "五", "六"] {
            uids.append(try #require(try host.machine.add(title)["uid"]?.stringValue))
        }
        try Self.once(host)
        // Another client deletes one.
        let collection = CalDAVCollection(url: calendar, user: server.user, password: server.password)
        let objects = try collection.fetch(try collection.versions().map(\.href))
        let gone = try #require(objects.first { (try? VTodoCodec().item($0.data).get())?.entry.uid == uids[2] })
        try collection.delete(href: gone.href, ifMatch: gone.etag)
        // The state's token becomes one the server never gave: its number far ahead.
        let path = try #require(SyncPaths.stateFile(account: "home", environment: host.environment))
        let state = try SyncState.open(path: path).0
        let token = try #require(state.token)
        let digits = token.reversed().prefix { $0.isNumber }.count
        try state.setToken(String(token.dropLast(digits)) + "99999" + String(token.suffix(digits)))
        try Self.once(host)
        let left = try host.machine.todos().compactMap { $0["uid"]?.stringValue }
        #expect(Set(left) == Set(uids).subtracting([uids[2]]), "\(kind): token \(token)")
        let r = try host.once()
        #expect(r.stdout.contains(": 0 sent, 0 received"), "\(r.stdout)\(r.stderr)")
    }
}
