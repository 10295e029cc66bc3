import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// Whether the peer tests run, and the peers' console scripts.
enum PeerInterop {
    static let todoman = ProcessInfo.processInfo.environment["TODOD_TODOMAN"].flatMap { $0.isEmpty ? nil : $0 }
    /// `TODOD_VDIRSYNCER` (or `CI`) set: the tests run, and todoman and the servers must be
    /// there too (a missing one fails them). Unset: they are skipped.
    static let required =
        CalDAVTestSupport.vdirsyncer != nil || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
    static let skipMessage =
        "vdirsyncer not configured: set TODOD_VDIRSYNCER, with TODOD_TODOMAN, TODOD_RADICALE and TODOD_XANDIKOS (scripts/test does)"
}

/// The peers of docs/SYNC.md against the built todod-sync, a real server (Radicale, xandikos) and
/// real todod stores: vdirsyncer pairs the calendar with a vdir and todoman works on that vdir
/// (both from scripts/test's venv, named by `TODOD_VDIRSYNCER` and `TODOD_TODOMAN`). What todod
/// makes, todoman lists; what todoman makes, edits, completes (a recurring todo too) and deletes
/// comes back to todod; concurrent edits on both sides merge; and no round echoes another.
@Suite(.serialized, .enabled(if: PeerInterop.required, Comment(rawValue: PeerInterop.skipMessage)))
struct PeerInteropTests {
    /// vdirsyncer pairing the calendar with a vdir (`calendars/todod`), and todoman on that vdir.
    final class Peer {
        let directory = TemporaryDirectory("peer")
        let vdirsyncer: String
        let todoman: String
        var environment: [String: String]

        var vdir: String { directory.file("calendars/todod") }

