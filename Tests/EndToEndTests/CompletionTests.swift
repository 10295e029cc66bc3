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
        let quoted = ([BuiltProducts.path("todoctl")] + words).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
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

    /// Tags are the todos' tags, never the JSON key `tags`; ids and tags come from every todo,
    /// not from the first 200 (the 250th todo's id and tag are offered).
    @Test func idsAndTagsComeFromEveryTodo() throws {
        let d = try DaemonProcess()
        let todos: [JSON] = (1...250).map { i in
            ["title": .string("t\(i)"), "tags": i == 250 ? ["最後", "last"] : ["買い物"]]
        }
        let file = d.directory.file("many.json")
        try JSON.object(["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)]).serialized()
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try d.todoctl(["import", file]).status == 0)
        #expect(try Self.complete(d, ["add", "x", "--tag", ""]) == ["last", "最後", "買い物"].sorted())
        #expect(try Self.complete(d, ["list", "-t", "最"]) == ["最後"])
        #expect(try Self.complete(d, ["show", "25"]) == ["25", "250"])
        #expect(try Self.complete(d, ["done", "249"]) == ["249"])
        // What zsh and fish read: each id with its title; nothing, and no error, without a daemon.
        let words = try d.todoctl(["__complete", "ids", "--open", "250"])
        #expect(words.status == 0 && words.stdout == "250\tt250\n", "\(words.stdout)\(words.stderr)")
        let away = try d.todoctl(["--socket", d.directory.file("none.sock"), "__complete", "tags"])
        #expect(away.status == 0 && away.stdout.isEmpty && away.stderr.isEmpty, "\(away.stderr)")
    }

    /// The same through fish (`complete -C`), where fish is installed; the built todoctl first on PATH.
    @Test func fishOffersOpenTodosForDone() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/fish") else { return }
        let d = try DaemonProcess()
        for title in ["a", "b"] { #expect(try d.todoctl(["add", title]).status == 0) }
        #expect(try d.todoctl(["done", "2"]).status == 0)
        let fish = URL(fileURLWithPath: Self.script).deletingLastPathComponent().appendingPathComponent("todoctl.fish")
            .path
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = d.socket
        env["PATH"] =
            URL(fileURLWithPath: BuiltProducts.path("todoctl")).deletingLastPathComponent().path + ":"
            + (env["PATH"] ?? "/usr/bin:/bin")
        func complete(_ line: String) throws -> [String] {
            let result = try ChildProcess.run(
                "/usr/bin/fish", ["--no-config", "-c", "source '\(fish)'; complete -C '\(line)'"], environment: env)
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }.sorted()
        }
        #expect(try complete("todoctl done ") == ["1"])
        #expect(try complete("todoctl reopen ") == ["2"])
        #expect(try complete("todoctl rm ") == ["1", "2"])
    }
}
