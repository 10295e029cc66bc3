import TodoCLI
import TodoCore
import TodoPosix
import TodoRPC
import TodoTime

// todoctl: the command-line client of todod. Everything happens in TodoCLI's CLI.main; this
// file only supplies the real process: arguments, environment, terminal, clock and descriptors.
#if canImport(Glibc)
    import Glibc
#endif

/// Writes unbuffered, so everything is out before exit and `watch` output appears line by line.
func emit(_ fd: Int32, _ text: String) {
    try? Posix.writeAll(fd, Array(text.utf8))
}

/// `todoctl ui`: replaces this process with todoctl-ui (beside this todoctl, else on PATH), so
/// that todoctl itself never loads ncurses. Returns only when it could not be started.
func runInteractiveList(socket: String) -> Int32 {
    let beside = Executable.ownPath.map { Files.directory(of: $0) + "/todoctl-ui" }
    let onPath = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { String($0) + "/todoctl-ui" }
    guard let program = Executable.firstRunnable([beside].compactMap { $0 } + onPath) else {
        emit(STDERR_FILENO, "todoctl: todoctl-ui is not installed beside todoctl or on PATH\n")
        return 69
    }
    let error = Executable.replace(with: program, arguments: ["--socket", socket])
    emit(STDERR_FILENO, "todoctl: cannot run \(program): \(error.reason)\n")
    return 69
}

/// One line from standard input (the answer to a confirmation), nil at its end.
/// A byte at a time, so nothing after the line is taken from the terminal.
func readAnswer() -> String? {
    var line: [UInt8] = []
    var byte = [UInt8](repeating: 0, count: 1)
    while let n = try? Posix.read(STDIN_FILENO, into: &byte), n == 1, line.count < 4096 {
        if byte[0] == 10 { return String(decoding: line, as: UTF8.self) }
        line.append(byte[0])
    }
    return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
}

/// An act on many todos asks for confirmation only with a person at the terminal.
let answers: (() -> String?)? =
    Posix.isTerminal(STDIN_FILENO) && Posix.isTerminal(STDOUT_FILENO) ? { readAnswer() } : nil

/// The process environment, for the few variables todoctl reads.
let environment: [String: String] = Posix.environment()
let status = CLI.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: environment,
    uid: getuid(),
    isTerminal: Posix.isTerminal(STDOUT_FILENO),
    terminalWidth: Posix.terminalColumns(STDOUT_FILENO)
        ?? environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil },
    now: Instant.now(),
    timeZone: ZoneInfo.named(byTZ: environment["TZ"], tzdir: environment["TZDIR"]),
    zoneName: ZoneInfo.identifier(byTZ: environment["TZ"], tzdir: environment["TZDIR"]),
    stdout: { emit(STDOUT_FILENO, $0) },
    stderr: { emit(STDERR_FILENO, $0) },
    connect: { (path: String) throws(ClientError) -> any RPCTransport in
        try UnixSocketTransport(path: path, timeout: UnixSocketTransport.timeout(environment: environment))
    },
    runUI: runInteractiveList,
    readAnswer: answers
)
exit(status)
