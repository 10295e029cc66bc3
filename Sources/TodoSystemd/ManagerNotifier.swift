import Dispatch
import Synchronization

/// Sends a service's notifications to the service manager (`READY=1`, `STATUS=`, `WATCHDOG=1`,
/// `STOPPING=1`) from a queue of its own, through `ServiceManager.notify`. `sd_notify` blocks
/// while the manager's datagram queue is full (a manager that stopped reading it; ten datagrams
/// by default), and that must hold up no work of the service: todod's store and I/O queues,
/// where its status and watchdog beats come from, or a todod-sync account's loop. What waits
/// meanwhile goes in the order given, coalesced: a newer `STATUS=` replaces one waiting, and one
/// `WATCHDOG=1` waits at most.
package final class ManagerNotifier: Sendable {
    package init() {}

    private struct Waiting {
        var states: [String] = []
        /// Whether a drain is queued or running.
        var sending = false
    }

    private let queue = DispatchQueue(label: "todod.service-manager")
    private let waiting = Mutex(Waiting())

    /// Queues a notification such as `READY=1` or `STOPPING=1`.
    package func send(_ state: String) { post { $0.append(state) } }

    /// Queues `STATUS=text`, replacing one not sent yet.
    package func status(_ text: String) {
        post { states in
            states.removeAll { $0.hasPrefix("STATUS=") }
            states.append("STATUS=" + text)
        }
    }

    /// Queues `WATCHDOG=1`, unless one waits already.
    package func beat() { post { if !$0.contains("WATCHDOG=1") { $0.append("WATCHDOG=1") } } }

    /// Waits until what was queued before is sent, for at most `seconds` (before the process
    /// exits: `STOPPING=1` is not lost to a manager that reads, nor the exit held by one that
    /// does not).
    package func flush(seconds: Double) {
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
