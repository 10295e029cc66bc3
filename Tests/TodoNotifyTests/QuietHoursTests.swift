import Testing
import TodoCore
import TodoProtocol
import TodoTime
import TodoUserFiles

@testable import TodoNotify

/// `quiet-hours` (docs/NOTIFY.md): the span, its parsing, and what the desktop output does with
/// what waits at a given local time (on an injected clock, no waiting).
@Suite struct QuietHoursTests {
    @Test func theSpanAcrossMidnight() throws {
        let quiet = try #require(QuietHours("22:00-07:00"))
        #expect(quiet.contains(secondOfDay: 22 * 3600))
        #expect(quiet.contains(secondOfDay: 3 * 3600))
        #expect(!quiet.contains(secondOfDay: 7 * 3600))
        #expect(!quiet.contains(secondOfDay: 12 * 3600))
        #expect(quiet.secondsUntilEnd(from: 23 * 3600) == 8 * 3600)
        #expect(quiet.secondsUntilEnd(from: 6 * 3600 + 59 * 60) == 60)
        #expect(quiet.secondsUntilEnd(from: 12 * 3600) == 0)
        let noon = try #require(QuietHours(" 12:00 - 13:30 "))
        #expect(noon.contains(secondOfDay: 12 * 3600 + 1800) && !noon.contains(secondOfDay: 13 * 3600 + 1800))
    }

    @Test(arguments: ["22:00", "22:00-22:00", "25:00-07:00", "22:00-7", "夜", "22:00-07:00-08:00"])
    func aBadSpanIsOneClearError(_ value: String) {
        let config = Config.parse("quiet-hours = \(value)\n", file: "config", commands: nil)
        #expect(config.quietHours == nil)
        #expect(config.problems.count == 1)
        #expect(config.problems.first?.message.contains("bad value") == true)
        #expect(config.problems.first?.message.contains("quiet-hours: expected HH:MM-HH:MM") == true)
    }

    @Test func theConfigKey() {
        #expect(
            Config.parse("quiet-hours = 22:00-07:00\n", file: "config", commands: nil).quietHours
                == QuietHours("22:00-07:00"))
        #expect(Config.parse("", file: "config", commands: nil).quietHours == nil)
    }

    /// In the span everything is held; once it ended, what was held is one summary, or itself
    /// when it is one; outside it a live reminder is shown as itself.
    @Test func whatTheDesktopDoes() throws {
        let quiet = try #require(QuietHours("22:00-07:00"))
        #expect(
            DesktopOutput.decide(count: 1, backlog: false, heldForQuiet: false, quiet: quiet, secondOfDay: 23 * 3600)
                == .hold)
        #expect(
            DesktopOutput.decide(count: 4, backlog: false, heldForQuiet: true, quiet: quiet, secondOfDay: 7 * 3600)
                == .summary)
        #expect(
            DesktopOutput.decide(count: 1, backlog: false, heldForQuiet: true, quiet: quiet, secondOfDay: 7 * 3600)
                == .each)
        #expect(
            DesktopOutput.decide(count: 3, backlog: false, heldForQuiet: false, quiet: quiet, secondOfDay: 12 * 3600)
                == .each)
        #expect(
            DesktopOutput.decide(count: 9, backlog: true, heldForQuiet: false, quiet: nil, secondOfDay: 23 * 3600)
                == .summary)
    }

    /// The time left until the span ends, on a stepped clock: the notifier's poll wakes then.
    @Test func theWakeUpAtTheEnd() throws {
        let clock = Box(Instant(rfc3339: "2026-12-01T23:30:00Z")!)
        let desktop = DesktopOutput(
            socket: "/nonexistent", snoozeUsec: 600_000_000, zone: .utc, quiet: QuietHours("22:00-07:00"),
            clock: { clock.value }, log: NotifyLog(prefixPriority: false)
        ) { _ in }
        #expect(desktop.secondsUntilQuietEnds == nil) // nothing held
        desktop.enqueue(DesktopOutput.Item(reminder: Self.reminder), backlog: false)
        desktop.flush()
        #expect(desktop.heldForQuiet)
        #expect(desktop.secondsUntilQuietEnds == 7.5 * 3600)
        clock.value = Instant(rfc3339: "2026-12-02T06:59:00Z")!
        #expect(desktop.secondsUntilQuietEnds == 60)
    }

    final class Box: @unchecked Sendable {
        var value: Instant
        init(_ value: Instant) { self.value = value }
    }

    static let reminder = Reminder(event: [
        "type": "reminder",
        "todos": [
            [
                "id": 1, "uid": "u", "title": "牛乳", "done": false, "position": 1, "created": "2026-11-30T00:00:00Z",
                "updated": "2026-11-30T00:00:00Z"
            ]
        ], "lateUsec": 0
    ])!
}
