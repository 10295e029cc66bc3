import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// `todoctl sync add`, `remove` and `now` through the built todoctl, with a stand-in todod-sync (a
/// small script named by TODOD_SYNC that records its arguments and prints a calendar URL, fails, or
/// prints round summaries) and, where a test wants a user service manager, a stand-in systemctl
/// first on PATH. sync.conf and the status files live in a temporary XDG_CONFIG_HOME/XDG_STATE_HOME.
@Suite struct SyncEndToEndTests {
    final class Setup {
        let dir = TemporaryDirectory("syncE2E")
        var password: String { dir.file("password") }
        var config: String { dir.file("config/todod/sync.conf") }
        var calls: String { dir.file("calls") }
        var systemctlCalls: String { dir.file("systemctl-calls") }
        /// Whether the stand-in systemctl is on PATH (a user manager answers).
        var userManager = false

        init(passwordMode: Int = 0o600) throws {
            _ = FileManager.default.createFile(
                atPath: password, contents: Data("s3cret\n".utf8), attributes: [.posixPermissions: passwordMode])
            try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
            // The stand-in todod-sync: --check prints FAKE_CALENDAR or fails with FAKE_CHECK_ERROR
            // (with FAKE_SEVERAL and neither --lists nor --calendar: several calendars, exit status 3);
            // --once prints a line per account and exits with FAKE_ONCE_STATUS.
            try script(
                dir.file("todod-sync"),
                """
                #!/bin/sh
                echo "$*" >> "\(calls)"
                case "$1" in
                --check)
                    if [ -n "$FAKE_CHECK_ERROR" ]; then echo "todod-sync: $FAKE_CHECK_ERROR" >&2; exit 1; fi
                    case "$*" in *--lists*|*--calendar*) ;; *) if [ -n "$FAKE_SEVERAL" ]; then
                        echo "todod-sync: several calendars hold todos; sync each as a list with --lists, or choose one with --calendar: a, b" >&2; exit 3
                    fi;; esac
                    echo "${FAKE_CALENDAR:-https://dav.example.org/alice/tasks/}";;
                --once)
                    echo "home: synced (2 sent, 1 received)"
                    [ "${FAKE_ONCE_STATUS:-0}" = 0 ] || echo "todod-sync: work: wrong password (HTTP 401)" >&2
                    exit "${FAKE_ONCE_STATUS:-0}";;
                esac
                """)
            // The stand-in systemctl: a user manager that answers, with todod-sync.service inactive.
            try script(
                dir.file("bin/systemctl"),
                """
                #!/bin/sh
                echo "$*" >> "\(systemctlCalls)"
                case "$2" in is-active) exit 3;; esac
                exit 0
                """)
        }

        /// Writes an executable script through a shell, so that no descriptor of this process is
        /// ever open on it for writing: a child another test starts meanwhile could inherit one
        /// and make running the script fail with "Text file busy".
        func script(_ path: String, _ text: String) throws {
            let r = try ChildProcess.run("/bin/sh", ["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh", path], input: text)
            guard r.status == 0 else { throw CalDAVTestError.didNotStart("sh writing \(path)", r.stderr) }
        }

        var environment: [String: String] {
            [
                "XDG_CONFIG_HOME": dir.file("config"), "XDG_STATE_HOME": dir.file("state"), "XDG_RUNTIME_DIR": dir.path,
                "HOME": dir.path, "TODOD_SYNC": dir.file("todod-sync"), "LANG": "C.UTF-8",
                "PATH": (userManager ? dir.file("bin") + ":" : "") + "/usr/bin:/bin"
            ]
        }

        func todoctl(_ arguments: [String], _ extra: [String: String] = [:]) throws -> ChildProcess.Result {
            try ChildProcess.run(
                BuiltProducts.path("todoctl"), arguments, environment: environment.merging(extra) { $1 })
        }

        func add(_ name: String = "home", _ extra: [String: String] = [:], url: String = "https://dav.example.org/")
            throws -> ChildProcess.Result
        {
            try todoctl(["sync", "add", name, "--url", url, "--user", "alice", "--password-file", password], extra)
        }

        func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
        var recorded: [String] { read(calls).map { $0.split(separator: "\n").map(String.init) } ?? [] }
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
    }

