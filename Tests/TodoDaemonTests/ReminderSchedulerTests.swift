import Dispatch
import Testing
import TodoCore
@testable import TodoDaemon
import TodoPosix
import TodoStore
import TodoTestSupport
import TodoTime

private final class FakeTimer: WallClockTimer {
    var onFire: (() -> Void)?
    var armed: Instant?
    var armings = 0
    func arm(at instant: Instant) -> Bool { armed = instant; armings += 1; return true }
    func disarm() { armed = nil }
    func fire() { onFire?() }
}

/// Used on the delivery queue; the test reads it after `settle()`.
private final class FakeSink: ReminderSink, @unchecked Sendable {
    var delivered: [FiredReminder] = []
    var failNext = 0
    /// When set, each delivery waits for it first (a journal that stalls).
    var gate: DispatchSemaphore?
    func deliver(_ reminder: FiredReminder) -> Bool {
        gate?.wait()
        if failNext > 0 { failNext -= 1; return false }
        delivered.append(reminder)
        return true
    }
}

/// A store, a manual clock, a fake timer and sink, and a scheduler wired as the daemon wires them.
private final class Harness {
    let dir = TemporaryDirectory("sched")
    let clock = ManualClock()
    let store: TodoStore
    let timer = FakeTimer()
    let sink = FakeSink()
    let deliveryQueue = DispatchQueue(label: "test.delivery")
    let scheduler: ReminderScheduler
    /// What `onFired` reported, in order, and how many times (one per recorded batch).
    private final class Reports { var reminders: [FiredReminder] = []; var batches = 0 }
    private let reports = Reports()
    var reported: [FiredReminder] { reports.reminders }
    var batches: Int { reports.batches }
    let t0: Instant

    init() throws {
        store = try TodoStore(path: dir.file("todos.db"), clock: clock.source)
        scheduler = ReminderScheduler(store: store, clock: clock.source, timer: timer, sink: sink, deliveryQueue: deliveryQueue,
                                      onFired: { [reports] in reports.reminders += $0; reports.batches += 1 })
        t0 = clock.now
    }

    func at(_ seconds: Int64) -> Instant { t0.adding(usec: seconds * 1_000_000) }

    /// A write followed by the re-arm the executor does after every commit.
    @discardableResult
    func write<T>(_ body: (StoreTransaction) throws -> T) throws -> T {
        let value = try store.write(body)
        store.queue.sync { scheduler.rearm() }
        return value
    }

    /// Waits until the batch with the delivery queue (if any) was delivered and recorded.
    func settle() {
        repeat {
            deliveryQueue.sync {}
            store.queue.sync {}
        } while store.queue.sync(execute: { scheduler.delivering })
    }

    /// Moves the clock and lets the timer fire while it is due by then, as the kernel would
    /// (a timer armed for a past instant fires at once).
    func advance(to instant: Instant) {
        clock.set(instant)
        settle()
        while let armed = timer.armed, armed <= instant {
            timer.armed = nil
            store.queue.sync { timer.fire() }
            settle()
        }
    }

    func reminded(_ id: Int64) throws -> Instant? { try store.read { try $0.todo(id) }.reminded }
}

@Suite struct ReminderSchedulerTests {
    @Test func rearmsOnEveryKindOfChange() throws {
        let h = try Harness()
        #expect(h.timer.armed == nil)
        let a = try h.write { try $0.add(NewTodo(title: "a", due: h.at(60))) }
        #expect(h.timer.armed == h.at(60))
        _ = try h.write { try $0.add(NewTodo(title: "b", due: h.at(30))) }
        #expect(h.timer.armed == h.at(30))
        _ = try h.write { try $0.update(2, TodoPatch(due: .set(h.at(90)))) }
        #expect(h.timer.armed == h.at(60))
        _ = try h.write { try $0.update(a.id, TodoPatch(remind: .set(h.at(10)))) }
        #expect(h.timer.armed == h.at(10))
        _ = try h.write { try $0.complete([a.id]) }
        #expect(h.timer.armed == h.at(90))
        _ = try h.write { try $0.reopen([a.id]) }
        #expect(h.timer.armed == h.at(10))
        _ = try h.write { try $0.delete([a.id]) }
        #expect(h.timer.armed == h.at(90))
        _ = try h.write { try $0.update(2, TodoPatch(due: .clear)) }
        #expect(h.timer.armed == nil)
        _ = try h.write { try $0.snooze(2, until: h.at(45)) }
        #expect(h.timer.armed == h.at(45))
        #expect(h.sink.delivered.isEmpty)
    }

