import Foundation
import Synchronization
import TodoCore
import TodoPosix
import TodoProtocol
import TodoStore

/// Runs requests on the store queue with group commit.
///
/// Requests submitted while the store is busy wait in `pending`; the next pass takes them all.
/// A pass that contains a write runs every request of the pass in one transaction, each in its own
/// savepoint (a failing request rolls back only itself), and commits once — one fsync for the
/// whole group. Answers and events leave only after the commit, in submission order, so every
/// acknowledged change is durable and every connection sees its answers in request order.
///
/// `reminder.list` reads the journal, not the store: it runs on `journalQueue`, so a long read
/// never delays other requests or due reminders. To keep each connection's answers in order, a
/// connection's requests that come after its `reminder.list` are held in `parked` until that
/// answer is handed over, then go back to `pending`.
///
/// A read that arrives while nothing is queued is answered inline (`handle`): on the I/O thread,
/// through `store.queue.sync`, with no thread hop.
final class RequestExecutor: RequestHandling, @unchecked Sendable {
    // @unchecked: `pending`, `scheduled` and `parked` are guarded by `lock`; the rest is immutable.
    // (`Job`, `Reply` and `Router` hold no shared mutable state of their own; a job's connection
    // is touched only as `ClientConnection` allows.)

    /// One decoded (or undecodable) request from a connection.
    struct Job {
        let connection: ClientConnection
        let request: Result<RPCRequest, RPCFailure>
    }

    /// What a job produced, delivered on the I/O queue.
    struct Reply {
        let connection: ClientConnection
        /// The response line to send (newline included), or nil for a notification.
        let response: [UInt8]?
        /// The request failed (its response is an error).
        let failed: Bool
        /// What else a write or a `watch` hands over; nil for a plain answer (a read's), so the
        /// reply every read makes holds two references and is released by plain code (with four
        /// more fields, releasing one went through the runtime's generic value functions, some
        /// 400 instructions a request).
        private let effects: Effects?

        private final class Effects: Sendable {
            let events: [Event]
            let subscription: Subscription?
            let seq: Int64?
            let replay: ReplayOutput?

            init(events: [Event], subscription: Subscription?, seq: Int64?, replay: ReplayOutput?) {
                self.events = events
                self.subscription = subscription
                self.seq = seq
                self.replay = replay
            }
        }

        init(
            connection: ClientConnection, response: [UInt8]?, events: [Event], subscription: Subscription?,
            seq: Int64? = nil, replay: ReplayOutput? = nil, failed: Bool = false
        ) {
            self.connection = connection
            self.response = response
            self.failed = failed
            effects =
                events.isEmpty && subscription == nil && seq == nil && replay == nil
                ? nil : Effects(events: events, subscription: subscription, seq: seq, replay: replay)
        }

        var events: [Event] { effects?.events ?? [] }
        var subscription: Subscription? { effects?.subscription }
        /// The seq of the change `events` belong to (nil for none).
        var seq: Int64? { effects?.seq }
        /// For a `watch` with `since`: the replayed event lines, sent after the response.
        var replay: ReplayOutput? { effects?.replay }
    }

    /// Why a pass's transaction did not commit.
    private enum PassFailure: TodoErrorConvertible {
        /// The transaction could not begin or commit.
        case store(TodoError)
        /// The one request of a pass of its own failed: the whole transaction rolled back.
        case requestFailed
        /// The undo or redo running on its own thread failed with this answer: it rolled back.
        case answered(Reply)

        init(_ error: TodoError) { self = .store(error) }
    }

    private let store: TodoStore
    private let router: Router
    private let ioQueue: DispatchQueue
    /// Where replies go, always called on the I/O queue.
    private let delivery: any ReplyDelivering
    /// Called on the store queue after each commit of a pass with a write.
    private let afterCommit: @Sendable () -> Void

