import TodoCore
import TodoSystemd
import TodoTime

/// One fired reminder as todod wrote it to the journal (SPEC §6), with where it is in the journal.
public struct Reminder: Sendable, Equatable {
    public var id: Int64
    public var uid: String
    public var title: String
    public var category: String?
    /// TODO_DUE as written (RFC 3339), and as an instant.
    public var dueText: String?
    public var due: Instant?
    /// How late todod fired it against its scheduled instant.
    public var lateUsec: Int64
    /// When journald received the entry, microseconds since the epoch.
    public var journalUsec: Int64
    public var cursor: String

    /// The journal fields a reminder is made of.
    static let fields = ["TODO_ID", "TODO_UID", "TODO_TITLE", "TODO_CATEGORY", "TODO_DUE", "TODO_DUE_USEC", "TODO_LATE_USEC"]

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
        cursor = entry.cursor
    }

    /// How late it is at `now`: todod's lateness plus the time since it wrote the entry.
    func lateness(at now: Instant) -> Int64 { lateUsec + max(0, now.usec - journalUsec) }

    /// The `--print` line: tab-separated id, uid, due (RFC 3339 or -), lateness in microseconds,
    /// category (or -) and title; a tab, newline or other control character in the text is
    /// written as `\t`, `\n`, `\u{XX}`, and a backslash as `\\`, so one reminder is one line.
    var printLine: String {
        [String(id), uid.isEmpty ? "-" : Self.oneLine(uid), dueText.map(Self.oneLine) ?? "-", String(lateUsec),
         category.map(Self.oneLine) ?? "-", Self.oneLine(title)].joined(separator: "\t")
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

    /// The notification's body: due time (in `zone`), category and lateness.
    func body(now: Instant, zone: ZoneInfo) -> String {
        var parts: [String] = []
        if let due { parts.append("Due " + LocalTime(due, in: zone).textWithOffset) }
        if let category { parts.append(category) }
        let late = lateness(at: now)
        if late >= 60_000_000 { parts.append(Self.describe(late) + " late") }
        return parts.joined(separator: " · ")
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
