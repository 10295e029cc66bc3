#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TodoCore
import TodoPosix
import TodoProtocol
import TodoSystemd
import TodoRPC

/// A wake-up the service's loop waits for: a local commit (`watch`), a signal. Pokes that come
/// while it is awake fold into one.
final class Wakeup: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = PthreadMutex()
    private var poked = false

    func poke() {
        lock.locked {
            guard !poked else { return }
            poked = true
            semaphore.signal()
        }
    }

    /// Waits until poked or `seconds` pass; true when poked.
    func wait(seconds: Double) -> Bool {
        let result = seconds.isFinite
            ? semaphore.wait(timeout: .now() + .nanoseconds(Int(max(0, min(seconds, 86_400)) * 1e9)))
            : { semaphore.wait(); return .success }()
        guard result == .success else { return false }
        lock.locked { poked = false }
        return true
    }
}

/// A mutex (pthread) for the little state the watch thread and the loop share.
final class PthreadMutex: @unchecked Sendable {
    /// On the heap: a pthread mutex must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(mutex, nil) }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

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
    /// One wake-up per account, and the main thread's last.
    let wakeups: [Wakeup]
    private let stopFlag = PthreadMutex()
    private var stopping = false
    private var lines: [String]
    package var log: (String) -> Void = { _ in }

    package init(accounts: [AccountSync], socket: String, interval: Double) {
        self.accounts = accounts
        self.socket = socket
        self.interval = interval
        wakeups = (0...accounts.count).map { _ in Wakeup() }
        lines = accounts.map { "\($0.account.name): starting" }
    }

    var isStopping: Bool { stopFlag.locked { stopping } }

    package func stop() {
        stopFlag.locked { stopping = true }
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
        ServiceManager.notify("READY=1\nSTATUS=starting")
        let done = DispatchGroup()
        for (i, a) in accounts.enumerated() {
            // Each account is used by its own queue alone.
            DispatchQueue(label: "todod-sync.account.\(a.account.name)").async(group: done) { [self] in loop(accounts[i], index: i) }
        }
        while !isStopping { _ = wakeups[accounts.count].wait(seconds: .infinity) }
        done.wait()
        ServiceManager.notify("STOPPING=1")
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
            if (a.retryAt ?? 0) <= now && (pull || changed || a.retryAt != nil) {
                switch a.round() {
                case .success(let report): log(report.summary(account: a.account.name))
                case .failure(let error): SyncOutput.error("\(a.account.name): \(error.message)")
                }
                let line = "\(a.account.name): " + (a.status.error.map { "error: \($0)" } ?? "\(a.status.items) todos in step")
                let status = stopFlag.locked { () -> String in
                    lines[index] = line
                    return lines.joined(separator: "; ")
                }
                ServiceManager.notify("STATUS=" + status)
            }
            changed = false
            let retry = a.retryAt.flatMap { $0 > Posix.monotonicSeconds() ? $0 : nil }
            let deadline = min(nextPull, retry ?? .infinity)
            if wakeup.wait(seconds: deadline - Posix.monotonicSeconds()) {
                guard !isStopping else { break }
                // Debounce: a burst of commits is one round.
                usleep(UInt32(debounce * 1_000_000))
                _ = wakeup.wait(seconds: 0)
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
                let seq = try transport.call(.daemonStatus, [:])["seq"]?.intValue
                delay = 1
                poke()  // what changed while nobody watched
                try transport.watch(WatchParams(since: seq)) { [self] event in
                    if event["seq"] != nil { poke() }  // a change (reminders carry no seq)
                    return !isStopping
                }
            } catch {
                log("watch: \(LocalStore.describe(error))")
            }
            guard !isStopping else { return }
            usleep(UInt32(delay * 1_000_000))
            delay = min(delay * 2, 30)
        }
    }
}
