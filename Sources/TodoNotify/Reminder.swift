import TodoCore
import TodoProtocol
import TodoSystemd
import TodoTime

/// One fired reminder as todod wrote it to the journal (docs/REMINDERS.md), with where it is in
/// the journal; or as its `reminder` event on the daemon's `watch` stream brought it first.
package struct Reminder: Sendable, Equatable {
    package var id: Int64
    package var uid: String
    package var title: String
    package var category: String?
    /// TODO_DUE as written (RFC 3339), and as an instant.
    package var dueText: String?
    package var due: Instant?
    /// How late todod fired it against its scheduled instant.
    package var lateUsec: Int64
    /// When journald received the entry (or todod fired it, for an event), microseconds since the epoch.
    package var journalUsec: Int64
    /// The reminder instant it fired for (TODO_REMIND_USEC).
    package var remindUsec: Int64?
    /// An all-day todo: `due` is the start of its day in `zone` (or the user's zone).
    package var allDay = false
    /// The todo's own zone (IANA name), when it has one.
    package var zone: String?
    /// A high-priority todo (`high`).
    package var highPriority = false
    /// The uid of the alarm that fired (TODO_ALARM_UID, or the event's `alarm.uid`); nil for a
    /// snooze's firing or an entry of a todod before alarms had uids.
    package var alarmUid: String?
    /// Where the entry is in the journal; nil for a reminder that came from `watch`.
    package var cursor: String?

    /// The journal fields a reminder is made of.
    static let fields = [
        "TODO_ID", "TODO_UID", "TODO_TITLE", "TODO_CATEGORY", "TODO_DUE", "TODO_DUE_USEC", "TODO_LATE_USEC",
        "TODO_REMIND_USEC", "TODO_ALL_DAY", "TODO_ZONE", "TODO_PRIORITY", "TODO_ALARM_UID"
    ]

    /// What names one firing on both paths: the todo, the instant it was due to remind at and
    /// how late todod fired it (so the instant it fired). A todo reminded again later (snoozed,
    /// advanced) is another firing with another key.
    package var key: String { "\(id):\(remindUsec ?? 0):\(lateUsec)" }

    /// nil for an entry without a valid TODO_ID or TODO_TITLE (not one todod writes).
    init?(_ entry: JournalFollower.Entry) {
        let f = entry.fields
        guard let id = f["TODO_ID"].flatMap({ Int64($0) }), id > 0, let title = f["TODO_TITLE"] else { return nil }
        self.id = id
        uid = f["TODO_UID"] ?? ""
        self.title = title
        category = f["TODO_CATEGORY"].flatMap { $0.isEmpty ? nil : $0 }
        dueText = f["TODO_DUE"]
        due = f["TODO_DUE_USEC"].flatMap { Int64($0) }.map(Instant.init(usec:))
        lateUsec = max(0, f["TODO_LATE_USEC"].flatMap { Int64($0) } ?? 0)
        journalUsec = Int64(clamping: entry.realtimeUsec)
        remindUsec = f["TODO_REMIND_USEC"].flatMap { Int64($0) }
        allDay = f["TODO_ALL_DAY"] == "1"
        zone = f["TODO_ZONE"].flatMap { $0.isEmpty ? nil : $0 }
        highPriority = f["TODO_PRIORITY"] == TodoPriority.high.rawValue
        alarmUid = f["TODO_ALARM_UID"].flatMap { $0.isEmpty ? nil : $0 }
        cursor = entry.cursor
    }

    /// The `params` of a `reminder` event of `watch`; nil for one that is not well formed.
    init?(event params: JSON) {
        let event = WatchEvent(params: params)
        guard let todo = event.todos.first, todo.id > 0, let late = event.lateUsec else { return nil }
        id = todo.id
        uid = todo.uid
        title = todo.title
        category = todo.category.flatMap { $0.isEmpty ? nil : $0 }
        due = todo.due
        dueText = todo.due.map { $0.rfc3339(fractional: true) }
        lateUsec = max(0, late)
        remindUsec = todo.remind?.usec
        journalUsec = event.fired?.usec ?? Instant.now().usec
        allDay = todo.allDay
        zone = todo.zone
        highPriority = todo.priority == .high
        alarmUid = params["alarm"]?["uid"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        cursor = nil
    }

    /// How late it is at `now`: todod's lateness plus the time since it wrote the entry.
    func lateness(at now: Instant) -> Int64 { lateUsec + max(0, now.usec - journalUsec) }

    /// The `--print` line: tab-separated id, uid, due (RFC 3339 or -), lateness in microseconds,
    /// category (or -) and title; a tab, newline or other control character in the text is
    /// written as `\t`, `\n`, `\u{XX}`, and a backslash as `\\`, so one reminder is one line.
    var printLine: String {
        [
            String(id), uid.isEmpty ? "-" : Self.oneLine(uid), dueText.map(Self.oneLine) ?? "-", String(lateUsec),
            category.map(Self.oneLine) ?? "-", Self.oneLine(title)
        ].joined(separator: "\t")
    }

    static func oneLine(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return DisplayText.escaped(out)
    }

    /// The environment an `--exec` program gets on top of the notifier's own.
    var environment: [String: String] {
        var env = ["TODO_ID": String(id), "TODO_UID": uid, "TODO_TITLE": title, "TODO_LATE_USEC": String(lateUsec)]
        env["TODO_CATEGORY"] = category ?? ""
        env["TODO_DUE"] = dueText ?? ""
        return env
    }

    /// The notification's body: when it is due, the category and, for a todo with a time, how
    /// late it is. Times are the user's local time (`zone`) without an offset; a todo kept in
    /// another zone also shows its own wall-clock time there. An all-day todo says `today`,
    /// `tomorrow` or its date (read in its own zone) and never a lateness counted from midnight.
    func body(now: Instant, zone: ZoneInfo) -> String {
        var parts: [String] = []
        if let due {
            let own = self.zone.flatMap { ZoneInfo(identifier: $0) }
            if allDay {
                let day = LocalTime(due, in: own ?? zone).days
                switch day - LocalTime(now, in: zone).days {
                case 0: parts.append("Due today")
                case 1: parts.append("Due tomorrow")
                case let d where d < 0: parts.append("Due " + LocalTime.dateText(days: day) + ", overdue")
                default: parts.append("Due " + LocalTime.dateText(days: day))
                }
            } else {
                var text = "Due " + LocalTime(due, in: zone).text
                if let own, let name = self.zone,
                    own.secondsFromUTC(at: due.seconds) != zone.secondsFromUTC(at: due.seconds)
                {
                    text += " (" + String(LocalTime(due, in: own).text.suffix(5)) + " " + name + ")"
                }
                parts.append(text)
            }
        }
        if let category { parts.append(category) }
        let late = lateness(at: now)
        if !allDay && late >= 60_000_000 { parts.append(Self.describe(late) + " late") }
        return parts.joined(separator: " · ")
    }

    /// Critical only for a high-priority todo, or one more than an hour late against its own
    /// reminder time; an all-day todo counts as late only once its day is over.
    func isCritical(now: Instant, zone: ZoneInfo) -> Bool {
        if highPriority { return true }
        guard lateness(at: now) > 3_600_000_000 else { return false }
        guard allDay else { return true }
        guard let due else { return false }
        let own = self.zone.flatMap { ZoneInfo(identifier: $0) } ?? zone
        return LocalTime(due, in: own).days < LocalTime(now, in: zone).days
    }

    /// "30 s", "3 min", "2 h 5 min", "3 d 4 h".
    static func describe(_ usec: Int64) -> String {
        if usec < 60_000_000 { return "\(usec / 1_000_000) s" }
        let minutes = usec / 60_000_000
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 24 { return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60) min" }
        return hours % 24 == 0 ? "\(hours / 24) d" : "\(hours / 24) d \(hours % 24) h"
    }
}
