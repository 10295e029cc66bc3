import TodoCore
import TodoPosix
import TodoProtocol
import TodoSystemd
import TodoTime

#if canImport(Glibc)
    import Glibc
#endif

/// todod-notify: hands each reminder of one todod to the outputs the command line chose
/// (docs/NOTIFY.md), exactly once, whichever brings it first: the daemon's live `reminder`
/// events (its `watch` stream, within milliseconds of the instant) or the journal (its cursor:
/// what fired while the notifier was away).
///
/// One thread: it reads new journal entries and `watch` events, gives each reminder to
/// `--print`, `--exec` and the desktop, saves its place once the reminders of a round are out,
/// and sleeps in `poll` on the journal's, the socket's and the bus's descriptors until one has
/// something. Nothing wakes it on a timer except a pending retry.
package final class Notifier {
    private let follower: JournalFollower
    private let cursorFile: CursorFile
    private let print: Bool
    private let exec: ExecOutput?
    private var desktop: DesktopOutput?
    private var feed: DaemonFeed?
    private let log: NotifyLog
    private var cursorFailureLogged = false
    /// At most this many entries are read before they are handed on (bounded memory).
    static let batchLimit = 1000
    /// Entries read between two looks at the `watch` stream, once caught up.
    static let liveBatch = 32
    /// Reminders remembered per path to tell a second arrival from a new one: a bound on
    /// memory (about 35 MB and a cursor file of 7 MB when full), not on a burst's size.
    static let keysKept = 1 << 18

    /// The journal entries read, in order; the cursor moves past an entry once it and every one
    /// before it are settled (handed out, or stepped over).
    private var ledger = CursorLedger()
    /// Reminders the fast path brought that every output is done with and whose journal entry
    /// has not been read yet (saved in the cursor file: a restart steps over them too), with when
    /// they were handed out; kept `aheadSeconds` (an entry todod never wrote does not come).
    private var ahead = KeySet(limit: Notifier.keysKept)
    static let aheadSeconds: Int64 = 3600
    /// Reminders the fast path brought that the desktop still works on.
    private var inProgress: Set<String> = []
    /// Reminders handed out from the journal whose `watch` event has not come (it would be a
    /// repeat), with when they fired; saved in the cursor file, kept `behindSeconds`.
    private var fromJournal = KeySet(limit: Notifier.keysKept)
    static let behindSeconds: Int64 = 120
    private var savedCursor: String?
    /// The cursor file is behind what the notifier knows.
    private var stateDirty = false
    /// ... and a reminder was handed out since it was written: it is written before the next
    /// wait or round. A round that only stepped over journal entries it had handed out already
    /// leaves the file as it was until the notifier waits (the old cursor with the old keys also
    /// steps over them), so the catch-up after a burst is not one file write per 32 entries.
    private var handedOutSinceSave = false

    private init(follower: JournalFollower, cursorFile: CursorFile, print: Bool, exec: ExecOutput?, log: NotifyLog) {
        self.follower = follower
        self.cursorFile = cursorFile
        self.print = print
        self.exec = exec
        self.log = log
    }

    /// The whole program: returns the exit status (0 only for --help and --version; otherwise it
    /// runs until killed, or returns 1 when the journal cannot be read or stdout is gone).
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let log = NotifyLog(prefixPriority: environment["JOURNAL_STREAM"] != nil)
        let options: NotifyOptions
        do {
            options = try NotifyOptions.parse(arguments)
        } catch {
            log.error("\(error)")
            try? Posix.writeAll(2, Array((NotifyOptions.usage + "\n").utf8))
            return 2
        }
        if options.help {
            try? Posix.writeAll(1, Array((NotifyOptions.usage + "\n").utf8))
            return 0
        }
        if options.version {
            try? Posix.writeAll(1, Array("todod-notify \(TododVersion.string)\n".utf8))
            return 0
        }
        Posix.ignoreSIGPIPE()
        // Whatever the parent left ignored, SIGTERM, SIGINT and SIGHUP end us. While starting
        // they do at once; from the first reminder on only while we wait (and in the --exec slot
        // wait): they stay blocked while a round of reminders goes out and its place is saved,
        // so a stop never repeats one on restart. No thread runs before they are blocked (the
        // --exec watchers start later), so every thread inherits the mask.
        for signal in [SIGTERM, SIGINT, SIGHUP] { Glibc.signal(signal, SIG_DFL) }
        Self.allowTermination(true)
        let socket = SocketPaths.socket(
            flag: options.socket, system: options.system, environment: environment, uid: getuid())
        let pairing: Pairing
        do {
            pairing = try Pairing.ask(socket: socket)
        } catch {
            log.error("cannot pair with todod: \(DesktopOutput.describe(error))")
            return 69
        }
        let follower: JournalFollower
        do {
            follower = try JournalFollower(matching: pairing.matches, fields: Reminder.fields)
        } catch {
            log.error("cannot read the journal: \(error)")
            return 1
        }
        _ = follower.descriptor // watch for changes from now on, before the first read
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        let cursorFile = CursorFile(
            path: CursorFile.path(environment: environment, home: home, mode: options.mode, name: options.name))
        var state = Self.readState(cursorFile, follower: follower, log: log)
        if state == nil, options.mode == "desktop", options.name == nil {
            // The file every notifier shared before each had its own: the desktop one takes it over.
            let shared = CursorFile(path: CursorFile.sharedPath(environment: environment, home: home))
            if (try? Files.identity(shared.path)) != nil, let old = Self.readState(shared, follower: follower, log: log)
            {
                log.info("taking over the place saved in \(shared.path)")
                state = old
            }
        }
        let exec = options.exec.map {
            ExecOutput(command: $0, timeout: options.execTimeout, environment: environment, log: log)
        }
        let notifier = Notifier(follower: follower, cursorFile: cursorFile, print: options.print, exec: exec, log: log)
        let zone = ZoneInfo.named(byTZ: environment["TZ"], tzdir: environment["TZDIR"])
        if options.notify {
            let snooze = SnoozeSetting.load(environment: environment) { log.warning($0) }
            let quiet = QuietSetting.load(environment: environment) { log.warning($0) }
            notifier.desktop = DesktopOutput(socket: socket, snoozeUsec: snooze, zone: zone, quiet: quiet, log: log) {
                [unowned notifier] in
                notifier.desktopSettled($0)
            }
        }
        notifier.feed = DaemonFeed(socket: socket, storeID: pairing.storeID, log: log)
        let now = Instant.now().usec
        for key in state?.ahead ?? [] { notifier.ahead.insert(key, usec: now) }
        for key in state?.behind ?? [] { notifier.fromJournal.insert(key, usec: now) }
        do {
            let start = try follower.seek(after: state?.cursor)
            notifier.savedCursor = start
            if state?.cursor == nil { notifier.stateDirty = true }
        } catch {
            log.error("cannot read the journal: \(error)")
            return 1
        }
        notifier.saveStateIfChanged()
        let outputs = [
            options.notify ? "desktop" : nil, options.print ? "print" : nil, options.exec.map { "exec \($0[0])" }
        ].compactMap { $0 }
        log.info(
            "following the reminders of store \(pairing.storeID) (todod at \(socket)) to \(outputs.joined(separator: ", "))\(state?.cursor == nil ? "" : " from the saved cursor")"
        )
        Self.allowTermination(false)
        ServiceManager.notify("READY=1")
        return notifier.run()
    }

    /// The saved state, nil when there is none; a file that cannot be used is named in a
    /// warning and the notifier starts from the journal's tail.
    private static func readState(_ file: CursorFile, follower: JournalFollower, log: NotifyLog) -> CursorFile.State? {
        do {
            let state = try file.read()
            guard let cursor = state.cursor else { return nil }
            guard follower.isValid(cursor: cursor) else {
                log.warning(
                    "\(file.path) holds no journal cursor; starting from the journal's tail (reminders that fired meanwhile are not shown)"
                )
                return nil
            }
            return state
        } catch {
            log.warning(
                "cannot use \(file.path) (\(error.reason)); starting from the journal's tail (reminders that fired meanwhile are not shown)"
            )
            return nil
        }
    }

    private func run() -> Int32 {
        var catchingUp = true
        while true {
            // The fast path first: a `watch` event is out before the journal's copy is read.
            guard takeFeed() else { return 1 }
            var more = false
            do {
                // Once caught up, a few entries at a time, so events never wait behind a long
                // read of the journal; while catching up, the whole backlog before anything
                // goes out (it may become one summary).
                let limit = catchingUp ? Self.batchLimit : Self.liveBatch
                var read = 0
                while read < limit, let entry = try follower.next() {
                    read += 1
                    let ticket = ledger.add(entry.cursor)
                    if let reminder = Reminder(entry) {
                        guard fromTheJournal(reminder, ticket: ticket, backlog: catchingUp) else { return 1 }
                    } else {
                        ledger.settle(ticket) // no reminder: step over it
                    }
                }
                more = read >= limit
            } catch {
                log.error("cannot read the journal: \(error)")
                return 1
            }
            if more && catchingUp { continue }
            desktop?.flush()
            desktop?.process()
            desktop?.flush()
            if !more || handedOutSinceSave { saveStateIfChanged() }
            if more { continue }
            catchingUp = false
            do {
                Self.allowTermination(true)
                defer { Self.allowTermination(false) }
                try wait()
            } catch {
                log.error("cannot wait for the journal: \(error)")
                return 1
            }
        }
    }

    /// Hands on what the `watch` stream brought (connecting first when due); false when
    /// standard output is gone.
    private func takeFeed() -> Bool {
        guard let feed else { return true }
        feed.connectIfDue()
        for item in feed.read() {
            switch item {
            case .reminder(let params):
                // todod's summary of what fell due while the machine slept: each todo goes to the
                // outputs, the desktop's as one backlog (one summary notification when many).
                if params["summary"] != nil, case .array(let todos)? = params["todos"], case .object(var event) = params
                {
                    for todo in todos {
                        event["todos"] = .array([todo])
                        event["todo"] = todo
                        guard let reminder = Reminder(event: .object(event)) else { continue }
                        guard fromTheFeed(reminder, suspended: true) else { return false }
                    }
                    continue
                }
                guard let reminder = Reminder(event: params) else { continue }
                guard fromTheFeed(reminder) else { return false }
            case .changed(let type, let todos):
                for todo in todos { desktop?.withdraw(type, todo) }
            }
        }
        return true
    }

    /// A reminder read from the journal: handed out unless the fast path already did.
    private func fromTheJournal(_ reminder: Reminder, ticket: Int, backlog: Bool) -> Bool {
        let key = reminder.key
        if ahead.remove(key) {
            ledger.settle(ticket)
            stateDirty = true
            return true
        }
        if inProgress.contains(key) {
            inProgress.remove(key)
            if desktop?.attach(ticket: ticket, key: key) != true { ledger.settle(ticket) }
            return true
        }
        if reminder.journalUsec > Instant.now().usec - Self.behindSeconds * 1_000_000 {
            fromJournal.insert(key, usec: reminder.journalUsec)
            stateDirty = true
        }
        return deliver(reminder, ticket: ticket, backlog: backlog)
    }

    /// A reminder from a `watch` event: handed out unless the journal already brought it.
    private func fromTheFeed(_ reminder: Reminder, suspended: Bool = false) -> Bool {
        let key = reminder.key
        if fromJournal.remove(key) {
            stateDirty = true
            return true
        }
        if ahead.contains(key) || inProgress.contains(key) { return true }
        return deliver(reminder, ticket: nil, backlog: suspended, suspended: suspended)
    }

    /// Hands one reminder to every output; false when standard output is gone.
    private func deliver(_ reminder: Reminder, ticket: Int?, backlog: Bool, suspended: Bool = false) -> Bool {
        handedOutSinceSave = true
        if print {
            do {
                try Posix.writeAll(1, Array((reminder.printLine + "\n").utf8))
            } catch {
                log.error("cannot write to standard output: \(error.reason)")
                return false
            }
        }
        exec?.run(reminder)
        if let desktop {
            if ticket == nil { inProgress.insert(reminder.key) }
            desktop.enqueue(
                DesktopOutput.Item(reminder: reminder, ticket: ticket), backlog: backlog, suspended: suspended)
        } else if let ticket {
            ledger.settle(ticket)
        } else {
            ahead.insert(reminder.key, usec: Instant.now().usec)
            stateDirty = true
        }
        return true
    }

    /// The desktop is done with a reminder (shown, or given up).
    private func desktopSettled(_ item: DesktopOutput.Item) {
        let key = item.reminder.key
        inProgress.remove(key)
        if let ticket = item.ticket {
            ledger.settle(ticket)
        } else {
            ahead.insert(key, usec: Instant.now().usec)
            stateDirty = true
        }
        handedOutSinceSave = true
    }

    /// Unblocks (true) or blocks (false) the signals that end the notifier, in this thread.
    static func allowTermination(_ allow: Bool) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(allow ? SIG_UNBLOCK : SIG_BLOCK, &set, nil)
    }

    /// Whether a signal that ends the notifier is waiting (blocked) for this thread.
    static var terminationPending: Bool {
        var set = sigset_t()
        sigpending(&set)
        return [SIGTERM, SIGINT, SIGHUP].contains { sigismember(&set, $0) == 1 }
    }

    /// Writes the cursor file when the place or the fast path's list moved.
    private func saveStateIfChanged() {
        if let cursor = ledger.advance() {
            savedCursor = cursor
            stateDirty = true
        }
        guard stateDirty else { return }
        // An event that has not followed its journal entry within minutes will not come, nor an
        // entry its event did not precede by an hour.
        let now = Instant.now().usec
        fromJournal.forget(before: now - Self.behindSeconds * 1_000_000)
        ahead.forget(before: now - Self.aheadSeconds * 1_000_000)
        do {
            try cursorFile.write(CursorFile.State(cursor: savedCursor, ahead: ahead.keys, behind: fromJournal.keys))
            stateDirty = false
            handedOutSinceSave = false
            cursorFailureLogged = false
        } catch {
            if !cursorFailureLogged {
                log.error(
                    "cannot save the journal cursor in \(cursorFile.path): \(error.reason); a restart may repeat reminders"
                )
            }
            cursorFailureLogged = true
            stateDirty = false // tried again with the next change
            handedOutSinceSave = false
        }
    }

    /// Sleeps until the journal, the daemon's socket or the bus has something, or a retry is due.
    private func wait() throws(Journal.ReadError) {
        var fds = [pollfd(fd: follower.descriptor, events: follower.events, revents: 0)]
        if let bus = desktop?.bus { fds.append(pollfd(fd: bus.descriptor, events: bus.events, revents: 0)) }
        if let feed, feed.isConnected { fds.append(pollfd(fd: feed.descriptor, events: Int16(POLLIN), revents: 0)) }
        var timeouts = [follower.timeoutUsec, desktop?.bus?.timeoutUsec].compactMap { $0 }
        let now = Posix.monotonicSeconds()
        if let desktop, let retryAt = desktop.retryAt, desktop.hasPending {
            timeouts.append(UInt64(max(0, (retryAt - now) * 1e6)))
        }
        if let feed, !feed.isConnected, let retryAt = feed.retryAt {
            timeouts.append(UInt64(max(0, (retryAt - now) * 1e6)))
        }
        if let quietEnds = desktop?.secondsUntilQuietEnds { timeouts.append(UInt64(max(0, quietEnds) * 1e6)) }
        _ = try? EventWait.wait(&fds, timeoutUsec: timeouts.min())
        try follower.process()
    }
}

