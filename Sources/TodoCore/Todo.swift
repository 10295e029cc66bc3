/// A todo as the store returns it (its fields are described in docs/PROTOCOL.md).
package struct Todo: Sendable, Equatable {
    /// Assigned by the store; never reused and never changed, not even by reordering.
    package var id: Int64
    /// Globally unique and stable (a lowercase UUID for todos made here); never changes, and
    /// survives export and import. `id` is the short local number users type.
    package var uid: String
    package var title: String
    package var notes: String?
    /// The name of the todo's category, if any.
    package var category: String?
    package var due: Instant?
    /// When the reminder fires; nil means no reminder.
    package var remind: Instant?
    /// When the reminder fired, or nil while it is pending (or there is none).
    package var reminded: Instant?
    package var done: Bool
    package var completed: Instant?
    /// 1-based rank among the open todos in the one manual order (dense: 1...n); nil for a done
    /// todo, which keeps its place in the order for when it is reopened.
    package var position: Int?
    package var created: Instant
    /// Changes only when something about the todo really changed.
    package var updated: Instant
    package var priority: TodoPriority?
    /// Short words that cut across categories; sorted, unique case-insensitively.
    package var tags: [String]
    /// The IANA zone the todo's dates were entered in (recurrence and all-day dates use it).
    package var zone: String?
    /// Due on a local day (the start of that day in `zone`), not at a time of day.
    package var allDay: Bool
    /// Nil for a one-off todo; a recurring todo is one todo whose `due` advances.
    package var recurrence: TodoRecurrence?
    /// Grows with every change to the todo (1 when made); `todo.update` may carry `ifRevision`.
    package var revision: Int64
    /// The id of the todo this one is a subtask of; nil for a top-level todo.
    package var parent: Int64?
    /// The ids of this todo's subtasks, in manual order: the todos whose `parent` it is (the
    /// inverse relationship, never stored).
    package var subtasks: [Int64]
    /// The parent's uid. With `parent` nil, a parent named elsewhere (an iCalendar `RELATED-TO`,
    /// an import) that the store does not hold yet: the link is made when that todo arrives.
    package var parentUid: String?
    /// When the todo can be started (iCalendar `DTSTART`); before it, `list --ready` leaves it out.
    package var start: Instant?
    /// The todo's alarms as the store keeps them (`Alarm.storedText`), read and written as a
    /// list through `alarms`: a todo read from the store is written out (`todo.get`, a listing)
    /// from this text, without making the list.
    package var storedAlarms: String?
}

extension Todo {
    /// The todo's alarms (`VALARM`s), in the order they were given; `remind` is the next
    /// pending firing over them and `reminded` when the last one fired.
    package var alarms: [Alarm] {
        get { Alarm.alarms(storedText: storedAlarms) }
        set { storedAlarms = Alarm.storedText(newValue) }
    }
}

extension Todo {
    /// `storedAlarms`, when given, stands for `alarms` (as the store keeps them).
    /// (In an extension, through the memberwise initializer: an initializer of the struct's own
    /// that assigns the fields one by one built the value on the stack and then copied it, a
    /// retain and release of every field, for every row read.)
    package init(
        id: Int64, uid: String = "", title: String, notes: String? = nil, category: String? = nil,
        due: Instant? = nil, remind: Instant? = nil, reminded: Instant? = nil,
        done: Bool = false, completed: Instant? = nil, position: Int?,
        created: Instant, updated: Instant, priority: TodoPriority? = nil, tags: [String] = [],
        zone: String? = nil, allDay: Bool = false, recurrence: TodoRecurrence? = nil, revision: Int64 = 1,
        parent: Int64? = nil, parentUid: String? = nil, start: Instant? = nil, subtasks: [Int64] = [],
        alarms: [Alarm] = [], storedAlarms: String? = nil
    ) {
        self.init(
            id: id, uid: uid, title: title, notes: notes, category: category, due: due, remind: remind,
            reminded: reminded,
            done: done, completed: completed, position: position, created: created, updated: updated,
            priority: priority,
            tags: tags, zone: zone, allDay: allDay, recurrence: recurrence, revision: revision, parent: parent,
            subtasks: subtasks, parentUid: parentUid, start: start,
            storedAlarms: storedAlarms ?? Alarm.storedText(alarms))
    }
}

/// How urgent a todo is: iCalendar PRIORITY 1–4, 5 and 6–9 (0 is none).
package enum TodoPriority: String, Sendable, CaseIterable, Comparable {
    case high, medium, low

    /// High sorts first.
    package static func < (a: TodoPriority, b: TodoPriority) -> Bool { a.rank < b.rank }

    /// 1 for high, 2 for medium, 3 for low: the order `--sort priority` lists them in.
    package var rank: Int {
        switch self {
        case .high: 1
        case .medium: 2
        case .low: 3
        }
    }
}

