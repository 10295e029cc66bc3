import TodoCore
import TodoProtocol
import TodoTime

/// Human-readable output: tables, confirmations and `Label: value` blocks, coloured only when
/// `colour` is true.
struct HumanOutput {
    var now: Instant
    var timeZone: ZoneInfo
    var colour: Bool
    /// Lines are cut to this many columns (the terminal's width), or never when nil.
    var maxWidth: Int?
    /// Zones of todos entered elsewhere, read once each.
    let zones = ZoneCache()
    /// The IANA name of `timeZone`, when known: `show` names a todo's zone only when it differs.
    var zoneName: String?

    // MARK: ANSI

    static let bold = "\u{1B}[1m"
    static let dim = "\u{1B}[2m"
    static let red = "\u{1B}[31m"
    static let yellow = "\u{1B}[33m"
    static let green = "\u{1B}[32m"
    static let reset = "\u{1B}[0m"

    /// `text` wrapped in `code` when colour is on.
    func paint(_ text: String, _ code: String) -> String {
        colour && !text.isEmpty ? code + text + HumanOutput.reset : text
    }

    // MARK: Times

    /// "2026-12-01 09:00 (in 2h)".
    func when(_ instant: Instant) -> String {
        LocalTime(instant, in: timeZone).text + " (" + TerminalText.relative(instant, now: now) + ")"
    }

    /// The zone a todo's all-day date is read in: its own (`zone`), or the local one.
    func zone(named name: String?) -> ZoneInfo {
        guard let name else { return timeZone }
        return zones.zone(name) ?? timeZone
    }

    /// The local day (days since 1970-01-01) an all-day todo is due on: read in its own zone.
    func dueDay(_ todo: Todo, _ due: Instant) -> Int64 { LocalTime(due, in: zone(named: todo.zone)).days }

    /// The due date or time: "2026-12-24" for an all-day todo, else "2026-12-24 17:00".
    func dueText(_ todo: Todo, _ due: Instant) -> String {
        todo.allDay ? LocalTime.dateText(days: dueDay(todo, due)) : LocalTime(due, in: timeZone).text
    }

    /// "today", "tomorrow", "in 3d", "2d overdue" for an all-day todo (by local days); else
    /// "in 2h", "5m overdue".
    func dueRelative(_ todo: Todo, _ due: Instant) -> String {
        guard todo.allDay else { return TerminalText.relative(due, now: now) }
        let today = LocalTime(now, in: timeZone).days
        switch dueDay(todo, due) - today {
        case 0: return "today"
        case 1: return "tomorrow"
        default:
            return TerminalText.relative(
                Instant(seconds: dueDay(todo, due) * 86_400), now: Instant(seconds: today * 86_400))
        }
    }

    /// Past due: after the due time, or for an all-day todo once its day has ended here.
    func isOverdue(_ todo: Todo, _ due: Instant) -> Bool {
        todo.allDay ? dueDay(todo, due) < LocalTime(now, in: timeZone).days : due < now
    }

    /// A duration in seconds as "2d 3h", "3h 12m", "4m 5s" or "12s".
    static func duration(seconds: Int64) -> String {
        let s = max(seconds, 0)
        let units: [(Int64, String)] = [(86_400, "d"), (3600, "h"), (60, "m"), (1, "s")]
        var parts: [String] = []
        var rest = s
        for (size, name) in units where rest >= size || (parts.isEmpty && size == 1) {
            parts.append("\(rest / size)\(name)")
            rest %= size
            if parts.count == 2 { break }
        }
        // Only leading non-zero units: "2h 0m" reads fine, but drop a trailing "0s".
        if parts.count == 2, parts[1].hasPrefix("0") { parts.removeLast() }
        return parts.joined(separator: " ")
    }

    // MARK: Todos

    /// The `list` table. With `sections`, rows are grouped under a header line per section and
    /// the CATEGORY column is left out; columns stay aligned across sections.
    func todoTable(_ todos: [Todo], sections: [(title: String, todos: [Todo])]? = nil, rules: Bool = false) -> [String]
    {
        var layout: ListLayout?
        return todoTable(todos, sections: sections, layout: &layout, rules: rules)
    }

