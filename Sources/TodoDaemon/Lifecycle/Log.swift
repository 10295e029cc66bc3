import Synchronization
import TodoPosix

/// Where the daemon's own messages go: one line each on standard error (the journal under
/// systemd, which reads the `<N>` priority prefix when `SyslogLevelPrefix=` is on, the default).
///
/// Logging never stops or kills the daemon: a line is written with one non-blocking `write(2)`
/// (`Posix.writeWithoutBlocking`) and dropped when standard error is closed, full (ENOSPC) or
/// would block (a log reader that stopped reading); the next line that gets through says how many
/// were lost.
struct Log: Sendable {
    var prefixPriority: Bool

    /// Lines dropped since the last one written, for the whole process.
    private static let dropped = Atomic<Int>(0)

    func info(_ message: String) { write(6, message) }
    func notice(_ message: String) { write(5, message) }
    func warning(_ message: String) { write(4, message) }
    func error(_ message: String) { write(3, message) }

    private func write(_ priority: Int, _ message: String) {
        let prefix = prefixPriority ? "<\(priority)>" : "todod: "
        let lost = Log.dropped.exchange(0, ordering: .relaxed)
        var text = message
        if lost > 0 { text += " (\(lost) earlier log line\(lost == 1 ? "" : "s") lost)" }
        var line = Array((prefix + text).utf8)
        line.append(0x0A)
        if !Posix.writeWithoutBlocking(2, line) { Log.dropped.add(lost + 1, ordering: .relaxed) }
    }
}

/// A warning that can recur thousands of times a second (a flood of refused connections, a
/// process out of descriptors): the first is logged at once, later ones at most once per
/// `interval`, each with the count of those held back. Used on the I/O queue only.
final class RateLimitedWarning {
    private let log: Log
    private let interval: Double
    private var lastLogged = -Double.infinity
    private var heldBack = 0
    private var lastMessage = ""

    init(log: Log, interval: Double = 10) {
        self.log = log
        self.interval = interval
    }

    /// Logs `message` now, or counts it when one was logged less than `interval` ago. Returns
    /// the moment a line with the count is due, when one was just held back and nothing logs
    /// it yet: the caller then calls `flush` at that moment.
    @discardableResult
    func warn(_ message: String, now: Double) -> Double? {
        lastMessage = message
        if now - lastLogged >= interval {
            if heldBack > 0 {
                heldBack += 1
                flush(now: now)
            } else {
                log.warning(message)
                lastLogged = now
            }
            return nil
        }
        heldBack += 1
        return heldBack == 1 ? lastLogged + interval : nil
    }

    /// Logs the count of warnings held back, if any, with the last of them.
    func flush(now: Double) {
        guard heldBack > 0 else { return }
        log.warning("\(lastMessage) (\(heldBack) like it in the last \(Int(max(1, now - lastLogged).rounded())) s)")
        heldBack = 0
        lastLogged = now
    }
}
