/// The open connections, on the I/O queue: hands each reply to its connection, fans `watch`
/// events out to the subscribers, and answers for all of them at shutdown.
///
/// The server adds every connection it accepts; a connection leaves when it closes. The executor
/// delivers replies here and the reminder scheduler publishes fired reminders here, so neither
/// needs the server.
final class ConnectionRegistry: ReplyDelivering, @unchecked Sendable {
    // @unchecked: `connections` is touched only on the I/O queue (every method is called there).
    private var connections: [ObjectIdentifier: ClientConnection] = [:]

    init() {}

    func add(_ connection: ClientConnection) {
        connections[ObjectIdentifier(connection)] = connection
    }

    func remove(_ connection: ClientConnection) {
        connections[ObjectIdentifier(connection)] = nil
    }

    /// Hands each reply to its connection, registers new subscribers, and fans events out to them.
    func deliver(_ replies: [RequestExecutor.Reply]) {
        for reply in replies {
            if let subscription = reply.subscription { reply.connection.subscription = subscription }
            reply.connection.answered(reply.response)
            for event in reply.events { publish(event) }
        }
    }

    /// Sends an event to every subscriber that asked for its type.
    func publish(_ event: Event) {
        let type = event.type
        var line: [UInt8]?
        for connection in connections.values {
            guard connection.subscription.includes(type) else { continue }
            let bytes = line ?? event.line  // made once, for the first subscriber
            line = bytes
            connection.send(line: bytes)
        }
    }

    /// Stops reading from every connection (shutdown); answers already queued still go out.
    func stopReading() {
        for connection in connections.values { connection.stopReading() }
    }

    /// Whether every connection has written all its output.
    var allFlushed: Bool { connections.values.allSatisfy(\.isFlushed) }
}
