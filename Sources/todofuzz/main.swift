import Foundation
import TodoPosix
import TodoProtocol

// todofuzz: sends at least N hostile inputs to a running todod over C connections and checks
// that every line it answers is valid JSON-RPC, that it never hangs or dies, and that a normal
// client still works at the end. See docs/FUZZING.md.
#if canImport(Glibc)
    import Glibc
#endif

struct Options {
    var socket: String?
    var inputs = 1_000_000
    var seed = UInt64.random(in: 0...UInt64.max)
    var connections = 8
    var pid: Int32?
    var batch = 1000
    var hangTimeout = 5.0
    var housekeepAbove = 200
    var quiet = false
    var wideKeys = 50_000
    var dump: (worker: Int, from: Int, to: Int)?

    static let usage = """
        Usage: todofuzz --ical ... (the iCalendar reader and RRULEs in this process; todofuzz --ical --help)
               todofuzz --socket PATH [--inputs N] [--seed S] [--connections C] [--pid PID]
                        [--batch B] [--hang-timeout SECONDS] [--wide-keys K] [--quiet]
               todofuzz --seed S [--wide-keys K] --dump CONNECTION:ITEM[-ITEM]
               todofuzz --methods   (every method it fuzzes, one a line: all that todod serves)

        Sends at least N (default 1000000) hostile inputs to the todod listening on PATH, over C
        (default 8) concurrent connections, from a generator seeded with S (random by default,
        always printed). After every B (default 1000) inputs per connection, daemon.status on a
        fresh connection must be answered within the hang timeout (default 5 s); with --pid the
        process must also be alive. --wide-keys caps the keys of the widest generated object
        (default 50000; see docs/FUZZING.md, finding 1). Exits 0 only with no crash, no hang, no invalid response and a
        working client round trip at the end.

        --dump writes the raw bytes of generated item(s) of one connection (0-based) to standard
        output, without connecting: the exact reproducer of an item named in a failure report.
        """

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < args.count else { fail("option '\(args[i - 1])' needs a value") }
            return args[i]
        }
        func fail(_ message: String) -> Never {
            warn("todofuzz: \(message)\n\(usage)\n")
            exit(2)
        }
        while i < args.count {
            switch args[i] {
            case "--socket": o.socket = value()
            case "--inputs":
                guard let n = Int(value()), n > 0 else { fail("--inputs needs a positive number") }
                o.inputs = n
            case "--seed":
                guard let s = UInt64(value()) else { fail("--seed needs a number from 0 to 2^64-1") }
                o.seed = s
            case "--connections":
                guard let n = Int(value()), (1...256).contains(n) else { fail("--connections needs 1 to 256") }
                o.connections = n
            case "--pid":
                guard let p = Int32(value()), p > 0 else { fail("--pid needs a process id") }
                o.pid = p
            case "--batch":
                guard let n = Int(value()), n > 0 else { fail("--batch needs a positive number") }
                o.batch = n
            case "--hang-timeout":
                guard let t = Double(value()), t > 0 else { fail("--hang-timeout needs seconds") }
                o.hangTimeout = t
            case "--quiet": o.quiet = true
            case "--wide-keys":
                guard let n = Int(value()), n >= 10 else { fail("--wide-keys needs a number of at least 10") }
                o.wideKeys = n
            case "--dump":
                let spec = value().split(separator: ":")
                let range = spec.count == 2 ? spec[1].split(separator: "-") : []
                guard spec.count == 2, let w = Int(spec[0]), let from = range.first.flatMap({ Int($0) }), from >= 1
                else {
                    fail("--dump needs CONNECTION:ITEM or CONNECTION:FIRST-LAST (items count from 1)")
                }
                o.dump = (w, from, range.count == 2 ? Int(range[1]) ?? from : from)
            case "--help", "-h":
                say(usage)
                exit(0)
            default: fail("unknown argument '\(args[i])'")
            }
            i += 1
        }
        if o.dump == nil && o.socket == nil { fail("--socket is required") }
        return o
    }
}

