import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

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
        if staleSocket {
            script += " && touch /run/systemd/journal/socket && mount --bind \"$3\" /run/systemd/journal/socket"
        }
        script += " && exec \"$0\" --socket \"$1\" --db \"$2\""
        let daemon = try LaunchedDaemon(
            "/usr/bin/unshare",
            [
                "-m", "--propagation", "private", "sh", "-c", script,
                BuiltProducts.path("todod"), socket, dir.file("todos.db"), stale
            ], socket: socket)
        let c = try daemon.client()
        let title = unique("stderr")
        _ = try c.result("todo.add", ["title": .string(title), "due": .string(rfc3339(in: 1))])
        // The reminder falls due within a second: its line on standard error is the event.
        #expect(eventually(timeout: 15) { daemon.stderr.contains(title) })
        #expect(try c.result("todo.list")["total"] == 1) // still serving
        let listed = try c.call("reminder.list")
        #expect(listed["error"]?["code"] == -32004)
        #expect(listed["error"]?["message"]?.stringValue?.contains("no journal") == true)
        let text = daemon.stop()
        let lines = text.split(separator: "\n")
        #expect(lines.filter { $0.contains("no journal") }.count == 1)
        let reminder = lines.filter { $0.contains(title) }
        #expect(reminder.count == 1)
        #expect(reminder.first?.contains("TODO_ID=1") == true && reminder.first?.contains("TODO_LATE_USEC=") == true)
        #expect(try Journalctl.reminders(title: title, atLeast: 1, timeout: 0.5).isEmpty)
    }
}
