import Dispatch
import TodoCore
import TodoPosix
import TodoStore
import TodoTime

/// A one-shot timer on the wall clock: armed for an instant, re-armed freely.
protocol WallClockTimer: AnyObject {
    /// Called on the timer's queue when it fires.
    var onFire: (() -> Void)? { get set }
    /// Called on the timer's queue when the wall clock was set (stepped) while it was armed.
    var onClockSet: (() -> Void)? { get set }
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
    /// Delivers what fell due while the machine was suspended as one summary (more than
    /// `ReminderScheduler.summaryThreshold` reminders): true once it landed, false when refused
    /// (all of them are then retried).
    func deliverSummary(_ reminders: [FiredReminder]) -> Bool
}

/// A reminder at the moment it fires.
struct FiredReminder: Sendable, Equatable {
    var todo: Todo
    /// When it was delivered.
    var fired: Instant
    /// How late against its scheduled instant (`scheduled`).
    var lateUsec: Int64
    /// The instant it was due at: `todo.remind`, or for an all-day todo's reminder that instant's
    /// wall-clock time moved to the local zone (it follows the local wall clock).
    var scheduled: Instant
    /// The alarm that fired: its place in `todo.alarms` (from 0) and uid, and which of its firings
    /// this is (0 the first, then its repeats); nil for a snooze's firing.
    var alarmIndex: Int?
    var alarmUid: String?
    var alarmRepeat: Int?

    init(todo: Todo, fired: Instant, lateUsec: Int64, scheduled: Instant? = nil) {
        self.todo = todo
        self.fired = fired
        self.lateUsec = lateUsec
        self.scheduled = scheduled ?? todo.remind ?? fired
        // The stored instant names the firing (an all-day todo's `scheduled` may follow the local zone).
        let alarms = todo.alarms
        if let at = todo.remind,
            let index = alarms.firstIndex(where: { $0.fires(at: at, due: todo.due, start: todo.start) })
        {
            let alarm = alarms[index]
            alarmIndex = index
            alarmUid = alarm.uid
            if alarm.snoozedUntil != at, let base = alarm.triggerInstant(due: todo.due, start: todo.start) {
                alarmRepeat = alarm.intervalUsec > 0 ? Int((at.usec - base.usec) / alarm.intervalUsec) : 0
            }
        }
    }

    /// The todo with `remind` at the instant it was due at.
    var asScheduled: Todo {
        var todo = todo
        if todo.remind != nil { todo.remind = scheduled }
        return todo
    }
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
    /// The local zone now (it can change while the daemon runs: `zoneChanged()`).
    private let localZone: @Sendable () -> ZoneInfo
    /// `TZDIR`: where todos' zones are read.
    private let tzdir: String?
    /// Todos' zones by name, read once each until the zone or the tz database changes.
    private var zones: [String: ZoneInfo?] = [:]
    private let timer: any WallClockTimer
    private let sink: any ReminderSink
    private let deliveryQueue: DispatchQueue
    /// Called on the store queue with the reminders that fired, once they are recorded.
    private let onFired: ([FiredReminder]) -> Void
    /// The instant the timer is armed for, if any.
    private(set) var armedFor: Instant?
    /// A batch is with the delivery queue; its record re-arms the timer.
    private(set) var delivering = false
    /// After a refused delivery: nothing fires before this instant.
    private var retryAt: Instant?
    /// When logind said the machine is about to sleep, until it resumed; and the monotonic
    /// instant it said so (seconds), which stands still while the machine sleeps.
    private var asleepSince: Instant?
    private var asleepMonotonic: Double = 0
    private let monotonic: @Sendable () -> Double
    /// Between logind's "about to sleep" and its "resumed", nothing fires (the reminders due
    /// meanwhile fire on the resume, summarized); for at most this long awake, in case the resume
    /// signal never comes.
    static let sleepHoldSeconds = 60.0
    /// Set when the machine resumed (logind, or the kernel's suspended time grew): the next look
    /// fires what is due as one summary when there are more than `summaryThreshold`.
    private var resumedFrom: Instant?
    /// Set by `halt`: nothing fires any more (the daemon stops or runs its new program); run once
    /// no batch is in flight.
    private var halted = false
    private var whenHalted: (() -> Void)?
    /// Microseconds the machine spent suspended since boot (`CLOCK_BOOTTIME` minus
    /// `CLOCK_MONOTONIC`), and its value at the last look.
    private let suspendedUsec: @Sendable () -> Int64
    private var lastSuspendedUsec: Int64

