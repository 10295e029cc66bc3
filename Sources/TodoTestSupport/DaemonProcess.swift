#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TodoPosix

/// A `todod` started by a test on a socket and database in its own temporary directory.
/// Sendable: its stored properties are immutable after init; `Process` is used only to signal and wait.
public final class DaemonProcess: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let socket: String
    public let database: String
    public let process = Process()
    private let stderrPipe = Pipe()

    /// Starts `todod` (or `executable`, another build of it such as `todod-faults`) and waits
    /// until its socket accepts connections.
    public init(directory: TemporaryDirectory? = nil, arguments: [String] = [], environment: [String: String] = [:],
                socket: String? = nil, database: String? = nil, executable: String = "todod") throws {
        self.directory = directory ?? TemporaryDirectory("d")
        self.socket = socket ?? self.directory.file("todod.sock")
        self.database = database ?? self.directory.file("todos.db")
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path(executable))
        process.arguments = ["--socket", self.socket, "--db", self.database] + arguments
        var env = ProcessInfo.processInfo.environment
        env["JOURNAL_STREAM"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardError = stderrPipe
        try process.run()
        try waitUntilListening()
    }

    deinit {
        if process.isRunning { stop(signal: SIGKILL) }
    }

    public var pid: Int32 { process.processIdentifier }

    private func waitUntilListening() throws {
        for _ in 0..<500 {
            if let fd = try? UnixSocket.connect(path: socket) {
                Posix.close(fd)
                return
            }
            guard process.isRunning else { throw DaemonProcessError.exited(process.terminationStatus, stderrText()) }
            usleep(10_000)
        }
        throw DaemonProcessError.notListening(stderrText())
    }

    /// Sends `signal` and waits for the exit status (the status is 128+signal when killed).
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        return process.waitForExit()
    }


    /// What the daemon wrote on stderr (read after it exited).
    public func stderrText() -> String {
        guard !process.isRunning else { return "" }
        return String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// A new raw client connected to this daemon.
    public func client() throws -> RawClient { try RawClient(path: socket) }

    /// Runs the built `todoctl` against this daemon.
    public func todoctl(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> ChildProcess.Result {
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = socket
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        return try ChildProcess.run(BuiltProducts.path("todoctl"), arguments, input: input, environment: env)
    }
}

public enum DaemonProcessError: Error {
    case exited(Int32, String)
    case notListening(String)
}
