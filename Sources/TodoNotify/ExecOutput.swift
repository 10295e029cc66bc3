import Dispatch
import Synchronization
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// `--exec PROGRAM [ARG...]`: runs the program once per reminder, with no shell in between, the
/// reminder in its environment (`Reminder.environment`) on top of the notifier's own.
///
/// The program runs on its own: the notifier does not wait for it, so a slow one never holds up
/// the next reminder. One that runs longer than `timeout` is killed with its whole process group
/// (SIGTERM, SIGKILL two seconds later). Each failure (cannot start, non-zero exit, killed) is one
/// log line. At most `maxRunning` run at once; the next reminder waits for a free slot, and a
/// SIGTERM, SIGINT or SIGHUP that arrives meanwhile ends the notifier at once (that reminder
/// and the ones after it are handed out again after a restart).
final class ExecOutput: @unchecked Sendable {
    // @unchecked: immutable after init; the semaphore and the log are thread-safe.
    let command: [String]
    let timeout: Double
    let log: NotifyLog
    private let baseEnvironment: [String: String]
    private let slots: DispatchSemaphore
    static let maxRunning = 32

    init(command: [String], timeout: Double, environment: [String: String], log: NotifyLog) {
        self.command = command
        self.timeout = timeout
        self.log = log
        // Nothing meant for the notifier itself is passed on: the service manager's variables,
        // and any TODO_* a caller left in our environment.
        let own = ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"]
        baseEnvironment = environment.filter { !own.contains($0.key) && !$0.key.hasPrefix("TODO_") }
        slots = DispatchSemaphore(value: Self.maxRunning)
    }

    /// Starts the program for `reminder` and returns at once (or when a slot frees up).
    func run(_ reminder: Reminder) {
        // The signals that end us are blocked here: look for one between short waits.
        while slots.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if Notifier.terminationPending { Notifier.allowTermination(true) }
        }
        let environment = baseEnvironment.merging(reminder.environment) { $1 }
        let program = command[0]
        let pid: pid_t
        do {
            pid = try Spawn.start(program, Array(command.dropFirst()), environment: environment)
        } catch {
            slots.signal()
            log.error("--exec \(program) for todo \(reminder.id): cannot start it: \(error.reason)")
            return
        }
        let state = ChildState()
        let timeout = self.timeout
        let log = self.log
        let slots = self.slots
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            guard state.markKilled({ Spawn.killGroup(pid, SIGTERM) }) else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                state.whileUnreaped { Spawn.killGroup(pid, SIGKILL) }
            }
        }
        DispatchQueue.global().async {
            Spawn.waitUntilExited(pid)
            // Whatever it left behind in its group goes too: while the child is unreaped its pid
            // (the group's id) cannot be reused, so this never hits another process group.
            Spawn.killGroup(pid, SIGKILL)
            let killed = state.markExited()
            let exit = Spawn.reap(pid)
            slots.signal()
            if killed {
                log.error(
                    "--exec \(program) for todo \(reminder.id): still running after \(Self.seconds(timeout)); killed (\(exit))"
                )
            } else if exit != .status(0) {
                log.error("--exec \(program) for todo \(reminder.id): failed (\(exit))")
            }
        }
    }

    static func seconds(_ s: Double) -> String { s == s.rounded() ? "\(Int(s)) s" : "\(s) s" }
}

/// Whether a child still runs and whether the timeout fired first; the pid is signalled only
/// while it is unreaped, so a reused pid is never hit.
private final class ChildState: Sendable {
    private struct Flags {
        var exited = false
        var killed = false
    }
    private let flags = Mutex(Flags())

    /// The timeout fired: true when the child still runs (then `kill` is run, under the lock).
    func markKilled(_ kill: () -> Void) -> Bool {
        flags.withLock { f in
            if f.exited { return false }
            f.killed = true
            kill()
            return true
        }
    }

    /// The child exited (not yet reaped): returns whether the timeout had fired.
    func markExited() -> Bool {
        flags.withLock { f in
            f.exited = true
            return f.killed
        }
    }

    /// Runs `body` (a signal to the child) only while it has not been seen to exit, holding
    /// the lock `markExited` takes before the child is reaped.
    func whileUnreaped(_ body: () -> Void) {
        flags.withLock { f in if !f.exited { body() } }
    }
}
