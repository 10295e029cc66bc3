import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The journeys the product grew from, driven through the built `todoctl` against a real daemon.
@Suite struct TodoctlJourneyTests {
    private func json(_ result: ChildProcess.Result) throws -> JSON {
        #expect(result.status == 0, "\(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    private func ids(_ daemon: DaemonProcess, _ arguments: [String]) throws -> [Int64] {
        try json(daemon.todoctl(["--json", "list"] + arguments)).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
    }

    @Test func addShowEditCompleteListDelete() throws {
        let d = try DaemonProcess()
        let added = try json(d.todoctl(["add", "牛乳を買う", "--category", "買い物", "--due", "tomorrow 9am", "--json"]))
        #expect(added["title"] == "牛乳を買う" && added["category"] == "買い物" && added["due"] != .null)
        #expect(
            added.objectValue?.keys == [
                "id", "uid", "title", "notes", "category", "due", "remind", "reminded", "done",
                "completed", "position", "created", "updated", "priority", "tags", "zone", "allDay", "recurrence",
                "revision", "parent", "subtasks", "parentUid", "start", "alarms"
            ])
        let show = try d.todoctl(["show", "1"])
        #expect(show.status == 0 && show.stdout.contains("牛乳を買う"))
        let edited = try json(d.todoctl(["--json", "edit", "1", "--title", "牛乳を2本買う", "--notes", "低脂肪"]))
        #expect(edited["title"] == "牛乳を2本買う" && edited["notes"] == "低脂肪")
        _ = try d.todoctl(["add", "second"])
        let done = try json(d.todoctl(["done", "1", "--json"]))
        #expect(done.arrayValue?.first?["done"] == true)
        #expect(try ids(d, []) == [2])
        #expect(try ids(d, ["--done"]) == [1])
        let removed = try d.todoctl(["rm", "1"])
        #expect(removed.status == 0)
        #expect(try ids(d, ["--all"]) == [2])
        let missing = try d.todoctl(["show", "1"])
        #expect(
            missing.status == 1 && missing.stderr.hasPrefix("todoctl: ")
                && missing.stderr.split(separator: "\n").count == 1)
    }

    /// todoctl reads time zones itself (TZif files and POSIX rules, no Foundation): `TZ` and
    /// `TZDIR` mean what they mean to every C program.
    @Test func localTimesFollowTZ() throws {
        let d = try DaemonProcess()
        let zones = TemporaryDirectory("tzdir")
        try FileManager.default.createDirectory(atPath: zones.file("Test"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Kolkata", toPath: zones.file("Test/Zone"))
        let cases: [(tz: String?, tzdir: String?, when: String, utc: String)] = [
            ("Asia/Tokyo", nil, "2026-12-01 09:00", "2026-12-01T00:00:00Z"),
            (":Asia/Tokyo", nil, "2026-12-01 09:00", "2026-12-01T00:00:00Z"),
            ("JST-9", nil, "2026-12-01 09:00", "2026-12-01T00:00:00Z"),
            ("America/New_York", nil, "2026-07-04 12:00", "2026-07-04T16:00:00Z"),
            ("America/New_York", nil, "2026-12-25 12:00", "2026-12-25T17:00:00Z"),
            ("America/New_York", nil, "2055-07-04 12:00", "2055-07-04T16:00:00Z"), // past the table: the file's rule
            ("EST5EDT,M3.2.0,M11.1.0", nil, "2026-03-08 03:30", "2026-03-08T07:30:00Z"),
            ("/usr/share/zoneinfo/Asia/Kolkata", nil, "2026-12-01 09:00", "2026-12-01T03:30:00Z"),
            ("Test/Zone", zones.path, "2026-12-01 09:00", "2026-12-01T03:30:00Z"),
            ("", nil, "2026-12-01 09:00", "2026-12-01T09:00:00Z"),
            ("No/Such_Zone", nil, "2026-12-01 09:00", "2026-12-01T09:00:00Z") // glibc: UTC
        ]
        for (index, c) in cases.enumerated() {
            var environment: [String: String] = [:]
            if let tz = c.tz { environment["TZ"] = tz }
            if let tzdir = c.tzdir { environment["TZDIR"] = tzdir }
            let added = try json(
                d.todoctl(["--json", "add", "zone \(index)", "--due", c.when], environment: environment))
            #expect(added["due"] == .string(c.utc), "TZ=\(c.tz ?? "(unset)") \(c.when)")
            let shown = try d.todoctl(["show", String(added["id"]?.intValue ?? 0)], environment: environment)
            #expect(shown.stdout.contains(c.when), "TZ=\(c.tz ?? "(unset)"): \(shown.stdout)")
        }
    }

    /// A listing longer than one part of the table (Runner.streamedRows) is read as it arrives
    /// and printed whole: one header, every todo once, in order, columns aligned.
    @Test func aLongListingArrivesWhole() throws {
        let d = try DaemonProcess()
        let count = 2_500
        let todos = (1...count).map { i -> JSON in
            [
                "title": .string(i % 2 == 0 ? "牛乳を買う \(i)" : "task \(i)"), "category": i % 3 == 0 ? "買い物" : nil,
                "created": "2026-11-01T00:00:00Z"
            ]
        }
        let document: JSON = ["format": "todod-export", "version": 1, "categories": ["買い物"], "todos": .array(todos)]
        let imported = try d.todoctl(["import", "-"], input: document.serialized())
        #expect(imported.status == 0, "\(imported.stderr)")
        let human = try d.todoctl(["list"])
        let lines = human.stdout.split(separator: "\n").map(String.init)
        #expect(human.status == 0 && lines.count == count + 1)
        #expect(lines.first?.contains("TITLE") == true)
        let titleColumns = Set(
            lines.dropFirst().enumerated().compactMap { i, line -> Int? in
                guard let title = todos[i]["title"]?.stringValue, let range = line.range(of: title) else { return nil }
                // Display columns: the kana and kanji here are two columns wide.
                return line[..<range.lowerBound].unicodeScalars.reduce(0) { $0 + ($1.value >= 0x3000 ? 2 : 1) }
            })
        #expect(titleColumns.count == 1)
        let listed = try json(d.todoctl(["--json", "list"]))
        #expect(
            listed.arrayValue?.compactMap { $0["title"]?.stringValue } == todos.compactMap { $0["title"]?.stringValue })
    }

    @Test func sortingByIdTitleCreatedUpdatedBothWays() throws {
        let d = try DaemonProcess()
        for title in ["banana", "Apple", "cherry"] {
            let added = try json(d.todoctl(["--json", "add", title]))
            // The next change must be later: wait until the clock is past this one's stamp.
            let stamp = try #require(added["updated"]?.stringValue.flatMap { Instant(rfc3339: $0) })
            waitUntilPast(Date(timeIntervalSince1970: Double(stamp.usec) / 1e6))
        }
        _ = try d.todoctl(["edit", "1", "--notes", "touched last"])
        #expect(try ids(d, ["--sort", "id"]) == [1, 2, 3])
        #expect(try ids(d, ["--sort", "-id"]) == [3, 2, 1])
        #expect(try ids(d, ["--sort", "title"]) == [2, 1, 3])
        #expect(try ids(d, ["--sort", "-title"]) == [3, 1, 2])
        #expect(try ids(d, ["--sort", "created"]) == [1, 2, 3])
        #expect(try ids(d, ["--sort", "-created"]) == [3, 2, 1])
        #expect(try ids(d, ["--sort", "updated"]) == [2, 3, 1])
        #expect(try ids(d, ["--sort", "-updated"]) == [1, 3, 2])
        let bad = try d.todoctl(["list", "--sort", "colour"])
        #expect(bad.status == 2 && bad.stderr.contains("colour"))
    }

    @Test func reorderingKeepsPositionsDenseAndIdsStable() throws {
        let d = try DaemonProcess()
        for i in 1...5 { _ = try d.todoctl(["add", "t\(i)"]) }
        _ = try d.todoctl(["move", "4", "--to", "2"]) // up
        _ = try d.todoctl(["move", "2", "--after", "5"]) // down
        _ = try d.todoctl(["rm", "3"])
        let list = try json(d.todoctl(["--json", "list", "--all"])).arrayValue ?? []
        #expect(list.map { $0["id"]?.intValue ?? 0 } == [1, 4, 5, 2])
        #expect(list.map { $0["position"]?.intValue ?? 0 } == [1, 2, 3, 4])
        _ = try d.todoctl(["add", "new top", "--top"])
        _ = try d.todoctl(["move", "6", "--bottom"])
        _ = try d.todoctl(["move", "2", "--top"])
        let after = try json(d.todoctl(["--json", "list"])).arrayValue ?? []
        #expect(after.map { $0["id"]?.intValue ?? 0 } == [2, 1, 4, 5, 6]) // 6, not a reused 3
        #expect(after.map { $0["position"]?.intValue ?? 0 } == [1, 2, 3, 4, 5])
    }

    @Test func categoriesSharedAcrossCaseWithCountsAndSections() throws {
        let d = try DaemonProcess()
        _ = try d.todoctl(["add", "a", "--category", "Home"])
        _ = try d.todoctl(["add", "b", "--category", "home"])
        _ = try d.todoctl(["add", "c", "--category", "仕事"])
        _ = try d.todoctl(["add", "d"])
        _ = try d.todoctl(["done", "2"])
        let categories = try json(d.todoctl(["--json", "category", "list"])).arrayValue ?? []
        #expect(categories.map { $0["name"]?.stringValue ?? "" } == ["Home", "仕事"])
        #expect(categories.first?["open"] == 1 && categories.first?["done"] == 1)
        let grouped = try d.todoctl(["list", "--all", "--by-category"])
        #expect(grouped.status == 0)
        let text = grouped.stdout
        let home = text.range(of: "Home")
        let work = text.range(of: "仕事")
        let none = text.range(of: "(no category)")
        #expect(home != nil && work != nil && none != nil)
        if let home, let work, let none {
            #expect(home.lowerBound < work.lowerBound && work.lowerBound < none.lowerBound)
        }
        let refused = try d.todoctl(["category", "rm", "home"])
        #expect(refused.status == 1 && refused.stderr.contains("still has 2 todos"))
        #expect(try d.todoctl(["category", "rm", "home", "--force"]).status == 0)
        #expect(try ids(d, ["--all", "--no-category"]) == [1, 2, 4])
    }

    @Test func humanListStaysAlignedWithJapaneseAndEmoji() throws {
        let d = try DaemonProcess()
        _ = try d.todoctl(["add", "牛乳を買う", "--category", "買い物", "--due", "+3h"])
        _ = try d.todoctl(["add", "🍣 party 👨‍👩‍👧", "--category", "Home"])
        _ = try d.todoctl(["add", "plain ascii", "--due", "+1d"])
        let out = try d.todoctl(["list"]).stdout
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        // The TITLE column starts at the same display column on every line.
        let header = lines[0]
        let titleColumn = header.distance(from: header.startIndex, to: header.range(of: "TITLE")!.lowerBound)
        for line in lines.dropFirst() {
            let title = ["牛乳を買う", "🍣 party", "plain ascii"].first { line.contains($0) }!
            let prefix = String(line[..<line.range(of: title)!.lowerBound])
            #expect(displayWidth(prefix) == titleColumn, "\(line)")
        }
        #expect(!out.contains("\u{1B}[")) // NO_COLOR and not a terminal
    }

    @Test func exitCodesAndTheUnreachableMessage() throws {
        let dir = TemporaryDirectory("exit")
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = dir.file("nobody-home.sock")
        let unreachable = try ChildProcess.run(BuiltProducts.path("todoctl"), ["list"], environment: env)
        #expect(unreachable.status == 69)
        #expect(unreachable.stderr.hasPrefix("todoctl: ") && unreachable.stderr.contains(dir.file("nobody-home.sock")))
        #expect(unreachable.stderr.contains("todod"))
        let usage = try ChildProcess.run(BuiltProducts.path("todoctl"), ["list", "--frobnicate"], environment: env)
        #expect(
            usage.status == 2 && usage.stderr.contains("--frobnicate") && usage.stderr.contains("Usage: todoctl list"))
        let help = try ChildProcess.run(BuiltProducts.path("todoctl"), ["help", "move"], environment: env)
        #expect(help.status == 0 && help.stdout.contains("--before"))
        let version = try ChildProcess.run(BuiltProducts.path("todoctl"), ["--version"], environment: env)
        #expect(version.stdout == "todoctl \(TododVersion.string)\n")
    }

    @Test func exportThenImportIntoAnotherDaemon() throws {
        let a = try DaemonProcess()
        _ = try a.todoctl(["add", "一", "--category", "仕事", "--due", "2099-01-01"])
        _ = try a.todoctl(["add", "two", "--notes", "line1\nline2"])
        let exported = try a.todoctl(["export"])
        #expect(exported.status == 0)
        let b = try DaemonProcess()
        let imported = try b.todoctl(["import", "-"], input: exported.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        let list = try json(b.todoctl(["--json", "list"])).arrayValue ?? []
        #expect(list.map { $0["title"]?.stringValue ?? "" } == ["一", "two"])
        #expect(list.last?["notes"] == "line1\nline2")
        let broken = try b.todoctl(
            ["import", "-"],
            input: "{\"format\":\"todod-export\",\"version\":1,\"categories\":[],\"todos\":[{\"title\":\"\"}]}")
        #expect(broken.status == 1)
        #expect(try json(b.todoctl(["--json", "list"])).arrayValue?.count == 2)
    }

    /// An export longer than one request line (1 MiB) goes back in parts and lands whole.
    @Test func aLargeExportImportsWhole() throws {
        let a = try DaemonProcess()
        let todos = (1...6_000).map { i -> JSON in
            [
                "title": .string("買い物リスト \(i) — milk, bread and eggs"), "category": i % 2 == 0 ? "家" : nil,
                "notes": i % 5 == 0 ? .string(String(repeating: "メモ", count: 40)) : nil,
                "created": "2026-11-01T00:00:00Z"
            ]
        }
        let seed: JSON = [
            "format": "todod-export", "version": 1, "categories": ["家"], "todos": .array(Array(todos[..<3000]))
        ]
        let rest: JSON = [
            "format": "todod-export", "version": 1, "categories": [], "todos": .array(Array(todos[3000...]))
        ]
        for document in [seed, rest] {
            let r = try a.todoctl(["import", "-"], input: document.serialized())
            #expect(r.status == 0, "\(r.stderr)")
        }
        let exported = try a.todoctl(["export"])
        #expect(exported.status == 0 && exported.stdout.utf8.count > 1 << 20)
        let b = try DaemonProcess()
        let imported = try b.todoctl(["import", "-"], input: exported.stdout)
        #expect(
            imported.status == 0 && imported.stdout == "Imported 6000 todos and 1 category.\n", "\(imported.stderr)")
        let titles = try json(b.todoctl(["--json", "list"])).arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(titles == todos.compactMap { $0["title"]?.stringValue })
    }

    /// The client, in turn, refuses a daemon run by another user.
    @Test(.enabled(if: getuid() == 0, "running a daemon as nobody needs root"))
    func theClientRefusesADaemonOfAnotherUser() throws {
        let dir = TemporaryDirectory("hostile")
        #expect(chown(dir.path, 65534, 65534) == 0) // the hostile daemon's own directory
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", BuiltProducts.path("todod"),
            "--socket", dir.file("todod.sock"), "--db", dir.file("todos.db")
        ]
        process.environment = ["HOME": dir.path]
        try process.run()
        defer {
            process.terminate()
            process.waitForExit()
        }
        #expect(waitUntilListening(dir.file("todod.sock"), while: { process.isRunning }))
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = dir.file("todod.sock")
        let result = try ChildProcess.run(BuiltProducts.path("todoctl"), ["list"], environment: env)
        #expect(result.status == 69)
        #expect(result.stderr.contains("65534"), "\(result.stderr)")
    }
}

/// Display columns of `s`, counting East Asian wide characters and emoji as two.
private func displayWidth(_ s: String) -> Int {
    s.reduce(0) { total, character in
        let scalar = character.unicodeScalars.first!.value
        let wide =
            (0x1100...0x115F).contains(scalar) || (0x2E80...0xA4CF).contains(scalar)
            || (0xAC00...0xD7A3).contains(scalar)
            || (0xF900...0xFAFF).contains(scalar) || (0xFF00...0xFF60).contains(scalar)
            || (0x1F300...0x1FAFF).contains(scalar)
        return total + (wide ? 2 : 1)
    }
}
