import Foundation
import Synchronization
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A child started with `Spawn` (posix_spawn) that a test keeps running: asked whether it still
/// runs without being reaped, signalled only while its pid is still its own, reaped once.
/// Takes the place of Foundation's `Process`, whose `run` crashed once under parallel tests.
package final class SpawnedProcess: @unchecked Sendable {
    // @unchecked: `status` is guarded by `lock`; the pid is immutable.
    package let processIdentifier: Int32
    private let lock = Mutex(())
    private var status: Int32?

    init(pid: Int32) { processIdentifier = pid }

    /// True until the child has exited (asking does not reap it).
    package var isRunning: Bool {
        lock.withLock { _ in
            guard status == nil else { return false }
            var info = siginfo_t()
            while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) < 0 {
                if errno != EINTR { return false } // not our child any more
            }
            return info._sifields._sigchld.si_pid == 0 // nothing to report yet: still running
        }
    }

    /// Waits for the child to exit and reaps it (once): its exit status, or 128 + the signal
    /// that killed it.
    @discardableResult
    package func waitForExit() -> Int32 {
        lock.withLock { _ in
            if let status { return status }
            let code: Int32 =
                switch Spawn.reap(processIdentifier) {
                case .status(let code): code
                case .signal(let signal): 128 + signal
                }
            status = code
            return code
        }
    }

    /// The exit status once reaped (`waitForExit`), else nil.
    package var terminationStatus: Int32? { lock.withLock { _ in status } }

    /// Sends `signal` unless the child was reaped already (its pid may be another's by then).
    package func send(_ signal: Int32) {
        lock.withLock { _ in if status == nil { _ = kill(processIdentifier, signal) } }
    }
}
