import Foundation
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A `todod` started by a test on a socket and database in its own temporary directory.
/// Started with posix_spawn (`SpawnedProcess`), not Foundation's `Process`, whose `run` crashed
/// once while tests started children in parallel. Standard input is /dev/null, standard output
/// is this process's, standard error a close-on-exec pipe read after the daemon exited.
package final class DaemonProcess: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init; `process` guards its own state.
    package let directory: TemporaryDirectory
    package let socket: String
    package let database: String
    package let process: SpawnedProcess
    private let stderrRead: Int32
    /// What `waitForStderr` read of standard error while the daemon ran.
    private let stderrSeen = LockedBox<[UInt8]>([])

    /// Starts `todod` (or `executable`, another build of it such as `todod-faults`) and waits
    /// until its socket accepts connections.
    package init(
        directory: TemporaryDirectory? = nil, arguments: [String] = [], environment: [String: String] = [:],
        socket: String? = nil, database: String? = nil, executable: String = "todod"
    ) throws {
        self.directory = directory ?? TemporaryDirectory("d")
        self.socket = socket ?? self.directory.file("todod.sock")
        self.database = database ?? self.directory.file("todos.db")
        var env = Posix.environment()
        env["JOURNAL_STREAM"] = nil
        for (k, v) in environment { env[k] = v }
        guard let null = Files.openNullDevice() else { throw DaemonProcessError.notListening("cannot open /dev/null") }
        defer { Posix.close(null) }
        let stderr = try Spawn.pipe()
        defer { Posix.close(stderr.write) }
        let pid: Int32
        do {
            pid = try Spawn.start(
                BuiltProducts.path(executable), ["--socket", self.socket, "--db", self.database] + arguments,
                environment: env, streams: Spawn.StandardStreams(input: null, output: 1, error: stderr.write))
        } catch {
            Posix.close(stderr.read)
            throw error
        }
        process = SpawnedProcess(pid: pid)
        stderrRead = stderr.read
        try waitUntilListening()
    }

    deinit {
        if process.isRunning { process.send(SIGKILL) }
        if process.terminationStatus == nil { process.waitForExit() }
        Posix.close(stderrRead)
    }

    package var pid: Int32 { process.processIdentifier }

    private func waitUntilListening() throws {
        if TodoTestSupport.waitUntilListening(socket, while: { process.isRunning }) { return }
        guard process.isRunning else { throw DaemonProcessError.exited(process.waitForExit(), stderrText()) }
        throw DaemonProcessError.notListening(stderrText())
    }

    /// Sends `signal` and waits for the exit status (the status is 128+signal when killed).
    @discardableResult
    package func stop(signal: Int32 = SIGTERM) -> Int32 {
        process.send(signal)
        return process.waitForExit()
    }

    /// What the daemon wrote on stderr (read after it exited).
    package func stderrText() -> String {
        guard !process.isRunning else { return "" }
        return String(decoding: stderrSeen.value + ((try? Posix.readToEnd(stderrRead)) ?? []), as: UTF8.self)
    }

    /// Waits until the running daemon has written `text` on stderr; what is read here stays
    /// part of `stderrText()`.
    package func waitForStderr(_ text: String, timeout: Double = 10) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        return eventually(timeout: timeout) {
            while (try? Posix.waitReadable(stderrRead, seconds: 0.001)) == true,
                let n = try? Posix.read(stderrRead, into: &buffer), n > 0
            {
                stderrSeen.mutate { $0 += buffer[..<n] }
            }
            return String(decoding: stderrSeen.value, as: UTF8.self).contains(text)
        }
    }

    /// A new raw client connected to this daemon.
    package func client() throws -> RawClient { try RawClient(path: socket) }

    /// Runs the built `todoctl` against this daemon.
    package func todoctl(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws
        -> ChildProcess.Result
    {
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = socket
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        return try ChildProcess.run(BuiltProducts.path("todoctl"), arguments, input: input, environment: env)
    }
}

package enum DaemonProcessError: Error {
    case exited(Int32, String)
    case notListening(String)
}
