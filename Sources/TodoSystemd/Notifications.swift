import CSystemd
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

// sd-bus on the session bus (SleepSignals.swift has the system bus): desktop notifications
// (org.freedesktop.Notifications, https://specifications.freedesktop.org/notification-spec/) on the
// user's session bus. The variadic sd-bus calls are out of Swift's reach; messages are built with
// sd_bus_message_append_basic and sd_bus_message_open_container instead.

/// A connection to the session bus for sending desktop notifications and hearing which of them
/// the user answered. Not thread-safe: one thread owns it.
///
/// Calls go out without waiting (`notify`, `close`): the answers come back as events from
/// `process()`, so a server that answers late holds up nothing. Only the unique name that owns
/// `org.freedesktop.Notifications` now is believed: its signals are taken, every other peer's
/// (a unicast `ActionInvoked` sent straight to us) is dropped, and `NameOwnerChanged` tells
/// when the server left or another one took the name.
package final class DesktopNotifications {
    /// A failure: a D-Bus error name and message from the other side, or an errno of the connection.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package let name: String?
        package let message: String
        /// Nobody owns org.freedesktop.Notifications (no notification server running), or the bus
        /// could not start one on demand (D-Bus activation failed).
        package var noServer: Bool {
            name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
                || name?.hasPrefix("org.freedesktop.DBus.Error.Spawn.") == true
        }
        /// No answer in time (the server may still have shown it).
        package var noReply: Bool {
            name == "org.freedesktop.DBus.Error.NoReply" || name == "org.freedesktop.DBus.Error.Timeout"
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

        init(reply: OpaquePointer) {
            let error = sd_bus_message_get_error(reply)
            name = error?.pointee.name.map { String(cString: $0) }
            message = error?.pointee.message.map { String(cString: $0) } ?? "error reply"
        }
    }

    /// What the bus brought: the server's signals about our notifications, answers to our calls,
    /// and the server coming or going.
    package enum Event: Sendable, Equatable {
        /// `ActionInvoked` from the current owner: the user chose the action `key`.
        case action(id: UInt32, key: String)
        /// `NotificationClosed` from the current owner, with the spec's reason (1 expired,
        /// 2 dismissed, 3 closed by call).
        case closed(id: UInt32, reason: UInt32)
        /// The answer to the `notify` call `token`: the server's id, and the unique name that gave it.
        case notified(token: UInt64, id: UInt32, server: String)
        /// The `notify` call `token` failed (an error from the server or the bus, or no answer in time).
        case notifyFailed(token: UInt64, failure: Failure)
        /// `org.freedesktop.Notifications` has a new owner (nil: none): ids of the old one mean nothing now.
        case ownerChanged(String?)
    }

    /// The value of a hint (`a{sv}`).
    package enum Hint: Sendable {
        case byte(UInt8)
        case string(String)
        case bool(Bool)
    }

    private static let service = "org.freedesktop.Notifications"
    private static let path = "/org/freedesktop/Notifications"
    private static let busName = "org.freedesktop.DBus"

    private let bus: OpaquePointer
    /// What arrived during the last `process()`; filled by the callbacks.
    fileprivate var received: [Event] = []
    /// Our `Notify` calls waiting for their answer: message cookie → the caller's token.
    private var calls: [UInt64: UInt64] = [:]
    /// The unique name that owns org.freedesktop.Notifications now (nil: nobody).
    package private(set) var owner: String?

    /// Connects to the user's session bus (`$DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`), subscribes to the server's two signals and to its name's owner
    /// changes, and asks who owns the name now.
    package init() throws(Failure) {
        var bus: OpaquePointer?
        var rc = sd_bus_open_user(&bus)
        guard rc >= 0, let bus else { throw Failure("sd_bus_open_user", errno: -rc) }
        self.bus = bus
        let me = Unmanaged.passUnretained(self).toOpaque()
        var rules = ["ActionInvoked", "NotificationClosed"].map {
            "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='\(Self.service)',member='\($0)'"
        }
        rules.append(
            "type='signal',sender='\(Self.busName)',path='/org/freedesktop/DBus',interface='\(Self.busName)',member='NameOwnerChanged',arg0='\(Self.service)'"
        )
        for rule in rules {
            rc = sd_bus_add_match(
                bus, nil, rule,
                { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    Unmanaged<DesktopNotifications>.fromOpaque(userdata).takeUnretainedValue().receive(message)
                    return 0
                }, me)
            // Every stored property is set: a throw from here on runs deinit, which closes the bus.
            guard rc >= 0 else { throw Failure("sd_bus_add_match", errno: -rc) }
        }
        owner = try Self.currentOwner(bus)
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// `GetNameOwner`: the unique name owning the service, nil when nobody does.
    private static func currentOwner(_ bus: OpaquePointer) throws(Failure) -> String? {
        var message: OpaquePointer?
        var rc = sd_bus_message_new_method_call(
            bus, &message, busName, "/org/freedesktop/DBus", busName, "GetNameOwner")
        guard rc >= 0, let message else { throw Failure("sd_bus_message_new_method_call", errno: -rc) }
        defer { sd_bus_message_unref(message) }
        rc = service.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        guard rc >= 0 else { throw Failure("sd_bus_message_append", errno: -rc) }
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        var reply: OpaquePointer?
        rc = sd_bus_call(bus, message, 5_000_000, &error, &reply)
        guard rc >= 0, let reply else {
            let failure = Failure("GetNameOwner", error: &error, errno: -rc)
            if failure.noServer { return nil }
            throw failure
        }
        defer { sd_bus_message_unref(reply) }
        var name: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "s")), &name) > 0, let name else { return nil }
        return String(cString: name)
    }

    private func receive(_ message: OpaquePointer) {
        guard let member = sd_bus_message_get_member(message).map({ String(cString: $0) }) else { return }
        let sender = sd_bus_message_get_sender(message).map { String(cString: $0) }
        if member == "NameOwnerChanged" {
            // Only the bus itself says who owns a name.
            guard sender == Self.busName else { return }
            var name: UnsafePointer<CChar>?
            var old: UnsafePointer<CChar>?
            var new: UnsafePointer<CChar>?
            let s = CChar(UInt8(ascii: "s"))
            guard sd_bus_message_read_basic(message, s, &name) > 0, sd_bus_message_read_basic(message, s, &old) > 0,
                sd_bus_message_read_basic(message, s, &new) > 0, let name, let new,
                String(cString: name) == Self.service
            else { return }
            let newOwner = String(cString: new)
            owner = newOwner.isEmpty ? nil : newOwner
            received.append(.ownerChanged(owner))
            return
        }
        // A signal about a notification counts only from the server that owns the name now.
        guard let sender, sender == owner else { return }
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

    /// The answer to one of our `Notify` calls (or sd-bus's own error when none came in time).
    private func answer(_ reply: OpaquePointer) {
        var cookie: UInt64 = 0
        guard sd_bus_message_get_reply_cookie(reply, &cookie) >= 0, let token = calls.removeValue(forKey: cookie) else {
            return
        }
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            received.append(.notifyFailed(token: token, failure: Failure(reply: reply)))
            return
        }
        var id: UInt32 = 0
        guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &id) > 0 else {
            received.append(.notifyFailed(token: token, failure: Failure("Notify reply", errno: EBADMSG)))
            return
        }
        let server = sd_bus_message_get_sender(reply).map { String(cString: $0) } ?? ""
        received.append(.notified(token: token, id: id, server: server))
    }

    /// Sends `Notify` and returns at once; the answer comes from `process()` as `.notified` or
    /// `.notifyFailed` with `token`, within `timeoutUsec`.
    package func notify(
        token: UInt64, appName: String, replacesID: UInt32 = 0, icon: String = "", summary: String, body: String,
        actions: [String], hints: [(String, Hint)], expireTimeout: Int32 = -1,
        timeoutUsec: UInt64 = 25_000_000
    ) throws(Failure) {
        var message: OpaquePointer?
        var rc = sd_bus_message_new_method_call(bus, &message, Self.service, Self.path, Self.service, "Notify")
        guard rc >= 0, let message else { throw Failure("sd_bus_message_new_method_call", errno: -rc) }
        defer { sd_bus_message_unref(message) }
        rc = Self.append(
            message, appName: appName, replacesID: replacesID, icon: icon, summary: summary, body: body,
            actions: actions, hints: hints, expireTimeout: expireTimeout)
        guard rc >= 0 else { throw Failure("sd_bus_message_append", errno: -rc) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        rc = sd_bus_call_async(
            bus, nil, message,
            { reply, userdata, _ in
                guard let reply, let userdata else { return 0 }
                Unmanaged<DesktopNotifications>.fromOpaque(userdata).takeUnretainedValue().answer(reply)
                return 0
            }, me, timeoutUsec)
        guard rc >= 0 else { throw Failure("Notify", errno: -rc) }
        var cookie: UInt64 = 0
        _ = sd_bus_message_get_cookie(message, &cookie)
        calls[cookie] = token
    }

    /// Sends `CloseNotification(id)` and returns at once; its answer is not waited for (the
    /// server's `NotificationClosed` follows).
    package func close(_ id: UInt32) throws(Failure) {
        var message: OpaquePointer?
        var rc = sd_bus_message_new_method_call(
            bus, &message, Self.service, Self.path, Self.service, "CloseNotification")
        guard rc >= 0, let message else { throw Failure("sd_bus_message_new_method_call", errno: -rc) }
        defer { sd_bus_message_unref(message) }
        var value = id
        rc = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value)
        guard rc >= 0 else { throw Failure("sd_bus_message_append", errno: -rc) }
        rc = sd_bus_call_async(bus, nil, message, { _, _, _ in 0 }, nil, 25_000_000)
        guard rc >= 0 else { throw Failure("CloseNotification", errno: -rc) }
    }

    /// The arguments of `Notify`, signature `susssasa{sv}i`.
    private static func append(
        _ m: OpaquePointer, appName: String, replacesID: UInt32, icon: String, summary: String,
        body: String, actions: [String], hints: [(String, Hint)], expireTimeout: Int32
    ) -> Int32 {
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
        guard sd_bus_get_timeout(bus, &deadline) >= 0 else { return nil }
        return MonotonicClock.usecUntil(deadline)
    }

    /// Handles everything the bus has for us and returns the server's signals among it. Throws
    /// when the connection is gone.
    package func process() throws(Failure) -> [Event] {
        defer { received = [] }
        while true {
            let rc = sd_bus_process(bus, nil)
            guard rc >= 0 else { throw Failure("sd_bus_process", errno: -rc) }
            if rc == 0 { break }
        }
        return received
    }
}
