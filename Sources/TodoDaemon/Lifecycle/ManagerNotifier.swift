import Dispatch
import Synchronization
import TodoSystemd

/// Sends the daemon's notifications to the service manager (`READY=1`, `STATUS=`, `WATCHDOG=1`,
/// `STOPPING=1`) from a queue of its own. `sd_notify` blocks while the manager's datagram queue
/// is full (a manager that stopped reading it; ten datagrams by default), and that must hold up
/// neither the store queue, where the status and the watchdog's beats come from, nor the I/O
/// queue. What waits meanwhile goes in the order given, coalesced: a newer `STATUS=` replaces
/// one waiting, and one `WATCHDOG=1` waits at most.
final class ManagerNotifier: Sendable {
    private struct Waiting {
        var states: [String] = []
        /// Whether a drain is queued or running.
        var sending = false
    }

    private let queue = DispatchQueue(label: "todod.notify")
    private let waiting = Mutex(Waiting())

    /// Queues a notification such as `READY=1` or `STOPPING=1`.
    func send(_ state: String) { post { $0.append(state) } }

    /// Queues `STATUS=text`, replacing one not sent yet.
    func status(_ text: String) {
        post { states in
            states.removeAll { $0.hasPrefix("STATUS=") }
            states.append("STATUS=" + text)
        }
    }

    /// Queues `WATCHDOG=1`, unless one waits already.
    func beat() { post { if !$0.contains("WATCHDOG=1") { $0.append("WATCHDOG=1") } } }

    /// Waits until what was queued before is sent, for at most `seconds` (before the process
    /// exits: `STOPPING=1` is not lost to a manager that reads, nor the exit held by one that
    /// does not).
    func flush(seconds: Double) {
        let sent = DispatchSemaphore(value: 0)
        queue.async { sent.signal() }
        _ = sent.wait(timeout: .now() + seconds)
    }

    private func post(_ change: (inout [String]) -> Void) {
        let start = waiting.withLock { w in
            change(&w.states)
            defer { w.sending = true }
            return !w.sending
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        dispatchPrecondition(condition: .onQueue(queue))
        while let next = waiting.withLock({ w -> [String]? in
            let states = w.states
            w = Waiting(sending: !states.isEmpty)
            return states.isEmpty ? nil : states
        }) {
            for state in next { ServiceManager.notify(state) }
        }
    }
}
