import TodoPosix

/// The notifier's own messages: one line each on standard error (the journal under systemd),
/// written with one non-blocking write, so logging never stalls it. Safe from any thread.
struct NotifyLog: Sendable {
    /// Under systemd (`JOURNAL_STREAM` set), lines carry a `<N>` priority prefix instead of the name.
    var prefixPriority: Bool

    func info(_ message: String) { write(6, message) }
    func warning(_ message: String) { write(4, message) }
    func error(_ message: String) { write(3, message) }

    private func write(_ priority: Int, _ message: String) {
        var line = Array(((prefixPriority ? "<\(priority)>" : "todod-notify: ") + message).utf8)
        line.append(0x0A)
        _ = Posix.writeWithoutBlocking(2, line)
    }
}
