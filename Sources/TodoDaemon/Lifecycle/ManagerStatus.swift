import Dispatch
import TodoCore
import TodoStore
import TodoSystemd
import TodoTime

/// Keeps systemd's STATUS= line current: the open and done counts and the next reminder
/// (`systemctl status todod` shows it). Runs on the store queue; sends only when the text changed.
final class ManagerStatus: @unchecked Sendable {
    // @unchecked: `last` is touched only on the store queue, where every `update` is called.
    private let store: TodoStore
    private let notifier: ManagerNotifier
    private let enabled: Bool
    private let timeZone: @Sendable () -> ZoneInfo
    private var last = ""

    init(store: TodoStore, notifier: ManagerNotifier, enabled: Bool, timeZone: @escaping @Sendable () -> ZoneInfo) {
        self.store = store
        self.notifier = notifier
        self.enabled = enabled
        self.timeZone = timeZone
    }

    func update() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        guard enabled,
            let text = try? store.readOnQueue({ tx in
                ManagerStatus.text(counts: try tx.counts(), next: try tx.nextPendingReminder(), timeZone: timeZone())
            }), text != last
        else { return }
        last = text
        notifier.status(text)
    }

    /// "3 open, 1 done; next reminder 2026-12-01 09:00 +09:00" (or "no reminder pending").
    static func text(counts: (open: Int, done: Int), next: Instant?, timeZone: ZoneInfo) -> String {
        let reminder =
            next.map { "next reminder " + LocalTime($0, in: timeZone).textWithOffset } ?? "no reminder pending"
        return "\(counts.open) open, \(counts.done) done; \(reminder)"
    }
}
