import Testing
import TodoCore
import TodoPosix
import TodoTime
import TodoUserFiles
import TodoWhen

@testable import TodoCLI

/// The config file's reading, alias expansion and word splitting, and "did you mean", without a
/// daemon (TodoctlConvenienceTests covers them through the built binaries).
@Suite struct ConfigTests {
    @Test func keysAndDefaults() throws {
        #expect(Config() == Config.parse("", file: "f"))
        let config = Config.parse(
            """
            # comment
            remind-time=7:05
            \tsort =  -due,title\r
            snooze = 1h30m
            alias.w = list --search "a \\"b\\"" 'c d' e\\ f
            """, file: "f")
        #expect(config.remindTime == 7 * 3600 + 5 * 60)
        #expect(config.sort == [TodoQuery.SortKey(.due, descending: true), TodoQuery.SortKey(.title)])
        #expect(config.snooze == 90 * 60 * 1_000_000)
        #expect(config.aliases["w"] == ["list", "--search", "a \"b\"", "c d", "e f"])
        #expect(Config().remindTime == 9 * 3600 && Config().snooze == 600_000_000)
        // remind-time also takes a clock time as WHEN writes it, in English or Japanese; never a part of the day.
        for (text, seconds) in [
            ("7:30am", 7 * 3600 + 1800), ("7時半", 7 * 3600 + 1800), ("午後1時", 13 * 3600), ("８時", 8 * 3600),
            ("正午", 12 * 3600)
        ] {
            #expect(Config.parse("remind-time = \(text)", file: "f").remindTime == Int64(seconds), "\(text)")
        }
        for text in ["朝", "morning", "明日9時", "25時"] {
            #expect(Config.parse("remind-time = \(text)", file: "f").problems.count == 1, "\(text)")
        }
    }

    /// `remind-default`: `due` (the default) or `none`, in any case.
    @Test func remindDefault() {
        #expect(Config().remindDefault)
        #expect(!Config.parse("remind-default = None", file: "f").remindDefault)
        #expect(Config.parse("remind-default = none\nremind-default = due", file: "f").remindDefault)
    }

