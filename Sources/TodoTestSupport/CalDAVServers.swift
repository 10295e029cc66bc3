import Foundation
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The CalDAV servers the sync tests run against (Radicale and xandikos, which scripts/test
/// installs into .build/test-venv and names in `TODOD_RADICALE` / `TODOD_XANDIKOS`; Cyrus IMAP and
/// DAViCal from Debian's packages, which scripts/test installs and names in `TODOD_CYRUS` /
/// `TODOD_DAVICAL`) and the fault-injecting proxy (scripts/lib/fault-proxy.py).
///
/// Each runs on 127.0.0.1 on a port of its own with its storage in a temporary directory. Its
/// standard input is a pipe held by the test process: when that closes, because the server was
/// stopped or the test process ended in any way, the server exits, so a shared server started
/// once per test process never outlives it.
package enum CalDAVTestSupport {
    static func configured(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `TODOD_RADICALE`: Radicale's console script.
    package static let radicale = configured("TODOD_RADICALE")
    /// `TODOD_XANDIKOS`: xandikos's console script.
    package static let xandikos = configured("TODOD_XANDIKOS")
    /// `TODOD_VDIRSYNCER`: vdirsyncer's console script.
    package static let vdirsyncer = configured("TODOD_VDIRSYNCER")
    /// `TODOD_CYRUS` / `TODOD_DAVICAL`: scripts/lib/caldav-server.sh, which runs that server
    /// from its Debian packages, set where scripts/test installed them.
    package static let cyrus = configured("TODOD_CYRUS")
    package static let davical = configured("TODOD_DAVICAL")

    /// Why the server of `kind` does not run on this machine, or nil when it must: Radicale and
    /// xandikos always must; Cyrus and DAViCal must where scripts/test installed them, and
    /// otherwise carry the reason scripts/test gave (`TODOD_CYRUS_SKIP` / `TODOD_DAVICAL_SKIP`).
    /// The tests print it and skip that server; a configured server that does not start fails.
    package static func unavailable(_ kind: CalDAVServer.Kind) -> String? {
        let (script, variable): (String?, String)
        switch kind {
        case .radicale, .xandikos: return nil
        case .cyrus: (script, variable) = (cyrus, "TODOD_CYRUS")
        case .davical: (script, variable) = (davical, "TODOD_DAVICAL")
        }
        guard script == nil else { return nil }
        let reason =
            configured(variable + "_SKIP") ?? "\(variable) is not set (scripts/test installs the server and sets it)"
        return "\(kind.displayName) skipped: \(reason)"
    }

    /// Whether the server tests must run: the servers are configured, or `CI` is set (then a
    /// missing server is a failure). A plain `swift test` without them skips those tests.
    package static let serversRequired =
        (radicale != nil && xandikos != nil)
        || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty

    /// The message of a test skipped for want of servers.
    package static let skipMessage =
        "CalDAV servers not configured: set TODOD_RADICALE and TODOD_XANDIKOS (scripts/test does)"

    /// A TCP port on 127.0.0.1 that nothing listens on right now.
    package static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends `request` (a whole HTTP/1.0 request) to 127.0.0.1:`port` and returns the answer, or
    /// nil when nothing listens there or the connection fails.
    package static func rawHTTP(port: Int, _ request: String) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            return nil
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[..<n]
        }
        return answer.isEmpty ? nil : String(decoding: answer, as: UTF8.self)
    }

    /// The shared `eventually` (Waiting.swift), by the name the servers' code calls it.
    static func eventually(timeout: Double, _ condition: () -> Bool) -> Bool {
        TodoTestSupport.eventually(timeout: timeout, condition)
    }

    /// The interpreter a console script names on its first line (`#!/path/python3`).
    static func interpreter(of script: String) -> String {
        guard let text = try? String(contentsOfFile: script, encoding: .utf8),
            let first = text.split(separator: "\n", maxSplits: 1).first, first.hasPrefix("#!")
        else { return "/usr/bin/python3" }
        return String(first.dropFirst(2)).trimmingCharacters(in: .whitespaces)
    }

    /// The repository checkout (where Package.swift is).
    package static var repository: String { NotifyTestSupport.repository }
}

package enum CalDAVTestError: Error, CustomStringConvertible {
    case notConfigured(String)
    case didNotStart(String, String)
    package var description: String {
        switch self {
        case .notConfigured(let what): return "\(what) is not set: scripts/test installs the CalDAV servers"
        case .didNotStart(let what, let log): return "\(what) did not start: \(log.suffix(2000))"
        }
    }
}

