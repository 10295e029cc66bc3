import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A running todod whose program file is replaced (a package upgrade) runs the new program in
/// place: the same pid and listening socket, one journal line saying why, requests served right
/// after, and a reminder due while neither program fired anything fires once.
/// docs/PACKAGING.md, "Upgrading".
@Suite(.serialized) struct ProgramReplacedTests {
    /// A copy of the built todod in `dir/bin`, which the test may replace.
    /// A copy of the built todod at `dir/bin/name`, written by cp(1): no descriptor of this
    /// process is ever open on a program file for writing, so a child another test starts
    /// meanwhile cannot inherit one and make running it fail with "Text file busy".
    private func installedCopy(_ dir: TemporaryDirectory, name: String = "todod") throws -> String {
        try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
        let path = dir.file("bin/\(name)")
        try shell("cp \"$1\" \"$2\" && chmod 755 \"$2\"", BuiltProducts.path("todod"), path)
        return path
    }

    /// Replaces `path` as dpkg does: the new file written beside it, then renamed over it; with
    /// a copy of `source`, or with `script` (through a shell, as `installedCopy`).
    private func replace(_ path: String, copying source: String? = nil, script: String? = nil) throws {
        let write = source == nil ? "cat > \"$1.dpkg-new\"" : "cp \"$2\" \"$1.dpkg-new\""
        try shell(
            "\(write) && chmod 755 \"$1.dpkg-new\" && mv \"$1.dpkg-new\" \"$1\"", path, source ?? "", input: script)
    }

    private func shell(_ command: String, _ arguments: String..., input: String? = nil) throws {
        let r = try ChildProcess.run("/bin/sh", ["-c", command, "sh"] + arguments, input: input)
        #expect(r.status == 0, "\(command): \(r.stderr)")
    }

