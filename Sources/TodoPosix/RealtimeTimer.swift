#if canImport(Glibc)
import Glibc
#endif
import CTodoLinux

/// A one-shot timer on the wall clock (`CLOCK_REALTIME`), held as a `timerfd` made once.
///
/// The descriptor is made when the timer is, so arming it later never needs a new one: it works
/// as well at the descriptor limit. The deadline is absolute (`TFD_TIMER_ABSTIME`): the kernel
/// re-checks it when the clock is set, and one already past expires at once.
package final class RealtimeTimer: Sendable {
    /// Readable once the timer expired, until `consume()`.
    package let fd: Int32

    package init() throws(PosixError) {
        fd = try syscall("timerfd_create") { todod_realtime_timer_create() }
    }

    deinit { Posix.close(fd) }

    /// Expires once at `usec` microseconds since the epoch. Any instant at or before the epoch
    /// (the kernel would read 0 as "disarm", and refuses negative times) is armed as the first
    /// nanosecond after it: long past, so the timer expires at once.
    package func arm(atUsec usec: Int64) throws(PosixError) {
        let (seconds, nanoseconds) = usec > 0 ? (usec / 1_000_000, usec % 1_000_000 * 1000) : (0, 1)
        try syscall("timerfd_settime") { todod_realtime_timer_set(fd, seconds, nanoseconds) }
    }

    /// Never expires, until armed again.
    package func disarm() {
        _ = todod_realtime_timer_set(fd, 0, 0)
    }

    /// Reads the expiry count. Returns whether the timer had expired (false: nothing to read,
    /// a wake-up after it was re-armed or disarmed).
    package func consume() -> Bool {
        var count: UInt64 = 0
        return withUnsafeMutableBytes(of: &count) { Glibc.read(fd, $0.baseAddress, 8) } == 8
    }
}