    /// The shape of a `list` table printed in parts: which optional columns it has and how wide
    /// each column is, both decided by its first part.
    struct ListLayout {
        /// The `!` (priority) column is there.
        var priority: Bool
        /// The START columns (the start and how far off it is) are there.
        var start: Bool
        /// The width of each column, in display order.
        var widths: [Int]
    }

    /// The `list` table printed in parts: the first call (with `layout` nil) prints the header and
    /// sets `layout` from its rows, with the ID and POS columns wide enough for `numbersUpTo`;
    /// later calls print rows only, in that layout. The `!` (priority) column is there when the
    /// first part has a todo with a priority, the START columns when it has one with a start
    /// (`startCells`); `rules` adds the REPEATS column (`list --recurring`). `depths` indents a
    /// subtask's title under its parent's (a tree listing).
    func todoTable(
        _ todos: [Todo], sections: [(title: String, todos: [Todo])]? = nil, layout: inout ListLayout?,
        numbersUpTo: Int = 0, rules: Bool = false, depths: [Int64: Int] = [:]
    ) -> [String] {
        let ordered = sections.map { $0.flatMap(\.todos) } ?? todos
        let priority = layout?.priority ?? ordered.contains { $0.priority != nil }
        let start = layout?.start ?? ordered.contains { $0.start != nil }
        var columns = [
            Table.Column("ID", alignment: .right), Table.Column("POS", alignment: .right),
            Table.Column("✓"), Table.Column("DUE"), Table.Column("")
        ]
        if start { columns += [Table.Column("START"), Table.Column("")] }
        if priority { columns.append(Table.Column("!")) }
        if sections == nil { columns.append(Table.Column("CATEGORY", flexible: true)) }
        if rules { columns.append(Table.Column("REPEATS", flexible: true)) }
        columns.append(Table.Column("TITLE", flexible: true))
        var table = Table(columns: columns)
        for todo in ordered {
            var row = [
                "\(todo.id)", todo.position.map { "\($0)" } ?? "",
                todo.done ? "✓" : todo.recurrence == nil ? "" : HumanOutput.recurringMark,
                todo.due.map { dueText(todo, $0) } ?? "",
                todo.due.map { todo.done ? "" : dueRelative(todo, $0) } ?? ""
            ]
            if start { row += startCells(todo) }
            if priority { row.append(HumanOutput.priorityMark(todo.priority)) }
            if sections == nil { row.append(todo.category ?? "") }
            if rules { row.append(ruleWords(todo)) }
            row.append(String(repeating: "  ", count: min(depths[todo.id] ?? 0, 20)) + HumanOutput.titleWithTags(todo))
            table.append(row)
        }
        let dueColumns: Set<Int> = [3, 4]
        let startColumns: Set<Int> = start ? [5, 6] : []
        let header = layout == nil
        var fitted = layout?.widths ?? table.columnWidths(maxWidth: maxWidth)
        if layout == nil {
            for column in [0, 1] { fitted[column] = max(fitted[column], String(numbersUpTo).count) }
        }
        layout = ListLayout(priority: priority, start: start, widths: fitted)
        let lines = table.render(
            maxWidth: maxWidth, widths: fitted, header: header,
            style: colour
                ? { row, column, text in
                    guard let row else { return HumanOutput.bold + text + HumanOutput.reset }
                    let todo = ordered[row]
                    if todo.done { return HumanOutput.dim + text + HumanOutput.reset }
                    if dueColumns.contains(column), let due = todo.due, self.isOverdue(todo, due) {
                        return HumanOutput.red + text + HumanOutput.reset
                    }
                    if startColumns.contains(column), let start = todo.start, self.isFutureStart(todo, start) {
                        return HumanOutput.yellow + text + HumanOutput.reset
                    }
                    return text
                } : nil)
        guard let sections else { return lines }
        var out = [lines.first ?? ""]
        var next = 1
        for (i, section) in sections.enumerated() where !section.todos.isEmpty {
            if i > 0 && out.count > 1 { out.append("") }
            out.append(paint(section.title, HumanOutput.bold))
            for _ in section.todos where next < lines.count {
                out.append(lines[next])
                next += 1
            }
        }
        return out
    }

