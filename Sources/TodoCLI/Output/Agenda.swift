import TodoCalendar
import TodoCore
import TodoProtocol
import TodoTime

/// `agenda [--days N]`: the open todos that are overdue, then each of the next N local days with
/// the todos due on it and the occurrences of recurring todos (TodoCalendar, in each todo's
/// zone). Built from ONE `todo.list` answer (open todos due before the end of the window).
struct Agenda {
    /// One line of a day: a todo at its current `due` or at a later occurrence of its rule.
    struct Item {
        /// The todo's index in the answer.
        var todo: Int
        /// The instant of this occurrence (the todo's `due` when `current`).
        var at: Instant
        /// False for a later occurrence of a recurring todo (it becomes `due` once the earlier
        /// ones are completed).
        var current: Bool
        /// The todo starts then (its `start`), rather than being due.
        var starts = false
    }

    struct Day {
        /// Days since 1970-01-01 (local).
        var date: Int64
        var items: [Item]
    }

    /// The todos of the answer, in its order.
    var todos: [Todo]
    /// Each todo's own zone (its `zone`, else the viewer's).
    var zones: [ZoneInfo]
    /// Indexes of open todos whose due has passed (an all-day todo: whose day has ended), by due.
    var overdue: [Int]
    var days: [Day]
    /// The window: the start of today and the start of the day after the last one.
    var from: Instant, through: Instant

    /// The most days `--days` takes.
    static let maxDays = 366

    /// The query the agenda is built from: open todos due before `end`, by due.
    static func query(end: Instant) -> TodoQuery {
        var query = TodoQuery()
        query.status = .open
        query.dueBefore = end
        query.sort = [TodoQuery.SortKey(.due), TodoQuery.SortKey(.id)]
        return query
    }

    /// The first local day of the window (today) and the instant after its last day.
    static func window(now: Instant, zone: ZoneInfo, days: Int) -> (first: Int64, start: Instant, end: Instant) {
        let today = LocalTime(now, in: zone).days
        let start = LocalTime.instant(days: today, secondOfDay: 0, in: zone) ?? now
        let end = LocalTime.instant(days: today + Int64(days), secondOfDay: 0, in: zone) ?? Instant.latest
        return (today, start, end)
    }

    /// The query for the todos that start in the window (`start` to `end`), by start.
    static func startQuery(start: Instant, end: Instant) -> TodoQuery {
        var query = TodoQuery()
        query.status = .open
        query.startAfter = start
        query.startBefore = end
        query.sort = [TodoQuery.SortKey(.start), TodoQuery.SortKey(.id)]
        return query
    }

    /// Lays out `todos` over `days` days from `now`'s local day in `zone`, and `starting` (todos
    /// that start in the window) on their start days. A todo's `zone` is used for its recurrence
    /// and all-day dates; `zoneNamed` reads a zone (and may cache).
    init(
        todos due: [Todo], starting: [Todo] = [], now: Instant, zone: ZoneInfo, days count: Int,
        zoneNamed: (String) -> ZoneInfo?
    ) {
        let todos = due + starting
        self.todos = todos
        zones = todos.map { $0.zone.flatMap(zoneNamed) ?? zone }
        let (today, start, end) = Agenda.window(now: now, zone: zone, days: count)
        from = start
        through = end
        overdue = []
        var byDay: [Int64: [Item]] = [:]
        for (index, todo) in todos.enumerated() where index >= due.count {
            guard !todo.done, let starts = todo.start, starts >= start, starts < end else { continue }
            let day = todo.allDay ? LocalTime(starts, in: zones[index]).days : LocalTime(starts, in: zone).days
            byDay[day, default: []].append(Item(todo: index, at: starts, current: true, starts: true))
        }
        for (index, todo) in todos.enumerated() where index < due.count {
            guard !todo.done, let due = todo.due else { continue }
            let own = zones[index]
            /// The local day an occurrence falls on: an all-day todo's date in its own zone,
            /// otherwise the viewer's day.
            func day(_ t: Instant) -> Int64 { todo.allDay ? LocalTime(t, in: own).days : LocalTime(t, in: zone).days }
            let isOverdue = todo.allDay ? day(due) < today : due < now
            if isOverdue {
                overdue.append(index)
            } else if due < end {
                byDay[day(due), default: []].append(Item(todo: index, at: due, current: true))
            }
            guard let recurrence = todo.recurrence else { continue }
            // Later occurrences of its set (only `from: due` rules have a schedule to show; an
            // `after done` one's next date depends on when it is done).
            // A timed todo without a zone recurs in UTC, as the daemon advances it.
            let ruleZone = todo.zone == nil && !todo.allDay ? ZoneInfo.utc : own
            for t in Recurrence.laterDues(
                recurrence, due: due, start: todo.start, zone: ruleZone, allDay: todo.allDay,
                from: max(due.adding(usec: 1), start), through: end.adding(usec: -1),
                limit: count + 2)
            {
                let d = day(t)
                guard d >= today, d < today + Int64(count) else { continue }
                byDay[d, default: []].append(Item(todo: index, at: t, current: false))
            }
        }
        overdue.sort { (todos[$0].due!, todos[$0].id) < (todos[$1].due!, todos[$1].id) }
        self.days = (0..<Int64(count)).map { offset in
            let items = (byDay[today + offset] ?? []).sorted {
                (todos[$0.todo].allDay ? 0 : 1, $0.at, todos[$0.todo].id) < (
                    todos[$1.todo].allDay ? 0 : 1, $1.at, todos[$1.todo].id
                )
            }
            return Day(date: today + offset, items: items)
        }
    }

