import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoTime
import TodoUserFiles
import TodoWhen

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the `sync` subcommands: sync.conf, the status files todod-sync writes, and todod-sync
/// itself (found next to todoctl, then on PATH, or named by `TODOD_SYNC`) for anything that needs
/// the network, since todoctl itself never opens a network connection.
struct SyncRunner {
    var environment: [String: String]
    var json: Bool
    var human: HumanOutput
    var out: (String) -> Void
    var err: (String) -> Void

    /// The service `sync add` starts (systemd/user/todod-sync.service).
    static let unit = "todod-sync.service"
    /// How long `sync add` waits for `todod-sync --check` (it has its own network timeouts).
    static let checkTimeout = 120.0
    /// How long a systemctl call may take.
    static let systemctlTimeout = 30.0
    /// The most conflicts `sync status` lists (all of them with --json).
    static let shownConflicts = 20
    /// The line for every command that finds no account.
    static let noAccounts =
        "no sync accounts; add one with: todoctl sync add NAME --url URL --user USER --password-file FILE"

    func print(_ lines: [String]) { if !lines.isEmpty { out(lines.joined(separator: "\n") + "\n") } }
    func emit(_ value: JSON) { out(value.serialized() + "\n") }

    func run(_ command: SyncCommand) throws(CLIFailure) {
        switch command {
        case .add(let options): try add(options)
        case .list: try list()
        case .remove(let name): try remove(name)
        case .now(let name): try now(name)
        case .status: try status()
        }
    }

    // MARK: - sync.conf

    func load() throws(CLIFailure) -> [SyncAccount] {
        do { return try SyncConfig.load(environment: environment) } catch { throw .input(error.message) }
    }

    func save(_ accounts: [SyncAccount]) throws(CLIFailure) {
        do { try SyncConfig.save(accounts, environment: environment) } catch { throw .input(error.message) }
    }

    /// The account named `name`, or a one-line error listing the ones there are.
    func account(_ name: String, in accounts: [SyncAccount]) throws(CLIFailure) -> SyncAccount {
        if let found = accounts.first(where: { $0.name == name }) { return found }
        if accounts.isEmpty { throw .input(SyncRunner.noAccounts) }
        let names = accounts.map(\.name)
        throw .input(
            "no sync account \(TimeExpression.quoted(name))"
                + (Suggestion.closest(to: name, in: names).map { "; did you mean \(TimeExpression.quoted($0))?" }
                    ?? "; the accounts are " + names.joined(separator: ", ")))
    }

    // MARK: - add

    /// Checks everything that can be checked here, then the account itself with `todod-sync
    /// --check`; only then writes sync.conf and starts the service. Nothing is written when
    /// anything fails.
    func add(_ o: SyncAccount) throws(CLIFailure) {
        var accounts = try load()
        if accounts.contains(where: { $0.name == o.name }) {
            throw .input(
                "a sync account named \(o.name) exists already; remove it first with: todoctl sync remove \(o.name)")
        }
        var passwordFile = o.passwordFile
        if let file = passwordFile, !file.hasPrefix("/") {
            guard let absolute = Files.realPath(file) else {
                throw .input("cannot read the password file \(file): no such file")
            }
            passwordFile = absolute
        }
        var account = SyncAccount(
            name: o.name, url: o.url, user: o.user, passwordFile: passwordFile, credential: o.credential,
            initial: o.initial)
        // The 0600 rule and an empty file, before anything else; the password itself stays here.
        do { _ = try account.password(environment: environment) } catch {
            if o.credential != nil, (environment["CREDENTIALS_DIRECTORY"] ?? "").isEmpty {
                throw .input(
                    "--credential \(o.credential!): todoctl can read the credential only where systemd provides it; run: "
                        + "systemd-run --user --pipe --wait -p LoadCredential=\(o.credential!):FILE todoctl sync add ... (see todod-sync(1))"
                )
            }
            throw .input(error.message)
        }
        let secret = passwordFile ?? (environment["CREDENTIALS_DIRECTORY"] ?? "") + "/" + (o.credential ?? "")
        var arguments = ["--check", "--url", o.url, "--user", o.user, "--password-file", secret]
        if let calendar = o.calendar { arguments += ["--calendar", calendar] }
        if o.lists { arguments += ["--lists"] + (o.defaultList.map { ["--default-list", $0] } ?? []) }
        var (status, stdout, stderr, timedOut) = try runSync(
            arguments, timeout: SyncRunner.checkTimeout, passThrough: false)
        // Several task lists and none chosen (todod-sync --check exits 3): each is a list.
        var o = o
        var several = false
        if !timedOut, status == .status(3), !o.lists, o.calendar == nil {
            (o.lists, several) = (true, true)
            (status, stdout, stderr, timedOut) = try runSync(
                arguments + ["--lists"], timeout: SyncRunner.checkTimeout, passThrough: false)
        }
        if timedOut {
            throw .input(
                "cannot add account \(o.name): todod-sync --check did not finish within \(Int(SyncRunner.checkTimeout)) s"
            )
        }
        guard status == .status(0) else {
            let reason = SyncRunner.lastLine(stderr) ?? "todod-sync --check failed (\(status))"
            throw .input("cannot add account \(o.name): \(reason)")
        }
        guard let calendar = SyncRunner.firstLine(stdout), calendar.contains("://") else {
            throw .input("cannot add account \(o.name): todod-sync --check named no calendar")
        }
        if o.lists {
            // Every calendar (or the ones named) is a list: sync.conf keeps what was named.
            account.lists = true
            account.calendars = o.calendars
            account.defaultList = o.defaultList
        } else {
            account.calendar = calendar
        }
        accounts.append(account)
        try save(accounts)
        if json {
            emit(SyncRunner.json(account, status: nil))
        } else {
            print([
                "Added sync account \(o.name): \(Table.oneLine(o.user)) at \(Table.oneLine(calendar))"
                    + (o.lists
                        ? " (the default list; every calendar\(o.calendars.isEmpty ? "" : " named") is a list)" : "")
            ])
            if several {
                print([
                    "The account has several task lists: each is a list here, as with --lists (--calendar URL syncs one alone)."
                ])
            }
            let remote = SyncRunner.lines(stdout).dropFirst().first { $0.hasPrefix("todos ") }.flatMap {
                Int($0.dropFirst(6))
            }
            if let line = SyncRunner.firstRound(remote: remote, local: storeCount(), initial: o.initial) {
                print([line])
            }
        }
        startService(restartOnly: false)
    }

