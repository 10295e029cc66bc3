import Dispatch
import Foundation
import TodoCore
import TodoSystemd
import TodoTime

#if canImport(Glibc)
    import Glibc
#endif

/// Writes each fired reminder to the journal as a structured entry (docs/REMINDERS.md).
///
/// A delivery counts only once journald took the entry. While it refuses them (no journald, or
/// one that went away), each refused reminder is written once to standard error with the same
/// facts, so it is seen meanwhile, and reported undelivered: the scheduler sends it again until
/// the journal takes it. Used only on the delivery queue.
final class JournalReminderSink: ReminderSink, @unchecked Sendable {
    // @unchecked: `onStandardError` and `refusing` are touched only on the delivery queue.
    /// The MESSAGE_ID of every reminder entry (generated once with `systemd-id128 new`);
    /// `systemd/todod.catalog` explains it for `journalctl -x`.
    static let messageID = "160974618077448c97edd5576474d5b8"
    /// The MESSAGE_ID of a summary of reminders that fell due while the machine was suspended.
    static let summaryMessageID = "9690f3cda4cc46cdbca9484dd4f2ae91"

    private let log: Log
    /// The local zone now (it can change while the daemon runs).
    private let timeZone: @Sendable () -> ZoneInfo
    private let storeID: String
    /// Reminders (todo id, scheduled instant) already written to standard error while the journal
    /// refused them: each is written there once, however often it is retried.
    private var onStandardError: Set<[Int64]> = []
    /// Whether the last delivery was refused (the warning is logged once per outage).
    private var refusing = false
    private let queue: DispatchQueue

    /// `timeZone` is the zone of the local times in messages (the daemon passes the one `TZ`
    /// names, read as todoctl reads it); `storeID` goes into every entry as `TODO_STORE`.
    /// `queue` is the delivery queue, the one `deliver` must be called on.
    init(log: Log, timeZone: @escaping @Sendable () -> ZoneInfo, storeID: String, queue: DispatchQueue) {
        self.queue = queue
        self.log = log
        self.timeZone = timeZone
        self.storeID = storeID
        if !Journal.isAvailable {
            log.warning(
                "no journald listening at \(Journal.socketPath): reminders are written to standard error until one listens"
            )
        }
    }

