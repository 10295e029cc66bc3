import Foundation
import Testing
import TodoTestSupport

/// `ChildProcess`, which most end-to-end tests start todoctl, todod and tools through: started
/// with posix_spawn, many at once from parallel tests, with input, both outputs, status and
/// environment intact.
@Suite struct ChildProcessTests {
    /// 64 children started from many threads at once (as Swift Testing runs tests), each with
    /// its own input, environment, output, errors and status.
    @Test func manyChildrenAtOnceKeepTheirOwnStreams() throws {
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            do {
                let result = try ChildProcess.run(
                    "/bin/sh", ["-c", "cat; printf '%s' \"$WORD\" >&2; exit \(i % 7)"],
                    input: "入力 \(i)\n", environment: ["WORD": "エラー \(i)", "PATH": "/usr/bin:/bin"])
                if result.status != Int32(i % 7) || result.stdout != "入力 \(i)\n" || result.stderr != "エラー \(i)" {
                    failures.mutate { $0.append("\(i): \(result)") }
                }
            } catch {
                failures.mutate { $0.append("\(i): \(error)") }
            }
        }
        #expect(failures.value.isEmpty, "\(failures.value)")
    }

    /// A child that writes more than a pipe holds before it reads its input: the input is
    /// written while the output is read (writing all of it first waited forever).
    @Test(.timeLimit(.minutes(1))) func largeInputAndOutputDoNotDeadlock() throws {
        let input = String(repeating: "あ", count: 100_000) // 300,000 bytes
        let result = try ChildProcess.run(
            "/bin/sh",
            ["-c", "head -c 300000 /dev/zero | tr '\\0' x; head -c 200000 /dev/zero | tr '\\0' y >&2; wc -c"],
            input: input)
        #expect(result.status == 0)
        #expect(result.stdout.utf8.count == 300_000 + "300000\n".utf8.count)
        #expect(result.stdout.hasSuffix("300000\n"))
        #expect(result.stderr.utf8.count == 200_000)
    }

    /// A name is looked up on PATH; this process's environment is passed on when none is given;
    /// a child killed by a signal reports 128 + the signal; a child that exits without reading
    /// its input does not take the tests down with SIGPIPE.
    @Test func pathEnvironmentSignalsAndUnreadInput() throws {
        #expect(try ChildProcess.run("printf", ["%s", "名前"]).stdout == "名前")
        let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
        #expect(try ChildProcess.run("/bin/sh", ["-c", "printf '%s' \"$HOME\""]).stdout == home)
        #expect(try ChildProcess.run("/bin/sh", ["-c", "kill -TERM $$"]).status == 128 + 15)
        #expect(try ChildProcess.run("no-such-program-todod").status == 127)
        let unread = try ChildProcess.run("/bin/true", input: String(repeating: "x", count: 1 << 20))
        #expect(unread.status == 0)
    }

    /// With a timeout, a child still running then is killed with everything it started.
    @Test func aTimeoutKillsTheChildAndItsChildren() throws {
        let start = Date()
        let result = try ChildProcess.run("/bin/sh", ["-c", "sleep 60 & sleep 60; echo never"], timeout: 0.5)
        #expect(result.status == 128 + 9)
        #expect(result.stdout.isEmpty)
        // The background sleep held the pipes too: returning at all means it was killed as well.
        #expect(Date().timeIntervalSince(start) < 30)
    }
}