    /// `show`: aligned `Label: value` lines. A done todo's times have no relative hint, and its
    /// reminder is marked as off (it fires only if the todo is reopened).
    func todoDetails(_ todo: Todo, subtasks: [Todo] = []) -> [String] {
        var pairs: [(String, String)] = [("ID", "\(todo.id)"), ("Title", Table.oneLine(todo.title))]
        if todo.done {
            pairs.append(
                (
                    "Status",
                    paint("done", HumanOutput.green)
                        + (todo.completed.map { " since " + LocalTime($0, in: timeZone).text } ?? "")
                ))
        } else {
            pairs.append(("Status", "open"))
        }
        pairs.append(("Position", todo.position.map { "\($0)" } ?? "- (kept for when it is reopened)"))
        pairs.append(("Category", todo.category.map(Table.oneLine) ?? "-"))
        pairs += labelDetails(todo)
        if let due = todo.due {
            if todo.done {
                pairs.append(("Due", dueText(todo, due)))
            } else {
                let text = dueText(todo, due) + " (" + dueRelative(todo, due) + ")"
                pairs.append(("Due", isOverdue(todo, due) ? paint(text, HumanOutput.red) : text))
            }
        } else {
            pairs.append(("Due", "-"))
        }
        if let start = todo.start { pairs.append(("Start", startText(todo, start))) }
        pairs += scheduleDetails(todo)
        var remind = "-"
        if let instant = todo.remind {
            if let reminded = todo.reminded {
                remind = LocalTime(instant, in: timeZone).text + ", fired " + LocalTime(reminded, in: timeZone).text
            } else if todo.done {
                remind = LocalTime(instant, in: timeZone).text + " (off while done)"
            } else {
                remind = when(instant)
            }
        }
        pairs.append(("Remind", remind))
        // Each alarm, when there is more to say than the one reminder above.
        if todo.alarms.count > 1
            || todo.alarms.contains(where: { $0.repeatCount > 0 || $0.acknowledged != nil || !$0.acts })
        {
            pairs.append(
                ("Alarms", todo.alarms.enumerated().map { alarmText($1, index: $0, todo) }.joined(separator: "\n")))
        }
        pairs.append(("Created", LocalTime(todo.created, in: timeZone).text))
        pairs.append(("Updated", LocalTime(todo.updated, in: timeZone).text))
        pairs.append(("Revision", "\(todo.revision)"))
        pairs += subtaskDetails(todo, subtasks)
        if let notes = todo.notes, !notes.isEmpty {
            pairs.append(
                (
                    "Notes",
                    notes.split(separator: "\n", omittingEmptySubsequences: false).map { Table.oneLine(String($0)) }
                        .joined(separator: "\n")
                ))
        }
        return labelled(pairs)
    }

