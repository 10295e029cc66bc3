import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The paths a daemon running as root trusts: directories another user can
/// change are refused before anything is made in them, the socket gets its mode without a path,
/// and the database files are never opened through a symbolic link.
@Suite struct TrustedPathTests {
    private static let nobody: UInt32 = 65534

    /// Runs todod on `socket` and `database` and expects it to refuse at start with one line.
    private func refused(socket: String, database: String, _ expected: String) throws {
        let result = try ChildProcess.run(
            "timeout", ["-s", "KILL", "20", BuiltProducts.path("todod"), "--socket", socket, "--db", database])
        #expect(result.status == 1, "\(result.status): \(result.stderr)")
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    private func entries(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// `$XDG_RUNTIME_DIR/todod` as a link planted by the runtime directory's owner, another user.
    @Test func aSymlinkedSocketDirectoryOfAnotherUserIsRefused() throws {
        let dir = TemporaryDirectory("trust-link")
        let runtime = dir.file("run-user")
        let elsewhere = dir.file("elsewhere")
        #expect(mkdir(runtime, 0o700) == 0 && mkdir(elsewhere, 0o700) == 0)
        #expect(symlink(elsewhere, runtime + "/todod") == 0)
        #expect(lchown(runtime + "/todod", Self.nobody, Self.nobody) == 0)
        #expect(chown(runtime, Self.nobody, Self.nobody) == 0)
        try refused(
            socket: runtime + "/todod/todod.sock", database: dir.file("db/todos.db"),
            "\(runtime) belongs to uid \(Self.nobody)")
        try refused(
            socket: runtime + "/todod/deeper/todod.sock", database: dir.file("db/todos.db"),
            "belongs to uid \(Self.nobody)")
        #expect(entries(elsewhere).isEmpty)
        // The same link owned by root in a directory of root's is followed.
        #expect(chown(runtime, 0, 0) == 0 && lchown(runtime + "/todod", 0, 0) == 0)
        let daemon = try DaemonProcess(
            directory: dir, socket: runtime + "/todod/todod.sock", database: dir.file("db/todos.db"))
        #expect(entries(elsewhere) == ["todod.sock"])
        daemon.stop()
    }

    /// Existing directories writable by others, or owned by another user, are refused for the
    /// socket and for the database, and nothing is created in them.
    @Test func directoriesOthersCanChangeAreRefused() throws {
        let dir = TemporaryDirectory("trust-mode")
        let open = dir.file("open")
        let group = dir.file("group")
        let theirs = dir.file("theirs")
        for path in [open, group, theirs] { #expect(mkdir(path, 0o700) == 0) }
        #expect(chmod(open, 0o777) == 0 && chmod(group, 0o770) == 0 && chown(theirs, Self.nobody, Self.nobody) == 0)
        try refused(
            socket: open + "/todod.sock", database: dir.file("db/todos.db"), "\(open) is writable by others (mode 0777)"
        )
        try refused(
            socket: dir.file("run/todod.sock"), database: open + "/todod/todos.db", "\(open) is writable by others")
        try refused(
            socket: group + "/todod.sock", database: dir.file("db/todos.db"),
            "\(group) is writable by its group (mode 0770)")
        try refused(
            socket: dir.file("run/todod.sock"), database: theirs + "/todos.db",
            "\(theirs) belongs to uid \(Self.nobody)")
        #expect(entries(open).isEmpty && entries(group).isEmpty && entries(theirs).isEmpty)
        // A sticky directory (like /tmp) may be writable by others above a directory of ours.
        let sticky = dir.file("sticky")
        #expect(mkdir(sticky, 0o700) == 0 && chmod(sticky, 0o1777) == 0)
        let daemon = try DaemonProcess(
            directory: dir, socket: sticky + "/mine/todod.sock", database: sticky + "/mine/todos.db")
        #expect(try daemon.client().result("todo.list")["total"] == 0)
        daemon.stop()
        try refused(
            socket: sticky + "/todod.sock", database: dir.file("db/todos.db"), "\(sticky) is writable by others")
    }

    /// A planted link at the database or beside it is refused; its target is never created.
    @Test func databaseLinksAreNotFollowed() throws {
        let dir = TemporaryDirectory("trust-db")
        let victim = dir.file("victim")
        #expect(mkdir(dir.file("db"), 0o700) == 0)
        for name in ["todos.db", "todos.db-wal", "todos.db-journal"] {
            #expect(symlink(victim, dir.file("db/" + name)) == 0)
            try refused(
                socket: dir.file("todod.sock"), database: dir.file("db/todos.db"),
                "refusing \(dir.file("db/" + name)): it is a symbolic link")
            #expect(!FileManager.default.fileExists(atPath: victim))
            #expect(unlink(dir.file("db/" + name)) == 0)
        }
        // A link to the directory, owned by root, is resolved before SQLite opens the file.
        #expect(symlink(dir.file("db"), dir.file("db-link")) == 0)
        let daemon = try DaemonProcess(directory: dir, database: dir.file("db-link/todos.db"))
        _ = try daemon.client().result("todo.add", ["title": "リンク越し"])
        daemon.stop()
        #expect(try ChildProcess.sqlite3(dir.file("db/todos.db"), "SELECT title FROM todos") == "リンク越し")
    }

    /// The socket is created 0600 (mode set on the socket before bind), never chmod-ed by path
    /// afterwards, where a racer could have swapped in a file of its choice.
    @Test func theSocketModeIsNotSetByPath() throws {
        let dir = TemporaryDirectory("trust-chmod")
        let socket = dir.file("run/todod.sock")
        let trace = dir.file("trace")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        process.arguments = [
            "-f", "-qq", "-o", trace, "-e", "trace=chmod,fchmodat,fchmod",
            BuiltProducts.path("todod"), "--socket", socket, "--db", dir.file("todos.db")
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitForExit()
            }
        }
        #expect(waitUntilListening(socket, while: { process.isRunning }))
        #expect(try Files.mode(socket).mode == 0o600)
        // The daemon is strace's child: stop it, then strace ends with it.
        let children =
            (try? String(
                contentsOfFile: "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children",
                encoding: .utf8)) ?? ""
        let daemon = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
        kill(daemon, SIGTERM)
        #expect(process.waitForExit() == 0)
        let calls = String(decoding: try Files.contents(of: trace), as: UTF8.self)
        #expect(!calls.contains("chmod(\"") && !calls.contains("fchmodat("), "\(calls)")
        #expect(calls.contains("fchmod("), "\(calls)")
    }
}
