import Dispatch
import Foundation
import Synchronization
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

/// Each batch of replies the executor hands over, in order; checked on the I/O queue.
private final class DeliveredBatches: ReplyDelivering, @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [[RequestExecutor.Reply]] = []
    let ioQueue: DispatchQueue
    /// Set when a batch arrived off the I/O queue.
    private(set) var offQueue = false

    init(ioQueue: DispatchQueue) { self.ioQueue = ioQueue }

    func deliver(_ replies: [RequestExecutor.Reply]) {
        let onQueue = DispatchQueue.getSpecific(key: ioKey) != nil
        lock.withLock {
            if !onQueue { offQueue = true }
            batches.append(replies)
        }
    }

    var all: [[RequestExecutor.Reply]] { lock.withLock { batches } }

    /// The replies' response lines, parsed, once `count` replies arrived (or after 5 s).
    func responses(count: Int) -> [JSON] {
        _ = eventually(timeout: 5, every: 0.002) { lock.withLock { batches.joined().count } >= count }
        return lock.withLock {
            batches.joined().compactMap { $0.response.flatMap { try? JSON.parse(Array($0.dropLast())) } }
        }
    }
}

private let ioKey = DispatchSpecificKey<Bool>()

/// A number shared between queues.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func set(_ value: Int) { lock.withLock { count = value } }
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Connections made for the test live as long as the process (a suspended Dispatch source may
/// not be released).
nonisolated(unsafe) private var keptConnections: [ClientConnection] = []

/// A store, an executor on it and a fake delivery, wired as the daemon wires them.
private final class ExecutorHarness {
    let dir = TemporaryDirectory("executor")
    let store: TodoStore
    let ioQueue = DispatchQueue(label: "test.io")
    let delivered: DeliveredBatches
    let commits = Counter()
    let executor: RequestExecutor
    let readLoop: ReadLoop

    init() throws {
        store = try TodoStore(path: dir.file("todos.db"))
        ioQueue.setSpecific(key: ioKey, value: true)
        delivered = DeliveredBatches(ioQueue: ioQueue)
        let router = Router(
            status: StatusSource(
                storeID: "s", pid: 1, database: "db", started: 0, monotonic: { 0 }, databaseProblem: { nil }),
            reminders: ReminderHistory(uid: 0, storeID: "s", command: "todod"))
        executor = RequestExecutor(
            store: store, router: router, ioQueue: ioQueue, replies: delivered,
            afterCommit: { [commits] in commits.add() })
        readLoop = try ReadLoop(queue: ioQueue)
    }

    /// A connection (one end of a socket pair) that is never started: the executor only names it.
    func connection() throws -> ClientConnection {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let c = ClientConnection(
            fd: fds[0], peer: try UnixSocket.peerCredentials(fds[0]), queue: ioQueue, readLoop: readLoop,
            requests: executor, onClose: { _ in })
        keptConnections.append(c)
        return c
    }

    func submit(_ c: ClientConnection, _ id: Int64, _ method: String, _ params: JSONObject = [:]) {
        executor.submit(
            RequestExecutor.Job(
                connection: c, request: .success(RPCRequest(id: .int(id), method: method, params: params))))
    }

    /// Holds the store queue until the returned semaphore is signalled: what is submitted
    /// meanwhile waits in one pass.
    func holdStoreQueue() -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        store.queue.async {
            held.signal()
            gate.wait()
        }
        held.wait()
        return gate
    }
}

