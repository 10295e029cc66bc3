#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TodoCalDAV
import TodoPosix
import TodoProtocol
import TodoUserFiles

/// todod-sync's three modes: `--check` (discovery for `todoctl sync add`), `--once` (one round per
/// account) and the service.
package enum SyncMain {
    /// The pull interval: 5 minutes, or `TODOD_SYNC_INTERVAL` seconds (for tests).
    package static let intervalVariable = "TODOD_SYNC_INTERVAL"

    package static func main(arguments: [String], environment: [String: String], opener: CollectionOpener? = nil) -> Int32 {
        let options: SyncOptions
        do { options = try SyncOptions(arguments: arguments) } catch {
            SyncOutput.error(error.message)
            SyncOutput.stderr(SyncOptions.usage + "\n")
            return 2
        }
        if options.help {
            print(SyncOptions.usage)
            return 0
        }
        if options.version {
            print("todod-sync \(TododVersion.string)")
            return 0
        }
        if options.check { return check(options, environment: environment) }

        let all: [SyncAccount]
        do { all = try SyncConfig.load(environment: environment) } catch {
            SyncOutput.error(error.message)
            return 2
        }
        var chosen = all
        if let name = options.account {
            chosen = all.filter { $0.name == name }
            guard !chosen.isEmpty else {
                SyncOutput.error("no account \(name) in sync.conf")
                return 2
            }
        }
        let socket = SocketPaths.socket(flag: options.socket, system: false, environment: environment, uid: getuid())
        var accounts: [AccountSync] = []
        for account in chosen {
            if let opener {
                accounts.append(AccountSync(account: account, environment: environment, socket: socket, opener: opener))
            } else {
                accounts.append(AccountSync(account: account, environment: environment, socket: socket))
            }
        }
        let verbose: (String) -> Void = options.verbose ? { SyncOutput.error($0) } : { _ in }
        for a in accounts { a.log = verbose }

        if options.once {
            if accounts.isEmpty { SyncOutput.error("no sync accounts in sync.conf; add one with: todoctl sync add NAME --url URL --user USER --password-file FILE") }
            var ok = true
            for a in accounts {
                switch a.round() {
                case .success(let report):
                    print(report.summary(account: a.account.name))
                    if report.pending > 0 || !report.problems.isEmpty { ok = false }
                case .failure(let error):
                    print("\(a.account.name): \(error.message)")
                    ok = false
                }
            }
            return ok ? 0 : 1
        }

        let interval = environment[intervalVariable].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? 300
        let service = SyncService(accounts: accounts, socket: socket, interval: interval)
        service.log = verbose
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { service.stop() }
            source.resume()
            sources.append(source)
        }
        if accounts.isEmpty { SyncOutput.error("no sync accounts in sync.conf yet; waiting (todoctl sync add restarts this service)") }
        service.run()
        withExtendedLifetime(sources) {}
        return 0
    }

    /// `--check`: discovery only; the calendar's URL on stdout, or one line on stderr.
    static func check(_ options: SyncOptions, environment: [String: String]) -> Int32 {
        guard let url = options.url, let user = options.user, let file = options.passwordFile else { return 2 }
        let account = SyncAccount(name: "check", url: url, user: user, passwordFile: file)
        let password: String
        switch Result(catching: { () throws(SyncConfigError) in try account.password(environment: environment) }) {
        case .success(let p): password = p
        case .failure(let error):
            SyncOutput.error(error.message)
            return 1
        }
        switch Result(catching: { () throws(SyncError) in
            try CalendarChoice.choose(CalDAVAccount(url: url, user: user, password: password), calendar: options.calendar)
        }) {
        case .success(let calendar):
            print(calendar)
            // How many todos it holds, for sync add to say what the first round will do.
            let collection = CalDAVAccount(url: url, user: user, password: password).collection(url: calendar)
            if let versions = try? collection.versions() { print("todos \(versions.count)") }
            return 0
        case .failure(let error):
            SyncOutput.error(error.message)
            return 1
        }
    }
}
