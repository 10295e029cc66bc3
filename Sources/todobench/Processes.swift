import Foundation
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

// Child processes: the built todod/todoctl found next to todobench itself, a todod on a private
// socket and database, and whole-process timing of short commands with posix_spawn.

/// The directory holding the running todobench, where SwiftPM also put todod and todoctl.
enum Products {
    static let directory: String = {
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return (exe as NSString).deletingLastPathComponent
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
    }()

    static func path(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard access(path, X_OK) == 0 else {
            throw BenchError("\(path) not found: build it first (swift build -c release)")
        }
        return path
    }

    /// How the executable links: "dynamic Swift runtime" when its dynamic section names
    /// libswiftCore.so, "fully static" without a dynamic loader, else "static Swift runtime".
    static func linkage(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "unreadable" }
        if data.range(of: Data("libswiftCore.so".utf8)) != nil { return "dynamic Swift runtime" }
        return data.range(of: Data("/lib64/ld-linux".utf8)) == nil
            ? "fully static (no dynamic loader)" : "static Swift runtime (--static-swift-stdlib)"
    }
}

/// A temporary directory removed when the bench is done with it.
final class TempDir {
    let path: String
    init(_ tag: String) throws {
        var template = Array("/tmp/tb-\(tag)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw errnoText("mkdtemp")
        }
        path = String(cString: made)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
    deinit { remove() }
}

enum Spawn {
    /// The environment of this process without what would make a child think it runs under systemd.
    static func baseEnvironment() -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in [
            "JOURNAL_STREAM", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
            "LISTEN_FDNAMES"
        ] {
            env[key] = nil
        }
        return env
    }

    /// Starts `path` with `arguments`; stdin from /dev/null, stdout and stderr to the given files
    /// (/dev/null when nil). Returns the pid.
    ///
    /// A `service` gets a session of its own (setsid), as systemd starts todod. Otherwise it would
    /// share the bench's scheduling autogroup (`/proc/PID/autogroup`), and the kernel places the
    /// threads of one autogroup differently: a multi-threaded server started from the bench
    /// answered in about 60 µs where the same server in its own session answered in 25–30.
    static func start(
        _ path: String, _ arguments: [String], environment: [String: String],
        stdout: String? = nil, stderr: String? = nil, service: Bool = false
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc's value; the Glibc module leaves the GNU flags out).
        if service { posix_spawnattr_setflags(&attributes, 0x80) }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw BenchError("posix_spawn \(path): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Waits for `pid` and returns its exit status (128+signal when killed).
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    /// Runs a command to completion; throws when it exits non-zero. Returns the wall time from
    /// just before spawn to just after the exit was reaped.
    @discardableResult
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String],
        stdout: String? = nil, stderr: String? = nil
    ) throws -> Double {
        let t0 = Measure.now()
        let pid = try start(path, arguments, environment: environment, stdout: stdout, stderr: stderr)
        let status = wait(pid)
        let elapsed = Measure.now() - t0
        guard status == 0 else {
            let detail =
                stderr.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }.map { ": " + $0.suffix(400) } ?? ""
            throw BenchError(
                "\((path as NSString).lastPathComponent) \(arguments.prefix(3).joined(separator: " ")) exited with \(status)\(detail)"
            )
        }
        return elapsed
    }
}

/// Figures about a running process from /proc.
enum ProcStat {
    /// VmRSS in bytes, or nil when the process is gone.
    static func rss(_ pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
            return kb.map { $0 * 1024 }
        }
        return nil
    }

    /// Voluntary plus involuntary context switches of each thread of `pid`, by thread id.
    static func contextSwitches(_ pid: pid_t) -> [String: Int] {
        let dir = "/proc/\(pid)/task"
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        var out: [String: Int] = [:]
        for task in tasks {
            guard let text = try? String(contentsOfFile: "\(dir)/\(task)/status", encoding: .utf8) else { continue }
            var total = 0
            for line in text.split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                total += line.split(separator: "\t").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
            }
            out[task] = total
        }
        return out
    }
}

/// A todod started by the bench on a private socket and database.
final class DaemonRun {
    let pid: pid_t
    let socket: String
    let database: String
    let log: String
    /// Seconds from spawn to READY=1 (when started with a notify socket) or to the first accepted
    /// connection.
    let startSeconds: Double
    private var stopped = false

    /// Starts todod. With `notify`, binds a datagram socket as NOTIFY_SOCKET and waits for READY=1;
    /// otherwise polls the socket until it accepts a connection.
    /// `executable`: todod, or its test build `todod-faults` (the benchmark's one switch, the store
    /// without its change log, lives there: the shipped todod has none).
    init(
        dir: TempDir, database: String? = nil, notify: Bool = false, name: String = "todod",
        environment: [String: String] = [:],
        executable: String = "todod"
    ) throws {
        socket = dir.file("\(name).sock")
        self.database = database ?? dir.file("todos.db")
        log = dir.file("\(name).log")
        var env = Spawn.baseEnvironment()
        env.merge(environment) { $1 }
        var notifyFD: Int32 = -1
        if notify {
            let notifyPath = dir.file("notify.sock")
            try? Files.unlink(notifyPath)
            do { notifyFD = try UnixDatagram.bind(path: notifyPath) } catch {
                throw BenchError("bind \(notifyPath): \(error.reason)")
            }
            env["NOTIFY_SOCKET"] = notifyPath
        }
        defer { if notifyFD >= 0 { Posix.close(notifyFD) } }
        let todod = try Products.path(executable)
        let start = Measure.now()
        pid = try Spawn.start(
            todod, ["--socket", socket, "--db", self.database], environment: env, stderr: log, service: true)
        if notify {
            while true {
                guard let datagram = UnixDatagram.receive(notifyFD, timeoutMilliseconds: 120_000) else {
                    kill(pid, SIGKILL)
                    Spawn.wait(pid)
                    throw BenchError("todod sent no READY=1: \(DaemonRun.tail(log))")
                }
                let message = String(decoding: datagram, as: UTF8.self)
                if message.split(separator: "\n").contains("READY=1") { break }
            }
            startSeconds = Measure.now() - start
        } else {
            while true {
                if let fd = try? UnixSocket.connect(path: socket) {
                    Posix.close(fd)
                    break
                }
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    throw BenchError("todod exited at start: \(DaemonRun.tail(log))")
                }
                if Measure.now() - start > 60 {
                    kill(pid, SIGKILL)
                    Spawn.wait(pid)
                    throw BenchError("todod did not listen within 60 s")
                }
                usleep(1000)
            }
            startSeconds = Measure.now() - start
        }
    }

    deinit { stop() }

    /// SIGTERM, then waits; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        guard !stopped else { return 0 }
        stopped = true
        kill(pid, SIGTERM)
        return Spawn.wait(pid)
    }

    var rss: Int? { ProcStat.rss(pid) }

    func connect() throws -> LineConnection { try LineConnection(path: socket) }

    /// The environment todoctl needs to reach this daemon.
    var clientEnvironment: [String: String] {
        var env = Spawn.baseEnvironment()
        env["TODOD_SOCKET"] = socket
        env["NO_COLOR"] = "1"
        return env
    }

    static func tail(_ path: String) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "(no log)" }
        return String(text.suffix(600))
    }
}

/// Formats a byte count in MiB.
func formatMiB(_ bytes: Int?) -> String {
    guard let bytes else { return "?" }
    return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}
