import TodoCore
import TodoProtocol
import TodoUserFiles

/// Usage and help texts of todoctl's commands.
enum Help {
    /// One command's help: synopsis lines (after `todoctl `), a summary and its options.
    struct Entry {
        var name: String
        var synopsis: [String]
        var summary: String
        var options: [(String, String)] = []
    }

    static let globalOptions: [(String, String)] = [
        (
            "--socket PATH",
            "talk to the daemon at PATH (default: $TODOD_SOCKET, then $XDG_RUNTIME_DIR/todod/todod.sock)"
        ),
        ("--system", "talk to the system daemon at \(SocketPaths.system) (even with $TODOD_SOCKET set)"),
        ("--json", "print only JSON on stdout (may also follow the command)"),
        ("-h, --help", "show help"),
        ("--version", "show the version")
    ]

    static let whenHelp = """
        WHEN: a date: 2026-12-24, 2026/12/24, 12/24, today, tomorrow, friday, next friday, next week|month,
              Dec 24, 24 Dec 2027 (alone: all-day, reminded at 09:00); a time: 17:30, 9am, 5:30pm,
              noon, midnight (alone: today if still ahead, else tomorrow); both: tomorrow at 9am,
              Dec 24 5pm, friday 17:30; tonight, eod, eow, eom, eoy; +90s, +2h, +3d, +1mo, +1y,
              in 2 hours, in 1 month; -2h, 2 hours ago; now; @EPOCHSECONDS; RFC 3339.
              In Japanese too: 明日, 金曜, 来週金曜, 12月24日, 15時, 午後3時, 明日の朝, 三日後, 月末.
        DURATION: 30s, 15m, 2h, 1d, 1w, or sums like 1h30m.
        """

    static let ruleHelp = """
        RULE: day, weekday (Mon-Fri), week, 2 weeks, month, year, a weekday list (mon,thu),
              month on the last friday, month on the 15th; each optionally followed by
              "after done" (count from the completion), "until WHEN" or "for N times";
              or an RRULE (FREQ=MONTHLY;BYDAY=-1FR).
        P: high, medium, low (or H, M, L, in any case).
        """

    /// One line of `add`'s or `edit`'s options: a field's (`FieldOption`) or one of the command's own.
    enum OptionLine {
        case field(TodoField)
        case own(String, String)
    }

    /// The option lines of `add` or `edit`: those listed, a field's from its `FieldOption`, and
    /// after the last field listed every field option not listed (a new field is in the help).
    static func fieldLines(_ command: FieldOption.Command, _ lines: [OptionLine]) -> [(String, String)] {
        let listed = Set(lines.compactMap { if case .field(let f) = $0 { f } else { nil } })
        let unlisted = FieldOption.all(command).filter { !listed.contains($0.field) }.map { $0.help(command) }
        let last = lines.lastIndex { if case .field = $0 { true } else { false } } ?? lines.count - 1
        return lines.enumerated().flatMap { i, line -> [(String, String)] in
            let own: [(String, String)]
            switch line {
            case .field(let field): own = FieldOption(field).map { [$0.help(command)] } ?? []
            case .own(let option, let help): own = [(option, help)]
            }
            return i == last ? own + unlisted : own
        }
    }