    @Test func addChecksTheAccountThenWritesSyncConf() throws {
        let s = try Setup()
        let r = try s.add()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Added sync account home: alice at https://dav.example.org/alice/tasks/\n")
        // No user manager here: one line saying how to run todod-sync.
        #expect(
            r.stderr
                == "todoctl: no user service manager reachable (systemctl --user); to sync, run todod-sync in the background "
                + "(todod-sync &), or install its user service with scripts/install --user\n")
        // todod-sync was asked first, with the password file's path, never the password.
        #expect(s.recorded == ["--check --url https://dav.example.org/ --user alice --password-file \(s.password)"])
        #expect(try s.mode(s.config) == 0o600)
        let text = try #require(s.read(s.config))
        #expect(
            text.contains(
                "[home]\nurl = https://dav.example.org/\nuser = alice\npassword-file = \(s.password)\ncalendar = https://dav.example.org/alice/tasks/\n"
            ))
        #expect(!text.contains("s3cret"))
        // --calendar goes to the check; a second account with the same name is refused.
        let second = try s.todoctl(
            [
                "sync", "add", "tasks", "--url", "http://127.0.0.1:5232/", "--user", "bob", "--password-file",
                s.password,
                "--calendar", "/bob/tasks/"
            ], ["FAKE_CALENDAR": "http://127.0.0.1:5232/bob/tasks/"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            s.recorded.last
                == "--check --url http://127.0.0.1:5232/ --user bob --password-file \(s.password) --calendar /bob/tasks/"
        )
        let again = try s.add()
        #expect(
            again.status == 1
                && again.stderr
                    == "todoctl: a sync account named home exists already; remove it first with: todoctl sync remove home\n"
        )
        #expect(s.recorded.count == 2)
    }

    @Test func addStartsTheUserServiceWhenAManagerAnswers() throws {
        let s = try Setup()
        s.userManager = true
        let r = try s.add()
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("Enabled and started todod-sync.service.\n"))
        #expect(
            s.read(s.systemctlCalls)
                == "--user show-environment\n--user is-active --quiet todod-sync.service\n--user enable --now todod-sync.service\n"
        )
        // remove restarts a running service only (try-restart).
        #expect(try s.todoctl(["sync", "remove", "home"]).status == 0)
        #expect(
            s.read(s.systemctlCalls)?.hasSuffix(
                "--user enable --now todod-sync.service\n--user show-environment\n--user is-active --quiet todod-sync.service\n"
            ) == true)
    }

    @Test func aFailedCheckWritesNothing() throws {
        let s = try Setup()
        let r = try s.add("home", ["FAKE_CHECK_ERROR": "wrong password (HTTP 401 from dav.example.org)"])
        #expect(r.status == 1 && r.stdout.isEmpty)
        #expect(r.stderr == "todoctl: cannot add account home: wrong password (HTTP 401 from dav.example.org)\n")
        #expect(!FileManager.default.fileExists(atPath: s.dir.file("config")))
        // No todod-sync at all: said so, nothing written.
        let missing = try s.add("home", ["TODOD_SYNC": s.dir.file("nowhere")])
        #expect(
            missing.status == 1 && missing.stderr.hasPrefix("todoctl: cannot run \(s.dir.file("nowhere")): "),
            "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.dir.file("config")))
    }

    /// An account with several task lists and none named is added with lists, without being
    /// asked (`todod-sync --check` exits 3 for it); one named with --calendar stays one calendar.
    @Test func severalTaskListsAreAddedAsLists() throws {
        let s = try Setup()
        let r = try s.add("home", ["FAKE_SEVERAL": "1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout.hasPrefix(
                "Added sync account home: alice at https://dav.example.org/alice/tasks/ (the default list; every calendar is a list)\n"
            ))
        #expect(r.stdout.contains("several task lists: each is a list here, as with --lists"), "\(r.stdout)")
        #expect(s.recorded.count == 2 && s.recorded[1].hasSuffix(" --lists"), "\(s.recorded)")
        #expect(s.read(s.config)?.contains("lists = yes") == true)
        let one = try Setup()
        let named = try one.todoctl(
            [
                "sync", "add", "home", "--url", "https://dav.example.org/", "--user", "alice", "--password-file",
                one.password,
                "--calendar", "/alice/tasks/"
            ], ["FAKE_SEVERAL": "1"])
        #expect(named.status == 0 && one.read(one.config)?.contains("lists") == false, "\(named.stderr)")
        // --default-list names the list for todos without a category: it implies --lists, goes
        // to the check and into sync.conf.
        let chosen = try Setup()
        let listed = try chosen.todoctl(
            [
                "sync", "add", "home", "--url", "https://dav.example.org/", "--user", "alice", "--password-file",
                chosen.password,
                "--default-list", "買い物"
            ], ["FAKE_SEVERAL": "1"])
        #expect(
            listed.status == 0 && chosen.recorded.count == 1
                && chosen.recorded[0].hasSuffix(" --lists --default-list 買い物"), "\(listed.stderr) \(chosen.recorded)")
        #expect(chosen.read(chosen.config)?.contains("lists = yes\ndefault-list = 買い物\n") == true)
        let empty = try chosen.todoctl([
            "sync", "add", "work", "--url", "https://dav.example.org/", "--user", "alice", "--password-file",
            chosen.password,
            "--default-list", ""
        ])
        #expect(empty.status == 2 && empty.stderr.contains("--default-list needs a list's name"), "\(empty.stderr)")
    }

    @Test func aPasswordFileOthersCanReadIsRefusedBeforeAnythingRuns() throws {
        let s = try Setup(passwordMode: 0o644)
        let r = try s.add()
        #expect(r.status == 1 && r.stdout.isEmpty)
        #expect(
            r.stderr
                == "todoctl: the password file \(s.password) is readable by others (mode 644); run: chmod 600 \(s.password)\n"
        )
        #expect(s.recorded.isEmpty && !FileManager.default.fileExists(atPath: s.dir.file("config")))
        // Plain http to another host: a usage error, nothing run or written.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: s.password)
        let http = try s.add("home", url: "http://dav.example.org/")
        #expect(http.status == 2 && http.stderr.hasPrefix("todoctl: refusing plain http:// to dav.example.org: "))
        #expect(s.recorded.isEmpty && !FileManager.default.fileExists(atPath: s.dir.file("config")))
    }

    @Test func aCredentialIsReadWhereSystemdPutsIt() throws {
        let s = try Setup()
        let arguments = [
            "sync", "add", "home", "--url", "https://dav.example.org/", "--user", "alice", "--credential", "home-pw"
        ]
        // Outside a unit there is no credential to check with: said how, nothing run or written.
        let outside = try s.todoctl(arguments)
        #expect(
            outside.status == 1
                && outside.stderr.hasPrefix(
                    "todoctl: --credential home-pw: todoctl can read the credential only where systemd provides it; run: systemd-run --user"
                ),
            "\(outside.stderr)")
        #expect(s.recorded.isEmpty && !FileManager.default.fileExists(atPath: s.config))
        // With $CREDENTIALS_DIRECTORY (as systemd-run -p LoadCredential= sets it): the check reads
        // the credential's file, and sync.conf names the credential, not a file.
        let credentials = s.dir.file("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: credentials + "/home-pw", contents: Data("s3cret".utf8), attributes: [.posixPermissions: 0o400])
        let inside = try s.todoctl(arguments, ["CREDENTIALS_DIRECTORY": credentials])
        #expect(inside.status == 0, "\(inside.stderr)")
        #expect(
            s.recorded == ["--check --url https://dav.example.org/ --user alice --password-file \(credentials)/home-pw"]
        )
        let text = try #require(s.read(s.config))
        #expect(text.contains("credential = home-pw\n") && !text.contains("password-file"))
    }

    @Test func removeDropsTheAccountAndItsStateButNotTheOthers() throws {
        let s = try Setup()
        #expect(try s.add("home").status == 0)
        #expect(try s.add("work").status == 0)
        let state = s.dir.file("state/todod/sync")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        for file in ["home.status", "home.state", "work.status", "work.state"] {
            _ = FileManager.default.createFile(atPath: state + "/" + file, contents: Data("{}".utf8))
        }
        let r = try s.todoctl(["sync", "remove", "home"])
        #expect(r.status == 0 && r.stdout == "Removed sync account home; its todos stay.\n", "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).sorted() == ["work.state", "work.status"])
        let text = try #require(s.read(s.config))
        #expect(!text.contains("[home]") && text.contains("[work]"))
        #expect(try s.mode(s.config) == 0o600)
        let unknown = try s.todoctl(["sync", "remove", "wrok"])
        #expect(unknown.status == 1 && unknown.stderr == "todoctl: no sync account \"wrok\"; did you mean \"work\"?\n")
        #expect(s.read(s.config) == text)
    }

    @Test func nowPassesTodoSyncsLinesAndExitStatusThrough() throws {
        let s = try Setup()
        #expect(try s.add().status == 0)
        let ok = try s.todoctl(["sync", "now"])
        #expect(ok.status == 0 && ok.stdout == "home: synced (2 sent, 1 received)\n" && ok.stderr.isEmpty)
        let failed = try s.todoctl(["sync", "now", "home"], ["FAKE_ONCE_STATUS": "1"])
        #expect(failed.status == 1 && failed.stdout == "home: synced (2 sent, 1 received)\n")
        #expect(failed.stderr == "todod-sync: work: wrong password (HTTP 401)\n")
        #expect(Array(s.recorded.suffix(2)) == ["--once", "--once --account home"])
        #expect(try s.todoctl(["sync", "now"], ["FAKE_ONCE_STATUS": "7"]).status == 7)
        // --json: only JSON on stdout (the status objects); the summary lines go to stderr.
        let json = try s.todoctl(["--json", "sync", "now"])
        #expect(json.status == 0 && json.stderr == "home: synced (2 sent, 1 received)\n")
        #expect(try JSON.parse(json.stdout).arrayValue?.first?["account"]?.stringValue == "home")
        // An account that does not exist: todod-sync is not run.
        let unknown = try s.todoctl(["sync", "now", "hoem"])
        #expect(unknown.status == 1 && unknown.stderr == "todoctl: no sync account \"hoem\"; did you mean \"home\"?\n")
        #expect(s.recorded.count == 5)
    }
}