/// A child process whose standard input is a pipe it watches for EOF, output going to a file;
/// stopped (SIGTERM, then SIGKILL) and reaped by `stop()` or on release. Started with `Spawn`
/// (posix_spawn), like every child of the tests.
package class WatchedProcess: @unchecked Sendable {
    // @unchecked: the fields are set once in init; stop() is called from one test at a time.
    package let process: SpawnedProcess
    package let logPath: String
    private let stdinWrite: Int32

    /// Starts `executable` with the tests' environment plus `environment`, output to `log`.
    package init(_ executable: String, _ arguments: [String], log: String, environment: [String: String] = [:]) throws {
        logPath = log
        let output = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw PosixError("open \(log)", errno: errno) }
        defer { Posix.close(output) }
        let stdin = try Spawn.pipe()
        var env = Posix.environment()
        for (k, v) in environment { env[k] = v }
        let pid: Int32
        do {
            pid = try Spawn.start(
                executable, arguments, environment: env,
                streams: Spawn.StandardStreams(input: stdin.read, output: output, error: output))
        } catch {
            Posix.close(stdin.read)
            Posix.close(stdin.write)
            throw error
        }
        Posix.close(stdin.read)
        stdinWrite = stdin.write
        process = SpawnedProcess(pid: pid)
    }

    deinit {
        stop()
        Posix.close(stdinWrite)
    }

    package var pid: Int32 { process.processIdentifier }
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// How long `stop()` waits after SIGTERM before SIGKILL (a server that stops daemons of its
    /// own needs more than the default 5 s).
    package var stopGrace: Double = 5

    /// Stops the process and reaps it; returns its status.
    @discardableResult
    package func stop() -> Int32 {
        if let status = process.terminationStatus { return status }
        guard process.isRunning else { return process.waitForExit() }
        process.send(SIGTERM)
        if !CalDAVTestSupport.eventually(timeout: stopGrace, { !process.isRunning }) { process.send(SIGKILL) }
        return process.waitForExit()
    }
}

private let watchedPythonMain = """
    import os, runpy, sys, threading
    def watch():
        sys.stdin.buffer.read()
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
    """

