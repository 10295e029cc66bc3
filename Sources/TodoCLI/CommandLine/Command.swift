import TodoCore
import TodoWhen

/// Options that apply to every command: where the daemon is and whether to print JSON.
package struct GlobalOptions: Equatable, Sendable {
    /// `--socket PATH`.
    package var socket: String?
    /// `--system`: the system daemon's socket.
    package var system = false
    /// `--json`: print only JSON on stdout.
    package var json = false

    /// No global options.
    package init(socket: String? = nil, system: Bool = false, json: Bool = false) {
        self.socket = socket
        self.system = system
        self.json = json
    }
}

/// `add TITLE [--category NAME] [--due WHEN] [--remind DURATION|WHEN] ...`: the todo's fields
/// (`AddOptions.newTodo` maps them to `todo.add`'s params) and where it goes in the order.
package struct AddOptions: Equatable, Sendable {
    /// The title, as given.
    package var title: String
    /// `--notes TEXT`.
    package var notes: String?
    /// `--category NAME`.
    package var category: String?
    /// `--due WHEN`, resolved; without it, the first occurrence of `--every`'s rule from today.
    package var due: Instant?
    /// `--remind`, resolved against `due`; for an all-day `due` without `--remind`, that day at
    /// the morning time.
    package var remind: Instant?
    /// The alarms of several `--remind`s or `--nag` (then `remind` is nil); nil for one reminder.
    package var alarms: [Alarm]?
    /// `--priority P`.
    package var priority: TodoPriority?
    /// `--tag T`..., validated, in the order given.
    package var tags: [String] = []
    /// `--every RULE`.
    package var recurrence: TodoRecurrence?
    /// `--parent ID`.
    package var parent: Int64?
    /// `--start WHEN`.
    package var start: Instant?
    /// `--top`.
    package var top = false
    /// `--after ID`: directly after that todo in the manual order.
    package var after: Int64?
    /// True when the due date is a date without a time (`--due` or the rule's first date).
    package var allDay = false
    /// The IANA name of the local zone the dates were given in, when known and there are dates.
    package var zone: String?

    /// A todo titled `title` and nothing else.
    package init(
        title: String, notes: String? = nil, category: String? = nil, due: Instant? = nil,
        remind: Instant? = nil, top: Bool = false
    ) {
        self.title = title
        self.notes = notes
        self.category = category
        self.due = due
        self.remind = remind
        self.top = top
    }
}

/// The filters, sort and limit of `list`, and how to show them.
package struct ListOptions: Equatable, Sendable {
    /// What to ask `todo.list` for; the default is open todos in manual order.
    package var query = TodoQuery()
    /// `--by-category`.
    package var byCategory = false
    /// The configuration's `hide-future-starts` leaves out todos whose start is to come (not
    /// `--ready`): the listing says how many.
    package var hidesFutureStarts = false
    /// `--flat`: no tree (the query's `tree` is off).
    package var flat: Bool { !query.tree }

    package init() {}
}

/// How `edit` changes the reminder.
package enum RemindChange: Equatable, Sendable {
    /// Not mentioned.
    case keep
    /// `--no-remind`.
    case clear
    /// A WHEN, or a DURATION already resolved against `--due` in the same command.
    case at(Instant)
    /// A DURATION (microseconds) before the todo's current due date, read from the daemon (for an
    /// all-day todo: before that day's morning time).
    case beforeCurrentDue(Int64)
    /// Not mentioned, but `--due` changes: the reminder keeps its lead time before the due time,
    /// where an all-day due counts from its day's morning time (needs the current todo).
    case followDue
}

