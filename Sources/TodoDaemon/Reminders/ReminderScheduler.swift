import Dispatch
import TodoCore
import TodoPosix
import TodoStore

/// A one-shot timer on the wall clock: armed for an instant, re-armed freely.
protocol WallClockTimer: AnyObject {
    /// Called on the timer's queue when it fires.
    var onFire: (() -> Void)? { get set }
    /// Fires once at `instant` (or as soon as possible when it has passed, however long ago);
    /// replaces any earlier arming. Returns false when the timer could not be armed.
    func arm(at instant: Instant) -> Bool
    /// Fires never, until armed again.
    func disarm()
}

/// Where a reminder goes when it fires. Called on the delivery queue, never on the store queue:
/// it may block (a stalled journal) without holding up requests.
protocol ReminderSink: AnyObject, Sendable {
    /// Returns true once the reminder landed, false when it was refused (it is then retried).
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
/// deletion; `timerFired()` when the timer goes off. Each pass reads what is due, `batchSize` at
/// a time in reminder order, and hands the batch to the delivery queue, which sends it to the
/// sink (the journal) while the store queue goes on serving requests. Back on the store queue,
/// the delivered reminders are recorded as `reminded` in one durable transaction, then reported.
/// So a crash between delivery and record can repeat an entry but never lose one, and a journal
/// that blocks holds up only the delivery queue. One batch is in flight at a time.
///
/// A refused delivery (no journald) stays pending and is read and sent again after
/// `retryDelayUsec` until the sink takes it; the rest of its batch is still offered, so each
/// reminder reaches the sink's fallback (standard error) when it falls due. After a full batch
/// the timer is armed for "now": the queue serves waiting requests before the next batch, and the
/// first events of a burst leave without waiting for the last. Time comes from the injected
/// clock, so tests drive it by hand.
final class ReminderScheduler: @unchecked Sendable {
    // @unchecked: `armedFor`, `delivering`, `retryAt` and the timer are touched only on the store
    // queue (the timer fires there); the delivery queue gets only the batch it is given, the sink
    // and the clock (both Sendable), and hands the result back to the store queue.
    private let store: TodoStore
    private let clock: @Sendable () -> Instant
    private let timer: WallClockTimer
    private let sink: ReminderSink
    private let deliveryQueue: DispatchQueue
    /// Called on the store queue with the reminders that fired, once they are recorded.
    private let onFired: ([FiredReminder]) -> Void
    /// The instant the timer is armed for, if any.
    private(set) var armedFor: Instant?
    /// A batch is with the delivery queue; its record re-arms the timer.
    private(set) var delivering = false
    /// After a refused delivery: nothing fires before this instant.
    private var retryAt: Instant?

    /// Reminders fired per transaction (and per turn on the store queue).
    static let batchSize = 100
    /// How long to wait before retrying after a failed delivery.
    static let retryDelayUsec: Int64 = 5_000_000
    /// How soon a reminder due while an undo or redo holds the store's writes is looked at again.
    static let longWriteRetryUsec: Int64 = 500_000

    /// `timer` must fire on the store queue; `sink` is called only on `deliveryQueue`; `onFired`
    /// gets each recorded batch on the store queue (the daemon publishes it as `reminder` events).
    init(store: TodoStore, clock: @escaping @Sendable () -> Instant, timer: WallClockTimer, sink: ReminderSink,
         deliveryQueue: DispatchQueue, onFired: @escaping ([FiredReminder]) -> Void) {
        self.store = store
        self.clock = clock
        self.timer = timer
        self.sink = sink
        self.deliveryQueue = deliveryQueue
        self.onFired = onFired
        timer.onFire = { [unowned self] in self.timerFired() }
    }

    /// Arms the timer for the earliest pending reminder. One already due fires as soon as the
    /// store queue is free: after the answers of the commit that called this.
    func rearm() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        guard !delivering else { return }  // the batch in flight re-arms once it is recorded
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
        let at = retryAt.map { max($0, next) } ?? next
        if at != armedFor { arm(at: at) }
    }