    /// What the first round will do, in one line, from the two sides' counts (nil when unknown).
    static func firstRound(remote: Int?, local: Int?, initial: String?) -> String? {
        guard let remote, let local else { return nil }
        let counts = "The calendar holds \(remote) todo\(remote == 1 ? "" : "s") and this store \(local)"
        guard remote > 0, local > 0 else { return counts + ": the first round copies each side's todos to the other." }
        switch initial {
        case "remote":
            return counts
                + ": the first round lets the calendar win (--initial remote): what only this store holds is removed here, as one change undo takes back."
        case "local":
            return counts
                + ": the first round lets this store win (--initial local): what only the calendar holds is deleted on the server."
        default:
            return counts
                + ": the first round merges them (--initial merge): what only one side holds goes to the other, so a todo deleted on another device but still here comes back; --initial remote lets the calendar win."
        }
    }

    /// The number of todos in the store, when todod answers.
    func storeCount() -> Int? {
        let socket = SocketPaths.socket(flag: nil, system: false, environment: environment, uid: getuid())
        guard let transport = try? UnixSocketTransport(path: socket, timeout: 5),
            let s = try? transport.call(DaemonStatusParams()),
            let open = s.open, let done = s.done
        else { return nil }
        return Int(open + done)
    }

    // MARK: - remove

    func remove(_ name: String) throws(CLIFailure) {
        var accounts = try load()
        let gone = try account(name, in: accounts)
        accounts.removeAll { $0.name == name }
        try save(accounts)
        for path in SyncPaths.accountFiles(account: name, environment: environment) {
            do { try Files.unlink(path) } catch  where error.errno == ENOENT {} catch {
                err("todoctl: removed account \(name), but not its file \(path): \(error.reason)\n")
            }
        }
        if json {
            emit(SyncRunner.json(gone, status: nil))
        } else {
            print(["Removed sync account \(name); its todos stay."])
        }
        startService(restartOnly: true)
    }

    // MARK: - now

    /// `todod-sync --once [--account NAME]`: its lines pass through (to stderr with --json, which
    /// then prints the accounts' status), and its exit status becomes todoctl's.
    func now(_ name: String?) throws(CLIFailure) {
        let accounts = try load()
        if accounts.isEmpty { throw .input(SyncRunner.noAccounts) }
        if let name { _ = try account(name, in: accounts) }
        let (status, _, _, _) = try runSync(
            ["--once"] + (name.map { ["--account", $0] } ?? []), timeout: nil, passThrough: true)
        if json {
            emit(
                .array(
                    accounts.filter { name == nil || $0.name == name }.map {
                        SyncRunner.json(readStatus($0.name).status ?? SyncStatus(account: $0.name))
                    }))
        }
        switch status {
        case .status(0): return
        case .status(let code): throw .exit(code)
        case .signal: throw .input("todod-sync --once: \(status)")
        }
    }

