import CSystemd

// The only file that calls libsystemd's sd-daemon API (sd_notify, sd_listen_fds, sd_watchdog_enabled).

/// Talking to the service manager that started us: readiness, status, watchdog, passed sockets.
/// Everything here is a no-op when the process was not started by systemd.
package enum ServiceManager {
    /// Sends a notification such as `READY=1`, `STATUS=…`, `WATCHDOG=1` or `STOPPING=1`.
    /// ([sd_notify](https://www.freedesktop.org/software/systemd/man/sd_notify.html))
    package static func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    /// The descriptors passed by socket activation (`LISTEN_FDS`), starting at 3. The variables are
    /// unset so that children do not inherit them.
    /// ([sd_listen_fds](https://www.freedesktop.org/software/systemd/man/sd_listen_fds.html))
    package static func listenFDs() -> [Int32] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }

    /// The watchdog interval in microseconds when the manager expects `WATCHDOG=1`, else nil.
    /// ([sd_watchdog_enabled](https://www.freedesktop.org/software/systemd/man/sd_watchdog_enabled.html))
    package static func watchdogInterval() -> UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 && usec > 0 ? usec : nil
    }
}