    static let entries: [Entry] = [
        Entry(
            name: "add",
            synopsis: [
                "add TITLE [--category NAME] [--due WHEN] [--remind DURATION|WHEN]... [--notes TEXT] [--top | --after ID]",
                "    [--priority P] [--tag T]... [--every RULE] [--parent ID] [--start WHEN] [--nag DURATION [--nag-count N]]"
            ],
            summary:
                "Add a todo. Several words form one title; after -- a title may start with a dash.\nIt goes to the bottom of the manual order unless --top or --after is given.",
            options: fieldLines(
                .add,
                [
                    .field(.category), .field(.due), .field(.alarms),
                    .own("--nag DURATION", "repeat each reminder every DURATION (1m or more) until done or dismissed"),
                    .own("--nag-count N", "how many times --nag repeats (default 6)"), .field(.notes),
                    .own("--top", "put it first in the manual order"),
                    .own("--after ID", "put it directly after todo ID in the manual order"), .field(.priority),
                    .field(.tags), .field(.recurrence), .field(.parent), .field(.start)
                ])),
        Entry(
            name: "list",
            synopsis: [
                "list [--open | --done | --all] [--category NAME | --no-category] [--overdue]",
                "     [--due-before WHEN] [--due-after WHEN] [--search TEXT | --search-exact TEXT]",
                "     [--sort KEYS] [--limit N]",
                "     [--by-category] [--tag T]... [--priority P] [--recurring]",
                "     [--flat] [--ready | --all-starts] [--parent ID]"
            ],
            summary: "List todos; by default the open ones in manual order, subtasks indented under their parent\n"
                + "(a filter that matches a subtask lists its parents too).",
            options: [
                ("--all, --open, --done", "which todos (default: --open)"),
                ("--category NAME", "only todos in category NAME"),
                ("--no-category", "only todos without a category"),
                ("--overdue", "only open todos whose due time has passed"),
                ("--due-before WHEN", "only todos due before WHEN"),
                ("--due-after WHEN", "only todos due at or after WHEN"),
                (
                    "--search TEXT",
                    "only todos whose title or notes contain TEXT, ignoring case, width\n"
                        + "and katakana against hiragana (くりーにんぐ finds クリーニング)"
                ),
                ("--search-exact TEXT", "the same, with TEXT exactly as written"),
                (
                    "--sort KEYS",
                    "comma-separated keys from \(sortKeyList); a leading - sorts descending (-updated,title);\n"
                        + "category sorts by the category order (category list), not by name;\n"
                        + "priority puts high first and todos without one last (also with -priority);\n"
                        + "default: the config file's sort, else the manual order"
                ),
                ("--limit N", "show at most N todos"),
                ("--by-category", "group the listing by category, uncategorised last"),
                ("--tag T", "only todos tagged T (repeatable: every one must match)"),
                ("--priority P", "only todos of priority P"),
                ("--recurring", "only recurring todos, with their rule in words"),
                ("--flat", "one plain list: subtasks not under their parents"),
                ("--ready", "only todos whose start has come (or that have none)"),
                ("--all-starts", "todos whose start is to come too (hide-future-starts hides them but from --all)"),
                ("--parent ID", "only the subtasks of todo ID")
            ]),
        Entry(name: "show", synopsis: ["show ID"], summary: "Show everything about one todo, with its subtasks."),
        Entry(
            name: "edit",
            synopsis: [
                "edit ID... [--title T] [--notes TEXT | --no-notes] [--category NAME | --no-category]",
                "        [--due WHEN | --no-due] [--remind DURATION|WHEN... | --no-remind | --remind-clear]",
                "        [--nag DURATION [--nag-count N]]",
                "        [--priority P | --no-priority] [--tag T]... [--untag T]... [--every RULE | --no-every]",
                "        [--if-revision N] [--parent ID | --no-parent] [--start WHEN | --no-start] [--yes]",
                "[FILTER... | --all] edit [FIELD OPTIONS...] [--yes]"
            ],
            summary: "Change a todo. A --remind DURATION without --due counts back from the todo's current due time.\n"
                + "When edit reads the todo first (for some options), or with --if-revision, a todo someone else\n"
                + "changed meanwhile is left as it is and the edit is refused. 'edit ID' alone on a terminal opens\n"
                + "the todo as a text form in $VISUAL or $EDITOR; what you change is applied when you save.\n"
                + "With several ids, or a filter before the command (todoctl -t home edit -p low), the options set the\n"
                + "same fields on each todo. Without options they open one line per todo in the editor (id, title,\n"
                + "due:WHEN category:NAME priority:P +tag ...): edit a line to edit its todo, move lines to reorder the\n"
                + "todos in the manual order; a deleted line leaves its todo as it is. \(actHelp)",
            options: fieldLines(
                .edit,
                [
                    .field(.title), .field(.notes), .field(.category), .field(.due), .field(.alarms),
                    .own("--remind-clear", "remove every alarm (as --no-remind)"),
                    .own(
                        "--nag DURATION, --nag-count N",
                        "the alarms given (or one at the due time) repeat every DURATION, N times (default 6)"),
                    .field(.priority), .field(.tags), .field(.recurrence),
                    .own("--if-revision N", "change it only if its revision is still N (as `show` printed it)"),
                    .field(.parent), .field(.start), .own("--all", "every todo list shows without a filter"),
                    .own("--yes", "go on without asking")
                ])),
        Entry(
            name: "done", synopsis: ["done ID... [--stop]", "done FILTER... | --all [--stop] [--yes]"],
            summary:
                "Mark todos as done, with their open subtasks. One already done is left as it is and reported so.\n"
                + "A recurring todo advances to its next occurrence and stays open; when its rule is used up it is done.\n\(idRanges)\n\(actHelp)",
            options: [("--stop", "end recurring todos for good: mark them done instead of advancing them")] + actOptions
        ),
        Entry(
            name: "reopen", synopsis: ["reopen ID...", "reopen FILTER... | --all [--yes]"],
            summary:
                "Mark done todos as open again, each back at its place in the manual order,\nand the done parents of a subtask. One already open is reported so. \(idRanges)\n"
                + "\(actHelp)\nA filter without --open or --done takes the done todos.",
            options: actOptions),
        Entry(
            name: "rm", synopsis: ["rm ID... [--recursive]", "rm FILTER... | --all [--recursive] [--yes]"],
            summary: "Delete todos. \(idRanges)\n\(actHelp)",
            options: [("--recursive", "delete their subtasks too (a todo with subtasks is refused without it)")]
                + actOptions),
        Entry(
            name: "move",
            synopsis: [
                "move ID... (--to N | --before ID | --after ID | --top | --bottom)",
                "move FILTER... | --all (--to N | ...) [--yes]"
            ],
            summary: "Move todos in the manual order. Give exactly one target. Positions count the open todos,\n"
                + "as list shows them; a done todo moved keeps that place for when it is reopened.\n"
                + "Several todos go to the target one after the other, in the order given (a filter's: as listed).\n\(actHelp)",
            options: [
                ("--to N", "to be the N-th todo of the open list (1 is first)"),
                ("--before ID", "directly before todo ID"),
                ("--after ID", "directly after todo ID"),
                ("--top", "to the first position"),
                ("--bottom", "to the last position")
            ] + actOptions),
        Entry(
            name: "snooze",
            synopsis: ["snooze ID... [DURATION|WHEN]", "snooze FILTER... | --all [DURATION|WHEN] [--yes]"],
            summary: "Postpone todos' reminders: a DURATION counts from now, a WHEN is a time.\n"
                + "Without one: the config file's snooze (10m unless set). After several ids, a last word that is\n"
                + "not a plain number is the DURATION|WHEN.\n\(actHelp)",
            options: actOptions),
        Entry(
            name: "annotate", synopsis: ["annotate ID... TEXT", "annotate FILTER... | --all TEXT [--yes]"],
            summary: "Append a dated line (YYYY-MM-DD HH:MM TEXT, local time) to the notes of todos, as Taskwarrior's\n"
                + "annotate does. Several words form one TEXT.\n\(actHelp)",
            options: actOptions),
        Entry(
            name: "dismiss",
            synopsis: ["dismiss ID... [--alarm UID|N]", "dismiss FILTER... | --all [--alarm UID|N] [--yes]"],
            summary:
                "Dismiss (acknowledge) the alarms of todos that have fired and were not dismissed since: a nagging\n"
                + "alarm stops repeating, a snoozed one will not come back; alarms still to come fire as set.\n"
                + "A todo with nothing to dismiss is left as it is and reported so. A filter takes the todos with\n"
                + "an alarm to dismiss. \(idRanges)\n\(actHelp)",
            options: [
                (
                    "--alarm UID|N",
                    "only that alarm: its uid, or N for the N-th as show lists them (1 is first);\n"
                        + "one that has not fired yet is left as it is"
                )
            ] + actOptions),
        Entry(
            name: "category",
            synopsis: [
                "category list", "category add NAME", "category rename NAME NEWNAME",
                "category rm NAME [--force]", "category move NAME --to N"
            ],
            summary:
                "List and manage categories. Removing a category that still has todos needs --force, which leaves those todos uncategorised.",
            options: [
                ("--force", "rm: remove even if todos use it"),
                ("--to N", "move: to position N (1 is first)")
            ]),
        Entry(
            name: "agenda", synopsis: ["agenda [--days N]"],
            summary: "The open todos that are overdue, then each of the next N days (today first, in the local zone)\n"
                + "with the todos due on it and the coming occurrences of recurring todos (marked ↻; later\n"
                + "occurrences, not yet the todo's due, are dimmed), and the todos that start on it (marked starts).",
            options: [("--days N", "how many days, today included (default 7, at most 366)")]),
        Entry(
            name: "reminders", synopsis: ["reminders [--since WHEN] [--limit N]"],
            summary:
                "List reminders that have fired, read back from the journal, oldest first.\nA last line says when older ones were left out.",
            options: [
                ("--since WHEN", "only reminders fired at or after WHEN"),
                ("--limit N", "the latest N reminders (default 100, at most 10000)")
            ]),
        Entry(
            name: "watch", synopsis: ["watch [--since SEQ] [--reconnect]"],
            summary: "Print live events from the daemon until interrupted, each with its change number (#SEQ).\n"
                + "Ends with exit 69 when the daemon goes away.",
            options: [
                ("--since SEQ", "first replay the events of the changes after SEQ, then go on live"),
                ("--reconnect", "when the daemon goes away, wait for it and resume after the last SEQ seen")
            ]),
        Entry(
            name: "ui", synopsis: ["ui"],
            summary: "The todo list in the terminal, live: move with j/k, act on the selected todo with one key\n"
                + "(space done, d delete, a add, e edit, J/K move, u undo), / filter, : any command, ? every key.\n"
                + "Changes from any client show at once. Keys: ui.key.ACTION = KEY in the config file."),
        Entry(
            name: "status", synopsis: ["status"],
            summary: "Show the daemon's health: version, pid, uptime, database, store id, counts and the next reminder."
        ),
        Entry(
            name: "export",
            synopsis: ["export [--format json|ics|todotxt] [--output FILE]", "export --format vdir DIR"],
            summary: "Write the whole store: the JSON export document, one iCalendar file with a VTODO per todo,\n"
                + "or a vdir (a directory with one .ics file per todo, as todoman and vdirsyncer keep them).",
            options: [
                ("--format F", "json (default), ics, vdir or todotxt (one todo.txt line per todo)"),
                ("--output FILE", "write to FILE (replaced atomically) instead of stdout; not with vdir")
            ]),
        Entry(
            name: "import", synopsis: ["import FILE|DIR|-", "import --from taskwarrior|todotxt FILE|-"],
            summary:
                "Add everything in a JSON export, an iCalendar file (its VTODOs) or a vdir directory, atomically;\n"
                + "- reads stdin. Todos are matched by uid: importing the same thing twice changes nothing.\n"
                + "A malformed file is refused with its line number, and nothing is imported.",
            options: [
                (
                    "--from SOURCE",
                    "taskwarrior ('task export') or todotxt; lists what it refused, by line, and what had no counterpart"
                )
            ]),
        Entry(
            name: "undo", synopsis: ["undo [STEPS]", "undo --list [--limit N]"],
            summary: "Revert the most recent change (STEPS times), whoever made it; 'redo' applies it again.\n"
                + "An undo is itself a change; a new change after it makes what was undone final.\n"
                + "A reminder that already fired does not fire again.",
            options: [
                ("--list", "show the recent changes, newest first, and which can be undone or redone"),
                ("--limit N", "with --list: the latest N changes (default 20, at most 10000)")
            ]),
        Entry(
            name: "redo", synopsis: ["redo [STEPS]"],
            summary: "Apply again the change the last undo reverted (STEPS times)."),
        Entry(
            name: "sync",
            synopsis: [
                "sync add NAME --url URL --user USER (--password-file FILE | --credential NAME)",
                "         [--lists] [--default-list NAME] [--calendar URL|PATH ...] [--initial merge|remote|local]",
                "sync list", "sync remove NAME", "sync now [NAME]", "sync status"
            ],
            summary:
                "Keep CalDAV calendars (Nextcloud, Radicale, Fastmail, iCloud ...) in step with the todos, through\n"
                + "todod-sync (docs/SYNC.md). add checks the account with the server first (it finds the calendar) and\n"
                + "writes nothing when that fails; then it starts todod-sync.service when a user service manager runs,\n"
                + "or says how to run todod-sync. remove forgets an account and its sync state; the todos stay.\n"
                + "now syncs at once (every account, or NAME) and exits 1 when one failed. status shows each\n"
                + "account (ok, failing and why, or not running; last success, changes waiting, todos in step), the\n"
                + "todos that do not sync and why, and the recent conflicts with the value that lost; list shows\n"
                + "the accounts. Plain http:// is accepted only to localhost.",
            options: [
                ("--url URL", "add: the server, a principal or a calendar (https://HOST/remote.php/dav for Nextcloud)"),
                ("--user USER", "add: the user name on the server"),
                (
                    "--password-file FILE",
                    "add: a file holding the password (or an app password), readable by you\n"
                        + "alone (chmod 600 FILE); only its path is written to sync.conf"
                ),
                (
                    "--credential NAME",
                    "add: read the password from the systemd credential NAME instead\n"
                        + "(LoadCredential= of todod-sync.service; see todod-sync(1))"
                ),
                (
                    "--calendar URL|PATH",
                    "add: the calendar to use (default: the one discovery finds for todos);\n"
                        + "with --lists, repeatable: the calendars to sync, the first the default list"
                ),
                (
                    "--lists",
                    "add: lists are calendars: each calendar holding todos is a category by its\n"
                        + "name, a new category gets a calendar (as Nextcloud Tasks shows lists)"
                ),
                (
                    "--default-list NAME",
                    "add: the list (calendar name, path or URL) for todos without a category; implies\n"
                        + "--lists (default: the server's own, else one named Tasks, Reminders, personal, タスク ...)"
                ),
                (
                    "--initial MODE",
                    "add: when the store and the calendar both hold todos, what the first round\n"
                        + "does: merge (default: each side gets what only the other has), remote (the calendar\n"
                        + "wins: what only the store has is removed here, one undoable change) or local (the\n"
                        + "store wins: what only the calendar has is deleted on the server)"
                )
            ]),
        Entry(name: "help", synopsis: ["help [COMMAND]"], summary: "Show help for todoctl or one of its commands.")
    ]