/// Where the next occurrence of a recurring todo counts from.
package enum RecurrenceBase: String, Sendable, CaseIterable {
    /// The schedule: the occurrence after the current `due`.
    case due
    /// The completion: "every 2 weeks after I actually did it".
    case completion
}

/// A recurring todo's schedule: its rule and, from iCalendar, the dates its set adds and removes
/// (RFC 5545 §3.8.5, docs/ICALENDAR.md "Recurrence sets").
package struct TodoRecurrence: Sendable, Equatable {
    /// An iCalendar RRULE (`FREQ=WEEKLY;BYDAY=MO,TH`), without the `RRULE:` name.
    package var rule: String
    package var from: RecurrenceBase
    /// EXDATE: occurrences that are not due (matched with the occurrence's start, see `RecurrenceDate`).
    package var exdates: [RecurrenceDate] = []
    /// RDATE: occurrences besides the rule's (not counted by its COUNT).
    package var rdates: [RecurrenceDate] = []
    /// The rule's first occurrence still to come (its DTSTART) while the todo's current occurrence
    /// is an RDATE before it; nil when the current occurrence is the rule's DTSTART.
    package var ruleStart: Instant?

    package init(
        rule: String, from: RecurrenceBase = .due, exdates: [RecurrenceDate] = [], rdates: [RecurrenceDate] = [],
        ruleStart: Instant? = nil
    ) {
        self.rule = rule
        self.from = from
        self.exdates = exdates
        self.rdates = rdates
        self.ruleStart = ruleStart
    }

    /// Whether it has EXDATEs, RDATEs or a rule start of its own.
    package var hasSet: Bool { !exdates.isEmpty || !rdates.isEmpty || ruleStart != nil }

    /// The set as one text (what the store keeps in `recur_set`): lines `exdate V...`, `rdate V...`
    /// and `rule-start T`, values as `RecurrenceDate.text`; nil when `hasSet` is false.
    package var setText: String? {
        guard hasSet else { return nil }
        var lines: [String] = []
        if !exdates.isEmpty { lines.append((["exdate"] + exdates.map(\.text)).joined(separator: " ")) }
        if !rdates.isEmpty { lines.append((["rdate"] + rdates.map(\.text)).joined(separator: " ")) }
        if let ruleStart { lines.append("rule-start " + ruleStart.rfc3339(fractional: true)) }
        return lines.joined(separator: "\n")
    }

    /// Reads what `setText` wrote into this recurrence (values it cannot read are left out).
    package mutating func readSet(_ text: String?) {
        guard let text else { return }
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard let key = words.first else { continue }
            switch key {
            case "exdate": exdates = words.dropFirst().compactMap(RecurrenceDate.init(text:))
            case "rdate": rdates = words.dropFirst().compactMap(RecurrenceDate.init(text:))
            case "rule-start": ruleStart = words.dropFirst().first.flatMap { Instant(rfc3339: $0) }
            default: continue
            }
        }
    }
}

/// One EXDATE or RDATE value: a date (`VALUE=DATE`, it names a day in the todo's zone) or an
/// instant (a UTC or `TZID` time; a floating one is read in the zone of the import).
package enum RecurrenceDate: Sendable, Hashable, Comparable {
    /// Days since 1970-01-01.
    case date(Int64)
    case instant(Instant)

    /// `2026-12-07` or `2026-12-07T08:00:00Z` (fractional seconds when it has them).
    package var text: String {
        switch self {
        case .date(let days):
            let (y, m, d) = Instant.civil(days: days)
            func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
            let year = String(y)
            return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(m) + "-" + two(d)
        case .instant(let t): return t.rfc3339(fractional: true)
        }
    }

    /// Reads `text`; nil for anything else.
    package init?(text: String) {
        if text.count == 10 {
            let parts = text.split(separator: "-").compactMap { Int64($0) }
            guard parts.count == 3, let days = Instant.days(year: parts[0], month: parts[1], day: parts[2]) else {
                return nil
            }
            self = .date(days)
        } else {
            guard let t = Instant(rfc3339: text) else { return nil }
            self = .instant(t)
        }
    }
}

/// A category. It knows its todos through the inverse relationship: `open` and `done`
/// are counted from the todos that name it, never stored.
package struct Category: Sendable, Equatable {
    package var id: Int64
    package var name: String
    /// 1-based rank in the category order; always dense.
    package var position: Int
    package var open: Int
    package var done: Int

    package init(id: Int64, name: String, position: Int, open: Int = 0, done: Int = 0) {
        self.id = id
        self.name = name
        self.position = position
        self.open = open
        self.done = done
    }
}