    @Test func badLinesNameFileAndLine() {
        let cases: [(String, String)] = [
            ("\n\nremnd-time = 9:00", "f:3: unknown key \"remnd-time\"; did you mean \"remind-time\"?"),
            (
                "colour = yes",
                "f:1: unknown key \"colour\"; the keys are remind-time, remind-default, sort, snooze, hide-future-starts, quiet-hours, alias.NAME, ui.key.ACTION and ui.mouse"
            ),
            ("remind-default = never", "f:1: bad value \"never\" for remind-default: expected due or none"),
            ("remind-time = 24:00", "f:1: bad value \"24:00\" for remind-time"),
            ("remind-time = 9", "f:1: bad value \"9\" for remind-time"),
            ("snooze = 0m", "f:1: bad value \"0m\" for snooze"),
            ("alias.rm = list", "f:1: alias \"rm\" would hide the built-in command \"rm\""),
            ("alias. = list", "f:1: bad alias name \"\""),
            ("alias.x =", "f:1: bad value for alias.x: expected a command line"),
            ("alias.x = \"list", "f:1: bad value for alias.x: unterminated \" quote"),
            ("sort", "f:1: expected key = value")
        ]
        for (text, message) in cases {
            let config = Config.parse(text, file: "f")
            #expect(
                config.problems.count == 1 && config.problems.first?.message.hasPrefix(message) == true,
                "\(config.problems)")
        }
    }

    /// A bad line is left out and the others still count; each problem names the key it was meant
    /// for, so only the commands needing that key stop.
    @Test func aBadLineIsLeftOutAndNamesItsKey() {
        let config = Config.parse(
            """
            remnd-time = 7:00
            sort = due
            snooze = soon
            alais.x = list
            alias.work = "list -c 仕事"
            alias.quoted = 'list --search "a b"'
            alias.bad = nothing
            """, file: "f")
        #expect(config.sort == [TodoQuery.SortKey(.due)])
        #expect(config.aliases["work"] == ["list", "-c", "仕事"])
        #expect(config.aliases["quoted"] == ["list", "--search", "a b"])
        #expect(config.problems.map(\.key) == ["remind-time", "snooze", "alias.x", "alias.bad"])
        #expect(config.remindTime == TimeExpression.defaultRemindTime && config.snooze == Config.defaultSnooze)
        #expect(config.problem(forKeys: ["remind-time"])?.message.hasPrefix("f:1: unknown key \"remnd-time\"") == true)
        #expect(config.problem(forKeys: ["sort"]) == nil && config.problem(forKeys: []) == nil)
        #expect(config.aliasProblem(["bad", "x"])?.key == "alias.bad")
        #expect(config.aliasProblem(["work"]) == nil && config.aliasProblem(["list"]) == nil)
    }

    @Test func theFileIsFoundAndShownUnderHome() throws {
        #expect(Config.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/todod/config")
        #expect(Config.path(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"]) == "/h/.config/todod/config")
        #expect(Config.path(environment: [:]) == nil)
        #expect(Config.display("/h/.config/todod/config", environment: ["HOME": "/h"]) == "~/.config/todod/config")
        // A missing file means the defaults; an unreadable one is an error naming it.
        let missing = Config.load(environment: ["HOME": "/h"]) { (_) throws(PosixError) -> [UInt8] in
            throw PosixError("open", errno: 2)
        }
        #expect(missing == Config())
        let unreadable = Config.load(environment: ["HOME": "/h"]) { (_) throws(PosixError) -> [UInt8] in
            throw PosixError("open", errno: 13)
        }
        #expect(
            unreadable.problems == [
                ConfigProblem(
                    key: ConfigProblem.everyKey, message: "~/.config/todod/config: cannot read it: Permission denied")
            ])
    }

    @Test func aliasesExpandOnceInTheCommandsPlace() {
        var config = Config()
        config.aliases = ["t": ["list", "--sort", "due"], "x": ["t"]]
        #expect(config.expandingAlias(["t", "-n", "3"]) == ["list", "--sort", "due", "-n", "3"])
        #expect(config.expandingAlias(["--socket", "t", "t"]) == ["--socket", "t", "list", "--sort", "due"])
        #expect(config.expandingAlias(["-j", "t"]) == ["-j", "list", "--sort", "due"])
        #expect(config.expandingAlias(["x"]) == ["t"]) // never expanded twice
        #expect(config.expandingAlias(["add", "t"]) == ["add", "t"])
        #expect(config.expandingAlias(["--", "t"]) == ["--", "t"])
    }

    @Test func suggestionsAreCloseOrNone() {
        #expect(Suggestion.distance("categroy", "category") == 1) // a transposition
        #expect(Suggestion.distance("", "abc") == 3 && Suggestion.distance("kitten", "sitting") == 3)
        #expect(Suggestion.closest(to: "lst", in: Parser.commandNames) == "list")
        #expect(Suggestion.closest(to: "sttaus", in: Parser.commandNames) == "status")
        #expect(Suggestion.closest(to: "--limt", in: ["--limit", "--since"]) == "--limit")
        #expect(Suggestion.closest(to: "zzz", in: Parser.commandNames) == nil)
        #expect(Suggestion.closest(to: "x", in: ["rm"]) == nil) // one letter: nothing is close enough
        #expect(Suggestion.closest(to: "牛乳", in: ["牛乳を"]) == "牛乳を")
    }

    @Test func shortOptionsExpandPerCommand() throws {
        let parser = Parser(now: Fixtures.now, timeZone: .utc)
        #expect(
            try parser.parse(["list", "-aj", "-n5"]) == (try parser.parse(["list", "--all", "--json", "--limit", "5"])))
        #expect(try parser.parse(["list", "-s", "-title"]) == (try parser.parse(["list", "--sort=-title"])))
        #expect(
            try parser.parse(["add", "x", "-cWork", "-d", "2026-06-02"])
                == (try parser.parse(["add", "x", "--category", "Work", "--due", "2026-06-02"])))
        #expect(throws: UsageError.self) { try parser.parse(["show", "1", "-a"]) }
        #expect(throws: UsageError.self) { try parser.parse(["list", "-ax"]) }
    }
}
