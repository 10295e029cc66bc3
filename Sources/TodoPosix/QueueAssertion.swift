import Dispatch

extension DispatchQueue {
    /// Traps unless called on this queue, in debug builds (every test run); in release, nothing.
    /// For the functions every request passes through, where `dispatchPrecondition` cost about
    /// 40 instructions each, eight of them a `todo.get` (docs/PERFORMANCE.md, P1). The other
    /// queue checks stay `dispatchPrecondition`.
    @inlinable package func assertCurrent() {
        #if DEBUG
            dispatchPrecondition(condition: .onQueue(self))
        #endif
    }
}