    // MARK: - list and status

    func list() throws(CLIFailure) {
        let accounts = try load()
        if json {
            emit(.array(accounts.map { SyncRunner.json($0, status: readStatus($0.name).status) }))
            return
        }
        if accounts.isEmpty {
            print([SyncRunner.noAccounts.prefix(1).uppercased() + SyncRunner.noAccounts.dropFirst()])
            return
        }
        var table = Table(columns: [
            Table.Column("NAME"), Table.Column("ACCOUNT", flexible: true), Table.Column("CALENDAR", flexible: true),
            Table.Column("LAST SUCCESS")
        ])
        for a in accounts {
            let status = readStatus(a.name).status
            table.append([
                a.name, a.user + "@" + a.url, a.calendar ?? "(found at the next round)", ago(status?.lastSuccess)
            ])
        }
        print(table.render(maxWidth: human.maxWidth, style: human.headerStyle))
    }

    /// One line per account, then the recent conflicts of all accounts, oldest first.
    func status() throws(CLIFailure) {
        let accounts = try load()
        let statuses = accounts.map { ($0, readStatus($0.name)) }
        if json {
            emit(.array(statuses.map { SyncRunner.json($0.1.status ?? SyncStatus(account: $0.0.name)) }))
            return
        }
        if accounts.isEmpty {
            print([SyncRunner.noAccounts.prefix(1).uppercased() + SyncRunner.noAccounts.dropFirst()])
            return
        }
        var table = Table(columns: [
            Table.Column("ACCOUNT"), Table.Column("STATE"), Table.Column("LAST SUCCESS"),
            Table.Column("PENDING", alignment: .right), Table.Column("ITEMS", alignment: .right),
            Table.Column("PROBLEM", flexible: true)
        ])
        var conflicts: [(account: String, conflict: SyncStatus.Conflict)] = []
        var problems: [(account: String, problem: SyncStatus.Problem)] = []
        for (account, read) in statuses {
            let running = isServed(account.name)
            guard let s = read.status else {
                table.append([
                    account.name, read.problem != nil ? "unknown" : running ? "waiting" : "not running", "never", "",
                    "",
                    read.problem
                        ?? (running
                            ? "no round yet"
                            : "todod-sync is not running (todoctl sync now, or start todod-sync.service)")
                ])
                continue
            }
            var problem = s.error ?? ""
            // A retry is said only when a service is there to make it.
            if running, s.error != nil, let retry = s.retryAt {
                problem += "; retry " + TerminalText.relative(retry, now: human.now).replacingOverdue()
            }
            if s.error == nil, s.unfinished {
                problem =
                    "the last round's time ran out" + (running ? "; the next goes on" : "; todoctl sync now goes on")
            }
            if !s.problems.isEmpty {
                let note = "\(s.problems.count) todo\(s.problems.count == 1 ? "" : "s") not syncing (below)"
                problem = problem.isEmpty ? note : problem + "; " + note
            }
            let state =
                !running ? "not running" : s.error == nil ? (s.lastSuccess == nil ? "waiting" : "ok") : "failing"
            let pending = s.pending + unsentChanges(s)
            table.append([account.name, state, ago(s.lastSuccess), "\(pending)", "\(s.items)", problem])
            conflicts += s.conflicts.map { (account.name, $0) }
            problems += s.problems.map { (account.name, $0) }
        }
        print(
            table.render(
                maxWidth: human.maxWidth,
                style: { row, column, text in
                    guard let row else { return human.headerStyle?(nil, column, text) ?? text }
                    guard column == 1 else { return text }
                    let state = table.rows[row][1]
                    return human.paint(
                        text,
                        state == "ok" ? HumanOutput.green : state == "failing" ? HumanOutput.red : HumanOutput.yellow)
                }))
        if !problems.isEmpty {
            var list = Table(columns: [
                Table.Column("ACCOUNT"), Table.Column("TODO", flexible: true), Table.Column("WHY", flexible: true)
            ])
            for (account, p) in problems {
                list.append([account, p.title == p.href ? p.href : "\(p.title) (\(p.href))", p.reason])
            }
            print(["", "Not syncing (each stays here until it is fixed or deleted; everything else syncs):"])
            print(list.render(maxWidth: human.maxWidth, style: human.headerStyle))
        }
        guard !conflicts.isEmpty else { return }
        conflicts.sort { $0.conflict.at < $1.conflict.at }
        let shown = conflicts.suffix(SyncRunner.shownConflicts)
        // LOST: the value the losing side had (status files of older todod-sync versions lack it).
        let lost = shown.contains { $0.conflict.lost != nil }
        var list = Table(
            columns: [
                Table.Column("WHEN"), Table.Column("ACCOUNT"), Table.Column("TITLE", flexible: true),
                Table.Column("FIELDS"), Table.Column("KEPT")
            ] + (lost ? [Table.Column("LOST", flexible: true)] : []))
        for (account, c) in shown {
            list.append(
                [LocalTime(c.at, in: human.timeZone).text, account, c.title, c.fields.joined(separator: ","), c.kept]
                    + (lost ? [c.lost ?? ""] : []))
        }
        print(["", "Recent conflicts (both sides changed the same field; the later change was kept):"])
        print(list.render(maxWidth: human.maxWidth, style: human.headerStyle))
        if conflicts.count > shown.count {
            print([
                human.paint(
                    "Showing the latest \(shown.count) of \(conflicts.count) conflicts (--json lists them all).",
                    HumanOutput.dim)
            ])
        }
    }

