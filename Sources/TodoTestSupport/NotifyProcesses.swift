import Foundation
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The processes todod-notify's tests run: a private session bus, a stand-in notification server
/// on it, and the notifier itself.
package enum NotifyTestSupport {
    /// The repository checkout the tests were built in (where Package.swift is).
    package static let repository: String = {
        var dir = URL(fileURLWithPath: BuiltProducts.directory)
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                return dir.path
            }
            dir.deleteLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath
    }()

    /// The private Python environment scripts/test makes, with jeepney in it.
    package static var python: String { repository + "/.build/test-venv/bin/python" }

    /// Whether the stand-in can run here: dbus-daemon, dbus-send and the venv with jeepney.
    package static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-send"),
            FileManager.default.isExecutableFile(atPath: python)
        else { return false }
        return (try? ChildProcess.run(python, ["-c", "import jeepney"]).status) == 0
    }()

    /// The shared `eventually` (Waiting.swift), by the name the notifier tests call it.
    package static func eventually(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        try TodoTestSupport.eventually(timeout: timeout, condition)
    }
}

/// A process started by a test with its output going to files, stopped (and reaped) on release.
package class BackgroundProcess: @unchecked Sendable {
    package let process: SpawnedProcess
    package let stdoutPath: String
    package let stderrPath: String

    init(_ executable: String, _ arguments: [String], environment: [String: String], output: String) throws {
        stdoutPath = output + ".out"
        stderrPath = output + ".err"
        var env = Posix.environment()
        env["JOURNAL_STREAM"] = nil
        for (k, v) in environment { env[k] = v }
        let out = open(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let err = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            if out >= 0 { Posix.close(out) }
            if err >= 0 { Posix.close(err) }
        }
        guard out >= 0, err >= 0 else {
            throw NotifyTestError.didNotStart(executable, "cannot create \(output).out/.err")
        }
        process = SpawnedProcess(
            pid: try Spawn.start(
                executable, arguments, environment: env,
                streams: Spawn.StandardStreams(input: nil, output: out, error: err)))
    }

    deinit { stop() }

    /// Starts any program with its output going to `output`.out and .err.
    package static func started(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], output: String
    ) throws -> BackgroundProcess {
        try BackgroundProcess(executable, arguments, environment: environment, output: output)
    }

    /// The pids of this process's children (from /proc).
    package var children: [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == self.pid ? pid : nil
        }
    }

    package var pid: Int32 { process.processIdentifier }

    /// SIGTERM, then SIGKILL after five seconds; returns the exit status.
    @discardableResult
    package func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard process.isRunning else { return process.waitForExit() }
        process.send(signal)
        if !NotifyTestSupport.eventually(timeout: 5, { !process.isRunning }) { process.send(SIGKILL) }
        return process.waitForExit()
    }

    package var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    package var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    package var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// A private `dbus-daemon --session` listening on `DIR/bus`.
