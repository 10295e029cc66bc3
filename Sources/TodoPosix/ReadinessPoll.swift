import CTodoLinux

#if canImport(Glibc)
    import Glibc
#endif

/// An epoll instance that reports readable descriptors by a token of the caller's choosing
/// (level-triggered: a descriptor is reported again while unread data remains).
package final class ReadinessPoll: Sendable {
    /// The most tokens one `wait` returns.
    package static let batch = 64
    private let fd: Int32

    package init() throws(PosixError) {
        fd = try syscall("epoll_create1") { todod_epoll_create() }
    }

    deinit { Posix.close(fd) }

    /// Reports `descriptor` with `token` whenever it is readable (or hung up, or failed).
    package func add(_ descriptor: Int32, token: UInt64) throws(PosixError) {
        try syscall("epoll_ctl(ADD)") { todod_epoll_add_readable(fd, descriptor, token) }
    }

    /// Stops reporting `descriptor`. Call before closing it.
    package func remove(_ descriptor: Int32) {
        _ = todod_epoll_remove(fd, descriptor)
    }

    /// Blocks until at least one descriptor is ready, or `timeoutMilliseconds` passed (-1: no
    /// limit), and writes their tokens into `tokens` (at least `batch` long); returns how many
    /// (0 on timeout). Interrupted waits are retried.
    package func wait(into tokens: inout [UInt64], timeoutMilliseconds: Int32 = -1) -> Int {
        precondition(tokens.count >= ReadinessPoll.batch)
        while true {
            let n = tokens.withUnsafeMutableBufferPointer {
                todod_epoll_wait_tokens(fd, $0.baseAddress!, Int32(ReadinessPoll.batch), timeoutMilliseconds)
            }
            if n >= 0 { return Int(n) }
            if errno != EINTR { return 0 }
        }
    }
}
