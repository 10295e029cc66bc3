#if canImport(Glibc)
import Glibc
#endif
import CSystemd

// The only file that calls libsystemd's sd-bus API: desktop notifications
// (org.freedesktop.Notifications, https://specifications.freedesktop.org/notification-spec/) on the
// user's session bus. The variadic sd-bus calls are out of Swift's reach; messages are built with
// sd_bus_message_append_basic and sd_bus_message_open_container instead.

/// A connection to the session bus for sending desktop notifications and hearing which of them
/// the user answered. Not thread-safe: one thread owns it.
package final class DesktopNotifications {
    /// A failure: a D-Bus error name and message from the other side, or an errno of the connection.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let name: String?
        package let message: String
        /// Nobody owns org.freedesktop.Notifications (no notification server running).
        package var noServer: Bool {
            name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
        }
        package var description: String { name.map { "\($0): \(message)" } ?? message }

        init(_ function: String, errno: Int32) {
            name = nil
            message = "\(function): \(String(cString: strerror(errno)))"
        }

        init(_ function: String, error: inout sd_bus_error, errno: Int32) {
            if let errorName = error.name {
                name = String(cString: errorName)
                message = error.message.map { String(cString: $0) } ?? String(cString: strerror(errno))
            } else {
                name = nil
                message = "\(function): \(String(cString: strerror(errno)))"
            }
            sd_bus_error_free(&error)
        }
    }

    /// A signal of the notification server about one notification.
    package enum Event: Sendable, Equatable {
        /// `ActionInvoked`: the user chose the action `key`.
        case action(id: UInt32, key: String)
        /// `NotificationClosed`, with the spec's reason (1 expired, 2 dismissed, 3 closed by call).
        case closed(id: UInt32, reason: UInt32)
    }

    /// The value of a hint (`a{sv}`).
    package enum Hint: Sendable {
        case byte(UInt8)
        case string(String)
        case bool(Bool)
    }

    private static let service = "org.freedesktop.Notifications"
    private static let path = "/org/freedesktop/Notifications"

    private let bus: OpaquePointer
    /// Signals received during the last `process()`; filled by the match callback.
    fileprivate var received: [Event] = []

    /// Connects to the user's session bus (`$DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`) and subscribes to the server's two signals.
    package init() throws(Failure) {
        var bus: OpaquePointer?
        var rc = sd_bus_open_user(&bus)
        guard rc >= 0, let bus else { throw Failure("sd_bus_open_user", errno: -rc) }
        self.bus = bus
        let me = Unmanaged.passUnretained(self).toOpaque()
        for member in ["ActionInvoked", "NotificationClosed"] {
            let rule = "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='\(Self.service)',member='\(member)'"
            rc = sd_bus_add_match(bus, nil, rule, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<DesktopNotifications>.fromOpaque(userdata).takeUnretainedValue().receive(message)
                return 0
            }, me)
            guard rc >= 0 else {
                sd_bus_flush_close_unref(bus)
                throw Failure("sd_bus_add_match", errno: -rc)
            }
        }
    }

    deinit { sd_bus_flush_close_unref(bus) }

    private func receive(_ message: OpaquePointer) {
        guard let member = sd_bus_message_get_member(message).map({ String(cString: $0) }) else { return }
        var id: UInt32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &id) > 0 else { return }
        if member == "ActionInvoked" {
            var key: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &key) > 0, let key else { return }
            received.append(.action(id: id, key: String(cString: key)))
        } else if member == "NotificationClosed" {
            var reason: UInt32 = 0
            _ = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &reason)
            received.append(.closed(id: id, reason: reason))
        }
    }

    /// Calls `Notify` and returns the server's id for the notification. Waits for the answer at
    /// most `timeoutUsec`.
    package func notify(appName: String, replacesID: UInt32 = 0, icon: String = "", summary: String, body: String,
                        actions: [String], hints: [(String, Hint)], expireTimeout: Int32 = -1,
                        timeoutUsec: UInt64 = 5_000_000) throws(Failure) -> UInt32 {
        var message: OpaquePointer?
        var rc = sd_bus_message_new_method_call(bus, &message, Self.service, Self.path, Self.service, "Notify")
        guard rc >= 0, let message else { throw Failure("sd_bus_message_new_method_call", errno: -rc) }
        defer { sd_bus_message_unref(message) }
        rc = Self.append(message, appName: appName, replacesID: replacesID, icon: icon, summary: summary, body: body,
                         actions: actions, hints: hints, expireTimeout: expireTimeout)
        guard rc >= 0 else { throw Failure("sd_bus_message_append", errno: -rc) }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        var reply: OpaquePointer?
        rc = sd_bus_call(bus, message, timeoutUsec, &error, &reply)
        guard rc >= 0, let reply else { throw Failure("Notify", error: &error, errno: -rc) }
        defer { sd_bus_message_unref(reply) }
        var id: UInt32 = 0
        rc = sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &id)
        guard rc > 0 else { throw Failure("Notify reply", errno: rc < 0 ? -rc : EBADMSG) }
        return id
    }

    /// The arguments of `Notify`, signature `susssasa{sv}i`.
    private static func append(_ m: OpaquePointer, appName: String, replacesID: UInt32, icon: String, summary: String,
                               body: String, actions: [String], hints: [(String, Hint)], expireTimeout: Int32) -> Int32 {
        func type(_ c: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: c)) }
        func string(_ s: String) -> Int32 { s.withCString { sd_bus_message_append_basic(m, type("s"), $0) } }
        var rc = string(appName)
        var replaces = replacesID
        if rc >= 0 { rc = sd_bus_message_append_basic(m, type("u"), &replaces) }
        if rc >= 0 { rc = string(icon) }
        if rc >= 0 { rc = string(summary) }
        if rc >= 0 { rc = string(body) }
        if rc >= 0 { rc = sd_bus_message_open_container(m, type("a"), "s") }
        for action in actions where rc >= 0 { rc = string(action) }
        if rc >= 0 { rc = sd_bus_message_close_container(m) }
        if rc >= 0 { rc = sd_bus_message_open_container(m, type("a"), "{sv}") }
        for (key, value) in hints where rc >= 0 {
            rc = sd_bus_message_open_container(m, type("e"), "sv")
            if rc >= 0 { rc = string(key) }
            switch value {
            case .byte(let b):
                var byte = b
                if rc >= 0 { rc = sd_bus_message_open_container(m, type("v"), "y") }
                if rc >= 0 { rc = sd_bus_message_append_basic(m, type("y"), &byte) }
            case .string(let s):
                if rc >= 0 { rc = sd_bus_message_open_container(m, type("v"), "s") }
                if rc >= 0 { rc = string(s) }
            case .bool(let b):
                var flag: Int32 = b ? 1 : 0
                if rc >= 0 { rc = sd_bus_message_open_container(m, type("v"), "b") }
                if rc >= 0 { rc = sd_bus_message_append_basic(m, type("b"), &flag) }
            }
            if rc >= 0 { rc = sd_bus_message_close_container(m) }
            if rc >= 0 { rc = sd_bus_message_close_container(m) }
        }
        if rc >= 0 { rc = sd_bus_message_close_container(m) }
        var timeout = expireTimeout
        if rc >= 0 { rc = sd_bus_message_append_basic(m, type("i"), &timeout) }
        return rc
    }

    /// The descriptor to poll for, with `events`, and the microseconds until `process()` is due
    /// anyway (nil: only on an event).
    package var descriptor: Int32 { sd_bus_get_fd(bus) }
    package var events: Int16 {
        let rc = sd_bus_get_events(bus)
        return rc > 0 ? Int16(rc) : Int16(POLLIN)
    }
    package var timeoutUsec: UInt64? {
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let current = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        return deadline > current ? deadline - current : 0
    }

    /// Handles everything the bus has for us and returns the server's signals among it. Throws
    /// when the connection is gone.
    package func process() throws(Failure) -> [Event] {
        while true {
            let rc = sd_bus_process(bus, nil)
            guard rc >= 0 else { throw Failure("sd_bus_process", errno: -rc) }
            if rc == 0 { break }
        }
        defer { received = [] }
        return received
    }
}
