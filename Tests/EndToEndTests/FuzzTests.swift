import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The short run: the built `todofuzz` sends about 20,000 hostile inputs to a
/// daemon (random bytes, mutated requests of every method, deep nesting, huge numbers, invalid
/// UTF-8, lines at and past 1 MiB, disconnects mid-line ...). The long run is `scripts/fuzz`;
/// docs/FUZZING.md describes both. Replay a failure with `TODOD_FUZZ_SEED=<seed> scripts/test
/// --filter FuzzTests`, or with `todofuzz --seed <seed>` against any daemon.
@Suite struct FuzzTests {
    @Test func twentyThousandHostileInputsLeaveTheDaemonServing() throws {
        let seed = SeededRandom.seed(from: "TODOD_FUZZ_SEED")
        let replay = "seed \(seed) (replay: TODOD_FUZZ_SEED=\(seed))"
        let daemon = try DaemonProcess(directory: TemporaryDirectory("fuzz"))
        let run = try ChildProcess.run(
            BuiltProducts.path("todofuzz"),
            [
                "--socket", daemon.socket, "--inputs", "20000", "--seed", String(seed), "--connections", "4",
                "--pid", String(daemon.pid), "--quiet"
            ])
        #expect(run.status == 0, "todofuzz failed, \(replay):\n\(run.stdout)\(run.stderr)")

        // Still running, still answering a normal client on a new connection.
        #expect(daemon.process.isRunning, "the daemon died, \(replay)")
        do {
            let status = try daemon.client().result("daemon.status")
            #expect(status["pid"]?.intValue == Int64(daemon.pid), "\(replay): \(status.serialized())")
        } catch {
            Issue.record("daemon.status after fuzzing failed, \(replay): \(error)")
        }

        // A clean stop and an intact database.
        #expect(daemon.stop(signal: SIGTERM) == 0, "SIGTERM after fuzzing, \(replay):\n\(daemon.stderrText())")
        #expect(try ChildProcess.sqlite3(daemon.database, "PRAGMA integrity_check") == "ok", "\(replay)")
    }

    /// The short run of `todofuzz --ical`: 3,000 generated iCalendar files and RRULEs through
    /// the reader, the writer and the recurrence code; no trap, no hang, and every todo read is
    /// written back readable. Replay with `TODOD_FUZZ_SEED=<seed>`; the long run is
    /// `scripts/fuzz --ical`.
    @Test func threeThousandHostileCalendarsNeitherTrapNorHang() throws {
        let seed = SeededRandom.seed(from: "TODOD_FUZZ_SEED")
        let run = try ChildProcess.run(
            BuiltProducts.path("todofuzz"),
            ["--ical", "--inputs", "3000", "--seed", String(seed), "--batch", "1000", "--quiet"])
        #expect(
            run.status == 0,
            "todofuzz --ical failed, seed \(seed) (replay: TODOD_FUZZ_SEED=\(seed)):\n\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("  crashes         0"), "\(run.stdout)")
    }
}
