import Foundation
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

// How tests wait: on the event itself, never for a fixed time. Every wait of the test suites
// goes through `eventually` (a condition polled until a deadline); the deadline is only how long
// a failing test takes to say so, never how long a passing one takes.

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds pass; returns
/// whether it held. It is tried once more when the deadline comes, and at least once.
package func eventually(timeout: Double, every interval: Double = 0.02, _ condition: () throws -> Bool) rethrows -> Bool
{
    let deadline = MonotonicClock.seconds() + timeout
    while true {
        if try condition() { return true }
        let left = deadline - MonotonicClock.seconds()
        if left <= 0 { return false }
        usleep(UInt32(min(interval, left) * 1_000_000))
    }
}

/// Whether `condition` holds throughout the next `seconds` (tried every `interval`): for a test
/// whose behaviour is that something does not happen within a time ("nothing fires before X",
/// "no second copy comes"). It returns false as soon as the condition fails; a passing test
/// waits the whole time, so keep `seconds` to what the behaviour needs.
package func holds(for seconds: Double, every interval: Double = 0.02, _ condition: () throws -> Bool) rethrows -> Bool
{
    try !eventually(timeout: seconds, every: interval) { try !condition() }
}

/// Waits until the wall clock is past `instant`: for a test whose behaviour is time passing (a
/// due instant gone by, a later whole second for a timestamp that must be later).
package func waitUntilPast(_ instant: Date) {
    _ = eventually(timeout: instant.timeIntervalSinceNow + 1, every: 0.005) { Date() > instant }
}

/// Waits until the monotonic clock (CLOCK_MONOTONIC, in seconds) is past `deadline`: for a
/// deadline set on that clock.
package func waitUntilPast(monotonic deadline: Double) {
    _ = eventually(timeout: deadline - MonotonicClock.seconds() + 1, every: 0.005) {
        MonotonicClock.seconds() > deadline
    }
}

/// Waits for the next whole second of the wall clock (timestamps of whole seconds that must differ).
package func waitForNextSecond() {
    waitUntilPast(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 1))
}

/// Waits until a Unix stream socket at `path` accepts a connection (closed at once), for at most
/// `timeout` seconds or until `alive` says its server has ended; returns whether it did.
@discardableResult
package func waitUntilListening(_ path: String, timeout: Double = 10, while alive: () -> Bool = { true }) -> Bool {
    var listening = false
    _ = eventually(timeout: timeout, every: 0.01) {
        if let fd = try? UnixSocket.connect(path: path) {
            Posix.close(fd)
            listening = true
        }
        return listening || !alive()
    }
    return listening
}

/// Whether one of process `pid`'s threads waits for a datagram socket's receiver to make room
/// (its `wchan` is `unix_wait_for_peer`): it sends to a journal or a service manager that does
/// not read.
package func waitsForDatagramReceiver(_ pid: Int32) -> Bool {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.contains {
        (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/wchan", encoding: .utf8)) == "unix_wait_for_peer"
    }
}
