import TodoCore
import TodoProtocol
import TodoSystemd

/// Where `reminder.list` reads fired reminders back (the journal; a fake in tests).
protocol ReminderHistoryReading: Sendable {
    /// The newest `limit` reminders fired at or after `since`, oldest first, as `reminder.list` rows.
    func list(since: Instant?, limit: Int) throws(TodoError) -> [ReminderRecord]
}

/// Reads fired reminders back from the journal for `reminder.list`.
///
/// Only this store's entries as todod wrote them: our MESSAGE_ID, `SYSLOG_IDENTIFIER=todod`, the
/// store's id in `TODO_STORE`, and the trusted fields journald itself adds for the sender — the
/// uid the daemon runs as (`_UID`) and its command name (`_COMM`) — so neither another daemon's
/// store nor an entry another program forged with the same MESSAGE_ID mixes in. (The daemon's
/// clients are its user and root only, so this is the caller's own history.) Runs on the
/// journal-read queue, never on the store queue.
struct ReminderHistory: ReminderHistoryReading {
    let uid: UInt32
    let storeID: String
    /// The daemon's command name as journald records it (`/proc/self/comm`).
    let command: String

    func list(since: Instant?, limit: Int) throws(TodoError) -> [ReminderRecord] {
        guard Journal.isAvailable else {
            throw TodoError.storage(
                "cannot read reminders: there is no journal on this machine (\(Journal.socketPath) is missing); todod wrote them to its standard error"
            )
        }
        let entries: [Journal.Entry]
        do {
            entries = try Journal.read(
                matching: [
                    ("MESSAGE_ID", JournalReminderSink.messageID), ("SYSLOG_IDENTIFIER", "todod"),
                    ("TODO_STORE", storeID), ("_UID", String(uid)), ("_COMM", command)
                ],
                since: since.map { UInt64(max(0, $0.usec)) }, limit: limit,
                fields: [
                    "TODO_ID", "TODO_UID", "TODO_TITLE", "TODO_CATEGORY", "TODO_DUE", "TODO_REMIND_USEC",
                    "TODO_LATE_USEC",
                    "TODO_ALL_DAY", "TODO_ZONE"
                ])
        } catch {
            throw TodoError.storage("cannot read reminders from the journal: \(error)")
        }
        return entries.map { entry in
            let f = entry.fields
            return ReminderRecord(
                id: f["TODO_ID"].flatMap { Int64($0) }, uid: f["TODO_UID"], title: f["TODO_TITLE"],
                category: f["TODO_CATEGORY"],
                due: f["TODO_DUE"], remind: f["TODO_REMIND_USEC"].flatMap { Int64($0) }.map(Instant.init(usec:)),
                fired: Instant(usec: Int64(clamping: entry.realtimeUsec)),
                lateUsec: f["TODO_LATE_USEC"].flatMap { Int64($0) },
                allDay: f["TODO_ALL_DAY"] == "1", zone: f["TODO_ZONE"])
        }
    }
}