    @Test func firesOnceInRemindOrderAndRecordsIt() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "late", due: h.at(20))) }
        _ = try h.write { try $0.add(NewTodo(title: "early", due: h.at(10))) }
        _ = try h.write { try $0.add(NewTodo(title: "done", due: h.at(5))) }
        _ = try h.write { try $0.complete([3]) }
        h.advance(to: h.at(10))
        #expect(h.sink.delivered.map(\.todo.title) == ["early"])
        #expect(h.sink.delivered[0].lateUsec == 0)
        #expect(try h.reminded(2) == h.at(10))
        #expect(h.timer.armed == h.at(20))
        h.advance(to: h.at(25))
        #expect(h.sink.delivered.map(\.todo.title) == ["early", "late"])
        #expect(h.sink.delivered[1].lateUsec == 5_000_000)
        #expect(h.reported.map(\.todo.id) == [2, 1])
        // Nothing fires twice, however often the scheduler is asked.
        h.store.queue.sync { h.scheduler.rearm(); h.scheduler.timerFired() }
        #expect(h.sink.delivered.count == 2)
        #expect(h.timer.armed == nil)
    }

    @Test func aForwardStepOrALongSuspendFiresEverythingDueAtOnce() throws {
        let h = try Harness()
        for i in 1...5 { _ = try h.write { try $0.add(NewTodo(title: "t\(i)", due: h.at(Int64(i) * 3600))) } }
        h.advance(to: h.at(3 * 3600 + 1))  // the wall clock jumps three hours (or the machine slept)
        #expect(h.sink.delivered.map(\.todo.id) == [1, 2, 3])
        let late: [Int64] = [7_201_000_000, 3_601_000_000, 1_000_000]
        #expect(h.sink.delivered.map(\.lateUsec) == late)
        #expect(h.timer.armed == h.at(4 * 3600))
    }

    @Test func aBackwardStepFiresNothingEarly() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(100))) }
        h.clock.set(h.at(-3600))  // the wall clock steps back an hour
        h.store.queue.sync { h.timer.fire() }  // even if the timer went off spuriously
        #expect(h.sink.delivered.isEmpty)
        #expect(h.timer.armed == h.at(100))
        h.advance(to: h.at(99))
        #expect(h.sink.delivered.isEmpty)
        h.advance(to: h.at(100))
        #expect(h.sink.delivered.count == 1)
    }

    @Test func aFailedDeliveryIsRetriedNeverLost() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(10))) }
        h.sink.failNext = 1
        h.advance(to: h.at(10))
        #expect(h.sink.delivered.isEmpty)
        #expect(try h.reminded(1) == nil)
        #expect(h.timer.armed == h.at(10).adding(usec: ReminderScheduler.retryDelayUsec))
        h.advance(to: h.at(15))
        #expect(h.sink.delivered.count == 1)
        #expect(try h.reminded(1) == h.at(15))
    }

    @Test func aThousandDueInTheSameSecondEachFireOnce() throws {
        let h = try Harness()
        try h.store.write { tx in
            for i in 0..<1000 { _ = try tx.add(NewTodo(title: "t\(i)", due: h.at(60).adding(usec: Int64(i) * 997))) }
        }
        h.store.queue.sync { h.scheduler.rearm() }
        h.advance(to: h.at(61))
        #expect(h.sink.delivered.count == 1000)
        // In batches, each recorded and reported before the next, the store queue free in between.
        #expect(h.batches == 1000 / ReminderScheduler.batchSize)
        #expect(h.reported.map(\.todo.id) == h.sink.delivered.map(\.todo.id))
        #expect(Set(h.sink.delivered.map(\.todo.id)).count == 1000)
        #expect(h.sink.delivered.map(\.todo.remind!) == h.sink.delivered.map(\.todo.remind!).sorted())
        #expect(try h.store.read { try $0.nextPendingReminder() } == nil)
    }

    @Test func missedWhileDownFiresAtStart() throws {
        let h = try Harness()
        _ = try h.store.write { try $0.add(NewTodo(title: "t", due: h.at(10))) }  // no re-arm: the daemon is down
        h.clock.set(h.at(600))
        h.store.queue.sync { h.scheduler.rearm() }  // start-up
        #expect(h.timer.armed == h.at(10))  // in the past: the timer goes off at once
        h.advance(to: h.at(600))
        #expect(h.sink.delivered.count == 1)
        #expect(h.sink.delivered[0].lateUsec == 590_000_000)
    }

    /// Reminders long before 1970 are ordinary overdue ones: they fire at once, once, in order,
    /// and never hold up a later one.
    @Test func remindersBeforeTheEpochFireAtOnceAndHoldNothingUp() throws {
        let h = try Harness()
        let christmas26 = Instant(rfc3339: "0026-12-24T18:00:00Z")!
        _ = try h.write { try $0.add(NewTodo(title: "year 26", due: christmas26)) }
        _ = try h.write { try $0.add(NewTodo(title: "epoch", due: Instant(usec: 0))) }
        _ = try h.write { try $0.add(NewTodo(title: "real", due: h.at(3))) }
        #expect(h.timer.armed == christmas26)
        h.advance(to: h.at(0))
        #expect(h.sink.delivered.map(\.todo.title) == ["year 26", "epoch"])
        #expect(h.timer.armed == h.at(3))
        h.advance(to: h.at(3))
        #expect(h.sink.delivered.map(\.todo.title) == ["year 26", "epoch", "real"])
    }

    /// A sink that blocks (a stalled journal) holds up only the delivery queue: the store queue
    /// answers reads and writes meanwhile, and the reminder is recorded only once delivered.
    @Test func aStalledDeliveryHoldsUpNoStoreWork() throws {
        let h = try Harness()
        let gate = DispatchSemaphore(value: 0)
        h.sink.gate = gate
        _ = try h.write { try $0.add(NewTodo(title: "stalled", due: h.at(1))) }
        h.clock.set(h.at(1))
        h.timer.armed = nil
        h.store.queue.sync { h.timer.fire() }  // hands the batch to the (now blocked) delivery queue
        #expect(h.store.queue.sync { h.scheduler.delivering })
        let added = try h.write { try $0.add(NewTodo(title: "meanwhile", due: h.at(2))) }
        #expect(try h.store.read { try $0.todo(added.id) }.title == "meanwhile")
        #expect(try h.reminded(1) == nil)
        h.sink.gate = nil
        gate.signal()
        h.advance(to: h.at(2))
        #expect(h.sink.delivered.map(\.todo.title) == ["stalled", "meanwhile"])
        #expect(try h.reminded(1) != nil && h.reminded(2) != nil)
    }

    /// A refused delivery stays pending and is sent again until it lands: once, not before the
    /// retry delay however many commits re-arm meanwhile.
    @Test func aRefusedDeliveryIsRetriedUntilItLandsOnce() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(10))) }
        h.sink.failNext = 3
        h.advance(to: h.at(10))
        let retry = h.at(10).adding(usec: ReminderScheduler.retryDelayUsec)
        #expect(h.timer.armed == retry)
        _ = try h.write { try $0.add(NewTodo(title: "other", due: h.at(11))) }  // a commit re-arms
        #expect(h.timer.armed == retry)
        h.advance(to: h.at(15))  // both refused: each is offered, neither recorded
        #expect(h.sink.delivered.isEmpty && h.sink.failNext == 0)
        #expect(try h.reminded(1) == nil && h.reminded(2) == nil)
        #expect(h.timer.armed == h.at(20))
        h.advance(to: h.at(20))
        #expect(h.sink.delivered.map(\.todo.title) == ["t", "other"])
        #expect(try h.reminded(1) == h.at(20))
        h.advance(to: h.at(60))
        #expect(h.sink.delivered.count == 2)
    }

    /// A reminder snoozed while its delivery was under way keeps the new reminder pending.
    @Test func aSnoozeDuringDeliveryIsNotOverwritten() throws {
        let h = try Harness()
        let gate = DispatchSemaphore(value: 0)
        h.sink.gate = gate
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(1))) }
        h.clock.set(h.at(1))
        h.timer.armed = nil
        h.store.queue.sync { h.timer.fire() }
        _ = try h.write { try $0.snooze(1, until: h.at(100)) }
        h.sink.gate = nil
        gate.signal()
        h.settle()
        #expect(try h.reminded(1) == nil)
        #expect(h.timer.armed == h.at(100))
        h.advance(to: h.at(100))
        #expect(h.sink.delivered.count == 2)
        #expect(try h.reminded(1) == h.at(100))
    }
}

