import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoStore
import TodoTestSupport
import TodoTime

@testable import TodoDaemon

/// The zone changing under the scheduler, and the clock set, on a manual clock (docs/REMINDERS.md,
/// "Time that changes"). The real inotify and timerfd paths are in TimeChangeEndToEndTests and
/// WallTimerTests.
@Suite struct TimeChangeTests {
    static let berlin = ZoneInfo(identifier: "Europe/Berlin")!
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo")!
    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    /// An all-day todo's reminder (09:00 on its day, entered in Berlin) follows the local zone to
    /// Tokyo: 09:00 Tokyo. A zoned timed todo and a UTC one keep their instants.
    @Test func anAllDayReminderFollowsTheLocalWallClockAndZonedOnesKeepTheirInstant() throws {
        let h = try Harness()
        h.localZone.zone = Self.berlin
        _ = try h.write {
            try $0.add(
                NewTodo(
                    title: "歯医者", due: Self.at("2026-12-01T23:00:00Z"), remind: Self.at("2026-12-02T08:00:00Z"),
                    zone: "Europe/Berlin", allDay: true))
        }
        _ = try h.write {
            try $0.add(NewTodo(title: "zoned", due: Self.at("2026-12-02T01:00:00Z"), zone: "Europe/Berlin"))
        }
        _ = try h.write { try $0.add(NewTodo(title: "utc", due: Self.at("2026-12-02T00:30:00Z"))) }
        // In Berlin every reminder is at its stored instant.
        #expect(h.timer.armed == Self.at("2026-12-02T00:30:00Z"))

        h.localZone.zone = Self.tokyo // the flight
        h.store.queue.sync { h.scheduler.reevaluate() }
        // 09:00 on 2 December in Tokyo comes first.
        #expect(h.timer.armed == Self.at("2026-12-02T00:00:00Z"))
        h.advance(to: Self.at("2026-12-02T00:00:00Z"))
        #expect(h.sink.delivered.map(\.todo.title) == ["歯医者"])
        #expect(h.sink.delivered[0].scheduled == Self.at("2026-12-02T00:00:00Z"))
        #expect(h.sink.delivered[0].lateUsec == 0)
        #expect(h.timer.armed == Self.at("2026-12-02T00:30:00Z"))
        h.advance(to: Self.at("2026-12-02T00:30:00Z"))
        h.advance(to: Self.at("2026-12-02T01:00:00Z"))
        #expect(h.sink.delivered.map(\.todo.title) == ["歯医者", "utc", "zoned"])
        #expect(h.sink.delivered.map(\.lateUsec) == [0, 0, 0])
        // Fired once each: nothing is pending any more, whatever the zone does next.
        h.localZone.zone = Self.berlin
        h.store.queue.sync { h.scheduler.reevaluate() }
        #expect(h.timer.armed == nil)
        #expect(h.sink.delivered.count == 3)
    }

    /// Flying west: the all-day reminder moves later, and nothing fires at the old morning.
    @Test func flyingWestMovesAnAllDayReminderLater() throws {
        let h = try Harness()
        h.localZone.zone = Self.tokyo
        _ = try h.write {
            try $0.add(
                NewTodo(
                    title: "day", due: Self.at("2026-12-01T15:00:00Z"), remind: Self.at("2026-12-02T00:00:00Z"),
                    zone: "Asia/Tokyo", allDay: true))
        }
        #expect(h.timer.armed == Self.at("2026-12-02T00:00:00Z"))
        h.localZone.zone = Self.berlin
        h.store.queue.sync { h.scheduler.reevaluate() }
        #expect(h.timer.armed == Self.at("2026-12-02T08:00:00Z")) // 09:00 in Berlin
        h.advance(to: Self.at("2026-12-02T07:59:59Z"))
        #expect(h.sink.delivered.isEmpty)
        h.advance(to: Self.at("2026-12-02T08:00:00Z"))
        #expect(h.sink.delivered.map(\.todo.title) == ["day"])
    }

