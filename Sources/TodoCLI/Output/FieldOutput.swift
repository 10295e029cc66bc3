import TodoCalendar
import TodoCore
import TodoTime

/// Human output of the v2 fields: priority marks, tag words, the recurring mark, the rule in
/// words and the next occurrences.
extension HumanOutput {
    /// The mark in `list`'s `!` column: `!!!` high, `!!` medium, `!` low.
    static func priorityMark(_ priority: TodoPriority?) -> String {
        switch priority {
        case .high?: "!!!"
        case .medium?: "!!"
        case .low?: "!"
        case nil: ""
        }
    }

    /// The mark in `list`'s `✓` column of an open recurring todo (one column wide).
    static let recurringMark = "↻"

    /// The title followed by the tags as `+tag` words: `牛乳を買う +home +急ぎ`. Stored text is
    /// made safe by the table (`Table.oneLine`); tags never hold white space.
    static func titleWithTags(_ todo: Todo) -> String {
        todo.tags.isEmpty ? todo.title : todo.title + " " + tagWords(todo.tags)
    }

    /// `+home +急ぎ`.
    static func tagWords(_ tags: [String]) -> String { tags.map { "+" + $0 }.joined(separator: " ") }

    /// A todo's rule in words (`every week on Monday and Thursday`), in the todo's zone.
    func ruleWords(_ todo: Todo) -> String {
        guard let recurrence = todo.recurrence else { return "" }
        // A done todo whose count is used up has no "1 more time" left: the series is finished.
        if todo.done, var rule = try? RecurrenceRule(parsing: recurrence.rule), rule.count == 1 {
            rule.count = nil
            return rule.words(fromCompletion: recurrence.from == .completion, zone: zone(of: todo))
                + ", finished (the last time is done)"
        }
        return Recurrence.words(recurrence, zone: zone(of: todo))
    }

    /// The zone a todo's dates are computed in: its own when this machine knows it, else ours.
    func zone(of todo: Todo) -> ZoneInfo {
        guard let name = todo.zone, name != zoneName, let zone = ZoneInfo(identifier: name) else { return timeZone }
        return zone
    }

    /// The zone a todo's rule is computed in: its own, or UTC for a timed todo without one (a
    /// rule anchored in UTC), as the daemon advances it.
    func ruleZone(of todo: Todo) -> ZoneInfo { todo.zone == nil && !todo.allDay ? .utc : zone(of: todo) }

    /// The occurrences after `due` of a recurring todo that follows its schedule (`from: due`),
    /// at most `limit`; none for one counted from its completion or without a due date.
    func nextOccurrences(_ todo: Todo, limit: Int = 3) -> [Instant] {
        guard let recurrence = todo.recurrence, let due = todo.due else { return [] }
        // The occurrences of its set: EXDATEs left out, RDATEs in, anchored at its start (RFC 5545's DTSTART).
        return Recurrence.laterDues(
            recurrence, due: due, start: todo.start, zone: ruleZone(of: todo), allDay: todo.allDay,
            limit: limit)
    }

    /// A todo's start: its date (all-day) or local time, and how far off it is while it has not come.
    func startText(_ todo: Todo, _ start: Instant) -> String {
        let text = startDate(todo, start)
        return isFutureStart(todo, start) ? text + " (" + dueRelative(todo, start) + ")" : text
    }

    /// A start as `list` and `show` print it: the date of an all-day todo (in its zone), else the
    /// local time, or only the date at local midnight (`--start 2099-05-01`: no time was given).
    func startDate(_ todo: Todo, _ start: Instant) -> String {
        if todo.allDay { return LocalTime.dateText(days: LocalTime(start, in: zone(named: todo.zone)).days) }
        let local = LocalTime(start, in: timeZone)
        return local.secondOfDay == 0 ? LocalTime.dateText(days: local.days) : local.text
    }

    /// An open todo whose start has not come: `list --ready` leaves it out.
    func isFutureStart(_ todo: Todo, _ start: Instant) -> Bool { start > now && !todo.done }

    /// `list`'s two START cells: the start as DUE shows a due, and how far off it is (`in 3d`,
    /// `tomorrow`) while it has not come, which marks a todo not ready yet; empty cells without one.
    func startCells(_ todo: Todo) -> [String] {
        guard let start = todo.start else { return ["", ""] }
        return [startDate(todo, start), isFutureStart(todo, start) ? dueRelative(todo, start) : ""]
    }

    /// `show`'s Parent and Subtasks lines: the subtasks one per line, `✓` for a done one.
    func subtaskDetails(_ todo: Todo, _ subtasks: [Todo]) -> [(String, String)] {
        var pairs: [(String, String)] = []
        if let parent = todo.parent { pairs.append(("Parent", "\(parent)")) }
        if let uid = todo.parentUid { pairs.append(("Parent", Table.oneLine(uid) + " (not here yet)")) }
        if !subtasks.isEmpty {
            pairs.append(
                (
                    "Subtasks",
                    subtasks.map { "\($0.id) " + ($0.done ? "✓ " : "") + Table.oneLine($0.title) }.joined(
                        separator: "\n")
                ))
        }
        return pairs
    }

    /// `show`'s Priority and Tags lines.
    func labelDetails(_ todo: Todo) -> [(String, String)] {
        [
            ("Priority", todo.priority?.rawValue ?? "-"),
            ("Tags", todo.tags.isEmpty ? "-" : Table.oneLine(HumanOutput.tagWords(todo.tags)))
        ]
    }

    /// `show`'s lines about the schedule: Zone (when it is not ours), Repeats and the next
    /// occurrences (Then).
    func scheduleDetails(_ todo: Todo) -> [(String, String)] {
        var pairs: [(String, String)] = []
        if let name = todo.zone, name != zoneName {
            var text = Table.oneLine(name)
            if let due = todo.due, let zone = ZoneInfo(identifier: name) {
                text += " (due " + LocalTime(due, in: zone).text + " there)"
            }
            pairs.append(("Zone", text))
        }
        if todo.recurrence != nil {
            pairs.append(("Repeats", Table.oneLine(ruleWords(todo))))
            let next = nextOccurrences(todo)
            if !next.isEmpty {
                pairs.append(("Then", next.map { occurrenceText(todo, $0) }.joined(separator: "\n")))
            }
        }
        return pairs
    }

    /// An occurrence of `todo`: its local date and time, or for an all-day todo its date (in
    /// the todo's zone, where the day is).
    func occurrenceText(_ todo: Todo, _ instant: Instant) -> String {
        guard todo.allDay else { return LocalTime(instant, in: timeZone).text }
        return String(LocalTime(instant, in: zone(of: todo)).text.prefix(10))
    }

    /// `done` on a recurring todo that moved on: "Advanced 3 to 2026-12-08 09:00 (in 7d): 掃除".
    func advanced(_ todo: Todo) -> String {
        "Advanced \(todo.id)"
            + (todo.due.map { " to " + occurrenceText(todo, $0) + " (" + TerminalText.relative($0, now: now) + ")" }
                ?? "")
            + ": " + Table.oneLine(todo.title)
    }
}
