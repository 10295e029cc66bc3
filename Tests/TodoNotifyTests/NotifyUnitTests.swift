import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoSystemd
import TodoTestSupport
import TodoTime
import TodoUserFiles

@testable import TodoNotify

/// todod-notify's pure parts: the command line, the snooze setting, the reminder's line,
/// environment and body, and the summary of a backlog.
struct NotifyUnitTests {
    @Test func theCommandLine() throws {
        #expect(try NotifyOptions.parse([]).notify)
        let print = try NotifyOptions.parse(["--print"])
        #expect(print.print && !print.notify)
        let both = try NotifyOptions.parse(["--notify", "--print"])
        #expect(both.print && both.notify)
        // Everything after --exec is the program's, flags included.
        let exec = try NotifyOptions.parse([
            "--socket", "/s", "--exec-timeout", "2.5", "--exec", "prog", "--print", "-x"
        ])
        #expect(
            exec.exec == ["prog", "--print", "-x"] && !exec.print && !exec.notify && exec.execTimeout == 2.5
                && exec.socket == "/s")
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec", ""]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--socket", "/s", "--system"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec-timeout", "0", "--print"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec-timeout", "nan", "--print"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--bogus"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--socket"]) }
        // `--x=y` as todod and todod-sync take it; one-line errors naming the option.
        let inline = try NotifyOptions.parse([
            "--socket=/ソケット", "--name=電話", "--exec-timeout=3", "--exec=prog", "--print"
        ])
        #expect(
            inline.socket == "/ソケット" && inline.name == "電話" && inline.execTimeout == 3
                && inline.exec == ["prog", "--print"])
        #expect(try NotifyOptions.parse(["-h"]).help)
        #expect(throws: NotifyOptions.UsageError(description: "option '--print' takes no value")) {
            try NotifyOptions.parse(["--print=yes"])
        }
        #expect(throws: NotifyOptions.UsageError(description: "unknown option '--bogus'")) {
            try NotifyOptions.parse(["--bogus=1"])
        }
        #expect(throws: NotifyOptions.UsageError(description: "unexpected argument 'extra'")) {
            try NotifyOptions.parse(["extra"])
        }
        #expect(throws: NotifyOptions.UsageError(description: "option '--socket' needs a value")) {
            try NotifyOptions.parse(["--socket="])
        }
        // Each notifier its own cursor: the outputs and the name make the file's name.
        #expect(try NotifyOptions.parse([]).mode == "desktop")
        #expect(try NotifyOptions.parse(["--print", "--notify"]).mode == "desktop+print")
        #expect(try NotifyOptions.parse(["--exec", "x"]).mode == "exec")
        #expect(try NotifyOptions.parse(["--name", "電話-1", "--print"]).name == "電話-1")
        for bad in ["", ".hidden", "a/b", "a b", "x\u{1B}", String(repeating: "名", count: 22)] {
            #expect(throws: NotifyOptions.UsageError.self, "\(bad)") { try NotifyOptions.parse(["--name", bad]) }
        }
        #expect(
            CursorFile.path(environment: ["XDG_STATE_HOME": "/s"], home: "/h", mode: "print", name: "電話")
                == "/s/todod/notify-print-電話.cursor")
        #expect(
            CursorFile.path(environment: [:], home: "/h", mode: "desktop", name: nil)
                == "/h/.local/state/todod/notify-desktop.cursor")
    }

    /// The cursor file: the cursor, the fast path's keys, and what is refused.
    @Test func theCursorFile() throws {
        let dir = TemporaryDirectory("cur")
        let file = CursorFile(path: dir.file("todod/notify-print.cursor"))
        #expect(try file.read() == CursorFile.State())
        try file.write(CursorFile.State(cursor: "s=1;i=2", ahead: ["3:100:5", "4:200:0"], behind: ["5:300:1"]))
        #expect(
            try file.read() == CursorFile.State(cursor: "s=1;i=2", ahead: ["3:100:5", "4:200:0"], behind: ["5:300:1"]))
        for bad in ["cursor with spaces\n", "s=1\nnot a key\n"] {
            try bad.write(toFile: file.path, atomically: true, encoding: .utf8)
            #expect(throws: CursorFile.Unreadable.self) { try file.read() }
        }
    }

    /// The cursor moves past an entry only once it and all before it are settled.
    @Test func theLedgerAndTheKeySet() {
        var ledger = CursorLedger()
        let a = ledger.add("a")
        let b = ledger.add("b")
        let c = ledger.add("c")
        ledger.settle(b)
        #expect(ledger.advance() == nil)
        ledger.settle(a)
        #expect(ledger.advance() == "b")
        ledger.settle(c)
        #expect(ledger.advance() == "c")
        #expect(ledger.advance() == nil)
        var keys = KeySet(limit: 2)
        keys.insert("1", usec: 1)
        keys.insert("2", usec: 2)
        keys.insert("3", usec: 3)
        #expect(keys.keys == ["2", "3"] && !keys.contains("1"))
        #expect(keys.remove("2") && !keys.remove("2") && keys.keys == ["3"])
        keys.insert("2", usec: 4)
        #expect(keys.keys == ["3", "2"])
        keys.forget(before: 4)
        #expect(keys.keys == ["2"] && !keys.contains("3") && keys.contains("2"))
    }

    /// A burst far beyond the old bound of 4,096: every key is held until its other copy comes,
    /// in any order of arrival, and the set is empty afterwards.
    @Test func theKeySetHoldsABurstOfFiftyThousand() {
        var keys = KeySet(limit: Notifier.keysKept)
        let burst = (0..<50_000).map { "\($0):1796083200000000:0" }
        for (i, key) in burst.enumerated() { keys.insert(key, usec: Int64(i)) }
        #expect(keys.count == 50_000 && keys.contains(burst[0]))
        for key in burst.reversed() where !keys.remove(key) { Issue.record("\(key) was forgotten") }
        #expect(keys.count == 0 && keys.keys.isEmpty)
        // Beyond the bound the oldest go, and nothing else.
        var small = KeySet(limit: 1000)
        for (i, key) in burst.prefix(3000).enumerated() { small.insert(key, usec: Int64(i)) }
        #expect(small.count == 1000 && small.keys == Array(burst[2000..<3000]))
        for key in burst[2000..<2500] { small.remove(key) }
        small.insert(burst[0], usec: 0)
        #expect(small.keys == Array(burst[2500..<3000]) + [burst[0]])
    }

    /// The same firing read from a `watch` event and from its journal entry has one key.
    @Test func aReminderFromAWatchEvent() throws {
        let todo: JSON = [
            "id": 9, "uid": "u-9", "title": "歯医者", "done": false, "position": 1, "due": "2026-12-01T00:00:00Z",
            "remind": "2026-12-01T00:00:00Z", "created": "2026-11-30T00:00:00Z", "updated": "2026-11-30T00:00:00Z",
            "allDay": true, "zone": "Asia/Tokyo", "priority": "high"
        ]
        let event = try #require(
            Reminder(event: [
                "seq": 4, "type": "reminder", "todos": [todo], "fired": "2026-12-01T00:00:01Z", "lateUsec": 1_000_000
            ]))
        let entry = try #require(
            reminder([
                "TODO_ID": "9", "TODO_UID": "u-9", "TODO_TITLE": "歯医者", "TODO_DUE": "2026-12-01T00:00:00Z",
                "TODO_DUE_USEC": "1796083200000000",
                "TODO_REMIND_USEC": "1796083200000000", "TODO_LATE_USEC": "1000000", "TODO_ALL_DAY": "1",
                "TODO_ZONE": "Asia/Tokyo", "TODO_PRIORITY": "high"
            ]))
        #expect(event.key == entry.key)
        #expect(event.allDay && event.zone == "Asia/Tokyo" && event.highPriority && event.cursor == nil)
        #expect(event.printLine == entry.printLine && event.environment == entry.environment)
        #expect(Reminder(event: ["type": "reminder", "todos": [], "lateUsec": 0]) == nil)
        #expect(Reminder(event: ["type": "reminder", "todo": ["id": 1], "lateUsec": 0]) == nil)
    }

    @Test func snoozeFromTheConfigFile() throws {
        let dir = TemporaryDirectory("cfg")
        try FileManager.default.createDirectory(atPath: dir.file("todod"), withIntermediateDirectories: true)
        var warnings: [String] = []
        #expect(
            SnoozeSetting.load(environment: ["XDG_CONFIG_HOME": dir.path]) { warnings.append($0) }
                == Config.defaultSnooze)
        try "# mine\nsort = due\n  snooze =  15m \n".write(
            toFile: dir.file("todod/config"), atomically: true, encoding: .utf8)
        #expect(SnoozeSetting.load(environment: ["XDG_CONFIG_HOME": dir.path]) { warnings.append($0) } == 900_000_000)
        #expect(warnings.isEmpty)
        try "snooze = soon\n".write(toFile: dir.file("todod/config"), atomically: true, encoding: .utf8)
        #expect(
            SnoozeSetting.load(environment: ["XDG_CONFIG_HOME": dir.path]) { warnings.append($0) }
                == Config.defaultSnooze)
        #expect(
            warnings.count == 1 && warnings[0].contains("config:1:") && warnings[0].contains("snooze"), "\(warnings)")
    }

    private func reminder(_ fields: [String: String], realtime: UInt64 = 1_000_000) -> Reminder? {
        Reminder(JournalFollower.Entry(fields: fields, realtimeUsec: realtime, cursor: "c"))
    }

    @Test func aReminderFromItsEntry() throws {
        #expect(reminder(["TODO_TITLE": "x"]) == nil) // no id
        #expect(reminder(["TODO_ID": "0", "TODO_TITLE": "x"]) == nil)
        #expect(reminder(["TODO_ID": "3"]) == nil) // no title
        let r = try #require(
            reminder([
                "TODO_ID": "3", "TODO_UID": "u-1", "TODO_TITLE": "a\tb\nc\\d \u{1B}[31m 牛乳 \u{202E}x",
                "TODO_CATEGORY": "買い物", "TODO_DUE": "2026-12-01T09:00:00Z", "TODO_DUE_USEC": "1796115600000000",
                "TODO_LATE_USEC": "1500"
            ]))
        #expect(r.printLine == "3\tu-1\t2026-12-01T09:00:00Z\t1500\t買い物\ta\\tb\\nc\\\\d \\u{1b}[31m 牛乳 <U+202E>x")
        #expect(
            r.environment == [
                "TODO_ID": "3", "TODO_UID": "u-1", "TODO_TITLE": "a\tb\nc\\d \u{1B}[31m 牛乳 \u{202E}x",
                "TODO_CATEGORY": "買い物", "TODO_DUE": "2026-12-01T09:00:00Z", "TODO_LATE_USEC": "1500"
            ])
        let bare = try #require(reminder(["TODO_ID": "4", "TODO_TITLE": "t", "TODO_LATE_USEC": "-5"]))
        #expect(bare.printLine == "4\t-\t-\t0\t-\tt")
        #expect(bare.environment["TODO_CATEGORY"] == "" && bare.environment["TODO_DUE"] == "")
    }

    @Test func theBodySaysDueCategoryAndLateness() throws {
        let r = try #require(
            reminder(
                [
                    "TODO_ID": "1", "TODO_TITLE": "t", "TODO_CATEGORY": "仕事", "TODO_DUE_USEC": "1796115600000000",
                    "TODO_LATE_USEC": "0"
                ], realtime: 1_796_115_600_000_000))
        #expect(r.body(now: Instant(usec: 1_796_115_610_000_000), zone: .utc) == "Due 2026-12-01 09:00 · 仕事")
        #expect(
            r.body(now: Instant(usec: 1_796_115_600_000_000 + 7_500_000_000), zone: .utc)
                == "Due 2026-12-01 09:00 · 仕事 · 2 h 5 min late")
        #expect(r.isCritical(now: Instant(usec: 1_796_115_600_000_000 + 7_500_000_000), zone: .utc))
        #expect(!r.isCritical(now: Instant(usec: 1_796_115_600_000_000 + 3_000_000_000), zone: .utc))
        // In Tokyo the same instant is 18:00 there; a todo kept in another zone shows its own time too.
        let tokyo = try #require(ZoneInfo(identifier: "Asia/Tokyo"))
        #expect(r.body(now: Instant(usec: 1_796_115_610_000_000), zone: tokyo) == "Due 2026-12-01 18:00 · 仕事")
        var berlin = r
        berlin.zone = "Europe/Berlin"
        #expect(
            berlin.body(now: Instant(usec: 1_796_115_610_000_000), zone: tokyo)
                == "Due 2026-12-01 18:00 (10:00 Europe/Berlin) · 仕事")
        var high = r
        high.highPriority = true
        #expect(high.isCritical(now: Instant(usec: 1_796_115_610_000_000), zone: .utc))
    }

    /// An all-day todo says today, tomorrow or its day (read in its own zone), never a time or a
    /// lateness counted from midnight, and is critical only once its day is over.
    @Test func anAllDayTodoSaysItsDay() throws {
        // Due 2026-12-01 (midnight UTC), reminded at midnight, fired 12 h 40 min later.
        let midnight: Int64 = 1_796_083_200_000_000
        let r = try #require(
            reminder(
                [
                    "TODO_ID": "1", "TODO_TITLE": "t", "TODO_DUE_USEC": String(midnight), "TODO_ALL_DAY": "1",
                    "TODO_REMIND_USEC": String(midnight), "TODO_LATE_USEC": "45600000000"
                ], realtime: UInt64(midnight + 45_600_000_000)))
        #expect(r.allDay)
        let now = Instant(usec: midnight + 45_600_000_000)
        #expect(r.body(now: now, zone: .utc) == "Due today")
        #expect(!r.isCritical(now: now, zone: .utc))
        #expect(r.body(now: Instant(usec: midnight - 3_600_000_000), zone: .utc) == "Due tomorrow")
        #expect(r.body(now: Instant(usec: midnight - 86_400_000_000 * 3), zone: .utc) == "Due 2026-12-01")
        let twoDaysLater = Instant(usec: midnight + 86_400_000_000 * 2)
        #expect(r.body(now: twoDaysLater, zone: .utc) == "Due 2026-12-01, overdue")
        #expect(r.isCritical(now: twoDaysLater, zone: .utc))
        // Kept in Tokyo: midnight there is 15:00 the day before in UTC; the day is still the 1st.
        var tokyo = r
        tokyo.zone = "Asia/Tokyo"
        tokyo.due = Instant(usec: midnight - 9 * 3_600_000_000)
        #expect(tokyo.body(now: now, zone: .utc) == "Due today")
        #expect(Reminder.describe(30_000_000) == "30 s")
        #expect(Reminder.describe(600_000_000) == "10 min")
        #expect(Reminder.describe(3_600_000_000) == "1 h")
        #expect(Reminder.describe(90_000_000_000 * 4) == "4 d 4 h")
    }

    @Test func aBacklogSummary() throws {
        let many = (1...8).compactMap { reminder(["TODO_ID": String($0), "TODO_TITLE": "t\($0)"]) }
        let (summary, body) = DesktopOutput.summary(many)
        #expect(summary == "8 missed reminders")
        #expect(body == "• t1\n• t2\n• t3\n• t4\n• t5\nand 3 more (todoctl reminders)")
        #expect(DesktopOutput.markupEscaped("a & <b> 牛乳") == "a &amp; &lt;b&gt; 牛乳")
    }
}