/// The real timer against the kernel.
@Suite struct WallTimerTests {
    /// Instants at and before the epoch (year 26, 1969, the epoch itself) fire at once instead of
    /// never (`DispatchWallTime` read them as "forever").
    @Test(arguments: ["0026-12-24T18:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z"])
    func anInstantAtOrBeforeTheEpochFiresAtOnce(_ text: String) throws {
        let queue = DispatchQueue(label: "test.timer")
        let timer = try DispatchWallTimer(queue: queue)
        let fired = DispatchSemaphore(value: 0)
        queue.sync { timer.onFire = { fired.signal() } }
        #expect(queue.sync { timer.arm(at: Instant(rfc3339: text)!) })
        #expect(fired.wait(timeout: .now() + 5) == .success)
        withExtendedLifetime(timer) {}
    }

    @Test func aDisarmedTimerDoesNotFireAndReArmingWorks() throws {
        let queue = DispatchQueue(label: "test.timer")
        let timer = try DispatchWallTimer(queue: queue)
        let fired = DispatchSemaphore(value: 0)
        queue.sync {
            timer.onFire = { fired.signal() }
            _ = timer.arm(at: Instant.now().adding(usec: 60_000_000))
            timer.disarm()
            _ = timer.arm(at: Instant.now().adding(usec: 200_000))
        }
        #expect(fired.wait(timeout: .now() + 5) == .success)
        withExtendedLifetime(timer) {}
    }
}

