import Foundation
import Synchronization
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A plain blocking client for the checks: one request at a time, events skipped.
final class SimpleClient {
    let fd: Int32
    private var framer = LineFramer(maxLineLength: 1 << 30)
    private var nextID = 0

    init(path: String, timeout: Double) throws {
        fd = try UnixSocket.connect(path: path)
        setTimeout(fd, SO_RCVTIMEO, seconds: timeout)
        setTimeout(fd, SO_SNDTIMEO, seconds: timeout)
    }

    deinit { Posix.close(fd) }

    enum Failure: Error, CustomStringConvertible {
        case closed, timeout
        case bad(String)
        case rpc(Int, String)
        var description: String {
            switch self {
            case .closed: return "the daemon closed the connection"
            case .timeout: return "no answer in time"
            case .bad(let s): return "a bad answer: \(s)"
            case .rpc(let code, let message): return "error \(code): \(message)"
            }
        }
    }

    /// Sends all `requests` at once, then reads their answers; returns how many succeeded.
    func pipeline(_ requests: [(String, JSONObject)]) throws -> Int {
        var bytes: [UInt8] = []
        var ids: Set<String> = []
        for (method, params) in requests {
            nextID += 1
            let id = "~check~\(nextID)"
            ids.insert(id)
            RPCRequest(id: .string(id), method: method, params: params).json.write(to: &bytes)
            bytes.append(0x0A)
        }
        try Posix.writeAll(fd, bytes)
        var succeeded = 0
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while !ids.isEmpty {
            if case .line(let line)? = framer.next() {
                let message = try JSON.parse(line)
                guard let id = message["id"]?.stringValue, ids.remove(id) != nil else { continue }
                if message["result"] != nil { succeeded += 1 }
                continue
            }
            guard let n = try Posix.read(fd, into: &chunk) else { throw Failure.timeout }
            if n == 0 { throw Failure.closed }
            framer.append(chunk[0..<n])
        }
        return succeeded
    }

    /// The `result` of `method`, or throws.
    func call(_ method: String, _ params: JSONObject = JSONObject()) throws -> JSON {
        nextID += 1
        let id = JSON.string("~check~\(nextID)")
        var bytes: [UInt8] = []
        RPCRequest(id: id, method: method, params: params).json.write(to: &bytes)
        bytes.append(0x0A)
        try Posix.writeAll(fd, bytes)
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            if case .line(let line)? = framer.next() {
                if case .failure(let problem) = classify(line[...]) {
                    throw Failure.bad("\(problem.reason): \(String(decoding: line.prefix(200), as: UTF8.self))")
                }
                let message = try JSON.parse(line)
                guard message["id"] == id else { continue } // an event
                if let error = message["error"] {
                    throw Failure.rpc(Int(error["code"]?.intValue ?? 0), error["message"]?.stringValue ?? "")
                }
                return message["result"] ?? .null
            }
            guard let n = try Posix.read(fd, into: &chunk) else { throw Failure.timeout }
            if n == 0 { throw Failure.closed }
            framer.append(chunk[0..<n])
        }
    }
}

/// The daemon process, when its pid is known.
struct DaemonPID {
    let pid: Int32

    /// Alive and not a zombie (kill(pid, 0) alone would also succeed for a zombie).
    var isAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        return state != "Z" && state != "X"
    }

    /// A line of /proc/PID/status, such as `VmRSS` or `VmHWM`, in kB.
    func status(_ key: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(
                line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }

    var state: String {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return "gone" }
        return text.split(separator: "\n").first { $0.hasPrefix("State:") }.map {
            String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces)
        } ?? "?"
    }
}

/// Watches the daemon while the workers run: after every batch of inputs, a `daemon.status` on a
/// fresh connection must be answered within the hang timeout; with `--pid`, the process must be
/// alive; no connection may wait on a canary for more than 30 s. Also keeps the store small.
final class Monitor: @unchecked Sendable {
    // @unchecked: `stopRequested` and `peakRSS` are guarded by `lock`; the rest is immutable.
    let path: String
    let pid: DaemonPID?
    let stats: Stats
    let batchInputs: Int
    let hangTimeout: Double
    let housekeepAbove: Int
    let quiet: Bool
    let workers: [Worker]
    private let lock = Mutex(())
    private var stopRequested = false
    private(set) var peakRSS = 0
    private let done = DispatchGroup()

    init(
        path: String, pid: DaemonPID?, stats: Stats, batchInputs: Int, hangTimeout: Double, housekeepAbove: Int,
        quiet: Bool, workers: [Worker]
    ) {
        self.path = path
        self.pid = pid
        self.stats = stats
        self.batchInputs = batchInputs
        self.hangTimeout = hangTimeout
        self.housekeepAbove = housekeepAbove
        self.quiet = quiet
        self.workers = workers
    }

    func start() {
        done.enter()
        Thread { [self] in
            loop()
            done.leave()
        }.start()
    }

    func stop() {
        lock.withLock { _ in stopRequested = true }
        done.wait()
    }

    private var shouldStop: Bool { lock.withLock { _ in stopRequested } }

