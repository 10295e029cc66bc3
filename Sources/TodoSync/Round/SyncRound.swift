import TodoCalDAV
import TodoCore
import TodoPosix
import TodoRPC
import TodoUserFiles

/// What one round did, for `--once`'s summary line and the status file.
package struct RoundReport: Sendable, Equatable {
    /// Resources written to (or deleted from) the server; with lists, calendars renamed or made there too.
    package var sent = 0
    /// Todos added, changed or deleted in the store; with lists, categories renamed for their calendar too.
    package var received = 0
    package var conflicts: [SyncStatus.Conflict] = []
    /// Todos still to be merged again (a 412 or a todo changed during the round, past the passes).
    package var pending = 0
    /// Todos in step with the calendar.
    package var items = 0
    /// Resources the round could not read (a malformed VTODO), with why; they are left alone.
    package var skipped: [String] = []
    /// Everything that does not sync after the round (named in `sync status` until fixed).
    package var problems: [SyncProblem] = []
    /// The store's id, and its newest change when the round ended.
    package var storeID: String?
    package var storeSeq: Int64?
    /// The round used up its time limit with writes left: they are `pending`, and the next round
    /// goes on with them.
    package var unfinished = false

    package init() {}

    /// `home: 3 sent, 2 received, 1 conflict`.
    package func summary(account: String) -> String {
        var s =
            "\(account): \(sent) sent, \(received) received, \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")"
        if pending > 0 { s += ", \(pending) pending" }
        if unfinished { s += " (the round's time ran out; the next round goes on)" }
        if !problems.isEmpty { s += ", \(problems.count) not syncing (todoctl sync status names them)" }
        return s
    }
}

