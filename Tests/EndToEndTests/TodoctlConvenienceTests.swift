import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// The small things a terminal user expects, through the built `todoctl` and a
/// real daemon: bare `todoctl`, id ranges, "did you mean", short options and the config file.
@Suite struct TodoctlConvenienceTests {
    /// A config directory of its own for every test, so a user's real file never takes part.
    final class Setup {
        let daemon: DaemonProcess
        let config = TemporaryDirectory("config")
        init() throws {
            daemon = try DaemonProcess()
            try FileManager.default.createDirectory(atPath: config.file("todod"), withIntermediateDirectories: true)
        }
        var environment: [String: String] { ["XDG_CONFIG_HOME": config.path] }
        func write(_ text: String) throws {
            try text.write(toFile: config.file("todod/config"), atomically: true, encoding: .utf8)
        }
        func run(_ arguments: [String]) throws -> ChildProcess.Result {
            try daemon.todoctl(arguments, environment: environment)
        }
        func json(_ arguments: [String]) throws -> JSON {
            let result = try run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try JSON.parse(result.stdout)
        }
        func ids(_ arguments: [String]) throws -> [Int64] {
            try json(["--json"] + arguments).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
        }
        func add(_ titles: [String]) throws { for title in titles { #expect(try run(["add", title]).status == 0) } }
    }

    @Test func bareTodoctlShowsTheOpenList() throws {
        let s = try Setup()
        try s.add(["banana", "apple", "cherry"])
        #expect(try s.run(["done", "2"]).status == 0)
        let bare = try s.run([])
        #expect(bare.status == 0 && bare.stderr.isEmpty)
        #expect(bare.stdout == (try s.run(["list"])).stdout)
        #expect(bare.stdout.contains("banana") && !bare.stdout.contains("apple"))
        #expect(try s.ids([]) == [1, 3]) // `todoctl --json`
        #expect(try s.json(["-j"]).arrayValue?.count == 2)
        try s.write("sort = -title\n")
        #expect(try s.ids([]) == [3, 1]) // the configured sort
        #expect(try s.ids(["list", "--sort", "id"]) == [1, 3]) // --sort wins over it
    }

    @Test func idRangesExpandInOrderOnce() throws {
        let s = try Setup()
        try s.add((1...8).map { "t\($0)" })
        let done = try s.json(["--json", "done", "3-5", "4", "1", "1-1"]).arrayValue ?? []
        #expect(done.compactMap { $0["id"]?.intValue } == [3, 4, 5, 1])
        #expect(try s.ids(["list"]) == [2, 6, 7, 8])
        #expect(try s.json(["--json", "reopen", "4-5"]).arrayValue?.count == 2)
        #expect(try s.run(["rm", "7-8"]).status == 0)
        #expect(try s.ids(["list", "--all"]) == [1, 2, 3, 4, 5, 6])
        for (arguments, mention) in [
            (["done", "5-3"], "\"5-3\""), (["rm", "1-100000"], "at most 10000"),
            (["done", "2", "3-x"], "\"3-x\""), (["reopen", "0-2"], "\"0-2\"")
        ] {
            let refused = try s.run(arguments)
            #expect(
                refused.status == 2 && refused.stderr.hasPrefix("todoctl: ") && refused.stderr.contains(mention),
                "\(arguments): \(refused.stderr)")
        }
        #expect(try s.ids(["list", "--all"]) == [1, 2, 3, 4, 5, 6]) // nothing changed
        #expect(try s.ids(["list", "--done"]) == [1, 3])
    }

    @Test func misspeltWordsGetASuggestion() throws {
        let s = try Setup()
        let cases: [(arguments: [String], line: String)] = [
            (["lst"], "todoctl: unknown command \"lst\"; did you mean \"list\"?"),
            (["reopne", "1"], "todoctl: unknown command \"reopne\"; did you mean \"reopen\"?"),
            (["list", "--categroy", "x"], "todoctl: unknown option --categroy for 'list'; did you mean --category?"),
            (["add", "x", "--tpo"], "todoctl: unknown option --tpo for 'add'; did you mean --top?"),
            (["category", "lsit"], "todoctl: unknown category subcommand \"lsit\"; did you mean \"list\"?"),
            (["frobnicate"], "todoctl: unknown command \"frobnicate\""),
            (["list", "--zzzzzz"], "todoctl: unknown option --zzzzzz for 'list'")
        ]
        for c in cases {
            let result = try s.run(c.arguments)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(c.arguments)")
            #expect(
                result.stderr.split(separator: "\n").first.map(String.init) == c.line,
                "\(c.arguments): \(result.stderr)")
        }
        try s.write("alias.today = list --sort due\n")
        #expect(try s.run(["tday"]).stderr.hasPrefix("todoctl: unknown command \"tday\"; did you mean \"today\"?"))
        #expect(try s.ids(["list", "--all"]).isEmpty)
    }

