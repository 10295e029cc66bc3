import CTodoLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A one-shot timer on the wall clock (`CLOCK_REALTIME`), held as a `timerfd` made once.
///
/// The descriptor is made when the timer is, so arming it later never needs a new one: it works
/// as well at the descriptor limit. The deadline is absolute (`TFD_TIMER_ABSTIME`): the kernel
/// re-checks it when the clock is set, and one already past expires at once. Armed with
/// `TFD_TIMER_CANCEL_ON_SET`, it also says when the clock was set (stepped, by hand or by NTP)
/// while it was armed: `consume()` answers `.clockSet`.
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

    /// What a read of the timer found.
    package enum Expiry: Sendable, Equatable {
        /// The deadline passed.
        case expired
        /// The clock was set while the timer was armed (the read failed with `ECANCELED`).
        case clockSet
        /// Nothing to read: a wake-up after it was re-armed or disarmed.
        case nothing
    }

    /// Reads the expiry count.
    package func consume() -> Expiry {
        var count: UInt64 = 0
        let n = withUnsafeMutableBytes(of: &count) { Glibc.read(fd, $0.baseAddress, 8) }
        if n == 8 { return .expired }
        return n < 0 && errno == ECANCELED ? .clockSet : .nothing
    }

    /// The timer's settings as the kernel shows them in `/proc/self/fdinfo` (`clockid`, `ticks`,
    /// `settime flags`, `it_value`), for tests.
    package var kernelSettings: [String: String] {
        guard let bytes = try? Files.contents(of: "/proc/self/fdinfo/\(fd)") else { return [:] }
        var settings: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            settings[String(line[..<colon])] = String(value)
        }
        return settings
    }
}
