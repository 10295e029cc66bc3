import Foundation
import Synchronization
import TodoCore

/// A clock that moves only when a test says so.
public final class ManualClock: @unchecked Sendable {
    // @unchecked: `current` is guarded by `lock`.
    private let lock = Mutex(())
    private var current: Instant

    public init(_ start: Instant = Instant(rfc3339: "2026-12-01T09:00:00Z")!) { current = start }

    public var now: Instant { lock.withLock { _ in current } }

    /// Moves the clock by `seconds` (negative for a backward step).
    public func advance(seconds: Double) {
        lock.withLock { _ in current = current.adding(usec: Int64(seconds * 1_000_000)) }
    }

    /// Sets the clock to `instant`.
    public func set(_ instant: Instant) { lock.withLock { _ in current = instant } }

    /// A closure reading this clock, for APIs that take one.
    public var source: @Sendable () -> Instant { { [self] in now } }
}
