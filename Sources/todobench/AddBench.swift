#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TodoCore
import TodoProtocol
@_spi(Benchmark) import TodoStore

/// Results gathered from client threads.
final class Tally: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var _count = 0
    private var _latencies: [Double] = []
    private var _errors: [String] = []
    private var _end = 0.0

    func add(count: Int, latencies: [Double], end: Double) {
        lock.withLock {
            _count += count
            _latencies += latencies
            _end = max(_end, end)
        }
    }
    func fail(_ message: String) { lock.withLock { _errors.append(message) } }
    var count: Int { lock.withLock { _count } }
    var latencies: [Double] { lock.withLock { _latencies } }
    var errors: [String] { lock.withLock { _errors } }
    var end: Double { lock.withLock { _end } }
}

/// P2: durable `todo.add` per second with 1 and 16 clients, beside plain SQLite committing one row
/// per fsync in the same directory.
enum AddBench {
    static func run(seconds: Double, floorRows: Int) throws {
        print("== durable add throughput (P2): todo.add/s vs one-commit-per-fsync SQLite")
        let dir = try TempDir("p2")
        let floorBefore = try CommitFloor.rowsPerSecond(path: dir.file("floor.db"), rows: floorRows)
        print("  floor (before): " + formatRate(floorBefore, "commits"))

        // Diagnostic: the same add through TodoStore directly (no daemon, no protocol), one
        // transaction each, to split the daemon's cost from the store's.
        let direct = try storeAddRate(path: dir.file("direct.db"), rows: floorRows)
        print("  TodoStore.write { add } directly: " + formatRate(direct, "adds"))

        let daemon = try DaemonRun(dir: dir)
        defer { daemon.stop() }
        _ = try rate(daemon, clients: 1, seconds: min(0.5, seconds))  // warm-up
        let one = try rate(daemon, clients: 1, seconds: seconds)
        let sixteen = try rate(daemon, clients: 16, seconds: seconds)
        daemon.stop()

        // The change log's cost, in this same run: the same adds without it (a daemon started
        // with TODOD_BENCH_NO_CHANGE_LOG=1 on a store of its own), then with it again, so that a
        // drift of the disk over the run shows.
        print("  the change log's cost: the same adds with the log off, then on again")
        let directOff = try storeAddRate(path: dir.file("direct-nolog.db"), rows: floorRows, changeLog: false)
        let offDir = try TempDir("p2-nolog")
        let off = try DaemonRun(dir: offDir, environment: ["TODOD_BENCH_NO_CHANGE_LOG": "1"])
        _ = try rate(off, clients: 1, seconds: min(0.5, seconds))
        let oneOff = try rate(off, clients: 1, seconds: seconds)
        let sixteenOff = try rate(off, clients: 16, seconds: seconds)
        off.stop()
        let againDir = try TempDir("p2-again")
        let again = try DaemonRun(dir: againDir)
        _ = try rate(again, clients: 1, seconds: min(0.5, seconds))
        let oneAgain = try rate(again, clients: 1, seconds: seconds)
        let sixteenAgain = try rate(again, clients: 16, seconds: seconds)
        again.stop()
        let directAgain = try storeAddRate(path: dir.file("direct-again.db"), rows: floorRows)
        func cost(_ with: Double, _ without: Double) -> String { String(format: "%+.1f %%", (without / with - 1) * 100) }
        let oneWith = (one + oneAgain) / 2, sixteenWith = (sixteen + sixteenAgain) / 2, directWith = (direct + directAgain) / 2
        Summary.add("P2 change log cost, 16 clients (time per add)", value: formatRate(sixteenWith, "adds"),
                    peer: "log off: " + formatRate(sixteenOff, "adds"), ratio: cost(sixteenWith, sixteenOff), goal: "< +20 %",
                    met: sixteenOff / sixteenWith < 1.2)
        Summary.add("P2 change log cost, 1 client (time per add)", value: formatRate(oneWith, "adds"),
                    peer: "log off: " + formatRate(oneOff, "adds"), ratio: cost(oneWith, oneOff), goal: "< +20 %",
                    met: oneOff / oneWith < 1.2)
        Summary.add("P2 (diagnostic) change log cost, TodoStore add", value: formatRate(directWith, "adds"),
                    peer: "log off: " + formatRate(directOff, "adds"), ratio: cost(directWith, directOff))
        print("  log on (mean of two runs) vs off: 1 client \(cost(oneWith, oneOff)), 16 clients \(cost(sixteenWith, sixteenOff)), TodoStore \(cost(directWith, directOff)) time per add")

        let floorAfter = try CommitFloor.rowsPerSecond(path: dir.file("floor.db"), rows: floorRows)
        print("  floor (after):  " + formatRate(floorAfter, "commits"))
        // The higher of the two floors: the ratio is then the less flattering one.
        let floor = max(floorBefore, floorAfter)
        let floorText = "SQLite " + formatRate(floor, "commits")
        Summary.ratio("P2 durable todo.add, 16 clients", value: formatRate(sixteen, "adds"), peer: floorText,
                      ratio: sixteen / floor, goal: "≥ 10×", met: sixteen / floor >= 10)
        Summary.add("P2 durable todo.add, 1 client", value: formatRate(one, "adds"), peer: floorText,
                    ratio: String(format: "%.2f×", one / floor))
        Summary.add("P2 (diagnostic) TodoStore add, 1 per transaction", value: formatRate(direct, "adds"), peer: floorText,
                    ratio: String(format: "%.2f×", direct / floor))
    }

