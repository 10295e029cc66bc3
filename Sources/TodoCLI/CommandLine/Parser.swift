import TodoCore
import TodoTime
import TodoUserFiles
import TodoWhen

/// Stage 2 of todoctl: turns tokens into an `Invocation`. WHEN and DURATION values are resolved
/// here against `now` and `timeZone`, so a bad one is a usage error.
package struct Parser {
    /// The instant relative times count from.
    package var now: Instant
    /// The zone local times are read in.
    package var timeZone: ZoneInfo
    /// Finds the IANA name of `timeZone` (read only by the commands that send it).
    private let findZoneName: () -> String?
    /// The IANA name of `timeZone`, sent as a todo's `zone`; nil when it has none.
    package var zoneName: String? { findZoneName() }
    /// Seconds after local midnight at which all-day todos are reminded (`remind-time`, 09:00
    /// unless configured): the one place this default lives.
    package var remindTime: Int64 = TimeExpression.defaultRemindTime
    /// The configuration file's settings (aliases, default sort, snooze).
    package var config: Config

    /// A parser resolving times against `now` in `timeZone`.
    package init(
        now: Instant, timeZone: ZoneInfo, zoneName: @autoclosure @escaping () -> String? = nil,
        config: Config = Config()
    ) {
        self.now = now
        self.timeZone = timeZone
        findZoneName = { sendableZone(zoneName()) }
        self.config = config
        remindTime = config.remindTime
    }

    /// The most ids one `done`, `reopen` or `rm` takes, ranges expanded.
    static let maxIds = 10_000

    /// The command names, in help order.
    static let commandNames = Help.entries.map(\.name)

    /// Whether an option takes a value (`--due WHEN`) or is a flag (`--top`).
    enum Arity { case flag, value }

    static let globalSpecs: [String: Arity] = [
        "--socket": .value, "--system": .flag, "--json": .flag, "--help": .flag, "--version": .flag
    ]

    /// The commands that act on many todos: ids, a filter as `list` takes it, or `--all`.
    static let actCommands: Set<String> = [
        "done", "reopen", "rm", "edit", "move", "snooze", "annotate", "dismiss"
    ]

    /// The options of a filter (those of `list`) and `--yes`: after an act's command word (but
    /// `edit`'s, where options are the fields to set), and before it.
    static let filterSpecs: [String: Arity] = [
        "--open": .flag, "--done": .flag, "--all": .flag, "--category": .value, "--no-category": .flag,
        "--overdue": .flag, "--due-before": .value, "--due-after": .value, "--search": .value, "--search-exact": .value,
        "--sort": .value, "--limit": .value, "--by-category": .flag,
        "--tag": .value, "--priority": .value, "--recurring": .flag, "--flat": .flag, "--ready": .flag,
        "--all-starts": .flag,
        "--parent": .value, "--yes": .flag
    ]

    static let commandSpecs: [String: [String: Arity]] = [
        "add": FieldOption.specs(.add).merging([
            "--nag": .value, "--nag-count": .value, "--top": .flag, "--after": .value
        ]) { a, _ in a },
        "list": [
            "--open": .flag, "--done": .flag, "--all": .flag, "--category": .value, "--no-category": .flag,
            "--overdue": .flag, "--due-before": .value, "--due-after": .value, "--search": .value,
            "--search-exact": .value,
            "--sort": .value, "--limit": .value, "--by-category": .flag,
            "--tag": .value, "--priority": .value, "--recurring": .flag, "--flat": .flag, "--ready": .flag,
            "--all-starts": .flag,
            "--parent": .value
        ],
        "edit": FieldOption.specs(.edit).merging([
            "--remind-clear": .flag, "--nag": .value, "--nag-count": .value, "--if-revision": .value, "--all": .flag,
            "--yes": .flag
        ]) { a, _ in a },
        "done": filterSpecs.merging(["--stop": .flag]) { a, _ in a },
        "reopen": filterSpecs,
        "rm": filterSpecs.merging(["--recursive": .flag]) { a, _ in a },
        "move": filterSpecs.merging([
            "--to": .value, "--before": .value, "--after": .value, "--top": .flag, "--bottom": .flag
        ]) { a, _ in a },
        "snooze": filterSpecs,
        "annotate": filterSpecs,
        "dismiss": filterSpecs.merging(["--alarm": .value]) { a, _ in a },
        "category": ["--force": .flag, "--to": .value],
        "reminders": ["--since": .value, "--limit": .value],
        "agenda": ["--days": .value],
        "watch": ["--since": .value, "--reconnect": .flag],
        "export": ["--format": .value, "--output": .value],
        "import": ["--from": .value],
        "undo": ["--list": .flag, "--limit": .value],
        "sync": [
            "--url": .value, "--user": .value, "--password-file": .value, "--credential": .value, "--calendar": .value,
            "--initial": .value, "--lists": .flag, "--default-list": .value
        ]
    ]

    /// The commands with subcommands, and theirs (`category`, `sync`).
    static var subcommands: [(command: String, subcommands: [(name: String, options: Set<String>)])] {
        [("category", categorySubcommands), ("sync", syncSubcommands)]
    }

    /// The `category` subcommands, in help order, and the options each accepts.
    static let categorySubcommands: [(name: String, options: Set<String>)] = [
        ("list", []), ("add", []), ("rename", []), ("rm", ["--force"]), ("move", ["--to"])
    ]

    /// The options and positionals given to one command, in order.
    struct Arguments {
        var command: String?
        var positionals: [String] = []
        var options: [(name: String, value: String?)] = []
        /// Words read as a cluster of short options (`-dash title`): a title that starts with a dash?
        var dashed: [String] = []
        /// The filter of an act: the options before its command word, and after it those of
        /// `list` the command does not have itself.
        var filters: [(name: String, value: String?)] = []

        func has(_ name: String) -> Bool { options.contains { $0.name == name } }
        /// The last value given for `name` (later ones win, as in git).
        func value(_ name: String) -> String? { options.last { $0.name == name }?.value }
    }

    /// Parses `arguments` (without the program name).
    package func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        let tokens = Tokenizer.tokenize(config.expandingAlias(arguments))
        var global = GlobalOptions()
        var args = Arguments()
        // `--help` anywhere before `--` wins over every other problem on the line.
        var wantsHelp = tokens.contains { !$0.afterTerminator && $0.kind == .option(name: "--help", value: nil) }
        var wantsVersion = false
        var index = 0
        // `todoctl 12 done`, Taskwarrior's order: the ids before the command.
        var leadingIDs: [String] = []
        // `todoctl -c 買い物 done`: before an act's command word, the options are its filter.
        let actWord = commandWord(tokens).flatMap { Parser.actCommands.contains($0) ? $0 : nil }

        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token.kind {
            case .positional(let text):
                if args.command == nil, Parser.isIDList(text) {
                    leadingIDs.append(text)
                } else if args.command == nil {
                    let text = leadingIDs.isEmpty ? text : Parser.taskwarriorCommands[text] ?? text
                    guard Parser.commandNames.contains(text) else {
                        throw UsageError(
                            "unknown command \(quote(text))"
                                + Suggestion.hint(for: text, in: Parser.commandNames + config.aliases.keys.sorted()),
                            command: nil)
                    }
                    args.command = text
                    args.positionals = leadingIDs
                } else if !token.afterTerminator,
                    let (name, value) = Parser.taskwarriorAttribute(text, command: args.command)
                {
                    args.options.append((name, value))
                } else {
                    args.positionals.append(text)
                }
            case .option(let given, let givenInline):
                // `-aj` and `-n5` become `--all --json` and `--limit 5` (ShortOptions).
                var items = [(name: given, inline: givenInline)]
                let lookup = args.command ?? (actWord != nil ? Parser.filterCommand : nil)
                if ShortOptions.isCluster(given) {
                    guard let expanded = expandShort(given, command: lookup) else {
                        if wantsHelp { continue }
                        // `edit 12 -shop`: Taskwarrior's removal of a tag.
                        if args.command == "edit", givenInline == nil, given.count > 2 {
                            args.options.append(("--untag", String(given.dropFirst())))
                            continue
                        }
                        let dash =
                            args.command == "add"
                            ? "; to start a title with -, put it after --: todoctl add -- \(quote(given))" : ""
                        throw UsageError(
                            "unknown option \(given)" + (args.command.map { " for '\($0)'" } ?? "") + dash,
                            command: args.command)
                    }
                    items = expanded
                    if given.count > 3 { args.dashed.append(given) }
                }
                for (name, inline) in items {
                    let spec = arity(name, lookup)
                    guard let arity = spec else {
                        if wantsHelp { continue }
                        let known =
                            (args.command.flatMap { Parser.commandSpecs[$0]?.keys.sorted() } ?? [])
                            + Parser.globalSpecs.keys.sorted()
                        throw UsageError(
                            "unknown option \(name)" + (args.command.map { " for '\($0)'" } ?? "")
                                + (Suggestion.closest(to: name, in: known).map { "; did you mean \($0)?" } ?? ""),
                            command: args.command)
                    }
                    var value = inline
                    switch arity {
                    case .flag:
                        if inline != nil {
                            if wantsHelp { continue }
                            throw UsageError("option \(name) does not take a value", command: args.command)
                        }
                    case .value:
                        if value == nil, index < tokens.count, !tokens[index].afterTerminator,
                            !isKnownOption(tokens[index], lookup)
                        {
                            value = tokens[index].raw
                            index += 1
                        }
                        guard value != nil else {
                            if wantsHelp { continue }
                            throw UsageError("option \(name) needs a value", command: args.command)
                        }
                    }
                    switch name {
                    case "--socket": global.socket = value
                    case "--system": global.system = true
                    case "--json": global.json = true
                    case "--help": wantsHelp = true
                    case "--version": wantsVersion = true
                    case _
                    where actWord != nil
                        && (args.command == nil
                            || (Parser.actCommands.contains(args.command ?? "") && args.command != "edit"
                                && Parser.filterSpecs[name] != nil && name != "--yes"
                                && Parser.commandSpecs["list"]?[name] != nil && !Parser.ownOption(name, args.command))):
                        if name == "--yes" {
                            args.options.append((name, value))
                        } else {
                            args.filters.append((name, value))
                        }
                    default: args.options.append((name, value))
                    }
                }
            }
        }

        if wantsHelp {
            let topic = args.command == "help" ? (args.positionals.first ?? "help") : args.command
            return Invocation(global: global, command: .help(topic: topic))
        }
        if wantsVersion { return Invocation(global: global, command: .version) }
        if global.system, global.socket != nil {
            throw UsageError("--socket and --system cannot be used together", command: args.command)
        }
        // Ids alone show them (`todoctl 12`, Taskwarrior's information report).
        if args.command == nil, !leadingIDs.isEmpty {
            guard leadingIDs.count == 1, let one = Int64(leadingIDs[0]) else {
                throw UsageError(
                    "give one id to show a todo, or a command after the ids (todoctl 5 6 done)", command: nil)
            }
            return Invocation(global: global, command: .show(id: try id(String(one), "todo id", "show")))
        }
        // No command: the open list, as `list` (with the configured sort).
        guard let name = args.command else { return Invocation(global: global, command: .list(try list(Arguments()))) }
        return Invocation(global: global, command: try command(name, args))
    }

    /// An id or a range of them as `done` takes them: `12`, `3-7`.
    static func isIDList(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isNumber else { return false }
        return text.allSatisfy { ($0.isASCII && $0.isNumber) || $0 == "-" }
    }

    /// Taskwarrior's command names after ids, as ours (`todoctl 12 modify due:fri`).
    static let taskwarriorCommands = ["modify": "edit", "delete": "rm", "info": "show"]

    /// Taskwarrior's attributes among the words of `add` and `edit` (`due:tomorrow`,
    /// `project:仕事`, `priority:H`, `+tag`), as the options they mean; an empty value clears
    /// (`edit 12 due:`). Nil for any other word, which stays part of the title.
    static func taskwarriorAttribute(_ word: String, command: String?) -> (String, String?)? {
        guard command == "add" || command == "edit" else { return nil }
        // `+shop`; not `+2h` (a WHEN) nor `++`.
        if word.hasPrefix("+"), let first = word.dropFirst().first, !first.isNumber, first != "+", !word.contains(" ") {
            return ("--tag", String(word.dropFirst()))
        }
        guard let colon = word.firstIndex(of: ":") else { return nil }
        let key = word[..<colon].lowercased()
        let value = String(word[word.index(after: colon)...])
        guard !value.hasPrefix(" "), let (option, clear) = attributeOptions[key] else { return nil }
        if value.isEmpty { return command == "edit" ? (clear, nil) : nil }
        return (option, value)
    }

    /// Taskwarrior's attribute names (and abbreviations) and the options that set and clear them.
    static let attributeOptions: [String: (String, String)] = [
        "due": ("--due", "--no-due"),
        "project": ("--category", "--no-category"), "proj": ("--category", "--no-category"),
        "pro": ("--category", "--no-category"),
        "category": ("--category", "--no-category"), "cat": ("--category", "--no-category"),
        "priority": ("--priority", "--no-priority"), "pri": ("--priority", "--no-priority"),
        "prio": ("--priority", "--no-priority"),
        "scheduled": ("--start", "--no-start"), "sched": ("--start", "--no-start"), "wait": ("--start", "--no-start"),
        "recur": ("--every", "--no-every")
    ]

    /// The arity of `name` in `command` (or as a global option), nil when unknown there.
    func arity(_ name: String, _ command: String?) -> Arity? {
        if command == Parser.filterCommand { return Parser.filterSpecs[name] ?? Parser.globalSpecs[name] }
        return command.flatMap { Parser.commandSpecs[$0]?[name] } ?? Parser.globalSpecs[name]
    }

    /// The name options before an act's command word are looked up under (`filterSpecs`).
    static let filterCommand = " filter"

    /// Whether `name` is an option of `command` itself, not of the filter it takes.
    static func ownOption(_ name: String, _ command: String?) -> Bool {
        switch command {
        case "done": name == "--stop"
        case "rm": name == "--recursive"
        case "move": ["--to", "--before", "--after", "--top", "--bottom"].contains(name)
        default: false
        }
    }

    /// The command word of `tokens` (after ids, Taskwarrior's names mapped), found before
    /// parsing so that the options before it can be read as an act's filter: an option's value
    /// (`-c 買い物 done`) is not taken for it.
    func commandWord(_ tokens: [Token]) -> String? {
        var index = 0
        var sawIDs = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token.kind {
            case .positional(let text):
                if Parser.isIDList(text) {
                    sawIDs = true
                    continue
                }
                return sawIDs ? Parser.taskwarriorCommands[text] ?? text : text
            case .option(let name, let inline):
                guard inline == nil else { continue }
                if ShortOptions.isCluster(name) {
                    if let items = expandShort(name, command: Parser.filterCommand), let last = items.last,
                        last.inline == nil,
                        arity(last.name, Parser.filterCommand) == .value
                    {
                        index += 1
                    }
                } else if arity(name, Parser.filterCommand) == .value {
                    index += 1
                }
            }
        }
        return nil
    }

    /// The long options a cluster of short ones stands for (`-aj`: `--all`, `--json`; `-n5`:
    /// `--limit` with the value 5), or nil when a letter is not an option of `command`.
    func expandShort(_ cluster: String, command: String?) -> [(name: String, inline: String?)]? {
        let letters = Array(cluster.dropFirst())
        var items: [(name: String, inline: String?)] = []
        for (offset, letter) in letters.enumerated() {
            guard let long = ShortOptions.table[letter], let arity = arity(long, command) else { return nil }
            if arity == .value {
                let rest = String(letters[(offset + 1)...])
                items.append((long, rest.isEmpty ? nil : rest))
                return items
            }
            items.append((long, nil))
        }
        return items
    }

    /// A following token that is an option this command knows, so that `--due --top` reports a
    /// missing value instead of reading `--top` as a time. A short cluster counts only when it
    /// is all flags or one letter (`-a`, `-aj`, `-n`), so `--sort -title` still sorts by title.
    func isKnownOption(_ token: Token, _ command: String?) -> Bool {
        guard case .option(let name, _) = token.kind else { return false }
        if ShortOptions.isCluster(name) {
            guard let items = expandShort(name, command: command) else { return false }
            return items.allSatisfy { $0.inline == nil }
        }
        guard name.hasPrefix("--") else { return false }
        return arity(name, command) != nil
    }

    // MARK: - Commands

    func command(_ name: String, _ args: Arguments) throws(UsageError) -> Command {
        var p = Positionals(args.positionals, command: name)
        let result: Command
        switch name {
        case _ where Parser.actCommands.contains(name) && (isAct(name, args) || ["annotate", "dismiss"].contains(name)):
            result = try act(name, args, &p)
        case "add": result = .add(try add(args, &p))
        case "list": result = .list(try list(args))
        case "show": result = .show(id: try id(p.next("ID"), "todo id", name))
        case "edit": result = .edit(try edit(args, &p))
        case "done": result = .complete(ids: try ids(&p, name), stop: args.has("--stop"))
        case "reopen": result = .reopen(ids: try ids(&p, name))
        case "rm": result = .remove(ids: try ids(&p, name), recursive: args.has("--recursive"))
        case "move": result = try move(args, &p)
        case "snooze":
            let todo = try id(p.next("ID"), "todo id", name)
            // Without a value: the configured snooze (10m unless set).
            let until: Instant
            if p.peek() == nil {
                guard let instant = TimeExpression.checkedAdd(now.usec, config.snooze) else {
                    throw UsageError("the configured snooze reaches past the year 9999", command: name)
                }
                until = instant
            } else {
                until = try snoozeTime(p.next("DURATION|WHEN"))
            }
            result = .snooze(id: todo, until: until)
        case "category": result = .category(try category(args, &p))
        case "sync": result = .sync(try sync(args, &p))
        case "reminders":
            result = .reminders(
                since: try args.value("--since").map { v throws(UsageError) in try when(v, "--since", name) },
                limit: try args.value("--limit").map { v throws(UsageError) in try limit(v, "--limit", name) })
        case "agenda": result = .agenda(days: try args.value("--days").map { v throws(UsageError) in try days(v) } ?? 7)
        case "watch":
            result = .watch(
                since: try args.value("--since").map { v throws(UsageError) in try seq(v, "--since", name) },
                reconnect: args.has("--reconnect"))
        case "status": result = .status
        case "ui": result = .ui
        case "export":
            let raw = args.value("--format") ?? "json"
            guard let format = ExportFormat(rawValue: raw) else {
                throw UsageError(
                    "unsupported export format \(quote(raw)) for --format; the formats are json, ics, vdir and todotxt",
                    command: name)
            }
            if format == .vdir {
                guard args.value("--output") == nil else {
                    throw UsageError(
                        "--output is for json, ics and todotxt; --format vdir writes into DIR", command: name)
                }
                result = .export(format: .vdir, target: try p.next("DIR"))
            } else {
                result = .export(format: format, target: args.value("--output"))
            }
        case "import":
            let from = try args.value("--from").map { (raw: String) throws(UsageError) -> ImportSource in
                guard let source = ImportSource(rawValue: raw) else {
                    throw UsageError(
                        "unsupported source \(quote(raw)) for --from; the sources are taskwarrior and todotxt",
                        command: name)
                }
                return source
            }
            result = .importFile(path: try p.next("FILE"), from: from)
        case "undo" where args.has("--list"):
            result = .history(
                limit: try args.value("--limit").map { v throws(UsageError) in try limit(v, "--limit", name) })
        case "undo", "redo":
            if args.has("--limit") { throw UsageError("--limit goes with --list", command: name) }
            let steps = try p.peek() == nil ? 1 : Int(limit(p.next("STEPS"), "STEPS", name) as Int64)
            guard steps <= 10_000 else { // StoreUndoParams.maxSteps
                throw UsageError("invalid STEPS \(steps): at most 10000", command: name)
            }
            result = .undo(steps: steps, redo: name == "redo")
        case "help":
            let topic = p.rest().first
            if let topic, !Parser.commandNames.contains(topic), config.aliases[topic] == nil {
                throw UsageError(
                    "no help for unknown command \(quote(topic))"
                        + Suggestion.hint(for: topic, in: Parser.commandNames + config.aliases.keys.sorted()),
                    command: "help")
            }
            return .help(topic: topic)
        default:
            throw UsageError("unknown command \(quote(name))", command: nil)
        }
        try p.finish()
        return result
    }

    /// `agenda --days N`: 1…366.
    func days(_ text: String) throws(UsageError) -> Int {
        guard let n = Int(text), n >= 1, n <= Agenda.maxDays else {
            throw UsageError(
                "invalid value \(quote(text)) for --days: expected a number of days from 1 to \(Agenda.maxDays)",
                command: "agenda")
        }
        return n
    }

    func add(_ args: Arguments, _ p: inout Positionals) throws(UsageError) -> AddOptions {
        // Several words form one title, as in Taskwarrior: `todoctl add buy milk`.
        let words = p.rest()
        guard !words.isEmpty else {
            // `add "-dash title"` reads as options: a title starting with "-" goes after `--`.
            if let dashed = args.dashed.first {
                throw UsageError(
                    "missing TITLE; \(quote(dashed)) was read as options: to start a title with -, put it after --: "
                        + "todoctl add -- \(quote(dashed))", command: "add")
            }
            throw UsageError("missing TITLE", command: "add")
        }
        var options = AddOptions(title: words.joined(separator: " "))
        options.top = args.has("--top")
        if let after = args.value("--after") {
            guard !options.top else { throw UsageError("--top and --after cannot be used together", command: "add") }
            options.after = try id(after, "todo id for --after", "add")
        }
        // Each field its option sets, in the order of the fields: `--every` after `--due` (the
        // rule's first day is the due date when there is none), `--remind` last (it counts from both).
        var due: When?
        for field in TodoField.allCases {
            switch field {
            case .title: break // the words
            case .notes: options.notes = args.value("--notes")
            case .category: options.category = args.value("--category")
            case .due:
                due = try args.value("--due").map { v throws(UsageError) in try whenValue(v, "--due", "add") }
                if let given = due, let every = args.value("--every") {
                    due = try Every.snap(given, to: every, now: now, timeZone: timeZone, command: "add")
                }
            case .priority:
                options.priority = try args.value("--priority").map { v throws(UsageError) in
                    try priority(v, "--priority", "add")
                }
            case .tags: options.tags = try tags(args, "--tag", "add")
            case .recurrence:
                guard let text = args.value("--every") else { break }
                let every = try Every.parse(text, due: due?.instant, now: now, timeZone: timeZone, command: "add")
                options.recurrence = every.recurrence
                // Without --due, a rule's first occurrence from today is the (all-day) due date.
                if due == nil {
                    let first = try Every.firstDue(every, text: text, now: now, timeZone: timeZone, command: "add")
                    due = When(instant: first, allDay: true)
                }
            case .parent:
                options.parent = try args.value("--parent").map { v throws(UsageError) in
                    try id(v, "todo id for --parent", "add")
                }
            case .start:
                options.start = try args.value("--start").map { v throws(UsageError) in try when(v, "--start", "add") }
            case .alarms:
                options.due = due?.instant
                options.allDay = due?.allDay ?? false
                let reminds = args.values("--remind")
                if args.has("--nag-count"), !args.has("--nag") {
                    throw UsageError("--nag-count goes with --nag", command: "add")
                }
                if reminds.count > 1 || args.has("--nag") {
                    options.alarms = try alarms(args, reminds, due: due, start: options.start, command: "add")
                } else if let text = args.value("--remind") {
                    options.remind = try remind(
                        text, due: try due.map { d throws(UsageError) in try anchor(d, "add") }, command: "add")
                } else if let due, due.allDay {
                    options.remind = try anchor(due, "add")
                }
            // Given with the due date (`zone`, `allDay`: below), or not by add.
            case .id, .uid, .remind, .reminded, .done, .completed, .position, .created, .updated, .zone, .allDay,
                .revision, .subtasks, .parentUid:
                break
            }
        }
        // The zone the dates were given in; a todo without dates has none to tell.
        if options.due != nil || options.remind != nil || options.alarms != nil { options.zone = zoneName }
        return options
    }

    func list(_ args: Arguments) throws(UsageError) -> ListOptions {
        var options = ListOptions()
        let statuses = ["--open", "--done", "--all"].filter(args.has)
        if statuses.count > 1 {
            throw UsageError("\(statuses[0]) and \(statuses[1]) cannot be used together", command: "list")
        }
        switch statuses.first {
        case "--done": options.query.status = .done
        case "--all": options.query.status = .all
        default: options.query.status = .open
        }
        if args.has("--category") && args.has("--no-category") {
            throw UsageError("--category and --no-category cannot be used together", command: "list")
        }
        // `-c 仕事` takes in 仕事.会議 and 仕事/会議 too; `-c =仕事` only 仕事 itself.
        if let name = args.value("--category") {
            options.query.subcategories = !name.hasPrefix("=")
            options.query.category = name.hasPrefix("=") ? String(name.dropFirst()) : name
        }
        options.query.uncategorized = args.has("--no-category")
        options.query.overdue = args.has("--overdue")
        options.query.dueBefore = try args.value("--due-before").map { v throws(UsageError) in
            throughEndOf(try when(v, "--due-before", "list"))
        }
        options.query.dueAfter = try args.value("--due-after").map { v throws(UsageError) in
            try when(v, "--due-after", "list")
        }
        if args.has("--search") && args.has("--search-exact") {
            throw UsageError("--search and --search-exact cannot be used together", command: "list")
        }
        options.query.search = args.value("--search")
        if let text = args.value("--search-exact") {
            options.query.search = text
            options.query.searchMode = .exact
        }
        if let keys = args.value("--sort") {
            options.query.sort = try sortKeys(keys)
        } else if let keys = config.sort {
            options.query.sort = keys
        }
        options.query.limit = try args.value("--limit").map { v throws(UsageError) in try limit(v, "--limit", "list") }
        options.byCategory = args.has("--by-category")
        try listFields(args, into: &options.query)
        options.hidesFutureStarts = options.query.ready && !args.has("--ready")
        return options
    }

    func edit(_ args: Arguments, _ p: inout Positionals) throws(UsageError) -> EditOptions {
        try edit(args, id: try id(p.next("ID"), "todo id", "edit"))
    }

    func edit(_ args: Arguments, id: Int64) throws(UsageError) -> EditOptions {
        for option in FieldOption.all where option.clear == .flag {
            if let clear = option.clearName, args.has(option.name) && args.has(clear) {
                throw UsageError("\(option.name) and \(clear) cannot be used together", command: "edit")
            }
        }
        var options = EditOptions(id: id)
        options.remindTime = remindTime
        var newDue: When?
        // Each field its options change, in the order of the fields (`--remind` last: it counts from `--due`).
        for field in TodoField.allCases {
            switch field {
            case .title: options.title = args.value("--title")
            case .notes: options.notes = try change(args, "--notes") { $0 }
            case .category: options.category = try change(args, "--category") { $0 }
            case .due:
                if let text = args.value("--due") {
                    var due = try whenValue(text, "--due", "edit")
                    if let every = args.value("--every") {
                        due = try Every.snap(due, to: every, now: now, timeZone: timeZone, command: "edit")
                    }
                    newDue = due
                    options.due = .set(due.instant)
                    options.dueAllDay = due.allDay
                } else if args.has("--no-due") {
                    options.due = .clear
                }
            case .priority:
                options.priority = try change(args, "--priority") { v throws(UsageError) in
                    try priority(v, "--priority", "edit")
                }
            case .tags:
                options.addTags = try tags(args, "--tag", "edit")
                options.removeTags = try tags(args, "--untag", "edit")
                if let both = options.addTags.first(where: { tag in
                    options.removeTags.contains { Validation.tagKey($0) == Validation.tagKey(tag) }
                }) {
                    throw UsageError("tag \(quote(both)) is both added (--tag) and removed (--untag)", command: "edit")
                }
            case .recurrence:
                if let text = args.value("--every") {
                    let due = try args.value("--due").map { v throws(UsageError) in try when(v, "--due", "edit") }
                    let every = try Every.parse(text, due: due, now: now, timeZone: timeZone, command: "edit")
                    options.recurrence = .set(every.recurrence)
                    if !args.has("--due") {
                        options.firstDue = try Every.firstDue(
                            every, text: text, now: now, timeZone: timeZone, command: "edit")
                    }
                } else if args.has("--no-every") {
                    options.recurrence = .clear
                }
            case .parent:
                options.parent = try change(args, "--parent") { v throws(UsageError) in
                    try self.id(v, "todo id for --parent", "edit")
                }
            case .start:
                options.start = try change(args, "--start") { v throws(UsageError) in try when(v, "--start", "edit") }
            case .alarms: try editReminder(args, newDue: newDue, into: &options)
            // Given with the due date (`zone`: below), or not by edit.
            case .id, .uid, .remind, .reminded, .done, .completed, .position, .created, .updated, .zone, .allDay,
                .revision, .subtasks, .parentUid:
                break
            }
        }
        options.ifRevision = try args.value("--if-revision").map { v throws(UsageError) in
            try limit(v, "--if-revision", "edit")
        }
        if options.due != .keep || options.remind != .keep || options.alarms != nil { options.zone = zoneName }
        if options.isEmpty {
            let names = FieldOption.all.flatMap { [$0.name] + ($0.clearName.map { [$0] } ?? []) }
            throw UsageError(
                "nothing to change: give at least one of \(names.joined(separator: ", "))", command: "edit")
        }
        return options
    }

    /// A field option's change on `edit`: its value read by `read`, or `.clear` for its `--no-X`.
    func change<Value>(_ args: Arguments, _ option: String, read: (String) throws(UsageError) -> Value)
        throws(UsageError) -> FieldChange<Value>
    {
        if let text = args.value(option) { return .set(try read(text)) }
        return args.has("--no-" + option.dropFirst(2)) ? .clear : .keep
    }

    /// `edit`'s `--remind`s, `--nag`, `--no-remind`: the alarms or the one reminder, `newDue` the
    /// `--due` given.
    func editReminder(_ args: Arguments, newDue: When?, into options: inout EditOptions) throws(UsageError) {
        if args.has("--remind-clear"), args.has("--no-remind") {
            throw UsageError("--remind-clear and --no-remind say the same: give one", command: "edit")
        }
        let reminds = args.values("--remind")
        if args.has("--nag-count"), !args.has("--nag") {
            throw UsageError("--nag-count goes with --nag", command: "edit")
        }
        if reminds.count > 1 || args.has("--nag") {
            if case .clear = options.due, reminds.contains(where: TimeExpression.isLead) {
                throw UsageError(
                    "--remind \(quote(reminds.first(where: TimeExpression.isLead) ?? "")) counts back from the due time, but --no-due clears it",
                    command: "edit")
            }
            options.alarms = try alarms(args, reminds, due: newDue, start: nil, command: "edit")
        } else if let text = args.value("--remind") {
            if TimeExpression.isLead(text) {
                let usec: Int64
                do { usec = try TimeExpression.lead(text) } catch {
                    throw UsageError(error.naming("--remind"), command: "edit")
                }
                switch options.due {
                case .set:
                    options.remind = .at(
                        try remind(
                            text, due: try newDue.map { d throws(UsageError) in try anchor(d, "edit") }, command: "edit"
                        ))
                case .clear:
                    throw UsageError(
                        "--remind \(quote(text)) counts back from the due time, but --no-due clears it", command: "edit"
                    )
                case .keep: options.remind = .beforeCurrentDue(usec)
                }
            } else {
                options.remind = .at(try remind(text, due: nil, command: "edit"))
            }
        } else if args.has("--no-remind") || args.has("--remind-clear") {
            options.remind = .clear
        } else if newDue != nil {
            options.remind = .followDue
        }
    }

    func move(_ args: Arguments, _ p: inout Positionals) throws(UsageError) -> Command {
        let todo = try id(p.next("ID"), "todo id", "move")
        return .move(id: todo, to: try moveDestination(args))
    }

    func moveDestination(_ args: Arguments) throws(UsageError) -> MoveDestination {
        let targets = ["--to", "--before", "--after", "--top", "--bottom"].filter(args.has)
        guard targets.count == 1 else {
            throw UsageError(
                targets.isEmpty
                    ? "missing target: give one of --to N, --before ID, --after ID, --top, --bottom"
                    : "\(targets[0]) and \(targets[1]) cannot be used together; give exactly one target",
                command: "move")
        }
        let destination: MoveDestination
        switch targets[0] {
        case "--to": destination = .position(try limit(args.value("--to") ?? "", "--to", "move"))
        case "--before": destination = .before(try id(args.value("--before") ?? "", "todo id for --before", "move"))
        case "--after": destination = .after(try id(args.value("--after") ?? "", "todo id for --after", "move"))
        case "--top": destination = .position(1)
        default: destination = .bottom
        }
        return destination
    }

    // MARK: - Acts on many todos

    /// Whether `done|reopen|rm|edit|move|snooze` is an act on many (`act`): a filter, `--all`,
    /// or several ids for the commands that otherwise take one.
    func isAct(_ name: String, _ args: Arguments) -> Bool {
        if !args.filters.isEmpty || args.has("--all") { return true }
        let ids = args.positionals.prefix { Parser.isIDList($0) }
        switch name {
        case "edit", "move": return ids.count > 1 || ids.contains { $0.dropFirst().contains("-") }
        case "snooze":
            // `snooze 5 6 2h`: ids, then one DURATION|WHEN (a last plain number is an id too).
            let given =
                args.positionals.count > 1 && Parser.positiveInteger(args.positionals.last ?? "") == nil
                ? Array(args.positionals.dropLast()) : args.positionals
            return given.count > 1 || given.contains { $0.dropFirst().contains("-") }
        default: return false
        }
    }

    /// An act on many todos: which (ids, or the filter read as `list` reads it) and what to do.
    func act(_ name: String, _ args: Arguments, _ p: inout Positionals) throws(UsageError) -> Command {
        let all = args.filters.contains { $0.name == "--all" } || args.has("--all")
        var filter = Arguments(command: "list")
        filter.options = args.filters.filter { $0.name != "--all" }
        var words = p.rest()
        var until: Instant?
        if name == "snooze", let last = words.last {
            // With a filter, a word is the DURATION|WHEN; after ids, a last word that is not a plain number.
            let filtered = !filter.options.isEmpty || all
            if filtered ? words.count == 1 : (words.count > 1 && Parser.positiveInteger(last) == nil) {
                until = try snoozeTime(words.removeLast())
            }
        }
        var text = ""
        if name == "annotate" {
            let idWords = words.prefix { Parser.isIDList($0) }
            text = words.dropFirst(idWords.count).joined(separator: " ")
            words = Array(idWords)
            guard !Validation.trimmed(text).isEmpty else { throw UsageError("missing TEXT", command: name) }
        }
        var ids: [Int64] = []
        if !words.isEmpty {
            var q = Positionals(words, command: name)
            ids = try self.ids(&q, name)
        }
        let targets: ActTargets
        if !filter.options.isEmpty || all {
            guard ids.isEmpty else {
                throw UsageError("give ids or a filter (or --all), not both", command: name)
            }
            var options: ListOptions
            do { options = try list(filter) } catch { throw UsageError(error.message, command: name) }
            options.query.tree = false
            options.byCategory = false
            // `reopen -c 仕事` reopens the done ones.
            if name == "reopen", !filter.has("--open"), !filter.has("--done") { options.query.status = .done }
            targets = .filter(options)
        } else if !ids.isEmpty {
            targets = .ids(ids)
        } else {
            throw UsageError(
                "missing ID: give ids, a filter as list takes (-c NAME, --due-before WHEN, ...) or --all", command: name
            )
        }
        let verb: ActVerb
        switch name {
        case "done": verb = .done(stop: args.has("--stop"))
        case "reopen": verb = .reopen
        case "rm": verb = .remove(recursive: args.has("--recursive"))
        case "move": verb = .move(try moveDestination(args))
        case "snooze":
            if let until {
                verb = .snooze(until)
            } else {
                guard let instant = TimeExpression.checkedAdd(now.usec, config.snooze) else {
                    throw UsageError("the configured snooze reaches past the year 9999", command: name)
                }
                verb = .snooze(instant)
            }
        case "annotate": verb = .annotate(text)
        case "dismiss": verb = .dismiss(try alarmChoice(args.value("--alarm")))
        default:
            let fields = args.options.contains { $0.name != "--all" && $0.name != "--yes" }
            verb = fields ? .edit(try edit(args, id: 1)) : .editLines
        }
        return .act(ActOptions(verb: verb, targets: targets, yes: args.has("--yes")))
    }

    /// `dismiss --alarm UID|N`: a plain number up to `Alarm.maxPerTodo` is the N-th alarm as
    /// `show` lists them, anything else a uid.
    func alarmChoice(_ text: String?) throws(UsageError) -> AlarmChoice? {
        guard let text else { return nil }
        if let n = Parser.positiveInteger(text), n <= Alarm.maxPerTodo { return .index(Int(n)) }
        guard !text.isEmpty, text != "0", !text.contains(where: { $0 == " " || $0.isNewline }) else {
            throw UsageError(
                "invalid --alarm \(quote(text)): give the alarm's number as show lists it (1 is the first) or its uid",
                command: "dismiss")
        }
        return .uid(text)
    }

    func category(_ args: Arguments, _ p: inout Positionals) throws(UsageError) -> CategoryCommand {
        let sub = try subcommand(of: "category", Parser.categorySubcommands, args, &p)
        switch sub {
        case "list": return .list
        case "add": return .add(name: try p.next("NAME"))
        case "rename": return .rename(name: try p.next("NAME"), newName: try p.next("NEWNAME"))
        case "rm": return .remove(name: try p.next("NAME"), force: args.has("--force"))
        default:
            let name = try p.next("NAME")
            guard let to = args.value("--to") else {
                throw UsageError("missing --to N for 'category move'", command: "category")
            }
            return .move(name: name, position: try limit(to, "--to", "category"))
        }
    }

    // MARK: - Values

    /// `ID...` with ranges (`3-5 9`): in the order given, each id once.
    func ids(_ p: inout Positionals, _ command: String) throws(UsageError) -> [Int64] {
        let first = try p.next("ID")
        var result: [Int64] = []
        var seen = Set<Int64>()
        for text in [first] + p.rest() {
            let (low, high) = try idRange(text, command)
            guard high - low < Int64(Parser.maxIds) - Int64(result.count) else {
                throw UsageError(
                    "too many ids: at most \(Parser.maxIds) at once (\(quote(text)) would make more)", command: command)
            }
            for value in low...high where seen.insert(value).inserted { result.append(value) }
        }
        return result
    }

    /// One id (`7`, as 7...7) or an inclusive range (`3-5`).
    func idRange(_ text: String, _ command: String) throws(UsageError) -> (Int64, Int64) {
        guard let dash = text.firstIndex(of: "-"), dash != text.startIndex else {
            let value = try id(text, "todo id", command)
            return (value, value)
        }
        guard let low = Parser.positiveInteger(String(text[..<dash])),
            let high = Parser.positiveInteger(String(text[text.index(after: dash)...]))
        else {
            throw UsageError(
                "invalid todo id range \(quote(text)): expected FIRST-LAST, two positive integers (3-5)",
                command: command)
        }
        guard low <= high else {
            throw UsageError(
                "invalid todo id range \(quote(text)): it runs backwards; write \(high)-\(low)", command: command)
        }
        return (low, high)
    }

    /// A positive integer id.
    func id(_ text: String, _ what: String, _ command: String) throws(UsageError) -> Int64 {
        guard let value = Parser.positiveInteger(text) else {
            throw UsageError("invalid \(what) \(quote(text)): expected a positive integer", command: command)
        }
        return value
    }

    /// A seq (`watch --since`): a non-negative integer.
    func seq(_ text: String, _ option: String, _ command: String) throws(UsageError) -> Int64 {
        guard text == "0" || Parser.positiveInteger(text) != nil, let value = Int64(text) else {
            throw UsageError(
                "invalid value \(quote(text)) for \(option): expected a change number (seq), 0 or more",
                command: command)
        }
        return value
    }

    /// A positive integer for `--limit` or `--to`.
    func limit(_ text: String, _ option: String, _ command: String) throws(UsageError) -> Int64 {
        guard let value = Parser.positiveInteger(text) else {
            throw UsageError(
                "invalid value \(quote(text)) for \(option): expected a positive integer", command: command)
        }
        return value
    }

    func limit(_ text: String, _ option: String, _ command: String) throws(UsageError) -> Int {
        let value: Int64 = try limit(text, option, command)
        guard value <= Int64(TodoQuery.maxLimit) else {
            throw UsageError(
                "invalid value \(quote(text)) for \(option): at most \(TodoQuery.maxLimit)", command: command)
        }
        return Int(value)
    }

    /// ASCII digits only (no sign, no spaces), 1 … Int64.max.
    static func positiveInteger(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(text), value > 0 else {
            return nil
        }
        return value
    }

    func when(_ text: String, _ option: String, _ command: String) throws(UsageError) -> Instant {
        try whenValue(text, option, command).instant
    }

    /// A `--due-before` bound: one at 23:59:59 local (`eod`, `eom`, `月末`) covers that last second
    /// too, so what is due at `eod` itself is "due before the end of the day".
    func throughEndOf(_ bound: Instant) -> Instant {
        guard bound.usec % 1_000_000 == 0, LocalTime(bound, in: timeZone).secondOfDay == 86_399 else { return bound }
        return TimeExpression.checkedAdd(bound.usec, 1_000_000) ?? bound
    }

    /// A WHEN with whether it is all-day.
    func whenValue(_ text: String, _ option: String, _ command: String) throws(UsageError) -> When {
        do {
            return try TimeExpression.when(text, now: now, timeZone: timeZone, remindTime: remindTime)
        } catch {
            throw UsageError(error.naming(option), command: command)
        }
    }

    /// What a reminder of a todo due at `due` counts from: the due time, or the morning of an all-day due.
    func anchor(_ due: When, _ command: String) throws(UsageError) -> Instant {
        guard let anchor = TimeExpression.reminderAnchor(due, remindTime: remindTime, timeZone: timeZone) else {
            throw UsageError(
                "the reminder of a todo due \(quote(LocalTime(due.instant, in: timeZone).text)) falls outside the years 0001 to 9999",
                command: command)
        }
        return anchor
    }

    /// The default `--nag-count`: how many times a nagging alarm repeats after it first fires.
    static let defaultNagCount = 6

    /// The alarms of several `--remind`s, or of `--nag`: a DURATION is that long before the due
    /// time (relative to it, so it follows the due; for an all-day due, before that day's morning
    /// time, `remind-time`), or before the start without a due; a WHEN is that instant. `--nag D`
    /// makes each repeat every D, `--nag-count` times (default 6), until done or dismissed;
    /// without `--remind` it nags from the due time.
    func alarms(_ args: Arguments, _ reminds: [String], due: When?, start: Instant?, command: String) throws(UsageError)
        -> [Alarm]
    {
        var nag: (count: Int, usec: Int64)? = nil
        if let text = args.value("--nag") {
            let usec: Int64
            do { usec = try TimeExpression.duration(text) } catch {
                throw UsageError(error.naming("--nag"), command: command)
            }
            guard usec >= 60_000_000 else {
                throw UsageError("--nag \(quote(text)): nag at most once a minute (1m or more)", command: command)
            }
            var count = Parser.defaultNagCount
            if let n = args.value("--nag-count") {
                guard let v = Int(n), (1...Alarm.maxRepeats).contains(v) else {
                    throw UsageError(
                        "--nag-count \(quote(n)): give a number of repeats from 1 to \(Alarm.maxRepeats)",
                        command: command)
                }
                count = v
            }
            nag = (count, usec)
        } else if args.has("--nag-count") {
            throw UsageError("--nag-count goes with --nag", command: command)
        }
        guard reminds.count <= Alarm.maxPerTodo else {
            throw UsageError("at most \(Alarm.maxPerTodo) --remind per todo", command: command)
        }
        var alarms: [Alarm] = []
        for text in reminds.isEmpty ? ["0m"] : reminds {
            let trigger: Alarm.Trigger
            if TimeExpression.isLead(text) || text == "0m" {
                let lead: Int64
                do { lead = text == "0m" ? 0 : try TimeExpression.lead(text) } catch {
                    throw UsageError(error.naming("--remind"), command: command)
                }
                if let due, due.allDay {
                    guard let at = TimeExpression.checkedAdd(try anchor(due, command).usec, -lead) else {
                        throw UsageError("--remind \(quote(text)) falls before the year 0001", command: command)
                    }
                    trigger = .at(at)
                } else if due != nil || command == "edit" {
                    trigger = .due(-lead)
                } else if start != nil {
                    trigger = .start(-lead)
                } else if reminds.isEmpty {
                    throw UsageError("--nag needs --due or --remind WHEN: it nags from the reminder", command: command)
                } else {
                    throw UsageError(
                        "--remind \(quote(text)) is a time before the due time, so it needs --due in the same command",
                        command: command)
                }
            } else {
                trigger = .at(try remind(text, due: nil, command: command))
            }
            var alarm = Alarm(uid: "", trigger: trigger)
            if let nag {
                alarm.repeatCount = nag.count
                alarm.intervalUsec = nag.usec
            }
            alarms.append(alarm)
        }
        return alarms
    }

    func remind(_ text: String, due: Instant?, command: String) throws(UsageError) -> Instant {
        if due == nil, TimeExpression.isLead(text) {
            throw UsageError(
                "--remind \(quote(text)) is a time before the due time, so it needs --due in the same command",
                command: command)
        }
        do {
            return try TimeExpression.remind(text, due: due, now: now, timeZone: timeZone, remindTime: remindTime)
        } catch {
            throw UsageError(error.naming("--remind"), command: command)
        }
    }

    /// `snooze`'s DURATION (from now) or WHEN.
    func snoozeTime(_ text: String) throws(UsageError) -> Instant {
        if TimeExpression.DurationParts(TimeExpression.normalize(text)) != nil {
            let usec: Int64
            do { usec = try TimeExpression.duration(text) } catch { throw UsageError(error.message, command: "snooze") }
            guard let until = TimeExpression.checkedAdd(now.usec, usec) else {
                throw UsageError("invalid duration \(quote(text)): too far in the future", command: "snooze")
            }
            return until
        }
        // A date without a time snoozes to that day's morning time.
        guard let value = TimeExpression.parseWhen(text, now: now, timeZone: timeZone, remindTime: remindTime),
            let until = TimeExpression.reminderAnchor(value, remindTime: remindTime, timeZone: timeZone)
        else {
            let forms =
                "expected a duration from now (\(TimeExpression.durationForms)) or a time (\(TimeExpression.whenForms))"
            throw UsageError(TimeExpression.whenError(text, forms: forms).message, command: "snooze")
        }
        // A snooze postpones: a time already past would fire at once, so it is refused.
        guard until > now else {
            throw UsageError(
                "cannot snooze until \(quote(text)): \(LocalTime(until, in: timeZone).text) has already passed; give a later time",
                command: "snooze")
        }
        return until
    }

    func sortKeys(_ text: String) throws(UsageError) -> [TodoQuery.SortKey] {
        switch TodoQuery.SortKey.list(text) {
        case .success(let keys): return keys
        case .failure(let bad):
            throw UsageError(
                "unknown sort key \(quote(bad.key)) in --sort; valid keys: \(Help.sortKeyList) (a leading - sorts descending)",
                command: "list")
        }
    }

    func quote(_ text: String) -> String { TimeExpression.quoted(text) }
}

/// The positional arguments of one command, taken in order.
struct Positionals {
    private var items: [String]
    private var index = 0
    let command: String

    init(_ items: [String], command: String) {
        self.items = items
        self.command = command
    }

    /// The next positional, or a usage error naming `what` is missing.
    mutating func next(_ what: String) throws(UsageError) -> String {
        guard index < items.count else { throw UsageError("missing \(what)", command: command) }
        index += 1
        return items[index - 1]
    }

    func peek() -> String? { index < items.count ? items[index] : nil }

    /// All remaining positionals.
    mutating func rest() -> [String] {
        let remaining = Array(items[index...])
        index = items.count
        return remaining
    }

    /// A usage error for any positional nobody took.
    func finish() throws(UsageError) {
        if let extra = peek() {
            throw UsageError("unexpected argument \(TimeExpression.quoted(extra))", command: command)
        }
    }
}
