import TodoCalDAV
import TodoCore
import TodoICal
import TodoPosix
import TodoProtocol
import TodoSystemd
import TodoTime
import TodoUserFiles

#if canImport(Glibc)
    import Glibc
#endif

/// Opens the calendar collection of an account with its password (the real one: CalDAV; tests
/// give their own).
package typealias CollectionOpener = (SyncAccount, String) throws(SyncError) -> any CalendarCollection

/// One account of sync.conf: its rounds, each under the account's lock, each followed by its
/// status file; its conflicts to the journal; its backoff after failures.
package final class AccountSync {
    package let account: SyncAccount
    let environment: [String: String]
    let socket: String
    let opener: CollectionOpener
    var collection: (any CalendarCollection)?
    package private(set) var status: SyncStatus
    /// Consecutive failed rounds, and when (monotonic seconds) the next attempt is due.
    package private(set) var failures = 0
    package private(set) var retryAt: Double?
    package var log: (String) -> Void = { _ in }
    /// How long a round waits for another process's round of the same account.
    package var lockTimeout = 600.0

    package init(
        account: SyncAccount, environment: [String: String], socket: String,
        opener: @escaping CollectionOpener = AccountSync.calDAV
    ) {
        self.account = account
        self.environment = environment
        self.socket = socket
        self.opener = opener
        status = SyncStatus(account: account.name, calendar: account.calendar)
        if let path = SyncPaths.statusFile(account: account.name, environment: environment),
            let bytes = try? Files.contents(of: path, maxBytes: 1 << 22), let json = try? JSON.parse(bytes),
            let old = SyncStatus(json: json)
        {
            status.conflicts = old.conflicts
            status.lastSuccess = old.lastSuccess
            // What the last round knew stays true until a round says otherwise.
            status.items = old.items
            status.pending = old.pending
            status.problems = old.problems
            status.storeID = old.storeID
            status.storeSeq = old.storeSeq
        }
    }

    /// The real collection: the account's calendar, or the one discovery finds.
    package static func calDAV(_ account: SyncAccount, _ password: String) throws(SyncError) -> any CalendarCollection {
        let dav = CalDAVAccount(url: account.url, user: account.user, password: password)
        if let calendar = account.calendar { return dav.collection(url: calendar) }
        return dav.collection(url: try CalendarChoice.choose(dav, calendar: nil))
    }

    /// One round; the status file is written after it, whatever happened, under the account's
    /// lock (so a round beside it never has its status overwritten by an older one).
    @discardableResult
    package func round() -> Result<RoundReport, SyncError> {
        status.lastAttempt = Instant.now()
        let lock: FileLock
        do { lock = try takeLock() } catch {
            // No round ran (another holds the lock, or there is no state directory): the status
            // file is the other round's to write.
            return .failure(error)
        }
        defer { lock.unlock() }
        let result: Result<RoundReport, SyncError>
        do { result = .success(try run()) } catch { result = .failure(error) }
        record(result)
        writeStatus()
        return result
    }

    /// The status after a round's result.
    func record(_ result: Result<RoundReport, SyncError>) {
        switch result {
        case .success(let report):
            failures = 0
            retryAt = nil
            status.error = nil
            status.retryAt = nil
            status.lastSuccess = Instant.now()
            status.pending = report.pending
            status.items = report.items
            status.conflicts = Array((status.conflicts + report.conflicts).suffix(SyncStatus.maxConflicts))
            status.problems = report.problems.prefix(SyncStatus.maxProblems).map {
                SyncStatus.Problem(
                    kind: $0.kind.rawValue, uid: $0.uid, href: $0.href, title: $0.title, reason: $0.reason)
            }
            status.storeID = report.storeID
            status.storeSeq = report.storeSeq
            status.unfinished = report.unfinished
        case .failure(let error):
            failures += 1
            // 2 s doubling to 5 minutes, ±20 % so that many clients do not come back at once.
            let delay = min(2 * pow(2, Double(min(failures - 1, 16))), 300) * Double.random(in: 0.8...1.2)
            retryAt = Posix.monotonicSeconds() + delay
            status.error = error.message
            status.retryAt = Instant(usec: Instant.now().usec + Int64(delay * 1_000_000))
            collection = nil // connect afresh next time (a changed password, a restarted server)
        }
    }

    /// The lock the service holds while it serves the account (`sync status` says "not running"
    /// when nobody holds it); nil when another service holds it already, or there is no state
    /// directory.
    func serviceLock() -> FileLock? {
        guard let path = SyncPaths.serviceLock(account: account.name, environment: environment) else { return nil }
        try? SyncPaths.makePrivateDirectory(Files.directory(of: path))
        return (try? FileLock(path: path, timeout: 0)) ?? nil
    }

    /// The account's lock (waiting at most `lockTimeout` for another process's round).
    func takeLock() throws(SyncError) -> FileLock {
        guard let statePath = SyncPaths.stateFile(account: account.name, environment: environment) else {
            throw .noStateDirectory
        }
        let directory = Files.directory(of: statePath)
        do { try SyncPaths.makePrivateDirectory(directory) } catch {
            throw .cannotMakeDirectory(path: directory, reason: "\(error)")
        }
        let lock: FileLock?
        do { lock = try FileLock(path: directory + "/\(account.name).lock", timeout: lockTimeout) } catch {
            throw .cannotLock(account: account.name, reason: "\(error)")
        }
        guard let lock else { throw .roundInProgress(account: account.name, seconds: Int(lockTimeout)) }
        return lock
    }

    /// One round, the lock held.
    func run() throws(SyncError) -> RoundReport {
        guard let statePath = SyncPaths.stateFile(account: account.name, environment: environment) else {
            throw .noStateDirectory
        }

        if account.lists {
            let password: String
            do { password = try account.password(environment: environment) } catch { throw SyncError(error.message) }
            let lists = ListSync(
                account: account, environment: environment,
                dav: CalDAVAccount(url: account.url, user: account.user, password: password),
                store: try LocalStore(socket: socket), log: log,
                onConflict: { [account] c in Self.journal(c, account: account.name) })
            let report = try lists.run()
            status.calendar =
                lists.account.calendar
                ?? ListMap.load(SyncPaths.listsFile(account: account.name, environment: environment) ?? "").defaultURL
            return report
        }
        if collection == nil {
            let password: String
            do { password = try account.password(environment: environment) } catch { throw .password(error.message) }
            collection = try opener(account, password)
        }
        guard let collection else { throw SyncError("no collection") }
        status.calendar = collection.url
        let store = try LocalStore(socket: socket)
        let (state, reset) = try SyncState.open(path: statePath)
        if let reset { log(reset) }
        let options = SyncRound.Options(
            timeLimit: account.roundTimeLimit, initial: account.initial, log: log,
            onConflict: { [account] c in Self.journal(c, account: account.name) })
        let round = SyncRound(
            account: account.name, collection: collection, store: store, state: state, codec: Self.codec(environment),
            options: options)
        return try round.run()
    }

    /// The codec, reading foreign floating times in the user's zone (`TZ`).
    static func codec(_ environment: [String: String]) -> VTodoCodec {
        let tz = environment["TZ"]
        let name = tz.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }.flatMap {
            ZoneInfo(identifier: $0) != nil ? $0 : nil
        }
        var codec = VTodoCodec(zone: ZoneInfo.named(byTZ: tz), zoneName: name)
        // A todo from the server with a due date and no alarm: reminded unless `remind-default = none`.
        let config = Config.load(environment: environment, commands: nil)
        codec.reader.defaultRemindTime = config.remindDefault ? config.remindTime : nil
        return codec
    }

    /// A conflict to the journal (PRIORITY 4), or to stderr without one.
    static func journal(_ c: SyncStatus.Conflict, account: String) {
        let message =
            "todod-sync \(account): conflict in \"\(c.title)\" (\(c.fields.joined(separator: ", "))): kept the \(c.kept) version"
            + (c.lost.map { "; lost \($0)" } ?? "")
        var fields = [
            ("MESSAGE", message), ("PRIORITY", "4"), ("SYSLOG_IDENTIFIER", "todod-sync"), ("SYNC_ACCOUNT", account),
            ("TODO_UID", c.uid), ("TODO_TITLE", c.title), ("SYNC_FIELDS", c.fields.joined(separator: ",")),
            ("SYNC_KEPT", c.kept)
        ]
        if let lost = c.lost { fields.append(("SYNC_LOST", lost)) }
        let failed = Journal.send(fields)
        if failed != nil { SyncOutput.error(message) }
    }

    func writeStatus() {
        guard let path = SyncPaths.statusFile(account: account.name, environment: environment) else { return }
        var bytes: [UInt8] = []
        status.json.write(to: &bytes)
        bytes.append(0x0A)
        do {
            try SyncPaths.makePrivateDirectory(Files.directory(of: path))
            try AtomicFile.write(path, bytes, mode: 0o600)
        } catch {
            SyncOutput.error("cannot write \(path): \(error)")
        }
    }
}

