#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// Without a journal socket the daemon keeps working and writes reminders to stderr. Hides the
/// journal in a private mount namespace, so it needs root and unshare(1).
@Suite struct NoJournalTests {
    /// No journal socket at all, or one a dead journald left behind (a /run that is not a tmpfs
    /// keeps it): either way the daemon says so once and writes reminders to standard error.
    @Test(.enabled(if: getuid() == 0, "a private mount namespace needs root"), arguments: [false, true])
    func remindersGoToStandardErrorWithoutAJournal(staleSocket: Bool) throws {
        let dir = TemporaryDirectory("nojournal")
        let socket = dir.file("todod.sock")
        let stale = dir.file("stale.sock")
        Posix.close(try UnixDatagram.bind(path: stale))
        var script = "mkdir -p /run/systemd/journal && mount -t tmpfs none /run/systemd/journal"
        if staleSocket { script += " && touch /run/systemd/journal/socket && mount --bind \"$3\" /run/systemd/journal/socket" }
        script += " && exec \"$0\" --socket \"$1\" --db \"$2\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-m", "--propagation", "private", "sh", "-c", script, BuiltProducts.path("todod"), socket, dir.file("todos.db"), stale]
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitForExit() } }
        var client: RawClient?
        for _ in 0..<300 where client == nil {
            client = try? RawClient(path: socket)
            if client == nil { usleep(10_000) }
        }
        let c = try #require(client)
        let title = unique("stderr")
        _ = try c.result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try c.result("todo.list")["total"] == 1)  // still serving
        let listed = try c.call("reminder.list")
        #expect(listed["error"]?["code"] == -32004)
        #expect(listed["error"]?["message"]?.stringValue?.contains("no journal") == true)
        process.terminate()
        process.waitForExit()
        let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.filter { $0.contains("no journal") }.count == 1)
        let reminder = lines.filter { $0.contains(title) }
        #expect(reminder.count == 1)
        #expect(reminder.first?.contains("TODO_ID=1") == true && reminder.first?.contains("TODO_LATE_USEC=") == true)
        #expect(try Journalctl.reminders(title: title, atLeast: 1, timeout: 0.5).isEmpty)
    }
}
