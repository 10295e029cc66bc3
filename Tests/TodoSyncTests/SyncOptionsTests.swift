import Testing
import TodoSync

/// todod-sync's command line: what it takes, and one-line refusals (never a password in argv).
@Suite struct SyncOptionsTests {
    @Test func takesTheDocumentedOptions() throws {
        let service = try SyncOptions(arguments: ["--socket", "/run/x.sock", "--verbose"])
        #expect(service.socket == "/run/x.sock" && service.verbose && !service.once)
        let once = try SyncOptions(arguments: ["--once", "--account", "home"])
        #expect(once.once && once.account == "home")
        let check = try SyncOptions(arguments: ["--check", "--url", "https://dav.example.org/", "--user", "アリス", "--password-file", "/p", "--calendar", "/alice/tasks/"])
        #expect(check.check && check.user == "アリス" && check.calendar == "/alice/tasks/")
    }

    @Test(arguments: [
        (["--password", "x"], "--password is not taken"),
        (["--password=x"], "--password=x is not taken"),
        (["--check", "--url", "u"], "--check needs --url, --user and --password-file"),
        (["--url", "u"], "go with --check"),
        (["--account", "home"], "--account goes with --once"),
        (["--once", "--account", "../x"], "is not an account name"),
        (["--socket"], "--socket needs a value"),
        (["--frobnicate"], "unknown argument --frobnicate"),
    ])
    func refusesWithOneLine(_ arguments: [String], _ message: String) {
        #expect(throws: SyncError.self) { try SyncOptions(arguments: arguments) }
        do {
            _ = try SyncOptions(arguments: arguments)
        } catch {
            #expect(error.message.contains(message))
            #expect(!error.message.contains("\n"))
        }
    }
}