/// One account's sync round over one calendar collection (docs/SYNC.md): the store's changes
/// since the last round and the calendar's since its sync token are merged per todo against the
/// last synced version. Each pass is three steps, each a type of its own handed values: `SyncGather`
/// reads both sides into a `SyncGather.Gathered`, the pure `SyncPlanner` decides, and `SyncApply`
/// carries the decisions out: the store gets what changed for it in one conditional
/// `store.import`, the server gets conditional PUTs and DELETEs. What a pass leaves the next
/// (resources it created, moves to send again) is a `Handover`. A pass that meets a concurrent
/// change (an import found the todo changed, a 412) is followed by another, at most
/// `Options.maxPasses`.
package struct SyncRound {
    /// How a round runs and whom it tells, all given at construction.
    package struct Options {
        /// Passes at most in one round.
        package var maxPasses: Int
        /// Resources per `fetch` (calendar-multiget).
        package var fetchBatch: Int
        /// The most seconds a round's requests may take together: a server that answers slowly
        /// enough never holds a round (and its account's local pushes) longer.
        package var timeLimit: Double
        /// How the first round of this state treats a store and a calendar that both hold todos
        /// (`sync add --initial`): `merge` (nil), `remote` (the calendar wins: what only the store
        /// has is removed there) or `local` (the store wins: what only the calendar has is deleted
        /// on the server, and the store's order is the server's).
        package var initial: String?
        /// The clock conflicts and new resources' names are made with.
        package var now: () -> Instant
        /// Verbose progress lines.
        package var log: (String) -> Void
        /// Called for each conflict as it is resolved (the daemon logs it to the journal).
        package var onConflict: (SyncStatus.Conflict) -> Void

        package init(
            maxPasses: Int = 4, fetchBatch: Int = 200, timeLimit: Double = SyncAccount.defaultRoundLimit,
            initial: String? = nil,
            now: @escaping () -> Instant = { Instant.now() }, log: @escaping (String) -> Void = { _ in },
            onConflict: @escaping (SyncStatus.Conflict) -> Void = { _ in }
        ) {
            self.maxPasses = maxPasses
            self.fetchBatch = fetchBatch
            self.timeLimit = timeLimit
            self.initial = initial
            self.now = now
            self.log = log
            self.onConflict = onConflict
        }
    }

    package let account: String
    let collection: any CalendarCollection
    let store: LocalStore
    let state: SyncState
    let codec: VTodoCodec
    let options: Options

    package init(
        account: String, collection: any CalendarCollection, store: LocalStore, state: SyncState, codec: VTodoCodec,
        options: Options = Options()
    ) {
        self.account = account
        self.collection = collection
        self.store = store
        self.state = state
        self.codec = codec
        self.options = options
    }

    /// Runs passes until nothing is left to merge again (or `maxPasses`), within `timeLimit`.
    package func run() throws(SyncError) -> RoundReport {
        let deadline = Posix.monotonicSeconds() + options.timeLimit
        let round = RoundContext(
            account: account, collection: collection, store: store, state: state, codec: codec, options: options,
            deadline: deadline)
        collection.setDeadline(deadline)
        defer { collection.setDeadline(nil) }
        var report = RoundReport()
        let status = try store.status()
        if state.storeID != status.storeID || state.calendar != collection.url {
            // The state of another store (or calendar) is never applied here: it is set aside and
            // the two sides are matched by UID from full listings. Only a state that never synced
            // takes the account's --initial mode; a state of another store merges.
            let first = state.storeID == nil
            if !first {
                round.log(
                    "\(account): the sync state belongs to another store or calendar; resyncing by UID from full listings"
                )
            }
            let initial = options.initial
            try round.wrap { () throws(TodoError) in
                try state.reset(calendar: collection.url, storeID: status.storeID)
                try state.setMeta("initial", first ? (initial == "merge" ? nil : initial) : nil)
            }
        }
        report.storeID = status.storeID
        var handover = Handover()
        var left: Set<String> = []
        for index in 0..<options.maxPasses {
            let (again, next, notWritten) = try pass(round, index: index, handover, &report)
            (handover, left) = (next, notWritten)
            guard again else { break }
            // Another pass is due, but the time is up: what it would merge again is pending.
            if round.timeIsUp {
                report.unfinished = true
                break
            }
        }
        if state.meta("initial") != nil { try round.wrap { () throws(TodoError) in try state.setMeta("initial", nil) } }
        report.problems = try round.wrap { () throws(TodoError) in try state.problems() }
        report.pending = try round.pendingCount(report.problems, left: left)
        if !left.isEmpty { report.unfinished = true }
        report.items = state.count
        report.storeSeq = try store.status().seq
        return report
    }

    /// One pass: gather, plan, apply. Returns whether another should follow, what it hands the
    /// next, and the todos it had no time to write (a pass that left any is the last).
    func pass(_ round: RoundContext, index: Int, _ handover: Handover, _ report: inout RoundReport) throws(SyncError)
        -> (again: Bool, handover: Handover, left: Set<String>)
    {
        let gathered = try SyncGather(round: round, handover: handover, firstPass: index == 0).gather(&report)
        let decided = SyncPlanner.plan(gathered.input)
        var apply = SyncApply(round: round, gathered: gathered)
        var again = try apply.run(decided, &report)
        var next = Handover(created: apply.created, tokenAfterCreating: nil, movesToResend: apply.movesToResend)
        if !apply.left.isEmpty { return (false, next, apply.left) }
        try round.wrap { () throws(TodoError) in
            try state.setSeq(gathered.seq)
            // Saved only once no resource this pass created is waiting for the next pass's check.
            try state.setToken(next.created.isEmpty ? gathered.token : nil)
        }
        next.tokenAfterCreating = next.created.isEmpty ? nil : gathered.token
        if gathered.token != nil && !next.created.isEmpty { again = true }
        return (again, next, [])
    }
}

/// What one pass hands the next.
struct Handover {
    /// The resources the pass created after the token it read; the next pass's delta must list
    /// them (`SyncGather.remoteChanges`).
    var created: Set<String> = []
    /// The token the next pass reads from while `created` is not empty. The state holds none
    /// meanwhile: a round cut off before that pass (the process stopped, the network gone)
    /// leaves the next one a full listing, which finds what was deleted in between.
    var tokenAfterCreating: String?
    /// Todos moved here (or renumbered) whose update met a 412, or placed here for the first
    /// time: the next pass merges them again as moved, though the store's changes no longer say so.
    var movesToResend: Set<String> = []
}

