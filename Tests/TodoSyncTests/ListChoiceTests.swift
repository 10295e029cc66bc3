import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// Which calendar of an account with lists holds the todos without a category (the default
/// list): the order `ListChoice` follows, then the built `todod-sync` and `todoctl sync add`
/// against real servers, the phone's 買い物 list always at the smallest URL (where the first
/// version took the default from).
@Suite(.serialized, .enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct ListChoiceTests {
    static func info(_ path: String, _ name: String) -> CalendarInfo {
        CalendarInfo(
            url: "https://dav.example.org/alice/" + path + "/", displayName: name, holdsTodos: true,
            supportsSyncToken: true)
    }

    static func choose(
        _ found: [CalendarInfo], named: [String] = [], previous: String? = nil, configured: String? = nil,
        server: String? = nil
    ) -> Result<String, SyncError> {
        Result { () throws(SyncError) in
            try ListChoice.choose(
                found, named: named, previous: previous, configured: configured, serverDefault: { server })
        }
    }

    /// Each step of the order wins over the ones after it.
    @Test func theOrderOfTheChoice() throws {
        let shopping = Self.info("0-errands", "買い物")
        let work = Self.info("1-work", "仕事")
        let tasks = Self.info("tasks", "Tasks")
        let made = Self.info("todod-1234", "Inbox")
        let mine = Self.info("z-mine", "マイタスク")
        let all = [shopping, work, tasks, made, mine]
        // The first calendar line, then the one chosen before, then default-list (by name, path or URL).
        #expect(
            try Self.choose(all, named: [work.url, tasks.url], previous: tasks.url, configured: "Tasks").get()
                == all[0].url)
        #expect(try Self.choose(all, previous: work.url, configured: "Tasks", server: tasks.url).get() == work.url)
        #expect(
            try Self.choose(all, previous: "https://dav.example.org/alice/gone/", configured: "仕事").get() == work.url)
        #expect(try Self.choose(all, configured: "/alice/0-errands").get() == shopping.url)
        #expect(try Self.choose(all, configured: shopping.url).get() == shopping.url)
        // A default-list that is none of them: said, with the lists and --default-list.
        let wrong = Self.choose(all, configured: "Nope")
        #expect(throws: SyncError.self) { try wrong.get() }
        if case .failure(let error) = wrong {
            #expect(
                error.message.contains("Nope") && error.message.contains("--default-list NAME")
                    && error.message.contains("買い物, 仕事"))
        }
        // The only list; then the server's default (never one todod made); then the usual names.
        #expect(try Self.choose([shopping]).get() == shopping.url)
        #expect(try Self.choose(all, server: work.url).get() == work.url)
        #expect(try Self.choose(all, server: made.url).get() == tasks.url)
        #expect(try Self.choose(all, server: "https://dav.example.org/alice/calendar/").get() == tasks.url)
        #expect(try Self.choose([shopping, work, Self.info("r", "reminders"), mine]).get() == Self.info("r", "x").url)
        #expect(try Self.choose([shopping, mine, work]).get() == mine.url)
        #expect(try Self.choose([shopping, Self.info("p", "personal")]).get() == Self.info("p", "").url)
        // Else none is guessed (the smallest URL, 0-errands, least of all).
        let none = Self.choose([shopping, work, made])
        #expect(throws: SyncError.self) { try none.get() }
        if case .failure(let error) = none {
            #expect(
                error.message
                    == "the account has several task lists (買い物, 仕事, Inbox) and none is its default: name the one for todos "
                    + "without a category with --default-list NAME (default-list = NAME in sync.conf)")
        }
    }

    /// A server of `kind` of the test's own with the calendars `lists` (path, display name) made
    /// in its home; the paths' URLs by display name.
    static func server(_ kind: CalDAVServer.Kind, _ lists: [(String, String)]) throws -> (
        CalDAVServer, [String: String]
    ) {
        if let reason = CalDAVTestSupport.unavailable(kind) {
            print(reason)
            try Test.cancel(Comment(rawValue: reason))
        }
        let server = try CalDAVServer.start(kind)
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        // Radicale and Cyrus make the user's collections on first access
        if kind != .xandikos { _ = try? dav.calendars() }
        var urls: [String: String] = [:]
        for (path, name) in lists {
            let url = server.homeURL + path + "/"
            try dav.makeCalendar(at: url, name: name)
            urls[name] = url
        }
        return (server, urls)
    }

    /// A host whose account `home` syncs the lists of `server` (`defaultList`: its default-list).
    static func host(_ server: CalDAVServer, defaultList: String? = nil) throws -> CalDAVSyncTests.Host {
        let host = try ListSyncTests.host(server)
        var account = try #require(try SyncConfig.load(environment: host.environment).first)
        account.defaultList = defaultList
        try SyncConfig.save([account], environment: host.environment)
        return host
    }

    /// The phone's 買い物 list (at the smallest URL) stays a list; the one named Tasks is the
    /// default: a todo without a category goes there, one of 買い物 to 買い物, and no second
    /// calendar of either name is made.
    @Test(arguments: [CalDAVServer.Kind.radicale, .xandikos])
    func aListNamedTasksIsTheDefaultNotTheSmallestURL(_ kind: CalDAVServer.Kind) throws {
        let (server, urls) = try Self.server(kind, [("0-errands", "買い物"), ("tasks", "Tasks")])
        let host = try Self.host(server)
        let plain = try #require(try host.machine.add("plain")["uid"]?.stringValue)
        let milk = try #require(try host.machine.add("牛乳", ["category": "買い物"])["uid"]?.stringValue)
        try ListSyncTests.once(host)
        let lists = try ListSyncTests.lists(server)
        #expect(lists["Tasks"]?.url == urls["Tasks"] && lists["Tasks"]?.items.keys.sorted() == [plain], "\(lists)")
        #expect(lists["買い物"]?.url == urls["買い物"] && lists["買い物"]?.items.keys.sorted() == [milk], "\(lists)")
        let map = ListMap.load(try #require(SyncPaths.listsFile(account: "home", environment: host.environment)))
        #expect(map.defaultURL == urls["Tasks"])
        #expect(try ListSyncTests.byUID(host)[plain]?["category"] == .null)
        #expect(try host.once().stdout.contains(": 0 sent, 0 received"))
    }

    /// Two lists and no clear default: `--once` says so in one line naming --default-list and
    /// changes nothing (no state, nothing on the server); `--check --lists` too, and with
    /// `--default-list` it names that list; `default-list` in sync.conf is then taken, and kept
    /// when sync.conf names another later (the todos without a category would move).
    @Test(arguments: [CalDAVServer.Kind.radicale, .xandikos])
    func withoutAClearDefaultTheErrorNamesDefaultList(_ kind: CalDAVServer.Kind) throws {
        let (server, urls) = try Self.server(kind, [("0-errands", "買い物"), ("work", "仕事")])
        let host = try Self.host(server)
        _ = try host.machine.add("plain")
        let refused = try host.once()
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(
            refused.stdout
                == "home: the account has several task lists (買い物, 仕事) and none is its default: name the one for todos "
                + "without a category with --default-list NAME (default-list = NAME in sync.conf)\n",
            "\(refused.stdout)")
        let listsFile = try #require(SyncPaths.listsFile(account: "home", environment: host.environment))
        #expect(!FileManager.default.fileExists(atPath: listsFile))
        #expect(try ListSyncTests.lists(server).values.allSatisfy(\.items.isEmpty))

        let check = [
            "--check", "--url", server.rootURL, "--user", server.user ?? "anyone", "--password-file",
            host.home.file("home.password"), "--lists"
        ]
        let unsure = try ChildProcess.run(BuiltProducts.path("todod-sync"), check, environment: host.environment)
        #expect(
            unsure.status == 1 && unsure.stderr.contains("--default-list NAME") && unsure.stdout.isEmpty,
            "\(unsure.stderr)")
        let chosen = try ChildProcess.run(
            BuiltProducts.path("todod-sync"), check + ["--default-list", "仕事"], environment: host.environment)
        let workURL = try #require(urls["仕事"])
        #expect(chosen.status == 0 && chosen.stdout.hasPrefix(workURL + "\n"), "\(chosen.stdout)\(chosen.stderr)")

        let host2 = try Self.host(server, defaultList: "仕事")
        let plain = try #require(try host2.machine.add("plain")["uid"]?.stringValue)
        try ListSyncTests.once(host2)
        #expect(try ListSyncTests.lists(server)["仕事"]?.items.keys.sorted() == [plain])
        // sync.conf naming another default later: the one chosen stays.
        var account = try #require(try SyncConfig.load(environment: host2.environment).first)
        account.defaultList = "買い物"
        try SyncConfig.save([account], environment: host2.environment)
        let quiet = try host2.once()
        #expect(quiet.stdout.contains(": 0 sent, 0 received"), "\(quiet.stdout)\(quiet.stderr)")
        #expect(
            ListMap.load(try #require(SyncPaths.listsFile(account: "home", environment: host2.environment))).defaultURL
                == urls["仕事"])
    }

    /// DAViCal names the user's default calendar (`schedule-default-calendar-URL` on the
    /// scheduling inbox): it is the default list when it holds todos and todod did not make it,
    /// though the phone's 買い物 list has the smallest URL. Cyrus, without scheduling here, names
    /// none: its own calendar `personal` and one named Tasks: Tasks, the name task apps give it.
    @Test(arguments: [CalDAVServer.Kind.cyrus, .davical])
    func theServersDefaultCalendarIsTheDefault(_ kind: CalDAVServer.Kind) throws {
        let (server, urls) = try Self.server(kind, [("0-errands", "買い物"), ("tasks", "Tasks")])
        let dav = CalDAVAccount(url: server.rootURL, user: server.user, password: server.password)
        let named = dav.scheduleDefaultCalendar()
        if kind == .davical { #expect(named != nil, "DAViCal names no default calendar") }
        let found = try dav.calendars().filter(\.holdsTodos)
        let host = try Self.host(server)
        let plain = try #require(try host.machine.add("plain")["uid"]?.stringValue)
        try ListSyncTests.once(host)
        let map = ListMap.load(try #require(SyncPaths.listsFile(account: "home", environment: host.environment)))
        if let named,
            let serverDefault = found.first(where: { CalendarChoice.path(of: $0.url) == CalendarChoice.path(of: named) }
            )
        {
            #expect(map.defaultURL == serverDefault.url, "\(named) \(found.map(\.url))")
            #expect(
                try ListSyncTests.lists(server)[ListSync.displayName(serverDefault.displayName)]?.items[plain] != nil)
        } else {
            #expect(map.defaultURL == urls["Tasks"], "\(String(describing: named)) \(found.map(\.url))")
        }
        #expect(map.defaultURL != urls["買い物"])
    }
}