    private func loop() {
        let started = now()
        var nextCheck = batchInputs
        var lastCheck = now()
        var lastProgress = now()
        while !shouldStop && !stats.isStopping {
            usleep(100_000)
            if let pid, !pid.isAlive {
                stats.crash("the daemon (pid \(pid.pid)) is no longer running (\(pid.state))")
                return
            }
            if let pid, let rss = pid.status("VmRSS") { lock.withLock { _ in peakRSS = max(peakRSS, rss) } }
            for worker in workers {
                if let c = worker.connection, c.oldestCanaryAge > 30 {
                    stats.hang(
                        "connection \(worker.index): a valid request has waited \(Int(c.oldestCanaryAge)) s for its answer"
                    )
                    return
                }
            }
            let inputs = stats.inputCount
            if inputs >= nextCheck || now() - lastCheck > 10 {
                guard let status = check() else { return }
                nextCheck = inputs + batchInputs
                lastCheck = now()
                let count = Int((status["open"]?.intValue ?? 0) + (status["done"]?.intValue ?? 0))
                startHousekeeping(todos: count)
            }
            if !quiet && now() - lastProgress >= 10 {
                lastProgress = now()
                let elapsed = now() - started
                let rss = pid?.status("VmRSS").map { ", daemon RSS \($0 / 1024) MiB" } ?? ""
                warn(
                    "todofuzz: \(inputs) inputs in \(Int(elapsed)) s (\(Int(Double(inputs) / elapsed))/s), \(stats.hangChecks) checks\(rss)\n"
                )
            }
        }
    }

    /// One `daemon.status` on a fresh connection, within the hang timeout. Nil (and the run
    /// stopped) when it fails.
    func check() -> JSON? {
        let result = LockedResult()
        let finished = DispatchSemaphore(value: 0)
        let path = self.path
        let timeout = hangTimeout
        let started = now()
        Thread {
            do {
                let client = try SimpleClient(path: path, timeout: timeout + 1)
                result.set(.success(try client.call(Method.daemonStatus.name)))
            } catch {
                result.set(.failure(error))
            }
            finished.signal()
        }.start()
        let answeredInTime = finished.wait(timeout: .now() + hangTimeout) == .success
        let latency = now() - started
        let dead = pid.map { !$0.isAlive } ?? false
        if dead {
            stats.crash("the daemon (pid \(pid!.pid)) is no longer running (\(pid!.state))")
            return nil
        }
        guard answeredInTime, case .success(let status)? = result.get() else {
            if answeredInTime, case .failure(let error)? = result.get() {
                let text = "\(error)"
                // Nobody listens on the socket any more (or it is gone): the daemon died.
                let unreachable = (error as? PosixError).map { $0.errno == ECONNREFUSED || $0.errno == ENOENT } ?? false
                if pid == nil && unreachable {
                    stats.crash("the daemon no longer accepts connections: \(text)")
                } else {
                    stats.hang("daemon.status on a fresh connection failed: \(text)")
                }
            } else {
                stats.hang(
                    "daemon.status on a fresh connection was not answered within \(hangTimeout) s"
                        + (pid.map { " (process state: \($0.state))" } ?? ""))
            }
            return nil
        }
        if let pid, status["pid"]?.intValue != Int64(pid.pid) {
            stats.hang("daemon.status reported pid \(status["pid"]?.serialized() ?? "?"), expected \(pid.pid)")
            return nil
        }
        stats.check(latency: latency)
        return status
    }

    private var housekeeping = false

    /// Runs `housekeep` on its own thread (never two at once), so the checks go on meanwhile.
    private func startHousekeeping(todos: Int) {
        let start: Bool = lock.withLock { _ in
            guard !housekeeping else { return false }
            housekeeping = true
            return true
        }
        guard start else { return }
        Thread { [self] in
            housekeep(todos: todos)
            lock.withLock { _ in housekeeping = false }
        }.start()
    }

    /// Deletes todos (oldest first) and categories when the fuzzing made too many, so `todo.list`
    /// and `store.export` answers stay small. Not part of the input stream.
    private func housekeep(todos: Int) {
        do {
            let client = try SimpleClient(path: path, timeout: 60)
            var remaining = todos
            var rounds = 0
            while remaining > housekeepAbove && rounds < 20 {
                rounds += 1
                let page = try client.call(
                    Method.todoList.name, ["status": "all", "sort": [["key": "id"]], "limit": 1000])
                let ids = page["todos"]?.arrayValue?.compactMap { $0["id"] } ?? []
                guard !ids.isEmpty else { break }
                _ = try client.call(Method.todoDelete.name, ["ids": .array(ids)])
                stats.deleted(ids.count)
                remaining = Int(page["total"]?.intValue ?? 0) - ids.count
            }
            let categories = try client.call(Method.categoryList.name).arrayValue ?? []
            if categories.count > 100 {
                _ = try client.pipeline(
                    categories.compactMap { c in
                        c["name"].map { (Method.categoryDelete.name, ["name": $0, "force": true]) }
                    })
            }
        } catch SimpleClient.Failure.rpc(-32001, _) {
            // A fuzzing request deleted one of these todos first: try again after the next check.
        } catch {
            warn("todofuzz: housekeeping failed: \(error)\n")
        }
    }
}

final class LockedResult: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = Mutex(())
    private var value: Result<JSON, any Error>?
    func set(_ v: Result<JSON, any Error>) { lock.withLock { _ in value = v } }
    func get() -> Result<JSON, any Error>? { lock.withLock { _ in value } }
}
