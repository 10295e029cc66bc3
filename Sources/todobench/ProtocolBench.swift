import Foundation
@_spi(Benchmark) import TodoPosix
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
        } catch {} // the client hung up
    }

    /// A server thread in this process; returns its thread id.
    static func startThread(path: String, response: [UInt8]) throws -> Int32 {
        let listener = try serve(path: path, response: response)
        let started = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var tid: Int32 = 0
        Thread {
            tid = Posix.threadID
            started.signal()
            answer(listener: listener, response: response)
            Posix.close(listener)
        }.start()
        started.wait()
        return tid
    }

    /// A server process, and the one connection it serves, once it listens.
    static func startProcess(path: String, response: [UInt8]) throws -> (pid: pid_t, connection: LineConnection) {
        try? Files.unlink(path)
        let hex = response.map { String(format: "%02x", $0) }.joined()
        let pid = try Spawn.start(
            CommandLine.arguments[0], ["--serve-ping-pong", path, hex], environment: Spawn.baseEnvironment(),
            service: true)
        // The socket file appears at bind, before listen: connecting is the only sure sign that it
        // serves (it accepts one connection, so that one is kept).
        let start = Measure.now()
        while true {
            if let connection = try? LineConnection(path: path) { return (pid, connection) }
            if Measure.now() - start > 10 {
                kill(pid, SIGKILL)
                Spawn.wait(pid)
                throw BenchError("the ping-pong process did not listen")
            }
            usleep(1000)
        }
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
        let added = try connection.rpc(
            Method.todoAdd.name,
            ["title": "Buy milk 牛乳を買う", "category": "Home", "due": "2030-12-01T09:00:00Z", "notes": "two litres"])
        guard let id = added["result"]?["id"]?.intValue else { throw BenchError("todo.add returned no id") }
        let request = requestLine(id: 7, Method.todoGet.name, ["id": .int(id)])
        let answer = try connection.call(request)
        guard try parse(answer, what: Method.todoGet.name)["result"] != nil else {
            throw BenchError("todo.get failed: \(String(decoding: answer, as: UTF8.self))")
        }
        let response = answer + [0x0A]
        print(
            "  exchange: request \(request.count) bytes, response \(response.count) bytes (both counted with their newline)"
        )

        let floorThread = try PingPong.startThread(path: dir.file("pingpong.sock"), response: response)
        let floor = try LineConnection(path: dir.file("pingpong.sock"))
        let (otherPID, otherProcess) = try PingPong.startProcess(
            path: dir.file("pingpong-process.sock"), response: response)
        defer {
            kill(otherPID, SIGTERM)
            Spawn.wait(otherPID)
        }

        func exchange(_ c: LineConnection) throws -> Double {
            let start = Measure.now()
            try c.send(request)
            let size = try c.withLine { $0.count }
            let elapsed = Measure.now() - start
            guard size + 1 == response.count else { throw BenchError("unexpected response of \(size + 1) bytes") }
            return elapsed
        }
        /// Warm-up, then blocks of 250 alternating between the three servers, so all see the same noise.
        func measure() throws -> (get: Stats, thread: Stats, process: Stats) {
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
            return (Stats(get), Stats(ping), Stats(pingProcess))
        }
        /// Every thread of the bench's client, the floor thread, the floor process and todod on `cpus`.
        func place(on cpus: [Int]) throws {
            do {
                try Posix.setAffinity(thread: 0, cpus: cpus)
                try Posix.setAffinity(thread: floorThread, cpus: cpus)
                for pid in [otherPID, daemon.pid] {
                    for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
                        if let tid = Int32(task) { try? Posix.setAffinity(thread: tid, cpus: cpus) }
                    }
                }
            } catch {
                throw BenchError("cannot place the threads: \(error)")
            }
        }

        // Where the scheduler puts the threads decides the figure on this kind of machine: a
        // virtual CPU that idles halts, and a wake-up that lands on it costs some 40 µs, while a
        // pair that shares one CPU trades the CPU in a few. Left free, any of the three servers
        // may end up on either side, run after run. So the goal's ratio is measured with every
        // thread on one CPU, where nothing depends on placement, and the free run is reported too.
        let all = Array(0..<min(64, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))) // the affinity mask holds 64
        try place(on: [all[0]])
        let pinned = try measure()
        try place(on: all)
        let free = try measure()

        for (placement, run) in [("one CPU", pinned), ("free", free)] {
            for (name, stats) in [
                ("ping-pong, thread in todobench", run.thread), ("ping-pong, another process", run.process),
                ("todo.get round trip", run.get)
            ] {
                report("\(name), \(placement)", stats.sorted, extra: "p99 " + formatSeconds(stats.percentile(99)))
            }
        }
        // The floor is the faster of the two servers.
        func floorOf(_ run: (get: Stats, thread: Stats, process: Stats)) -> (name: String, stats: Stats) {
            run.thread.median <= run.process.median ? ("thread", run.thread) : ("process", run.process)
        }
        let p = floorOf(pinned)
        let g = pinned.get
        let peer = "ping-pong (\(p.name)) " + formatSeconds(p.stats.median)
        let ratio = g.median / p.stats.median
        print(
            String(
                format: "  one CPU: ratio p50 %.2f×, p99 %.2f× (floor: the %@ server)", ratio,
                g.percentile(99) / p.stats.percentile(99), p.name))
        let f = floorOf(free)
        print(
            String(
                format: "  free placement: ratio p50 %.2f× (floor: the %@ server)", free.get.median / f.stats.median,
                f.name))
        // Diagnostic: the daemon's fixed cost without SQLite — a request for an unknown method
        // travels the same path (decode, store queue, encode) and is answered with -32601.
        let noop = requestLine(id: 8, "bench.noop")
        let noopTimes = try Measure.samples(min(samples, 2_000)) { _ = try connection.call(noop) }
        report(
            "unknown-method round trip (no SQLite)", noopTimes,
            extra: "p99 " + formatSeconds(Stats(noopTimes).percentile(99)))
        Summary.ratio(
            "P1 todo.get round trip p50, one CPU", value: formatSeconds(g.median), peer: peer,
            ratio: ratio, goal: "≤ 2.0×", met: ratio <= 2.0)
        Summary.add(
            "P1 todo.get round trip p99, one CPU", value: formatSeconds(g.percentile(99)),
            peer: "ping-pong " + formatSeconds(p.stats.percentile(99)),
            ratio: String(format: "%.2f×", g.percentile(99) / p.stats.percentile(99)))
        Summary.add(
            "P1 (diagnostic) todo.get p50, free placement", value: formatSeconds(free.get.median),
            peer: "ping-pong (\(f.name)) " + formatSeconds(f.stats.median),
            ratio: String(format: "%.2f×", free.get.median / f.stats.median))
        Summary.add(
            "P1 (diagnostic) the other floor, free placement",
            value: formatSeconds((f.name == "thread" ? free.process : free.thread).median))
        Summary.add(
            "P1 (diagnostic) unknown-method round trip, free", value: formatSeconds(Stats(noopTimes).median),
            peer: "ping-pong (\(f.name)) " + formatSeconds(f.stats.median),
            ratio: String(format: "%.2f×", Stats(noopTimes).median / f.stats.median))
    }
}
