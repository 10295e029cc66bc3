import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoStore
import TodoTestSupport
import TodoTime

@testable import TodoDaemon

final class FakeTimer: WallClockTimer {
    var onFire: (() -> Void)?
    var onClockSet: (() -> Void)?
    var armed: Instant?
    var armings = 0
    func arm(at instant: Instant) -> Bool {
        armed = instant
        armings += 1
        return true
    }
    func disarm() { armed = nil }
    func fire() { onFire?() }
    /// What the kernel reports when the wall clock was set while the timer was armed.
    func clockWasSet() { onClockSet?() }
}

/// The local zone the scheduler reads; a test replaces it as `ZoneWatch` would.
final class ZoneBox: @unchecked Sendable {
    var zone: ZoneInfo = .utc
    /// The machine's suspended time since boot, as the kernel would count it.
    var suspendedUsec: Int64 = 0
}

/// Used on the delivery queue; the test reads it after `settle()`.
final class FakeSink: ReminderSink, @unchecked Sendable {
    var delivered: [FiredReminder] = []
    var failNext = 0
    /// When set, each delivery waits for it first (a journal that stalls).
    var gate: DispatchSemaphore?
    func deliver(_ reminder: FiredReminder) -> Bool {
        gate?.wait()
        if failNext > 0 {
            failNext -= 1
            return false
        }
        delivered.append(reminder)
        return true
    }
    var summaries: [[FiredReminder]] = []
    func deliverSummary(_ reminders: [FiredReminder]) -> Bool {
        gate?.wait()
        if failNext > 0 {
            failNext -= 1
            return false
        }
        summaries.append(reminders)
        return true
    }
}

/// A store, a manual clock, a fake timer and sink, and a scheduler wired as the daemon wires them.
final class Harness {
    let dir = TemporaryDirectory("sched")
    let clock = ManualClock()
    let store: TodoStore
    let timer = FakeTimer()
    let sink = FakeSink()
    let deliveryQueue = DispatchQueue(label: "test.delivery")
    let localZone = ZoneBox()
    let scheduler: ReminderScheduler
    /// What `onFired` reported, in order, and how many times (one per recorded batch).
    private final class Reports {
        var reminders: [FiredReminder] = []
        var batches = 0
    }
    private let reports = Reports()
    var reported: [FiredReminder] { reports.reminders }
    var batches: Int { reports.batches }
    let t0: Instant

    init() throws {
        store = try TodoStore(path: dir.file("todos.db"), clock: clock.source)
        scheduler = ReminderScheduler(
            store: store, clock: clock.source, localZone: { [localZone] in localZone.zone },
            suspendedUsec: { [localZone] in localZone.suspendedUsec }, timer: timer, sink: sink,
            deliveryQueue: deliveryQueue,
            onFired: { [reports] in
                reports.reminders += $0
                reports.batches += 1
            })
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
