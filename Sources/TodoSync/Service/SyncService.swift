import Dispatch
import Synchronization
import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoSystemd
import TodoUserFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The running service (SPEC §9): a round of every account at start, after every local commit
/// (followed with `watch`, 200 ms of debounce), and on the pull schedule; a failed account waits
/// out its backoff. Each account runs on its own thread, so a slow or stuck server holds only its
/// own account (and each round has a deadline). Idle, it sleeps until the next pull: no other
/// wake-ups.
package final class SyncService: @unchecked Sendable {
    let accounts: [AccountSync]
    let socket: String
    /// Seconds between pulls.
    let interval: Double
    let debounce = 0.2
    /// One wake-up per account, then the main thread's, then the watch thread's (its backoff).
    let wakeups: [Wakeup]
    /// Set by `stop`; then each loop ends at its next wake-up.
    private let stopping = Atomic(false)
    /// READY=1, STATUS= and STOPPING=1 to systemd, off the account loops.
    private let manager = ManagerNotifier()
    /// Each account's part of the status line.
    private let lines: Mutex<[String]>
    package var log: (String) -> Void = { _ in }

    /// Throws when a wake-up descriptor cannot be made (at the descriptor limit).
    package init(accounts: [AccountSync], socket: String, interval: Double) throws(PosixError) {
        self.accounts = accounts
        self.socket = socket
        self.interval = interval
        var wakeups: [Wakeup] = []
        for _ in 0..<(accounts.count + 2) { wakeups.append(try Wakeup()) }
        self.wakeups = wakeups
        lines = Mutex(accounts.map { "\($0.account.name): starting" })
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    package func stop() {
        stopping.store(true, ordering: .releasing)
        poke()
    }

    /// Wakes every account (a local commit, a stop).
    func poke() { for w in wakeups { w.poke() } }

    /// Runs until `stop` (SIGTERM, SIGINT).
    package func run() {
        let serving = accounts.compactMap { a in
            let lock = a.serviceLock()
            if lock == nil { SyncOutput.error("\(a.account.name): another todod-sync serves this account already") }
            return lock
        }
        defer { withExtendedLifetime(serving) {} }
        DispatchQueue(label: "todod-sync.watch").async { [self] in follow() }
        manager.send("READY=1")
        manager.status("starting")
        let done = DispatchGroup()
        for (i, a) in accounts.enumerated() {
            // Each account is used by its own queue alone.
            DispatchQueue(label: "todod-sync.account.\(a.account.name)").async(group: done) { [self] in
                loop(accounts[i], index: i)
            }
        }
        while !isStopping { _ = wakeups[accounts.count].wait(until: nil) }
        done.wait()
        manager.send("STOPPING=1")
        manager.flush(seconds: 1)
    }

    /// One account's rounds, on its own thread.
    func loop(_ a: AccountSync, index: Int) {
        let wakeup = wakeups[index]
        var nextPull = Posix.monotonicSeconds()
        var changed = true
        while !isStopping {
            let now = Posix.monotonicSeconds()
            let pull = now >= nextPull
            if pull { nextPull = now + interval }
            // In backoff, the account waits for its retry; its changes wait with it.
            var unfinished = false
            if (a.retryAt ?? 0) <= now && (pull || changed || a.retryAt != nil) {
                switch a.round() {
                case .success(let report):
                    log(report.summary(account: a.account.name))
                    unfinished = report.unfinished
                case .failure(let error): SyncOutput.error("\(a.account.name): \(error.message)")
                }
                let line =
                    "\(a.account.name): "
                    + (a.status.error.map { "error: \($0)" } ?? "\(a.status.items) todos in step"
                        + (a.status.pending > 0 ? ", \(a.status.pending) pending" : ""))
                let status = lines.withLock { lines in
                    lines[index] = line
                    return lines.joined(separator: "; ")
                }
                manager.status(status)
            }
            // A round whose time ran out with writes left is followed by the next at once.
            changed = unfinished
            if unfinished { continue }
            let retry = a.retryAt.flatMap { $0 > Posix.monotonicSeconds() ? $0 : nil }
            let deadline = min(nextPull, retry ?? .infinity)
            if wakeup.wait(until: deadline.isFinite ? deadline : nil) {
                guard !isStopping else { break }
                // Debounce: a burst of commits is one round; a stop cuts it short.
                _ = wakeup.settle(until: Posix.monotonicSeconds() + debounce) { isStopping }
                changed = true
            }
        }
    }

    /// Follows todod's `watch` and pokes the loop on every committed change; reconnects with
    /// backoff when todod goes away.
    func follow() {
        var delay = 1.0
        while !isStopping {
            do throws(ClientError) {
                let transport = try UnixSocketTransport(path: socket, timeout: 10)
                let seq = try transport.call(DaemonStatusParams()).seq
                delay = 1
                poke() // what changed while nobody watched
                try transport.watch(WatchParams(since: seq)) { [self] event in
                    if WatchEvent(params: event).seq != nil { poke() } // a change (reminders carry no seq)
                    return !isStopping
                }
            } catch {
                log("watch: \(LocalStore.describe(error))")
            }
            guard !isStopping else { return }
            _ = wakeups[accounts.count + 1].settle(until: Posix.monotonicSeconds() + delay) { isStopping }
            delay = min(delay * 2, 30)
        }
    }
}