    private let lock = Mutex(())
    private var pending: [Job] = []
    private var scheduled = false
    /// Requests held behind their connection's `reminder.list`, in order, by connection.
    private var parked: [ObjectIdentifier: [Job]] = [:]
    /// Where `reminder.list` reads the journal.
    private let journalQueue = DispatchQueue(label: "todod.journal-read")
    /// Where a `store.undo` or `store.redo` runs (`runDetached`), the store queue free meanwhile.
    private let longWriteQueue = DispatchQueue(label: "todod.long-write")
    /// The connection whose undo or redo runs on `longWriteQueue`, if one does: until it ends,
    /// reads are answered (from the state before it) and everything else waits in `pending`.
    private var detached: ObjectIdentifier?

    /// `replies` gets every reply on `ioQueue`; `afterCommit` runs on the store queue after each
    /// commit (the daemon re-arms the reminder timer and updates its status line there).
    init(
        store: TodoStore, router: Router, ioQueue: DispatchQueue, replies: any ReplyDelivering,
        afterCommit: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.router = router
        self.ioQueue = ioQueue
        self.delivery = replies
        self.afterCommit = afterCommit
    }

    /// Takes one request of `connection`, on the I/O queue: answers it inline when it can
    /// (`answerInline`), else queues it for the store queue (`submit`).
    func handle(_ request: consuming Result<RPCRequest, RPCFailure>, from connection: ClientConnection) {
        ioQueue.assertCurrent()
        let job = Job(connection: connection, request: request)
        if let reply = answerInline(job, connectionIdle: connection.waitingAnswers == 1) {
            delivery.deliver(reply)
        } else {
            submit(job)
        }
    }

    /// Hands `replies` over on the I/O queue.
    private func deliver(_ replies: [Reply]) {
        ioQueue.async { [delivery] in delivery.deliver(replies) }
    }

    /// Queues a job for the store queue; called on the I/O queue.
    func submit(_ job: Job) {
        let schedule: Bool = lock.withLock { _ in
            if parked[ObjectIdentifier(job.connection)] != nil {
                parked[ObjectIdentifier(job.connection)]!.append(job)
                return false
            }
            pending.append(job)
            defer { scheduled = true }
            return !scheduled
        }
        if schedule { store.queue.async { self.drain() } }
    }

    /// Takes the jobs of one pass (`passLength`), leaving the rest pending. A connection's jobs
    /// after its first `reminder.list` are parked (and so are its later submissions, pending or
    /// new) until that list's answer is handed over.
    private func takePending() -> (jobs: [Job], journalReads: [Job], more: Bool) {
        lock.withLock { _ in
            if let detached { return (takeReadsWhileDetached(detached), [], false) }
            let count = Self.passLength(pending)
            var taken = Array(pending[..<count])
            pending.removeFirst(count)
            var journalReads: [Job] = []
            if taken.contains(where: { Self.readsJournal($0) }) {
                var jobs: [Job] = []
                for job in taken {
                    let id = ObjectIdentifier(job.connection)
                    if parked[id] != nil {
                        parked[id]!.append(job)
                    } else if Self.readsJournal(job) {
                        parked[id] = []
                        journalReads.append(job)
                    } else {
                        jobs.append(job)
                    }
                }
                taken = jobs
                pending = pending.filter { job in
                    let id = ObjectIdentifier(job.connection)
                    guard parked[id] != nil else { return true }
                    parked[id]!.append(job)
                    return false
                }
            }
            scheduled = !pending.isEmpty
            return (taken, journalReads, scheduled)
        }
    }

    /// While an undo or redo runs on its own thread: takes the pending reads of the store, leaving
    /// writes, long requests, journal reads and every later job of their connections (and of the
    /// connection undoing) in `pending`, in order, until it ends. Called under `lock`.
    private func takeReadsWhileDetached(_ undoing: ObjectIdentifier) -> [Job] {
        var taken: [Job] = []
        var held: [Job] = []
        var holding: Set<ObjectIdentifier> = [undoing]
        for job in pending {
            let id = ObjectIdentifier(job.connection)
            if holding.contains(id) || parked[id] != nil || !Self.readsStoreOnly(job) {
                holding.insert(id)
                held.append(job)
            } else {
                taken.append(job)
            }
        }
        pending = held
        scheduled = false // the held jobs are scheduled again when the undo or redo ends
        return taken
    }