    /// Whether a todod-sync serves the account now (holds its service lock).
    func isServed(_ name: String) -> Bool {
        guard let path = SyncPaths.serviceLock(account: name, environment: environment),
            (try? Files.kind(path)) != nil
        else { return false }
        guard let lock = (try? FileLock(path: path, timeout: 0)) ?? nil else { return true }
        lock.unlock()
        return false
    }

    /// The todos changed in the store since the account's last round ended (asked of todod when
    /// it answers and is the store the round synced; 0 otherwise): they wait for the next round.
    func unsentChanges(_ s: SyncStatus) -> Int {
        guard let storeID = s.storeID, let since = s.storeSeq else { return 0 }
        let socket = SocketPaths.socket(flag: nil, system: false, environment: environment, uid: getuid())
        guard let transport = try? UnixSocketTransport(path: socket, timeout: 5),
            (try? transport.call(DaemonStatusParams()))?.storeID == storeID
        else { return 0 }
        var uids = Set<String>()
        var from = since
        for _ in 0..<100 {
            guard let page = try? transport.call(StoreChangesParams(since: from, limit: 1000)) else { break }
            for item in page.changes { uids.insert(item.uid) }
            from = page.seq
            if !page.more { break }
        }
        return uids.count
    }

    /// "3m ago", or "never".
    func ago(_ instant: Instant?) -> String {
        guard let instant else { return "never" }
        return TerminalText.relative(instant, now: human.now).replacingOverdue()
    }

