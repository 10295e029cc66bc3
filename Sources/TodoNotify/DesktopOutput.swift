import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoSystemd
import TodoTime
import TodoUserFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Desktop notifications: one notification per todo with Done, Snooze and (for an alarm's
/// firing) Dismiss, the answers acted on through todod's socket, and each notification withdrawn
/// (`CloseNotification`) once its reminder no longer stands. A later firing of the same todo
/// replaces its notification (`Notify`'s replaces_id) instead of stacking another; Dismiss then
/// acknowledges the alarm now shown (`todo.alarm.ack`), never one it replaced.
///
/// Calls do not wait for the server: a reminder is handed to the bus and the next one follows at
/// once; the server's answer (its id) arrives later through `process()`. A reminder counts as
/// settled — `settled` is called, so the cursor may move past it — once the server answered, or
/// once it is given up: a server that answers with an error, or not within `replyTimeoutUsec`
/// (it may have shown it), is logged once per reminder and never sent the same reminder again.
/// Without a session bus or a notification server nothing is lost: reminders wait, the
/// notifier keeps following, retries with a backoff (1 s doubling to 30 s, at once when a
/// server takes the name), and says so once per outage. A backlog — what was missed while the
/// notifier was stopped, or while the desktop was away — of more than `summaryThreshold`
/// reminders becomes one summary notification with a Dismiss button instead of a flood.
///
/// Only the current owner of org.freedesktop.Notifications is listened to, and only for the ids
/// it returned to us since it last took the name: a button pressed on another application's
/// notification, or an `ActionInvoked` any other peer sends, completes nothing.
final class DesktopOutput {
    static let summaryThreshold = 5
    static let firstBackoff = 1.0
    static let maxBackoff = 30.0
    /// Notifications remembered for their buttons (the oldest are forgotten beyond this).
    static let maxShown = 10_000
    /// Calls waiting for the server's answer at most (the rest wait their turn).
    static let maxInFlight = 256
    static let replyTimeoutUsec: UInt64 = 25_000_000

    /// One reminder on its way: `ticket` is its place in the journal (nil while only the fast
    /// path brought it), `withdrawn` that its todo changed while the call was out.
    struct Item {
        var reminder: Reminder
        var ticket: Int?
        var withdrawn = false
    }

    /// A notification of ours on screen.
    private struct Shown {
        var todo: Int64
        var uid: String
        var remindUsec: Int64?
        /// The alarm it shows (Dismiss acknowledges it); nil for a snooze's firing.
        var alarm: String?
    }

    private let socket: String
    private let snoozeUsec: Int64
    private let zone: ZoneInfo
    private let log: NotifyLog
    /// Called once per reminder when the desktop is done with it (shown or given up).
    private let onSettled: (Item) -> Void
    /// The keys of the reminders waiting or out, and the journal places given to them later.
    private var outstanding: Set<String> = []
    private var attached: [String: Int] = [:]

    private(set) var bus: DesktopNotifications?
    private var pending: [Item] = []
    private var pendingIsBacklog = false
    private var pendingIsSuspended = false
    /// Calls out: token → what they carry (a summary carries many).
    private var inFlight: [UInt64: [Item]] = [:]
    private var inFlightOrder: [UInt64] = []
    private var nextToken: UInt64 = 1
    /// Our notifications still on screen, as the current server numbered them.
    private var shown: [UInt32: Shown] = [:]
    private var shownOrder: [UInt32] = []
    /// Each todo's notification on screen (its next reminder replaces it).
    private var byTodo: [Int64: UInt32] = [:]
    /// Summary notifications on screen (their only button is Dismiss).
    private var summaries: Set<UInt32> = []
    /// When to try again (monotonic seconds), while the bus or the server is missing.
    private(set) var retryAt: Double?
    private var backoff = DesktopOutput.firstBackoff
    private var outageLogged = false

    /// `quiet-hours`: reminders that come in the span are held and shown when it ends.
    private let quiet: QuietHours?
    /// The wall clock (injected: tests step it).
    private let clock: () -> Instant
    /// Reminders wait for the end of quiet hours: shown then, as one summary when more than one.
    private(set) var heldForQuiet = false

    init(
        socket: String, snoozeUsec: Int64, zone: ZoneInfo, quiet: QuietHours? = nil,
        clock: @escaping () -> Instant = { Instant.now() },
        log: NotifyLog, settled: @escaping (Item) -> Void
    ) {
        self.quiet = quiet
        self.clock = clock
        self.socket = socket
        self.snoozeUsec = snoozeUsec
        self.zone = zone
        self.log = log
        self.onSettled = settled
    }

    /// The Snooze button's label: "Snooze 10 min".
    var snoozeLabel: String { "Snooze " + Reminder.describe(snoozeUsec) }

    /// Queues a reminder; `backlog` marks what was missed while stopped, `suspended` what todod
    /// summarized after the machine slept (shown as one summary whenever more than one).
    func enqueue(_ item: Item, backlog: Bool, suspended: Bool = false) {
        if pending.isEmpty {
            pendingIsBacklog = backlog
            pendingIsSuspended = suspended
        }
        pending.append(item)
        outstanding.insert(item.reminder.key)
    }

    /// Gives the reminder with `key`, still on its way, the journal place `ticket`: true when it
    /// was found (it settles with it), false when the desktop is already done with it.
    func attach(ticket: Int, key: String) -> Bool {
        guard outstanding.contains(key) else { return false }
        attached[key] = ticket
        return true
    }

    /// The desktop is done with `item`: it goes to the notifier with its journal place.
    private func settled(_ item: Item) {
        var item = item
        let key = item.reminder.key
        outstanding.remove(key)
        if let ticket = attached.removeValue(forKey: key), item.ticket == nil { item.ticket = ticket }
        onSettled(item)
    }

    /// Whether reminders wait for the bus (for the poll's timeout).
    var hasPending: Bool { !pending.isEmpty }

    /// Seconds until quiet hours end, when reminders are held for them (for the poll's timeout).
    var secondsUntilQuietEnds: Double? {
        guard heldForQuiet, !pending.isEmpty, let quiet else { return nil }
        let now = clock()
        let wall = LocalTime(now, in: zone)
        return Double(quiet.secondsUntilEnd(from: wall.secondOfDay)) - Double(now.usec % 1_000_000) / 1e6
    }

    /// What `flush` does with what waits at `now`: hold it (quiet hours), show it as one summary,
    /// or show each.
    enum Decision: Equatable { case hold, summary, each }
    static func decide(count: Int, backlog: Bool, heldForQuiet: Bool, quiet: QuietHours?, secondOfDay: Int64)
        -> Decision
    {
        if let quiet, quiet.contains(secondOfDay: secondOfDay) { return .hold }
        if heldForQuiet { return count > 1 ? .summary : .each }
        return backlog && count > summaryThreshold ? .summary : .each
    }

    /// Sends what waits, when the bus is there (connecting first, once the retry is due).
    func flush() {
        if !pending.isEmpty, let quiet, quiet.contains(secondOfDay: LocalTime(clock(), in: zone).secondOfDay) {
            heldForQuiet = true // shown when the span ends
            return
        }
        if let retryAt, Posix.monotonicSeconds() < retryAt { return }
        if bus == nil {
            do {
                bus = try DesktopNotifications()
            } catch {
                down("no session bus (\(error))")
                return
            }
        }
        // Sent even while nobody owns the name: the bus may start a server on demand (D-Bus
        // activation); without one the answer is ServiceUnknown, and the reminders wait.
        guard !pending.isEmpty else { return }
        let now = clock()
        let decision = Self.decide(
            count: pending.count, backlog: pendingIsBacklog, heldForQuiet: heldForQuiet || pendingIsSuspended,
            quiet: quiet,
            secondOfDay: LocalTime(now, in: zone).secondOfDay)
        let afterQuiet = heldForQuiet
        heldForQuiet = false
        if decision == .summary {
            var (summary, body) = Self.summary(pending.map(\.reminder))
            if pendingIsSuspended { summary = "\(pending.count) reminders while suspended" }
            if afterQuiet { summary = "\(pending.count) reminders during quiet hours" }
            let critical = pending.contains { $0.reminder.isCritical(now: now, zone: zone) }
            guard
                send(
                    pending, summary: summary, body: body, actions: ["dismiss", "Dismiss"], critical: critical,
                    category: "todod.missed")
            else {
                heldForQuiet = afterQuiet
                return
            }
            pending = []
            pendingIsSuspended = false
            return
        }
        // One notification per todo: a reminder followed by a later one of the same todo is
        // never shown (the later one would replace it at once), and one whose todo has a call
        // out waits for its answer, so it can replace what that call showed.
        var latest: [Int64: Int] = [:]
        for (i, item) in pending.enumerated() { latest[item.reminder.id] = i }
        let busy = Set(inFlight.values.filter { !isSummary($0) }.map { $0[0].reminder.id })
        var kept: [Item] = []
        var stopped = false
        for (i, item) in pending.enumerated() {
            let reminder = item.reminder
            if latest[reminder.id] != i {
                settled(item)
                continue
            }
            if stopped || inFlight.count >= Self.maxInFlight || busy.contains(reminder.id) {
                kept.append(item)
                continue
            }
            var actions = ["done", "Done", "snooze", snoozeLabel]
            if reminder.alarmUid != nil { actions += ["dismiss", "Dismiss"] }
            guard
                send(
                    [item], summary: reminder.title, body: reminder.body(now: now, zone: zone), actions: actions,
                    critical: reminder.isCritical(now: now, zone: zone), category: "todod.reminder",
                    replacing: byTodo[reminder.id] ?? 0)
            else {
                stopped = true
                kept.append(item)
                continue
            }
        }
        pending = kept
    }

    /// One `Notify` carrying `items`; false when the bus refused to take it (it is retried).
    private func send(
        _ items: [Item], summary: String, body: String, actions: [String], critical: Bool, category: String,
        replacing: UInt32 = 0
    ) -> Bool {
        guard let bus else { return false }
        let token = nextToken
        do {
            try bus.notify(
                token: token, appName: "todod", replacesID: replacing, summary: summary, body: Self.markupEscaped(body),
                actions: actions,
                hints: [
                    ("urgency", .byte(critical ? 2 : 1)), ("desktop-entry", .string("todod")),
                    ("category", .string(category))
                ],
                timeoutUsec: Self.replyTimeoutUsec)
        } catch {
            lostBus("the session bus refused a call (\(error))")
            return false
        }
        nextToken += 1
        inFlight[token] = items
        inFlightOrder.append(token)
        return true
    }

    /// Takes in what the bus has: the server's answers, the buttons pressed, the server coming or going.
    func process() {
        guard let bus else { return }
        let events: [DesktopNotifications.Event]
        do {
            events = try bus.process()
        } catch {
            lostBus("lost the session bus (\(error))")
            return
        }
        for event in events {
            switch event {
            case .notified(let token, let id, let server):
                guard let items = takeCall(token) else { continue }
                // An id from a server that has left since means nothing to the one there now.
                if server == bus.owner {
                    if !isSummary(items) {
                        // A server that did not reuse the id left the old one up: it goes.
                        if let old = byTodo[items[0].reminder.id], old != id {
                            forget(old)
                            close(old)
                        }
                        remember(id, items[0].reminder)
                        if items[0].withdrawn { close(id) }
                    } else {
                        summaries.insert(id)
                    }
                }
                up()
                items.forEach(settled)
            case .notifyFailed(let token, let failure):
                guard let items = takeCall(token) else { continue }
                if failure.noServer {
                    pending.insert(contentsOf: items, at: 0)
                    pendingIsBacklog = true
                    down("no notification server on the session bus (\(failure))")
                    continue
                }
                let what =
                    isSummary(items) ? "the summary of \(items.count) missed reminders" : "todo \(items[0].reminder.id)"
                if failure.noReply {
                    log.warning(
                        "the notification server did not answer the notification for \(what) within \(Self.replyTimeoutUsec / 1_000_000) s; it may be showing it; not sent again"
                    )
                } else {
                    log.error(
                        "the notification server refused the notification for \(what) (\(failure)); not sent again")
                }
                items.forEach(settled)
            case .ownerChanged(let owner):
                // Whatever the old server numbered is gone with it.
                shown = [:]
                shownOrder = []
                byTodo = [:]
                summaries = []
                if owner != nil {
                    retryAt = nil
                    backoff = Self.firstBackoff
                }
            case .closed(let id, _):
                // Closing acknowledges nothing. A close of a notification we are replacing
                // right now (its todo has a call out) is the old one's: the replacement keeps the id.
                if let s = shown[id], inFlight.values.contains(where: { !isSummary($0) && $0[0].reminder.id == s.todo })
                {
                    continue
                }
                forget(id)
                summaries.remove(id)
            case .action(let id, let key):
                if summaries.contains(id) {
                    // Dismiss completes nothing: it only takes the summary away.
                    if key == "dismiss" {
                        summaries.remove(id)
                        close(id)
                    }
                    continue
                }
                // not ours, or answered
                guard key == "done" || key == "snooze" || key == "dismiss", let todo = shown[id] else { continue }
                forget(id)
                act(key, on: todo)
                close(id)
            }
        }
    }

    private func isSummary(_ items: [Item]) -> Bool { items.count != 1 }

    private func takeCall(_ token: UInt64) -> [Item]? {
        guard let items = inFlight.removeValue(forKey: token) else { return nil }
        if let i = inFlightOrder.firstIndex(of: token) { inFlightOrder.remove(at: i) }
        return items
    }

    /// The todo changed somewhere (`type` is its watch event): its notifications go when the
    /// reminder they show no longer stands — done, deleted, snoozed, rescheduled, advanced.
    func withdraw(_ type: String, _ todo: Todo) {
        func stands(_ remindUsec: Int64?) -> Bool {
            type != "todo.deleted" && !todo.done && todo.reminded != nil && todo.remind?.usec == remindUsec
        }
        func same(_ id: Int64, _ uid: String) -> Bool {
            id == todo.id && (uid.isEmpty || todo.uid.isEmpty || uid == todo.uid)
        }
        for (id, s) in shown where same(s.todo, s.uid) && !stands(s.remindUsec) {
            forget(id)
            close(id)
        }
        var kept: [Item] = []
        for item in pending {
            if same(item.reminder.id, item.reminder.uid) && !stands(item.reminder.remindUsec) {
                settled(item)
            } else {
                kept.append(item)
            }
        }
        pending = kept
        for (token, items) in inFlight
        where items.count == 1 && same(items[0].reminder.id, items[0].reminder.uid)
            && !stands(items[0].reminder.remindUsec)
        {
            inFlight[token]?[0].withdrawn = true
        }
    }

    private func close(_ id: UInt32) {
        do { try bus?.close(id) } catch { lostBus("the session bus refused a call (\(error))") }
    }

    private func act(_ key: String, on todo: Shown) {
        do {
            let transport = try UnixSocketTransport(path: socket)
            // The id must still name the todo the reminder was about.
            if !todo.uid.isEmpty, case let uid = try transport.call(TodoGetParams(id: todo.todo)).uid, uid != todo.uid {
                log.warning("\(key): todo \(todo.todo) is no longer the one reminded of; nothing done")
                return
            }
            switch key {
            case "done":
                if let after = try transport.call(TodoCompleteParams(ids: [todo.todo])).first, !after.done {
                    let next =
                        after.due.map {
                            " to "
                                + (after.allDay
                                    ? LocalTime.dateText(
                                        days: LocalTime($0, in: after.zone.flatMap { ZoneInfo(identifier: $0) } ?? zone)
                                            .days) : LocalTime($0, in: zone).text)
                        } ?? ""
                    log.info("todo \(todo.todo) advanced\(next)")
                } else {
                    log.info("todo \(todo.todo) done")
                }
            case "dismiss":
                guard let alarm = todo.alarm else { return }
                _ = try transport.call(TodoAlarmAckParams(id: todo.todo, alarm: alarm))
                log.info("todo \(todo.todo): alarm \(alarm) dismissed")
            case "snooze":
                let until = Instant(usec: Instant.now().usec + snoozeUsec)
                _ = try transport.call(TodoSnoozeParams(id: todo.todo, until: until))
                log.info("todo \(todo.todo) snoozed until \(LocalTime(until, in: zone).text)")
            default:
                return
            }
        } catch {
            log.error("\(key) for todo \(todo.todo) failed: \(Self.describe(error))")
        }
    }

    private func remember(_ id: UInt32, _ reminder: Reminder) {
        let s = Shown(todo: reminder.id, uid: reminder.uid, remindUsec: reminder.remindUsec, alarm: reminder.alarmUid)
        if shown.updateValue(s, forKey: id) == nil { shownOrder.append(id) }
        byTodo[reminder.id] = id
        if shownOrder.count > Self.maxShown {
            let drop = shownOrder.count - Self.maxShown / 2
            for old in shownOrder.prefix(drop) { forget(old) }
            shownOrder.removeFirst(drop)
        }
    }

    /// Notification `id` is no longer on screen (or no longer answered).
    private func forget(_ id: UInt32) {
        guard let s = shown.removeValue(forKey: id) else { return }
        if byTodo[s.todo] == id { byTodo[s.todo] = nil }
    }

    /// The connection is gone: what was out is sent again on the next one.
    private func lostBus(_ reason: String) {
        bus = nil
        shown = [:]
        shownOrder = []
        byTodo = [:]
        summaries = []
        var back: [Item] = []
        for token in inFlightOrder { back += inFlight[token] ?? [] }
        inFlight = [:]
        inFlightOrder = []
        pending.insert(contentsOf: back, at: 0)
        down(reason)
    }

    /// Schedules the next try; logs once per outage.
    private func down(_ reason: String) {
        if !outageLogged {
            log.warning("\(reason): still following the journal; reminders wait and are retried with backoff")
            outageLogged = true
        }
        pendingIsBacklog = true
        retryAt = Posix.monotonicSeconds() + backoff
        backoff = min(backoff * 2, Self.maxBackoff)
    }

    private func up() {
        if outageLogged { log.info("notifications reach the desktop again") }
        outageLogged = false
        retryAt = nil
        backoff = Self.firstBackoff
    }

    /// "7 missed reminders" and the first titles.
    static func summary(_ reminders: [Reminder]) -> (String, String) {
        let shownTitles = reminders.prefix(5).map { "• " + $0.title }
        let more = reminders.count - shownTitles.count
        return (
            "\(reminders.count) missed reminders",
            (shownTitles + (more > 0 ? ["and \(more) more (todoctl reminders)"] : [])).joined(separator: "\n")
        )
    }

    /// The body may be read as markup by the server (capability body-markup): &, < and > are escaped.
    static func markupEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }

    static func describe(_ error: ClientError) -> String {
        switch error {
        case .unreachable(let socket, let reason): "cannot reach todod at \(socket): \(reason)"
        case .refused(let rpc): rpc.message
        case .badAnswer(let text): text
        case .untrustedDaemon(let socket, let uid): "\(socket) belongs to uid \(uid), not to us"
        case .timedOut(let socket, let seconds): "todod at \(socket) did not answer within \(seconds) s"
        case .badTimeout(let text): "bad timeout \(text)"
        }
    }
}