@Suite struct JournalEntryTests {
    @Test func entryHasExactlyTheSpecFields() throws {
        let due = Instant(rfc3339: "2026-12-01T09:00:00Z")!
        let todo = Todo(id: 12, uid: "0f8fad5b-d9cb-469f-a165-70867728950e", title: "牛乳を買う", category: "買い物", due: due, remind: due.adding(usec: -900_000_000),
                        position: 1, created: due, updated: due)
        let fields = JournalReminderSink.fields(FiredReminder(todo: todo, fired: due, lateUsec: 1234),
                                                storeID: "5f0c3a43-9d7e-4b6e-8f43-2f9b8f6f0a11", timeZone: ZoneInfo(identifier: "Asia/Tokyo")!)
        #expect(fields.map(\.name) == ["MESSAGE", "MESSAGE_ID", "PRIORITY", "SYSLOG_IDENTIFIER", "TODO_ID", "TODO_UID", "TODO_STORE", "TODO_TITLE",
                                       "TODO_CATEGORY", "TODO_DUE", "TODO_DUE_USEC", "TODO_REMIND_USEC", "TODO_LATE_USEC"])
        #expect(fields[0].value == "Todo 12 “牛乳を買う” is due at 2026-12-01 18:00 +09:00.")
        // Local times in messages follow the zone as todoctl reads it: negative and half-hour
        // offsets, and POSIX rules.
        for (zone, text) in [("America/St_Johns", "2026-12-01 05:30 -03:30"), ("Asia/Kolkata", "2026-12-01 14:30 +05:30"),
                             ("EST5EDT,M3.2.0,M11.1.0", "2026-12-01 04:00 -05:00"), ("", "2026-12-01 09:00 +00:00")] {
            #expect(JournalReminderSink.localTime(due, timeZone: .named(byTZ: zone)) == text)
        }
        #expect(fields.first { $0.name == "TODO_UID" }?.value == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(fields.first { $0.name == "TODO_STORE" }?.value == "5f0c3a43-9d7e-4b6e-8f43-2f9b8f6f0a11")
        #expect(fields.first { $0.name == "TODO_DUE" }?.value == "2026-12-01T09:00:00Z")
        #expect(fields.first { $0.name == "TODO_REMIND_USEC" }?.value == String(due.usec - 900_000_000))
        for (name, _) in fields {
            #expect(name.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" } && !name.hasPrefix("_") && name.count <= 64)
        }
    }
}

