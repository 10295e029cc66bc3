import TodoCore

/// todoctl's command table as plain lines, for scripts/check-docs to check the man page and the
/// shell completions against (`todoctl __command-table`; not a command, not in the help). Read
/// from the tables the parser uses, so it cannot drift from what todoctl accepts.
enum CommandTable {
    /// The hidden argument that prints the table.
    static let argument = "__command-table"

    /// One line each, fields separated by single spaces:
    /// `global OPTION ARITY`, `command NAME`, `option COMMAND OPTION ARITY`,
    /// `subcommand COMMAND NAME`, `suboption COMMAND NAME OPTION ARITY` (for category and sync), `sortkey KEY`,
    /// `short LETTER LONG` (a one-letter option, wherever LONG is an option; ShortOptions).
    static var text: String {
        var lines: [String] = []
        for (option, arity) in Parser.globalSpecs.sorted(by: { $0.key < $1.key }) {
            lines.append("global \(option) \(arity)")
        }
        for name in Parser.commandNames {
            lines.append("command \(name)")
            for (option, arity) in (Parser.commandSpecs[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("option \(name) \(option) \(arity)")
            }
        }
        for (command, subcommands) in Parser.subcommands {
            let options = Parser.commandSpecs[command] ?? [:]
            for sub in subcommands {
                lines.append("subcommand \(command) \(sub.name)")
                for option in sub.options.sorted() {
                    lines.append("suboption \(command) \(sub.name) \(option) \(options[option].map { "\($0)" } ?? "?")")
                }
            }
        }
        for field in TodoQuery.SortField.allCases { lines.append("sortkey \(field.rawValue)") }
        for (letter, long) in ShortOptions.table.sorted(by: { $0.key < $1.key })
        where Parser.globalSpecs[long] != nil || Parser.commandSpecs.values.contains(where: { $0[long] != nil }) {
            lines.append("short \(letter) \(long)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
