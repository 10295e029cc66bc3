import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoProtocol
import TodoStore
import TodoTestSupport

@testable import TodoDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// A reminder history whose reads wait for the test: a big journal read in slow motion.
private final class SlowHistory: ReminderHistoryReading, @unchecked Sendable {
    let gate = DispatchSemaphore(value: 0)
    func list(since: Instant?, limit: Int) throws(TodoError) -> [ReminderRecord] {
        gate.wait()
        return [
            ReminderRecord(
                id: 1, uid: nil, title: nil, category: nil, due: nil, remind: nil, fired: nil, lateUsec: nil,
                allDay: false, zone: nil)
        ]
    }
}

/// The replies the executor hands over, by request id, in the order they came.
private final class Replies: ReplyDelivering, @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [(connection: ObjectIdentifier, id: Int64)] = []

    func deliver(_ replies: [RequestExecutor.Reply]) {
        let parsed = replies.compactMap { reply -> (ObjectIdentifier, Int64)? in
            guard let line = reply.response, let id = (try? JSON.parse(Array(line.dropLast())))?["id"]?.intValue else {
                return nil
            }
            return (ObjectIdentifier(reply.connection), id)
        }
        lock.withLock { ids += parsed.map { (connection: $0.0, id: $0.1) } }
    }

    func of(_ connection: ClientConnection) -> [Int64] {
        lock.withLock { ids.filter { $0.connection == ObjectIdentifier(connection) }.map(\.id) }
    }

    func wait(for connection: ClientConnection, count: Int, timeout: Double = 5) -> [Int64] {
        _ = eventually(timeout: timeout, every: 0.005) { of(connection).count >= count }
        return of(connection)
    }
}

/// Connections made for the test live as long as the process (a Dispatch source may not be
/// released before it ran).
nonisolated(unsafe) private var keptConnections: [ClientConnection] = []

@Suite struct JournalReadQueueTests {
    /// `reminder.list` reads the journal on a queue of its own: while one is slow, another
    /// client's write and read are answered, and its own connection's later requests wait for it,
    /// so that connection's answers stay in request order.
    @Test func aSlowJournalReadHoldsUpOnlyItsOwnConnection() throws {
        let dir = TemporaryDirectory("jrq")
        let store = try TodoStore(path: dir.file("todos.db"))
        let history = SlowHistory()
        let ioQueue = DispatchQueue(label: "test.io")
        let router = Router(
            status: StatusSource(
                storeID: "s", pid: 1, database: "db", started: 0, monotonic: { 0 }, databaseProblem: { nil }),
            reminders: history)
        let replies = Replies()
        let executor = RequestExecutor(store: store, router: router, ioQueue: ioQueue, replies: replies)
        let readLoop = try ReadLoop(queue: ioQueue)
        func connection() throws -> ClientConnection {
            var fds: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            let c = ClientConnection(
                fd: fds[0], peer: try UnixSocket.peerCredentials(fds[0]), queue: ioQueue, readLoop: readLoop,
                requests: executor, onClose: { _ in })
            keptConnections.append(c)
            return c
        }
        let a = try connection()
        let b = try connection()
        func submit(_ c: ClientConnection, _ id: Int64, _ method: String, _ params: JSONObject = [:]) {
            executor.submit(
                RequestExecutor.Job(
                    connection: c, request: .success(RPCRequest(id: .int(id), method: method, params: params))))
        }
        submit(a, 1, "todo.add", ["title": "before"])
        submit(a, 2, "reminder.list", ["limit": 10_000])
        submit(a, 3, "todo.add", ["title": "after"])
        submit(a, 4, "todo.get", ["id": 2])
        submit(b, 5, "todo.add", ["title": "other client"])
        submit(b, 6, "todo.list")
        // The other client is served while the journal read is under way.
        #expect(replies.wait(for: b, count: 2) == [5, 6])
        #expect(replies.of(a) == [1])
        history.gate.signal()
        #expect(replies.wait(for: a, count: 4) == [1, 2, 3, 4])
        // The other client's add ran first; what came after the list ran after it.
        #expect(try store.read { try $0.todo(2) }.title == "other client")
        #expect(try store.read { try $0.todo(3) }.title == "after")
        submit(a, 7, "reminder.list")
        history.gate.signal()
        #expect(replies.wait(for: a, count: 5) == [1, 2, 3, 4, 7])
    }
}
