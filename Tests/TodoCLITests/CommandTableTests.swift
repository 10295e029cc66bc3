import Testing
import TodoCore

@testable import TodoCLI

/// `todoctl __command-table`, what scripts/check-docs checks the man page and completions against.
@Suite struct CommandTableTests {
    @Test func theTableIsWhatTheParserAccepts() {
        let result = Fixtures.run([CommandTable.argument])
        #expect(result.status == CLI.exitOK && result.stderr.isEmpty && result.connectedTo.isEmpty)
        let lines = result.stdoutLines
        #expect(lines.filter { $0.hasPrefix("command ") } == Help.entries.map { "command \($0.name)" })
        #expect(lines.contains("option add --due value") && lines.contains("option add --top flag"))
        #expect(lines.contains("global --socket value") && lines.contains("suboption category rm --force flag"))
        #expect(lines.filter { $0.hasPrefix("sortkey ") }.count == TodoQuery.SortField.allCases.count)
        // One-letter options, each standing for a long option some command (or every one) has.
        #expect(
            lines.contains("short a --all") && lines.contains("short j --json") && lines.contains("short n --limit"))
        for line in lines where line.hasPrefix("short ") {
            let f = line.split(separator: " ").map(String.init)
            #expect(ShortOptions.table[Character(f[1])] == f[2], "\(line)")
            #expect(
                Parser.globalSpecs[f[2]] != nil || Parser.commandSpecs.values.contains { $0[f[2]] != nil }, "\(line)")
        }
        // Every option line is one the parser takes for that command.
        for line in lines where line.hasPrefix("option ") {
            let f = line.split(separator: " ").map(String.init)
            #expect(Parser.commandSpecs[f[1]]?[f[2]] != nil, "\(line)")
        }
    }

    /// Every field option (`FieldOption`, one per `TodoField` with a `cliOption`) is taken by
    /// `add` (but `--title`: the title is its words) and `edit`, named in their synopsis (written
    /// by hand) and on an option line of their help (made from the table).
    @Test func everyFieldOptionIsTakenAndDocumented() throws {
        for (name, command) in [("add", FieldOption.Command.add), ("edit", .edit)] {
            let entry = try #require(Help.entries.first { $0.name == name })
            let synopsis = entry.synopsis.joined(separator: " ")
            for option in FieldOption.all(command) {
                for given in [option.name] + (command == .edit ? [option.clearName].compactMap(\.self) : []) {
                    #expect(Parser.commandSpecs[name]?[given] != nil, "\(name) \(given)")
                    #expect(synopsis.contains("[\(given) ") || synopsis.contains("| \(given)"), "\(name) \(given)")
                    #expect(entry.options.contains { $0.0.contains(given) }, "\(name) \(given)")
                }
            }
        }
        #expect(FieldOption.all(.add).map(\.name) == FieldOption.all.map(\.name).filter { $0 != "--title" })
    }

    /// Only the whole argument list prints it: it is not a command.
    @Test func itIsNotACommand() {
        let result = Fixtures.run(["--json", CommandTable.argument])
        #expect(result.status == CLI.exitUsage && result.stdout.isEmpty)
    }
}