    /// More than this many reminders due at once after a resume become one summary entry and
    /// one summary event ("12 reminders while suspended"), not a storm of popups.
    static let summaryThreshold = 3
    /// The most reminders one summary takes; more make a second summary.
    static let summaryLimit = 10_000

    /// Reminders fired per transaction (and per turn on the store queue).
    static let batchSize = 100
    /// How long to wait before retrying after a failed delivery.
    static let retryDelayUsec: Int64 = 5_000_000
    /// How soon a reminder due while an undo or redo holds the store's writes is looked at again.
    static let longWriteRetryUsec: Int64 = 500_000

    /// `timer` must fire on the store queue; `sink` is called only on `deliveryQueue`; `onFired`
    /// gets each recorded batch on the store queue (the daemon publishes it as `reminder` events).
    init(
        store: TodoStore, clock: @escaping @Sendable () -> Instant,
        localZone: @escaping @Sendable () -> ZoneInfo = { .utc }, tzdir: String? = nil,
        suspendedUsec: @escaping @Sendable () -> Int64 = { 0 },
        monotonic: @escaping @Sendable () -> Double = { MonotonicClock.seconds() },
        timer: any WallClockTimer, sink: any ReminderSink, deliveryQueue: DispatchQueue,
        onFired: @escaping ([FiredReminder]) -> Void
    ) {
        self.suspendedUsec = suspendedUsec
        self.monotonic = monotonic
        lastSuspendedUsec = suspendedUsec()
        self.store = store
        self.clock = clock
        self.localZone = localZone
        self.tzdir = tzdir
        self.timer = timer
        self.sink = sink
        self.deliveryQueue = deliveryQueue
        self.onFired = onFired
        timer.onFire = { [unowned self] in self.timerFired() }
        timer.onClockSet = { [unowned self] in self.reevaluate() }
    }

    /// Stops firing for good (the daemon stops, or runs a replaced program in its place): the
    /// timer is disarmed, and `body` runs on the store queue once the batch in flight, if any, is
    /// recorded, so what the journal took is never sent again by the next daemon; after `seconds`
    /// at most (a journal that blocks), when it may be (a repeat, never a loss). What falls due
    /// from now on is fired by the next daemon as it starts.
    func halt(waitingAtMost seconds: Double, then body: @escaping () -> Void) {
        dispatchPrecondition(condition: .onQueue(store.queue))
        halted = true
        timer.disarm()
        armedFor = nil
        whenHalted = body
        if !delivering { return finishHalt() }
        store.queue.asyncAfter(deadline: .now() + seconds) { [self] in finishHalt() }
    }

    private func finishHalt() {
        let body = whenHalted
        whenHalted = nil
        body?()
    }

    /// A wall-clock reminder moves by at most the difference of two UTC offsets (-12 to +14 hours).
    static let maxShiftUsec: Int64 = 27 * 3_600_000_000

    /// When `todo`'s reminder is due. An all-day todo's reminder (with a zone) is a wall-clock time:
    /// the date and time of day its stored instant has in the todo's zone, read in the local zone
    /// now, so after a flight its morning reminder comes in the new zone's morning. Any other
    /// reminder is its instant.
    func scheduledInstant(of todo: Todo) -> Instant? {
        guard let remind = todo.remind else { return nil }
        guard todo.allDay, let name = todo.zone else { return remind }
        let own: ZoneInfo?
        if let cached = zones[name] {
            own = cached
        } else {
            own = ZoneInfo(identifier: name, tzdir: tzdir)
            if zones.count > 1000 { zones = [:] }
            zones[name] = own
        }
        guard let own else { return remind }
        let wall = LocalTime(remind, in: own)
        let micros = remind.usec - remind.seconds * 1_000_000
        return LocalTime.instant(days: wall.days, secondOfDay: wall.secondOfDay, micros: micros, in: localZone())
            ?? remind
    }

