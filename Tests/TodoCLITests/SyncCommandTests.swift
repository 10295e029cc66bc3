import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoCLI

/// sync.conf (parse, render, errors with file:line), the password file rule, the `sync` command
/// line, and `sync list`/`status` read from status files in a temporary XDG_STATE_HOME. `sync add`
/// and `sync now`, which run todod-sync, are tested end to end (EndToEndTests/SyncEndToEndTests).
@Suite struct SyncCommandTests {
    // MARK: sync.conf

    @Test func configRoundTrips() throws {
        var accounts = [
            SyncAccount(
                name: "home", url: "https://dav.example.org/", user: "alice",
                passwordFile: "/home/alice/.config/todod/home.password",
                calendar: "https://dav.example.org/alice/tasks/"),
            SyncAccount(name: "work.2", url: "http://127.0.0.1:5232/", user: "bob", credential: "work-password"),
            SyncAccount(name: "lists", url: "https://dav.example.org/", user: "alice", passwordFile: "/p", lists: []),
            SyncAccount(
                name: "named", url: "https://dav.example.org/", user: "alice", passwordFile: "/p",
                lists: ["https://dav.example.org/alice/tasks/", "/alice/仕事/"])
        ]
        var slow = SyncAccount(name: "slow", url: "https://dav.example.org/", user: "alice", passwordFile: "/p")
        slow.roundLimit = 3600
        accounts.append(slow)
        let text = SyncConfig.render(accounts)
        #expect(text.contains("\n[slow]\n") && text.contains("\nround-limit = 3600\n"))
        #expect(!text.contains("secret"))
        #expect(try SyncConfig.parse(text, file: "sync.conf") == accounts)
        // Comments, blank lines, spaces around `=` and CRLF are read too.
        let hand = "# mine\r\n\n[home]\r\n  url=https://dav.example.org/ \r\nuser =  alice\npassword-file = /p\n"
        #expect(
            try SyncConfig.parse(hand, file: "f") == [
                SyncAccount(name: "home", url: "https://dav.example.org/", user: "alice", passwordFile: "/p")
            ])
    }

    @Test(arguments: [
        (
            "[home]\nurl = https://x/\nuser = a\npassword-file = /p\ncolour = blue\n",
            "sync.conf:5: unknown key \"colour\""
        ),
        ("url = https://x/\n", "sync.conf:1: a key outside an [account] section"),
        (
            "[home]\nurl = https://x/\n\n[work]\nurl = https://y/\nuser = b\ncredential = c\n",
            "sync.conf:1: account home needs url and user"
        ),
        ("[home]\nurl = https://x/\nuser = a\n", "sync.conf:1: account home needs password-file or credential"),
        (
            "[home]\nurl = https://x/\nuser = a\npassword-file = p\n",
            "sync.conf:4: password-file must be an absolute path"
        ),
        ("[ho me]\n", "sync.conf:1: bad account header [ho me]"),
        ("[a]\nurl = https://x/\nuser = a\ncredential = c\n[a]\n", "sync.conf:5: account a appears twice"),
        ("[a]\nurl\n", "sync.conf:2: expected key = value"),
        ("[a]\nuser =\n", "sync.conf:2: user is empty"),
        ("[a]\nurl = https://x/\nuser = a\ncredential = c\nlists = maybe\n", "sync.conf:5: lists must be yes or no"),
        (
            "[a]\nurl = https://x/\nuser = a\ncredential = c\nround-limit = 0\n",
            "sync.conf:5: round-limit must be a number of seconds from 1 to 86400"
        ),
        (
            "[a]\nurl = https://x/\nuser = a\ncredential = c\nround-limit = 10m\n",
            "sync.conf:5: round-limit must be a number of seconds from 1 to 86400"
        ),
        (
            "[a]\nurl = https://x/\nuser = a\ncredential = c\ncalendar = /a/\ncalendar = /b/\n",
            "sync.conf:1: account a names several calendars; that takes lists = yes"
        )
    ])
    func badConfigNamesFileAndLine(text: String, message: String) {
        #expect(throws: SyncConfigError(message)) { try SyncConfig.parse(text, file: "sync.conf") }
    }

    @Test func aBadConfigFileIsOneLineAndExitOne() throws {
        let dir = TemporaryDirectory("synccfg")
        try FileManager.default.createDirectory(atPath: dir.file("todod"), withIntermediateDirectories: true)
        try "[home]\nurl = https://x/\nuser = a\npassword-file = /p\ncolour = blue\n".write(
            toFile: dir.file("todod/sync.conf"), atomically: true, encoding: .utf8)
        for arguments in [["sync", "list"], ["sync", "status"], ["sync", "remove", "home"], ["sync", "now"]] {
            let r = Fixtures.run(arguments, environment: ["XDG_CONFIG_HOME": dir.path, "XDG_STATE_HOME": dir.path])
            #expect(r.status == CLI.exitRefused && r.stdout.isEmpty, "\(arguments)")
            #expect(r.stderr == "todoctl: \(dir.path)/todod/sync.conf:5: unknown key \"colour\"\n", "\(arguments)")
            #expect(r.connectedTo.isEmpty)
        }
    }

    // MARK: The password file

    @Test func aPasswordFileOthersCanReadIsRefusedWithTheChmodHint() throws {
        let dir = TemporaryDirectory("syncpw")
        let file = dir.file("pw")
        _ = FileManager.default.createFile(
            atPath: file, contents: Data("s3cret\n".utf8), attributes: [.posixPermissions: 0o644])
        let account = SyncAccount(name: "home", url: "https://x/", user: "a", passwordFile: file)
        #expect(
            throws: SyncConfigError(
                "the password file \(file) is readable by others (mode 644); run: chmod 600 \(file)")
        ) {
            try account.password(environment: [:])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        #expect(try account.password(environment: [:]) == "s3cret")
        let empty = dir.file("empty")
        _ = FileManager.default.createFile(
            atPath: empty, contents: Data("\n".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: SyncConfigError.self) {
            try SyncAccount(name: "e", url: "https://x/", user: "a", passwordFile: empty).password(environment: [:])
        }
        // A credential is read from $CREDENTIALS_DIRECTORY, and only there.
        let credential = SyncAccount(name: "c", url: "https://x/", user: "a", credential: "pw")
        #expect(try credential.password(environment: ["CREDENTIALS_DIRECTORY": dir.path]) == "s3cret")
        #expect(throws: SyncConfigError.self) { try credential.password(environment: [:]) }
    }

    // MARK: The command line

    @Test(arguments: [
        (["sync"], "missing SUBCOMMAND (add, list, remove, now or status)"),
        (["sync", "stauts"], "unknown sync subcommand \"stauts\"; did you mean \"status\"?"),
        (["sync", "list", "--url", "https://x/"], "option --url is not valid for 'sync list'"),
        (["sync", "add", "home", "--user", "a", "--password-file", "/p"], "missing --url URL for 'sync add'"),
        (["sync", "add", "home", "--url", "https://x/", "--password-file", "/p"], "missing --user USER for 'sync add'"),
        (
            ["sync", "add", "home", "--url", "https://x/", "--user", "a"],
            "missing --password-file FILE (or --credential NAME) for 'sync add'"
        ),
        (
            ["sync", "add", "home", "--url", "https://x/", "--user", "a", "--password-file", "/p", "--credential", "c"],
            "--password-file and --credential cannot be used together"
        ),
        (
            ["sync", "add", "ho/me", "--url", "https://x/", "--user", "a", "--password-file", "/p"],
            "invalid account name \"ho/me\": use letters, digits, -, _ and . (at most 64, not starting with .)"
        ),
        (
            ["sync", "add", "home", "--url", "ftp://x/", "--user", "a", "--password-file", "/p"],
            "invalid --url \"ftp://x/\": expected an https:// URL (plain http:// only to localhost)"
        ),
        (
            ["sync", "add", "home", "--url", "https://a:pw@x/", "--user", "a", "--password-file", "/p"],
            "invalid --url \"https://a:pw@x/\": a user or password in the URL would be written to sync.conf; give --user and --password-file instead"
        ),
        (
            ["sync", "add", "home", "--url", "http://dav.example.org/", "--user", "a", "--password-file", "/p"],
            "refusing plain http:// to dav.example.org: the password would cross the network unencrypted; use https:// "
                + "(http:// is accepted only for localhost, 127.0.0.0/8 and ::1)"
        ),
        (
            [
                "sync", "add", "home", "--url", "https://x/", "--user", "a", "--password-file", "/p", "--calendar",
                "http://10.0.0.1/c/"
            ],
            "refusing plain http:// to 10.0.0.1: the password would cross the network unencrypted; use https:// "
                + "(http:// is accepted only for localhost, 127.0.0.0/8 and ::1)"
        ),
        (["sync", "remove"], "missing NAME"),
        (["sync", "now", "a", "b"], "unexpected argument \"b\"")
    ])
    func usageErrors(arguments: [String], message: String) {
        let r = Fixtures.run(arguments)
        #expect(r.status == CLI.exitUsage, "\(arguments)")
        #expect(r.stderrLines.first == "todoctl: " + message, "\(arguments)")
        #expect(r.stderr.contains("Usage: todoctl sync add NAME"), "\(arguments)")
        #expect(r.stdout.isEmpty && r.connectedTo.isEmpty)
    }

    @Test func theCommandLineParses() throws {
        let parser = Parser(now: Fixtures.now, timeZone: Fixtures.utc)
        #expect(
            try parser.parse([
                "sync", "add", "home", "--url", "http://[::1]:5232/", "--user", "a", "--credential", "pw", "--calendar",
                "/a/tasks/"
            ]).command
                == .sync(
                    .add(
                        SyncAccount(
                            name: "home", url: "http://[::1]:5232/", user: "a", credential: "pw", calendar: "/a/tasks/")
                    )))
        #expect(try parser.parse(["sync", "now"]).command == .sync(.now(name: nil)))
        #expect(try parser.parse(["sync", "now", "home"]).command == .sync(.now(name: "home")))
        #expect(
            try parser.parse(["--json", "sync", "status"])
                == Invocation(global: GlobalOptions(json: true), command: .sync(.status)))
        #expect(try parser.parse(["sync", "remove", "home"]).command == .sync(.remove(name: "home")))
        for host in ["localhost", "127.0.0.1", "127.1.2.3:8080", "[::1]", "LOCALHOST:5232"] {
            #expect(SyncURL.problem("http://\(host)/dav/", option: "--url") == nil, "\(host)")
        }
        for host in ["127.0.0.1.example.org", "localhost.example.org", "[::2]", "128.0.0.1"] {
            #expect(SyncURL.problem("http://\(host)/dav/", option: "--url") != nil, "\(host)")
        }
    }

    // MARK: list and status from status files

    /// A config and state directory with two accounts, and their status files.
    final class Accounts {
        let dir = TemporaryDirectory("syncst")
        var locks: [FileLock] = []
        var environment: [String: String] {
            ["XDG_CONFIG_HOME": dir.path, "XDG_STATE_HOME": dir.path, "XDG_RUNTIME_DIR": dir.path]
        }

        init(statuses: [SyncStatus]) throws {
            try SyncConfig.save(
                [
                    SyncAccount(
                        name: "home", url: "https://dav.example.org/", user: "alice", passwordFile: "/p",
                        calendar: "https://dav.example.org/alice/tasks/"),
                    SyncAccount(name: "work", url: "http://127.0.0.1:5232/", user: "bob", credential: "pw")
                ], environment: environment)
            try FileManager.default.createDirectory(atPath: dir.file("todod/sync"), withIntermediateDirectories: true)
            // A todod-sync serves both accounts (holds their service locks).
            for name in ["home", "work"] {
                if let lock = try FileLock(
                    path: SyncPaths.serviceLock(account: name, environment: environment)!, timeout: 1)
                {
                    locks.append(lock)
                }
            }
            for s in statuses {
                try s.json.serialized().write(
                    toFile: SyncPaths.statusFile(account: s.account, environment: environment)!, atomically: true,
                    encoding: .utf8)
            }
        }
    }

    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    static let ok = SyncStatus(
        account: "home", calendar: "https://dav.example.org/alice/tasks/", lastAttempt: at("2026-06-01T11:57:00Z"),
        lastSuccess: at("2026-06-01T11:57:00Z"), pending: 0, items: 42,
        conflicts: [
            .init(at: at("2026-06-01T09:00:00Z"), uid: "u1", title: "牛乳を買う", fields: ["title", "due"], kept: "remote"),
            .init(
                at: at("2026-06-01T10:30:00Z"), uid: "u2", title: "evil\u{1B}]52;c;aGk=\u{07}title", fields: ["notes"],
                kept: "local")
        ])
    static let failing = SyncStatus(
        account: "work", lastAttempt: at("2026-06-01T11:59:00Z"), lastSuccess: at("2026-05-30T12:00:00Z"),
        error: "wrong password (HTTP 401 from 127.0.0.1)", retryAt: at("2026-06-01T12:05:00Z"), pending: 3, items: 10)

    @Test func statusShowsEachAccountAndTheConflicts() throws {
        let a = try Accounts(statuses: [Self.ok, Self.failing])
        let r = Fixtures.run(["sync", "status"], environment: a.environment)
        #expect(r.status == CLI.exitOK && r.stderr.isEmpty && r.connectedTo.isEmpty)
        #expect(
            r.stdoutLines == [
                "ACCOUNT  STATE    LAST SUCCESS  PENDING  ITEMS  PROBLEM",
                "home     ok       3m ago              0     42",
                "work     failing  2d ago              3     10  wrong password (HTTP 401 from 127.0.0.1); retry in 5m",
                "",
                "Recent conflicts (both sides changed the same field; the later change was kept):",
                "WHEN              ACCOUNT  TITLE                  FIELDS     KEPT",
                "2026-06-01 09:00  home     牛乳を買う             title,due  remote",
                "2026-06-01 10:30  home     evil ]52;c;aGk= title  notes      local"
            ])
        // Nothing of a control character reaches the terminal.
        #expect(!r.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func statusJSONIsTheStatusObjects() throws {
        let a = try Accounts(statuses: [Self.ok])
        let r = Fixtures.run(["--json", "sync", "status"], environment: a.environment)
        #expect(r.status == CLI.exitOK && r.stderr.isEmpty)
        let value = try JSON.parse(r.stdout)
        #expect(value.arrayValue?.count == 2)
        #expect(value.arrayValue?.first.flatMap(SyncStatus.init(json:)) == Self.ok)
        // An account without a status file yet: its name and nothing known.
        #expect(value.arrayValue?.last.flatMap(SyncStatus.init(json:)) == SyncStatus(account: "work"))
        #expect(value.arrayValue?.first?["conflicts"]?.arrayValue?.first?["title"]?.stringValue == "牛乳を買う")
    }

    @Test func statusOfAnAccountWithoutRoundsOrWithABadFile() throws {
        let a = try Accounts(statuses: [])
        try "{not json".write(
            toFile: SyncPaths.statusFile(account: "work", environment: a.environment)!, atomically: true,
            encoding: .utf8)
        let r = Fixtures.run(["sync", "status"], environment: a.environment)
        #expect(r.status == CLI.exitOK)
        #expect(r.stdoutLines.count == 3)
        #expect(r.stdoutLines[1].hasPrefix("home     waiting  never") && r.stdoutLines[1].hasSuffix("no round yet"))
        #expect(
            r.stdoutLines[2].hasPrefix("work     unknown  never")
                && r.stdoutLines[2].hasSuffix("work.status is not a status file todod-sync wrote"))
    }

    @Test func listShowsTheAccountsAndTheirLastSuccess() throws {
        let a = try Accounts(statuses: [Self.failing])
        let r = Fixtures.run(["sync", "list"], environment: a.environment)
        #expect(r.status == CLI.exitOK && r.stderr.isEmpty)
        #expect(
            r.stdoutLines == [
                "NAME  ACCOUNT                         CALENDAR                              LAST SUCCESS",
                "home  alice@https://dav.example.org/  https://dav.example.org/alice/tasks/  never",
                "work  bob@http://127.0.0.1:5232/      (found at the next round)             2d ago"
            ])
        let json = try JSON.parse(Fixtures.run(["sync", "list", "--json"], environment: a.environment).stdout)
        #expect(json.arrayValue?.map { $0["name"]?.stringValue } == ["home", "work"])
        #expect(
            json.arrayValue?.last?["credential"]?.stringValue == "pw"
                && json.arrayValue?.last?["lastSuccess"]?.stringValue == "2026-05-30T12:00:00Z")
    }

    @Test func noAccountsSaysHowToAddOne() {
        let dir = TemporaryDirectory("syncnone")
        let env = ["XDG_CONFIG_HOME": dir.path, "XDG_STATE_HOME": dir.path]
        for sub in ["list", "status"] {
            let r = Fixtures.run(["sync", sub], environment: env)
            #expect(
                r.status == CLI.exitOK
                    && r.stdout
                        == "No sync accounts; add one with: todoctl sync add NAME --url URL --user USER --password-file FILE\n"
            )
            #expect(Fixtures.run(["--json", "sync", sub], environment: env).stdout == "[]\n")
        }
        for arguments in [["sync", "now"], ["sync", "remove", "home"]] {
            let r = Fixtures.run(arguments, environment: env)
            #expect(
                r.status == CLI.exitRefused
                    && r.stderr
                        == "todoctl: no sync accounts; add one with: todoctl sync add NAME --url URL --user USER --password-file FILE\n"
            )
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("todod")))
    }
}
