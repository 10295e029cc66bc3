import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Priorities, tags and recurring todos through the built `todoctl` against a real daemon and
/// database: what is sent is stored, filtered, sorted, changed, advanced and shown.
@Suite struct TodoctlFieldsTests {
    /// Dates are in Berlin, in 2099 (always ahead), across the March change to summer time.
    static let berlin = ["TZ": "Europe/Berlin", "NO_COLOR": "1"]

    private func run(_ d: DaemonProcess, _ arguments: [String]) throws -> ChildProcess.Result {
        try d.todoctl(arguments, environment: Self.berlin)
    }

    private func json(_ d: DaemonProcess, _ arguments: [String]) throws -> JSON {
        let result = try run(d, ["--json"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    private func ids(_ d: DaemonProcess, _ arguments: [String]) throws -> [Int64] {
        try json(d, ["list"] + arguments).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
    }

    /// The display width of terminal text: East Asian wide characters take two columns.
    private func width(_ text: Substring) -> Int {
        text.unicodeScalars.reduce(0) { total, s in
            let wide =
                (0x1100...0x115F).contains(s.value) || (0x2E80...0xA4CF).contains(s.value)
                || (0xAC00...0xD7A3).contains(s.value) || (0xF900...0xFAFF).contains(s.value)
                || (0xFF00...0xFF60).contains(s.value)
            return total + (wide ? 2 : 1)
        }
    }

    @Test func addStoresPriorityTagsZoneAndRule() throws {
        let d = try DaemonProcess()
        let added = try json(
            d,
            [
                "add", "ゴミ出し", "-p", "H", "-t", "買い物", "--tag", "home", "--tag", "Home",
                "--every", "week", "--due", "2099-03-23 09:00"
            ])
        #expect(added["priority"] == "high")
        #expect(added["tags"] == ["home", "買い物"])
        #expect(added["zone"] == "Europe/Berlin")
        #expect(added["due"] == "2099-03-23T08:00:00Z")
        #expect(added["allDay"] == false)
        #expect(added["recurrence"] == ["rule": "FREQ=WEEKLY", "from": "due"])
        // Stored, not echoed: read back.
        let shown = try json(d, ["show", "1"])
        #expect(
            shown["tags"] == ["home", "買い物"] && shown["recurrence"] == added["recurrence"]
                && shown["zone"] == "Europe/Berlin")
        // Without --due the rule's first day from today is an all-day due date.
        let first = try json(d, ["add", "Water plants", "--every", "2 weeks after done"])
        #expect(first["allDay"] == true && first["due"] != .null)
        #expect(first["recurrence"] == ["rule": "FREQ=WEEKLY;INTERVAL=2", "from": "completion"])
        // A todo without a date has no zone.
        #expect(try json(d, ["add", "plain", "-p", "low"])["zone"] == .null)
        // A bad rule changes nothing.
        let bad = try run(d, ["add", "bad", "--every", "fortnightly"])
        #expect(bad.status == 2 && bad.stderr.hasPrefix("todoctl: invalid rule \"fortnightly\" for --every: "))
        #expect(try ids(d, ["--all"]) == [1, 2, 3])
    }

    @Test func listFiltersAndSorts() throws {
        let d = try DaemonProcess()
        for arguments in [
            ["a", "-p", "low", "-t", "home"], ["b", "-t", "home", "-t", "urgent"], ["c", "-p", "high"],
            ["d", "-p", "medium", "-t", "URGENT", "--every", "FREQ=MONTHLY;BYDAY=-1FR", "--due", "2099-03-27 18:00"],
            ["e"]
        ] {
            #expect(try run(d, ["add"] + arguments).status == 0)
        }
        #expect(try ids(d, ["--tag", "home"]) == [1, 2])
        #expect(try ids(d, ["-t", "urgent"]) == [2, 4])
        #expect(try ids(d, ["--tag", "HOME", "--tag", "urgent"]) == [2])
        #expect(try ids(d, ["--priority", "l"]) == [1])
        #expect(try ids(d, ["--recurring"]) == [4])
        #expect(try ids(d, ["--sort", "priority"]) == [3, 4, 1, 2, 5])
        #expect(try ids(d, ["--sort", "-priority"]) == [1, 4, 3, 2, 5])
        let none = try run(d, ["list", "--tag", "nowhere"])
        #expect(none.status == 0 && none.stdout == "No open todos match.\n")
        let recurring = try run(d, ["list", "--recurring"])
        #expect(recurring.stdout.contains("REPEATS") && recurring.stdout.contains("every month on the last Friday"))
    }

    @Test func editAddsAndRemovesTagsInOneChange() throws {
        let d = try DaemonProcess()
        _ = try run(
            d, ["add", "x", "-t", "home", "-t", "errand", "-p", "m", "--every", "day", "--due", "2099-03-23 09:00"])
        let edited = try json(d, ["edit", "1", "--tag", "急ぎ", "--untag", "HOME", "--no-priority"])
        #expect(edited["tags"] == ["errand", "急ぎ"] && edited["priority"] == .null)
        #expect(edited["recurrence"] == ["rule": "FREQ=DAILY", "from": "due"])
        let oneOff = try json(d, ["edit", "1", "--no-every", "--priority", "L"])
        #expect(oneOff["recurrence"] == .null && oneOff["priority"] == "low" && oneOff["due"] == "2099-03-23T08:00:00Z")
        // Made recurring again by edit: a todo with a due date keeps it.
        let again = try json(d, ["edit", "1", "--every", "month on the 15th"])
        #expect(
            again["recurrence"] == ["rule": "FREQ=MONTHLY;BYMONTHDAY=15", "from": "due"]
                && again["due"] == "2099-03-23T08:00:00Z")
        let both = try run(d, ["edit", "1", "--tag", "a", "--untag", "A"])
        #expect(both.status == 2)
        #expect(try json(d, ["show", "1"])["tags"] == ["errand", "急ぎ"])
    }

    /// `done` advances a recurring todo to its next occurrence, 09:00 Berlin across the change to
    /// summer time, and says so; `--stop` ends it; a used-up rule ends it too.
    @Test func doneAdvancesARecurringTodo() throws {
        let d = try DaemonProcess()
        _ = try run(d, ["add", "朝のゴミ出し", "--every", "week", "--due", "2099-03-23 09:00", "--remind", "15m"])
        let done = try run(d, ["done", "1"])
        #expect(done.status == 0)
        #expect(done.stdout.hasPrefix("Advanced 1 to 2099-03-30 09:00 (in "), "\(done.stdout)")
        #expect(done.stdout.hasSuffix("): 朝のゴミ出し\n"))
        let advanced = try json(d, ["show", "1"])
        #expect(
            advanced["done"] == false && advanced["due"] == "2099-03-30T07:00:00Z"
                && advanced["remind"] == "2099-03-30T06:45:00Z")
        let shown = try run(d, ["show", "1"]).stdout
        #expect(shown.contains("Repeats:  every week\n"))
        #expect(shown.contains("Then:     2099-04-06 09:00\n          2099-04-13 09:00\n          2099-04-20 09:00\n"))
        let stopped = try run(d, ["done", "1", "--stop"])
        #expect(stopped.stdout == "Completed 1: 朝のゴミ出し\n")
        #expect(try json(d, ["show", "1"])["done"] == true)
        #expect(try json(d, ["show", "1"])["due"] == "2099-03-30T07:00:00Z")

        _ = try run(d, ["add", "twice", "--every", "day for 2 times", "--due", "2099-03-23 09:00"])
        #expect(try run(d, ["done", "2"]).stdout.hasPrefix("Advanced 2 to 2099-03-24 09:00"))
        #expect(try run(d, ["done", "2"]).stdout == "Completed 2: twice\n")
        #expect(try json(d, ["show", "2"])["done"] == true)
    }

