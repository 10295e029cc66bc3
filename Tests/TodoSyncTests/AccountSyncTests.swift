import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoPosix
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// One account's rounds as the daemon runs them (in memory collection, real todod, real journal):
/// conflicts go to the journal and the status file, failures back off with a one-line status, and
/// two rounds of one account never run at once.
@Suite(.serialized) struct AccountSyncTests {
    static func account(_ m: Machine, _ cal: any CalendarCollection, roundLimit: Int? = nil) throws -> (
        AccountSync, [String: String], TemporaryDirectory
    ) {
        let home = TemporaryDirectory("acct")
        var env: [String: String] = [
            "HOME": home.path, "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config")
        ]
        env["TZ"] = "UTC"
        let file = home.file("pw")
        _ = FileManager.default.createFile(
            atPath: file, contents: Data("秘密-password".utf8), attributes: [.posixPermissions: 0o600])
        var account = SyncAccount(name: "home", url: cal.url, user: "alice", passwordFile: file, calendar: cal.url)
        account.roundLimit = roundLimit
        let sync = AccountSync(
            account: account, environment: env, socket: m.daemon.socket,
            opener: { _, password throws(SyncError) in
                guard password == "秘密-password" else { throw SyncError("wrong password given to the opener") }
                return cal
            })
        return (sync, env, home)
    }

    static func status(_ env: [String: String]) throws -> (SyncStatus, String) {
        let path = try #require(SyncPaths.statusFile(account: "home", environment: env))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (try #require(SyncStatus(json: try JSON.parse(Array(text.utf8)))), text)
    }

    @Test func aConflictGoesToTheJournalAndTheStatusFile() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (sync, env, home) = try Self.account(m, cal)
        defer { withExtendedLifetime(home) {} }
        let title = "conflict \(UUID().uuidString)"
        let uid = try #require(try m.add(title)["uid"]?.stringValue)
        _ = try sync.round().get()
        try m.update(uid: uid, ["title": .string(title + " here")])
        cal.edit(try #require(cal.href(uid: uid))) { text in
            text.replacingOccurrences(of: "SUMMARY:\(title)", with: "SUMMARY:\(title) there")
                .replacingOccurrences(
                    of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:20300101T000000Z", options: .regularExpression)
        }
        let report = try sync.round().get()
        #expect(report.conflicts.count == 1)
        let (status, text) = try Self.status(env)
        #expect(status.error == nil && status.lastSuccess != nil)
        #expect(status.conflicts.map(\.uid) == [uid])
        #expect(status.conflicts.first?.fields == ["title"] && status.conflicts.first?.kept == "remote")
        #expect(!text.contains("秘密"))
        var entries: [JSON] = []
        _ = NotifyTestSupport.eventually(timeout: 10) {
            entries = (try? Journalctl.entries(["SYSLOG_IDENTIFIER=todod-sync", "TODO_UID=\(uid)"])) ?? []
            return !entries.isEmpty
        }
        let entry = try #require(entries.first)
        #expect(entry["PRIORITY"] == "4")
        #expect(entry["SYNC_ACCOUNT"] == "home")
        #expect(entry["SYNC_FIELDS"] == "title")
        #expect(entry["SYNC_KEPT"] == "remote")
        #expect(entry["SYNC_LOST"]?.stringValue == "title \"\(title) here\"")
        #expect(entry["MESSAGE"]?.stringValue?.contains("conflict") == true)
        #expect(entry["MESSAGE"]?.stringValue?.contains("秘密") == false)
    }

    @Test func aFailureBacksOffAndSaysWhatIsWrongInOneLine() throws {
        let m = try Machine()
        let cal = Unreachable()
        let (sync, env, home) = try Self.account(m, cal)
        defer { withExtendedLifetime(home) {} }
        try m.add("waits")
        guard case .failure(let error) = sync.round() else {
            Issue.record("the round succeeded")
            return
        }
        #expect(error.message == CalDAVError.network("cannot connect to 127.0.0.1 port 9: Connection refused").message)
        #expect(sync.failures == 1 && sync.retryAt != nil)
        let first = try #require(sync.retryAt) - Posix.monotonicSeconds()
        #expect(first > 1 && first < 3)
        _ = sync.round()
        let second = try #require(sync.retryAt) - Posix.monotonicSeconds()
        #expect(second > 2.5 && second < 5)
        let (status, _) = try Self.status(env)
        #expect(status.error == "cannot connect to 127.0.0.1 port 9: Connection refused")
        #expect(status.retryAt != nil)
        #expect(try m.todos().count == 1)
    }

    /// `todod-sync --once` beside the service: a round waits for the other's lock (and gives up,
    /// saying so, after its timeout) instead of running at the same time.
    @Test func twoRoundsOfOneAccountNeverRunAtOnce() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (sync, env, home) = try Self.account(m, cal)
        defer { withExtendedLifetime(home) {} }
        let directory = try #require(SyncPaths.stateDirectory(environment: env))
        try Files.makeDirectories(directory, mode: 0o700)
        let held = try #require(try FileLock(path: directory + "/home.lock", timeout: 1))
        sync.lockTimeout = 0.3
        guard case .failure(let error) = sync.round() else {
            Issue.record("ran beside a held lock")
            return
        }
        #expect(error.message.contains("another todod-sync round of home"))
        #expect(cal.creates == 0)
        held.unlock()
        try m.add("now")
        #expect(throws: Never.self) { try sync.round().get() }
        #expect(cal.creates == 1)
    }
}

