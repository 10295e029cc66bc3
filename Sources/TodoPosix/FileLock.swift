#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock(2)` on a lock file, held until `unlock` or deinit: todod-sync takes one per
/// account, so a `todod-sync --once` beside the running service waits for the service's round
/// instead of running its own at the same time.
package final class FileLock {
    private var fd: Int32

    /// Opens (creating, mode 0600) `path` and takes the lock, waiting at most `timeout` seconds.
    /// - Returns: nil when another process held it all that time.
    package init?(path: String, timeout: Double) throws(PosixError) {
        fd = try syscall("open \(path)") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        let deadline = Posix.monotonicSeconds() + timeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                Posix.close(fd)
                throw PosixError("flock \(path)", errno: code)
            }
            if Posix.monotonicSeconds() >= deadline {
                Posix.close(fd)
                return nil
            }
            usleep(50_000)
        }
    }

    package func unlock() {
        guard fd >= 0 else { return }
        Posix.close(fd) // closing the descriptor releases the lock
        fd = -1
    }

    deinit { unlock() }
}