/// Lines on stderr, prefixed `todod-sync: `.
package enum SyncOutput {
    package static func error(_ line: String) { stderr("todod-sync: \(line)\n") }

    /// Text on stderr as it is.
    package static func stderr(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// Which calendar of an account to sync (`--check`, and an account whose calendar is not known).
package enum CalendarChoice {
    /// The calendar `calendar` names (a URL, or a path on the account's server), or the one
    /// calendar holding VTODOs. With several and none named, the error lists them.
    package static func choose(_ dav: CalDAVAccount, calendar: String?) throws(SyncError) -> String {
        let found: [CalendarInfo]
        do { found = try dav.calendars() } catch { throw .server(error.message) }
        if let calendar {
            let wanted = calendar.hasSuffix("/") ? calendar : calendar + "/"
            if let match = found.first(where: {
                $0.url == calendar || $0.url == wanted || path(of: $0.url) == path(of: wanted)
            }) {
                return match.url
            }
            // A calendar discovery did not list (another user's, shared): ask it directly.
            let reference = calendar.contains("://") || calendar.hasPrefix("/") ? calendar : "/" + calendar
            let url = HTTPURL(dav.url)?.resolving(reference)?.string ?? calendar
            var direct = dav
            direct.url = url
            let there: [CalendarInfo]
            do { there = try direct.calendars() } catch { throw .server("\(calendar): \(error.message)") }
            guard there.count == 1, let only = there.first,
                path(of: only.url) == path(of: url.hasSuffix("/") ? url : url + "/")
            else {
                throw .notACalendar(calendar, server: dav.url)
            }
            guard only.holdsTodos else { throw .calendarWithoutTodos(only.url) }
            return only.url
        }
        let todos = found.filter(\.holdsTodos)
        switch todos.count {
        case 1: return todos[0].url
        case 0: throw .noTodoCalendar(server: dav.url)
        default:
            let names = todos.map { $0.displayName.isEmpty ? $0.url : "\($0.url) (\($0.displayName))" }
            throw .severalTodoCalendars(names)
        }
    }

    /// The path (and query) of `url`, or `url` itself when it is no http(s) URL.
    static func path(of url: String) -> String { HTTPURL(url)?.path ?? url }
}