func dump(_ options: Options) -> Never {
    guard let d = options.dump else { exit(2) }
    var generator = Generator(seed: options.seed, worker: d.worker, wideKeys: options.wideKeys)
    while generator.index < d.to {
        let item = generator.next()
        guard generator.index >= d.from else { continue }
        warn(
            "todofuzz: connection \(d.worker) item \(generator.index): \(item.kind.rawValue), \(item.bytes.count) bytes, \(item.inputs) input(s), then \(item.after)\n"
        )
        _ = try? Posix.writeAll(1, item.bytes)
    }
    exit(0)
}

/// Unbuffered output, so a report survives whatever happens next.
func say(_ text: String) { _ = try? Posix.writeAll(1, Array((text + "\n").utf8)) }
func warn(_ text: String) { _ = try? Posix.writeAll(2, Array(text.utf8)) }

func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

/// Add a todo, read it back, find it in a list: what any client does.
func roundTrip(path: String, seed: UInt64) -> String? {
    do {
        let client = try SimpleClient(path: path, timeout: 30)
        let title = "todofuzz round trip \(seed)"
        let added = try client.call(
            Method.todoAdd.name, ["title": .string(title), "notes": "after the fuzzing", "due": "2030-01-01T09:00:00Z"])
        guard let id = added["id"]?.intValue else { return "todo.add returned no id: \(added.serialized())" }
        let got = try client.call(Method.todoGet.name, ["id": .int(id)])
        guard got["title"] == .string(title), got["notes"] == "after the fuzzing" else {
            return "todo.get returned \(got.serialized())"
        }
        let page = try client.call(Method.todoList.name, ["status": "all", "search": .string(title)])
        guard page["todos"]?.arrayValue?.contains(where: { $0["id"] == .int(id) }) == true else {
            return "todo.list did not contain todo \(id)"
        }
        _ = try client.call(Method.todoDelete.name, ["ids": [.int(id)]])
        return nil
    } catch {
        return "\(error)"
    }
}

