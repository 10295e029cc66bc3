import Foundation

/// Where the daemon's own messages go: one line each on standard error (the journal under
/// systemd, which reads the `<N>` priority prefix when `SyslogLevelPrefix=` is on, the default).
struct Log: Sendable {
    var prefixPriority: Bool

    func info(_ message: String) { write(6, message) }
    func notice(_ message: String) { write(5, message) }
    func warning(_ message: String) { write(4, message) }
    func error(_ message: String) { write(3, message) }

    private func write(_ priority: Int, _ message: String) {
        let line = (prefixPriority ? "<\(priority)>" : "todod: ") + message + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
