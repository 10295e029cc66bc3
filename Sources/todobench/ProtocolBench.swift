import Foundation
import TodoPosix
import TodoProtocol

/// A server that answers every line it reads with one fixed line: the floor for a request/response
/// exchange over a Unix stream socket (kernel copies and two thread wake-ups, no work at all).
/// It runs as a thread of the bench, or in a process of its own like todod
/// (`todobench --serve-ping-pong PATH HEX`), because waking another process costs more here.
enum PingPong {
    /// Listens on `path` and answers the first connection until it hangs up.
    static func serve(path: String, response: [UInt8]) throws -> Int32 {
        try? Files.unlink(path)
        do { return try UnixSocket.listen(path: path) } catch { throw BenchError("listen \(path): \(error.reason)") }
    }

    /// Accepts one connection on the blocking `listener` and answers it until it hangs up.
    static func answer(listener: Int32, response: [UInt8]) {
        // The accepted descriptor is non-blocking, so each line is waited for with poll (no time
        // limit) before it is read.
        guard let fd = try? UnixSocket.accept(listener) else { return }
        let connection = LineConnection(fd: fd)
        do {
            while true {
                try connection.withLine(waitMilliseconds: -1) { _ in }
                try connection.send(response)
            }
        } catch {}  // the client hung up
    }

    /// A server thread in this process.
    static func startThread(path: String, response: [UInt8]) throws {
        let listener = try serve(path: path, response: response)
        Thread { answer(listener: listener, response: response); Posix.close(listener) }.start()
    }

    /// A server process; returns its pid once it listens.
    static func startProcess(path: String, response: [UInt8]) throws -> pid_t {
        try? Files.unlink(path)
        let hex = response.map { String(format: "%02x", $0) }.joined()
        let pid = try Spawn.start(CommandLine.arguments[0], ["--serve-ping-pong", path, hex], environment: Spawn.baseEnvironment())
        let start = Measure.now()
        while access(path, F_OK) != 0 {
            if Measure.now() - start > 10 { kill(pid, SIGKILL); Spawn.wait(pid); throw BenchError("the ping-pong process did not listen") }
            usleep(1000)
        }
        return pid
    }

    /// The entry point of `todobench --serve-ping-pong PATH HEX`.
    static func processMain(path: String, hex: String) -> Never {
        var response: [UInt8] = []
        var digits = hex.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            response.append(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) ?? 0)
        }
        guard let listener = try? serve(path: path, response: response) else { exit(1) }
        answer(listener: listener, response: response)
        exit(0)
    }
}

/// P1: `todo.get` round trip against the ping-pong floor with the same request and response sizes.
enum ProtocolBench {
    static func run(samples: Int) throws {
        print("== protocol latency (P1): todo.get round trip vs raw Unix-socket ping-pong")
        let dir = try TempDir("p1")
        let daemon = try DaemonRun(dir: dir)
        defer { daemon.stop() }
        let connection = try daemon.connect()
        let added = try connection.rpc("todo.add", ["title": "Buy milk 牛乳を買う", "category": "Home", "due": "2030-12-01T09:00:00Z", "notes": "two litres"])
        guard let id = added["result"]?["id"]?.intValue else { throw BenchError("todo.add returned no id") }
        let request = requestLine(id: 7, "todo.get", ["id": .int(id)])
        let answer = try connection.call(request)
        guard try parse(answer, what: "todo.get")["result"] != nil else {
            throw BenchError("todo.get failed: \(String(decoding: answer, as: UTF8.self))")
        }
        let response = answer + [0x0A]
        print("  exchange: request \(request.count) bytes, response \(response.count) bytes (both counted with their newline)")

        try PingPong.startThread(path: dir.file("pingpong.sock"), response: response)
        let floor = try LineConnection(path: dir.file("pingpong.sock"))
        let otherPID = try PingPong.startProcess(path: dir.file("pingpong-process.sock"), response: response)
        defer { kill(otherPID, SIGTERM); Spawn.wait(otherPID) }
        let otherProcess = try LineConnection(path: dir.file("pingpong-process.sock"))

        func exchange(_ c: LineConnection) throws -> Double {
            let start = Measure.now()
            try c.send(request)
            let size = try c.withLine { $0.count }
            let elapsed = Measure.now() - start
            guard size + 1 == response.count else { throw BenchError("unexpected response of \(size + 1) bytes") }
            return elapsed
        }
        // Warm-up, then alternate blocks so both sides see the same noise on a shared machine.
        for _ in 0..<300 {
            _ = try exchange(connection)
            _ = try exchange(floor)
            _ = try exchange(otherProcess)
        }
        var get: [Double] = []
        var ping: [Double] = []
        var pingProcess: [Double] = []
        let block = 250
        while get.count < samples {
            for _ in 0..<block { ping.append(try exchange(floor)) }
            for _ in 0..<block { get.append(try exchange(connection)) }
            for _ in 0..<block { pingProcess.append(try exchange(otherProcess)) }
        }
        let g = Stats(get)
        report("ping-pong, server thread in todobench", ping, extra: "p99 " + formatSeconds(Stats(ping).percentile(99)))
        report("ping-pong, server in another process", pingProcess, extra: "p99 " + formatSeconds(Stats(pingProcess).percentile(99)))
        report("todo.get round trip", get, extra: "p99 " + formatSeconds(g.percentile(99)))
        // The floor is the faster of the two servers: on a virtual machine a round trip costs about
        // 9 µs while both CPUs stay awake and several times that when a wake-up has to rouse an
        // idle one, and a run can catch either server in either state.
        let floors = [("thread", Stats(ping)), ("process", Stats(pingProcess))]
        let (floorName, p) = floors.min { $0.1.median < $1.1.median } ?? floors[0]
        let peer = "ping-pong (\(floorName)) " + formatSeconds(p.median)
        let ratio = g.median / p.median
        print(String(format: "  ratio p50 %.2f×, p99 %.2f× (floor: the %@ server)", ratio, g.percentile(99) / p.percentile(99), floorName))
        // Diagnostic: the daemon's fixed cost without SQLite — a request for an unknown method
        // travels the same path (decode, store queue, encode) and is answered with -32601.
        let noop = requestLine(id: 8, "bench.noop")
        let noopTimes = try Measure.samples(min(samples, 2_000)) { _ = try connection.call(noop) }
        report("unknown-method round trip (no SQLite)", noopTimes, extra: "p99 " + formatSeconds(Stats(noopTimes).percentile(99)))
        Summary.ratio("P1 todo.get round trip p50", value: formatSeconds(g.median), peer: peer,
                      ratio: ratio, goal: "≤ 2.0×", met: ratio <= 2.0)
        Summary.add("P1 todo.get round trip p99", value: formatSeconds(g.percentile(99)), peer: "ping-pong " + formatSeconds(p.percentile(99)),
                    ratio: String(format: "%.2f×", g.percentile(99) / p.percentile(99)))
        for (name, stats) in floors where name != floorName {
            Summary.add("P1 (diagnostic) ping-pong, the other server (\(name))", value: formatSeconds(stats.median), peer: peer,
                        ratio: String(format: "%.2f×", stats.median / p.median))
        }
        Summary.add("P1 (diagnostic) unknown-method round trip", value: formatSeconds(Stats(noopTimes).median),
                    peer: peer, ratio: String(format: "%.2f×", Stats(noopTimes).median / p.median))
    }
}