    /// Whether `job` only reads the store (or is answered with an error without touching it).
    private static func readsStoreOnly(_ job: Job) -> Bool {
        guard case .success(let request) = job.request, let method = request.known else { return true }
        return method.kind == .read && !method.readsJournal && !isLong(job)
    }

    private static func readsJournal(_ job: Job) -> Bool {
        if case .success(let request) = job.request { return request.known?.readsJournal == true }
        return false
    }

    /// Answers a `reminder.list` on the journal queue, then lets its connection's held requests go on.
    private func readJournal(_ job: Job) {
        journalQueue.async { [self] in
            dispatchPrecondition(condition: .onQueue(journalQueue))
            guard case .success(let request) = job.request else { return }
            var response: [UInt8]?
            if !job.connection.hungUp.load(ordering: .relaxed) {
                do throws(RPCError) {
                    let outcome = try router.listReminders(request)
                    response = request.id.map {
                        RPCMessage.resultLine(id: $0, encodedResult: outcome.encodedResult ?? [])
                    }
                } catch {
                    response = request.id.map { RPCMessage.line(RPCMessage.error(id: $0, error)) }
                }
            }
            deliver([Reply(connection: job.connection, response: response, events: [], subscription: nil)])
            let schedule: Bool = lock.withLock { _ in
                pending.append(contentsOf: parked.removeValue(forKey: ObjectIdentifier(job.connection)) ?? [])
                guard !pending.isEmpty, !scheduled else { return false }
                scheduled = true
                return true
            }
            if schedule { store.queue.async { self.drain() } }
        }
    }

    /// Answers a read at once, on the calling (I/O) thread, when nothing is queued or running
    /// and the connection waits for no other answer: `DispatchQueue.sync` on an idle queue runs
    /// the block on the calling thread, so a lone client's read costs no thread hop. Returns nil
    /// when the job must take the normal, ordered path through `submit`.
    ///
    /// A `todo.list` answered here is streamed (`ResponseStream`): its first todos leave while the
    /// rest are read.
    func answerInline(_ job: Job, connectionIdle: Bool) -> Reply? {
        ioQueue.assertCurrent()
        guard connectionIdle, case .success(let request) = job.request, request.known != .watch,
            request.known?.kind == .read, request.known?.readsJournal != true,
            lock.withLock({ _ in !scheduled })
        else { return nil }
        let stream =
            request.known == .todoList ? request.id.map { ResponseStream(connection: job.connection, id: $0) } : nil
        var reply: Reply?
        store.queue.sync { // a block returning nothing: `sync<T>` would look up `Reply?`'s metadata on every call
            do {
                reply = try store.readOnQueue { (tx) throws(TodoError) in run(job, tx, savepoint: false, stream: stream)
                }
            } catch {
                // The store is closed. Unless part of a streamed answer is out, the request takes
                // the normal path and gets its error there.
                guard let stream, stream.started else { return }
                stream.abandon()
                reply = Reply(connection: job.connection, response: nil, events: [], subscription: nil)
            }
        }
        return reply.take() // moved out of the closure's box, not copied (its release is the runtime's generic code)
    }

    /// Runs `body` on the store queue after every job submitted so far (journal reads, and the
    /// requests held behind them, included).
    func barrier(_ body: @escaping @Sendable () -> Void) {
        store.queue.async { [self] in
            journalQueue.async { [self] in store.queue.async(execute: body) }
        }
    }

    /// How many of `jobs` (the first included) one pass takes: all of them, except that a
    /// `store.import`, `store.undo` or `store.redo` runs in a pass of its own. Each may be long
    /// work (an import's last part, the undo of a large import): requests of other clients
    /// queued before it are answered first, those after it wait for that one request, not for
    /// everything pipelined with it, and the store queue's timers (the watchdog, reminders) run
    /// between such passes.
    private static func passLength(_ jobs: [Job]) -> Int {
        guard let i = jobs.firstIndex(where: isLong) else { return jobs.count }
        return max(i, 1)
    }