func run() -> Int32 {
    if CommandLine.arguments.dropFirst().first == "--ical" {
        return ICalFuzz.main(Array(CommandLine.arguments.dropFirst()))
    }
    // Every method it fuzzes, one a line: the method enum, which scripts/check-docs holds docs/PROTOCOL.md to.
    if CommandLine.arguments.dropFirst().first == "--methods" {
        for name in Generator.methods { print(name) }
        return 0
    }
    let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
    if options.dump != nil { dump(options) }
    Posix.ignoreSIGPIPE()
    guard let path = options.socket else { return 2 }
    let pid = options.pid.map(DaemonPID.init)
    let c = options.connections
    say("todofuzz: seed \(options.seed), \(options.inputs) inputs over \(c) connections to \(path)")
    say(
        "todofuzz: replay with: todofuzz --socket \(path) --seed \(options.seed) --inputs \(options.inputs) --connections \(c)\(options.wideKeys == 50_000 ? "" : " --wide-keys \(options.wideKeys)")"
    )

    let stats = Stats()
    let rssBefore = pid?.status("VmRSS")
    let started = now()
    let workers = (0..<c).map { w in
        Worker(
            index: w, seed: options.seed, wideKeys: options.wideKeys,
            quota: options.inputs / c + (w < options.inputs % c ? 1 : 0), path: path, stats: stats)
    }
    let monitor = Monitor(
        path: path, pid: pid, stats: stats, batchInputs: options.batch * c, hangTimeout: options.hangTimeout,
        housekeepAbove: options.housekeepAbove, quiet: options.quiet, workers: workers)
    // A check before anything is sent: the daemon must be there.
    guard monitor.check() != nil else {
        say(
            "todofuzz: FAIL: the daemon does not answer before fuzzing: \((stats.crashes + stats.hangs).joined(separator: "; "))"
        )
        return 1
    }
    monitor.start()
    let group = DispatchGroup()
    for worker in workers {
        group.enter()
        let thread = Thread {
            worker.run()
            group.leave()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }
    while group.wait(timeout: .now() + 0.2) == .timedOut {
        if stats.isStopping && (!stats.hangs.isEmpty || !stats.crashes.isEmpty) {
            // Give the workers a moment, then report without waiting for blocked writes.
            _ = group.wait(timeout: .now() + 3)
            break
        }
    }
    let sendingDone = now()
    let failedEarly = !stats.hangs.isEmpty || !stats.crashes.isEmpty
    monitor.stop()
    if !failedEarly { _ = monitor.check() } // one more after the last input
    let elapsed = sendingDone - started
    let roundTripFailure =
        stats.hangs.isEmpty && stats.crashes.isEmpty ? roundTrip(path: path, seed: options.seed) : "skipped"
    let rssAfter = pid?.status("VmRSS")
    let hwm = pid?.status("VmHWM")

    // The report.
    let s = stats
    say("todofuzz: seed \(options.seed)")
    say(
        "  inputs          \(s.inputs) (\(megabytes(s.bytes))) in \(String(format: "%.1f", elapsed)) s: \(Int(Double(s.inputs) / max(elapsed, 0.001))) inputs/s"
    )
    let kinds = Item.Kind.allCases.compactMap { k in s.itemsByKind[k].map { "\(k.rawValue) \($0)" } }
    say("  by kind         \(kinds.joined(separator: ", "))")
    let codes = s.errorsByCode.keys.sorted().map { "\($0): \(s.errorsByCode[$0]!)" }
    say(
        "  answers         \(s.results + s.events + s.errorsByCode.values.reduce(0, +)): result \(s.results), event \(s.events), \(codes.joined(separator: ", "))"
    )
    say(
        "  canaries        \(s.canariesSent) valid requests interleaved: \(s.canariesAnswered) answered with a result, \(s.canariesLost) unanswered when we dropped their connection"
    )
    say(
        "  connections     \(s.connects) opened; \(s.deliberateDisconnects) dropped by us, \(s.expectedCloses) closed by the daemon after a line past 1 MiB, \(s.unexpectedCloses) closed unexpectedly"
    )
    say(
        "  hang checks     \(s.hangChecks), slowest answer \(String(format: "%.3f", s.maxCheckLatency)) s (limit \(options.hangTimeout) s)"
    )
    say("  housekeeping    \(s.housekeepingDeleted) todos deleted to keep the store small")
    if let pid {
        func mib(_ kb: Int?) -> String { kb.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "?" }
        say(
            "  daemon RSS      before \(mib(rssBefore)), after \(mib(rssAfter)), peak sampled \(mib(monitor.peakRSS)), VmHWM \(mib(hwm)) (pid \(pid.pid))"
        )
    }
    say("  crashes         \(s.crashes.count)\(s.crashes.isEmpty ? "" : ": " + s.crashes.joined(separator: "; "))")
    say("  hangs           \(s.hangs.count)\(s.hangs.isEmpty ? "" : ": " + s.hangs.joined(separator: "; "))")
    say("  invalid         \(s.invalid)")
    for sample in s.invalidSamples { say("    \(sample)") }
    for sample in s.unexpectedCloseSamples { say("    unexpected close: \(sample)") }
    say("  internal errors \(s.errorsByCode[-32603] ?? 0) (-32603: a daemon bug)")
    say("  round trip      \(roundTripFailure.map { "FAILED: \($0)" } ?? "ok (add, get, list, delete)")")
    let ok =
        s.crashes.isEmpty && s.hangs.isEmpty && s.invalid == 0 && s.unexpectedCloses == 0 && roundTripFailure == nil
        && (s.errorsByCode[-32603] ?? 0) == 0 && s.canariesAnswered + s.canariesLost == s.canariesSent
    if !ok {
        say(
            "  last items sent (reproduce one with: todofuzz --seed \(options.seed)\(options.wideKeys == 50_000 ? "" : " --wide-keys \(options.wideKeys)") --dump CONNECTION:ITEM > item.bin):"
        )
        for worker in workers {
            for line in worker.recentItems.suffix(s.hangs.isEmpty && s.crashes.isEmpty ? 3 : 12) { say("    \(line)") }
        }
    }
    say("todofuzz: \(ok ? "PASS" : "FAIL")")
    return ok ? 0 : 1
}

exit(run())
