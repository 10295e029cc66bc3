import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Messages a new user meets, through the built todoctl and a real daemon: each says what went
/// wrong and what to type instead, and a refused command changed nothing.
@Suite struct TodoctlMessagesTests {
    @Test func aMisspeltCategoryGetsTheClosestName() throws {
        let d = try DaemonProcess()
        #expect(try d.todoctl(["add", "passport", "-c", "travel"]).status == 0)
        for command in [["list", "-c", "travl"], ["category", "rm", "travl"], ["category", "rename", "travl", "trips"]]
        {
            let result = try d.todoctl(command)
            #expect(
                result.status == 1
                    && result.stderr == "todoctl: no category named \"travl\"; did you mean \"travel\"?\n",
                "\(command): \(result.stderr)")
        }
        let far = try d.todoctl(["list", "-c", "zzzz"])
        #expect(far.stderr == "todoctl: no category named \"zzzz\"\n")
    }

    @Test func removingACategoryWithTodosNamesForce() throws {
        let d = try DaemonProcess()
        #expect(try d.todoctl(["add", "牛乳", "-c", "買い物"]).status == 0)
        let result = try d.todoctl(["category", "rm", "買い物"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "todoctl: category \"買い物\" still has 1 todo; 'todoctl category rm 買い物 --force' deletes it and leaves its todos without a category\n",
            "\(result.stderr)")
        #expect(try d.todoctl(["category", "list"]).stdout.contains("買い物"))
        #expect(try d.todoctl(["category", "rm", "買い物", "--force"]).status == 0)
    }

    @Test func aTitleStartingWithADashIsPointedToTheTerminator() throws {
        let d = try DaemonProcess()
        let spaced = try d.todoctl(["add", "-dash title"])
        #expect(spaced.status == 2)
        #expect(
            spaced.stderr.hasPrefix(
                "todoctl: missing TITLE; \"-dash title\" was read as options: to start a title with -, put it after --: todoctl add -- \"-dash title\"\n"
            ),
            "\(spaced.stderr)")
        let word = try d.todoctl(["add", "-urgent"])
        #expect(word.status == 2 && word.stderr.contains("todoctl add -- \"-urgent\""), "\(word.stderr)")
        #expect(try d.todoctl(["list"]).stdout == "No open todos.\n")
        #expect(try d.todoctl(["add", "--", "-dash title"]).stdout == "Added 1: -dash title\n")
    }

    @Test func aBatchWithAnUnknownIdSaysNothingChanged() throws {
        let d = try DaemonProcess()
        #expect(try d.todoctl(["add", "a"]).status == 0)
        let result = try d.todoctl(["done", "1", "999"])
        #expect(result.status == 1)
        #expect(
            result.stderr == "todoctl: no todo with id 999; nothing was changed: none of the 2 todos was completed\n",
            "\(result.stderr)")
        #expect(try d.todoctl(["list"]).stdout.contains(" a")) // 1 is still open
        let single = try d.todoctl(["done", "999"])
        #expect(single.stderr == "todoctl: no todo with id 999\n")
    }

    @Test func redoingMoreThanThereIsSaysHowManyWere() throws {
        let d = try DaemonProcess()
        #expect(try d.todoctl(["add", "a"]).status == 0)
        #expect(try d.todoctl(["undo"]).status == 0)
        let result = try d.todoctl(["redo", "2"])
        #expect(result.status == 0)
        #expect(
            result.stdout
                == "Redid: add 1 \"a\"\nOnly 1 change could be redone of the 2 asked for: there was nothing more to redo.\n",
            "\(result.stdout)")
        let exact = try d.todoctl(["undo", "1"])
        #expect(exact.stdout == "Undid: add 1 \"a\"\n")
    }

    @Test func aFinishedCountedSeriesShowsNoMoreTimes() throws {
        let d = try DaemonProcess()
        #expect(try d.todoctl(["add", "x", "--every", "day for 3 times", "--due", "today"]).status == 0)
        #expect(try d.todoctl(["show", "1"]).stdout.contains("Repeats:  every day, 3 more times\n"))
        for _ in 0..<3 { #expect(try d.todoctl(["done", "1"]).status == 0) }
        let shown = try d.todoctl(["show", "1"]).stdout
        #expect(
            shown.contains("Repeats:  every day, finished (the last time is done)\n") && !shown.contains("more time"),
            "\(shown)")
    }

    @Test func helpForAnAliasExplainsIt() throws {
        let d = try DaemonProcess()
        let config = TemporaryDirectory("config")
        try FileManager.default.createDirectory(atPath: config.file("todod"), withIntermediateDirectories: true)
        try "alias.today = list --due-before eod\nalias.work = \"list -c 仕事\"\n".write(
            toFile: config.file("todod/config"), atomically: true, encoding: .utf8)
        let env = ["XDG_CONFIG_HOME": config.path]
        let help = try d.todoctl(["help", "today"], environment: env)
        #expect(help.status == 0)
        #expect(
            help.stdout.hasPrefix(
                "'today' is an alias from your config file: todoctl today ARGS... runs todoctl list --due-before eod ARGS...\n\nUsage: todoctl list"
            ),
            "\(help.stdout)")
        #expect(try d.todoctl(["help", "work"], environment: env).stdout.contains("runs todoctl list -c 仕事 ARGS..."))
        let typo = try d.todoctl(["help", "wrok"], environment: env)
        #expect(
            typo.status == 2
                && typo.stderr.hasPrefix("todoctl: no help for unknown command \"wrok\"; did you mean \"work\"?"),
            "\(typo.stderr)")
        // The quoted alias runs as its command line.
        #expect(try d.todoctl(["add", "報告書", "-c", "仕事"], environment: env).status == 0)
        #expect(try d.todoctl(["work"], environment: env).stdout.contains("報告書"))
    }

    @Test func snoozingIntoThePastIsRefused() throws {
        let d = try DaemonProcess()
        #expect(try d.todoctl(["add", "a", "--due", "+1h"]).status == 0)
        for when in ["yesterday", "昨日", "2 hours ago"] {
            let result = try d.todoctl(["snooze", "1", when])
            #expect(
                result.status == 2 && result.stderr.hasPrefix("todoctl: cannot snooze until \"\(when)\": "),
                "\(when): \(result.stderr)")
            #expect(result.stderr.contains("has already passed; give a later time"))
        }
        let shown = try JSON.parse(try d.todoctl(["--json", "show", "1"]).stdout)
        #expect(shown["remind"] == shown["due"]) // unchanged
        #expect(try d.todoctl(["snooze", "1", "明日の朝"]).status == 0)
    }

    @Test func anImpossibleDateIsNamed() throws {
        let d = try DaemonProcess()
        for (when, reason) in [
            ("2026-02-30", "February 2026 has 28 days"), ("2月30日", "February has 29 days at most"),
            ("Apr 31", "April has 30 days at most")
        ] {
            let result = try d.todoctl(["add", "x", "--due", when])
            #expect(
                result.status == 2
                    && result.stderr.hasPrefix("todoctl: invalid time \"\(when)\" for --due: \(reason)\n"),
                "\(result.stderr)")
        }
        #expect(try d.todoctl(["list"]).stdout == "No open todos.\n")
    }
}
