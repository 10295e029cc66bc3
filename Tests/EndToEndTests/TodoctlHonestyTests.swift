import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What a new user (and an attacker) saw through the built `todoctl` and a real daemon: text that
/// disguises itself, changes claimed but not made, hints one unit short, a flag that lost to a
/// variable, and an installer that described the wrong files.
@Suite struct TodoctlHonestyTests {
    /// The repository, for scripts/install.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    private func json(_ result: ChildProcess.Result) throws -> JSON {
        #expect(result.status == 0, "\(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    @Test func invisibleCharactersAreShownEscapedAndInvisibleTitlesRefused() throws {
        let d = try DaemonProcess()
        let spoof = "invoice\u{202E}fdp.exe pay\u{200B}pal \u{2066}x\u{2069} a\u{2028}b"
        let escaped = "invoice<U+202E>fdp.exe pay<U+200B>pal <U+2066>x<U+2069> a<U+2028>b"
        let added = try d.todoctl(["add", spoof, "--category", "c\u{200F}at"])
        #expect(added.stdout == "Added 1: \(escaped) [c<U+200F>at]\n", "\(added.stdout)")
        let japanese = "牛乳を買う 👨‍👩‍👧 🏳️‍🌈 葛\u{E0100}城"
        #expect(try d.todoctl(["add", japanese]).stdout == "Added 2: \(japanese)\n")
        let list = try d.todoctl(["list"]).stdout
        #expect(list.contains(escaped) && list.contains("c<U+200F>at") && list.contains(japanese), "\(list)")
        let show = try d.todoctl(["show", "1"]).stdout
        #expect(show.contains("Title:    \(escaped)\n"))
        for output in [added.stdout, list, show] {
            #expect(
                !output.unicodeScalars.contains { [0x202E, 0x200B, 0x2066, 0x2069, 0x2028, 0x200F].contains($0.value) })
        }
        // The data itself is kept as given.
        #expect(try json(d.todoctl(["--json", "show", "1"]))["title"] == .string(spoof))

        let client = try d.client()
        for title in ["\u{200B}", "\u{200B}\u{2060}\u{FEFF}\u{200D}", "\u{202E}\u{2066}", "\u{301}\u{302}", "\u{3164}"]
        {
            let refused = try client.call("todo.add", ["title": .string(title)])
            #expect(
                refused["error"]?["code"] == -32602 && refused["error"]?["data"]?["field"] == "title",
                "\(refused.serialized())")
            #expect(refused["error"]?["message"]?.stringValue?.contains("no visible characters") == true)
            let edit = try client.call("todo.update", ["id": 2, "title": .string(title)])
            #expect(edit["error"]?["data"]?["field"] == "title")
            let category = try client.call("category.add", ["name": .string(title)])
            #expect(category["error"]?["code"] == -32602 && category["error"]?["data"]?["field"] == "name")
        }
        let cli = try d.todoctl(["add", "\u{200B}\u{200B}"])
        #expect(cli.status == 1 && cli.stderr.contains("no visible characters"))
        // 200,000 combining marks are one character but 400,001 bytes.
        let zalgo = try client.call("todo.add", ["title": .string("a" + String(repeating: "\u{301}", count: 200_000))])
        #expect(zalgo["error"]?["code"] == -32602 && zalgo["error"]?["data"]?["field"] == "title")
        #expect(zalgo["error"]?["message"]?.stringValue?.contains("4096 bytes") == true)
        let longName = try client.call(
            "category.add", ["name": .string("x" + String(repeating: "\u{301}", count: 600))])
        #expect(
            longName["error"]?["data"]?["field"] == "name"
                && longName["error"]?["message"]?.stringValue?.contains("1024 bytes") == true)
        let widest = String(repeating: "𠀋", count: 1000) // 1,000 characters, 4,000 bytes
        #expect(try client.call("todo.add", ["title": .string(widest)])["result"]?["title"] == .string(widest))
        let total = try json(d.todoctl(["--json", "list", "--all"])).arrayValue?.count
        #expect(total == 3)
    }

    @Test func doneTwiceAndReopenTwiceSayWhatWasAlreadySo() throws {
        let d = try DaemonProcess()
        _ = try d.todoctl(["add", "once", "--due", "+1h"])
        _ = try d.todoctl(["add", "twice"])
        #expect(try d.todoctl(["done", "1"]).stdout == "Completed 1: once\n")
        let again = try d.todoctl(["done", "1"])
        #expect(again.status == 0 && again.stdout == "1 was already done: once\n")
        #expect(try d.todoctl(["done", "1", "2"]).stdout == "Completed 1 todo; 1 was already done.\n")
        #expect(try d.todoctl(["done", "1", "2"]).stdout == "All 2 todos were already done.\n")
        let json = try json(d.todoctl(["--json", "done", "1"]))
        #expect(json.arrayValue?.first?["done"] == true)
        // A done todo's reminder is not pending.
        let show = try d.todoctl(["show", "1"]).stdout
        #expect(show.contains("(off while done)") && !show.contains("(in "), "\(show)")
        #expect(try d.todoctl(["reopen", "1"]).stdout == "Reopened 1: once\n")
        let reopened = try d.todoctl(["reopen", "1"])
        #expect(reopened.status == 0 && reopened.stdout == "1 was already open: once\n")
        #expect(try d.todoctl(["show", "1"]).stdout.contains("(in 1h)"))
    }

    @Test func relativeHintsRightAfterInputAreWhole() throws {
        let d = try DaemonProcess()
        #expect(try d.todoctl(["add", "two hours", "--due", "+2h"]).stdout == "Added 1: two hours (due in 2h)\n")
        #expect(try d.todoctl(["add", "a week", "--due", "+1w"]).stdout == "Added 2: a week (due in 1w)\n")
        #expect(try d.todoctl(["add", "a day", "--due", "+1d"]).stdout == "Added 3: a day (due in 1d)\n")
        #expect(try d.todoctl(["add", "fifteen", "--due", "+15m"]).stdout == "Added 4: fifteen (due in 15m)\n")
        let list = try d.todoctl(["list"]).stdout
        for hint in ["in 2h", "in 1w", "in 1d", "in 15m"] { #expect(list.contains(hint), "\(list)") }
        #expect(try d.todoctl(["show", "1"]).stdout.contains("(in 2h)"))
    }

    @Test func systemIsNotOverriddenByTODOD_SOCKET() throws {
        let d = try DaemonProcess()
        _ = try d.todoctl(["add", "mine"])
        // TODOD_SOCKET names the test daemon; --system must go to the system socket instead.
        let system = try d.todoctl(["--system", "--json", "list"])
        if (try? Files.kind(SocketPaths.system)) == nil {
            #expect(system.status == 69 && system.stderr.contains(SocketPaths.system), "\(system.stderr)")
        } else {
            #expect(!system.stdout.contains("mine"))
        }
        #expect(try d.todoctl(["--json", "list"]).stdout.contains("mine"))
    }

    /// `scripts/install --user` into temporary directories: the unit's comments carry no path, the
    /// fish completion says where it went, and the database named is the one todod will open.
    @Test func installDescribesWhatItInstalled() throws {
        let dir = TemporaryDirectory("install")
        let home = dir.file("home")
        let prefix = dir.file("prefix")
        let units = dir.file("units")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["XDG_STATE_HOME"] = nil
        env["XDG_CONFIG_HOME"] = nil
        let result = try ChildProcess.run(
            "/bin/bash",
            [
                Self.repository + "/scripts/install", "--user", "--prebuilt", BuiltProducts.directory,
                "--prefix", prefix, "--unitdir", units, "--no-start"
            ], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let database = getuid() == 0 ? "/var/lib/todod/todos.db" : home + "/.local/state/todod/todos.db"
        #expect(result.stdout.contains("your todos live in \(database)\n"), "\(result.stdout)")
        let service = try String(contentsOfFile: units + "/todod.service", encoding: .utf8)
        let lines = service.split(separator: "\n")
        #expect(lines.contains("ExecStart=\(prefix)/bin/todod"))
        #expect(!lines.contains { $0.hasPrefix("#") && $0.contains(prefix) }, "\(service)")
        let fish = try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/todoctl.fish", encoding: .utf8)
        let header = fish.split(separator: "\n").prefix { $0.hasPrefix("#") }.joined(separator: "\n")
        #expect(header.contains("~/.local/share/fish/vendor_completions.d/todoctl.fish (--user)"), "\(header)")
        #expect(!header.contains("~/.config/fish/completions"))
    }
}
