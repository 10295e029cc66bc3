import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoCLI

/// What todoctl writes for sync stays its own: no value can add keys or sections to sync.conf,
/// the directories it makes are 0700, a leftover temporary never blocks a write, and `sync
/// status` says `not running` (and no retry) when no todod-sync serves the account.
@Suite struct SyncFileSafetyTests {
    @Test(arguments: ["alice\n[evil]\nurl = https://evil.example/", "alice\r", "a\u{0}b", "alice\u{2028}x", " alice"])
    func aControlCharacterInAnyValueIsRefused(user: String) throws {
        let dir = TemporaryDirectory("syncinject")
        let file = dir.file("pw")
        _ = FileManager.default.createFile(
            atPath: file, contents: Data("s3cret\n".utf8), attributes: [.posixPermissions: 0o600])
        let env = ["XDG_CONFIG_HOME": dir.file("config"), "XDG_STATE_HOME": dir.file("state"), "HOME": dir.path]
        let r = Fixtures.run(
            ["sync", "add", "home", "--url", "https://dav.example.org/", "--user", user, "--password-file", file],
            environment: env)
        #expect(r.status == CLI.exitUsage, "\(r.stderr)")
        #expect(r.stderr.contains("invalid --user"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("config/todod/sync.conf")))
        // Written by any other way, the file is refused whole rather than read as two accounts.
        #expect(throws: SyncConfigError.self) {
            try SyncConfig.save(
                [SyncAccount(name: "home", url: "https://dav.example.org/", user: user, passwordFile: file)],
                environment: env)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("config/todod/sync.conf")))
    }

    @Test func theConfigDirectoryIsMade0700EvenWhenMkdirMadeIt0755() throws {
        let dir = TemporaryDirectory("syncmode")
        try FileManager.default.createDirectory(
            atPath: dir.file("config/todod"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        // A temporary another writer left behind (here a directory, which no writer can open).
        try FileManager.default.createDirectory(
            atPath: dir.file("config/todod/sync.conf.tmp"), withIntermediateDirectories: false)
        let env = ["XDG_CONFIG_HOME": dir.file("config"), "HOME": dir.path]
        try SyncConfig.save(
            [SyncAccount(name: "home", url: "https://dav.example.org/", user: "alice", passwordFile: "/p")],
            environment: env)
        #expect(try Files.mode(dir.file("config/todod")).mode == 0o700)
        #expect(try Files.mode(dir.file("config/todod/sync.conf")).mode == 0o600)
        #expect(try SyncConfig.load(environment: env).map(\.user) == ["alice"])
        // A fresh state directory is 0700 down from todod.
        try SyncPaths.makePrivateDirectory(dir.file("state/todod/sync"))
        #expect(try Files.mode(dir.file("state/todod")).mode == 0o700)
        #expect(try Files.mode(dir.file("state/todod/sync")).mode == 0o700)
    }

    @Test func statusSaysNotRunningAndNoRetryWithoutAService() throws {
        let dir = TemporaryDirectory("syncrun")
        let env = [
            "XDG_CONFIG_HOME": dir.file("config"), "XDG_STATE_HOME": dir.file("state"), "HOME": dir.path,
            "XDG_RUNTIME_DIR": dir.path
        ]
        try SyncConfig.save(
            [SyncAccount(name: "home", url: "https://dav.example.org/", user: "alice", passwordFile: "/p")],
            environment: env)
        let stateDir = try #require(SyncPaths.stateDirectory(environment: env))
        try SyncPaths.makePrivateDirectory(stateDir)
        var status = SyncStatus(
            account: "home", lastAttempt: Fixtures.now, lastSuccess: Instant(usec: Fixtures.now.usec - 240_000_000),
            error: "the server answered 503", retryAt: Instant(usec: Fixtures.now.usec + 2_000_000), pending: 2,
            items: 7)
        status.problems = [
            SyncStatus.Problem(
                kind: "refused", uid: "u1", href: "/cal/u1.ics", title: "買い物",
                reason: "the server answered 403: valid-calendar-data")
        ]
        var bytes: [UInt8] = []
        status.json.write(to: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: stateDir + "/home.status"))

        let idle = Fixtures.run(["sync", "status"], environment: env)
        #expect(idle.status == 0, "\(idle.stderr)")
        let row = try #require(idle.stdout.split(separator: "\n").first { $0.hasPrefix("home") })
        #expect(row.contains("not running"), "\(idle.stdout)")
        #expect(!row.contains("retry"))
        #expect(row.contains(" 2 ") && row.contains(" 7 "), "pending and items as the last round left them")
        #expect(idle.stdout.contains("買い物 (/cal/u1.ics)") && idle.stdout.contains("valid-calendar-data"))

        // With a todod-sync serving the account (holding its service lock), the retry is real.
        let lockPath = try #require(SyncPaths.serviceLock(account: "home", environment: env))
        let lock = try #require(try FileLock(path: lockPath, timeout: 1))
        defer { lock.unlock() }
        let served = Fixtures.run(["sync", "status"], environment: env)
        let line = try #require(served.stdout.split(separator: "\n").first { $0.hasPrefix("home") })
        #expect(line.contains("failing") && line.contains("retry"), "\(served.stdout)")
    }

    /// `sync add` says what the first round will do with the two sides' counts.
    @Test func addSaysWhatTheFirstRoundDoes() {
        #expect(
            SyncRunner.firstRound(remote: 3, local: 0, initial: "remote")
                == "The calendar holds 3 todos and this store 0: the first round copies each side's todos to the other."
        )
        #expect(
            SyncRunner.firstRound(remote: 1, local: 5, initial: nil)?.contains("merges them (--initial merge)") == true)
        #expect(
            SyncRunner.firstRound(remote: 1, local: 5, initial: "remote")?.contains(
                "what only this store holds is removed here") == true)
        #expect(SyncRunner.firstRound(remote: 1, local: 5, initial: "local")?.contains("deleted on the server") == true)
        #expect(SyncRunner.firstRound(remote: nil, local: 5, initial: nil) == nil)
        // --initial is checked and written.
        #expect(
            Fixtures.run([
                "sync", "add", "h", "--url", "https://x.example/", "--user", "a", "--password-file", "/p", "--initial",
                "both"
            ]).status == CLI.exitUsage)
        let accounts = [
            SyncAccount(name: "h", url: "https://x.example/", user: "a", passwordFile: "/p", initial: "remote")
        ]
        #expect(try! SyncConfig.parse(SyncConfig.render(accounts), file: "f") == accounts)
    }
}
