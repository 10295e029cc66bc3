// todoctl: the command-line client of todod. Everything happens in TodoClient's CLI.main; this
// file only supplies the real process: arguments, environment, terminal, clock and file descriptors.
import Foundation
import TodoClient
import TodoCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes all of `text` to `fd`, retrying after interrupts and short writes. Unbuffered, so
/// everything written is out before the process exits and `watch` output appears line by line.
func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
        if n < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += n
    }
}

/// The terminal's width in columns: TIOCGWINSZ on stdout, else `$COLUMNS`.
func terminalWidth(environment: [String: String]) -> Int? {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
        return Int(size.ws_col)
    }
    return environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
}

let environment = ProcessInfo.processInfo.environment
let status = CLI.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: environment,
    uid: getuid(),
    isTerminal: isatty(STDOUT_FILENO) == 1,
    terminalWidth: terminalWidth(environment: environment),
    now: Instant.now(),
    timeZone: TimeZone.current,
    stdout: { writeAll(STDOUT_FILENO, $0) },
    stderr: { writeAll(STDERR_FILENO, $0) },
    connect: { (path: String) throws(ClientError) -> RPCTransport in try UnixSocketTransport(path: path) }
)
exit(status)