    /// An account's status file: nil without one (no round yet), else the status or what is wrong with the file.
    func readStatus(_ name: String) -> (status: SyncStatus?, problem: String?) {
        guard let path = SyncPaths.statusFile(account: name, environment: environment) else { return (nil, nil) }
        let bytes: [UInt8]
        do { bytes = try Files.contents(of: path, maxBytes: 1 << 22) } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return (nil, nil) }
            return (nil, "cannot read \(path): \(error.reason)")
        }
        guard let value = try? JSON.parse(bytes), let status = SyncStatus(json: value) else {
            return (nil, "\(path) is not a status file todod-sync wrote")
        }
        return (status, nil)
    }

    static func json(_ status: SyncStatus) -> JSON { status.json }

    /// An account as `sync list --json` shows it (the password never: only where it is read from).
    static func json(_ a: SyncAccount, status: SyncStatus?) -> JSON {
        func text(_ s: String?) -> JSON { s.map { .string($0) } ?? .null }
        return [
            "name": .string(a.name), "url": .string(a.url), "user": .string(a.user),
            "passwordFile": text(a.passwordFile),
            "credential": text(a.credential), "calendar": text(a.calendar),
            "lastSuccess": status?.lastSuccess.map { .string($0.rfc3339()) } ?? .null
        ]
    }

    // MARK: - todod-sync and systemctl

    /// todod-sync: `$TODOD_SYNC`, else next to this executable, else on PATH.
    func syncProgram() throws(CLIFailure) -> String {
        if let named = environment["TODOD_SYNC"], !named.isEmpty { return named }
        if let me = Files.realPath("/proc/self/exe") {
            let beside = Files.directory(of: me) + "/todod-sync"
            if SyncRunner.isExecutable(beside) { return beside }
        }
        if let found = SyncRunner.onPath("todod-sync", environment) { return found }
        throw .input(
            "cannot find todod-sync next to todoctl or on PATH; install it with scripts/install --user (or set TODOD_SYNC)"
        )
    }

    /// Runs todod-sync with `arguments`: its output collected, or passed through as it comes.
    func runSync(_ arguments: [String], timeout: Double?, passThrough: Bool) throws(CLIFailure)
        -> (Spawn.Exit, [UInt8], [UInt8], Bool)
    {
        let program = try syncProgram()
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        let finished: Spawn.Finished
        do {
            finished = try Spawn.run(program, arguments, environment: environment, timeout: timeout) { stream, bytes in
                if passThrough {
                    let text = String(decoding: bytes, as: UTF8.self)
                    if stream == 1 && !json { out(text) } else { err(text) }
                } else if stream == 1 {
                    if stdout.count < 1 << 16 { stdout += bytes }
                } else if stderr.count < 1 << 16 {
                    stderr += bytes
                }
            }
        } catch {
            throw .input("cannot run \(program): \(error.reason)")
        }
        return (finished.exit, stdout, stderr, finished.timedOut)
    }

    /// After `add` (restartOnly false) or `remove`: enables and (re)starts todod-sync.service when
    /// a user service manager answers, else says in one line how to run todod-sync. With
    /// `restartOnly`, a service that is not running is left alone.
    func startService(restartOnly: Bool) {
        let hint =
            "run todod-sync in the background (todod-sync &), or install its user service with scripts/install --user"
        guard let systemctl = SyncRunner.onPath("systemctl", environment),
            systemctl1(systemctl, ["show-environment"]).ok
        else {
            if !restartOnly { note("no user service manager reachable (systemctl --user); to sync, \(hint)") }
            return
        }
        let active = systemctl1(systemctl, ["is-active", "--quiet", SyncRunner.unit]).ok
        if restartOnly {
            if active { _ = systemctl1(systemctl, ["try-restart", SyncRunner.unit]) }
            return
        }
        let (ok, message) =
            active
            ? systemctl1(systemctl, ["restart", SyncRunner.unit])
            : systemctl1(systemctl, ["enable", "--now", SyncRunner.unit])
        if ok {
            if !json { print(["\(active ? "Restarted" : "Enabled and started") \(SyncRunner.unit)."]) }
        } else {
            note(
                "the account is added, but \(SyncRunner.unit) did not start (\(message ?? "systemctl failed")); \(hint)"
            )
        }
    }

    /// One `systemctl --user` call: whether it succeeded, and its last line of errors.
    func systemctl1(_ systemctl: String, _ arguments: [String]) -> (ok: Bool, message: String?) {
        var errors: [UInt8] = []
        guard
            let finished = try? Spawn.run(
                systemctl, ["--user"] + arguments, environment: environment, timeout: SyncRunner.systemctlTimeout,
                onOutput: { stream, bytes in if stream == 2, errors.count < 1 << 16 { errors += bytes } })
        else { return (false, "cannot run \(systemctl)") }
        return (finished.exit == .status(0) && !finished.timedOut, SyncRunner.lastLine(errors))
    }

    /// A line on stderr that does not change the exit status.
    func note(_ text: String) { err("todoctl: \(Table.oneLine(text))\n") }

    // MARK: - Helpers

    static func isExecutable(_ path: String) -> Bool {
        guard (try? Files.kind(path)) != .directory, let mode = try? Files.mode(path) else { return false }
        return mode.mode & 0o111 != 0
    }

    /// The first executable `name` in the directories of `$PATH`.
    static func onPath(_ name: String, _ environment: [String: String]) -> String? {
        for dir in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        where dir.hasPrefix("/") {
            let path = dir + "/" + name
            if isExecutable(path) { return path }
        }
        return nil
    }

    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { Table.oneLine(String($0)).trimmingCharacters(in: " ") }.filter { !$0.isEmpty }
    }

    static func firstLine(_ bytes: [UInt8]) -> String? { lines(bytes).first }
    static func lastLine(_ bytes: [UInt8]) -> String? {
        // todod-sync's own prefix is dropped: todoctl puts its own.
        lines(bytes).last.map { $0.hasPrefix("todod-sync: ") ? String($0.dropFirst(12)) : $0 }
    }
}

extension String {
    /// "3m overdue" (a past instant, as TerminalText.relative says it of due times) as "3m ago".
    fileprivate func replacingOverdue() -> String { hasSuffix(" overdue") ? String(dropLast(8)) + " ago" : self }

    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}