        init(server: CalDAVServer, calendar: String) throws {
            vdirsyncer = try #require(
                CalDAVTestSupport.vdirsyncer, "TODOD_VDIRSYNCER is not set: scripts/test installs vdirsyncer")
            todoman = try #require(PeerInterop.todoman, "TODOD_TODOMAN is not set: scripts/test installs todoman")
            try FileManager.default.createDirectory(
                atPath: directory.file("calendars/todod"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory.file("status"), withIntermediateDirectories: true)
            func quoted(_ s: String) -> String { JSON.string(s).serialized() }
            var credentials = ""
            if let user = server.user, let password = server.password {
                credentials = "username = \(quoted(user))\npassword = \(quoted(password))\n"
            }
            let config = """
                [general]
                status_path = \(quoted(directory.file("status") + "/"))

                [pair todod]
                a = "todod_vdir"
                b = "todod_server"
                collections = null

                [storage todod_vdir]
                type = "filesystem"
                path = \(quoted(directory.file("calendars/todod")))
                fileext = ".ics"

                [storage todod_server]
                type = "caldav"
                url = \(quoted(calendar))
                item_types = ["VTODO"]
                \(credentials)
                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: directory.file("vdirsyncer.conf")))
            try Data(
                """
                path = "\(directory.file("calendars"))/*"
                date_format = "%Y-%m-%d"
                time_format = "%H:%M"
                default_list = "todod"
                cache_path = "\(directory.file("todoman-cache.sqlite3"))"

                """.utf8
            ).write(to: URL(fileURLWithPath: directory.file("todoman.py")))
            environment = ProcessInfo.processInfo.environment
            environment["TZ"] = "UTC"
            environment["HOME"] = directory.path
            environment["VDIRSYNCER_CONFIG"] = directory.file("vdirsyncer.conf")
            let discover = try ChildProcess.run(vdirsyncer, ["discover"], input: "", environment: environment)
            try #require(discover.status == 0, "vdirsyncer discover: \(discover.stdout)\(discover.stderr)")
        }

        /// `vdirsyncer sync`: its log lines naming what it copied or deleted (empty: no change).
        @discardableResult
        func sync() throws -> [String] {
            let r = try ChildProcess.run(vdirsyncer, ["sync"], input: "", environment: environment)
            try #require(r.status == 0, "vdirsyncer sync: \(r.stdout)\(r.stderr)")
            return (r.stdout + r.stderr).split(separator: "\n").map(String.init).filter {
                $0.hasPrefix("Copying") || $0.hasPrefix("Deleting")
            }
        }

        /// todoman with its configuration; its standard output.
        @discardableResult
        func todo(_ arguments: [String]) throws -> String {
            let r = try ChildProcess.run(
                todoman, ["--config", directory.file("todoman.py")] + arguments, input: "", environment: environment)
            try #require(r.status == 0, "todo \(arguments): \(r.stdout)\(r.stderr)")
            return r.stdout
        }

        /// `todo --porcelain list --status ANY`.
        func list() throws -> [JSON] {
            try JSON.parse(Array(try todo(["--porcelain", "list", "--status", "ANY"]).utf8)).arrayValue ?? []
        }

        /// The todoman todo with `summary` (exactly one).
        func item(_ summary: String) throws -> JSON {
            let found = try list().filter { $0["summary"]?.stringValue == summary }
            try #require(found.count == 1, "todoman lists \(found.count) todos titled \(summary)")
            return found[0]
        }

        /// The todoman id of the todo with `summary`.
        func id(_ summary: String) throws -> String {
            String(try #require(try item(summary)["id"]?.intValue))
        }

        /// Sets a todo's summary the way todoman's editor does (todoman's command line has no
        /// option for it): through todoman's own model, which bumps LAST-MODIFIED and SEQUENCE.
        func setSummary(of summary: String, to new: String) throws {
            let python = URL(fileURLWithPath: todoman).deletingLastPathComponent().appendingPathComponent("python").path
            let script = """
                import sys
                from todoman.model import Database
                db = Database([sys.argv[1]], sys.argv[2])
                todo = db.todo(int(sys.argv[3]))
                todo.summary = sys.argv[4]
                db.save(todo)
                """
            let r = try ChildProcess.run(
                python, ["-c", script, vdir, directory.file("todoman-cache.sqlite3"), try id(summary), new],
                input: "", environment: environment)
            try #require(r.status == 0, "todoman summary edit: \(r.stdout)\(r.stderr)")
        }

        /// The vdir's files, by name.
        func files() throws -> [String: String] {
            var out: [String: String] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: vdir) where name.hasSuffix(".ics") {
                out[name] = try String(contentsOfFile: vdir + "/" + name, encoding: .utf8)
            }
            return out
        }
    }

    typealias Host = CalDAVSyncTests.Host

    /// A host and a peer on a new calendar of `kind`'s server.
    static func pair(_ kind: CalDAVServer.Kind) throws -> (CalDAVServer, String, Host, Peer) {
        let server = try CalDAVSyncTests.server(kind)
        let calendar = try CalDAVSyncTests.calendar(server)
        return (
            server, calendar, try CalDAVSyncTests.host(server, calendar), try Peer(server: server, calendar: calendar)
        )
    }

    /// todoctl of `host`'s store.
    @discardableResult
    static func todoctl(_ host: Host, _ arguments: [String]) throws -> ChildProcess.Result {
        let r = try ChildProcess.run(BuiltProducts.path("todoctl"), arguments, environment: host.environment)
        #expect(r.status == 0, "todoctl \(arguments): \(r.stdout)\(r.stderr)")
        return r
    }

    /// `todoctl --json list --all`.
    static func todos(_ host: Host) throws -> [JSON] {
        try JSON.parse(Array(try todoctl(host, ["--json", "list", "--all"]).stdout.utf8)).arrayValue ?? []
    }

    /// The store's todo titled `title` (exactly one).
    static func todo(_ host: Host, _ title: String) throws -> JSON {
        let found = try todos(host).filter { $0["title"]?.stringValue == title }
        try #require(found.count == 1, "the store holds \(found.count) todos titled \(title)")
        return found[0]
    }

    /// One `todod-sync --once`: its summary line.
    @discardableResult
    static func once(_ host: Host) throws -> String {
        let r = try host.once()
        #expect(r.status == 0, "todod-sync --once: \(r.stdout)\(r.stderr)")
        return r.stdout
    }

    /// Waits for the next whole second: LAST-MODIFIED holds whole seconds, and an edit meant to be
    /// the later one must be later in them.
    static func nextSecond() { waitForNextSecond() }

    static let milk = "牛乳を買う", cleaning = "年末の大掃除", bins = "ゴミを出す", finished = "Finished 完了"
    static let plain = "Plain, with a comma; and a semicolon"

    /// The todos of items 1 and 2, made with todoctl and sent with `todod-sync --once`.
    static func seed(_ host: Host) throws {
        try todoctl(
            host,
            [
                "add", milk, "--notes", "低脂肪を2本\n朝までに", "--due", "2030-01-15 10:00", "-p", "high", "-c", "家",
                "-t", "買い物", "-t", "急ぎ"
            ])
        try todoctl(host, ["add", cleaning, "--due", "2030-12-28", "-p", "low"])
        try todoctl(host, ["add", bins, "--every", "week", "--due", "2030-01-10 07:00", "-t", "home"])
        try todoctl(host, ["add", finished, "-p", "medium"])
        try todoctl(host, ["done", String(try #require(try todo(host, finished)["id"]?.intValue))])
        try todoctl(host, ["add", plain])
        let first = try once(host)
        #expect(first.contains(": 5 sent, 0 received"), "\(first)")
    }

    /// Item 1: todod → server → vdirsyncer → vdir → todoman.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func todomanListsWhatTododSynced(_ kind: CalDAVServer.Kind) throws {
        try CalDAVSyncTests.knownToFailOnCyrusWithTodoman(kind) { try todomanListsWhatTododSyncedOn(kind) }
    }

    func todomanListsWhatTododSyncedOn(_ kind: CalDAVServer.Kind) throws {
        let (_, _, host, peer) = try Self.pair(kind)
        try Self.seed(host)
        let copied = try peer.sync()
        #expect(copied.count == 5, "\(copied)")
        let listed = try peer.list()
        #expect(listed.count == 5)
        #expect(
            Set(listed.compactMap { $0["summary"]?.stringValue }) == [
                Self.milk, Self.cleaning, Self.bins, Self.finished, Self.plain
            ])
        let milk = try peer.item(Self.milk)
        #expect(milk["due"] == .int(1_894_701_600)) // 2030-01-15 10:00 UTC
        #expect(milk["priority"] == 1)
        #expect(milk["description"] == "低脂肪を2本\n朝までに")
        #expect(milk["categories"]?.arrayValue?.compactMap(\.stringValue).first == "家")
        #expect(Set(milk["categories"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["家", "買い物", "急ぎ"])
        #expect(milk["completed"] == false)
        let cleaning = try peer.item(Self.cleaning)
        #expect(cleaning["due"] == .int(1_924_646_400)) // the day 2030-12-28
        #expect(cleaning["priority"] == 9)
        let bins = try peer.item(Self.bins)
        #expect(bins["recurring"] == true)
        #expect(bins["due"] == .int(1_894_258_800)) // 2030-01-10 07:00 UTC
        #expect(bins["completed"] == false)
        let finished = try peer.item(Self.finished)
        #expect(finished["completed"] == true)
        #expect(finished["priority"] == 5)
        #expect(try peer.item(Self.plain)["due"] == .null)
        // All-day stays a date in the vdir.
        let cleaningFile = try #require(try peer.files().values.first { $0.contains(Self.cleaning) })
        #expect(cleaningFile.split(whereSeparator: \.isNewline).contains("DUE;VALUE=DATE:20301228"), "\(cleaningFile)")
        // Nothing more to do on either side.
        #expect(try peer.sync().isEmpty)
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
    }

    /// Item 2: back from todoman. todoman adds one, renames one, completes two (one recurring),
    /// deletes one; vdirsyncer and todod-sync bring exactly that to the store. todoman completes
    /// a recurring todo by marking it COMPLETED without its RRULE and saving a copy with a new UID
    /// and the next due date: todod keeps ONE todo, which advances (the copy is folded into it and
    /// removed from the server), so todoman too lists it once, advanced. What todoman adds to a
    /// VTODO (SEQUENCE) survives todod's next push; further rounds change nothing.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func todomanChangesComeBack(_ kind: CalDAVServer.Kind) throws {
        try CalDAVSyncTests.knownToFailOnCyrusWithTodoman(kind) { try todomanChangesComeBackOn(kind) }
    }

    func todomanChangesComeBackOn(_ kind: CalDAVServer.Kind) throws {
        let (server, calendar, host, peer) = try Self.pair(kind)
        try Self.seed(host)
        try peer.sync()
        let binsUID = try #require(try Self.todo(host, Self.bins)["uid"]?.stringValue)
        let renamed = "Plain, edited in todoman 編集"
        Self.nextSecond()
        try peer.todo([
            "new", "-l", "todod", "--due", "2030-03-01 08:00", "--priority", "high", "-c", "仕事", "todoman が作った"
        ])
        try peer.setSummary(of: Self.plain, to: renamed)
        try peer.todo(["done", try peer.id(Self.milk)])
        try peer.todo(["done", try peer.id(Self.bins)])
        try peer.todo(["delete", "--yes", try peer.id(Self.cleaning)])
        let listedByTodoman = try peer.list()
        print(
            "PeerInteropTests \(kind): todoman after completing the recurring todo: \(listedByTodoman.filter { $0["summary"]?.stringValue == Self.bins }.map { "recurring=\($0["recurring"]!) completed=\($0["completed"]!) due=\($0["due"]!)" })"
        )
        let up = try peer.sync()
        #expect(up.count == 6, "\(up)") // a new one, its copy of the recurring todo, three changed, one deleted
        let back = try Self.once(host)
        #expect(back.contains(" received, 0 conflicts"), "\(back)")

        let todos = try Self.todos(host)
        #expect(todos.count == 5, "\(todos.map { $0["title"] ?? .null })")
        let made = try Self.todo(host, "todoman が作った")
        #expect(made["due"] == "2030-03-01T08:00:00Z")
        #expect(made["priority"] == "high")
        #expect(made["category"] == "仕事")
        #expect(made["done"] == false)
        #expect(try Self.todo(host, renamed)["done"] == false)
        #expect(
            todos.allSatisfy { $0["title"]?.stringValue != Self.plain && $0["title"]?.stringValue != Self.cleaning })
        #expect(try Self.todo(host, Self.finished)["done"] == true)
        let milk = try Self.todo(host, Self.milk)
        #expect(milk["done"] == true)
        #expect(milk["tags"] == ["急ぎ", "買い物"] || milk["tags"] == ["買い物", "急ぎ"])
        #expect(milk["category"] == "家")
        let bins = try Self.todo(host, Self.bins)
        #expect(bins["uid"]?.stringValue == binsUID)
        #expect(bins["done"] == false)
        #expect(bins["due"] == "2030-01-17T07:00:00Z")
        #expect(bins["recurrence"]?["rule"] != nil)
        #expect(bins["tags"] == ["home"])

        // The server and todoman agree: the recurring todo once, advanced, with its RRULE.
        try peer.sync()
        let seen = try peer.list()
        #expect(seen.count == 5)
        let binsThere = try peer.item(Self.bins)
        #expect(binsThere["recurring"] == true && binsThere["completed"] == false)
        #expect(binsThere["due"] == .int(1_894_863_600)) // 2030-01-17 07:00 UTC
        #expect(try peer.item(Self.milk)["completed"] == true)
        #expect(try peer.item(renamed)["completed"] == false)

        // What todoman added (SEQUENCE) survives todod's next push of that todo.
        let renamedUID = try #require(try Self.todo(host, renamed)["uid"]?.stringValue)
        let renamedFile = try #require(try peer.files().values.first { $0.contains("UID:\(renamedUID)") })
        #expect(renamedFile.contains("SEQUENCE:"), "\(renamedFile)")
        try Self.todoctl(
            host, ["edit", String(try #require(try Self.todo(host, renamed)["id"]?.intValue)), "--notes", "todod が追記"])
        #expect(try Self.once(host).contains(": 1 sent, 0 received"))
        let collection = CalDAVCollection(url: calendar, user: server.user, password: server.password)
        let remote = try collection.fetch(try collection.versions().map(\.href)).map {
            String(decoding: $0.data, as: UTF8.self)
        }
        let pushed = try #require(remote.first { $0.contains("UID:\(renamedUID)") })
        #expect(pushed.contains("todod が追記"))
        for line in renamedFile.split(whereSeparator: \.isNewline) where line.hasPrefix("SEQUENCE:") {
            #expect(pushed.split(whereSeparator: \.isNewline).contains(line), "\(pushed)")
        }

        // No echo: vdirsyncer brings todod's push, then nothing moves on either side.
        #expect(try peer.sync().count == 1)
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
        #expect(try peer.sync().isEmpty)
        #expect(try peer.item(renamed)["description"] == "todod が追記")
    }

    /// Item 4: the same todo edited in todoman (its summary) and in todod (its due) before either
    /// side syncs: after the rounds both edits are kept on both sides. The same field (priority)
    /// edited on both: the later edit wins, whichever side made it, and `todoctl sync status`
    /// lists the conflict. vdirsyncer syncs first: it has no field merge of its own (an item
    /// changed in the vdir and on the server since its last sync is a vdirsyncer conflict), so
    /// todod-sync does the merge and vdirsyncer then brings the merged todo.
    @Test(arguments: CalDAVServer.Kind.allCases)
    func concurrentEditsMerge(_ kind: CalDAVServer.Kind) throws {
        try CalDAVSyncTests.knownToFailOnCyrusWithTodoman(kind) { try concurrentEditsMergeOn(kind) }
    }

    func concurrentEditsMergeOn(_ kind: CalDAVServer.Kind) throws {
        let (_, _, host, peer) = try Self.pair(kind)
        try Self.seed(host)
        try peer.sync()
        func id(_ title: String) throws -> String { String(try #require(try Self.todo(host, title)["id"]?.intValue)) }
        /// vdirsyncer, todod-sync, vdirsyncer: todod-sync's line, and what vdirsyncer brought back.
        func round() throws -> (String, Int) {
            #expect(try peer.sync().count == 1)
            let r = try Self.once(host)
            return (r, try peer.sync().count)
        }

        // Different fields: both kept.
        let milk = "牛乳を2本買う"
        Self.nextSecond()
        try peer.setSummary(of: Self.milk, to: milk)
        try Self.todoctl(host, ["edit", try id(Self.milk), "--due", "2030-02-01 09:30"])
        let both = try round()
        #expect(both.0.contains(": 1 sent, 1 received, 0 conflicts") && both.1 == 1, "\(both)")
        #expect(try Self.todo(host, milk)["due"] == "2030-02-01T09:30:00Z")
        #expect(try peer.item(milk)["due"] == .int(1_896_168_600))
        #expect(try Self.todo(host, milk)["tags"]?.arrayValue?.count == 2)

        // The same field, todod's edit the later: todod's wins.
        Self.nextSecond()
        try peer.todo(["edit", try peer.id(Self.plain), "--priority", "low"])
        Self.nextSecond()
        try Self.todoctl(host, ["edit", try id(Self.plain), "-p", "medium"])
        let local = try round()
        // Received too: the store takes the lines todoman's rewrite added, which it keeps (an
        // export from the store has them).
        #expect(local.0.contains(": 1 sent, 1 received, 1 conflict") && local.1 == 1, "\(local)")
        #expect(try Self.todo(host, Self.plain)["priority"] == "medium")
        #expect(try peer.item(Self.plain)["priority"] == 5)

        // The same field, todoman's edit the later: todoman's wins.
        Self.nextSecond()
        try Self.todoctl(host, ["edit", try id(Self.cleaning), "-p", "high"])
        Self.nextSecond()
        try peer.todo(["edit", try peer.id(Self.cleaning), "--priority", "medium"])
        let remote = try round()
        #expect(remote.0.contains(": 0 sent, 1 received, 1 conflict") && remote.1 == 0, "\(remote)")
        #expect(try Self.todo(host, Self.cleaning)["priority"] == "medium")
        #expect(try peer.item(Self.cleaning)["priority"] == 5)

        // Both conflicts are listed, with the side kept.
        let conflicts = try #require(host.status?.conflicts)
        #expect(conflicts.map(\.title) == [Self.plain, Self.cleaning])
        #expect(conflicts.map(\.fields) == [["priority"], ["priority"]])
        #expect(conflicts.map(\.kept) == ["local", "remote"])
        let status = try Self.todoctl(host, ["sync", "status"]).stdout
        #expect(
            status.contains("Recent conflicts") && status.contains(Self.cleaning) && status.contains("priority"),
            "\(status)")

        // And then quiet on both sides.
        #expect(try Self.once(host).contains(": 0 sent, 0 received"))
        #expect(try peer.sync().isEmpty)
    }
}

/// The peers' habits that PeerInteropTests met, against an in-memory collection (these run
/// without the peers installed).
@Suite struct PeerHabitTests {
    /// A recurring todo synced to `cal`, and its resource.
    func recurring(_ m: Machine, _ cal: InMemoryCollection) throws -> (uid: String, href: String) {
        let uid = try #require(
            try m.add(
                "ゴミを出す",
                [
                    "due": "2026-12-07T08:00:00Z", "zone": "UTC", "recurrence": ["rule": "FREQ=WEEKLY", "from": "due"]
                ])["uid"]?.stringValue)
        try m.sync(cal)
        return (uid, try #require(cal.href(uid: uid)))
    }

    /// What todoman 4 does on `todo done` of a recurring todo: the original COMPLETED without its
    /// RRULE, and a copy with a new UID (same SUMMARY, CREATED and RRULE) due at the next
    /// occurrence. `created` replaces the copy's CREATED (another todo that only looks alike).
    func todomanCompletes(_ cal: InMemoryCollection, _ href: String, uid: String, created: String? = nil) {
        let original = String(decoding: cal.resources[href]!.data, as: UTF8.self)
        cal.edit(href) { text in
            text.replacingOccurrences(
                of: "STATUS:NEEDS-ACTION",
                with: "STATUS:COMPLETED\r\nCOMPLETED:20261207T090000Z\r\nPERCENT-COMPLETE:100"
            )
            .replacingOccurrences(of: #"RRULE:[^\r]*\r\n"#, with: "", options: .regularExpression)
            .replacingOccurrences(
                of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:\(icalStamp(fromNow: 3_600))",
                options: .regularExpression)
        }
        var copy = original.replacingOccurrences(of: "UID:\(uid)", with: "UID:todoman-copy-1")
            .replacingOccurrences(of: "DUE:20261207T080000Z", with: "DUE:20261214T080000Z")
            .replacingOccurrences(of: #"X-[^\r]*\r\n"#, with: "", options: .regularExpression)
        if let created {
            copy = copy.replacingOccurrences(
                of: #"CREATED:\d+T\d+Z"#, with: "CREATED:\(created)", options: .regularExpression)
        }
        cal.put("todoman-copy-1.ics", copy)
    }

    @Test func todomansCompletionOfARecurringTodoStaysOneTodoThatAdvances() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (uid, href) = try recurring(m, cal)
        todomanCompletes(cal, href, uid: uid)
        let report = try m.sync(cal)
        #expect(report.conflicts.isEmpty)
        let todos = try m.todos()
        #expect(todos.count == 1)
        #expect(todos.first?["uid"]?.stringValue == uid)
        #expect(todos.first?["done"] == false)
        #expect(todos.first?["due"] == "2026-12-14T08:00:00Z")
        #expect(cal.resources.count == 1 && cal.resources[href] != nil)
        let remote = try #require(cal.items()[uid])
        #expect(!remote.entry.done && remote.entry.recurrence?.rule == "FREQ=WEEKLY")
        #expect(remote.entry.due == Instant(rfc3339: "2026-12-14T08:00:00Z"))
        let quiet = try m.sync(cal)
        #expect(quiet.sent == 0 && quiet.received == 0)
    }

    /// A new todo that only looks like the copy (another CREATED) is a todo of its own.
    @Test func aLookalikeIsNotFolded() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (uid, href) = try recurring(m, cal)
        todomanCompletes(cal, href, uid: uid, created: "20261207T085959Z")
        try m.sync(cal)
        #expect(try m.todos().count == 2)
        #expect(cal.resources.count == 2)
    }

    /// xandikos answers sync-collection by comparing the states the token and now name: a
    /// resource todod created after the token and another client deleted before the next round
    /// is in neither, and is not reported removed. It is deleted here all the same.
    @Test func aTodoCreatedHereAndDeletedOnAStateComparingServerIsDeletedHere() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        cal.comparesStates = true
        let uid = try #require(try m.add("made here, deleted by vdirsyncer")["uid"]?.stringValue)
        try m.sync(cal)
        cal.remove(try #require(cal.href(uid: uid)))
        let report = try m.sync(cal)
        #expect(report.received == 1)
        #expect(try m.todos().isEmpty)
        let quiet = try m.sync(cal)
        #expect(quiet.sent == 0 && quiet.received == 0)
    }

    /// The same, with the round cut off between the upload and the pass that would have checked
    /// it (the process stopped, the network gone): the state keeps no token meanwhile, so the next
    /// round, in a new process, lists the calendar whole and finds the deletion all the same.
    @Test func aRoundCutOffAfterItsUploadLeavesTheNextAFullListing() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        cal.comparesStates = true
        try m.add("an older one")
        try m.sync(cal)
        let uid = try #require(try m.add("made here, deleted before the check")["uid"]?.stringValue)
        cal.changesBeforeCut = 1
        #expect(throws: SyncError.self) { try m.sync(cal) }
        #expect(cal.href(uid: uid) != nil)
        cal.changesBeforeCut = nil
        cal.remove(try #require(cal.href(uid: uid)))
        let report = try m.sync(cal)
        #expect(report.received == 1)
        #expect(try m.todos().map { $0["title"] } == ["an older one"])
        let quiet = try m.sync(cal)
        #expect(quiet.sent == 0 && quiet.received == 0)
    }
}
