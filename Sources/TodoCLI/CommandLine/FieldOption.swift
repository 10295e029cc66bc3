import TodoCore

/// How `todoctl add` and `edit` take one field of a todo: the option `TodoField.cliOption` names,
/// what its value is, how `edit` clears the field, and its help. Both commands' option tables,
/// the option lines of their help, the options `edit` refuses together and its "nothing to
/// change" list are made from these: a new `TodoField` case is asked for here by the compiler
/// (and then by `AddOptions.newTodo` and `EditOptions.patch`, which map every field).
struct FieldOption {
    /// What the option's value is, and so how it is read.
    enum Value {
        /// Taken as written.
        case text
        /// A WHEN (docs/WHEN.md).
        case when
        /// high, medium, low (or H, M, L).
        case priority
        /// A tag; repeatable, each tag checked as the daemon would.
        case tags
        /// An `--every` RULE.
        case rule
        /// A todo id.
        case id
        /// A DURATION before the due time or a WHEN; repeatable, one alarm each.
        case alarms
    }

    /// How `edit` takes the field away.
    enum Clear: Equatable {
        /// It cannot be: a todo always has a title.
        case never
        /// `--no-X`, a flag.
        case flag
        /// An option of its own removing one value (`--untag T`).
        case remove(String)
    }

    /// The commands that take field options.
    enum Command { case add, edit }

    let field: TodoField
    /// `--priority`.
    let name: String
    let value: Value
    /// The value's name in the help (`P`, `WHEN`).
    let metavar: String
    let clear: Clear
    /// The help on `add`; nil when `add` takes the field otherwise (the title is its words).
    let addHelp: String?
    /// The help on `edit`.
    let editHelp: String

    /// The option that sets `field`, nil when none does.
    init?(_ field: TodoField) {
        guard let name = field.cliOption else { return nil }
        self.field = field
        self.name = name
        switch field {
        case .title:
            (value, metavar, clear) = (.text, "T", .never)
            (addHelp, editHelp) = (nil, "new title")
        case .notes:
            (value, metavar, clear) = (.text, "TEXT", .flag)
            (addHelp, editHelp) = ("free-form notes", "set or clear the notes")
        case .category:
            (value, metavar, clear) = (.text, "NAME", .flag)
            (addHelp, editHelp) = ("put it in category NAME (created if missing)", "set or clear the category")
        case .due:
            (value, metavar, clear) = (.when, "WHEN", .flag)
            (addHelp, editHelp) = ("when it is due", "set or clear the due time (clearing it also clears the reminder)")
        case .priority:
            (value, metavar, clear) = (.priority, "P", .flag)
            (addHelp, editHelp) = ("its priority: high, medium or low", "set or clear the priority")
        case .tags:
            (value, metavar, clear) = (.tags, "T", .remove("--untag"))
            (addHelp, editHelp) = (
                "tag it T (repeatable); a tag is a word without spaces or commas",
                "add or remove a tag (each repeatable; one change)"
            )
        case .recurrence:
            (value, metavar, clear) = (.rule, "RULE", .flag)
            (addHelp, editHelp) = (
                "make it recurring: done moves it to the next occurrence;\n"
                    + "the first due is --due, else the rule's first day from today",
                "make it recurring or one-off; a todo without a due date\nstarts on the rule's first day from today"
            )
        case .parent:
            (value, metavar, clear) = (.id, "ID", .flag)
            (addHelp, editHelp) = (
                "make it a subtask of todo ID", "make it a subtask of todo ID, or a top-level todo (no cycles)"
            )
        case .start:
            (value, metavar, clear) = (.when, "WHEN", .flag)
            (addHelp, editHelp) = (
                "when it can be started (list --ready leaves it out until then)", "set or clear when it can be started"
            )
        case .alarms:
            (value, metavar, clear) = (.alarms, "DURATION|WHEN", .flag)
            (addHelp, editHelp) = (
                "when to remind: a DURATION before --due (15m) or a WHEN; default: at the due time;\n"
                    + "repeatable, one alarm each (--remind 1d --remind 15m)",
                "set or clear the reminder; repeated, the alarms replace the todo's"
            )
        case .id, .uid, .remind, .reminded, .done, .completed, .position, .created, .updated, .zone, .allDay, .revision,
            .subtasks, .parentUid:
            return nil
        }
    }

    /// Every field option, in the order of the fields.
    static let all = TodoField.allCases.compactMap(FieldOption.init)

    /// The field options `command` takes.
    static func all(_ command: Command) -> [FieldOption] {
        command == .add ? all.filter { $0.addHelp != nil } : all
    }

    /// The option that clears the field or removes from it (`--no-notes`, `--untag`), nil when none does.
    var clearName: String? {
        switch clear {
        case .never: nil
        case .flag: "--no-" + name.dropFirst(2)
        case .remove(let option): option
        }
    }

    /// The options `command` takes for its fields, and whether each takes a value.
    static func specs(_ command: Command) -> [String: Parser.Arity] {
        var specs: [String: Parser.Arity] = [:]
        for option in all(command) {
            specs[option.name] = .value
            guard command == .edit else { continue }
            switch option.clear {
            case .never: break
            case .flag: specs[option.clearName!] = .flag
            case .remove(let name): specs[name] = .value
            }
        }
        return specs
    }

    /// The option column of its help line: `--priority P` (add), `--priority P, --no-priority` (edit).
    func label(_ command: Command) -> String {
        let set = "\(name) \(metavar)"
        guard command == .edit else { return set }
        switch clear {
        case .never: return set
        case .flag: return "\(set), \(clearName!)"
        case .remove(let option): return "\(set), \(option) \(metavar)"
        }
    }

    /// Its help line on `command`.
    func help(_ command: Command) -> (String, String) {
        (label(command), command == .add ? addHelp ?? "" : editHelp)
    }
}