@Suite struct RequestExecutorTests {
    /// Requests submitted while the store is busy run as one group: every write of it in one
    /// transaction (one commit, one `afterCommit`), its answers handed over together, in
    /// submission order, on the I/O queue.
    @Test func writesWaitingTogetherCommitOnceAndAnswerInOrder() throws {
        let h = try ExecutorHarness()
        let a = try h.connection()
        let b = try h.connection()
        let gate = h.holdStoreQueue()
        for i in 1...20 { h.submit(i % 2 == 0 ? a : b, Int64(i), "todo.add", ["title": .string("t\(i)")]) }
        h.submit(a, 21, "todo.list")
        gate.signal()
        let responses = h.delivered.responses(count: 21)
        #expect(responses.map { $0["id"]?.intValue } == (1...21).map { Int64($0) })
        #expect(h.delivered.all.count == 1)
        #expect(h.commits.value == 1)
        #expect(!h.delivered.offQueue)
        // The read in the group sees every write before it.
        #expect(responses.last?["result"]?["total"]?.intValue == 20)
        // Each answer is the todo its own request added.
        #expect(responses[4]["result"]?["title"]?.stringValue == "t5")
        #expect(try h.store.read { try $0.counts() }.open == 20)
    }

    /// Within a group each write has its own savepoint: a failing one is answered with its error
    /// and rolls back only itself; the others commit.
    @Test func aFailingWriteRollsBackOnlyItself() throws {
        let h = try ExecutorHarness()
        let a = try h.connection()
        let gate = h.holdStoreQueue()
        h.submit(a, 1, "todo.add", ["title": "first"])
        h.submit(a, 2, "todo.update", ["id": 99, "title": "nobody"])
        h.submit(a, 3, "todo.add", ["title": ""])
        h.submit(a, 4, "todo.add", ["title": "second"])
        gate.signal()
        let responses = h.delivered.responses(count: 4)
        #expect(responses.map { $0["id"]?.intValue } == [1, 2, 3, 4])
        #expect(responses[1]["error"]?["code"]?.intValue == Int64(RPCError.notFoundCode))
        #expect(responses[2]["error"]?["code"]?.intValue == Int64(RPCError.invalidParamsCode))
        #expect(responses[3]["result"]?["title"]?.stringValue == "second")
        #expect(try h.store.read { try $0.counts() }.open == 2)
        #expect(h.commits.value == 1)
    }