import Foundation

@Suite struct ClockWalkTests {
    /// Random adds, edits, completions and clock moves — forward steps, backward steps and long
    /// suspends: every reminder fires exactly once, never before its instant, and none is lost.
    @Test func randomClockStepsLoseNothingAndFireNothingTwice() throws {
        let seed = SeededRandom.seed(from: "TODOD_CLOCK_SEED")
        var rng = SeededRandom(seed: seed)
        let h = try Harness()
        var latestClock = h.clock.now
        for step in 0..<600 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                let offset = Int64.random(in: -600...7200, using: &rng)
                _ = try h.write { try $0.add(NewTodo(title: "t\(step)", due: h.clock.now.adding(usec: offset * 1_000_000))) }
            case 4:
                let ids = try h.store.read { try $0.list(TodoQuery()).todos.map(\.id) }
                if let id = ids.randomElement(using: &rng) { _ = try h.write { try $0.complete([id]) } }
            case 5:
                h.clock.advance(seconds: -Double.random(in: 1...3600, using: &rng))  // backward step
                h.store.queue.sync { h.timer.fire() }  // a spurious wake-up must fire nothing early
            case 6:
                h.advance(to: h.clock.now.adding(usec: Int64.random(in: 3600...86_400, using: &rng) * 1_000_000))  // suspend
            default:
                h.advance(to: h.clock.now.adding(usec: Int64.random(in: 1...900, using: &rng) * 1_000_000))
            }
            latestClock = max(latestClock, h.clock.now)
        }
        h.advance(to: latestClock.adding(usec: 10 * 86_400_000_000))
        let all = try h.store.read { tx -> [Todo] in
            var q = TodoQuery()
            q.status = .all
            return try tx.list(q).todos
        }
        let fired = Dictionary(grouping: h.sink.delivered, by: \.todo.id)
        #expect(fired.values.allSatisfy { $0.count == 1 }, "seed \(seed): a reminder fired twice")
        #expect(h.sink.delivered.allSatisfy { $0.fired >= $0.todo.remind! }, "seed \(seed): a reminder fired early")
        for todo in all {
            // Done todos may have fired before they were completed; open ones must all have fired.
            if !todo.done { #expect(fired[todo.id] != nil && todo.reminded != nil, "seed \(seed): todo \(todo.id) never fired") }
            if fired[todo.id] == nil { #expect(todo.reminded == nil) }
        }
    }
}