/// `scripts/install --user` puts todod-sync, its unit and its man page in place; `--uninstall`
/// takes them away and keeps the accounts.
@Suite struct SyncInstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test func installAndUninstallTodoSync() throws {
        let dir = TemporaryDirectory("sinst")
        let home = dir.file("home")
        let prefix = dir.file("prefix")
        let units = dir.file("units")
        try FileManager.default.createDirectory(atPath: home + "/.config/todod", withIntermediateDirectories: true)
        try "[home]\nurl = https://x/\nuser = a\npassword-file = /p\n".write(
            toFile: home + "/.config/todod/sync.conf", atomically: true, encoding: .utf8)
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env["XDG_CONFIG_HOME"] = nil
        let install = Self.repository + "/scripts/install"
        let result = try ChildProcess.run(
            "/bin/bash",
            [
                install, "--user", "--prebuilt", BuiltProducts.directory,
                "--prefix", prefix, "--unitdir", units, "--no-start"
            ], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/todod-sync"))
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/man/man1/todod-sync.1"))
        let unit = try String(contentsOfFile: units + "/todod-sync.service", encoding: .utf8).split(separator: "\n")
        #expect(unit.contains("ExecStart=\(prefix)/bin/todod-sync"))
        #expect(unit.contains("After=todod.socket") && unit.contains("WantedBy=default.target"))
        #expect(!unit.contains { $0.hasPrefix("PrivateNetwork") })
        #expect(result.stdout.contains("todoctl sync add ..."))
        let removed = try ChildProcess.run(
            "/bin/bash", [install, "--user", "--prefix", prefix, "--unitdir", units, "--no-start", "--uninstall"],
            environment: env)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/todod-sync"))
        #expect(!FileManager.default.fileExists(atPath: units + "/todod-sync.service"))
        #expect(removed.stdout.contains("your sync accounts were kept: \(home)/.config/todod/sync.conf"))
        #expect(FileManager.default.fileExists(atPath: home + "/.config/todod/sync.conf"))
    }
}
