import Dispatch
import TodoPosix

/// The open connections, on the I/O queue: hands each reply to its connection, fans `watch`
/// events out to the subscribers, and answers for all of them at shutdown.
///
/// The server adds every connection it accepts; a connection leaves when it closes. The executor
/// delivers replies here and the reminder scheduler publishes fired reminders here, so neither
/// needs the server.
final class ConnectionRegistry: ReplyDelivering, @unchecked Sendable {
    // @unchecked: `connections` is touched only on the I/O queue (every method is called there).
    private var connections: [ObjectIdentifier: ClientConnection] = [:]
    /// The seq of the newest change whose events went out: a `reminder` event carries it.
    private var latestSeq: Int64
    /// What runs once every connection has written all its output (`whenFlushed`).
    private var flushed: (() -> Void)?

    /// The I/O queue, the one every method must be called on.
    private let queue: DispatchQueue

    /// `seq`: the store's newest change when the daemon starts; `queue`: the I/O queue.
    init(seq: Int64 = 0, queue: DispatchQueue) {
        latestSeq = seq
        self.queue = queue
    }

    func add(_ connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        connections[ObjectIdentifier(connection)] = connection
    }

    func remove(_ connection: ClientConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        connections[ObjectIdentifier(connection)] = nil
        drained()
    }

    /// Runs `body` once every connection has written all its output: now, or when the last
    /// connection whose output waited for its peer has written it or closed (shutdown waits so
    /// for the answers already queued, without looking every few milliseconds).
    func whenFlushed(_ body: @escaping () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        flushed = body
        drained()
    }

    /// A connection's waiting output was written, or a connection left.
    func drained() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let body = flushed, allFlushed else { return }
        flushed = nil
        body()
    }

    /// Hands each reply to its connection, registers new subscribers, and fans events out to them.
    ///
    /// A `watch` with `since` is subscribed here, then answered, then sent its replay (the events
    /// of the changes up to the seq the store was at when it ran); only later replies' events —
    /// of later changes — reach it live. Replies arrive here in the order the store queue made
    /// them, so the switch from replay to live loses and repeats nothing.
    func deliver(_ replies: [RequestExecutor.Reply]) {
        for reply in replies { deliver(reply) }
    }

    func deliver(_ reply: RequestExecutor.Reply) {
        queue.assertCurrent()
        if let subscription = reply.subscription { reply.connection.subscription = subscription }
        reply.connection.answered(reply.response)
        if let replay = reply.replay { reply.connection.sendReplay(replay) }
        for event in reply.events { publish(event, seq: reply.seq) }
        if let seq = reply.seq { latestSeq = max(latestSeq, seq) }
    }

    /// Sends a fired reminder to its subscribers with the seq of the newest change sent before
    /// it: a reminder is no change, and a client that resumes after that seq misses none.
    func publishReminder(_ reminder: FiredReminder) {
        publish(.reminder(reminder), seq: latestSeq)
    }

    /// One `reminder` event for what fell due while the machine was suspended.
    func publishReminderSummary(_ reminders: [FiredReminder]) {
        publish(.reminderSummary(reminders), seq: latestSeq)
    }

    /// Sends an event to every subscriber that asked for its type; `seq` is the change's.
    func publish(_ event: Event, seq: Int64?) {
        queue.assertCurrent()
        let type = event.type
        var line: [UInt8]?
        for connection in connections.values {
            guard connection.subscription.includes(type) else { continue }
            let bytes = line ?? event.line(seq: seq) // made once, for the first subscriber
            line = bytes
            connection.send(line: bytes)
        }
    }

    /// Stops reading from every connection (shutdown); answers already queued still go out.
    func stopReading() {
        dispatchPrecondition(condition: .onQueue(queue))
        for connection in connections.values { connection.stopReading() }
    }

    /// Whether every connection has written all its output.
    var allFlushed: Bool { connections.values.allSatisfy(\.isFlushed) }
}