/// The fields of a new todo, before the store assigns id, position and timestamps.
package struct NewTodo: Sendable, Equatable {
    package var title: String
    package var notes: String?
    /// A category name; a category that does not exist yet is created.
    package var category: String?
    package var due: Instant?
    /// When the reminder fires; when nil it defaults to `due` (unless `noReminder`).
    package var remind: Instant?
    /// Create the todo without a reminder even though it has a due date.
    package var noReminder: Bool
    /// Put the todo first in the manual order instead of last.
    package var top: Bool
    package var priority: TodoPriority?
    package var tags: [String]
    package var zone: String?
    /// `due` is the start of a local day in `zone`.
    package var allDay: Bool
    package var recurrence: TodoRecurrence?
    /// Make it a subtask of the todo with this id.
    package var parent: Int64? = nil
    /// When the todo can be started.
    package var start: Instant? = nil
    /// Put the todo directly after the todo with this id in the manual order (instead of last).
    package var after: Int64? = nil
    /// Its alarms; nil leaves them to `remind` and `noReminder` (one alarm at `remind`, or at
    /// the due time). Given, `remind` must be nil.
    package var alarms: [Alarm]? = nil

    package init(
        title: String, notes: String? = nil, category: String? = nil, due: Instant? = nil,
        remind: Instant? = nil, noReminder: Bool = false, top: Bool = false,
        priority: TodoPriority? = nil, tags: [String] = [], zone: String? = nil, allDay: Bool = false,
        recurrence: TodoRecurrence? = nil, parent: Int64? = nil, start: Instant? = nil, alarms: [Alarm]? = nil
    ) {
        self.alarms = alarms
        self.parent = parent
        self.start = start
        self.title = title
        self.notes = notes
        self.category = category
        self.due = due
        self.remind = remind
        self.noReminder = noReminder
        self.top = top
        self.priority = priority
        self.tags = tags
        self.zone = zone
        self.allDay = allDay
        self.recurrence = recurrence
    }
}

/// One field of an update: leave it, set it, or clear it.
package enum FieldChange<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case set(Value)
    case clear
}

extension FieldChange {
    /// The value after the change: `old` kept, the new value, or none.
    package func applied(to old: Value?) -> Value? {
        switch self {
        case .keep: old
        case .set(let value): value
        case .clear: nil
        }
    }
}

/// A change to an existing todo. Fields left at `.keep` are untouched.
///
/// Changing `due` without touching `remind` moves the reminder with it (same lead time);
/// clearing `due` clears the reminder. Any change to `due` or `remind` re-arms the reminder.
/// Setting `due` without `allDay` makes it a time of day; clearing `due` clears `allDay`.
package struct TodoPatch: Sendable, Equatable {
    package var title: FieldChange<String> = .keep
    package var notes: FieldChange<String> = .keep
    package var category: FieldChange<String> = .keep
    package var due: FieldChange<Instant> = .keep
    package var remind: FieldChange<Instant> = .keep
    package var priority: FieldChange<TodoPriority> = .keep
    /// Replaces the whole set (`.clear` empties it); applied before `addTags` and `removeTags`.
    package var tags: FieldChange<[String]> = .keep
    /// Tags to add and to remove, in one atomic change (`--tag`, `--untag`).
    package var addTags: [String] = []
    package var removeTags: [String] = []
    package var zone: FieldChange<String> = .keep
    /// Nil keeps it (or, when `due` is set, means false).
    package var allDay: Bool?
    package var recurrence: FieldChange<TodoRecurrence> = .keep
    /// Make it a subtask of another todo (refused when that would make a cycle), or top-level.
    package var parent: FieldChange<Int64> = .keep
    package var start: FieldChange<Instant> = .keep
    /// Replaces the alarms (`.clear` removes them all); `remind` set is one alarm at that instant.
    package var alarms: FieldChange<[Alarm]> = .keep

    package init(
        title: FieldChange<String> = .keep, notes: FieldChange<String> = .keep,
        category: FieldChange<String> = .keep, due: FieldChange<Instant> = .keep,
        remind: FieldChange<Instant> = .keep, priority: FieldChange<TodoPriority> = .keep,
        tags: FieldChange<[String]> = .keep, addTags: [String] = [], removeTags: [String] = [],
        zone: FieldChange<String> = .keep, allDay: Bool? = nil, recurrence: FieldChange<TodoRecurrence> = .keep,
        parent: FieldChange<Int64> = .keep, start: FieldChange<Instant> = .keep, alarms: FieldChange<[Alarm]> = .keep
    ) {
        self.alarms = alarms
        self.parent = parent
        self.start = start
        self.title = title
        self.notes = notes
        self.category = category
        self.due = due
        self.remind = remind
        self.priority = priority
        self.tags = tags
        self.addTags = addTags
        self.removeTags = removeTags
        self.zone = zone
        self.allDay = allDay
        self.recurrence = recurrence
    }

    package var isEmpty: Bool { self == TodoPatch() }
}

/// Where a moved todo or category goes.
package enum MoveTarget: Sendable, Equatable {
    /// To this 1-based position: among open todos (a done todo gets the place it will have
    /// when reopened), among all categories.
    case position(Int)
    /// Directly before the todo with this id.
    case before(Int64)
    /// Directly after the todo with this id.
    case after(Int64)
}
