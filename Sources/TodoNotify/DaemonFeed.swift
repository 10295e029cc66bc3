import TodoCore
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's `watch` stream, read without blocking on the notifier's one thread: `reminder`
/// events the moment todod fires them (the fast path; the journal stays the record of what
/// fired while the notifier was away), and the changes that withdraw a notification (a todo
/// completed, snoozed, rescheduled or deleted by any client).
///
/// It pipelines `daemon.status` (the store must still be the paired one) and `watch` on one
/// connection. Lost (todod stopped or restarted), it reconnects with a backoff (0.1 s doubling
/// to 5 s) and resumes with `since` the last `seq` it saw, so the changes made meanwhile are
/// replayed and nothing is missed; a `since` the log no longer reaches starts afresh.
final class DaemonFeed {
    /// What the stream brought.
    enum Item {
        /// A `reminder` event's `params`.
        case reminder(JSON)
        /// A change to todos: its event type and the todos as the change left them.
        case changed(type: String, todos: [Todo])
    }

    static let eventTypes = ["reminder", "todo.completed", "todo.updated", "todo.deleted", "todo.reopened"]
    /// One event may list every todo of a large change (an undone import): lines up to 64 MiB.
    static let maxLineLength = 64 << 20
    static let firstBackoff = 0.1
    static let maxBackoff = 5.0

    private let socket: String
    private let storeID: String
    private let log: NotifyLog
    private(set) var descriptor: Int32 = -1
    private var framer = LineFramer()
    /// The newest seq an event carried: where a new subscription resumes.
    private var lastSeq: Int64?
    /// The id of the `watch` request in flight, and whether it asked with `since`.
    private var watchID: Int64 = 0
    private var watchHadSince = false
    private var nextID: Int64 = 1
    /// When to connect again (monotonic seconds); nil while connected.
    private(set) var retryAt: Double? = 0
    private var backoff = DaemonFeed.firstBackoff
    private var lostLogged = false
    /// Another store answers at the socket: the fast path is off for good (the journal still works).
    private var wrongStore = false

    init(socket: String, storeID: String, log: NotifyLog) {
        self.socket = socket
        self.storeID = storeID
        self.log = log
    }

    deinit { if descriptor >= 0 { Posix.close(descriptor) } }

    var isConnected: Bool { descriptor >= 0 }

    /// Connects and subscribes when the retry is due; false while not connected.
    @discardableResult
    func connectIfDue() -> Bool {
        if descriptor >= 0 { return true }
        guard !wrongStore, let retryAt, Posix.monotonicSeconds() >= retryAt else { return false }
        let fd: Int32
        do {
            fd = try UnixSocket.connect(path: socket, timeout: 2)
            let peer = try UnixSocket.peerCredentials(fd)
            guard peer.uid == getuid() || peer.uid == 0 else {
                Posix.close(fd)
                lost("\(socket) belongs to uid \(peer.uid), not to us")
                return false
            }
            let status = RPCRequest(id: .int(nextID), method: Method.daemonStatus.name)
            var params = WatchParams(events: Set(Self.eventTypes.compactMap(EventType.init(rawValue:))), since: lastSeq)
                .encoded
            if lastSeq == nil { params["since"] = nil }
            let watch = RPCRequest(id: .int(nextID + 1), method: WatchParams.method.name, params: params)
            watchID = nextID + 1
            watchHadSince = lastSeq != nil
            nextID += 2
            var bytes: [UInt8] = []
            status.json.write(to: &bytes)
            bytes.append(0x0A)
            watch.json.write(to: &bytes)
            bytes.append(0x0A)
            try Posix.sendAll(fd, bytes)
            try Posix.setNonBlocking(fd)
        } catch {
            lost("cannot reach todod at \(socket): \(error.reason)")
            return false
        }
        descriptor = fd
        framer = LineFramer(maxLineLength: Self.maxLineLength)
        self.retryAt = nil
        return true
    }

    /// Reads what arrived; an empty list when nothing did. On end of stream or an error the
    /// connection is closed and a reconnect scheduled.
    func read() -> [Item] {
        guard descriptor >= 0 else { return [] }
        var items: [Item] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n: Int?
            do {
                n = try Posix.read(descriptor, into: &chunk)
            } catch {
                close("lost the connection to todod (\(error.reason))")
                return items
            }
            guard let n else { break }
            guard n > 0 else {
                close("todod closed the connection")
                return items
            }
            framer.append(chunk[0..<n])
            while let frame = framer.next() {
                guard case .line(let line) = frame else {
                    // Not asked for again: the next subscription starts from now.
                    lastSeq = nil
                    close("todod sent an event over \(Self.maxLineLength >> 20) MiB")
                    return items
                }
                guard let message = try? JSON.parse(line) else { continue }
                if !take(message, into: &items) { return items }
            }
        }
        return items
    }

    /// One message: an event, or the answer to `daemon.status` or `watch`. False when the
    /// connection was closed because of it.
    private func take(_ message: JSON, into items: inout [Item]) -> Bool {
        switch try? DaemonMessage(message) {
        case .event(let params)?:
            let event = WatchEvent(params: params)
            if let seq = event.seq { lastSeq = max(lastSeq ?? seq, seq) }
            guard let kind = event.kind else { return true }
            if kind == .known(.reminder) {
                items.append(.reminder(params))
            } else {
                items.append(.changed(type: kind.name, todos: event.todos))
            }
            return true
        case .response(let id, .failure(let error))?:
            if id == watchID, watchHadSince,
                error.code == RPCError.historyGoneCode || error.code == RPCError.invalidParamsCode
            {
                // The log no longer reaches back (or the store is another one): start from now.
                log.warning(
                    "todod cannot replay the changes since seq \(lastSeq ?? 0) (\(error.message)); following from now")
                lastSeq = nil
                close(nil)
                retryAt = 0
                return false
            }
            close("todod refused \(id == watchID ? "watch" : "daemon.status"): \(error.message)")
            return false
        case .response(let id, .success(let result))?:
            if id == watchID - 1, let store = (try? DaemonStatus(wire: result))?.storeID, store != storeID {
                log.error(
                    "todod at \(socket) now serves store \(store), not \(storeID); reminders come from the journal only"
                )
                wrongStore = true
                close(nil)
                return false
            }
            if id == watchID, (try? WatchAnswer(wire: result))?.subscribed == true {
                if lostLogged { log.info("following todod's changes again") }
                lostLogged = false
                backoff = Self.firstBackoff
            }
            return true
        case .unreadableRequest(let error)?:
            close("todod could not read a request: \(error.message)")
            return false
        case .other?, nil:
            return true
        }
    }

    private func close(_ reason: String?) {
        if descriptor >= 0 { Posix.close(descriptor) }
        descriptor = -1
        if let reason { lost(reason) }
    }

    /// Schedules the next try; logs once per outage.
    private func lost(_ reason: String) {
        if !lostLogged {
            log.warning("\(reason); reconnecting (reminders still come from the journal)")
            lostLogged = true
        }
        retryAt = Posix.monotonicSeconds() + backoff
        backoff = min(backoff * 2, Self.maxBackoff)
    }
}
