import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// The bash completion (contrib/completions/todoctl.bash) run by bash against a real daemon, with
/// the built todoctl as the program being completed.
@Suite struct CompletionTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../contrib/completions/todoctl.bash").standardized.path

    /// What `_todoctl` offers for the command line `words`, the last one being completed.
    static func complete(_ d: DaemonProcess, _ words: [String]) throws -> [String] {
        let quoted = ([BuiltProducts.path("todoctl")] + words).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let program = """
            source '\(script)'
            COMP_WORDS=(\(quoted.joined(separator: " "))); COMP_CWORD=\(words.count)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _todoctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = d.socket
        let result = try ChildProcess.run("/bin/bash", ["--norc", "-c", program], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    @Test func doneOffersOpenTodosAndShortOptionsTheirValues() throws {
        let d = try DaemonProcess()
        for title in ["a", "b", "c"] { #expect(try d.todoctl(["add", title, "--tag", "tag-" + title]).status == 0) }
        #expect(try d.todoctl(["done", "2"]).status == 0)
        #expect(try Self.complete(d, ["done", ""]) == ["1", "3"])
        #expect(try Self.complete(d, ["reopen", ""]) == ["2"])
        #expect(try Self.complete(d, ["rm", ""]) == ["1", "2", "3"])
        #expect(try Self.complete(d, ["snooze", ""]) == ["1", "3"])
        #expect(try Self.complete(d, ["list", "-p", ""]) == ["high", "low", "medium"])
        #expect(try Self.complete(d, ["add", "x", "-t", "tag-"]) == ["tag-a", "tag-b", "tag-c"])
    }
}