package final class SessionBus: BackgroundProcess, @unchecked Sendable {
    package let address: String

    /// Starts it on `socket` and waits until it accepts connections. With `activating`, the bus
    /// starts the stand-in notification server on demand (D-Bus activation), recording to that
    /// file, and knows no other service.
    package init(socket: String, directory: TemporaryDirectory, activating record: String? = nil) throws {
        address = "unix:path=" + socket
        var arguments = ["--session", "--nofork", "--nopidfile", "--address=" + address]
        if let record {
            let services = directory.file("services")
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            try """
            [D-BUS Service]
            Name=org.freedesktop.Notifications
            Exec=\(NotifyTestSupport.python) \(NotifyTestSupport.repository)/scripts/lib/notification-server.py \(record)

            """.write(toFile: services + "/org.freedesktop.Notifications.service", atomically: true, encoding: .utf8)
            try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(services)</servicedir>
              <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>

            """.write(toFile: directory.file("bus.conf"), atomically: true, encoding: .utf8)
            arguments = ["--config-file=" + directory.file("bus.conf"), "--nofork", "--nopidfile"]
        }
        try super.init(
            "/usr/bin/dbus-daemon", arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": address],
            output: directory.file("dbus"))
        guard
            NotifyTestSupport.eventually(
                timeout: 10, { FileManager.default.fileExists(atPath: socket) || !process.isRunning }),
            process.isRunning
        else { throw NotifyTestError.didNotStart("dbus-daemon", stderr) }
    }
}

/// The stand-in org.freedesktop.Notifications server (scripts/lib/notification-server.py).
package final class NotificationServer: BackgroundProcess, @unchecked Sendable {
    package let record: String
    package let bus: SessionBus

    /// `slow`: Notify calls whose summary starts with the prefix are answered that many seconds late.
    package init(
        bus: SessionBus, directory: TemporaryDirectory, name: String = "server",
        slow: (prefix: String, seconds: Double)? = nil
    ) throws {
        self.bus = bus
        record = directory.file("notifications.jsonl")
        try? FileManager.default.removeItem(atPath: record + ".ready")
        let extra = slow.map { ["--slow", $0.prefix, String($0.seconds)] } ?? []
        try super.init(
            NotifyTestSupport.python,
            [NotifyTestSupport.repository + "/scripts/lib/notification-server.py", record] + extra,
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], output: directory.file(name))
        guard
            NotifyTestSupport.eventually(
                timeout: 20, { FileManager.default.fileExists(atPath: record + ".ready") || !process.isRunning }),
            process.isRunning
        else { throw NotifyTestError.didNotStart("notification-server.py", stderr) }
    }

    /// Every Notify call so far, in order.
    package var notifications: [JSON] {
        ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSON.parse(String($0))
        }
    }

    /// The Notify calls whose summary is `summary`, waiting up to `timeout` seconds for `count`.
    package func notifications(summary: String, atLeast count: Int, timeout: Double = 15) -> [JSON] {
        var found: [JSON] = []
        _ = NotifyTestSupport.eventually(timeout: timeout) {
            found = notifications.filter { $0["summary"] == .string(summary) }
            return found.count >= count
        }
        return found
    }

    /// Every CloseNotification call so far, in order (`id`, `time`, `sender`).
    package var closes: [JSON] { Self.lines(record + ".closes") }

    /// The late answers sent so far (`id`, `time`), with `slow`.
    package var replies: [JSON] { Self.lines(record + ".replies") }

    /// The CloseNotification calls for `id`, waiting up to `timeout` seconds for one.
    package func closes(of id: Int64, timeout: Double = 10) -> [JSON] {
        var found: [JSON] = []
        _ = NotifyTestSupport.eventually(timeout: timeout) {
            found = closes.filter { $0["id"] == .int(id) }
            return !found.isEmpty
        }
        return found
    }

    private static func lines(_ path: String) -> [JSON] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSON.parse(String($0))
        }
    }

    /// Sends, from another peer that owns nothing, a unicast ActionInvoked(id, action) to the
    /// bus name `destination` (what any program on the session bus can do).
    package func spoof(to destination: String, id: Int64, action: String) throws {
        let result = try ChildProcess.run(
            NotifyTestSupport.python,
            [
                NotifyTestSupport.repository + "/scripts/lib/notification-server.py",
                "--spoof", destination, String(id), action
            ],
            environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else {
            throw NotifyTestError.didNotStart("notification-server.py --spoof", result.stderr)
        }
    }

    /// Presses the button `action` of notification `id` (ActionInvoked, then NotificationClosed).
    package func invoke(_ id: Int64, _ action: String) throws {
        let result = try ChildProcess.run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.todod.Test.Invoke", "uint32:\(id)", "string:\(action)"
            ], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw NotifyTestError.didNotStart("dbus-send", result.stderr) }
    }
}

/// `todod-notify` against a test's daemon, with its state (the cursor) in `state`.
package final class NotifierProcess: BackgroundProcess, @unchecked Sendable {
    /// Starts it and waits until it follows the journal (its "following" log line).
    package convenience init(
        daemon: DaemonProcess, arguments: [String] = [], state: String, bus: String? = nil,
        environment: [String: String] = [:], output: String
    ) throws {
        try self.init(
            socket: daemon.socket, arguments: arguments, state: state, bus: bus, environment: environment,
            output: output)
    }

    /// The same against whatever listens at `socket`.
    package init(
        socket: String, arguments: [String] = [], state: String, bus: String? = nil,
        environment: [String: String] = [:], output: String
    ) throws {
        var env = [
            "XDG_STATE_HOME": state, "DBUS_SESSION_BUS_ADDRESS": bus ?? "unix:path=/nonexistent/bus", "TZ": "UTC"
        ]
        for (k, v) in environment { env[k] = v }
        try super.init(
            BuiltProducts.path("todod-notify"), ["--socket", socket] + arguments, environment: env, output: output)
        guard
            NotifyTestSupport.eventually(
                timeout: 20, { stderr.contains("following the reminders") || !process.isRunning }),
            process.isRunning
        else { throw NotifyTestError.didNotStart("todod-notify", stderr) }
    }

    /// The `--print` lines whose title field is `title`, waiting up to `timeout` seconds for `count`.
    package func printed(title: String, atLeast count: Int, timeout: Double = 15) -> [[String]] {
        var found: [[String]] = []
        _ = NotifyTestSupport.eventually(timeout: timeout) {
            found = stdoutLines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
                .filter { $0.count == 6 && $0[5] == title }
            return found.count >= count
        }
        return found
    }
}

package enum NotifyTestError: Error {
    case didNotStart(String, String)
}
