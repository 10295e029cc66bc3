import Foundation
import Synchronization
import TodoCore
import TodoProtocol
@_spi(Benchmark) import TodoStore

#if canImport(Glibc)
    import Glibc
#endif

/// Results gathered from client threads.
final class Tally: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = Mutex(())
    private var _count = 0
    private var _latencies: [Double] = []
    private var _errors: [String] = []
    private var _end = 0.0

    func add(count: Int, latencies: [Double], end: Double) {
        lock.withLock { _ in
            _count += count
            _latencies += latencies
            _end = max(_end, end)
        }
    }
    func fail(_ message: String) { lock.withLock { _ in _errors.append(message) } }
    var count: Int { lock.withLock { _ in _count } }
    var latencies: [Double] { lock.withLock { _ in _latencies } }
    var errors: [String] { lock.withLock { _ in _errors } }
    var end: Double { lock.withLock { _ in _end } }
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
        _ = try rate(daemon, clients: 1, seconds: min(0.5, seconds)) // warm-up
        let one = try rate(daemon, clients: 1, seconds: seconds)
        let sixteen = try rate(daemon, clients: 16, seconds: seconds)
        daemon.stop()

        // The change log's cost, in this same run: a daemon with the log and one started with
        // the test build todod-faults with TODOD_TEST_FAULT=no-change-log (no triggers, nothing
        // logged; the shipped todod has no such switch), each on a store of its own,
        // loaded in turn, a second at a time, five rounds: the median of the rounds' ratios, so
        // that the disk's drift over the run (large on a shared machine) falls on both alike.
        print("  the change log's cost: log on and off in turn, 5 rounds")
        let onDir = try TempDir("p2-log")
        let offDir = try TempDir("p2-nolog")
        let on = try DaemonRun(dir: onDir)
        let off = try DaemonRun(
            dir: offDir, environment: ["TODOD_TEST_FAULT": "no-change-log"], executable: "todod-faults")
        defer {
            on.stop()
            off.stop()
        }
        let slice = min(1.0, seconds)
        for d in [on, off] { _ = try rate(d, clients: 1, seconds: min(0.5, seconds)) } // warm-up
        var ratios: [Int: [Double]] = [1: [], 16: []]
        var rates: [Int: (on: [Double], off: [Double])] = [1: ([], []), 16: ([], [])]
        for _ in 0..<5 {
            for clients in [1, 16] {
                let withLog = try rate(on, clients: clients, seconds: slice)
                let without = try rate(off, clients: clients, seconds: slice)
                ratios[clients]!.append(without / withLog)
                rates[clients]!.on.append(withLog)
                rates[clients]!.off.append(without)
            }
        }
        on.stop()
        off.stop()
        let directOff = try storeAddRate(path: dir.file("direct-nolog.db"), rows: floorRows, changeLog: false)
        let directOn = try storeAddRate(path: dir.file("direct-log.db"), rows: floorRows)
        func median(_ v: [Double]) -> Double {
            let s = v.sorted()
            return s[s.count / 2]
        }
        func percent(_ ratio: Double) -> String { String(format: "%+.1f %%", (ratio - 1) * 100) }
        for clients in [16, 1] {
            let ratio = median(ratios[clients]!)
            Summary.add(
                "P2 change log cost, \(clients) client\(clients == 1 ? "" : "s") (time per add, median of 5)",
                value: formatRate(median(rates[clients]!.on), "adds"),
                peer: "log off: " + formatRate(median(rates[clients]!.off), "adds"), ratio: percent(ratio),
                goal: "< +20 %",
                met: ratio < 1.2)
            print(
                "  \(clients) client(s), time per add with the log vs without, per round: "
                    + ratios[clients]!.map(percent).joined(separator: ", "))
        }
        Summary.add(
            "P2 (diagnostic) change log cost, TodoStore add", value: formatRate(directOn, "adds"),
            peer: "log off: " + formatRate(directOff, "adds"), ratio: percent(directOff / directOn))

        let floorAfter = try CommitFloor.rowsPerSecond(path: dir.file("floor.db"), rows: floorRows)
        print("  floor (after):  " + formatRate(floorAfter, "commits"))
        // The higher of the two floors: the ratio is then the less flattering one.
        let floor = max(floorBefore, floorAfter)
        let floorText = "SQLite " + formatRate(floor, "commits")
        Summary.ratio(
            "P2 durable todo.add, 16 clients", value: formatRate(sixteen, "adds"), peer: floorText,
            ratio: sixteen / floor, goal: "≥ 10×", met: sixteen / floor >= 10)
        Summary.add(
            "P2 durable todo.add, 1 client", value: formatRate(one, "adds"), peer: floorText,
            ratio: String(format: "%.2f×", one / floor))
        Summary.add(
            "P2 (diagnostic) TodoStore add, 1 per transaction", value: formatRate(direct, "adds"), peer: floorText,
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
                    tally.fail("\(error)")
                    ready.signal()
                    return
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
                        let line = requestLine(
                            id: Int64(n), Method.todoAdd.name, ["title": .string("bench add \(client)-\(n)")])
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
            report(
                "todo.add latency, \(clients) client\(clients == 1 ? "" : "s")", tally.latencies,
                extra: String(
                    format: "p99 %@  %@ (%d adds in %.2f s)", formatSeconds(Stats(tally.latencies).percentile(99)),
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
