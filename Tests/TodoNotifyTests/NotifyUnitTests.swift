import Foundation
import Testing
import TodoCore
import TodoSystemd
import TodoTestSupport
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
        let exec = try NotifyOptions.parse(["--socket", "/s", "--exec-timeout", "2.5", "--exec", "prog", "--print", "-x"])
        #expect(exec.exec == ["prog", "--print", "-x"] && !exec.print && !exec.notify && exec.execTimeout == 2.5 && exec.socket == "/s")
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec", ""]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--socket", "/s", "--system"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec-timeout", "0", "--print"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--exec-timeout", "nan", "--print"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--bogus"]) }
        #expect(throws: NotifyOptions.UsageError.self) { try NotifyOptions.parse(["--socket"]) }
    }

    @Test func snoozeDurations() {
        #expect(SnoozeSetting.duration("10m") == 600_000_000)
        #expect(SnoozeSetting.duration("10 min") == 600_000_000)
        #expect(SnoozeSetting.duration("1h30m") == 5_400_000_000)
        #expect(SnoozeSetting.duration("90s") == 90_000_000)
        #expect(SnoozeSetting.duration("2 hours") == 7_200_000_000)
        #expect(SnoozeSetting.duration("1d") == 86_400_000_000)
        for bad in ["", "10", "m", "0m", "-5m", "10x", "5 parsecs", "9999999999m", "400d"] {
            #expect(SnoozeSetting.duration(bad) == nil, "\(bad)")
        }
    }

    @Test func snoozeFromTheConfigFile() throws {
        let dir = TemporaryDirectory("cfg")
        try FileManager.default.createDirectory(atPath: dir.file("todod"), withIntermediateDirectories: true)
        var warnings: [String] = []
        #expect(SnoozeSetting.load(environment: ["XDG_CONFIG_HOME": dir.path]) { warnings.append($0) } == SnoozeSetting.defaultUsec)
        try "# mine\nsort = due\n  snooze =  15m \n".write(toFile: dir.file("todod/config"), atomically: true, encoding: .utf8)
        #expect(SnoozeSetting.load(environment: ["XDG_CONFIG_HOME": dir.path]) { warnings.append($0) } == 900_000_000)
        #expect(warnings.isEmpty)
        try "snooze = soon\n".write(toFile: dir.file("todod/config"), atomically: true, encoding: .utf8)
        #expect(SnoozeSetting.load(environment: ["XDG_CONFIG_HOME": dir.path]) { warnings.append($0) } == SnoozeSetting.defaultUsec)
        #expect(warnings.count == 1 && warnings[0].contains("config:1: snooze"))
        #expect(SnoozeSetting.path(environment: ["HOME": "/home/u"]) == "/home/u/.config/todod/config")
        #expect(SnoozeSetting.path(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "relative"]) == "/home/u/.config/todod/config")
    }

    private func reminder(_ fields: [String: String], realtime: UInt64 = 1_000_000) -> Reminder? {
        Reminder(JournalFollower.Entry(fields: fields, realtimeUsec: realtime, cursor: "c"))
    }

    @Test func aReminderFromItsEntry() throws {
        #expect(reminder(["TODO_TITLE": "x"]) == nil)  // no id
        #expect(reminder(["TODO_ID": "0", "TODO_TITLE": "x"]) == nil)
        #expect(reminder(["TODO_ID": "3"]) == nil)  // no title
        let r = try #require(reminder(["TODO_ID": "3", "TODO_UID": "u-1", "TODO_TITLE": "a\tb\nc\\d \u{1B}[31m 牛乳 \u{202E}x",
                                        "TODO_CATEGORY": "買い物", "TODO_DUE": "2026-12-01T09:00:00Z", "TODO_DUE_USEC": "1796115600000000",
                                        "TODO_LATE_USEC": "1500"]))
        #expect(r.printLine == "3\tu-1\t2026-12-01T09:00:00Z\t1500\t買い物\ta\\tb\\nc\\\\d \\u{1b}[31m 牛乳 <U+202E>x")
        #expect(r.environment == ["TODO_ID": "3", "TODO_UID": "u-1", "TODO_TITLE": "a\tb\nc\\d \u{1B}[31m 牛乳 \u{202E}x",
                                  "TODO_CATEGORY": "買い物", "TODO_DUE": "2026-12-01T09:00:00Z", "TODO_LATE_USEC": "1500"])
        let bare = try #require(reminder(["TODO_ID": "4", "TODO_TITLE": "t", "TODO_LATE_USEC": "-5"]))
        #expect(bare.printLine == "4\t-\t-\t0\t-\tt")
        #expect(bare.environment["TODO_CATEGORY"] == "" && bare.environment["TODO_DUE"] == "")
    }

    @Test func theBodySaysDueCategoryAndLateness() throws {
        let r = try #require(reminder(["TODO_ID": "1", "TODO_TITLE": "t", "TODO_CATEGORY": "仕事", "TODO_DUE_USEC": "1796115600000000",
                                        "TODO_LATE_USEC": "0"], realtime: 1_796_115_600_000_000))
        #expect(r.body(now: Instant(usec: 1_796_115_610_000_000), zone: .utc) == "Due 2026-12-01 09:00 +00:00 · 仕事")
        #expect(r.body(now: Instant(usec: 1_796_115_600_000_000 + 7_500_000_000), zone: .utc) == "Due 2026-12-01 09:00 +00:00 · 仕事 · 2 h 5 min late")
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