    /// `list` keeps its columns aligned with Japanese titles, tags and categories, and the `!`
    /// and recurring marks in their own columns.
    @Test func outputStaysAlignedWithJapanese() throws {
        let d = try DaemonProcess()
        _ = try run(d, ["add", "牛乳を買う", "-p", "high", "-t", "買い物", "-t", "急ぎ", "--category", "家事"])
        _ = try run(d, ["add", "Pay rent", "--every", "month", "--due", "2099-04-01 10:00", "-p", "low"])
        _ = try run(d, ["add", "報告書を書く", "--tag", "仕事", "--due", "2099-03-23 09:00", "--category", "work"])
        let lines = try run(d, ["list"]).stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].hasSuffix("牛乳を買う +急ぎ +買い物") && lines[1].contains("!!!"))
        #expect(lines[2].contains("↻") && lines[2].hasSuffix("Pay rent"))
        #expect(lines[3].hasSuffix("報告書を書く +仕事"))
        // TITLE starts in the same display column on every line, and so does CATEGORY.
        let titles = [
            lines[0].range(of: "TITLE"), lines[1].range(of: "牛乳"), lines[2].range(of: "Pay"), lines[3].range(of: "報告")
        ]
        let starts = zip(lines, titles).map { line, range in range.map { width(line[..<$0.lowerBound]) } }
        #expect(Set(starts).count == 1 && starts[0] != nil, "\(lines)")
        let categories = [lines[0].range(of: "CATEGORY"), lines[1].range(of: "家事"), lines[3].range(of: "work")]
        let columns = zip([lines[0], lines[1], lines[3]], categories).map { line, range in
            range.map { width(line[..<$0.lowerBound]) }
        }
        #expect(Set(columns).count == 1 && columns[0] != nil, "\(lines)")
        let show = try run(d, ["show", "1"]).stdout
        #expect(show.contains("Priority: high\n") && show.contains("Tags:     +急ぎ +買い物\n"))
        // Another zone than the todo's: show names it, with the due time there.
        let tokyo = try d.todoctl(["show", "3"], environment: ["TZ": "Asia/Tokyo"]).stdout
        #expect(tokyo.contains("Zone:     Europe/Berlin (due 2099-03-23 09:00 there)"), "\(tokyo)")
        #expect(tokyo.contains("Due:      2099-03-23 17:00"))
    }
}