    /// The zone, the tz database or the clock changed (or the machine resumed): everything is
    /// looked at again, what is due now fires, and the timer is armed afresh.
    func reevaluate() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        zones = [:]
        armedFor = nil
        fireDue()
    }

    /// logind's `PrepareForSleep(true)`: the machine is about to sleep.
    func preparingForSleep() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        asleepSince = clock()
        asleepMonotonic = monotonic()
    }

    /// logind's `PrepareForSleep(false)`: the machine resumed. Everything is looked at again; what
    /// fell due while away fires once, summarized when there are more than `summaryThreshold`.
    func resumed() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        resumedFrom = min(resumedFrom ?? .latest, asleepSince ?? clock())
        asleepSince = nil
        reevaluate()
    }

    /// The earliest instant a pending reminder is due at: the earliest instant reminder, or a
    /// wall-clock one (all-day) moved to the local zone, whichever comes first.
    private func nextDue(_ tx: StoreTransaction) throws(TodoError) -> Instant? {
        let instant = try tx.nextPendingReminder(allDay: false)
        guard let firstWall = try tx.nextPendingReminder(allDay: true) else { return instant }
        // Stored more than two shifts after the first instant reminder: none can come before it.
        if let instant, firstWall.usec - 2 * Self.maxShiftUsec > instant.usec { return instant }
        let candidates = try tx.dueReminders(
            at: firstWall.adding(usec: 2 * Self.maxShiftUsec), allDay: true, limit: 1000)
        let wall = candidates.compactMap(scheduledInstant(of:)).min()
        return [instant, wall].compactMap { $0 }.min()
    }

    /// Up to `batchSize` reminders due at `now`, in the order they are due, with their instants.
    private func due(at now: Instant, _ tx: StoreTransaction) throws(TodoError) -> [(Todo, Instant)] {
        let instant = try tx.dueReminders(at: now, allDay: false, limit: Self.batchSize)
        let wall = try tx.dueReminders(at: now.adding(usec: Self.maxShiftUsec), allDay: true, limit: 1000)
        var due = instant.map { ($0, $0.remind ?? now) }
        for todo in wall { if let at = scheduledInstant(of: todo), at <= now { due.append((todo, at)) } }
        if wall.isEmpty { return due }
        due.sort { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.id < $1.0.id }
        return Array(due.prefix(Self.batchSize))
    }

    /// Arms the timer for the earliest pending reminder. One already due fires as soon as the
    /// store queue is free: after the answers of the commit that called this.
    func rearm() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        guard !delivering, !halted else { return } // the batch in flight re-arms once it is recorded
        let next: Instant?
        do {
            next = try store.readOnQueue { tx throws(TodoError) in try nextDue(tx) }
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
        guard !delivering, !halted else { return }
        let now = clock()
        if let retryAt, now < retryAt { return rearm() }
        // An undo or redo holds the store's writes: what is due fires when it ends (its commit
        // re-arms), or, if it fails, at the next look.
        if store.longWriteRunningOnQueue { return arm(at: now.adding(usec: Self.longWriteRetryUsec)) }
        // The kernel counts the time spent suspended: if it grew, the machine slept (the timer
        // may go off on resume before logind's signal comes).
        let suspended = suspendedUsec()
        if suspended - lastSuspendedUsec > 1_000_000 {
            resumedFrom = min(resumedFrom ?? .latest, now.adding(usec: lastSuspendedUsec - suspended))
        }
        lastSuspendedUsec = suspended
        if asleepSince != nil {
            let awake = monotonic() - asleepMonotonic
            if awake < Self.sleepHoldSeconds { // held until the resume, or until it is clear none comes
                return arm(at: now.adding(usec: Int64((Self.sleepHoldSeconds - awake) * 1_000_000) + 1))
            }
            resumedFrom = asleepSince
            asleepSince = nil
        }
        if resumedFrom != nil, fireSummary(now) { return }
        let due: [(Todo, Instant)]
        do {
            due = try store.readOnQueue { tx throws(TodoError) in try self.due(at: now, tx) }
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
            for (todo, scheduled) in due {
                // Never earlier than the instant it was found due at: the wall clock may step
                // back while the batch waits for the journal.
                let fired = max(clock(), now)
                let reminder = FiredReminder(
                    todo: todo, fired: fired, lateUsec: fired.usec - scheduled.usec, scheduled: scheduled)
                if sink.deliver(reminder) { delivered.append(reminder) } // a refused one stays pending
            }
            let (done, refused) = (delivered, delivered.count < due.count)
            queue.async { self.record(done, refused: refused, full: full) }
        }
    }

    /// After a resume: when more than `summaryThreshold` reminders are due, hands them all to the
    /// delivery queue as one summary and returns true; otherwise false (they fire one by one).
    private func fireSummary(_ now: Instant) -> Bool {
        resumedFrom = nil
        let due: [(Todo, Instant)]
        do {
            due = try store.readOnQueue { tx throws(TodoError) in
                var all = try tx.dueReminders(at: now, allDay: false, limit: Self.summaryLimit).map {
                    ($0, $0.remind ?? now)
                }
                for todo in try tx.dueReminders(
                    at: now.adding(usec: Self.maxShiftUsec), allDay: true, limit: Self.summaryLimit)
                {
                    if let at = scheduledInstant(of: todo), at <= now { all.append((todo, at)) }
                }
                return all.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.id < $1.0.id }.prefix(Self.summaryLimit).map {
                    $0
                }
            }
        } catch {
            return false
        }
        guard due.count > Self.summaryThreshold else { return false }
        delivering = true
        let (sink, queue) = (self.sink, store.queue)
        let reminders = due.map {
            FiredReminder(todo: $0.0, fired: now, lateUsec: now.usec - $0.1.usec, scheduled: $0.1)
        }
        deliveryQueue.async {
            let landed = sink.deliverSummary(reminders)
            queue.async {
                if !landed { self.resumedFrom = min(self.resumedFrom ?? .latest, now) } // retried as a summary again
                self.record(landed ? reminders : [], refused: !landed, full: false)
            }
        }
        return true
    }

    /// Back on the store queue: records what was delivered, reports it, and arms for what is next.
    private func record(_ delivered: [FiredReminder], refused: Bool, full: Bool) {
        dispatchPrecondition(condition: .onQueue(store.queue))
        if store.longWriteRunningOnQueue { // cannot write yet: recorded once the undo or redo ends, never sent twice
            store.queue.asyncAfter(deadline: .now() + .milliseconds(100)) {
                self.record(delivered, refused: refused, full: full)
            }
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
            if halted { return finishHalt() }
            // Not recorded: they stay pending and are sent again on the retry (a repeat, never a loss).
            retryAt = clock().adding(usec: Self.retryDelayUsec)
            arm(at: retryAt!)
            return
        }
        if !delivered.isEmpty { onFired(delivered) }
        if halted { return finishHalt() }
        if refused {
            retryAt = clock().adding(usec: Self.retryDelayUsec)
            arm(at: retryAt!)
        } else if full {
            retryAt = nil
            arm(at: clock()) // more may be due: go on after the requests waiting on the queue
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
/// wall clock to reach the deadline again; either way, a clock set while it is armed is reported
/// (`onClockSet`, from `TFD_TIMER_CANCEL_ON_SET`) and the scheduler looks at everything again.
/// See docs/REMINDERS.md.
final class DispatchWallTimer: WallClockTimer {
    private let timer: RealtimeTimer
    private let source: any DispatchSourceRead
    var onFire: (() -> Void)?
    var onClockSet: (() -> Void)?

    /// The kernel's view of the timer (`/proc/self/fdinfo`), for tests.
    var kernelSettings: [String: String] { timer.kernelSettings }

    init(queue: DispatchQueue) throws(PosixError) {
        let timer = try RealtimeTimer()
        self.timer = timer
        source = DispatchSource.makeReadSource(fileDescriptor: timer.fd, queue: queue)
        source.setEventHandler { [unowned self] in
            switch timer.consume() {
            case .expired: self.onFire?()
            case .clockSet: self.onClockSet?()
            case .nothing: break
            }
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
