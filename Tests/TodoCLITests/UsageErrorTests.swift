import Testing
import TodoProtocol

@testable import TodoCLI

/// Usage errors: exit 2, one `todoctl:` line naming the culprit, a blank line, the usage; no daemon.
@Suite struct UsageErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        /// Text the first line must contain.
        var mentions: [String]
        /// The command whose usage follows (nil: the overview).
        var usage: String?
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["add", "x", "--frob"], mentions: ["unknown option --frob"], usage: "add"),
        Case(arguments: ["--frob", "list"], mentions: ["unknown option --frob"], usage: nil),
        Case(arguments: ["list", "-x"], mentions: ["-x"], usage: "list"),
        Case(arguments: ["list", "--top"], mentions: ["--top"], usage: "list"),
        Case(arguments: ["add", "x", "--due"], mentions: ["--due", "needs a value"], usage: "add"),
        Case(arguments: ["add", "x", "--due", "--top"], mentions: ["--due", "needs a value"], usage: "add"),
        Case(arguments: ["add", "x", "--top=yes"], mentions: ["--top", "does not take a value"], usage: "add"),
        Case(arguments: ["add"], mentions: ["missing TITLE"], usage: "add"),
        Case(arguments: ["show", "abc"], mentions: ["\"abc\"", "positive integer"], usage: "show"),
        Case(arguments: ["show", "0"], mentions: ["\"0\""], usage: "show"),
        Case(arguments: ["show", "-5"], mentions: ["-5"], usage: "show"),
        Case(arguments: ["show"], mentions: ["missing ID"], usage: "show"),
        Case(arguments: ["show", "1", "2"], mentions: ["unexpected argument \"2\""], usage: "show"),
        Case(arguments: ["done", "1", "x2"], mentions: ["\"x2\""], usage: "done"),
        Case(arguments: ["rm"], mentions: ["missing ID"], usage: "rm"),
        Case(
            arguments: ["add", "x", "--due", "next blursday"], mentions: ["\"next blursday\"", "--due", "RFC 3339"],
            usage: "add"),
        Case(arguments: ["list", "--due-before", "soon"], mentions: ["\"soon\"", "--due-before"], usage: "list"),
        Case(arguments: ["add", "x", "--remind", "15m"], mentions: ["--remind", "\"15m\"", "--due"], usage: "add"),
        Case(
            arguments: ["add", "x", "--due", "+1h", "--remind", "whenever"], mentions: ["\"whenever\"", "--remind"],
            usage: "add"),
        Case(arguments: ["snooze", "3", "later"], mentions: ["\"later\""], usage: "snooze"),
        Case(arguments: ["list", "--open", "--done"], mentions: ["--open", "--done"], usage: "list"),
        Case(
            arguments: ["list", "--category", "a", "--no-category"], mentions: ["--category", "--no-category"],
            usage: "list"),
        Case(
            arguments: ["list", "--sort", "title,urgency"],
            mentions: ["\"urgency\"", "id, title, created, updated, due, position, category, priority"], usage: "list"),
        Case(arguments: ["list", "--sort", ""], mentions: ["sort key"], usage: "list"),
        Case(arguments: ["list", "--limit", "0"], mentions: ["\"0\"", "--limit"], usage: "list"),
        Case(arguments: ["list", "--limit", "ten"], mentions: ["\"ten\"", "--limit"], usage: "list"),
        Case(arguments: ["edit", "3"], mentions: ["nothing to change"], usage: "edit"),
        Case(arguments: ["edit", "3", "--due", "+1h", "--no-due"], mentions: ["--due", "--no-due"], usage: "edit"),
        Case(
            arguments: ["edit", "3", "--remind", "15m", "--no-due"], mentions: ["--remind", "--no-due"], usage: "edit"),
        Case(arguments: ["move", "3"], mentions: ["missing target"], usage: "move"),
        Case(arguments: ["move", "3", "--top", "--bottom"], mentions: ["--top", "--bottom"], usage: "move"),
        Case(arguments: ["move", "3", "--to", "0"], mentions: ["\"0\"", "--to"], usage: "move"),
        Case(arguments: ["move", "3", "--before", "x"], mentions: ["\"x\"", "--before"], usage: "move"),
        Case(arguments: ["category"], mentions: ["missing SUBCOMMAND"], usage: "category"),
        Case(arguments: ["category", "purge"], mentions: ["\"purge\""], usage: "category"),
        Case(arguments: ["category", "add", "x", "--force"], mentions: ["--force", "category add"], usage: "category"),
        Case(arguments: ["category", "move", "x"], mentions: ["--to"], usage: "category"),
        Case(arguments: ["export", "--format", "csv"], mentions: ["\"csv\"", "--format"], usage: "export"),
        Case(arguments: ["import"], mentions: ["missing FILE"], usage: "import"),
        Case(arguments: ["status", "now"], mentions: ["unexpected argument \"now\""], usage: "status"),
        Case(arguments: ["frobnicate"], mentions: ["unknown command \"frobnicate\""], usage: nil),
        Case(arguments: ["--system", "--socket", "/s", "list"], mentions: ["--socket", "--system"], usage: "list"),
        Case(arguments: ["help", "frob"], mentions: ["\"frob\""], usage: "help")
    ]

    @Test(arguments: cases)
    func usageError(_ c: Case) {
        let transport = FakeTransport()
        let result = Fixtures.run(c.arguments, transport: transport)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.connectedTo.isEmpty && transport.calls.isEmpty)
        let lines = result.stderrLines
        #expect(lines.count >= 4)
        #expect(lines.first?.hasPrefix("todoctl: ") == true)
        for text in c.mentions { #expect(lines.first?.contains(text) == true, "\(lines.first ?? "") lacks \(text)") }
        #expect(lines.dropFirst().first == "")
        let usage = lines.dropFirst(2).first ?? ""
        if let command = c.usage {
            #expect(usage.hasPrefix("Usage: todoctl \(command)"))
        } else {
            #expect(usage.hasPrefix("Usage: todoctl [--socket PATH | --system]"))
        }
    }

    @Test func helpForEveryCommand() {
        for name in Parser.commandNames {
            for arguments in [
                ["help", name], [name, "--help"], [name, "-h"], ["--help", name], ["--json", name, "--frob", "-h"]
            ] {
                let result = Fixtures.run(arguments)
                #expect(result.status == 0, "\(arguments)")
                #expect(result.stdout.hasPrefix("Usage: todoctl \(name)"), "\(arguments)")
                #expect(result.stderr == "")
                #expect(result.connectedTo.isEmpty)
            }
        }
        for arguments in [["help"], ["--help"], ["-h"]] {
            let result = Fixtures.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("Usage: todoctl [--socket PATH | --system] [--json] [COMMAND ...]"))
        }
    }

    @Test func version() {
        let result = Fixtures.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "todoctl \(TododVersion.string)\n")
        #expect(result.connectedTo.isEmpty)
    }
}
