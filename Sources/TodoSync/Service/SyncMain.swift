import Dispatch
import TodoCalDAV
import TodoPosix
import TodoProtocol
import TodoUserFiles

#if canImport(Glibc)
    import Glibc
#endif

/// todod-sync's three modes: `--check` (discovery for `todoctl sync add`), `--once` (one round per
/// account) and the service.
package enum SyncMain {
    package static func main(arguments: [String], environment: [String: String], opener: CollectionOpener? = nil)
        -> Int32
    {
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
            if accounts.isEmpty {
                SyncOutput.error(
                    "no sync accounts in sync.conf; add one with: todoctl sync add NAME --url URL --user USER --password-file FILE"
                )
            }
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

        let service: SyncService
        do {
            service = try SyncService(
                accounts: accounts, socket: socket, interval: options.pullInterval ?? SyncOptions.defaultPullInterval)
        } catch {
            SyncOutput.error("cannot start the service: \(error)")
            return 1
        }
        service.log = verbose
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { service.stop() }
            source.resume()
            sources.append(source)
        }
        if accounts.isEmpty {
            SyncOutput.error("no sync accounts in sync.conf yet; waiting (todoctl sync add restarts this service)")
        }
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
        if options.lists { return checkLists(options, password: password) }
        switch Result(catching: { () throws(SyncError) in
            try CalendarChoice.choose(
                CalDAVAccount(url: url, user: user, password: password), calendar: options.calendar)
        }) {
        case .success(let calendar):
            print(calendar)
            // How many todos it holds, for sync add to say what the first round will do.
            let collection = CalDAVAccount(url: url, user: user, password: password).collection(url: calendar)
            if let versions = try? collection.versions() { print("todos \(versions.count)") }
            return 0
        case .failure(let error):
            SyncOutput.error(error.message)
            // Several task lists and none chosen: 3, so `sync add` can take them all as lists.
            if case .severalTodoCalendars = error { return 3 }
            return 1
        }
    }

    /// `--check --lists`: the default list's URL on stdout, then how many todos all the lists
    /// hold and how many lists there are.
    static func checkLists(_ options: SyncOptions, password: String) -> Int32 {
        guard let url = options.url, let user = options.user else { return 2 }
        let dav = CalDAVAccount(url: url, user: user, password: password)
        var account = SyncAccount(name: "check", url: url, user: user, lists: options.calendar.map { [$0] } ?? [])
        account.passwordFile = options.passwordFile
        switch Result(catching: { () throws(SyncError) in try ListSync.calendars(of: account, dav) }) {
        case .success(let (found, _)):
            let chosen: String
            do {
                chosen = try ListChoice.choose(
                    found, named: account.calendars, previous: nil, configured: options.defaultList,
                    serverDefault: { dav.scheduleDefaultCalendar() })
            } catch {
                SyncOutput.error(error.message)
                return 1
            }
            print(chosen)
            let counts = found.map { try? dav.collection($0).versions().count }
            if !counts.contains(where: { $0 == nil }) { print("todos \(counts.reduce(0) { $0 + ($1 ?? 0) })") }
            print("lists \(found.count)")
            return 0
        case .failure(let error):
            SyncOutput.error(error.message)
            return 1
        }
    }
}