/// The journal entries read and not yet behind the saved cursor, in order.
struct CursorLedger {
    private var cursors: [String] = []
    private var settled: [Bool] = []
    /// The ticket of `cursors[0]`.
    private var base = 0
    private var head = 0

    /// Adds the next entry read; returns its ticket.
    mutating func add(_ cursor: String) -> Int {
        cursors.append(cursor)
        settled.append(false)
        return base + cursors.count - 1
    }

    mutating func settle(_ ticket: Int) {
        let i = ticket - base
        if i >= 0 && i < settled.count { settled[i] = true }
    }

    /// The cursor of the last entry of the settled prefix when it grew (those entries are
    /// dropped), else nil.
    mutating func advance() -> String? {
        var last: String?
        while head < settled.count && settled[head] {
            last = cursors[head]
            head += 1
        }
        if head > 1024 || head == settled.count {
            cursors.removeFirst(head)
            settled.removeFirst(head)
            base += head
            head = 0
        }
        return last
    }
}

/// Keys of reminders, each with the instant (µs) it stands for, in the order they were added;
/// insert, remove and lookup take constant time whatever the count. Beyond `limit` (a bound on
/// memory, far above any burst a store can fire) the oldest are forgotten; `forget(before:)`
/// drops those that stood for long enough.
struct KeySet {
    let limit: Int
    /// Each key with its place in `order` and its instant.
    private var entries: [String: (serial: Int, usec: Int64)] = [:]
    /// The keys in the order they came, with their serials; a removed key stays here until it
    /// reaches the front (its serial no longer matches `entries`).
    private var order: [(key: String, serial: Int)] = []
    private var front = 0
    private var serial = 0

