import Testing
import TodoCore
import TodoProtocol
import TodoRPC

@testable import TodoCLI

/// Human output that tells the truth: stored text cannot disguise itself, todoctl's own colour
/// survives, times are seen from now and rounded sensibly, and nothing claims a change it did not make.
@Suite struct HonestOutputTests {
    static let minute: Int64 = 60_000_000
    static let hour: Int64 = 3_600_000_000

    static func todo(
        id: Int64 = 7, title: String = "Buy milk", category: String? = nil, due: Instant? = nil,
        remind: Instant? = nil, reminded: Instant? = nil, done: Bool = false,
        updated: Instant = Fixtures.now, notes: String? = nil
    ) -> JSON {
        Fixtures.json(
            Todo(
                id: id, title: title, notes: notes, category: category, due: due, remind: remind ?? due,
                reminded: reminded,
                done: done, completed: done ? updated : nil, position: Int(id),
                created: Instant(rfc3339: "2026-05-01T08:00:00Z") ?? Fixtures.now, updated: updated))
    }

    static func answering(_ todo: JSON) -> FakeTransport {
        FakeTransport { (method, params) throws(ClientError) in
            switch method {
            case "todo.get", "todo.add": return todo
            case "todo.list": return ["todos": [todo], "total": 1]
            case "todo.complete", "todo.reopen": return [todo]
            default: return try FakeTransport.canned(method, params)
            }
        }
    }

    // MARK: 16: invisible characters