/// A CalDAV server for tests: Radicale (htpasswd user `alice` with a non-ASCII password),
/// xandikos (no authentication, `--autocreate`), Cyrus IMAP or DAViCal (user `alice`, the same
/// password; scripts/lib/caldav-server.sh), on 127.0.0.1 with storage in its own directory.
package final class CalDAVServer: WatchedProcess, @unchecked Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        case radicale, xandikos, cyrus, davical

        /// The server's name as people know it.
        package var displayName: String {
            switch self {
            case .radicale: return "Radicale"
            case .xandikos: return "xandikos"
            case .cyrus: return "Cyrus IMAP"
            case .davical: return "DAViCal"
            }
        }
    }

    package let kind: Kind
    package let port: Int
    package let directory: TemporaryDirectory
    /// The user and password to authenticate with (nil for xandikos, which asks for none).
    package let user: String?
    package let password: String?

    /// The user and password Radicale, Cyrus and DAViCal are started with.
    package static let radicaleUser = "alice"
    package static let radicalePassword = "pässwörd-秘密-🔑"

    /// `http://127.0.0.1:PORT/`
    package var rootURL: String { "http://127.0.0.1:\(port)/" }
    /// The URL of the collection under which tests make their calendars (the calendar home).
    package var homeURL: String {
        switch kind {
        case .radicale: return rootURL + Self.radicaleUser + "/"
        case .xandikos: return rootURL + "user/calendars/"
        case .cyrus: return rootURL + "dav/calendars/user/" + Self.radicaleUser + "/"
        case .davical: return rootURL + "caldav.php/" + Self.radicaleUser + "/"
        }
    }

    private init(
        kind: Kind, script: String, arguments: [String], port: Int, directory: TemporaryDirectory,
        user: String?, password: String?
    ) throws {
        self.kind = kind
        self.port = port
        self.directory = directory
        self.user = user
        self.password = password
        try super.init(
            CalDAVTestSupport.interpreter(of: script), ["-c", watchedPythonMain, script] + arguments,
            log: directory.file(kind.rawValue + ".log"))
        let started = CalDAVTestSupport.eventually(timeout: 30) {
            !process.isRunning
                || CalDAVTestSupport.rawHTTP(port: port, "OPTIONS / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?.hasPrefix(
                    "HTTP/") == true
        }
        guard started, process.isRunning else { throw CalDAVTestError.didNotStart(kind.rawValue, log) }
    }

    /// Starts Radicale from `TODOD_RADICALE` (or `script`) and waits until it answers. `rights`:
    /// the text of a rights file (`[rights] type = from_file`) instead of `owner_only`;
    /// `users`: more htpasswd users (name, password) beside `alice`.
    package static func radicale(
        script: String? = CalDAVTestSupport.radicale, rights: String? = nil,
        users: [(name: String, password: String)] = []
    ) throws -> CalDAVServer {
        guard let script else { throw CalDAVTestError.notConfigured("TODOD_RADICALE") }
        var lastError: any Error = CalDAVTestError.didNotStart("radicale", "")
        for _ in 0..<3 { // the free port may be taken between choosing and binding it
            let directory = TemporaryDirectory("radicale")
            let port = CalDAVTestSupport.freePort()
            let htpasswd = ([(radicaleUser, radicalePassword)] + users).map { "\($0.0):\($0.1)\n" }.joined()
            try Data(htpasswd.utf8).write(to: URL(fileURLWithPath: directory.file("users")))
            var rightsSection = "type = owner_only"
            if let rights {
                try Data(rights.utf8).write(to: URL(fileURLWithPath: directory.file("rights")))
                rightsSection = "type = from_file\nfile = \(directory.file("rights"))"
            }
            let config = """
                [server]
                hosts = 127.0.0.1:\(port)
                [encoding]
                request = utf-8
                stock = utf-8
                [auth]
                type = htpasswd
                htpasswd_filename = \(directory.file("users"))
                htpasswd_encryption = plain
                delay = 0
                [storage]
                filesystem_folder = \(directory.file("collections"))
                [rights]
                \(rightsSection)
                [web]
                type = none
                [logging]
                level = warning
                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: directory.file("config")))
            do {
                return try CalDAVServer(
                    kind: .radicale, script: script, arguments: ["-C", directory.file("config")], port: port,
                    directory: directory, user: radicaleUser, password: radicalePassword)
            } catch { lastError = error }
        }
        throw lastError
    }

    /// Starts xandikos from `TODOD_XANDIKOS` (or `script`) and waits until it answers.
    package static func xandikos(script: String? = CalDAVTestSupport.xandikos) throws -> CalDAVServer {
        guard let script else { throw CalDAVTestError.notConfigured("TODOD_XANDIKOS") }
        var lastError: any Error = CalDAVTestError.didNotStart("xandikos", "")
        for _ in 0..<3 {
            let directory = TemporaryDirectory("xandikos")
            let port = CalDAVTestSupport.freePort()
            do {
                return try CalDAVServer(
                    kind: .xandikos, script: script,
                    arguments: [
                        "serve", "-d", directory.file("data"), "--autocreate", "--no-detect-systemd",
                        "-l", "127.0.0.1", "-p", String(port), "--state-dir", directory.file("state")
                    ], port: port, directory: directory, user: nil, password: nil)
            } catch { lastError = error }
        }
        throw lastError
    }

    private init(kind: Kind, script: String, port: Int, directory: TemporaryDirectory) throws {
        self.kind = kind
        self.port = port
        self.directory = directory
        user = Self.radicaleUser
        password = Self.radicalePassword
        // The script keeps its data in `directory` too, and removes it when it ends.
        try super.init(
            "/bin/bash",
            [script, kind.rawValue, directory.path, String(port), Self.radicaleUser, Self.radicalePassword],
            log: directory.file(kind.rawValue + ".log"))
        stopGrace = 20
        // Setting up a PostgreSQL cluster and DAViCal's database takes some seconds, more on a busy machine.
        let started = CalDAVTestSupport.eventually(timeout: 120) {
            !process.isRunning || log.hasPrefix("ready\n") || log.contains("\nready\n")
        }
        guard started, process.isRunning else {
            stop()
            throw CalDAVTestError.didNotStart(kind.displayName, log)
        }
    }

    /// Starts Cyrus IMAP or DAViCal with scripts/lib/caldav-server.sh (`TODOD_CYRUS` /
    /// `TODOD_DAVICAL`, or `script`) and waits until it answers.
    package static func packaged(_ kind: Kind, script: String? = nil) throws -> CalDAVServer {
        let variable = kind == .cyrus ? "TODOD_CYRUS" : "TODOD_DAVICAL"
        guard let script = script ?? (kind == .cyrus ? CalDAVTestSupport.cyrus : CalDAVTestSupport.davical)
        else { throw CalDAVTestError.notConfigured(variable) }
        var lastError: any Error = CalDAVTestError.didNotStart(kind.displayName, "")
        for _ in 0..<3 {
            let start = Date()
            do {
                let server = try CalDAVServer(
                    kind: kind, script: script, port: CalDAVTestSupport.freePort(),
                    directory: TemporaryDirectory(kind.rawValue))
                print(
                    "\(kind.displayName) started on 127.0.0.1:\(server.port) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s"
                )
                return server
            } catch { lastError = error }
        }
        throw lastError
    }

    /// Starts a server of `kind`.
    package static func start(_ kind: Kind) throws -> CalDAVServer {
        switch kind {
        case .radicale: return try radicale()
        case .xandikos: return try xandikos()
        case .cyrus, .davical: return try packaged(kind)
        }
    }

    private static let sharedRadicale = Result { try radicale() }
    private static let sharedXandikos = Result { try xandikos() }
    private static let sharedCyrus = Result { try packaged(.cyrus) }
    private static let sharedDAViCal = Result { try packaged(.davical) }

    /// The server of `kind` this test process shares: started on first use, ended with the
    /// process. Tests make calendars of their own on it, so they do not see each other's items.
    package static func shared(_ kind: Kind) throws -> CalDAVServer {
        switch kind {
        case .radicale: return try sharedRadicale.get()
        case .xandikos: return try sharedXandikos.get()
        case .cyrus: return try sharedCyrus.get()
        case .davical: return try sharedDAViCal.get()
        }
    }
}

/// scripts/lib/fault-proxy.py in front of a server: faults at random (seeded) or on demand.
package final class FaultProxy: WatchedProcess, @unchecked Sendable {
    package private(set) var port = 0
    package let directory: TemporaryDirectory

    /// `http://127.0.0.1:PORT/`
    package var rootURL: String { "http://127.0.0.1:\(port)/" }

    /// Starts the proxy in front of `upstream` (`http://127.0.0.1:PORT`) and waits until it
    /// listens. `seed`, `rate` and `faults` set the random faults (none by default); `delay` is
    /// how long a delay fault waits.
    /// `tls` (certificate, key: PEM files) makes it serve HTTPS.
    package init(
        upstream: String, seed: UInt64 = 0, rate: Double = 0, faults: [String] = [], delay: Double = 3,
        tls: (certificate: String, key: String)? = nil
    ) throws {
        let directory = TemporaryDirectory("proxy")
        self.directory = directory
        let portFile = directory.file("port")
        var upstreamRoot = upstream
        while upstreamRoot.hasSuffix("/") { upstreamRoot.removeLast() }
        let python = CalDAVTestSupport.radicale.map(CalDAVTestSupport.interpreter(of:)) ?? "/usr/bin/python3"
        try super.init(
            python,
            [
                CalDAVTestSupport.repository + "/scripts/lib/fault-proxy.py", "--upstream", upstreamRoot,
                "--port-file", portFile, "--log", directory.file("faults.log"), "--seed", String(seed), "--rate",
                String(rate),
                "--faults", faults.joined(separator: ","), "--delay", String(delay), "--exit-on-stdin-eof"
            ] + (tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? []),
            log: directory.file("proxy.err"))
        var port = 0
        _ = CalDAVTestSupport.eventually(timeout: 20) {
            port =
                Int(
                    ((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "").trimmingCharacters(
                        in: .whitespacesAndNewlines)) ?? 0
            return port != 0 || !process.isRunning
        }
        self.port = port
        guard port != 0, process.isRunning else { throw CalDAVTestError.didNotStart("fault-proxy.py", log) }
    }

    /// Queues `kind` (drop, delay, cut, 500, 503, 412) for the next `count` requests (of `method`
    /// when given).
    package func inject(_ kind: String, count: Int = 1, method: String? = nil) throws {
        let query = "kind=\(kind)&count=\(count)" + (method.map { "&method=\($0)" } ?? "")
        guard
            CalDAVTestSupport.rawHTTP(port: port, "GET /__fault__?\(query) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?
                .hasPrefix("HTTP/1.1 200") == true
        else { throw CalDAVTestError.didNotStart("fault-proxy.py control", log) }
    }

    /// Queues a made-up answer (`status`, `body`, `headers`) for the next request (of `method`
    /// when given), which is not forwarded; the log line has the first 2000 bytes of the request.
    package func injectAnswer(status: Int, body: String, headers: [String: String] = [:], method: String? = nil) throws
    {
        let file = directory.file("canned-\(UInt32.random(in: 0...UInt32.max))")
        try Data(body.utf8).write(to: URL(fileURLWithPath: file))
        var query = "kind=canned&status=\(status)&body=\(Self.encoded(file))" + (method.map { "&method=\($0)" } ?? "")
        for (name, value) in headers { query += "&header=" + Self.encoded(name + ": " + value) }
        guard
            CalDAVTestSupport.rawHTTP(port: port, "GET /__fault__?\(query) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?
                .hasPrefix("HTTP/1.1 200") == true
        else { throw CalDAVTestError.didNotStart("fault-proxy.py control", log) }
    }

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Empties the fault queue and stops random faults.
    package func clear() throws {
        guard
            CalDAVTestSupport.rawHTTP(port: port, "GET /__fault__?clear=1 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?
                .hasPrefix("HTTP/1.1 200") == true
        else { throw CalDAVTestError.didNotStart("fault-proxy.py control", log) }
    }

    /// The proxy's log: one line per request (`pass ...` or `fault KIND ...`).
    package var faultLog: [String] {
        ((try? String(contentsOfFile: directory.file("faults.log"), encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }
}
