import Foundation
import Testing
import TodoTestSupport

/// The help texts of the built binaries against the files in `Golden/` beside this file:
/// `todoctl --help`, `todoctl help COMMAND` for every command `todoctl --help` lists, and
/// `todod --help`. A changed help text fails here and shows up as a diff of those files.
///
/// To accept a change, regenerate the files and review their diff:
///
///     TODOD_GOLDEN_UPDATE=1 swift test --filter HelpGoldenTests
///
/// (the test then rewrites every file it compares, writes new ones for new commands, and fails
/// only for files it could not write).
@Suite struct HelpGoldenTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        .path
    static let updating = ProcessInfo.processInfo.environment["TODOD_GOLDEN_UPDATE"] == "1"

    /// The output of a built binary, run with a fixed, small environment.
    static func output(_ program: String, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run(
            BuiltProducts.path(program), arguments, environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"])
        #expect(result.status == 0, "\(program) \(arguments.joined(separator: " ")): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(program) \(arguments.joined(separator: " ")): \(result.stderr)")
        return result.stdout
    }

    /// Compares `actual` with the golden file `name` (or rewrites it when updating).
    static func check(_ actual: String, against name: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let path = directory + "/" + name
        if updating {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        guard let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
            Issue.record(
                "no golden file \(name): run with TODOD_GOLDEN_UPDATE=1 to write it", sourceLocation: sourceLocation)
            return
        }
        guard actual != expected else { return }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var diff: [String] = []
        for i in 0..<max(old.count, new.count) where i >= old.count || i >= new.count || old[i] != new[i] {
            if i < old.count { diff.append("-\(i + 1): \(old[i])") }
            if i < new.count { diff.append("+\(i + 1): \(new[i])") }
        }
        let shown = diff.prefix(40).joined(separator: "\n")
        Issue.record(
            "\(name) differs from the built binary's help (TODOD_GOLDEN_UPDATE=1 rewrites it):\n\(shown)",
            sourceLocation: sourceLocation)
    }

    /// The commands `todoctl --help` lists: the first word of each line of its Commands section.
    static func commands(in help: String) -> [String] {
        var names: [String] = []
        var inCommands = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "Commands:" {
                inCommands = true
                continue
            }
            guard inCommands else { continue }
            if line.isEmpty { break }
            guard line.hasPrefix("  "), let first = line.dropFirst(2).first, first.isLetter,
                let word = line.dropFirst(2).split(separator: " ").first
            else { continue }
            if !names.contains(String(word)) { names.append(String(word)) }
        }
        return names
    }

    @Test func todoctlHelp() throws {
        let help = try Self.output("todoctl", ["--help"])
        try Self.check(help, against: "todoctl-help.txt")
        #expect(try Self.output("todoctl", ["help"]) == help)
    }

    @Test func todoctlHelpForEachCommand() throws {
        let commands = Self.commands(in: try Self.output("todoctl", ["--help"]))
        #expect(commands.count >= 10 && commands.contains("add") && commands.contains("category"), "\(commands)")
        for command in commands {
            let help = try Self.output("todoctl", ["help", command])
            try Self.check(help, against: "todoctl-help-\(command).txt")
        }
        // No golden file outlives its command.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: Self.directory)) ?? []
        let stale = files.filter {
            $0.hasPrefix("todoctl-help-") && !commands.map { "todoctl-help-\($0).txt" }.contains($0)
        }
        #expect(stale.isEmpty, "golden files of commands todoctl no longer lists: \(stale)")
    }

    @Test func tododHelp() throws {
        try Self.check(try Self.output("todod", ["--help"]), against: "todod-help.txt")
    }
}