/// The changes of `edit ID` (`EditOptions.patch` maps them to `todo.update`'s patch).
package struct EditOptions: Equatable, Sendable {
    /// The todo.
    package var id: Int64
    /// `--title T`.
    package var title: String?
    /// `--notes TEXT` / `--no-notes`.
    package var notes: FieldChange<String> = .keep
    /// `--category NAME` / `--no-category`.
    package var category: FieldChange<String> = .keep
    /// `--due WHEN` / `--no-due`.
    package var due: FieldChange<Instant> = .keep
    /// `--remind DURATION|WHEN` / `--no-remind`.
    package var remind: RemindChange = .keep
    /// The alarms that replace the todo's, from several `--remind`s or `--nag` (with them
    /// `remind` stays `.keep`); nil when not given.
    package var alarms: [Alarm]?
    /// `--priority P` / `--no-priority`.
    package var priority: FieldChange<TodoPriority> = .keep
    /// `--tag T`...: added to the todo's tags.
    package var addTags: [String] = []
    /// `--untag T`...: removed from them.
    package var removeTags: [String] = []
    /// `--every RULE` / `--no-every`.
    package var recurrence: FieldChange<TodoRecurrence> = .keep
    /// With `--every` and no `--due`: the rule's first occurrence from today, the due date of a
    /// todo that has none yet.
    package var firstDue: Instant?
    /// `--parent ID` / `--no-parent`.
    package var parent: FieldChange<Int64> = .keep
    /// `--start WHEN` / `--no-start`.
    package var start: FieldChange<Instant> = .keep
    /// True when `--due` was a date without a time.
    package var dueAllDay = false
    /// The IANA name of the local zone, sent with a new due or reminder, when known.
    package var zone: String?
    /// Seconds after local midnight at which an all-day todo is reminded (`remind-time`).
    package var remindTime: Int64 = TimeExpression.defaultRemindTime
    /// `--if-revision N`: change the todo only while its revision is still N.
    package var ifRevision: Int64?

    /// No changes to todo `id` yet.
    package init(id: Int64) { self.id = id }

    /// True when nothing would change.
    var isEmpty: Bool {
        var none = EditOptions(id: id)
        (none.remind, none.remindTime, none.ifRevision, none.zone) = (remind, remindTime, ifRevision, zone)
        return self == none && (remind == .keep || remind == .followDue)
    }
}

/// Where `move` puts a todo.
package enum MoveDestination: Equatable, Sendable {
    /// `--to N` (and `--top`, which is position 1).
    case position(Int64)
    /// `--before ID`.
    case before(Int64)
    /// `--after ID`.
    case after(Int64)
    /// `--bottom`: the last position, read from the daemon first.
    case bottom
}

/// What an act on many todos does to each (`ActOptions`).
package enum ActVerb: Equatable, Sendable {
    /// `done [--stop]`.
    case done(stop: Bool)
    /// `reopen`.
    case reopen
    /// `rm [--recursive]`.
    case remove(recursive: Bool)
    /// `edit` with fields: the same change to each (`id` of the options unused).
    case edit(EditOptions)
    /// `edit` without fields: one line per todo in the editor.
    case editLines
    /// `move`: the todos, in their listed order, to the destination.
    case move(MoveDestination)
    /// `snooze`.
    case snooze(Instant)
    /// `annotate TEXT`: a dated line appended to the notes.
    case annotate(String)
    /// `dismiss [--alarm UID|N]`: acknowledges the alarms that fired (or the one named).
    case dismiss(AlarmChoice?)

    /// The command's name.
    package var name: String {
        switch self {
        case .done: "done"
        case .reopen: "reopen"
        case .remove: "rm"
        case .edit, .editLines: "edit"
        case .move: "move"
        case .snooze: "snooze"
        case .annotate: "annotate"
        case .dismiss: "dismiss"
        }
    }
}

/// The alarm `dismiss --alarm` names.
package enum AlarmChoice: Equatable, Sendable {
    /// The N-th, 1-based, as `show` lists them (a plain number up to `Alarm.maxPerTodo`).
    case index(Int)
    /// By its uid.
    case uid(String)
}

/// Which todos an act takes.
package enum ActTargets: Equatable, Sendable {
    /// Given by id, in this order.
    case ids([Int64])
    /// Those `list` shows with this filter (`--all`: no filter), flat.
    case filter(ListOptions)
}

/// `done|reopen|rm|edit|move|snooze|annotate|dismiss` on a filter, on several ids or on `--all`.
package struct ActOptions: Equatable, Sendable {
    package var verb: ActVerb
    package var targets: ActTargets
    /// `--yes`: no confirmation asked.
    package var yes = false

    package init(verb: ActVerb, targets: ActTargets, yes: Bool = false) {
        self.verb = verb
        self.targets = targets
        self.yes = yes
    }
}