    func deliver(_ reminder: FiredReminder) -> Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        let fields = Self.fields(reminder, storeID: storeID, timeZone: timeZone())
        let key = [reminder.todo.id, reminder.todo.remind?.usec ?? 0]
        guard let errno = Journal.send(fields) else {
            if refusing {
                refusing = false
                log.notice("the journal takes reminders again")
            }
            onStandardError.remove(key)
            return true
        }
        if !refusing {
            refusing = true
            log.warning(
                "the journal refused a reminder (\(String(cString: strerror(errno)))); writing reminders here and retrying every \(ReminderScheduler.retryDelayUsec / 1_000_000) s"
            )
        }
        if onStandardError.count >= 10_000 { onStandardError = [] } // bounded: at worst a line repeats
        if onStandardError.insert(key).inserted {
            let facts = fields.filter {
                $0.name != "MESSAGE" && $0.name != "PRIORITY" && $0.name != "SYSLOG_IDENTIFIER"
            }
            .map { "\($0.name)=\(Self.quoted($0.value))" }.joined(separator: " ")
            log.notice("\(fields[0].value) [\(facts)]")
        }
        return false
    }

    func deliverSummary(_ reminders: [FiredReminder]) -> Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        let fields = Self.summaryFields(reminders, storeID: storeID)
        guard let errno = Journal.send(fields) else {
            if refusing {
                refusing = false
                log.notice("the journal takes reminders again")
            }
            return true
        }
        if !refusing {
            refusing = true
            log.warning(
                "the journal refused a reminder (\(String(cString: strerror(errno)))); writing reminders here and retrying every \(ReminderScheduler.retryDelayUsec / 1_000_000) s"
            )
        }
        let key: [Int64] = [-1, reminders.first?.todo.id ?? 0, Int64(reminders.count)]
        if onStandardError.insert(key).inserted { log.notice(fields[0].value) }
        return false
    }

    /// "12 reminders while suspended" and what they are, in words.
    static func summaryText(count: Int) -> String { "\(count) reminders while suspended" }

    /// The summary entry's fields, MESSAGE first: the count, the todos (the first 20 by title in
    /// the message, every id in TODO_IDS).
    static func summaryFields(_ reminders: [FiredReminder], storeID: String) -> [(name: String, value: String)] {
        let named = reminders.prefix(20).map { "\($0.todo.id) “\(DisplayText.escaped($0.todo.title))”" }.joined(
            separator: ", ")
        let more = reminders.count > 20 ? " and \(reminders.count - 20) more" : ""
        return [
            ("MESSAGE", summaryText(count: reminders.count) + ": todos " + named + more + "."),
            ("MESSAGE_ID", summaryMessageID),
            ("PRIORITY", "5"),
            ("SYSLOG_IDENTIFIER", "todod"),
            ("TODO_STORE", storeID),
            ("TODO_COUNT", String(reminders.count)),
            ("TODO_IDS", reminders.map { String($0.todo.id) }.joined(separator: " ")),
            ("TODO_LATE_USEC", String(max(0, reminders.map(\.lateUsec).max() ?? 0)))
        ]
    }

    /// The entry's fields, MESSAGE first.
    static func fields(_ reminder: FiredReminder, storeID: String, timeZone: ZoneInfo) -> [(
        name: String, value: String
    )] {
        let todo = reminder.todo
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", message(todo, timeZone: timeZone)),
            ("MESSAGE_ID", messageID),
            ("PRIORITY", "5"),
            ("SYSLOG_IDENTIFIER", "todod"),
            ("TODO_ID", String(todo.id)),
            ("TODO_UID", todo.uid),
            ("TODO_STORE", storeID),
            ("TODO_TITLE", todo.title)
        ]
        if let category = todo.category { fields.append(("TODO_CATEGORY", category)) }
        if let due = todo.due {
            fields.append(("TODO_DUE", due.rfc3339(fractional: true)))
            fields.append(("TODO_DUE_USEC", String(due.usec)))
        }
        if todo.remind != nil { fields.append(("TODO_REMIND_USEC", String(reminder.scheduled.usec))) }
        fields.append(("TODO_LATE_USEC", String(max(0, reminder.lateUsec))))
        if let uid = reminder.alarmUid, let index = reminder.alarmIndex {
            fields.append(("TODO_ALARM_UID", uid))
            fields.append(("TODO_ALARM_INDEX", String(index)))
            fields.append(("TODO_ALARM_COUNT", String(todo.alarms.count)))
            if let n = reminder.alarmRepeat { fields.append(("TODO_ALARM_REPEAT", String(n))) }
        }
        if todo.allDay { fields.append(("TODO_ALL_DAY", "1")) }
        if let zone = todo.zone { fields.append(("TODO_ZONE", zone)) }
        if let priority = todo.priority { fields.append(("TODO_PRIORITY", priority.rawValue)) }
        return fields
    }

    /// "Todo 12 “牛乳を買う” is due at 2026-12-01 18:00 +09:00."; for an all-day todo "… is due
    /// on 2026-12-01." (its day, read in its own zone: no midnight). The title is shown escaped
    /// (`DisplayText`: no bidi override can reverse the sentence); TODO_TITLE keeps it as stored.
    static func message(_ todo: Todo, timeZone: ZoneInfo) -> String {
        let title = DisplayText.escaped(todo.title)
        guard let due = todo.due else { return "Reminder for todo \(todo.id) “\(title)”." }
        if todo.allDay {
            let zone = todo.zone.flatMap { ZoneInfo(identifier: $0) } ?? timeZone
            return "Todo \(todo.id) “\(title)” is due on \(LocalTime.dateText(days: LocalTime(due, in: zone).days))."
        }
        return "Todo \(todo.id) “\(title)” is due at \(LocalTime(due, in: timeZone).textWithOffset)."
    }

    private static func quoted(_ value: String) -> String {
        value.contains(where: { $0 == " " || $0 == "\"" })
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : value
    }
}

/// Sends each reminder to `watch` subscribers the moment the journal took it, before the
/// scheduler records it (an fsync later): a desktop notifier shows it within milliseconds of its
/// instant. A refused one is not sent; it is retried, and sent when the journal takes it.
final class PublishingReminderSink: ReminderSink, @unchecked Sendable {
    // @unchecked: immutable; the registry is touched only on the I/O queue.
    private let sink: any ReminderSink
    private let ioQueue: DispatchQueue
    private let connections: ConnectionRegistry

    init(_ sink: any ReminderSink, ioQueue: DispatchQueue, connections: ConnectionRegistry) {
        self.sink = sink
        self.ioQueue = ioQueue
        self.connections = connections
    }

    func deliver(_ reminder: FiredReminder) -> Bool {
        guard sink.deliver(reminder) else { return false }
        let connections = self.connections
        ioQueue.async { connections.publishReminder(reminder) }
        return true
    }

    func deliverSummary(_ reminders: [FiredReminder]) -> Bool {
        guard sink.deliverSummary(reminders) else { return false }
        let connections = self.connections
        ioQueue.async { connections.publishReminderSummary(reminders) }
        return true
    }
}
