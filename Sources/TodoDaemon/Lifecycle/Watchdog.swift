import Dispatch
import Synchronization
import TodoPosix
import TodoSystemd

/// Tells the service manager the daemon is alive (WATCHDOG=1), from the store queue: from a
/// timer at half the manager's interval, and from long work between its slices (`progress`,
/// every 100 todos of an import on the store queue, or rows of an undo or redo on the thread it
/// runs on while the store queue stays free). A hung store queue stops both, so the manager
/// still restarts a daemon that hangs; a long import that moves does not look hung.
///
/// Why not cut the import into transactions instead: the store is one SQLite connection held
/// exclusively, so another request can run only between transactions, and an import cut so would
/// be seen half done by readers and could not be undone whole. One transaction keeps the import
/// atomic for every reader; other clients wait for it (measured in docs/RELIABILITY.md).
final class Watchdog: @unchecked Sendable {
    // @unchecked: `timer` is set once, in `start`, only to keep the source alive. `last` has a
    // lock: `progress` also comes from an undo or redo running on a thread of its own.
    private let notifier: ManagerNotifier
    private let half: Double?
    private let last = Mutex(0.0)
    private var timer: (any DispatchSourceTimer)?

    init(notifier: ManagerNotifier) {
        self.notifier = notifier
        half = ServiceManager.watchdogInterval().map { Double($0) / 2_000_000 }
    }

    /// Starts the timer on `queue` when the manager asked for a watchdog.
    func start(on queue: DispatchQueue) {
        guard let half else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: .now(), repeating: .microseconds(Int(half * 1_000_000)),
            leeway: .microseconds(Int(half * 100_000)))
        timer.setEventHandler { [unowned self] in beat() }
        timer.resume()
        self.timer = timer
    }

    /// Long work on the store queue moved on: beats when a quarter of the interval passed since
    /// the last beat, so the steps of the work that cannot beat (the commit's fsync, encoding the
    /// answer) have three quarters of the interval, not half, before the manager gives up.
    func progress() {
        guard let half, Posix.monotonicSeconds() - last.withLock({ $0 }) >= half / 2 else { return }
        beat()
    }

    private func beat() {
        last.withLock { $0 = Posix.monotonicSeconds() }
        notifier.beat()
    }
}