    @Test func shortOptionsMeanTheirLongForms() throws {
        let s = try Setup()
        #expect(try s.run(["add", "one", "-c", "仕事", "-d", "2099-01-02 09:00"]).status == 0)
        #expect(try s.run(["add", "two", "-c仕事"]).status == 0)
        #expect(try s.run(["add", "three"]).status == 0)
        #expect(try s.run(["done", "3"]).status == 0)
        let one = try s.json(["show", "1", "-j"])
        #expect(one["category"] == "仕事" && one["due"] != .null)
        #expect(try s.ids(["list", "-c", "仕事"]) == [1, 2])
        #expect(try s.json(["list", "-aj"]).arrayValue?.count == 3) // cluster of flags
        #expect(try s.ids(["list", "-a", "-n2"]) == [1, 2])
        #expect(try s.ids(["list", "-a", "-n", "1"]) == [1])
        #expect(try s.ids(["list", "-as", "-id"]) == [3, 2, 1]) // the value of -s starts with a dash
        #expect(try s.ids(["list", "-a", "-s-id"]) == [3, 2, 1])
        let unknown = try s.run(["list", "-q"])
        #expect(unknown.status == 2 && unknown.stderr.hasPrefix("todoctl: unknown option -q for 'list'"))
        let wrongCommand = try s.run(["show", "1", "-a"]) // -a is --all only where that exists
        #expect(wrongCommand.status == 2 && wrongCommand.stderr.contains("-a"))
        let missing = try s.run(["list", "-n"])
        #expect(missing.status == 2 && missing.stderr.contains("--limit needs a value"))
    }

    @Test func theConfigFileSetsSortSnoozeAndAliases() throws {
        let s = try Setup()
        try s.add(["b", "a", "c"])
        try s.write(
            """
            # my settings
              remind-time = 08:30

            sort = -title
            snooze = 2h
            alias.todo = list --sort "id" --search 'a b'
            alias.first = list --limit 1
            """)
        #expect(try s.ids(["list"]) == [3, 1, 2])
        #expect(try s.ids(["first"]) == [3])
        #expect(try s.ids(["first", "--sort", "id"]) == [1]) // words after the alias follow its words
        #expect(try s.run(["add", "a b c"]).status == 0)
        #expect(try s.ids(["todo"]) == [4]) // 'a b' is one word
        let before = Date()
        let snoozed = try s.json(["--json", "snooze", "1"])
        let until = try #require(
            snoozed["remind"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") })
        #expect(abs(until.timeIntervalSince(before) - 7200) < 120)
        try s.write("")
        let plain = try s.json(["--json", "snooze", "2"]) // without a file: 10 minutes
        let plainUntil = try #require(
            plain["remind"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") })
        #expect(abs(plainUntil.timeIntervalSince(before) - 600) < 120)
    }

    /// A misspelt key read as the key it was meant for stops only a command whose meaning that
    /// value would change: given on the command line, or not used by what was asked, the line is
    /// one warning and the command runs.
    @Test func aMisspeltKeyStopsOnlyWhatNeedsIt() throws {
        let s = try Setup()
        try s.add(["kept"])
        let file = s.config.file("todod/config")
        let cases: [(text: String, command: [String], line: String)] = [
            (
                "sotr = -id\n", ["list", "--sort", "id"],
                "todoctl: warning: \(file):1: unknown key \"sotr\"; did you mean \"sort\"? (line ignored)"
            ),
            (
                "remnd-time = 07:00\n", ["add", "x", "--due", "2099-01-02 10:00"],
                "todoctl: warning: \(file):1: unknown key \"remnd-time\""
            ),
            (
                "snoze = 1h\n", ["snooze", "1", "30m"],
                "todoctl: warning: \(file):1: unknown key \"snoze\"; did you mean \"snooze\"?"
            )
        ]
        for c in cases {
            try s.write(c.text)
            let result = try s.run(c.command)
            #expect(result.status == 0 && !result.stdout.isEmpty, "\(c.text) \(c.command): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix(c.line) && result.stderr.split(separator: "\n").count == 1,
                "\(c.text): \(result.stderr)")
        }
        // What does use it still stops.
        try s.write("sotr = -id\n")
        let list = try s.run(["list"])
        #expect(
            list.status == 2 && list.stderr == "todoctl: \(file):1: unknown key \"sotr\"; did you mean \"sort\"?\n",
            "\(list.stderr)")
    }

