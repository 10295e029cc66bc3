import CSystemd

#if canImport(Glibc)
    import Glibc
#endif

// sd-bus on the system bus: logind's PrepareForSleep signal. (Notifications.swift holds the rest
// of this module's sd-bus calls, on the session bus.)

/// logind's `PrepareForSleep(b)` on the system bus (`$DBUS_SYSTEM_BUS_ADDRESS`, else
/// `/run/dbus/system_bus_socket`): true just before the machine suspends or hibernates, false
/// once it resumed. Not thread-safe: one queue owns it.
package final class SleepSignals {
    private let bus: OpaquePointer
    private var received: [Bool] = []
    package static let service = "org.freedesktop.login1"
    package static let path = "/org/freedesktop/login1"
    package static let interface = "org.freedesktop.login1.Manager"

    /// Connects to the system bus and subscribes to the signal. Throws when there is no system bus
    /// (a container, a test machine): the caller goes on without it.
    package init() throws(DesktopNotifications.Failure) {
        var bus: OpaquePointer?
        var rc = sd_bus_open_system(&bus)
        guard rc >= 0, let bus else { throw DesktopNotifications.Failure("sd_bus_open_system", errno: -rc) }
        self.bus = bus
        let rule =
            "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='\(Self.interface)',member='PrepareForSleep'"
        rc = sd_bus_add_match(
            bus, nil, rule,
            { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                var value: Int32 = 0
                guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 else { return 0 }
                Unmanaged<SleepSignals>.fromOpaque(userdata).takeUnretainedValue().received.append(value != 0)
                return 0
            }, Unmanaged.passUnretained(self).toOpaque())
        guard rc >= 0 else { throw DesktopNotifications.Failure("sd_bus_add_match", errno: -rc) }
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// The descriptor to wait on for reading.
    package var descriptor: Int32 { sd_bus_get_fd(bus) }

    /// Handles everything the bus has and returns the signals' values in order (true: about to
    /// sleep, false: resumed). Throws when the connection is gone.
    package func process() throws(DesktopNotifications.Failure) -> [Bool] {
        defer { received = [] }
        while true {
            let rc = sd_bus_process(bus, nil)
            guard rc >= 0 else { throw DesktopNotifications.Failure("sd_bus_process", errno: -rc) }
            if rc == 0 { break }
        }
        return received
    }
}
