import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoStore
import TodoTestSupport
import TodoTime

@testable import TodoDaemon

/// The real timer against the kernel.
@Suite struct WallTimerTests {
    /// Instants at and before the epoch (year 26, 1969, the epoch itself) fire at once instead of
    /// never (`DispatchWallTime` read them as "forever").
    @Test(arguments: ["0026-12-24T18:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z"])
    func anInstantAtOrBeforeTheEpochFiresAtOnce(_ text: String) throws {
        let queue = DispatchQueue(label: "test.timer")
        let timer = try DispatchWallTimer(queue: queue)
        let fired = DispatchSemaphore(value: 0)
        queue.sync { timer.onFire = { fired.signal() } }
        #expect(queue.sync { timer.arm(at: Instant(rfc3339: text)!) })
        #expect(fired.wait(timeout: .now() + 5) == .success)
        withExtendedLifetime(timer) {}
    }

    @Test func aDisarmedTimerDoesNotFireAndReArmingWorks() throws {
        let queue = DispatchQueue(label: "test.timer")
        let timer = try DispatchWallTimer(queue: queue)
        let fired = DispatchSemaphore(value: 0)
        queue.sync {
            timer.onFire = { fired.signal() }
            _ = timer.arm(at: Instant.now().adding(usec: 60_000_000))
            timer.disarm()
            _ = timer.arm(at: Instant.now().adding(usec: 200_000))
        }
        #expect(fired.wait(timeout: .now() + 5) == .success)
        withExtendedLifetime(timer) {}
    }
}

/// `TFD_TIMER_CANCEL_ON_SET` cannot be triggered here without setting this machine's clock, which
/// other work shares; the kernel's own view of the timer shows it is armed so (TimeChangeTests
/// covers what the scheduler does when it fires).
@Suite struct WallTimerCancelOnSetTests {
    @Test func theTimerIsArmedToReportAClockSet() throws {
        let queue = DispatchQueue(label: "test.timer")
        let timer = try DispatchWallTimer(queue: queue)
        #expect(queue.sync { timer.arm(at: Instant.now().adding(usec: 3_600_000_000)) })
        let settings = timer.kernelSettings
        #expect(settings["clockid"] == "0") // CLOCK_REALTIME
        // TFD_TIMER_ABSTIME (1) | TFD_TIMER_CANCEL_ON_SET (2), in octal.
        #expect(settings["settime flags"] == "03")
        withExtendedLifetime(timer) {}
    }
}
