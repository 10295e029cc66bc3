import Testing
import TodoSync

/// todod-sync's command line: what it takes, and one-line refusals (never a password in argv).
@Suite struct SyncOptionsTests {
    @Test func takesTheDocumentedOptions() throws {
        let service = try SyncOptions(arguments: ["--socket", "/run/x.sock", "--verbose"])
        #expect(service.socket == "/run/x.sock" && service.verbose && !service.once)
        let once = try SyncOptions(arguments: ["--once", "--account", "home"])
        #expect(once.once && once.account == "home")
        let check = try SyncOptions(arguments: [
            "--check", "--url", "https://dav.example.org/", "--user", "アリス", "--password-file", "/p", "--calendar",
            "/alice/tasks/"
        ])
        #expect(check.check && check.user == "アリス" && check.calendar == "/alice/tasks/")
        let lists = try SyncOptions(arguments: [
            "--check", "--url", "u", "--user", "u", "--password-file", "/p", "--lists", "--default-list", "買い物"
        ])
        #expect(lists.lists && lists.defaultList == "買い物")
        let inline = try SyncOptions(arguments: ["--socket=/run/ソケット", "--pull-interval=2.5", "-h"])
        #expect(inline.socket == "/run/ソケット" && inline.pullInterval == 2.5 && inline.help)
        #expect(try SyncOptions(arguments: ["--pull-interval", "86400"]).pullInterval == 86_400)
        #expect(try SyncOptions(arguments: []).pullInterval == nil)
    }

    @Test(arguments: [
        (["--password", "x"], "--password is not taken"),
        (["--password=x"], "--password is not taken"),
        (["--password-file=", "--check"], "option '--password-file' needs a value"),
        (["--once=yes"], "option '--once' takes no value"),
        (["--pull-interval"], "option '--pull-interval' needs a value"),
        (["--pull-interval", "0"], "--pull-interval: not a number of seconds from 1 to 86400: 0"),
        (["--pull-interval", "86401"], "not a number of seconds from 1 to 86400"),
        (["--pull-interval", "nan"], "not a number of seconds from 1 to 86400"),
        (["--pull-interval", "1e400"], "not a number of seconds from 1 to 86400"),
        (["--once", "--pull-interval", "60"], "--pull-interval goes with the service"),
        (["stray"], "unexpected argument 'stray'"),
        (["--check", "--url", "u"], "--check needs --url, --user and --password-file"),
        (["--url", "u"], "go with --check"),
        (["--default-list", "Tasks"], "go with --check"),
        (
            ["--check", "--url", "u", "--user", "u", "--password-file", "/p", "--default-list", "Tasks"],
            "--default-list goes with --lists"
        ),
        (["--account", "home"], "--account goes with --once"),
        (["--once", "--account", "../x"], "is not an account name"),
        (["--socket"], "option '--socket' needs a value"),
        (["--socket="], "option '--socket' needs a value"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["--frobnicate=1"], "unknown option '--frobnicate'")
    ])
    func refusesWithOneLine(_ arguments: [String], _ message: String) {
        #expect(throws: SyncError.self) { try SyncOptions(arguments: arguments) }
        do {
            _ = try SyncOptions(arguments: arguments)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
            guard case .usage = error else {
                Issue.record("not a usage error: \(error)")
                return
            }
            #expect(!error.message.contains("\n"))
            #expect(!error.message.contains("=x"), "a value given to --password is not repeated")
        }
    }
}