    @Test func bidiAndZeroWidthCharactersAreShownEscaped() {
        let spoof = "invoice\u{202E}fdp.exe \u{2066}x\u{2069} pay\u{200B}pal a\u{2028}b \u{FEFF}"
        let shown = "invoice<U+202E>fdp.exe <U+2066>x<U+2069> pay<U+200B>pal a<U+2028>b <U+FEFF>"
        let transport = Self.answering(
            Self.todo(title: spoof, category: "c\u{202E}at", notes: "n\u{202E}1\nn\u{200B}2"))
        let list = Fixtures.run(["list"], transport: transport).stdout
        #expect(list.contains(shown) && list.contains("c<U+202E>at"), "\(list)")
        let show = Fixtures.run(["show", "7"], transport: transport).stdoutLines
        #expect(show.contains("Title:    " + shown))
        #expect(show.contains("Category: c<U+202E>at"))
        #expect(show.suffix(2) == ["Notes:    n<U+202E>1", "          n<U+200B>2"])
        #expect(Fixtures.run(["add", "x"], transport: transport).stdout == "Added 7: \(shown) [c<U+202E>at]\n")
        #expect(Fixtures.run(["done", "7"], transport: transport).stdout == "Completed 7: \(shown)\n")
        for output in [list, show.joined(separator: "\n")] {
            #expect(
                !output.unicodeScalars.contains { [0x202E, 0x2066, 0x2069, 0x200B, 0x2028, 0xFEFF].contains($0.value) })
        }
    }

    @Test func japaneseAndEmojiSequencesAreShownAsTheyAre() {
        let title = "牛乳を買う 👨‍👩‍👧 🏳️‍🌈 ❤️ 葛\u{E0100}城"
        let transport = Self.answering(Self.todo(title: title, category: "買い物"))
        #expect(Fixtures.run(["list"], transport: transport).stdout.contains(title))
        #expect(Fixtures.run(["show", "7"], transport: transport).stdoutLines.contains("Title:    " + title))
    }

    @Test func watchEventsAreEscapedToo() {
        let transport = FakeTransport()
        transport.events = [
            ["type": "todo.added", "todos": [Self.todo(title: "a\u{202E}b")]],
            ["type": "category.renamed", "oldName": "x\u{2067}", "category": ["name": "y\u{200B}"]],
            ["type": "odd\u{202E}", "value": "\u{202E}"]
        ]
        let lines = Fixtures.run(["watch"], transport: transport).stdoutLines
        #expect(
            lines == [
                "added 7: a<U+202E>b", "category renamed: x<U+2067> → y<U+200B>", "odd<U+202E> {\"value\":\"<U+202E>\"}"
            ])
    }

    // MARK: 18: todoctl's own colour

    @Test func showStatusAndWatchKeepTheirColourCodes() {
        let overdue = Self.todo(title: "late", due: Fixtures.now.adding(usec: -Self.hour))
        let show = Fixtures.run(
            ["show", "7"], transport: Self.answering(overdue), isTerminal: true, environment: ["TERM": "xterm"]
        ).stdout
        #expect(show.contains("\u{1B}[31m2026-06-01 11:00 (1h overdue)\u{1B}[0m"), "\(show)")
        #expect(show.contains("\u{1B}[1mTitle:    \u{1B}[0mlate"))
        let done = Self.todo(title: "did it", done: true)
        let shown = Fixtures.run(
            ["show", "7"], transport: Self.answering(done), isTerminal: true, environment: ["TERM": "xterm"]
        ).stdout
        #expect(shown.contains("\u{1B}[32mdone\u{1B}[0m since"), "\(shown)")
        let status = Fixtures.run(["status"], isTerminal: true, environment: ["TERM": "xterm"]).stdout
        #expect(status.contains("\u{1B}[32mrunning\u{1B}[0m since"), "\(status)")
        #expect(status.hasPrefix("\u{1B}[32m●\u{1B}[0m todod"))
        let transport = FakeTransport()
        transport.events = [["type": "reminder", "todo": Self.todo(title: "ring"), "lateUsec": 0]]
        let watch = Fixtures.run(["watch"], transport: transport, isTerminal: true, environment: ["TERM": "xterm"])
            .stdout
        #expect(watch == "\u{1B}[33mreminder\u{1B}[0m 7: ring\n")
        for output in [show, shown, status, watch] { #expect(!output.contains(" [3")) }
    }

    // MARK: 19: --system over $TODOD_SOCKET

    @Test func systemBeatsTheEnvironmentVariable() {
        let environment = ["TODOD_SOCKET": "/tmp/elsewhere.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(Fixtures.run(["--system", "status"], environment: environment).connectedTo == ["/run/todod/todod.sock"])
        #expect(Fixtures.run(["status"], environment: environment).connectedTo == ["/tmp/elsewhere.sock"])
        #expect(Fixtures.run(["--socket", "/x.sock", "status"], environment: environment).connectedTo == ["/x.sock"])
    }

    // MARK: 20: watch sees each event from its own time

    @Test func watchDescribesEachEventAsOfItsArrival() {
        let due = Fixtures.now.adding(usec: 3 * Self.minute)
        let transport = FakeTransport()
        transport.events = [
            ["type": "todo.added", "todos": [Self.todo(title: "tea", due: due)]],
            ["type": "reminder", "todo": Self.todo(title: "tea", due: due), "lateUsec": 95_000_000]
        ]
        var arrivals = [Fixtures.now.adding(usec: 10_000_000), due.adding(usec: 95_000_000)]
        let lines = Fixtures.run(["watch"], transport: transport, clock: { arrivals.removeFirst() }).stdoutLines
        #expect(lines == ["added 7: tea (due in 3m)", "reminder 7: tea (due 2m overdue), 1m 35s late"])
    }

    // MARK: 21: relative hints round

    @Test func relativeHintsRoundToTheNearestUnit() {
        let now = Fixtures.now
        func hint(_ usec: Int64) -> String { TerminalText.relative(now.adding(usec: usec), now: now) }
        #expect(hint(2 * Self.hour - 1_000) == "in 2h") // +2h, a moment later
        #expect(hint(2 * Self.hour - 2_000_000) == "in 2h")
        #expect(hint(7 * 24 * Self.hour - 500_000) == "in 1w") // +1w
        #expect(hint(24 * Self.hour - 300_000) == "in 1d")
        #expect(hint(15 * Self.minute - 200_000) == "in 15m")
        #expect(hint(90 * 1_000_000 - 400_000) == "in 2m") // 1m 29.6s: 90s, then 2m
        #expect(hint(59 * Self.minute + 40_000_000) == "in 1h") // not "in 60m"
        #expect(hint(Self.hour + 29 * Self.minute) == "in 1h")
        #expect(hint(23 * Self.hour + 40 * Self.minute) == "in 1d") // not "in 24h"
        #expect(hint(45 * 1_000_000) == "in 45s")
        #expect(hint(400_000) == "now")
        #expect(hint(-400_000) == "now")
        #expect(hint(-3 * 24 * Self.hour + 1_000) == "3d overdue")
        #expect(hint(-5 * Self.minute - 10_000_000) == "5m overdue")
        #expect(hint(60 * 7 * 24 * Self.hour) == "in 60w")
        #expect(TerminalText.relative(Instant(usec: .max), now: Instant(usec: .min)).hasPrefix("in "))
        #expect(TerminalText.relative(Instant(usec: .min), now: Instant(usec: .max)).hasSuffix(" overdue"))
        // `add --due +2h` sends whole seconds: the answer's due is up to a second short of 2h.
        let added = Self.todo(title: "x", due: Instant(usec: (now.usec + 2 * Self.hour) / 1_000_000 * 1_000_000))
        let late = Fixtures.run(["add", "x", "--due", "+2h"], transport: Self.answering(added))
        #expect(late.stdout == "Added 7: x (due in 2h)\n")
    }

    // MARK: 22: nothing claims a change it did not make

    @Test func doneAndReopenSayWhatWasAlreadySo() {
        let earlier = Fixtures.now.adding(usec: -Self.hour)
        let alreadyDone = Self.answering(Self.todo(id: 3, title: "T3", done: true, updated: earlier))
        let done = Fixtures.run(["done", "3"], transport: alreadyDone)
        #expect(done.status == 0 && done.stdout == "3 was already done: T3\n")
        let alreadyOpen = Self.answering(Self.todo(id: 3, title: "T3", done: false, updated: earlier))
        let reopen = Fixtures.run(["reopen", "3"], transport: alreadyOpen)
        #expect(reopen.status == 0 && reopen.stdout == "3 was already open: T3\n")
        // JSON is the daemon's answer, whatever happened.
        #expect(Fixtures.run(["--json", "done", "3"], transport: alreadyDone).stdout.hasPrefix("[{\"id\":3"))
        let mixed = FakeTransport { (method, params) throws(ClientError) in
            guard method == "todo.complete" else { return try FakeTransport.canned(method, params) }
            return [
                Self.todo(id: 1, done: true, updated: earlier), Self.todo(id: 2, done: true),
                Self.todo(id: 4, done: true, updated: earlier)
            ]
        }
        #expect(
            Fixtures.run(["done", "1", "2", "4"], transport: mixed).stdout == "Completed 1 todo; 2 were already done.\n"
        )
        let none = FakeTransport { (method, params) throws(ClientError) in
            guard method == "todo.reopen" else { return try FakeTransport.canned(method, params) }
            return [Self.todo(id: 1, updated: earlier), Self.todo(id: 2, updated: earlier)]
        }
        #expect(Fixtures.run(["reopen", "1", "2"], transport: none).stdout == "All 2 todos were already open.\n")
        #expect(Fixtures.run(["done", "3"]).stdout == "Completed 3: T3\n")
        #expect(Fixtures.run(["reopen", "3", "4"]).stdout == "Reopened 2 todos.\n")
    }

    @Test func showDoesNotCallADoneTodosReminderPending() {
        let due = Fixtures.now.adding(usec: 2 * Self.hour)
        let lines = Fixtures.run(["show", "7"], transport: Self.answering(Self.todo(due: due, done: true))).stdoutLines
        #expect(lines.contains("Remind:   2026-06-01 14:00 (off while done)"), "\(lines)")
        #expect(lines.contains("Due:      2026-06-01 14:00"))
        let open = Fixtures.run(["show", "7"], transport: Self.answering(Self.todo(due: due))).stdoutLines
        #expect(open.contains("Remind:   2026-06-01 14:00 (in 2h)"))
        let fired = Self.todo(due: due, reminded: Fixtures.now, done: true)
        #expect(
            Fixtures.run(["show", "7"], transport: Self.answering(fired)).stdoutLines.contains(
                "Remind:   2026-06-01 14:00, fired 2026-06-01 12:00"))
    }

    // MARK: 23: reminders says when it stopped short

    @Test func remindersSayWhenOlderOnesWereLeftOut() {
        func reminder(_ i: Int) -> JSON {
            [
                "id": .int(Int64(i)), "title": .string("r\(i)"), "category": nil, "due": nil, "remind": nil,
                "fired": .string(Fixtures.now.adding(usec: Int64(i) * 1_000_000).rfc3339()), "lateUsec": 0
            ]
        }
        func transport(_ count: Int) -> FakeTransport {
            FakeTransport { (method, params) throws(ClientError) in
                guard method == "reminder.list" else { return try FakeTransport.canned(method, params) }
                let limit = Int(params["limit"]?.intValue ?? 100)
                return .array((1...count).suffix(limit).map(reminder)) // the newest `limit`, oldest first
            }
        }
        let many = Fixtures.run(["reminders"], transport: transport(150)).stdoutLines
        #expect(many.count == 1 + 100 + 1)
        #expect(many[1].contains(" r51") && many[100].contains(" r150"))
        #expect(
            many.last == "Showing the latest 100 reminders; older ones were left out (--limit N shows up to 10000).")
        let exact = Fixtures.run(["reminders"], transport: transport(100)).stdoutLines
        #expect(exact.count == 101 && exact.last?.contains(" r100") == true)
        let limited = Fixtures.run(["reminders", "--limit", "3"], transport: transport(5)).stdoutLines
        #expect(
            limited.count == 5 && limited[1].contains(" r3")
                && limited.last?.hasPrefix("Showing the latest 3 reminders") == true)
        let one = Fixtures.run(["reminders", "--limit", "1"], transport: transport(2)).stdoutLines
        #expect(one.last?.hasPrefix("Showing the latest 1 reminder;") == true, "\(one)")
        let json = Fixtures.run(["--json", "reminders"], transport: transport(150)).stdout
        #expect((try? JSON.parse(json))?.arrayValue?.count == 100)
    }

    @Test func helpSaysWhatCategorySortAndTheReminderLimitDo() {
        let list = Fixtures.run(["help", "list"]).stdout
        #expect(list.contains("category sorts by the category order"))
        let reminders = Fixtures.run(["help", "reminders"]).stdout
        #expect(reminders.contains("default 100") && reminders.contains("older ones were left out"))
        #expect(
            Fixtures.run(["help"]).stdout.contains(
                "--system       talk to the system daemon at /run/todod/todod.sock (even with $TODOD_SOCKET set)"))
    }
}