    /// Durable adds per second through `TodoStore.write`, one todo per transaction.
    static func storeAddRate(path: String, rows: Int, changeLog: Bool = true) throws -> Double {
        let store = try TodoStore(path: path, changeLog: changeLog)
        defer { store.close() }
        _ = try store.write { try $0.add(NewTodo(title: "warm-up")) }
        let start = Measure.now()
        for i in 0..<rows { _ = try store.write { try $0.add(NewTodo(title: "bench add \(i)")) } }
        return Double(rows) / (Measure.now() - start)
    }

    /// Adds per second with `clients` connections, each sending one `todo.add` at a time for `seconds`.
    static func rate(_ daemon: DaemonRun, clients: Int, seconds: Double) throws -> Double {
        let tally = Tally()
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let socket = daemon.socket
        let box = StartBox()
        for client in 0..<clients {
            Thread {
                defer { done.signal() }
                let connection: LineConnection
                do { connection = try LineConnection(path: socket) } catch {
                    tally.fail("\(error)"); ready.signal(); return
                }
                ready.signal()
                go.wait()
                let deadline = box.start + seconds
                var count = 0
                var latencies: [Double] = []
                latencies.reserveCapacity(20_000)
                var n = 0
                do {
                    while Measure.now() < deadline {
                        n += 1
                        let line = requestLine(id: Int64(n), Method.todoAdd.name, ["title": .string("bench add \(client)-\(n)")])
                        let t0 = Measure.now()
                        try connection.send(line)
                        let ok = try connection.withLine { bytes in
                            containsResult(bytes)
                        }
                        latencies.append(Measure.now() - t0)
                        guard ok else { throw BenchError("todo.add answered with an error") }
                        count += 1
                    }
                } catch {
                    tally.fail("\(error)")
                }
                tally.add(count: count, latencies: latencies, end: Measure.now())
            }.start()
        }
        for _ in 0..<clients { ready.wait() }
        box.start = Measure.now()
        for _ in 0..<clients { go.signal() }
        for _ in 0..<clients { done.wait() }
        if let error = tally.errors.first { throw BenchError("add clients failed: \(error)") }
        let elapsed = tally.end - box.start
        let rate = Double(tally.count) / elapsed
        if seconds >= 1 {
            report("todo.add latency, \(clients) client\(clients == 1 ? "" : "s")", tally.latencies,
                   extra: String(format: "p99 %@  %@ (%d adds in %.2f s)", formatSeconds(Stats(tally.latencies).percentile(99)),
                                 formatRate(rate, "adds"), tally.count, elapsed))
        }
        return rate
    }
}

/// The shared start instant, written once before the clients are let go.
final class StartBox: @unchecked Sendable {
    // @unchecked: written before `go` is signalled, read after; the semaphore orders the accesses.
    var start = 0.0
}

/// Whether a response line carries `"result"` (checked without parsing the JSON).
func containsResult(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let needle = Array("\"result\"".utf8)
    guard bytes.count >= needle.count else { return false }
    outer: for i in 0...(bytes.count - needle.count) {
        for j in 0..<needle.count where bytes[i + j] != needle[j] { continue outer }
        return true
    }
    return false
}