    /// The `--json` document: `{"from", "through", "overdue": [todo...], "days": [{"date",
    /// "items": [{"at", "current", "todo"}]}]}`, the todos as the daemon sent them.
    func json(raw: [JSON]) -> JSON {
        func item(_ i: Item) -> JSON {
            var o: JSONObject = ["at": .string(i.at.rfc3339()), "current": .bool(i.current), "todo": raw[i.todo]]
            if i.starts { o["starts"] = .bool(true) }
            return .object(o)
        }
        let dayValues: [JSON] = days.map { day in
            let (y, m, d) = Instant.civil(days: day.date)
            let date = "\(Agenda.pad(y, 4))-\(Agenda.pad(m, 2))-\(Agenda.pad(d, 2))"
            return .object(["date": .string(date), "items": .array(day.items.map(item))])
        }
        return .object([
            "from": .string(from.rfc3339()), "through": .string(through.rfc3339()),
            "overdue": .array(overdue.map { raw[$0] }), "days": .array(dayValues)
        ])
    }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}

extension HumanOutput {
    /// The agenda: an "Overdue" section, then one section per day ("Tue 2026-12-01 today"),
    /// rows aligned across all sections (wide characters included); a recurring todo is marked ↻,
    /// a later occurrence of it (not yet its `due`) is dimmed.
    func agenda(_ agenda: Agenda) -> [String] {
        var table = Table(columns: [
            Table.Column("ID", alignment: .right), Table.Column("TIME"), Table.Column(""),
            Table.Column("CATEGORY", flexible: true), Table.Column("TITLE", flexible: true)
        ])
        struct Row {
            var todo: Int
            var current: Bool
            var overdue: Bool
        }
        var rows: [Row] = []
        func add(_ index: Int, at: Instant, current: Bool, overdue: Bool, starts: Bool = false) {
            let todo = agenda.todos[index]
            let local = LocalTime(at, in: todo.allDay ? agenda.zones[index] : timeZone)
            let time: String
            if overdue {
                time = todo.allDay ? String(local.text.prefix(10)) : local.text
            } else {
                time = todo.allDay ? "all day" : String(local.text.suffix(5))
            }
            let mark =
                (todo.recurrence != nil ? "↻" : "") + (overdue ? " " + TerminalText.relative(at, now: now) : "")
                + (starts ? " starts" : "")
            table.append(["\(todo.id)", time, mark.trimmingPrefixSpace, todo.category ?? "", todo.title])
            rows.append(Row(todo: index, current: current, overdue: overdue))
        }
        for index in agenda.overdue { add(index, at: agenda.todos[index].due!, current: true, overdue: true) }
        for day in agenda.days {
            for item in day.items {
                add(item.todo, at: item.at, current: item.current, overdue: false, starts: item.starts)
            }
        }
        let lines = table.render(
            maxWidth: maxWidth,
            style: colour
                ? { row, column, text in
                    guard let row else { return HumanOutput.bold + text + HumanOutput.reset }
                    if rows[row].overdue && (column == 1 || column == 2) {
                        return HumanOutput.red + text + HumanOutput.reset
                    }
                    if !rows[row].current { return HumanOutput.dim + text + HumanOutput.reset }
                    return text
                } : nil)
        var out = [lines.first ?? ""]
        var next = 1
        func section(_ title: String, _ count: Int) {
            if out.count > 1 { out.append("") }
            out.append(paint(title, HumanOutput.bold))
            if count == 0 { out.append(paint("  nothing due", HumanOutput.dim)) }
            for _ in 0..<count where next < lines.count {
                out.append(lines[next])
                next += 1
            }
        }
        if !agenda.overdue.isEmpty { section("Overdue", agenda.overdue.count) }
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        for (offset, day) in agenda.days.enumerated() {
            let (y, m, d) = Instant.civil(days: day.date)
            var title =
                "\(names[Weekday(days: day.date).rawValue]) \(Agenda.pad(y, 4))-\(Agenda.pad(m, 2))-\(Agenda.pad(d, 2))"
            if offset == 0 { title += " today" } else if offset == 1 { title += " tomorrow" }
            section(title, day.items.count)
        }
        return out
    }
}

extension String {
    fileprivate var trimmingPrefixSpace: String { hasPrefix(" ") ? String(dropFirst()) : self }
}

extension Runner {
    /// `agenda --days N`: one `todo.list` request, laid out locally.
    func agenda(days: Int) throws(CLIFailure) {
        let now = human.now
        let window = Agenda.window(now: now, zone: human.timeZone, days: days)
        let (rawPage, page) = try answer(Agenda.query(end: window.end))
        let list = page.todos
        // For `--json`: the todos as the daemon sent them (the page was read whole, one to one).
        let raw = rawPage["todos"]?.arrayValue ?? []
        // The todos that start in the window, on their start days.
        let (rawStarted, started) = try answer(Agenda.startQuery(start: window.start, end: window.end))
        let startRaw = rawStarted["todos"]?.arrayValue ?? []
        let starting = started.todos
        var zones: [String: ZoneInfo?] = [:]
        let agenda = Agenda(todos: list, starting: starting, now: now, zone: human.timeZone, days: days) { name in
            if let cached = zones[name] { return cached }
            let zone = ZoneInfo(identifier: name)
            zones[name] = zone
            return zone
        }
        if json { emit(agenda.json(raw: raw + startRaw)) } else { print(human.agenda(agenda)) }
    }
}