    /// When the group's transaction cannot be made durable (here the database file was deleted,
    /// so the store refuses to write), every request of the group is answered with the storage
    /// error, reads included; an undecodable request keeps its own error; no event leaves and
    /// nothing is committed.
    @Test func aGroupThatCannotCommitAnswersEveryRequestWithTheError() throws {
        let h = try ExecutorHarness()
        let a = try h.connection()
        let b = try h.connection()
        _ = try h.store.write { try $0.add(NewTodo(title: "kept")) }
        let gate = h.holdStoreQueue()
        try Files.unlink(h.store.path)
        h.submit(a, 1, "todo.add", ["title": "lost"])
        h.submit(b, 2, "todo.get", ["id": 1])
        h.executor.submit(
            RequestExecutor.Job(
                connection: b, request: .failure(RPCFailure(id: .int(3), error: .invalidRequest("bad")))))
        h.submit(a, 4, "todo.complete", ["ids": [1]])
        gate.signal()
        let responses = h.delivered.responses(count: 4)
        #expect(responses.map { $0["id"]?.intValue } == [1, 2, 3, 4])
        #expect(
            responses.map { $0["error"]?["code"]?.intValue }
                == [RPCError.storageCode, RPCError.storageCode, RPCError.invalidRequestCode, RPCError.storageCode].map {
                    Int64($0)
                })
        #expect(responses[0]["error"]?["message"]?.stringValue?.contains("deleted") == true)
        #expect(h.delivered.all.joined().allSatisfy { $0.events.isEmpty && $0.subscription == nil })
        #expect(h.commits.value == 0)
    }

    /// A `store.import` runs in a pass of its own: requests before it are answered (and
    /// committed) before it runs, requests after it in the next pass.
    @Test func anImportRunsInAPassOfItsOwn() throws {
        let h = try ExecutorHarness()
        let a = try h.connection()
        let document: JSONObject = [
            "format": .string(ExportDocument.format), "version": .int(Int64(ExportDocument.version)),
            "categories": [], "todos": [["title": "imported", "created": "2026-12-01T09:00:00Z"]]
        ]
        let gate = h.holdStoreQueue()
        h.submit(a, 1, "todo.add", ["title": "before"])
        h.submit(a, 2, "store.import", document)
        h.submit(a, 3, "todo.add", ["title": "after"])
        gate.signal()
        let responses = h.delivered.responses(count: 3)
        #expect(responses.map { $0["id"]?.intValue } == [1, 2, 3])
        #expect(h.delivered.all.map(\.count) == [1, 1, 1])
        #expect(responses[1]["result"]?["todos"]?.intValue == 1)
        #expect(h.commits.value == 3)
    }

    /// A read of a client that hung up is not run (nobody would read its answer); its writes
    /// still apply.
    @Test func aHungUpClientsReadsAreSkippedItsWritesApplied() throws {
        let h = try ExecutorHarness()
        let a = try h.connection()
        let gate = h.holdStoreQueue()
        h.submit(a, 1, "todo.add", ["title": "still added"])
        h.submit(a, 2, "todo.list")
        a.hungUp.store(true, ordering: .relaxed)
        gate.signal()
        _ = h.delivered.responses(count: 2)
        let replies = Array(h.delivered.all.joined())
        #expect(replies.count == 2)
        #expect(replies[0].response != nil)
        #expect(replies[1].response == nil)
        #expect(try h.store.read { try $0.counts() }.open == 1)
    }

    /// A read on an idle executor from a connection waiting for nothing else is answered inline:
    /// before `answerInline` returns, on the calling thread. Behind queued work it is not.
    @Test func anIdleReadIsAnsweredInlineAndAQueuedOneIsNot() throws {
        let h = try ExecutorHarness()
        let a = try h.connection()
        _ = try h.store.write { try $0.add(NewTodo(title: "牛乳を買う")) }
        let get = RequestExecutor.Job(
            connection: a, request: .success(RPCRequest(id: .int(1), method: "todo.get", params: ["id": 1])))
        let reply = h.ioQueue.sync { h.executor.answerInline(get, connectionIdle: true) }
        let line = try #require(reply?.response)
        #expect(try JSON.parse(Array(line.dropLast()))["result"]?["title"]?.stringValue == "牛乳を買う")
        // Not for a write, nor for a connection waiting for another answer, nor behind queued work.
        let add = RequestExecutor.Job(
            connection: a, request: .success(RPCRequest(id: .int(2), method: "todo.add", params: ["title": "x"])))
        #expect(h.ioQueue.sync { h.executor.answerInline(add, connectionIdle: true) } == nil)
        #expect(h.ioQueue.sync { h.executor.answerInline(get, connectionIdle: false) } == nil)
        let gate = h.holdStoreQueue()
        h.submit(a, 3, "todo.add", ["title": "queued"])
        #expect(h.ioQueue.sync { h.executor.answerInline(get, connectionIdle: true) } == nil)
        gate.signal()
        #expect(h.delivered.responses(count: 1).map { $0["id"]?.intValue } == [3])
    }

    /// `barrier` runs after every job submitted before it, answers handed over included.
    @Test func theBarrierRunsAfterEverythingSubmittedBefore() throws {
        let h = try ExecutorHarness()
        let a = try h.connection()
        let gate = h.holdStoreQueue()
        for i in 1...5 { h.submit(a, Int64(i), "todo.add", ["title": "t"]) }
        let ran = DispatchSemaphore(value: 0)
        let seenAtBarrier = Counter()
        h.executor.barrier { [store = h.store] in
            seenAtBarrier.set((try? store.readOnQueue { try $0.counts() }.open) ?? -1)
            ran.signal()
        }
        gate.signal()
        #expect(ran.wait(timeout: .now() + 5) == .success)
        #expect(seenAtBarrier.value == 5)
    }
}