    /// The kernel reports a clock set while the timer is armed: everything is looked at again
    /// at once, before the deadline the timer was armed for.
    @Test func aClockSetLooksAtEverythingAgain() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "a", due: h.at(3600))) }
        _ = try h.write { try $0.add(NewTodo(title: "b", due: h.at(7200))) }
        h.clock.set(h.at(5400)) // stepped forward 90 minutes
        h.store.queue.sync { h.timer.clockWasSet() }
        h.settle()
        #expect(h.sink.delivered.map(\.todo.title) == ["a"])
        #expect(h.sink.delivered[0].lateUsec == 1800 * 1_000_000)
        #expect(h.timer.armed == h.at(7200))
        h.clock.set(h.at(60)) // and back: nothing fires early
        h.store.queue.sync { h.timer.clockWasSet() }
        h.settle()
        #expect(h.sink.delivered.count == 1)
        #expect(h.timer.armed == h.at(7200))
    }

    /// Twelve reminders fell due during a two-hour sleep: one summary, each recorded once; the
    /// next reminder, after the resume, fires as itself.
    @Test func aResumeAfterManyFellDueFiresOneSummary() throws {
        let h = try Harness()
        for i in 1...12 { _ = try h.write { try $0.add(NewTodo(title: "t\(i)", due: h.at(Int64(i) * 300))) } }
        _ = try h.write { try $0.add(NewTodo(title: "after", due: h.at(3 * 3600))) }
        h.store.queue.sync { h.scheduler.preparingForSleep() }
        h.clock.set(h.at(2 * 3600))
        h.store.queue.sync { h.scheduler.resumed() }
        h.settle()
        #expect(h.sink.delivered.isEmpty)
        #expect(h.sink.summaries.count == 1)
        #expect(h.sink.summaries.first?.map(\.todo.title) == (1...12).map { "t\($0)" })
        let first = try #require(h.sink.summaries.first?.first)
        #expect(first.lateUsec == Int64(6_900_000_000))
        for id in Int64(1)...12 { #expect(try h.reminded(id) == h.at(2 * 3600)) }
        #expect(h.reported.count == 12)
        #expect(h.timer.armed == h.at(3 * 3600))
        h.advance(to: h.at(3 * 3600))
        #expect(h.sink.delivered.map(\.todo.title) == ["after"])
        #expect(h.sink.summaries.count == 1)
    }

    /// Three are few: each fires as itself.
    @Test func aResumeAfterThreeFellDueFiresEachOnce() throws {
        let h = try Harness()
        for i in 1...3 { _ = try h.write { try $0.add(NewTodo(title: "t\(i)", due: h.at(Int64(i) * 300))) } }
        h.store.queue.sync { h.scheduler.preparingForSleep() }
        h.clock.set(h.at(3600))
        h.store.queue.sync { h.scheduler.resumed() }
        h.settle()
        #expect(h.sink.summaries.isEmpty)
        #expect(h.sink.delivered.map(\.todo.title) == ["t1", "t2", "t3"])
    }

    /// The timer goes off on resume before logind's signal comes: the kernel's suspended time grew,
    /// so it is a summary all the same, and the signal after it fires nothing again.
    @Test func theKernelsSuspendedTimeTellsOfASleepBeforeLogindDoes() throws {
        let h = try Harness()
        for i in 1...5 { _ = try h.write { try $0.add(NewTodo(title: "t\(i)", due: h.at(Int64(i) * 60))) } }
        h.localZone.suspendedUsec = 3_600_000_000
        h.advance(to: h.at(3600))
        #expect(h.sink.summaries.count == 1)
        #expect(h.sink.summaries.first?.count == 5)
        #expect(h.sink.delivered.isEmpty)
        h.store.queue.sync { h.scheduler.resumed() }
        h.settle()
        #expect(h.sink.summaries.count == 1)
        #expect(h.sink.delivered.isEmpty)
    }

    /// A refused summary is retried as a summary, never as a storm.
    @Test func aRefusedSummaryIsRetriedAsASummary() throws {
        let h = try Harness()
        for i in 1...6 { _ = try h.write { try $0.add(NewTodo(title: "t\(i)", due: h.at(Int64(i) * 60))) } }
        h.sink.failNext = 1
        h.store.queue.sync { h.scheduler.preparingForSleep() }
        h.clock.set(h.at(3600))
        h.store.queue.sync { h.scheduler.resumed() }
        h.settle()
        #expect(h.sink.summaries.isEmpty)
        #expect(try h.reminded(1) == nil)
        h.advance(to: h.at(3600).adding(usec: ReminderScheduler.retryDelayUsec))
        #expect(h.sink.summaries.count == 1)
        #expect(h.sink.summaries.first?.count == 6)
        #expect(h.sink.delivered.isEmpty)
    }
}
