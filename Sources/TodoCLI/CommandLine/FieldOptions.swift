import TodoCalendar
import TodoCore
import TodoTime
import TodoUserFiles
import TodoWhen

extension Parser.Arguments {
    /// Every value given for a repeatable option, in order (`--tag a --tag b`).
    func values(_ name: String) -> [String] { options.filter { $0.name == name }.compactMap(\.value) }
}

extension Parser {
    /// The accepted spellings of a priority, for error messages.
    static let priorityForms = "high, medium, low (or H, M, L)"

    /// `high`, `medium`, `low` or `H`, `M`, `L`, in any case.
    static func priority(_ text: String) -> TodoPriority? {
        switch text.lowercased() {
        case "high", "h": .high
        case "medium", "m": .medium
        case "low", "l": .low
        default: nil
        }
    }

    func priority(_ text: String, _ option: String, _ command: String) throws(UsageError) -> TodoPriority {
        guard let value = Parser.priority(text) else {
            throw UsageError(
                "invalid priority \(quote(text)) for \(option): expected \(Parser.priorityForms)", command: command)
        }
        return value
    }

    /// The values of a repeatable tag option, each checked as the daemon would (no white space or
    /// commas, at most 64 characters), duplicates (ignoring case) dropped.
    func tags(_ args: Arguments, _ option: String, _ command: String) throws(UsageError) -> [String] {
        var result: [String] = []
        for raw in args.values(option) {
            let tag: String
            do { tag = try Validation.tag(raw, field: "tag") } catch {
                let hint = raw.contains(",") ? "; give \(option) once per tag" : ""
                throw UsageError(
                    "invalid tag \(quote(raw)) for \(option): \(error.invalidReason)\(hint)", command: command)
            }
            if !result.contains(where: { Validation.tagKey($0) == Validation.tagKey(tag) }) { result.append(tag) }
        }
        guard result.count <= Validation.maxTags else {
            throw UsageError("too many tags: at most \(Validation.maxTags) per todo", command: command)
        }
        return result
    }

    /// The filters of `list`: `--tag T`... (all must match), `--priority P`, `--recurring`.
    func listFields(_ args: Arguments, into query: inout TodoQuery) throws(UsageError) {
        query.tags = try tags(args, "--tag", "list")
        query.priority = try args.value("--priority").map { v throws(UsageError) in
            try priority(v, "--priority", "list")
        }
        if args.has("--recurring") { query.recurring = true }
        query.parent = try args.value("--parent").map { v throws(UsageError) in
            try id(v, "todo id for --parent", "list")
        }
        if args.has("--ready") && args.has("--all-starts") {
            throw UsageError("--ready and --all-starts cannot be used together", command: "list")
        }
        // `--all` is all: the configuration's hide-future-starts hides nothing from it.
        query.ready =
            args.has("--ready") || (config.hideFutureStarts && !args.has("--all-starts") && !args.has("--all"))
        // Subtasks under their parents, unless asked for the plain list (or one parent's subtasks).
        query.tree = !args.has("--flat") && query.parent == nil
    }
}

extension TodoError {
    /// The message without the `invalid FIELD: ` it starts with (`must not contain a comma`).
    var invalidReason: String {
        guard let field, message.hasPrefix("invalid \(field): ") else { return message }
        return String(message.dropFirst("invalid \(field): ".count))
    }
}

/// `--every RULE`: the RULE grammar of SPEC §4.1 or a raw RRULE, read by TodoCalendar.
enum Every {
    /// A parsed RULE: what is stored, and the rule to walk for the first occurrence.
    struct Parsed {
        var recurrence: TodoRecurrence
        var rule: RecurrenceRule
    }

    /// Reads `text` (`due`: the first due date, when `--due` gives it; else today counts); a
    /// bad rule is a usage error quoting it and listing the accepted forms.
    static func parse(_ text: String, due: Instant?, now: Instant, timeZone: ZoneInfo, command: String)
        throws(UsageError) -> Parsed
    {
        let anchor = LocalTime(due ?? now, in: timeZone).days
        do {
            let every = try EveryGrammar.parse(text, anchor: anchor, zone: timeZone) { when in
                try until(when, now: now, timeZone: timeZone)
            }
            return Parsed(recurrence: every.recurrence, rule: try RecurrenceRule(parsing: every.rule))
        } catch let error as RecurrenceError {
            // "bad recurrence "TEXT": WHY; use FORMS" → "invalid rule "TEXT" for --every: WHY; use FORMS".
            let prefix = "bad recurrence \"\(text)\": "
            let reason = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
            let forms = reason.contains(EveryGrammar.forms) ? "" : "; use \(EveryGrammar.forms)"
            throw UsageError(
                "invalid rule \(TimeExpression.quoted(text)) for --every: \(reason)\(forms)", command: command)
        } catch {
            throw UsageError(
                "invalid rule \(TimeExpression.quoted(text)) for --every: \(error); use \(EveryGrammar.forms)",
                command: command)
        }
    }

    /// The WHEN after ` until`: a date without a time (`until Dec 24`) ends the rule with that
    /// day; anything else at that instant.
    static func until(_ text: String, now: Instant, timeZone: ZoneInfo) throws -> EveryUntil {
        let when: When
        do { when = try TimeExpression.when(text, now: now, timeZone: timeZone) } catch {
            throw RecurrenceError("bad WHEN \(TimeExpression.quoted(text)) after until: \(error.message)")
        }
        return when.allDay ? .day(LocalTime(when.instant, in: timeZone).days) : .instant(when.instant)
    }

