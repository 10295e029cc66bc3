#if canImport(Glibc)
import Glibc
#endif
import TodoClient
import TodoCore
import TodoPosix
import TodoProtocol
import TodoSystemd
import TodoTime

/// Desktop notifications (SPEC §8): one `Notify` per reminder with Done and Snooze, and the
/// answers acted on through todod's socket.
///
/// Reminders wait in `pending` until the server took them; the cursor moves past each only then,
/// so without a session bus or a notification server nothing is lost: the notifier keeps
/// following, retries with a backoff (1 s doubling to 30 s), and says so once per outage. A
/// backlog — what was missed while the notifier was stopped, or while the desktop was away — of
/// more than `summaryThreshold` reminders becomes one summary notification instead of a flood.
final class DesktopOutput {
    static let summaryThreshold = 5
    static let firstBackoff = 1.0
    static let maxBackoff = 30.0
    /// Notifications remembered for their buttons (the oldest are forgotten beyond this).
    static let maxShown = 10_000

    private let socket: String
    private let snoozeUsec: Int64
    private let zone: ZoneInfo
    private let log: NotifyLog
    /// Saves the cursor of a reminder the server took.
    private let save: (String) -> Void

    private(set) var bus: DesktopNotifications?
    private var pending: [Reminder] = []
    private var pendingIsBacklog = false
    /// Our notifications still on screen: server id → the todo.
    private var shown: [UInt32: (id: Int64, uid: String)] = [:]
    private var shownOrder: [UInt32] = []
    /// When to try again (monotonic seconds), while the bus or the server is missing.
    private(set) var retryAt: Double?
    private var backoff = DesktopOutput.firstBackoff
    private var outageLogged = false

    init(socket: String, snoozeUsec: Int64, zone: ZoneInfo, log: NotifyLog, save: @escaping (String) -> Void) {
        self.socket = socket
        self.snoozeUsec = snoozeUsec
        self.zone = zone
        self.log = log
        self.save = save
    }

    /// The Snooze button's label: "Snooze 10 min".
    var snoozeLabel: String { "Snooze " + Reminder.describe(snoozeUsec) }

    /// Queues reminders read from the journal; `backlog` marks what was missed while stopped.
    func enqueue(_ reminders: [Reminder], backlog: Bool) {
        if pending.isEmpty { pendingIsBacklog = backlog }
        pending += reminders
    }

    var hasPending: Bool { !pending.isEmpty }

    /// Sends what waits, when the bus is there (connecting first, once the retry is due).
    func flush() {
        if bus == nil {
            if let retryAt, Posix.monotonicSeconds() < retryAt { return }
            do {
                bus = try DesktopNotifications()
            } catch {
                down("no session bus (\(error))")
                return
            }
        }
        guard let bus, !pending.isEmpty else { return }
        if let retryAt, Posix.monotonicSeconds() < retryAt { return }
        let now = Instant.now()
        if pendingIsBacklog && pending.count > Self.summaryThreshold {
            let (summary, body) = Self.summary(pending)
            let critical = pending.contains { $0.lateness(at: now) > 3_600_000_000 }
            do {
                _ = try bus.notify(appName: "todod", summary: summary, body: Self.markupEscaped(body), actions: [],
                                   hints: [("urgency", .byte(critical ? 2 : 1)), ("desktop-entry", .string("todod")), ("category", .string("todod.missed"))])
            } catch {
                failed(error)
                return
            }
            save(pending[pending.count - 1].cursor)
            pending = []
            up()
            return
        }
        var sent = 0
        defer { pending.removeFirst(sent) }
        for reminder in pending {
            let id: UInt32
            do {
                id = try bus.notify(appName: "todod", summary: reminder.title,
                                    body: Self.markupEscaped(reminder.body(now: now, zone: zone)),
                                    actions: ["done", "Done", "snooze", snoozeLabel],
                                    hints: [("urgency", .byte(reminder.lateness(at: now) > 3_600_000_000 ? 2 : 1)),
                                            ("desktop-entry", .string("todod")), ("category", .string("todod.reminder"))])
            } catch {
                failed(error)
                return
            }
            remember(id, reminder)
            save(reminder.cursor)
            sent += 1
        }
        up()
    }

    /// Takes in what the bus has: the server's answers to our notifications, a lost connection.
    func process() {
        guard let bus else { return }
        let events: [DesktopNotifications.Event]
        do {
            events = try bus.process()
        } catch {
            self.bus = nil
            log.warning("lost the session bus (\(error)); reconnecting")
            retryAt = Posix.monotonicSeconds() + backoff
            return
        }
        for event in events {
            switch event {
            case .closed(let id, _):
                shown[id] = nil
            case .action(let id, let key):
                guard let todo = shown.removeValue(forKey: id) else { continue }  // not ours, or answered
                act(key, on: todo)
            }
        }
    }

    private func act(_ key: String, on todo: (id: Int64, uid: String)) {
        do {
            let transport = try UnixSocketTransport(path: socket)
            // The id must still name the todo the reminder was about.
            if !todo.uid.isEmpty, let uid = try transport.call(.todoGet, ["id": .int(todo.id)])["uid"]?.stringValue, uid != todo.uid {
                log.warning("\(key): todo \(todo.id) is no longer the one reminded of; nothing done")
                return
            }
            switch key {
            case "done":
                _ = try transport.call(.todoComplete, TodoCompleteParams(ids: [todo.id]).encoded)
                log.info("todo \(todo.id) done")
            case "snooze":
                let until = Instant(usec: Instant.now().usec + snoozeUsec)
                _ = try transport.call(.todoSnooze, TodoSnoozeParams(id: todo.id, until: until).encoded)
                log.info("todo \(todo.id) snoozed until \(until.rfc3339())")
            default:
                return
            }
        } catch {
            log.error("\(key) for todo \(todo.id) failed: \(Self.describe(error))")
        }
    }

    private func remember(_ id: UInt32, _ reminder: Reminder) {
        if shown.updateValue((reminder.id, reminder.uid), forKey: id) == nil { shownOrder.append(id) }
        if shownOrder.count > Self.maxShown {
            let drop = shownOrder.count - Self.maxShown / 2
            for old in shownOrder.prefix(drop) { shown[old] = nil }
            shownOrder.removeFirst(drop)
        }
    }

    private func failed(_ error: DesktopNotifications.Failure) {
        if error.noServer {
            down("no notification server on the session bus (\(error))")
        } else {
            bus = nil
            down("the session bus refused a notification (\(error))")
        }
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
        return ("\(reminders.count) missed reminders", (shownTitles + (more > 0 ? ["and \(more) more (todoctl reminders)"] : [])).joined(separator: "\n"))
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