    init(limit: Int) { self.limit = limit }

    var count: Int { entries.count }

    /// The keys, oldest first.
    var keys: [String] { order[front...].compactMap { isLive($0) ? $0.key : nil } }

    func contains(_ key: String) -> Bool { entries[key] != nil }

    mutating func insert(_ key: String, usec: Int64) {
        guard entries[key] == nil else { return }
        serial += 1
        entries[key] = (serial, usec)
        order.append((key, serial))
        while entries.count > limit, let oldest = popFront() { entries[oldest] = nil }
        if order.count - front > 2 * entries.count + 1024 { // mostly removed keys: keep the live ones
            order = order[front...].filter(isLive)
            front = 0
        }
    }

    @discardableResult
    mutating func remove(_ key: String) -> Bool {
        guard entries.removeValue(forKey: key) != nil else { return false }
        if entries.isEmpty { clearOrder() }
        return true
    }

    /// Forgets the keys, from the oldest on, whose instant is before `usec`; stops at the first
    /// that is not.
    mutating func forget(before usec: Int64) {
        while front < order.count {
            let first = order[front]
            if let entry = entries[first.key], entry.serial == first.serial {
                if entry.usec >= usec { break }
                entries[first.key] = nil
            }
            front += 1
        }
        compact()
    }

    private func isLive(_ item: (key: String, serial: Int)) -> Bool { entries[item.key]?.serial == item.serial }

    /// The oldest key still held, taken off the front.
    private mutating func popFront() -> String? {
        while front < order.count {
            let first = order[front]
            front += 1
            if isLive(first) {
                compact()
                return first.key
            }
        }
        return nil
    }

    private mutating func clearOrder() {
        order.removeAll(keepingCapacity: order.count < 4096)
        front = 0
    }

    /// Drops the front that was stepped over once it is most of the array.
    private mutating func compact() {
        if front == order.count {
            clearOrder()
        } else if front > 1024 && front * 2 > order.count {
            order.removeFirst(front)
            front = 0
        }
    }
}