/// What every step of one round works with, made once a round: the two sides, the state, the
/// codec, the options and when the round's time ends.
struct RoundContext: RoundStep {
    let account: String
    let collection: any CalendarCollection
    let store: LocalStore
    let state: SyncState
    let codec: VTodoCodec
    let options: SyncRound.Options
    /// When (monotonic seconds) this round's time ends: no write starts after it.
    let deadline: Double

    var round: RoundContext { self }

    /// How long before the deadline the round's time is up: the HTTP client's timer counts whole
    /// milliseconds from a start taken a little after the time left was given it, so the request
    /// the deadline cuts off can end a millisecond or two before it (and a write started that
    /// late could not finish anyway).
    static let deadlineSlack = 0.05

    /// The local changes not on the server: every refusal, every todo to merge again or `left`
    /// for the next round, and the todos waiting on a resource todod cannot read whose store copy
    /// differs from the last synced one.
    func pendingCount(_ problems: [SyncProblem], left: Set<String>) throws(SyncError) -> Int {
        var uids = Set(try wrap { () throws(TodoError) in try state.refetching() }.map(\.uid)).union(left)
        uids.formUnion(problems.filter { $0.kind == .refused }.compactMap(\.uid))
        let waiting = Set(problems.filter { $0.kind != .refused }.compactMap(\.uid)).subtracting(uids)
        if !waiting.isEmpty {
            let todos = Dictionary(try store.allTodos().map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
            for uid in waiting {
                guard let base = try wrap({ () throws(TodoError) in try state.item(uid: uid) }), !base.base.isEmpty,
                    let baseItem = codec.base(base.base)
                else { continue }
                guard let todo = todos[uid] else {
                    uids.insert(uid)
                    continue
                }
                let local = codec.canonical(SyncItem(todo: todo, kept: baseItem.entry.ical).ordered(baseItem.sortOrder))
                if !ThreeWayMerge.sameContent(local, baseItem) { uids.insert(uid) }
            }
        }
        return uids.count
    }
}

/// A step of a round (gathering, applying): reaches the round's sides and helpers through its
/// context.
protocol RoundStep {
    var round: RoundContext { get }
}

extension RoundStep {
    var account: String { round.account }
    var collection: any CalendarCollection { round.collection }
    var store: LocalStore { round.store }
    var state: SyncState { round.state }
    var codec: VTodoCodec { round.codec }
    var options: SyncRound.Options { round.options }
    var log: (String) -> Void { round.options.log }

    /// Whether the round's time is up: from `deadlineSlack` before the deadline, when no write
    /// starts any more and a timeout is the deadline's.
    var timeIsUp: Bool { Posix.monotonicSeconds() >= round.deadline - RoundContext.deadlineSlack }

    /// The collection's path, which the server's hrefs start with.
    var collectionPath: String {
        let path = HTTPURL(collection.url)?.path ?? collection.url
        return path.hasSuffix("/") ? path : path + "/"
    }

    func save(_ item: SyncedItem) throws(SyncError) {
        try wrap { () throws(TodoError) in try state.save(item) }
    }

    func wrap<T>(_ body: () throws(TodoError) -> T) throws(SyncError) -> T {
        do { return try body() } catch { throw SyncError("sync state \(state.path): \(error.message)") }
    }

    func calDAV<T>(_ body: () throws(CalDAVError) -> T) throws(SyncError) -> T {
        do { return try body() } catch { throw roundError(error) }
    }

    /// A server's failure as the round's: a request cut off because the round's time ran out
    /// says so (the server answers; it is the round that is long).
    func roundError(_ error: CalDAVError) -> SyncError {
        if case .timeout = error, timeIsUp {
            return .outOfTime(seconds: Int(options.timeLimit.rounded()))
        }
        return SyncError(error.message)
    }
}

extension SyncItem {
    func ordered(_ order: Int64?) -> SyncItem {
        var copy = self
        copy.sortOrder = order
        return copy
    }
}