    /// Whether `job` runs in a pass of its own (`passLength`).
    private static func isLong(_ job: Job) -> Bool {
        guard case .success(let request) = job.request else { return false }
        return request.known == .storeImport || request.known == .storeUndo || request.known == .storeRedo
    }

    private func drain() {
        dispatchPrecondition(condition: .onQueue(store.queue))
        let (jobs, journalReads, more) = takePending()
        defer {
            for job in journalReads { readJournal(job) } // after this pass's answers
            if more { store.queue.async { self.drain() } } // the rest waits behind what the queue holds
        }
        guard !jobs.isEmpty else { return }
        let writes = jobs.contains { job in
            if case .success(let r) = job.request { return r.known?.kind == .write }
            return false
        }
        var replies: [Reply] = []
        replies.reserveCapacity(jobs.count)
        // A long request alone in its pass needs no savepoint of its own: the transaction is its
        // own, and rolls back whole when it fails. Inside a savepoint every statement that keeps
        // a statement journal cuts the savepoint's in-memory journal back when it ends, walking
        // it from its start: with the pages of a large undo in it, that cost grew with every row.
        let own = jobs.count == 1 && Self.isLong(jobs[0])
        if own, case .success(let request) = jobs[0].request,
            request.known == .storeUndo || request.known == .storeRedo,
            reversesManyRows(request)
        {
            return runDetached(jobs[0])
        }
        do throws(PassFailure) {
            if writes {
                try store.writeOnQueue { (tx) throws(PassFailure) in
                    for job in jobs {
                        let reply = run(job, tx, savepoint: !own)
                        replies.append(reply)
                        if own && reply.failed { throw PassFailure.requestFailed }
                    }
                }
                afterCommit()
            } else {
                try store.readOnQueue { (tx) throws(PassFailure) in
                    for job in jobs { replies.append(run(job, tx, savepoint: false)) }
                }
            }
        } catch {
            // A request of its own that failed: nothing of it was written; its answer goes as it is.
            guard case .store(let error) = error else { return deliver(replies) }
            // The transaction could not begin or commit: nothing of it is durable, so every
            // request of the pass is answered with the storage error and no event leaves.
            let failure = RPCError(error)
            replies = jobs.map { job in
                switch job.request {
                case .success(let request):
                    return Reply(
                        connection: job.connection,
                        response: request.id.map { RPCMessage.line(RPCMessage.error(id: $0, failure)) },
                        events: [], subscription: nil)
                case .failure(let undecodable): // keeps its own error
                    return Reply(
                        connection: job.connection,
                        response: RPCMessage.line(RPCMessage.error(id: undecodable.id, undecodable.error)),
                        events: [], subscription: nil)
                }
            }
        }
        deliver(replies)
    }

    /// Rows from which an undo or redo runs off the store queue (`runDetached`). Reopening the
    /// file for it costs about 20 ms, so a short one (an edit, a move) runs on the store queue
    /// like any write; one that would hold it longer than that leaves it free.
    static let detachedReversalRows = 2_000

    /// Whether `request` (a `store.undo` or `store.redo`) reverses `detachedReversalRows` or more.
    private func reversesManyRows(_ request: RPCRequest) -> Bool {
        let redo = request.known == .storeRedo
        let steps =
            (redo
                ? (try? StoreRedoParams(decoding: request.params))?.steps
                : (try? StoreUndoParams(decoding: request.params))?.steps) ?? 1
        let rows = try? store.readOnQueue { (tx) throws(TodoError) in try tx.reversalRows(redo: redo, steps: steps) }
        return (rows ?? Self.detachedReversalRows) >= Self.detachedReversalRows
    }