    /// `Label: value` lines with the values aligned; a multi-line value continues under itself.
    /// Values are printed as given: stored text in them must already be made safe (`Table.oneLine`,
    /// line by line), so that this function leaves todoctl's own colour codes alone.
    func labelled(_ pairs: [(String, String)], alignRight: Bool = false) -> [String] {
        let width = (pairs.map { TerminalText.width($0.0) }.max() ?? 0) + 1
        var lines: [String] = []
        for (label, value) in pairs {
            let head = TerminalText.pad(label + ":", to: width, alignRight: alignRight) + " "
            for (i, line) in value.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let text = (i == 0 ? paint(head, HumanOutput.bold) : String(repeating: " ", count: width + 1)) + line
                lines.append(TerminalText.droppingTrailingSpaces(text))
            }
        }
        return lines
    }

    /// "12: 牛乳を買う (due in 2h)".
    func summary(_ todo: Todo) -> String {
        var text = "\(todo.id): \(Table.oneLine(todo.title))"
        if let category = todo.category { text += " [\(Table.oneLine(category))]" }
        if let due = todo.due, !todo.done { text += " (due \(dueRelative(todo, due)))" }
        return text
    }

    // MARK: Categories

    /// A table's header in bold when colours are on; nil (no styling) when they are off.
    var headerStyle: ((Int?, Int, String) -> String)? {
        colour ? { row, _, text in row == nil ? HumanOutput.bold + text + HumanOutput.reset : text } : nil
    }

    func categoryTable(_ categories: [Category]) -> [String] {
        var table = Table(columns: [
            Table.Column("POS", alignment: .right), Table.Column("NAME", flexible: true),
            Table.Column("OPEN", alignment: .right), Table.Column("DONE", alignment: .right)
        ])
        for c in categories { table.append(["\(c.position)", c.name, "\(c.open)", "\(c.done)"]) }
        return table.render(
            maxWidth: maxWidth,
            style: headerStyle)
    }

    /// "1. 15m before due: 2026-12-07 08:45, every 10m ×6, dismissed 2026-12-07 08:50".
    func alarmText(_ alarm: Alarm, index: Int, _ todo: Todo) -> String {
        func span(_ usec: Int64) -> String {
            let m = usec.magnitude / 60_000_000
            if m == 0 { return "\(usec.magnitude / 1_000_000)s" }
            if m % (24 * 60) == 0 { return "\(m / (24 * 60))d" }
            if m % 60 == 0 { return "\(m / 60)h" }
            return m >= 60 ? "\(m / 60)h\(m % 60)m" : "\(m)m"
        }
        var text = "\(index + 1). "
        switch alarm.trigger {
        case .due(let o): text += o == 0 ? "at due" : span(o) + (o < 0 ? " before due" : " after due")
        case .start(let o): text += o == 0 ? "at start" : span(o) + (o < 0 ? " before start" : " after start")
        case .at: text += "at"
        }
        if !alarm.acts { return text + " (kept from iCalendar, not fired here)" }
        if let t = alarm.triggerInstant(due: todo.due, start: todo.start) {
            text += ": " + LocalTime(t, in: timeZone).text
        }
        if alarm.repeatCount > 0 { text += ", every " + span(alarm.intervalUsec) + " ×\(alarm.repeatCount)" }
        if let t = alarm.acknowledged { text += ", dismissed " + LocalTime(t, in: timeZone).text }
        if let t = alarm.snoozedUntil { text += ", snoozed to " + LocalTime(t, in: timeZone).text }
        return text
    }

    // MARK: Reminders

    /// One fired reminder as the daemon reports it.
    struct Reminder {
        var id: Int64
        var title: String
        var category: String?
        var due: Instant?
        var fired: Instant?
        var lateUsec: Int64
        /// An all-day todo: its due is a day (read in `zone`), not a time.
        var allDay = false
        var zone: String?

        /// The row of a fired reminder; one without id or title is malformed.
        init(_ record: ReminderRecord) throws(DecodingError) {
            guard let id = record.id, let title = record.title else { throw DecodingError("malformed reminder object") }
            self.id = id
            self.title = title
            category = record.category
            due = record.due.flatMap(Instant.init(rfc3339:))
            fired = record.fired
            allDay = record.allDay
            zone = record.zone
            lateUsec = record.lateUsec ?? 0
        }
    }

    func reminderTable(_ reminders: [Reminder]) -> [String] {
        var table = Table(columns: [
            Table.Column("FIRED"), Table.Column("LATE", alignment: .right),
            Table.Column("ID", alignment: .right), Table.Column("DUE"),
            Table.Column("CATEGORY", flexible: true), Table.Column("TITLE", flexible: true)
        ])
        for r in reminders {
            table.append([
                r.fired.map { LocalTime($0, in: timeZone).text } ?? "",
                HumanOutput.late(r.lateUsec), "\(r.id)",
                r.due.map {
                    r.allDay
                        ? LocalTime.dateText(days: LocalTime($0, in: zone(named: r.zone)).days)
                        : LocalTime($0, in: timeZone).text
                } ?? "",
                r.category ?? "", r.title
            ])
        }
        return table.render(
            maxWidth: maxWidth,
            style: headerStyle)
    }

    /// `undo --list`: SEQ, WHEN, KIND, what `undo` or `redo` would do to it, and the description.
    func historyTable(_ changes: [HistoryEntry]) -> [String] {
        var table = Table(columns: [
            Table.Column("SEQ", alignment: .right), Table.Column("WHEN"), Table.Column("KIND"),
            Table.Column("CAN"), Table.Column("CHANGE", flexible: true)
        ])
        for c in changes {
            table.append([
                "\(c.seq)", LocalTime(c.at, in: timeZone).text, c.kind.rawValue,
                c.canUndo ? "undo" : c.canRedo ? "redo" : "", c.description
            ])
        }
        return table.render(
            maxWidth: maxWidth,
            style: headerStyle)
    }

    /// "on time" under a second, else "3m 2s".
    static func late(_ usec: Int64) -> String {
        usec < 1_000_000 ? "on time" : duration(seconds: usec / 1_000_000)
    }

    // MARK: Status

    func status(_ status: DaemonStatus) -> [String] {
        let version = status.version
        var pairs: [(String, String)] = []
        if let pid = status.pid { pairs.append(("PID", "\(pid)")) }
        let uptime: Int64? = status.uptime.flatMap { $0 >= 0 && $0 < 9e15 ? Int64($0) : nil }
        if let uptime {
            let since = LocalTime(
                now.adding(usec: -uptime.multipliedReportingOverflow(by: 1_000_000).partialValue), in: timeZone
            ).text
            pairs.append(
                (
                    "Active",
                    paint("running", HumanOutput.green)
                        + " since \(since); \(HumanOutput.duration(seconds: uptime)) ago"
                ))
        }
        if let database = status.database { pairs.append(("Database", Table.oneLine(database))) }
        if let storeID = status.storeID { pairs.append(("Store", Table.oneLine(storeID))) }
        if let seq = status.seq { pairs.append(("Last change", "#\(seq)")) }
        let problem = status.databaseProblem
        if let problem { pairs.append(("Problem", paint(Table.oneLine(problem), HumanOutput.red))) }
        let open = status.open.map(String.init) ?? "?"
        let done = status.done.map(String.init) ?? "?"
        pairs.append(("Todos", "\(open) open, \(done) done"))
        if let next = status.nextReminder {
            pairs.append(("Next reminder", when(next)))
        } else {
            pairs.append(("Next reminder", "none"))
        }
        return [paint("●", problem == nil ? HumanOutput.green : HumanOutput.red) + " todod \(Table.oneLine(version))"]
            + labelled(pairs, alignRight: true).map { "  " + $0 }
    }

    // MARK: Events

    /// One line for a `watch` event; unknown types are printed generically. Stored text is made
    /// safe piece by piece (`summary`, `Table.oneLine`), leaving the colour of "reminder" intact.
    /// Relative times are seen from `now`: `watch` passes the time the event arrived.
    func event(_ json: JSON) -> String {
        let event = WatchEvent(params: json)
        // The change's seq first (`#12`), the number `watch --since` resumes after.
        guard let seq = event.seq else { return eventText(event) }
        var rest = json.objectValue ?? JSONObject()
        rest["seq"] = nil
        var shown = event
        shown.json = .object(rest)
        return paint("#\(seq)", HumanOutput.dim) + " " + eventText(shown)
    }

    private func eventText(_ event: WatchEvent) -> String {
        let type = event.kind?.name ?? "event"
        func raw(_ value: JSON?) -> String { Table.oneLine(value?.serialized() ?? "") }
        switch event.kind {
        case .known(.reminder)?:
            if let todo = event.todos.first {
                let late = event.lateUsec ?? 0
                return paint("reminder", HumanOutput.yellow) + " " + summary(todo)
                    + (late >= 1_000_000 ? ", \(HumanOutput.late(late)) late" : "")
            }
            return "reminder " + raw(event.json)
        case _ where type.hasPrefix("todo.") && event.hasTodos:
            let verb = Table.oneLine(String(type.dropFirst("todo.".count)))
            return "\(verb) "
                + (event.todos.isEmpty ? raw(event.json["todos"]) : event.todos.map(summary).joined(separator: "; "))
        case .known(.categoryRenamed)?:
            let name = event.category?.name ?? "?"
            return "category renamed: \(Table.oneLine(event.oldName ?? "?")) → \(Table.oneLine(name))"
        case _ where type.hasPrefix("category."):
            let verb = Table.oneLine(String(type.dropFirst("category.".count)))
            return "category \(verb): " + (event.category?.name.map(Table.oneLine) ?? raw(event.json))
        default:
            var rest = event.json.objectValue ?? JSONObject()
            rest["type"] = nil
            return "\(Table.oneLine(type)) \(raw(.object(rest)))"
        }
    }
}

/// Zones by IANA name, each read from the tz database once per run (a listing may name one zone
/// on many rows).
final class ZoneCache {
    private var zones: [String: ZoneInfo?] = [:]

    /// The zone `name` names, nil when the database has no readable zone by that name.
    func zone(_ name: String) -> ZoneInfo? {
        if let known = zones[name] { return known }
        let zone = ZoneInfo(identifier: name)
        zones[name] = zone
        return zone
    }
}