    /// The file process `pid` runs (`/proc/PID/exe`): " (deleted)" at the end when replaced.
    private func runningFile(of pid: Int32) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? "?"
    }

    /// The daemon's own lines in the journal (it runs under systemd-cat with identifier `tag`).
    private func journalLines(_ tag: String) throws -> [(message: String, pid: String, usec: Int64)] {
        try Journalctl.entries(["SYSLOG_IDENTIFIER=\(tag)"]).map {
            (
                $0["MESSAGE"]?.stringValue ?? "", $0["_PID"]?.stringValue ?? "",
                Int64($0["__REALTIME_TIMESTAMP"]?.stringValue ?? "") ?? 0
            )
        }
    }

    @Test func aReplacedProgramRunsInPlaceUnderSocketActivation() throws {
        let dir = TemporaryDirectory("replaced")
        let program = try installedCopy(dir)
        let socket = dir.file("todod.sock")
        let tag = "todod-replaced-\(UInt32.random(in: 0...UInt32.max))"
        // systemd-socket-activate passes the socket as systemd does; systemd-cat puts standard
        // error in the journal. Each execs the next: the daemon has the activator's pid.
        let daemon = try LaunchedDaemon(
            "/usr/bin/systemd-socket-activate",
            ["-l", socket, "/usr/bin/systemd-cat", "-t", tag, program, "--db", dir.file("todos.db")],
            socket: socket)
        let before = try daemon.client()
        let pid = Int32(try before.result("daemon.status")["pid"]?.intValue ?? 0)
        #expect(pid > 0)
        #expect(runningFile(of: pid) == program)
        _ = try before.result("todo.add", ["title": "前から"])

        // 1. A new build renamed over the program; a request sent at once is answered.
        try replace(program, copying: BuiltProducts.path("todod"))
        let started = Date()
        #expect(try daemon.client().result("todo.add", ["title": "直後"])["id"] == 2)
        #expect(eventually(timeout: 20) { runningFile(of: pid) == program })
        #expect(
            eventually(timeout: 20) {
                (try? journalLines(tag))?.contains { $0.message.contains("the program replaced in place") } == true
            })
        let seconds = Date().timeIntervalSince(started)
        let lines = try journalLines(tag)
        let why = lines.filter { $0.message.contains("\(program) was replaced (an upgrade?)") }
        #expect(why.count == 1, "\(lines.map(\.message))")
        #expect(why.first?.pid == String(pid))
        #expect(lines.filter { $0.message.contains("stopping") }.isEmpty, "\(lines.map(\.message))")
        // The same process, the same socket: the next client needs nothing new.
        let after = try daemon.client()
        #expect(try after.result("daemon.status")["pid"]?.intValue == Int64(pid))
        #expect(try after.result("todo.list")["total"] == 2)
        #expect(kill(pid, 0) == 0)
        // The client connected before was let go once its answers were out.
        // (At once: it is closed, not held open by the new program, which would time it out.)
        var closed = false
        do { _ = try before.receive() } catch RawClientError.closed { closed = true } catch {}
        #expect(closed)
        print("ProgramReplacedTests: replaced, served again in \(String(format: "%.2f", seconds)) s")

        // 2. Replaced by a program that takes 3 s to start (a script that sleeps, then runs another
        // copy): reminders due while nothing fires them, and after, each fire once.
        let real = try installedCopy(dir, name: "todod-real")
        let title = unique("入れ替え")
        let first = (Date().timeIntervalSince1970 + 1).rounded(.up)
        for i in 0..<4 {
            let due = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: first + Double(i)))
            _ = try after.result("todo.add", ["title": .string("\(title) \(i)"), "due": .string(due)])
        }
        try replace(program, script: "#!/bin/sh\nsleep 3\nexec '\(real)' \"$@\"\n")
        #expect(eventually(timeout: 20) { runningFile(of: pid) == real })
        #expect(try RawClient(path: socket).result("daemon.status")["pid"]?.intValue == Int64(pid))
        var fired: [JSON] = []
        for i in 0..<4 {
            let entries = try Journalctl.reminders(title: "\(title) \(i)", atLeast: 1, timeout: 20)
            #expect(entries.count == 1, "reminder \(i): \(entries.count) entries")
            fired += entries
        }
        // A sentinel due after them fires only once the program is past them (it fires in order):
        // an entry repeated by the new program would be there by then.
        let sentinel = unique("番兵")
        let sentinelDue = ISO8601DateFormatter().string(
            from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.up)))
        _ = try RawClient(path: socket).result("todo.add", ["title": .string(sentinel), "due": .string(sentinelDue)])
        #expect(try Journalctl.reminders(title: sentinel, atLeast: 1, timeout: 20).count == 1)
        for i in 0..<4 { #expect(try Journalctl.reminders(title: "\(title) \(i)", atLeast: 1, timeout: 0).count == 1) }
        #expect(fired.allSatisfy { $0["_PID"]?.stringValue == String(pid) })
        // At least one fell due while no program ran (the first is due at most 2 s after the
        // swap, the new program starts 3 s after it): the new one fired it late, as it started.
        let late = fired.compactMap { Int64($0["TODO_LATE_USEC"]?.stringValue ?? "") }
        #expect(late.contains { $0 >= 500_000 }, "\(late)")
        #expect(try journalLines(tag).filter { $0.message.contains("was replaced (an upgrade?)") }.count == 2)

        // Stopped, it leaves the activator's socket in place, as before the swaps.
        #expect(kill(pid, SIGTERM) == 0)
        #expect(eventually(timeout: 10) { kill(pid, 0) != 0 })
        #expect(try Files.kind(socket) == .socket)
    }

    /// Started by hand (todod binds its own socket): the socket stays across the swap, and the
    /// new program still removes it when stopped.
    @Test func aReplacedProgramKeepsTheSocketItMade() throws {
        let dir = TemporaryDirectory("replacedown")
        let program = try installedCopy(dir)
        let socket = dir.file("run/todod.sock")
        let daemon = try LaunchedDaemon(program, ["--socket", socket, "--db", dir.file("todos.db")], socket: socket)
        _ = try daemon.client().result("todo.add", ["title": "残る"])
        try replace(program, copying: BuiltProducts.path("todod"))
        #expect(eventually(timeout: 20) { daemon.stderr.contains("the program replaced in place") }, "\(daemon.stderr)")
        #expect(runningFile(of: daemon.pid) == program)
        #expect(try daemon.client().result("todo.list")["total"] == 1)
        #expect(kill(daemon.pid, SIGTERM) == 0)
        #expect(daemon.process.waitForExit() == 0) // (reaped here: Foundation's own status may lag)
        #expect(eventually(timeout: 5) { daemon.stderr.contains("stopping on SIGTERM") })
        let log = daemon.stderr
        #expect(log.contains("\(program) was replaced (an upgrade?)"), "\(log)")
        #expect(!log.contains("using the socket passed by systemd"), "\(log)")
        #expect(try Files.kind(socket) == .missing)
    }
}
