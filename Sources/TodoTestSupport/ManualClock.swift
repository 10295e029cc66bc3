import Foundation
import TodoCore

/// A clock that moves only when a test says so.
package final class ManualClock: @unchecked Sendable {
    // @unchecked: `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Instant

    package init(_ start: Instant = Instant(rfc3339: "2026-12-01T09:00:00Z")!) { current = start }

    package var now: Instant { lock.withLock { current } }

    /// Moves the clock by `seconds` (negative for a backward step).
    package func advance(seconds: Double) {
        lock.withLock { current = current.adding(usec: Int64(seconds * 1_000_000)) }
    }

    /// Sets the clock to `instant`.
    package func set(_ instant: Instant) { lock.withLock { current = instant } }

    /// A closure reading this clock, for APIs that take one.
    package var source: @Sendable () -> Instant { { [self] in now } }
}