    /// What the commands that act on many todos say about it.
    static let actHelp = """
        FILTER: the options of list (-c NAME, --due-before WHEN, -t TAG, --search TEXT, --search-exact TEXT,
        --done ...), after the command or before it (todoctl -c 買い物 done): the todos list --flat shows with
        them. --all takes every todo list shows without one; no ids and no filter change nothing. On a terminal the todos are listed with one
        question (y, yes or はい goes on); --yes skips it, and without a terminal or with --json it is needed.
        The whole act is one change: todoctl undo reverts all of it.
        """

    /// The options of the commands that act on many todos.
    static let actOptions: [(String, String)] = [
        ("FILTER", "any option of list: the todos it lists (see todoctl help list)"),
        ("--all", "every todo list shows without a filter (the open ones; --done the done ones)"),
        ("--yes", "go on without asking")
    ]

    static var sortKeyList: String { TodoQuery.SortKey.names }

    static let idRanges = "IDs may be ranges: 3-5 9 (each id once, at most \(Parser.maxIds))."

    /// The overview's closing notes: bare todoctl, short options (from `ShortOptions.table`),
    /// the config file.
    static var notes: String {
        let shorts = ShortOptions.table.sorted { $0.key < $1.key }
            .filter { entry in
                Parser.globalSpecs[entry.value] != nil || Parser.commandSpecs.values.contains { $0[entry.value] != nil }
            }
            .map { "-\($0.key) \($0.value)" }.joined(separator: ", ")
        return """
            Without a command, todoctl shows the open list, as 'todoctl list'.
            Short options, where the command has the long one:
              \(shorts);
              they cluster (-aj) and take a value joined or apart (-n5, -n 5).
            Config file ${XDG_CONFIG_HOME:-~/.config}/todod/config, key = value lines:
              remind-time = 09:00, sort = KEYS, snooze = 10m, alias.NAME = COMMAND ... (see todoctl(1)).
            """
    }

