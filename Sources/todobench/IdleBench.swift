#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TodoCore

/// P6: context switches of an idle todod (reminders pending but far away, no watchdog, no
/// clients), summed over all its threads, as wake-ups per minute.
enum IdleBench {
    static func run(seconds: Int) throws {
        print("== idle wake-ups (P6): todod with 10 far-away reminders, no watchdog, no clients, \(seconds) s")
        let dir = try TempDir("p6")
        let farFuture = Instant.now().adding(usec: 30 * 86_400 * 1_000_000)
        _ = try Seed.store(path: dir.file("todos.db"), count: 10) { i, _ in farFuture.adding(usec: Int64(i) * 1_000_000) }
        let daemon = try DaemonRun(dir: dir)
        defer { daemon.stop() }
        sleep(1)  // let start-up finish
        let before = ProcStat.contextSwitches(daemon.pid)
        let start = Measure.now()
        sleep(UInt32(seconds))
        let after = ProcStat.contextSwitches(daemon.pid)
        let elapsed = Measure.now() - start
        let wakeups = after.switches - before.switches
        let perMinute = Double(wakeups) * 60 / elapsed
        print(String(format: "  %d context switches over %.1f s across %d threads (%d at the start) → %.1f per minute",
                     wakeups, elapsed, after.threads, before.threads, perMinute))
        if after.threads != before.threads {
            Summary.note("P6: the daemon's thread count changed while idle (\(before.threads) → \(after.threads)); switches of exited threads are not counted")
        }
        Summary.add("P6 idle wake-ups per minute (\(seconds) s window)", value: String(format: "%.1f", perMinute),
                    peer: "\(wakeups) switches, \(after.threads) threads", goal: "0", met: wakeups == 0)
    }
}