extension AccountSyncTests {
    /// The state file and the directories are the user's alone; the status tells the truth
    /// after a restart and a failure (ITEMS kept), and `sync status` counts the changes made
    /// since the last round as pending, with no todod-sync running.
    @Test func statusTellsTheTruthAndTheStateIsPrivate() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (sync, env, home) = try Self.account(m, cal)
        defer { withExtendedLifetime(home) {} }
        for i in 0..<3 { try m.add("item \(i)") }
        _ = try sync.round().get()
        let state = try #require(SyncPaths.stateFile(account: "home", environment: env))
        #expect(try Files.mode(state).mode == 0o600)
        #expect(try Files.mode(Files.directory(of: state)).mode == 0o700)
        #expect(try Self.status(env).0.items == 3)

        // Restarted, and the server gone: ITEMS stays what the last round found.
        let again = AccountSync(
            account: sync.account, environment: env, socket: m.daemon.socket,
            opener: { _, _ throws(SyncError) in Unreachable() })
        _ = again.round()
        #expect(try Self.status(env).0.items == 3)

        // Changes made with nothing running are pending in `sync status`.
        for i in 0..<4 { try m.add("unsent \(i)") }
        try SyncConfig.save([sync.account], environment: env)
        var environment = env
        environment["TODOD_SOCKET"] = m.daemon.socket
        let r = try ChildProcess.run(BuiltProducts.path("todoctl"), ["sync", "status"], environment: environment)
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("home") })
        #expect(row.contains("not running"), "\(r.stdout)")
        #expect(row.split(separator: " ").contains("4"), "4 changes unsent: \(row)")
        #expect(!row.contains("retry"))
    }
}

extension AccountSyncTests {
    /// One account whose server never answers does not hold another account's pushes: each
    /// account runs on its own.
    @Test func aStuckAccountBlocksNoOther() throws {
        let m = try Machine()
        let good = InMemoryCollection()
        let stuck = Stuck()
        let (home, _, dir1) = try Self.account(m, good)
        let (other, _, dir2) = try Self.account(m, stuck)
        defer { withExtendedLifetime((dir1, dir2)) {} }
        let blocked = AccountSync(
            account: SyncAccount(
                name: "stuck", url: stuck.url, user: "alice", passwordFile: other.account.passwordFile,
                calendar: stuck.url), environment: other.environment, socket: m.daemon.socket,
            opener: { _, _ throws(SyncError) in stuck })
        let service = try SyncService(accounts: [blocked, home], socket: m.daemon.socket, interval: 3600)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            service.run()
            finished.signal()
        }
        #expect(NotifyTestSupport.eventually(timeout: 10) { stuck.entered })
        let uid = try #require(try m.add("押し出す")["uid"]?.stringValue)
        #expect(NotifyTestSupport.eventually(timeout: 10) { good.href(uid: uid) != nil }, "the other account pushed")
        service.stop()
        stuck.release.signal()
        #expect(finished.wait(timeout: .now() + 20) == .success)
    }
}

/// A server whose first listing never returns until released (a stuck connection).
final class Stuck: CalendarCollection, @unchecked Sendable {
    let url = "http://127.0.0.1:9/stuck/"
    let release = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var _entered = false
    var entered: Bool { lock.withLock { _entered } }
    func changes(since token: String?) throws(CalDAVError) -> CollectionDelta {
        lock.withLock { _entered = true }
        release.wait()
        throw .timeout
    }
    func versions() throws(CalDAVError) -> [RemoteVersion] { throw .timeout }
    func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject] { throw .timeout }
    func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?) { throw .timeout }
    func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String? { throw .timeout }
    func delete(href: String, ifMatch etag: String) throws(CalDAVError) { throw .timeout }
}

/// A server that cannot be reached.
final class Unreachable: CalendarCollection {
    let url = "http://127.0.0.1:9/cal/"
    static let error = CalDAVError.network("cannot connect to 127.0.0.1 port 9: Connection refused")
    func changes(since token: String?) throws(CalDAVError) -> CollectionDelta { throw Self.error }
    func versions() throws(CalDAVError) -> [RemoteVersion] { throw Self.error }
    func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject] { throw Self.error }
    func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?) { throw Self.error }
    func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String? { throw Self.error }
    func delete(href: String, ifMatch etag: String) throws(CalDAVError) { throw Self.error }
}
