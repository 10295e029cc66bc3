import Foundation
import Testing
import TodoPosix
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// todoctl gives up on a daemon that does not answer.
@Suite struct ClientTimeoutTests {
    /// Runs todoctl under coreutils `timeout`, so a todoctl that hangs ends as exit 124 instead of
    /// hanging the test; returns its result and how long it took.
    private func todoctl(_ arguments: [String], socket: String, timeout: String) throws -> (ChildProcess.Result, Double)
    {
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = socket
        env["NO_COLOR"] = "1"
        env["TODOCTL_TIMEOUT"] = timeout
        let start = Posix.monotonicSeconds()
        let result = try ChildProcess.run(
            "timeout", ["-s", "KILL", "20", BuiltProducts.path("todoctl")] + arguments, environment: env)
        return (result, Posix.monotonicSeconds() - start)
    }

    /// A SIGSTOP-ed daemon: `status`, `list` and `add` exit 69 naming the socket after the limit.
    @Test func aStoppedDaemonTimesOut() throws {
        let daemon = try DaemonProcess()
        defer { kill(daemon.pid, SIGCONT) }
        kill(daemon.pid, SIGSTOP)
        for command in [["status"], ["list"], ["add", "牛乳を買う"]] {
            let (result, seconds) = try todoctl(command, socket: daemon.socket, timeout: "1")
            #expect(result.status == 69, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("todod at \(daemon.socket) did not answer within 1 s"), "\(result.stderr)")
            #expect(seconds >= 0.9 && seconds < 10, "\(command) took \(seconds) s")
        }
        kill(daemon.pid, SIGCONT)
        // Nothing was half-done: the add the client gave up on may have been applied, never twice.
        let list = try daemon.todoctl(["list", "--json"])
        #expect(list.status == 0)
    }

    /// A socket whose listener never accepts and whose backlog is full: connecting times out.
    @Test func aListenerThatNeverAcceptsTimesOut() throws {
        let directory = TemporaryDirectory("never-accepts")
        let path = directory.file("todod.sock")
        let listener = try UnixSocket.listen(path: path, backlog: 0)
        defer { Posix.close(listener) }
        var queued: [Int32] = []
        defer { queued.forEach(Posix.close) }
        // Fill the backlog: further connects wait (until their send timeout).
        while queued.count < 64, let fd = try? UnixSocket.connect(path: path, timeout: 0.2) { queued.append(fd) }
        #expect(queued.count < 64)
        let (result, seconds) = try todoctl(["status"], socket: path, timeout: "0.5")
        #expect(result.status == 69, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("todod at \(path) did not answer within 0.5 s"), "\(result.stderr)")
        #expect(seconds < 10)
        // Connected but never answered (the backlog has room again after one is closed).
        Posix.close(queued.removeLast())
        let (answered, _) = try todoctl(["list"], socket: path, timeout: "0.5")
        #expect(answered.status == 69, "\(answered.status) \(answered.stderr)")
        #expect(answered.stderr.contains("did not answer within 0.5 s"), "\(answered.stderr)")
    }

    /// `watch` waits for events as long as it takes once subscribed.
    @Test func watchWaitsPastTheLimitOnceSubscribed() throws {
        let daemon = try DaemonProcess()
        var env = ProcessInfo.processInfo.environment
        env["TODOD_SOCKET"] = daemon.socket
        env["NO_COLOR"] = "1"
        env["TODOCTL_TIMEOUT"] = "0.3"
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: BuiltProducts.path("todoctl"))
        watcher.arguments = ["watch"]
        watcher.environment = env
        let out = Pipe()
        watcher.standardOutput = out
        try watcher.run()
        defer {
            if watcher.isRunning {
                kill(watcher.processIdentifier, SIGKILL)
                watcher.waitForExit()
            }
        }
        // Wait until the subscription is live (an add shows up), then idle well past the limit.
        var seen = Data()
        var polls = 0
        _ = try eventually(timeout: 5, every: 0.025) {
            if polls % 20 == 0 { _ = try daemon.todoctl(["add", "first"]) }
            polls += 1
            seen += out.fileHandleForReading.availableDataNonBlocking()
            return String(decoding: seen, as: UTF8.self).contains("first")
        }
        // Three times the limit with nothing to read: a watch that timed out would have exited.
        #expect(!eventually(timeout: 0.9) { !watcher.isRunning })
        #expect(watcher.isRunning)
        _ = try daemon.todoctl(["add", "second"])
        var all = seen
        _ = eventually(timeout: 5, every: 0.025) {
            all += out.fileHandleForReading.availableDataNonBlocking()
            return String(decoding: all, as: UTF8.self).contains("second")
        }
        #expect(String(decoding: all, as: UTF8.self).contains("second"))
    }

    /// A value that is not a number of seconds is a usage error.
    @Test func aBadTimeoutIsAUsageError() throws {
        let (result, _) = try todoctl(["status"], socket: "/nonexistent/todod.sock", timeout: "soon")
        #expect(result.status == 2)
        #expect(result.stderr.contains("TODOCTL_TIMEOUT must be a number of seconds"), "\(result.stderr)")
    }
}

extension FileHandle {
    /// What can be read now without waiting (empty when nothing is there).
    func availableDataNonBlocking() -> Data {
        let fd = fileDescriptor
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n <= 0 { return data }
            data.append(contentsOf: buffer[0..<n])
        }
    }
}
