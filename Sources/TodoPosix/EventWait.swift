import CTodoLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The monotonic clock (CLOCK_MONOTONIC), the one every deadline in the product is measured on:
/// it never jumps with the wall clock. sd-bus and sd-journal give their timeouts on it too.
package enum MonotonicClock {
    /// Microseconds since an arbitrary start (boot).
    package static func usec() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    /// Seconds since the same start.
    package static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Microseconds the machine has spent suspended since boot: `CLOCK_BOOTTIME` (which counts
    /// suspend) minus `CLOCK_MONOTONIC` (which does not). It grows across a suspend and resume.
    package static func suspendedUsec() -> Int64 {
        var boot = timespec()
        var mono = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return (Int64(boot.tv_sec) - Int64(mono.tv_sec)) * 1_000_000 + (Int64(boot.tv_nsec) - Int64(mono.tv_nsec))
            / 1000
    }

    /// Microseconds from now until the monotonic instant `deadlineUsec` (0 once it passed), or
    /// nil for `UInt64.max`, which sd-bus and sd-journal use for "no deadline".
    package static func usecUntil(_ deadlineUsec: UInt64) -> UInt64? {
        guard deadlineUsec != UInt64.max else { return nil }
        let now = usec()
        return deadlineUsec > now ? deadlineUsec - now : 0
    }
}

/// Waiting on descriptors with poll(2), the way every thread of the product that waits on more
/// than one thing (or on one with a deadline) does: interrupted waits are retried against the
/// same deadline, never restarted with the whole timeout.
package enum EventWait {
    /// Waits until one of `fds` has one of its `events` (`revents` filled in), or until the
    /// monotonic instant `deadline` (seconds, `MonotonicClock.seconds`; nil: no deadline).
    /// - Returns: how many descriptors are ready; 0 when the deadline came first.
    @discardableResult
    package static func wait(_ fds: inout [pollfd], until deadline: Double?) throws(PosixError) -> Int {
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = deadline - MonotonicClock.seconds()
                guard left > 0 else {
                    // Past the deadline: report what is ready now without blocking.
                    return try poll(&fds, timeout: 0)
                }
                timeout = Int32(min((left * 1000).rounded(.up), Double(Int32.max)))
            }
            let n = try poll(&fds, timeout: timeout)
            if n > 0 { return n }
            // 0: the timeout ran out, or poll's rounding woke it a little early: checked above.
        }
    }

    /// `wait(_:until:)` with a timeout in microseconds from now (nil: none), as sd-bus and
    /// sd-journal give theirs.
    @discardableResult
    package static func wait(_ fds: inout [pollfd], timeoutUsec: UInt64?) throws(PosixError) -> Int {
        try wait(&fds, until: timeoutUsec.map { MonotonicClock.seconds() + Double(min($0, 86_400_000_000)) / 1e6 })
    }

    /// One poll(2), retried while interrupted; -1 for `timeout` waits without limit.
    private static func poll(_ fds: inout [pollfd], timeout: Int32) throws(PosixError) -> Int {
        while true {
            let n = fds.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeout) }
            if n >= 0 { return Int(n) }
            let error = errno
            if error == EINTR { continue }
            throw PosixError("poll", errno: error)
        }
    }
}

/// A wake-up one thread waits for and others give (a local commit, a stop): pokes that come while
/// nobody waits fold into one. An eventfd, so it is waited for with `EventWait` like any other
/// descriptor and needs no condition variable.
package final class Wakeup: Sendable {
    private let fd: Int32

    package init() throws(PosixError) {
        fd = try syscall("eventfd") { todod_eventfd_create() }
    }

    deinit { Posix.close(fd) }

    /// Wakes the waiter (now, or at its next wait).
    package func poke() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(fd, $0.baseAddress, 8) }
    }

    /// Waits until poked or the monotonic instant `deadline` (nil: no deadline); true when poked.
    /// Takes every poke given so far.
    package func wait(until deadline: Double?) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        guard (try? EventWait.wait(&fds, until: deadline)) ?? 0 > 0 else { return false }
        var count: UInt64 = 0
        return withUnsafeMutableBytes(of: &count) { Glibc.read(fd, $0.baseAddress, 8) } == 8
    }

    /// Sleeps until the monotonic instant `deadline`, folding the pokes that come meanwhile into
    /// one (a debounce), unless `interrupt` says otherwise after a poke. True when poked.
    package func settle(until deadline: Double, interrupt: () -> Bool) -> Bool {
        var poked = false
        while MonotonicClock.seconds() < deadline {
            guard wait(until: deadline) else { break }
            poked = true
            if interrupt() { break }
        }
        return poked
    }
}

/// Signals read as data: they are blocked in the calling thread (and the threads it starts
/// later) and become readable on `descriptor`, to wait for in `poll` beside other descriptors.
package final class SignalDescriptor {
    package let descriptor: Int32

    package init(signals: [Int32]) throws(PosixError) {
        descriptor = try syscall("signalfd") { todod_signalfd_create(signals, Int32(signals.count)) }
    }

    deinit { Posix.close(descriptor) }

    /// Takes what is pending: the last signal that came since the last call, nil when none did.
    package func take() -> Int32? {
        let signal = todod_signalfd_drain(descriptor)
        return signal > 0 ? signal : nil
    }
}
