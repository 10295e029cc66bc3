import TodoCore
import TodoProtocol
import TodoSystemd

/// Reads fired reminders back from the journal for `reminder.list`.
///
/// Matches our MESSAGE_ID and the uid the daemon runs as: the entries this daemon wrote. (Its
/// clients are that user and root only, so this is the caller's own history.)
struct ReminderHistory: Sendable {
    let uid: UInt32

    func list(since: Instant?, limit: Int) throws -> [JSON] {
        guard Journal.isAvailable else {
            throw TodoError.storage("cannot read reminders: there is no journal on this machine (\(Journal.socketPath) is missing); todod wrote them to its standard error")
        }
        let entries: [Journal.Entry]
        do {
            entries = try Journal.read(
                matching: [("MESSAGE_ID", JournalReminderSink.messageID), ("_UID", String(uid))],
                since: since.map { UInt64(max(0, $0.usec)) }, limit: limit,
                fields: ["TODO_ID", "TODO_TITLE", "TODO_CATEGORY", "TODO_DUE", "TODO_REMIND_USEC", "TODO_LATE_USEC"])
        } catch {
            throw TodoError.storage("cannot read reminders from the journal: \(error)")
        }
        return entries.map { entry in
            let f = entry.fields
            return .object([
                "id": f["TODO_ID"].flatMap { Int64($0) }.map(JSON.int) ?? .null,
                "title": f["TODO_TITLE"].map(JSON.string) ?? .null,
                "category": f["TODO_CATEGORY"].map(JSON.string) ?? .null,
                "due": f["TODO_DUE"].map(JSON.string) ?? .null,
                "remind": JSON(f["TODO_REMIND_USEC"].flatMap { Int64($0) }.map(Instant.init(usec:))),
                "fired": JSON(Instant(usec: Int64(clamping: entry.realtimeUsec))),
                "lateUsec": f["TODO_LATE_USEC"].flatMap { Int64($0) }.map(JSON.int) ?? .null,
            ])
        }
    }
}