    /// `label` with the short form of each long option in it that `command` (or every command,
    /// for global options) has: `--all` becomes `-a, --all`.
    static func withShortForms(_ label: String, command: String?) -> String {
        label.split(separator: ", ").map { part in
            let long = String(part.prefix { $0 != " " })
            guard long.hasPrefix("--"), !label.contains("-h, --help"),
                Parser.globalSpecs[long] != nil || command.flatMap({ Parser.commandSpecs[$0]?[long] }) != nil,
                let letter = ShortOptions.letters(for: long).first
            else { return part }
            return letter + ", " + part
        }.joined(separator: ", ")
    }

    static func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// The overview: synopsis of every command.
    static var overview: String {
        var lines = ["Usage: todoctl [--socket PATH | --system] [--json] [COMMAND ...]", "", "Commands:"]
        for entry in entries {
            for line in entry.synopsis { lines.append("  " + line) }
        }
        lines += ["", "Global options:"]
        lines += optionLines(globalOptions, command: nil)
        lines += ["", whenHelp, "", notes, "", "Run 'todoctl help COMMAND' for more about a command."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The full help of a command (or the overview when `name` is nil or unknown).
    /// `help NAME` for an alias of the config file: what it stands for, then the help of its command.
    static func aliasText(_ name: String, words: [String]) -> String {
        let line = words.map { word in
            word.isEmpty || word.contains(where: { " \t'\"\\$`*?;&|<>()".contains($0) })
                ? "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
                : word
        }.joined(separator: " ")
        return
            "'\(Table.oneLine(name))' is an alias from your config file: todoctl \(Table.oneLine(name)) ARGS... runs todoctl \(Table.oneLine(line)) ARGS...\n\n"
            + text(for: words.first)
    }

    static func text(for name: String?) -> String {
        guard let name, let entry = entry(name) else { return overview }
        var lines = usageLines(entry)
        lines += ["", entry.summary]
        if !entry.options.isEmpty {
            lines += ["", "Options:"]
            lines += optionLines(entry.options, command: name)
        }
        lines += ["", "Global options:"]
        lines += optionLines(globalOptions, command: nil)
        if ["add", "list", "edit", "snooze", "reminders"].contains(name) {
            lines += ["", whenHelp]
        }
        if ["add", "list", "edit"].contains(name) {
            lines += ["", ruleHelp]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The short usage printed after a usage error.
    static func usage(for name: String?) -> String {
        guard let name, let entry = entry(name) else {
            return "Usage: todoctl [--socket PATH | --system] [--json] [COMMAND ...]\n"
                + "Commands: " + entries.map(\.name).joined(separator: ", ") + "\n"
                + "Run 'todoctl help' for more.\n"
        }
        return (usageLines(entry) + ["Run 'todoctl help \(name)' for more."]).joined(separator: "\n") + "\n"
    }

    static func usageLines(_ entry: Entry) -> [String] {
        entry.synopsis.enumerated().map { i, line in
            // A line starting with a space continues the one before; category and sync list several forms.
            (i == 0
                ? "Usage: todoctl "
                : (["category", "sync"].contains(entry.name) && !line.hasPrefix(" ")
                    ? "       todoctl " : "               ")) + line
        }
    }

    /// Options and their descriptions in two columns; a description's later lines stay in its column.
    static func optionLines(_ options: [(String, String)], command: String?) -> [String] {
        let options = options.map { (withShortForms($0.0, command: command), $0.1) }
        let width = options.map { TerminalText.width($0.0) }.max() ?? 0
        let indent = "\n" + String(repeating: " ", count: width + 4)
        return options.map {
            "  " + TerminalText.pad($0.0, to: width) + "  " + $0.1.split(separator: "\n").joined(separator: indent)
        }
    }
}