    /// `due` moved to the rule's first date on or after it, at its time of day (`--every mon,thu
    /// --due 7:00` on a Tuesday is due Thursday 07:00): the first occurrence is one the rule names.
    static func snap(_ due: When, to text: String, now: Instant, timeZone: ZoneInfo, command: String) throws(UsageError)
        -> When
    {
        let every = try parse(text, due: due.instant, now: now, timeZone: timeZone, command: command)
        var rule = every.rule
        rule.count = nil // the first date is where COUNT starts counting
        var walk = OccurrenceIterator(rule: rule, start: due.instant, zone: timeZone, allDay: due.allDay)
        guard let first = walk.next() else {
            throw UsageError(
                "the rule \(TimeExpression.quoted(text)) for --every has no occurrence from the --due date on",
                command: command)
        }
        return When(instant: first, allDay: due.allDay)
    }

    /// The first occurrence of `every` from the start of today (local midnight of that date).
    static func firstDue(_ every: Parsed, text: String, now: Instant, timeZone: ZoneInfo, command: String)
        throws(UsageError) -> Instant
    {
        let today = LocalTime(now, in: timeZone).days
        guard let start = LocalTime.instant(days: today, secondOfDay: 0, in: timeZone) else {
            throw UsageError("today lies outside the years 0001 to 9999", command: command)
        }
        var walk = OccurrenceIterator(rule: every.rule, start: start, zone: timeZone, allDay: true)
        guard let first = walk.next() else {
            throw UsageError(
                "the rule \(TimeExpression.quoted(text)) for --every has no occurrence from today on", command: command)
        }
        return first
    }
}

/// The zone todoctl sends with a todo's dates: the local zone's IANA name when the system tz
/// database has it. The daemon refuses a name it cannot read, and a zone from a private `TZDIR`
/// (`TZ=Test/Zone`) has none there: it is left out, rather than making the todo impossible to add.
func sendableZone(_ name: String?) -> String? {
    guard let name, ZoneInfo(identifier: name) != nil else { return nil }
    return name
}

extension AddOptions {
    /// `todo.add`'s params: every field of the todo, mapped by a switch over them all (a new
    /// field is asked for here). `localZone` (the local zone's IANA name) goes with a due date or
    /// a rule, the dates it was entered in.
    func newTodo(localZone: String?) -> NewTodo {
        var params = NewTodo(title: title)
        for field in TodoField.allCases {
            switch field {
            case .title: params.title = title
            case .notes: params.notes = notes
            case .category: params.category = category
            case .due: params.due = due
            case .remind: params.remind = remind
            case .alarms: params.alarms = alarms
            case .priority: params.priority = priority
            case .tags: params.tags = tags
            case .recurrence: params.recurrence = recurrence
            case .parent: params.parent = parent
            case .start: params.start = start
            case .allDay: params.allDay = allDay
            case .zone: params.zone = due != nil || recurrence != nil ? sendableZone(localZone) : zone
            // The store's, or set by other commands (done, move, snooze).
            case .id, .uid, .reminded, .done, .completed, .position, .created, .updated, .revision, .subtasks,
                .parentUid:
                break
            }
        }
        params.top = top
        params.after = after
        return params
    }
}

extension EditOptions {
    /// `todo.update`'s patch: every field of the todo, mapped by a switch over them all (a new
    /// field is asked for here). `remind` is the reminder, resolved by the caller (it may need
    /// the todo's current due time). A rule given without `--due` to a todo without a due date
    /// (read with `currentDue`, only then) starts on its first occurrence; `localZone` goes with
    /// a new due date or rule.
    func patch(
        remind: FieldChange<Instant>, localZone: String?, currentDue: () throws(CLIFailure) -> Instant?
    ) throws(CLIFailure) -> TodoPatch {
        var patch = TodoPatch()
        for field in TodoField.allCases {
            switch field {
            case .title: patch.title = title.map(FieldChange.set) ?? .keep
            case .notes: patch.notes = notes
            case .category: patch.category = category
            case .due: patch.due = due
            case .remind: patch.remind = remind
            case .alarms: if let alarms { patch.alarms = alarms.isEmpty ? .clear : .set(alarms) }
            case .priority: patch.priority = priority
            case .tags: (patch.addTags, patch.removeTags) = (addTags, removeTags)
            case .recurrence: patch.recurrence = recurrence
            case .parent: patch.parent = parent
            case .start: patch.start = start
            case .allDay: if case .set = due, dueAllDay { patch.allDay = true }
            case .zone: if let zone { patch.zone = .set(zone) }
            // The store's, or set by other commands (done, move, snooze).
            case .id, .uid, .reminded, .done, .completed, .position, .created, .updated, .revision, .subtasks,
                .parentUid:
                break
            }
        }
        if let firstDue, patch.due == .keep, try currentDue() == nil {
            patch.due = .set(firstDue)
            patch.allDay = true
        }
        let setsDue = if case .set = patch.due { true } else { false }
        let setsRule = if case .set = recurrence { true } else { false }
        if let zone = sendableZone(localZone), patch.zone == .keep, setsDue || setsRule { patch.zone = .set(zone) }
        return patch
    }
}