    /// A bad line stops only the commands that need the key it was meant to set (exit 2, one line
    /// naming file and line); every other command warns and goes on without the line.
    @Test func aBadConfigFileNamesFileAndLine() throws {
        let s = try Setup()
        try s.add(["kept"])
        let file = s.config.file("todod/config")
        let cases: [(text: String, command: [String], line: String)] = [
            (
                "sort = id\n\nremnd-time = 09:00\n", ["add", "x", "--due", "friday"],
                "todoctl: \(file):3: unknown key \"remnd-time\"; did you mean \"remind-time\"?"
            ),
            (
                "remind-time = 25:00\n", ["edit", "1", "--due", "friday"],
                "todoctl: \(file):1: bad value \"25:00\" for remind-time: expected HH:MM (00:00 to 23:59)"
            ),
            (
                "# c\nsort = id,colour\n", ["list"],
                "todoctl: \(file):2: bad value \"id,colour\" for sort: unknown key \"colour\""
            ),
            ("snooze = soon\n", ["snooze", "1"], "todoctl: \(file):1: bad value \"soon\" for snooze"),
            (
                "alias.a = list\nalias.b = a\n", ["b"],
                "todoctl: \(file):2: bad value for alias.b: \"a\" is not a todoctl command"
            ),
            ("alias.q = list 'open\n", ["q"], "todoctl: \(file):1: bad value for alias.q: unterminated ' quote")
        ]
        for c in cases {
            try s.write(c.text)
            let result = try s.run(c.command)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(c.text)")
            #expect(
                result.stderr.hasPrefix(c.line) && result.stderr.split(separator: "\n").count == 1,
                "\(c.text): \(result.stderr)")
        }
        // The same lines are warnings for what does not need them: the rest of the file still counts.
        let warned: [(text: String, command: [String], line: String)] = [
            (
                "remnd-time = 09:00\nsort = -id\n", ["list"],
                "todoctl: warning: \(file):1: unknown key \"remnd-time\"; did you mean \"remind-time\"? (line ignored)"
            ),
            (
                "alias.list = list --all\n", ["list"],
                "todoctl: warning: \(file):1: alias \"list\" would hide the built-in command \"list\" (line ignored)"
            ),
            (
                "just words\n", ["show", "1"],
                "todoctl: warning: \(file):1: expected key = value, found \"just words\" (line ignored)"
            ),
            ("snooze = soon\n", ["--version"], "todoctl: warning: \(file):1: bad value \"soon\" for snooze"),
            ("sort = colour\n", ["sync", "list"], "todoctl: warning: \(file):1: bad value \"colour\" for sort"),
            (
                "remind-time = 25:00\n", ["help", "add"],
                "todoctl: warning: \(file):1: bad value \"25:00\" for remind-time"
            )
        ]
        for c in warned {
            try s.write(c.text)
            let result = try s.run(c.command)
            #expect(result.status == 0 && !result.stdout.isEmpty, "\(c.text) \(c.command): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix(c.line) && result.stderr.split(separator: "\n").count == 1,
                "\(c.text): \(result.stderr)")
        }
        try s.write("remnd-time = 09:00\nsort = -id\n")
        try s.add(["second"])
        #expect(try s.ids(["list"]) == [2, 1]) // the good line still counts
        // Under HOME without XDG_CONFIG_HOME: ~/.config/todod/config, shown with ~.
        let home = TemporaryDirectory("home")
        try FileManager.default.createDirectory(atPath: home.file(".config/todod"), withIntermediateDirectories: true)
        try "\n# x\nremnd-time = 9:00\n".write(
            toFile: home.file(".config/todod/config"), atomically: true, encoding: .utf8)
        let underHome = try s.daemon.todoctl(
            ["add", "y", "--due", "friday"], environment: ["HOME": home.path, "XDG_CONFIG_HOME": ""])
        #expect(
            underHome.status == 2
                && underHome.stderr
                    == "todoctl: ~/.config/todod/config:3: unknown key \"remnd-time\"; did you mean \"remind-time\"?\n"
        )
        // No file at all is fine.
        try FileManager.default.removeItem(atPath: file)
        #expect(try s.ids(["list"]) == [1, 2])
    }
}