    /// The timer went off.
    func timerFired() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        armedFor = nil
        fireDue()
    }

    private func arm(at instant: Instant) {
        if timer.arm(at: instant) {
            armedFor = instant
        } else {
            // Not armed: try again in a moment rather than believe it is.
            armedFor = nil
            store.queue.asyncAfter(deadline: .now() + .seconds(1)) { [self] in if armedFor == nil { rearm() } }
        }
    }

    /// Hands one batch of what is due to the delivery queue.
    private func fireDue() {
        guard !delivering else { return }
        let now = clock()
        if let retryAt, now < retryAt { return rearm() }
        // An undo or redo holds the store's writes: what is due fires when it ends (its commit
        // re-arms), or, if it fails, at the next look.
        if store.longWriteRunningOnQueue { return arm(at: now.adding(usec: Self.longWriteRetryUsec)) }
        let due: [Todo]
        do {
            due = try store.readOnQueue { try $0.dueReminders(at: now, limit: Self.batchSize) }
        } catch {
            arm(at: now.adding(usec: Self.retryDelayUsec))
            return
        }
        guard !due.isEmpty else { return rearm() }
        delivering = true
        let full = due.count == Self.batchSize
        let (sink, clock, queue) = (self.sink, self.clock, store.queue)
        deliveryQueue.async {
            var delivered: [FiredReminder] = []
            for todo in due {
                // Never earlier than the instant it was found due at: the wall clock may step
                // back while the batch waits for the journal.
                let fired = max(clock(), now)
                let reminder = FiredReminder(todo: todo, fired: fired, lateUsec: fired.usec - (todo.remind ?? fired).usec)
                if sink.deliver(reminder) { delivered.append(reminder) }  // a refused one stays pending
            }
            let (done, refused) = (delivered, delivered.count < due.count)
            queue.async { self.record(done, refused: refused, full: full) }
        }
    }

    /// Back on the store queue: records what was delivered, reports it, and arms for what is next.
    private func record(_ delivered: [FiredReminder], refused: Bool, full: Bool) {
        dispatchPrecondition(condition: .onQueue(store.queue))
        if store.longWriteRunningOnQueue {  // cannot write yet: recorded once the undo or redo ends, never sent twice
            store.queue.asyncAfter(deadline: .now() + .milliseconds(100)) { self.record(delivered, refused: refused, full: full) }
            return
        }
        delivering = false
        do {
            try store.writeOnQueue { tx in
                for reminder in delivered {
                    try tx.markReminded(reminder.todo.id, scheduled: reminder.todo.remind, at: reminder.fired)
                }
            }
        } catch {
            // Not recorded: they stay pending and are sent again on the retry (a repeat, never a loss).
            retryAt = clock().adding(usec: Self.retryDelayUsec)
            arm(at: retryAt!)
            return
        }
        if !delivered.isEmpty { onFired(delivered) }
        if refused {
            retryAt = clock().adding(usec: Self.retryDelayUsec)
            arm(at: retryAt!)
        } else if full {
            retryAt = nil
            arm(at: clock())  // more may be due: go on after the requests waiting on the queue
        } else {
            retryAt = nil
            armedFor = nil
            rearm()
        }
    }
}

/// The real timer: a `RealtimeTimer` (an absolute `CLOCK_REALTIME` timerfd made once, at start)
/// read by a Dispatch source on the store queue.
///
/// Made once, its descriptor is there for every later arming, even at the descriptor limit;
/// arming is `timerfd_settime`, whose result is checked. A forward step of the clock (or a resume
/// from suspend past the deadline) fires it promptly, and a backward step makes it wait for the
/// wall clock to reach the deadline again. See docs/REMINDERS.md.
final class DispatchWallTimer: WallClockTimer {
    private let timer: RealtimeTimer
    private let source: DispatchSourceRead
    var onFire: (() -> Void)?

    init(queue: DispatchQueue) throws(PosixError) {
        let timer = try RealtimeTimer()
        self.timer = timer
        source = DispatchSource.makeReadSource(fileDescriptor: timer.fd, queue: queue)
        source.setEventHandler { [unowned self] in
            if timer.consume() { self.onFire?() }
        }
        source.resume()
    }

    func arm(at instant: Instant) -> Bool {
        do { try timer.arm(atUsec: instant.usec) } catch { return false }
        return true
    }

    func disarm() {
        timer.disarm()
    }

    deinit { source.cancel() }
}
