import Dispatch
import TodoPosix
import TodoSystemd

/// Tells the service manager the daemon is alive (WATCHDOG=1), from the store queue: from a
/// timer at half the manager's interval, and from long work on that queue between its slices
/// (`progress`, every 100 todos of an import or rows of an undo or redo). A hung store stops
/// both, so the manager still restarts a daemon that hangs; a long import that moves does not
/// look hung.
///
/// Why not cut the import into transactions instead: the store is one SQLite connection held
/// exclusively, so another request can run only between transactions, and an import cut so would
/// be seen half done by readers and could not be undone whole. One transaction keeps the import
/// atomic for every reader; other clients wait for it (measured in docs/RELIABILITY.md).
final class Watchdog: @unchecked Sendable {
    // @unchecked: `last` is touched only on the store queue (the timer's `beat` and `progress`
    // run there); `timer` is set once, in `start`, only to keep the source alive.
    private let half: Double?
    private var last = 0.0
    private var timer: DispatchSourceTimer?
    /// The queue `start` was given: `progress` must be called there.
    private var queue: DispatchQueue?

    init() {
        half = ServiceManager.watchdogInterval().map { Double($0) / 2_000_000 }
    }

    /// Starts the timer on `queue` when the manager asked for a watchdog.
    func start(on queue: DispatchQueue) {
        guard let half else { return }
        self.queue = queue
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .microseconds(Int(half * 1_000_000)), leeway: .microseconds(Int(half * 100_000)))
        timer.setEventHandler { [unowned self] in beat() }
        timer.resume()
        self.timer = timer
    }

    /// Long work on the store queue moved on: beats when a quarter of the interval passed since
    /// the last beat, so the steps of the work that cannot beat (the commit's fsync, encoding the
    /// answer) have three quarters of the interval, not half, before the manager gives up.
    func progress() {
        if let queue { dispatchPrecondition(condition: .onQueue(queue)) }
        guard let half, Posix.monotonicSeconds() - last >= half / 2 else { return }
        beat()
    }

    private func beat() {
        last = Posix.monotonicSeconds()
        ServiceManager.notify("WATCHDOG=1")
    }
}
