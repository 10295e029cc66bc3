import Foundation
import TodoCore

#if canImport(Glibc)
    import Glibc
#endif

/// P6: context switches of an idle todod (reminders pending but far away, no watchdog, no
/// clients), summed over all its threads, as wake-ups per minute.
enum IdleBench {
    static func run(seconds: Int, settleSeconds: Int) throws {
        print("== idle wake-ups (P6): todod with 10 far-away reminders, no watchdog, no clients, \(seconds) s")
        let dir = try TempDir("p6")
        let farFuture = Instant.now().adding(usec: 30 * 86_400 * 1_000_000)
        _ = try Seed.store(path: dir.file("todos.db"), count: 10) { i, _ in farFuture.adding(usec: Int64(i) * 1_000_000)
        }
        let daemon = try DaemonRun(dir: dir)
        defer { daemon.stop() }
        // Settle: libdispatch retires an idle worker thread about 5 s after its last work item; that
        // one-time clean-up is not a periodic wake-up. Wait until the thread set has been stable
        // for `settleSeconds` (at most 4× that).
        let settleStart = Measure.now()
        var threads = Set(ProcStat.contextSwitches(daemon.pid).keys)
        var stableSince = Measure.now()
        while Measure.now() - stableSince < Double(settleSeconds)
            && Measure.now() - settleStart < Double(4 * settleSeconds)
        {
            usleep(250_000)
            let now = Set(ProcStat.contextSwitches(daemon.pid).keys)
            if now != threads {
                threads = now
                stableSince = Measure.now()
            }
        }
        print(String(format: "  settled for %.1f s: %d threads", Measure.now() - settleStart, threads.count))

        let before = ProcStat.contextSwitches(daemon.pid)
        let start = Measure.now()
        sleep(UInt32(seconds))
        let after = ProcStat.contextSwitches(daemon.pid)
        let elapsed = Measure.now() - start
        var wakeups = 0
        for (tid, count) in after { wakeups += count - (before[tid] ?? 0) }
        // A thread that exited during the window woke up at least once to do so; count it once.
        let exited = before.keys.filter { after[$0] == nil }.count
        wakeups += exited
        let perMinute = Double(wakeups) * 60 / elapsed
        print(
            String(
                format: "  %d context switches over %.1f s across %d threads (%d new, %d exited) → %.1f per minute",
                wakeups, elapsed, after.count, after.keys.filter { before[$0] == nil }.count, exited, perMinute))
        if exited > 0 {
            Summary.note(
                "P6: \(exited) daemon thread(s) exited during the idle window; each counted as one wake-up (a lower bound)"
            )
        }
        Summary.add(
            "P6 idle wake-ups per minute (\(seconds) s window)", value: String(format: "%.1f", perMinute),
            peer: "\(wakeups) switches, \(after.count) threads", goal: "0", met: wakeups == 0)
    }
}