    /// Runs a `store.undo` or `store.redo` as one transaction on `longWriteQueue`
    /// (`TodoStore.writeDetached`): the store queue stays free, reads of other clients are
    /// answered meanwhile from the state before it, and the watchdog's timer and reminders go on.
    /// Writes and everything after a held job of the same connection wait in `pending` until it
    /// ends; then its answer and events leave, as after any commit, and the held jobs run.
    private func runDetached(_ job: Job) {
        lock.withLock { _ in detached = ObjectIdentifier(job.connection) }
        store.writeDetached(
            on: longWriteQueue,
            { [self] (tx) throws(PassFailure) -> Reply in
                let reply = run(job, tx, savepoint: false)
                if reply.failed { throw PassFailure.answered(reply) }
                return reply
            },
            done: { [self] result in
                var reply: Reply
                switch result {
                case .success(let done):
                    afterCommit()
                    reply = done
                case .failure(.answered(let failed)):
                    reply = failed
                case .failure(.store(let error)):
                    reply = Reply(
                        connection: job.connection, response: nil, events: [], subscription: nil, failed: true)
                    if case .success(let request) = job.request, let id = request.id {
                        reply = Reply(
                            connection: job.connection,
                            response: RPCMessage.line(RPCMessage.error(id: id, RPCError(error))),
                            events: [], subscription: nil, failed: true)
                    }
                case .failure(.requestFailed):
                    reply = Reply(
                        connection: job.connection, response: nil, events: [], subscription: nil, failed: true)
                }
                deliver([reply])
                let schedule: Bool = lock.withLock { _ in
                    detached = nil
                    guard !pending.isEmpty, !scheduled else { return false }
                    scheduled = true
                    return true
                }
                if schedule { store.queue.async { self.drain() } }
            })
    }

    private func run(_ job: Job, _ tx: StoreTransaction, savepoint: Bool, stream: ResponseStream? = nil) -> Reply {
        switch job.request {
        case .failure(let failure):
            return Reply(
                connection: job.connection, response: RPCMessage.line(RPCMessage.error(id: failure.id, failure.error)),
                events: [], subscription: nil)
        case .success(let request):
            // Nobody is left to read the answer of a read: skip the work (writes still apply).
            if request.known?.kind == .read, job.connection.hungUp.load(ordering: .relaxed) {
                return Reply(connection: job.connection, response: nil, events: [], subscription: nil)
            }
            do throws(RPCError) {
                // Only a `store.import` in parts holds anything between requests.
                let imports = request.known == .storeImport
                var held = imports ? job.connection.heldImport : nil
                defer { if imports { job.connection.heldImport = held } }
                var outcome =
                    try savepoint && request.known?.kind == .write
                    ? tx.savepoint { () throws(RPCError) in try router.perform(request, in: tx, heldImport: &held) }
                    : router.perform(request, in: tx, heldImport: &held, stream: stream)
                // Taken out of the outcome, the result's buffer is the answer's only owner: its
                // line is made in it.
                guard let encoded = outcome.encodedResult.take() else { // it went out through the stream
                    stream?.finish()
                    return Reply(
                        connection: job.connection, response: nil, events: outcome.events,
                        subscription: outcome.subscription,
                        seq: outcome.seq, replay: outcome.replay)
                }
                let response: [UInt8]? =
                    if let id = request.id { RPCMessage.resultLine(id: id, encodedResult: encoded) } else { nil }
                return Reply(
                    connection: job.connection, response: response, events: outcome.events,
                    subscription: outcome.subscription, seq: outcome.seq, replay: outcome.replay)
            } catch {
                if let stream, stream.started {
                    stream.abandon()
                    return Reply(connection: job.connection, response: nil, events: [], subscription: nil)
                }
                return Reply(
                    connection: job.connection,
                    response: request.id.map { RPCMessage.line(RPCMessage.error(id: $0, error)) }, events: [],
                    subscription: nil, failed: true)
            }
        }
    }
}

/// Takes the executor's replies, on the I/O queue (the `ConnectionRegistry`).
protocol ReplyDelivering: AnyObject, Sendable {
    /// Hands each reply to its connection, in order, and publishes its events.
    func deliver(_ replies: [RequestExecutor.Reply])
    /// The same for one reply, without an array to hold it (an inline answer).
    func deliver(_ reply: RequestExecutor.Reply)
}

extension ReplyDelivering {
    func deliver(_ reply: RequestExecutor.Reply) { deliver([reply]) }
}