/// The `category` subcommands.
package enum CategoryCommand: Equatable, Sendable {
    /// `category list`.
    case list
    /// `category add NAME`.
    case add(name: String)
    /// `category rename NAME NEWNAME`.
    case rename(name: String, newName: String)
    /// `category rm NAME [--force]`.
    case remove(name: String, force: Bool)
    /// `category move NAME --to N`.
    case move(name: String, position: Int64)
}

/// Stage 2 of todoctl: one parsed command with typed options.
package enum Command: Equatable, Sendable {
    /// `add`.
    case add(AddOptions)
    /// `list`.
    case list(ListOptions)
    /// `show ID`.
    case show(id: Int64)
    /// `edit ID ...`.
    case edit(EditOptions)
    /// `done ID... [--stop]`.
    case complete(ids: [Int64], stop: Bool = false)
    /// `reopen ID...`.
    case reopen(ids: [Int64])
    /// `rm ID...`.
    case remove(ids: [Int64], recursive: Bool)
    /// `move ID ...`.
    case move(id: Int64, to: MoveDestination)
    /// `snooze ID DURATION|WHEN`, resolved to an instant.
    case snooze(id: Int64, until: Instant)
    /// An act on many todos: a filter, several ids or `--all` (`ActOptions`); `annotate`.
    case act(ActOptions)
    /// `category ...`.
    case category(CategoryCommand)
    /// `agenda [--days N]`.
    case agenda(days: Int)
    /// `reminders [--since WHEN] [--limit N]`.
    case reminders(since: Instant?, limit: Int?)
    /// `watch [--since SEQ] [--reconnect]`.
    case watch(since: Int64? = nil, reconnect: Bool = false)
    /// `status`.
    case status
    /// `ui`: the interactive list (a program of its own, todoctl-ui).
    case ui
    /// `export [--format json|ics] [--output FILE]`, `export --format vdir DIR`; `target` is the
    /// file (nil: standard output) or the vdir directory.
    case export(format: ExportFormat, target: String?)
    /// `import FILE|DIR|-`: a JSON export, an iCalendar file or a vdir; with `--from`, a
    /// Taskwarrior export or a todo.txt file, converted by todoctl.
    case importFile(path: String, from: ImportSource? = nil)
    /// `undo [STEPS]`, `redo [STEPS]`.
    case undo(steps: Int, redo: Bool)
    /// `undo --list [--limit N]`: the recent changes, newest first.
    case history(limit: Int?)
    /// `sync ...`: todod-sync's accounts (no daemon needed).
    case sync(SyncCommand)
    /// `help [COMMAND]`, `--help`: the help text of a command, or the overview when nil.
    case help(topic: String?)
    /// `--version`.
    case version
}

/// A parsed command line: global options and the command.
package struct Invocation: Equatable, Sendable {
    /// `--socket`, `--system`, `--json`.
    package var global: GlobalOptions
    /// What to do.
    package var command: Command

    /// Pairs global options with a command.
    package init(global: GlobalOptions, command: Command) {
        self.global = global
        self.command = command
    }
}

/// A command-line usage error (exit 2): what is wrong and the usage to print after it.
package struct UsageError: Error, Equatable, Sendable {
    /// One line, without the `todoctl:` prefix, naming the culprit option or value.
    package var message: String
    /// The command the usage is for (nil for the overview).
    package var command: String?

    /// An error in `command`'s arguments.
    package init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }
}

/// What `export` writes.
package enum ExportFormat: String, Sendable, Equatable, CaseIterable {
    /// The export document (docs/PROTOCOL.md).
    case json
    /// One VCALENDAR with a VTODO per todo (docs/ICALENDAR.md).
    case ics
    /// A directory with one `.ics` file per todo, as vdirsyncer and todoman keep calendars.
    case vdir
    /// One todo.txt line per todo (the format of todo.sh).
    case todotxt
}
