import Dispatch
import Foundation
import TodoPosix

/// Waits for readable sockets on a thread of its own and runs their handlers on the I/O queue.
///
/// The kernel wakes the one thread blocked in `epoll_wait` (level-triggered), and that thread runs
/// the handlers through `queue.sync` — an idle serial queue runs the block on the calling thread —
/// so a lone client's request is read, answered and written on the thread that woke. A Dispatch
/// read source instead re-arms a one-shot registration after every event and hands the event to
/// a worker thread: with every thread on one CPU, `todo.get` took 29–35 µs through Dispatch read
/// sources and 20–22 µs through this loop whenever the client paused between requests.
final class ReadLoop: @unchecked Sendable {
    // @unchecked: `handlers`, `nextToken`, `timers` and `lastToken` are touched only on `queue`
    // (the waiting thread reads them inside `queue.sync`), `ready`, `readyCount` and `timeout`
    // only by the waiting thread; `poll` (epoll) is thread-safe.
    private let queue: DispatchQueue
    private let poll: ReadinessPoll
    @exclusivity(unchecked) private var handlers: [UInt64: () -> Void] = [:]
    @exclusivity(unchecked) private var nextToken: UInt64 = 1
    /// Work for later (`after`), soonest last: run by the waiting thread when its wait times out.
    @exclusivity(unchecked) private var timers: [(deadline: Double, handler: () -> Void)] = []
    /// The one token whose handler runs after the others of its batch (`watch(last:)`).
    @exclusivity(unchecked) private var lastToken: UInt64 = 0

    /// Starts the waiting thread. It runs for the life of the process.
    init(queue: DispatchQueue) throws(PosixError) {
        self.queue = queue
        poll = try ReadinessPoll()
        let thread = Thread { [unowned self] in self.run() }
        thread.name = "todod-read"
        thread.start()
    }

    /// Calls `handler` on the queue whenever `fd` is readable or hung up, until `forget` is
    /// called with the returned token. Call on the queue.
    /// With `last`, the handler runs after the others that are ready at the same time (for the
    /// listener: connections that hung up free their descriptors before new ones are accepted).
    func watch(_ fd: Int32, last: Bool = false, handler: @escaping () -> Void) throws(PosixError) -> UInt64 {
        dispatchPrecondition(condition: .onQueue(queue))
        let token = nextToken
        nextToken += 1
        try poll.add(fd, token: token)
        handlers[token] = handler
        if last { lastToken = token }
        return token
    }

    /// Stops watching; the handler is not called again, even for a readiness already reported.
    /// Call on the queue, before closing the descriptor.
    func forget(_ token: UInt64, fd: Int32) {
        dispatchPrecondition(condition: .onQueue(queue))
        poll.remove(fd)
        handlers[token] = nil
    }

    /// Calls `handler` on the queue once, `milliseconds` from now. It needs no descriptor of its
    /// own (the waiting thread's `epoll_wait` times out), so it works when the process is out of
    /// descriptors and a Dispatch timer could not be made. Call on the queue. Called from a
    /// handler, it runs on time (the thread that waits next sees the deadline); called otherwise,
    /// it may wait until the next readiness event.
    func after(milliseconds: Int, _ handler: @escaping () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        let deadline = Posix.monotonicSeconds() + Double(milliseconds) / 1000
        timers.append((deadline, handler))
        timers.sort { $0.deadline > $1.deadline }
    }

    /// The batch of ready tokens the waiting thread hands to `runBatch`, and its timeout for the
    /// next wait. Touched only by that thread (`runBatch` runs on it, inside `queue.sync`).
    @exclusivity(unchecked) private var ready = [UInt64](repeating: 0, count: ReadinessPoll.batch)
    @exclusivity(unchecked) private var readyCount = 0
    @exclusivity(unchecked) private var timeout: Int32 = -1
    /// One work item for every batch: `queue.sync` with a closure makes a block of it each time
    /// (an allocation and a block copy, about 400 instructions), with a work item it does not.
    private lazy var runBatch = DispatchWorkItem { [unowned self] in self.handleBatch() }

    private func run() -> Never {
        let batch = runBatch
        while true {
            readyCount = poll.wait(into: &ready, timeoutMilliseconds: timeout)
            queue.sync(execute: batch)
        }
    }

    /// Runs the handlers of the ready tokens, then the timers that are due; on the queue.
    private func handleBatch() {
        // Looked up one by one: a handler may forget another connection's token.
        var deferred = false
        for token in ready[0..<readyCount] {
            if token == lastToken { deferred = true } else { handlers[token]?() }
        }
        if deferred { handlers[lastToken]?() }
        let now = Posix.monotonicSeconds()
        while let last = timers.last, last.deadline <= now {
            timers.removeLast()
            last.handler()
        }
        timeout = timers.last.map { Int32(max(1, ($0.deadline - now) * 1000 + 1)) } ?? -1
    }
}
