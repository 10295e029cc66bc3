#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TodoCore
import TodoStore

/// A one-shot timer on the wall clock: armed for an instant, re-armed freely.
protocol WallClockTimer: AnyObject {
    /// Called on the timer's queue when it fires.
    var onFire: (() -> Void)? { get set }
    /// Fires once at `instant` (or as soon as possible when it has passed); replaces any earlier arming.
    func arm(at instant: Instant)
    /// Fires never, until armed again.
    func disarm()
}

/// Where a reminder goes when it fires. Returns false when it could not be delivered.
protocol ReminderSink: AnyObject {
    func deliver(_ reminder: FiredReminder) -> Bool
}

/// A reminder at the moment it fires.
struct FiredReminder: Sendable, Equatable {
    var todo: Todo
    /// When it was delivered.
    var fired: Instant
    /// How late against its scheduled instant (`todo.remind`).
    var lateUsec: Int64
}

/// Keeps ONE timer armed for the earliest pending reminder and fires what is due.
///
/// Runs on the store queue: `rearm()` after every commit that may touch due, remind, done or
/// deletion; `timerFired()` when the timer goes off. Each pass fires what is due in reminder
/// order, `batchSize` at a time — deliver (journal), then record `reminded` durably in one
/// transaction, then report — so a crash between delivery and record can repeat an entry but
/// never lose one. After a full batch the timer is armed for "now": the queue serves waiting
/// requests before the next batch, and the first events of a burst leave without waiting for
/// the last. Time comes from the injected clock, so tests drive it by hand.
final class ReminderScheduler: @unchecked Sendable {
    // @unchecked: used only on the store queue.
    private let store: TodoStore
    private let clock: () -> Instant
    private let timer: WallClockTimer
    private let sink: ReminderSink
    /// Reminders that fired, after they were recorded.
    var onFired: (([FiredReminder]) -> Void)?
    /// The instant the timer is armed for, if any.
    private(set) var armedFor: Instant?

    /// Reminders fired per transaction (and per turn on the store queue).
    static let batchSize = 100
    /// How long to wait before retrying after a failed delivery.
    static let retryDelayUsec: Int64 = 5_000_000

    init(store: TodoStore, clock: @escaping () -> Instant, timer: WallClockTimer, sink: ReminderSink) {
        self.store = store
        self.clock = clock
        self.timer = timer
        self.sink = sink
        timer.onFire = { [unowned self] in self.timerFired() }
    }

    /// Arms the timer for the earliest pending reminder. One already due fires as soon as the
    /// store queue is free: after the answers of the commit that called this.
    func rearm() {
        let next: Instant?
        do {
            next = try store.readOnQueue { try $0.nextPendingReminder() }
        } catch {
            arm(at: clock().adding(usec: Self.retryDelayUsec))
            return
        }
        guard let next else {
            if armedFor != nil { timer.disarm() }
            armedFor = nil
            return
        }
        if next != armedFor { arm(at: next) }
    }

    /// The timer went off.
    func timerFired() {
        armedFor = nil
        fireDue()
    }

    private func arm(at instant: Instant) {
        armedFor = instant
        timer.arm(at: instant)
    }

    /// Fires one batch of what is due, then re-arms.
    private func fireDue() {
        let now = clock()
        let due: [Todo]
        do {
            due = try store.readOnQueue { try $0.dueReminders(at: now, limit: Self.batchSize) }
        } catch {
            arm(at: now.adding(usec: Self.retryDelayUsec))
            return
        }
        var delivered: [FiredReminder] = []
        var failed = false
        for todo in due {
            let fired = clock()
            let reminder = FiredReminder(todo: todo, fired: fired, lateUsec: fired.usec - (todo.remind ?? fired).usec)
            guard sink.deliver(reminder) else { failed = true; break }
            delivered.append(reminder)
        }
        do {
            try store.writeOnQueue { tx in
                for reminder in delivered { try tx.markReminded(reminder.todo.id, at: reminder.fired) }
            }
        } catch {
            // Not recorded: they stay pending and fire again on the retry (a repeat, never a loss).
            arm(at: clock().adding(usec: Self.retryDelayUsec))
            return
        }
        if !delivered.isEmpty { onFired?(delivered) }
        if failed {
            arm(at: clock().adding(usec: Self.retryDelayUsec))
        } else if due.count == Self.batchSize {
            arm(at: now)  // more may be due: go on after the requests waiting on the queue
        } else {
            armedFor = nil
            rearm()
        }
    }
}

/// The real timer: a wall-clock `DispatchSourceTimer` on the store queue.
///
/// libdispatch on Linux backs wall-clock deadlines with an absolute `CLOCK_REALTIME` timerfd, so
/// a forward step of the clock (or a resume from suspend past the deadline) fires it promptly,
/// and a backward step makes it wait for the wall clock to reach the deadline again. See
/// docs/REMINDERS.md.
final class DispatchWallTimer: WallClockTimer {
    private let source: DispatchSourceTimer
    var onFire: (() -> Void)?

    init(queue: DispatchQueue) {
        source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        source.setEventHandler { [unowned self] in self.onFire?() }
        source.schedule(wallDeadline: .distantFuture)
        source.resume()
    }

    func arm(at instant: Instant) {
        let seconds = instant.seconds
        let nanos = (instant.usec - seconds * 1_000_000) * 1000
        let deadline = DispatchWallTime(timespec: timespec(tv_sec: Int(seconds), tv_nsec: Int(nanos)))
        source.schedule(wallDeadline: deadline, repeating: .never, leeway: .nanoseconds(0))
    }

    func disarm() {
        source.schedule(wallDeadline: .distantFuture)
    }

    deinit { source.cancel() }
}
