import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A title no other run shares: `label`, a random number and some Japanese.
func unique(_ label: String) -> String { "\(label) \(UInt32.random(in: 0...UInt32.max)) 通知" }

/// An RFC 3339 instant `seconds` from now, whole seconds (rounded up).
func instant(in seconds: Double) -> String {
    wholeSeconds((Date().timeIntervalSince1970 + seconds).rounded(.up))
}

/// An RFC 3339 instant `seconds` from now, whole seconds (rounded down).
func rfc3339(in seconds: Double) -> String {
    wholeSeconds((Date().timeIntervalSince1970 + seconds).rounded(.down))
}

/// RFC 3339 UTC text of a whole number of seconds since the epoch.
private func wholeSeconds(_ seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
}

/// A todod started through a launcher (unshare(1) for a journal of the test's making, prlimit(1)
/// for a descriptor limit), its standard error collected as it comes.
final class LaunchedDaemon: @unchecked Sendable {
    // @unchecked: `stderrText` is guarded by `lock`.
    let process = Process()
    let socket: String
    private let lock = NSLock()
    private var stderrText = ""
    private var stderrEnded = false

    init(_ launcher: String, _ arguments: [String], socket: String) throws {
        self.socket = socket
        process.executableURL = URL(fileURLWithPath: launcher)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["JOURNAL_STREAM"] = nil
        process.environment = env
        let pipe = Pipe()
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            guard !data.isEmpty else { // end of file: the daemon has exited
                handle.readabilityHandler = nil
                self.lock.withLock { self.stderrEnded = true }
                return
            }
            self.lock.withLock { self.stderrText += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        guard eventually(timeout: 10, { (try? RawClient(path: socket)) != nil || !process.isRunning }),
            process.isRunning
        else {
            throw DaemonProcessError.notListening(stderr)
        }
    }

    /// todod in a private mount namespace whose /run/systemd/journal is `journal`, a directory of
    /// the test: empty, journald is down; with a datagram socket the test binds there, the test
    /// is journald.
    static func withJournal(at journal: String, in dir: TemporaryDirectory) throws -> LaunchedDaemon {
        let socket = dir.file("todod.sock")
        return try LaunchedDaemon(
            "/usr/bin/unshare",
            [
                "-m", "--propagation", "private", "sh", "-c",
                "mkdir -p /run/systemd/journal && mount --bind \"$3\" /run/systemd/journal && exec \"$0\" --socket \"$1\" --db \"$2\"",
                BuiltProducts.path("todod"), socket, dir.file("todos.db"), journal
            ], socket: socket)
    }

    /// Stops it: SIGTERM, and SIGKILL when it has not exited within five seconds (a daemon whose
    /// store queue is frozen never finishes its shutdown; the test must fail, not hang).
    deinit {
        guard process.isRunning else { return }
        process.terminate()
        if !eventually(timeout: 5, { !process.isRunning }) { kill(pid, SIGKILL) }
        process.waitForExit()
    }

    /// Stops it (SIGTERM) and returns everything it wrote to standard error, to the end.
    func stop() -> String {
        process.terminate()
        process.waitForExit()
        _ = eventually(timeout: 5) { lock.withLock { stderrEnded } }
        return stderr
    }

    var pid: Int32 { process.processIdentifier }
    var stderr: String { lock.withLock { stderrText } }
    func client() throws -> RawClient { try RawClient(path: socket, timeoutSeconds: 5) }

    /// Whether one of its threads waits for a datagram socket's receiver to make room: the
    /// daemon is inside a journal send that the (stalled) journal holds up.
    var blockedOnJournal: Bool { waitsForDatagramReceiver(pid) }
}
