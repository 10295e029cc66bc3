import TodoCalDAV
import TodoCore
import TodoPosix
import TodoUserFiles

/// What one round did, for `--once`'s summary line and the status file.
package struct RoundReport: Sendable, Equatable {
    /// Resources written to (or deleted from) the server.
    package var sent = 0
    /// Todos added, changed or deleted in the store.
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

    package init() {}

    /// `home: 3 sent, 2 received, 1 conflict`.
    package func summary(account: String) -> String {
        var s = "\(account): \(sent) sent, \(received) received, \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")"
        if pending > 0 { s += ", \(pending) pending" }
        if !problems.isEmpty { s += ", \(problems.count) not syncing (todoctl sync status names them)" }
        return s
    }
}

/// One account's sync round (SPEC §9, docs/SYNC.md): the store's changes since the last round
/// and the calendar's since its sync token are merged per todo against the last synced version;
/// the store gets what changed for it in one conditional `store.import`, the server gets
/// conditional PUTs and DELETEs. A pass that meets a concurrent change (an import found the todo
/// changed, a 412) is followed by another pass, at most `maxPasses`.
package final class SyncRound {
    package let account: String
    let collection: CalendarCollection
    let store: LocalStore
    let state: SyncState
    let codec: VTodoCodec
    package var maxPasses = 4
    /// Resources per `fetch` (calendar-multiget).
    package var fetchBatch = 200
    package var now: () -> Instant = { Instant.now() }
    /// Called for each conflict as it is resolved (the daemon logs it to the journal).
    package var onConflict: (SyncStatus.Conflict) -> Void = { _ in }
    /// Verbose progress lines.
    package var log: (String) -> Void = { _ in }
    /// Runs just before the store's import (tests change a todo there).
    var beforeApply: () -> Void = {}
    /// The resources this round created after the token of its last pass; a pass that created
    /// any is followed by another, whose delta must list them (`remoteChanges`).
    var createdSinceToken: Set<String> = []
    /// The token the next pass reads from while `createdSinceToken` is not empty. The state holds
    /// none meanwhile: a round cut off before that pass (the process stopped, the network gone)
    /// leaves the next one a full listing, which finds what was deleted in between.
    var tokenAfterCreating: String?
    /// Todos moved here (or renumbered) whose update met a 412: the next pass, which merges them
    /// again, places them again as moved, though the store's changes no longer say so.
    var movesToResend: Set<String> = []
    /// Whether this round has tried again the local changes the server refused before (once a
    /// round, in its first pass).
    var triedRefused = false
    /// How the first round of this state treats a store and a calendar that both hold todos
    /// (`sync add --initial`): `merge` (nil), `remote` (the calendar wins: what only the store
    /// has is removed there) or `local` (the store wins: what only the calendar has is deleted
    /// on the server).
    package var initial: String?
    /// The mode of this pass: set only in a first round whose both sides hold todos.
    var initialMode: String?

    package init(account: String, collection: CalendarCollection, store: LocalStore, state: SyncState, codec: VTodoCodec) {
        self.account = account
        self.collection = collection
        self.store = store
        self.state = state
        self.codec = codec
    }

    /// The most seconds a round's requests may take together: a server that answers slowly
    /// enough never holds a round (and its account's local pushes) longer.
    package var timeLimit = 600.0

    /// Runs passes until nothing is left to merge again (or `maxPasses`), within `timeLimit`.
    package func run() throws(SyncError) -> RoundReport {
        collection.setDeadline(Posix.monotonicSeconds() + timeLimit)
        defer { collection.setDeadline(nil) }
        var report = RoundReport()
        let status = try store.status()
        if state.storeID != status.storeID || state.calendar != collection.url {
            // The state of another store (or calendar) is never applied here: it is set aside and
            // the two sides are matched by UID from full listings. Only a state that never synced
            // takes the account's --initial mode; a state of another store merges.
            let first = state.storeID == nil
            if !first { log("\(account): the sync state belongs to another store or calendar; resyncing by UID from full listings") }
            try wrap { () throws(TodoError) in
                try state.reset(calendar: collection.url, storeID: status.storeID)
                try state.setMeta("initial", first ? (initial == "merge" ? nil : initial) : nil)
            }
        }
        report.storeID = status.storeID
        for _ in 0..<maxPasses {
            guard try pass(&report) else { break }
        }
        if state.meta("initial") != nil { try wrap { () throws(TodoError) in try state.setMeta("initial", nil) } }
        report.problems = try wrap { () throws(TodoError) in try state.problems() }
        report.pending = try pendingCount(report.problems)
        report.items = state.count
        report.storeSeq = try store.status().seq
        return report
    }

    // MARK: - One pass

    /// The remote side of one todo in this pass.
    enum Remote {
        /// Not among the server's changes: as the base says.
        case unchanged
        /// Not on the server (never was, or gone).
        case absent
        case present(href: String, etag: String, item: SyncItem, bytes: [UInt8])
    }

    /// The local side: the todo now (nil: not in the store) and whether it moved in the order.
    struct Local {
        var todo: Todo?
        var moved: Bool
        /// The lines an iCalendar import kept of the todo in the store (`.some(nil)`: none); nil
        /// when not read this pass (the base's are the store's then: every round writes both).
        var ical: String?? = nil
    }

    /// One pass; true when another should follow.
    func pass(_ report: inout RoundReport) throws(SyncError) -> Bool {
        var again = false
        // The store's side.
        var locals: [String: Local] = [:]
        var listed: [String: Todo]?
        var listedKept: [String: String] = [:]
        /// Every todo by uid (and the lines iCalendar kept of them), read from the store at most
        /// once a pass, when first needed.
        func listing() throws(SyncError) -> [String: Todo] {
            if let listed { return listed }
            let all = Dictionary(try store.allTodos().map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
            listedKept = try store.keptLines()
            listed = all
            return all
        }
        let newSeq: Int64
        if let seq = state.seq, let changes = try store.changes(since: seq) {
            for c in changes.todos {
                // A move this sync made itself (a remote reorder) is not a move made here.
                var moved = c.kind == "move"
                if moved, let t = c.todo, try wrap({ () throws(TodoError) in try state.isOwnMove(uid: c.uid, updated: t.updated) }) { moved = false }
                locals[c.uid] = Local(todo: c.todo, moved: moved, ical: .some(c.ical))
            }
            newSeq = changes.seq
        } else {
            newSeq = try store.status().seq
            let all = try listing()
            for t in all.values { locals[t.uid] = Local(todo: t, moved: false, ical: .some(listedKept[t.uid])) }
            for (_, known) in try wrap({ () throws(TodoError) in try state.versions() }) where all[known.uid] == nil {
                locals[known.uid] = Local(todo: nil, moved: false)
            }
        }
        for uid in movesToResend {
            let todo = locals[uid] != nil ? locals[uid]?.todo : try listing()[uid]
            if let todo {
                var local = locals[uid] ?? Local(todo: todo, moved: true, ical: .some(listedKept[uid]))
                (local.todo, local.moved) = (todo, true)
                locals[uid] = local
            }
        }
        movesToResend = []

        // The server's side.
        var (remotes, token, skipped) = try remoteChanges()
        report.skipped += skipped

        // A first round with todos on both sides: the account's --initial mode (read whole on
        // both sides, with no base yet).
        initialMode = nil
        if let mode = state.meta("initial"), state.count == 0, !locals.isEmpty,
           remotes.values.contains(where: { if case .present = $0 { return true } else { return false } }) {
            initialMode = mode
            log("\(account): first round with todos on both sides: --initial \(mode)")
        }

        // Todos fetched again (a 412, a creation not confirmed, a stale import) are merged again.
        var uids = Set(locals.keys).union(remotes.keys)
        for item in try wrap({ () throws(TodoError) in try state.refetching() }) { uids.insert(item.uid) }
        // Local changes the server refused before are tried again, once a round.
        let problems = try wrap { () throws(TodoError) in try state.problems() }
        if !triedRefused {
            triedRefused = true
            for p in problems where p.kind == .refused { if let uid = p.uid { uids.insert(uid) } }
        }
        // A todo whose resource on the server cannot be read (or is refused here) waits, with
        // its local changes, until the server has another version of it: nothing overwrites
        // or deletes what todod could not read.
        let blocked = Set(problems.filter { $0.kind != .refused }.compactMap(\.uid)).filter { uid in
            if case .present? = remotes[uid] { return false }
            return true
        }
        uids.subtract(blocked)
        // Todos the server changed that the store's changes do not name: read the store whole.
        if listed == nil, uids.contains(where: { locals[$0] == nil }) { _ = try listing() }

        let copies = try foldRecurringCopies(&remotes) { uid in locals[uid].map(\.todo) ?? listed?[uid] }
        for uid in copies.keys { uids.remove(uid) }

        // Todos moved here get sort orders between their new neighbours' (or a renumbering).
        var placed: [String: Int64] = [:]
        let moved = Set(locals.filter { $0.value.moved && $0.value.todo?.position != nil }.keys)
        if !moved.isEmpty {
            var known = try wrap { () throws(TodoError) in try state.sortOrders() }
            for (uid, remote) in remotes { if case .present(_, _, let item, _) = remote { known[uid] = item.sortOrder } }
            let open = try listing().values.filter { $0.position != nil }.sorted { $0.position! < $1.position! }.map(\.uid)
            placed = Self.place(moved: moved, open: open, known: known)
            for uid in placed.keys where copies[uid] == nil { uids.insert(uid) }
        }

        var plans: [Plan] = []
        for uid in uids.sorted() {
            let local = locals[uid] ?? Local(todo: listed?[uid], moved: false, ical: listed == nil ? nil : .some(listedKept[uid]))
            let base = try wrap { () throws(TodoError) in try state.item(uid: uid) }
            var remote = remotes[uid] ?? .unchanged
            if case .unchanged = remote, let base, base.refetch {
                remote = .absent  // refetched and not found
            }
            if let plan = plan(uid: uid, base: base, local: local, remote: remote, placed: placed[uid]) {
                plans.append(plan)
            } else if problems.contains(where: { $0.kind == .refused && $0.uid == uid }) {
                try wrap { () throws(TodoError) in try state.clearRefused(uid: uid) }  // nothing left to send
            }
        }

        // The store first, in one request: a todo changed meanwhile is skipped (stale), merged
        // again next pass, and nothing of it goes to the server now.
        // New todos from the server go to the end of the manual order, in their X-APPLE-SORT-ORDER.
        let entries = plans.enumerated().compactMap { i, p in p.localWrite.map { (i, $0, p.order) } }
            .sorted { a, b in
                switch (a.2, b.2) {
                case let (x?, y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.0 < b.0
                }
            }.map(\.1)
        if !entries.isEmpty { beforeApply() }
        let (stale, rejected) = try applyInParts(entries)
        report.received += entries.count - entries.filter { stale.contains($0.uid ?? "") || rejected[$0.uid ?? ""] != nil }.count
        // A todo todod's rules refuse stays out, named, and nothing of it is written anywhere.
        if !rejected.isEmpty {
            for plan in plans {
                guard let reason = rejected[plan.uid] else { continue }
                var href = plan.base?.href ?? "", etag = ""
                if case .present(let h, let e, _, _) = plan.remote { (href, etag) = (h, e) }
                let title = plan.localWrite.map { Self.shortTitle($0.title) } ?? href
                log("\(account): \(href) is not taken: \(reason)")
                try wrap { () throws(TodoError) in
                    try state.record(SyncProblem(kind: .rejected, uid: plan.uid, href: href, etag: etag, title: title, reason: "todod refuses it: \(reason)"))
                }
            }
            plans.removeAll { rejected[$0.uid] != nil }
        }
        // Then the server's reorders; a todo changed here meanwhile is not moved, but merged again.
        let unmoved = try applyRemoteOrder(plans, stale: stale, &report)
        for var plan in plans {
            if plan.localWrite != nil && stale.contains(plan.uid) || unmoved.contains(plan.uid) {
                again = true
                if let base = plan.base {
                    try wrap { () throws(TodoError) in try state.markRefetch(uid: base.uid) }
                } else if case .present(let href, let etag, _, _) = plan.remote {
                    // Never synced: remember where it is, without a base.
                    try save(SyncedItem(uid: plan.uid, href: href, etag: etag, base: [], refetch: true))
                }
                if let copy = copies.first(where: { $0.value.original == plan.uid }) {
                    try save(SyncedItem(uid: copy.key, href: copy.value.href, etag: copy.value.etag, base: [], refetch: true))
                }
                continue
            }
            if let conflict = plan.conflict {
                report.conflicts.append(conflict)
                onConflict(conflict)
            }
            if plan.completeAfter, let id = plan.localID {
                // The server completed a recurring todo: complete it here so it advances, and send
                // the advanced one.
                if let advanced = try store.complete(id: id), case .update(let href, let etag, let merged)? = plan.remoteWrite {
                    let item = codec.canonical(SyncItem(todo: advanced, kept: merged.entry.ical).ordered(merged.sortOrder))
                    plan.remoteWrite = .update(href: href, etag: etag, item: item)
                }
            }
            let retry = try write(plan, &report)
            if retry { again = true }
            if let copy = copies.first(where: { $0.value.original == plan.uid }) {
                try settle(copy: copy.key, copy.value, advanced: plan.completeAfter && !retry, &report)
            }
        }
        try wrap { () throws(TodoError) in
            try state.setSeq(newSeq)
            // Saved only once no resource this pass created is waiting for the next pass's check.
            try state.setToken(createdSinceToken.isEmpty ? token : nil)
        }
        tokenAfterCreating = createdSinceToken.isEmpty ? nil : token
        return again || (token != nil && !createdSinceToken.isEmpty)
    }

    // MARK: - Server changes

    /// What the server changed since the token (everything when there is none), fetched and read:
    /// by uid. Also the next token and the resources that could not be read.
    func remoteChanges() throws(SyncError) -> (remotes: [String: Remote], token: String?, skipped: [String]) {
        let known = try wrap { () throws(TodoError) in try state.versions() }
        var changed: [RemoteVersion] = []
        var removed: [String] = []
        var token: String?
        var full = false
        do throws(CalDAVError) {
            let delta: CollectionDelta
            do throws(CalDAVError) {
                let since = tokenAfterCreating ?? state.token
                delta = try collection.changes(since: since)
                full = since == nil
            } catch .tokenInvalid {
                log("\(account): the server forgot the sync token; reading the calendar whole")
                delta = try collection.changes(since: nil)
                full = true
            }
            changed = delta.changed
            removed = delta.removed
            token = delta.token
        } catch .unsupported {
            // No sync tokens: compare every resource's ETag with the stored ones.
            changed = try calDAV { () throws(CalDAVError) in try collection.versions() }
            full = true
        } catch {
            throw SyncError(error.message)
        }
        if full {
            let present = Set(changed.map(\.href))
            removed += known.keys.filter { !present.contains($0) }
            for p in try wrap({ () throws(TodoError) in try state.problems() }) where p.kind != .refused && !present.contains(p.href) {
                try wrap { () throws(TodoError) in try state.clearRemoteProblems(href: p.href) }
            }
        } else {
            // A resource this round created after the token and deleted since is in no state a
            // server's token names, so a server that compares states (xandikos) does not report
            // it removed: one the delta does not list is gone.
            let listed = Set(changed.map(\.href)).union(removed)
            removed += createdSinceToken.filter { !listed.contains($0) }
        }
        createdSinceToken = []
        tokenAfterCreating = nil
        // Our own writes come back with the ETag we stored: nothing to fetch; nor does a resource
        // known not to sync whose ETag has not changed.
        var unchangedProblems: [String: String] = [:]
        for p in try wrap({ () throws(TodoError) in try state.problems() }) where p.kind != .refused && !p.etag.isEmpty { unchangedProblems[p.href] = p.etag }
        var hrefs = changed.filter { known[$0.href]?.etag != $0.etag && unchangedProblems[$0.href] != $0.etag }.map(\.href)
        let gone = Set(removed)
        // A second copy of a todo (named, not synced) is read again once anything is removed:
        // it may be the only copy now.
        if !gone.isEmpty {
            for p in try wrap({ () throws(TodoError) in try state.problems() }) where p.kind == .rejected && p.uid == nil && !gone.contains(p.href) {
                hrefs.append(p.href)
            }
        }
        let refetch = try wrap { () throws(TodoError) in try state.refetching() }
        hrefs += refetch.map(\.href)
        var seen = Set<String>()
        hrefs = hrefs.filter { seen.insert($0).inserted }

        var remotes: [String: Remote] = [:]
        var skipped: [String] = []
        var start = 0
        while start < hrefs.count {
            let batch = Array(hrefs[start..<min(start + fetchBatch, hrefs.count)])
            start += batch.count
            for object in try calDAV({ () throws(CalDAVError) in try collection.fetch(batch) }) {
                let read = object.tooLarge ? .failure(SyncError("it is larger than todod reads (1 MiB)")) : codec.item(object.data)
                switch read {
                case .failure(let error):
                    skipped.append("\(object.href): \(error.message)")
                    log("\(account): cannot read \(object.href): \(error.message)")
                    try wrap { () throws(TodoError) in
                        try state.record(SyncProblem(kind: .unreadable, uid: known[object.href]?.uid, href: object.href, etag: object.etag,
                                                     title: object.href, reason: "cannot be read: \(error.message)"))
                    }
                case .success(let item):
                    try wrap { () throws(TodoError) in try state.clearRemoteProblems(href: object.href) }
                    guard let uid = item.entry.uid else { continue }
                    // A second resource with the UID of one the state knows, still there (a
                    // permissive server): left alone and named, so the todo never flips between them.
                    func duplicate(_ href: String, _ etag: String, of kept: String) throws(SyncError) {
                        try wrap { () throws(TodoError) in
                            try state.record(SyncProblem(kind: .rejected, uid: nil, href: href, etag: etag, title: Self.shortTitle(item.entry.title),
                                                         reason: "holds the UID of \(kept) too; todod syncs that one"))
                        }
                    }
                    if let base = try wrap({ () throws(TodoError) in try state.item(uid: uid) }), base.href != object.href,
                       !base.etag.isEmpty, !gone.contains(base.href) {
                        try duplicate(object.href, object.etag, of: base.href)
                        continue
                    }
                    // The same UID twice in this listing: the resource the state knows is kept
                    // (else the first), the other named.
                    if case .present(let href, let etag, _, _)? = remotes[uid], href != object.href {
                        if known[href]?.uid == uid || known[object.href]?.uid != uid {
                            try duplicate(object.href, object.etag, of: href)
                            continue
                        }
                        try duplicate(href, etag, of: object.href)
                    }
                    remotes[uid] = .present(href: object.href, etag: object.etag, item: item, bytes: object.data)
                }
            }
        }
        for href in removed {
            try wrap { () throws(TodoError) in try state.clearRemoteProblems(href: href) }
            guard let uid = known[href]?.uid else { continue }
            if remotes[uid] == nil { remotes[uid] = .absent }
        }
        return (remotes, token, skipped)
    }

    // MARK: - todoman's recurring completion

    /// A copy a peer made of a recurring todo when it completed it: its resource, and the uid
    /// of the todo it copies.
    struct RecurringCopy {
        var original: String
        var href: String
        var etag: String
    }

    /// todoman (4.x) completes a recurring todo by marking it COMPLETED, dropping its RRULE, and
    /// saving a copy with a new UID, the same SUMMARY, CREATED and RRULE and the next due date.
    /// Here a recurring todo stays one todo that advances: a completed original that lost the
    /// RRULE its base had, still recurring and open in the store, gets that RRULE back (the plan
    /// then completes it here, so it advances, and sends it back), and its copy, new to both
    /// sides, is taken out of the round, to be deleted from the server once the original is sent
    /// (`settle`). By copy uid.
    func foldRecurringCopies(_ remotes: inout [String: Remote], local: (String) -> Todo??) throws(SyncError) -> [String: RecurringCopy] {
        var copies: [String: RecurringCopy] = [:]
        for uid in remotes.keys.sorted() {
            guard case .present(let href, let etag, var item, let bytes)? = remotes[uid], item.entry.done, item.entry.recurrence == nil,
                  let base = try wrap({ () throws(TodoError) in try state.item(uid: uid) }), !base.base.isEmpty,
                  let baseItem = try? codec.item(base.base).get(), let rule = baseItem.entry.recurrence, !baseItem.entry.done,
                  let todo = local(uid) ?? nil, !todo.done, todo.recurrence != nil else { continue }
            var found: (uid: String, href: String, etag: String)?
            for cuid in remotes.keys.sorted() where cuid != uid && copies[cuid] == nil {
                guard case .present(let chref, let cetag, let c, _)? = remotes[cuid], !c.entry.done,
                      c.entry.recurrence?.rule == rule.rule, c.entry.title == item.entry.title, c.entry.created == item.entry.created,
                      (local(cuid) ?? nil) == nil else { continue }
                let known = try wrap { () throws(TodoError) in try state.item(uid: cuid) }
                if known == nil || known?.base.isEmpty == true {
                    found = (cuid, chref, cetag)
                    break
                }
            }
            guard let (cuid, chref, cetag) = found else { continue }
            item.entry.recurrence = rule
            remotes[uid] = .present(href: href, etag: etag, item: item, bytes: bytes)
            remotes[cuid] = nil
            copies[cuid] = RecurringCopy(original: uid, href: chref, etag: cetag)
            log("\(account): \(chref) is a copy of the recurring todo \(uid) made when it was completed elsewhere; it advances instead")
        }
        return copies
    }

    /// Once the original advanced and went back to the server, its copy is deleted there (a copy
    /// changed meanwhile is kept, and comes back as a todo of its own). Otherwise the copy is
    /// remembered to be fetched and folded again.
    func settle(copy uid: String, _ copy: RecurringCopy, advanced: Bool, _ report: inout RoundReport) throws(SyncError) {
        guard advanced else {
            try save(SyncedItem(uid: uid, href: copy.href, etag: copy.etag, base: [], refetch: true))
            return
        }
        do {
            try collection.delete(href: copy.href, ifMatch: copy.etag)
            report.sent += 1
        } catch .preconditionFailed {
            try save(SyncedItem(uid: uid, href: copy.href, etag: copy.etag, base: [], refetch: true))
            return
        } catch .notFound {
        } catch {
            throw SyncError(error.message)
        }
        try wrap { () throws(TodoError) in try state.remove(uid: uid) }
    }

    // MARK: - Deciding

    enum RemoteWrite {
        case create(name: String, item: SyncItem)
        case update(href: String, etag: String, item: SyncItem)
        case delete(href: String, etag: String)
    }

    struct Plan {
        var uid: String
        var base: SyncedItem?
        var remote: Remote
        var localID: Int64?
        /// A conditional entry for `store.import`.
        var localWrite: ExportDocument.Entry?
        var remoteWrite: RemoteWrite?
        /// The state afterwards when nothing is written to the server: nil removes the item.
        var newState: SyncedItem??
        var completeAfter = false
        var conflict: SyncStatus.Conflict?
        /// For a todo new to the store: its place in the server's order.
        var order: Int64?
        /// The todo's revision in the store when the round read it.
        var revision: Int64?
        /// The server's new sort order of a todo it reordered (the local order follows it).
        var move: Int64?
        /// Whether that sort order is lower than the base's (the todo moved up).
        var moveUp = false
        /// The todo's sort order on the server after this round (nil: its base's, or none).
        var known: Int64?
        /// The sort order `place` chose for it (sent with its update).
        var placed: Int64?
    }

    /// What to do for one todo, from its base, its store side and its server side; `placed` is
    /// the sort order `place` chose for it (a move here, or a renumbering).
    func plan(uid: String, base: SyncedItem?, local: Local, remote: Remote, placed: Int64? = nil) -> Plan? {
        let baseItem: SyncItem? = base.flatMap { $0.base.isEmpty ? nil : try? codec.item($0.base).get() }
        var remoteItem: (href: String, etag: String, item: SyncItem, bytes: [UInt8])?
        switch remote {
        case .unchanged:
            if let base, let baseItem, !base.etag.isEmpty { remoteItem = (base.href, base.etag, baseItem, base.base) }
        case .absent: remoteItem = nil
        case .present(let href, let etag, let item, let bytes): remoteItem = (href, etag, item, bytes)
        }
        // The store's kept lines when this pass read them, else the base's (or the server's).
        let kept: String? = if case .some(let known) = local.ical { known } else { baseItem?.entry.ical ?? remoteItem?.item.entry.ical }
        let localItem: SyncItem? = local.todo.map { todo in
            var item = SyncItem(todo: todo, kept: kept)
            if let placed, todo.position != nil {
                item.sortOrder = placed
            } else if let baseItem, !local.moved || todo.position == nil {
                item.sortOrder = baseItem.sortOrder
            }
            item = codec.canonical(item)
            item.entry.updated = todo.updated  // to the microsecond, for the merge's "later"
            return item
        }
        var p = Plan(uid: uid, base: base, remote: remote, localID: local.todo?.id, revision: local.todo?.revision)
        if local.todo?.position != nil { p.placed = placed }
        // A name of our own for a new resource (never derived from the UID), or the one a cut-off
        // round already chose.
        func newName() -> String {
            if let base, base.etag.isEmpty, let name = base.href.split(separator: "/").last { return String(name) }
            return RandomUUID.make(at: now()) + ".ics"
        }
        func conflict(_ fields: [String], kept: String, title: String, lost: String) -> SyncStatus.Conflict {
            SyncStatus.Conflict(at: now(), uid: uid, title: title, fields: fields, kept: kept, lost: lost)
        }

        switch (localItem, remoteItem) {
        case (nil, nil):
            guard base != nil else { return nil }
            p.newState = .some(nil)
        case (let l?, nil) where base == nil && initialMode == "remote":
            // Only the store has it, and the calendar wins: removed here (one undoable change).
            var entry = l.entry
            entry.ifRevision = local.todo?.revision
            entry.deleted = true
            p.localWrite = entry
            return p
        case (nil, let r?) where base == nil && initialMode == "local":
            // Only the calendar has it, and the store wins: deleted on the server.
            p.remoteWrite = .delete(href: r.href, etag: r.etag)
            return p
        case (let l?, nil):
            if let baseItem, base?.etag.isEmpty == false {
                if ThreeWayMerge.sameContent(l, baseItem) {
                    // Deleted on the server, unchanged here: delete here.
                    var entry = l.entry
                    entry.ifRevision = local.todo?.revision
                    entry.deleted = true
                    p.localWrite = entry
                    p.newState = .some(nil)
                    return p
                }
                // Edited here, deleted there: the edit wins; the todo goes back to the server.
                p.conflict = conflict(["deleted"], kept: "local", title: l.entry.title, lost: "its deletion on the server")
            }
            p.remoteWrite = .create(name: newName(), item: l)
        case (nil, let r?):
            if let base, !base.etag.isEmpty, let baseItem {
                if ThreeWayMerge.sameContent(codec.canonical(r.item), baseItem) {
                    p.remoteWrite = .delete(href: r.href, etag: r.etag)
                    return p
                }
                p.conflict = conflict(["deleted"], kept: "remote", title: r.item.entry.title, lost: "its deletion here")
            }
            var entry = r.item.entry
            entry.ifRevision = 0
            p.localWrite = entry
            p.order = r.item.sortOrder
            p.known = r.item.sortOrder
            p.newState = .some(SyncedItem(uid: uid, href: r.href, etag: r.etag, base: r.bytes))
        case (let l?, let r?):
            var remote = codec.canonical(r.item)
            // todoman and others complete a recurring todo by marking it COMPLETED: here it
            // advances instead (todo.complete), and the advanced todo goes back.
            if remote.entry.done, remote.entry.recurrence != nil, let baseItem, !baseItem.entry.done, !l.entry.done, l.entry.recurrence != nil {
                remote.entry.done = false
                remote.entry.completed = nil
                p.completeAfter = true
            }
            var outcome = ThreeWayMerge.merge(base: baseItem, local: l, remote: remote)
            if baseItem == nil, let mode = initialMode {
                // A first round's --initial remote or local: that side wins whole.
                outcome.merged = mode == "remote" ? remote : l
                outcome.merged.entry.uid = remote.entry.uid ?? l.entry.uid
            }
            let merged = codec.canonical(outcome.merged)
            if !outcome.conflicts.isEmpty {
                let losing = outcome.kept == "local" ? remote : l
                p.conflict = conflict(outcome.conflicts.map(\.rawValue), kept: outcome.kept, title: merged.entry.title,
                                      lost: outcome.conflicts.map { "\($0.rawValue) \(Self.shown($0, losing))" }.joined(separator: ", "))
            }
            if !ThreeWayMerge.sameContent(merged, l) || p.completeAfter {
                var entry = merged.entry
                entry.ifRevision = local.todo?.revision
                p.localWrite = entry
            }
            let orderChanged = merged.sortOrder != nil && merged.sortOrder != remote.sortOrder
            p.known = merged.sortOrder
            // Reordered on the server (and not here, or later there): the local order follows.
            if let baseItem, let target = merged.sortOrder, target == remote.sortOrder, target != baseItem.sortOrder, target != l.sortOrder {
                p.move = target
                p.moveUp = baseItem.sortOrder.map { target < $0 } ?? false
            }
            if !ThreeWayMerge.sameContent(merged, remote) || orderChanged || p.completeAfter {
                p.remoteWrite = .update(href: r.href, etag: r.etag, item: merged)
            } else if base?.etag != r.etag || base?.base != r.bytes || base?.refetch == true {
                p.newState = .some(SyncedItem(uid: uid, href: r.href, etag: r.etag, base: r.bytes))
            } else if p.localWrite == nil {
                return nil  // in step: the echo of what the last round wrote
            }
        }
        return p
    }

    // MARK: - The manual order

    /// Sort orders for the open todos moved here (`moved`), from their new neighbours in the
    /// local order (`open`, uids top to bottom) and the sort orders the server knows (`known`:
    /// the bases', or what it has now). From the top, so each moved todo's neighbours are settled:
    /// with P the known sort order of the nearest todo above and N that of the nearest settled one
    /// below (todos without one are skipped), the midpoint when N − P ≥ 2, P + 1024 with none
    /// below, N − 1024 with none above, 1024 with neither. No room (or no value in Int64): every
    /// open todo gets 1024, 2048, ... in local order. Returns the todos whose sort order changes.
    static func place(moved: Set<String>, open: [String], known: [String: Int64]) -> [String: Int64] {
        let server = known
        var known = known
        for uid in moved { known[uid] = nil }
        var pending = moved
        var out: [String: Int64] = [:]
        for (i, uid) in open.enumerated() where moved.contains(uid) {
            pending.remove(uid)
            let above = open[..<i].reversed().lazy.compactMap { known[$0] }.first
            let below = open[(i + 1)...].lazy.filter { !pending.contains($0) }.compactMap { known[$0] }.first
            guard let order = between(above, below) else {
                // No room: renumber every open todo; send those that change.
                var fresh: [String: Int64] = [:]
                for (j, uid) in open.enumerated() {
                    let order = Int64(j + 1) * 1024
                    if moved.contains(uid) || server[uid] != order { fresh[uid] = order }
                }
                return fresh
            }
            known[uid] = order
            out[uid] = order
        }
        return out
    }

    /// A sort order strictly between `above` and `below` (either may be missing), or nil when
    /// there is none (no room, or past Int64's range).
    static func between(_ above: Int64?, _ below: Int64?) -> Int64? {
        switch (above, below) {
        case let (p?, n?):
            guard n > p else { return nil }
            let (gap, overflow) = n.subtractingReportingOverflow(p)
            if overflow { return (p >> 1) + (n >> 1) }  // a gap beyond Int64: both halves, still between
            return gap >= 2 ? p + gap / 2 : nil
        case let (p?, nil):
            let (order, overflow) = p.addingReportingOverflow(1024)
            return overflow ? nil : order
        case let (nil, n?):
            let (order, overflow) = n.subtractingReportingOverflow(1024)
            return overflow ? nil : order
        case (nil, nil):
            return 1024
        }
    }

    /// The server's reorders of existing todos, in the store: each todo the server gave a new
    /// sort order goes (`todo.move`) just before the first open todo, in the local order, whose
    /// known sort order (its base's, or its new one from this round) is greater, or equal for a
    /// todo that moved up (a peer that moved it up to a place gives it that place's number); at
    /// the end if none. In ascending sort order, so several reordered todos end in their order.
    /// Done todos have no place: left alone. Returns the todos not moved because they changed
    /// here since the round read them (merged again next pass).
    func applyRemoteOrder(_ plans: [Plan], stale: Set<String>, _ report: inout RoundReport) throws(SyncError) -> Set<String> {
        var moves: [(index: Int, target: Int64, plan: Plan)] = []
        for (i, p) in plans.enumerated() where !stale.contains(p.uid) {
            if let target = p.move { moves.append((i, target, p)) }
        }
        moves.sort { a, b in a.target != b.target ? a.target < b.target : a.index < b.index }
        guard !moves.isEmpty else { return [] }
        var known = try wrap { () throws(TodoError) in try state.sortOrders() }
        for p in plans { if let k = p.known { known[p.uid] = k } }
        let todos = try store.allTodos()
        let current = Dictionary(todos.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        var order = todos.filter { $0.position != nil }.sorted { $0.position! < $1.position! }.map(\.uid)
        var unmoved: Set<String> = []
        for (_, target, p) in moves {
            guard let todo = current[p.uid], let index = order.firstIndex(of: p.uid) else { continue }
            guard todo.revision == (p.revision ?? 0) + (p.localWrite == nil ? 0 : 1) else {
                unmoved.insert(p.uid)
                continue
            }
            order.remove(at: index)
            let slot = order.firstIndex { (uid: String) -> Bool in
                guard let k = known[uid] else { return false }
                return p.moveUp ? k >= target : k > target
            } ?? order.count
            order.insert(p.uid, at: slot)
            guard slot != index else { continue }
            let moved = try store.move(id: todo.id, position: slot + 1)
            try wrap { () throws(TodoError) in try state.recordMove(uid: p.uid, updated: moved.updated) }
            if p.localWrite == nil { report.received += 1 }
        }
        return unmoved
    }

    // MARK: - Writing

    /// Carries out a plan's server side and records the state. True when the server changed
    /// the resource meanwhile (412): it is fetched and merged again next pass.
    func write(_ plan: Plan, _ report: inout RoundReport) throws(SyncError) -> Bool {
        guard let write = plan.remoteWrite else {
            switch plan.newState {
            case .some(nil): try wrap { () throws(TodoError) in try state.remove(uid: plan.uid) }
            case .some(let item?): try save(item)
            case nil: break
            }
            return false
        }
        switch write {
        case .create(let name, let item):
            let bytes = codec.bytes(item)
            // Recorded before the PUT: a round cut off after it finds the resource next time
            // instead of making a second one.
            try save(SyncedItem(uid: plan.uid, href: collectionPath + name, etag: "", base: [], refetch: true))
            let created: (href: String, etag: String?)
            do {
                created = try collection.create(name: name, data: bytes)
            } catch .preconditionFailed {
                return true  // the name exists: it is fetched (ours from a cut-off round, or not) next pass
            } catch where Self.refusesItem(error) {
                try wrap { () throws(TodoError) in try state.remove(uid: plan.uid) }
                try refused(plan, href: collectionPath + name, title: item.entry.title, error)
                return false
            } catch {
                throw SyncError(error.message)
            }
            try confirm(uid: plan.uid, href: created.href, etag: created.etag, bytes: bytes)
            createdSinceToken.insert(created.href)
            report.sent += 1
        case .update(let href, let etag, let item):
            let bytes = codec.bytes(item)
            let newTag: String?
            do {
                newTag = try collection.update(href: href, data: bytes, ifMatch: etag)
            } catch .preconditionFailed {
                log("\(account): \(href) changed on the server meanwhile; merging again")
                try wrap { () throws(TodoError) in try state.markRefetch(uid: plan.uid) }
                if plan.placed != nil { movesToResend.insert(plan.uid) }
                return true
            } catch .notFound {
                // Deleted on the server meanwhile: the edit wins, as a new resource.
                try wrap { () throws(TodoError) in try state.remove(uid: plan.uid) }
                return true
            } catch where Self.refusesItem(error) {
                try refused(plan, href: href, title: item.entry.title, error)
                return false
            } catch {
                throw SyncError(error.message)
            }
            try confirm(uid: plan.uid, href: href, etag: newTag, bytes: bytes)
            report.sent += 1
        case .delete(let href, let etag):
            do {
                try collection.delete(href: href, ifMatch: etag)
            } catch .preconditionFailed {
                try wrap { () throws(TodoError) in try state.markRefetch(uid: plan.uid) }
                return true
            } catch .notFound {
            } catch where Self.refusesItem(error) {
                try refused(plan, href: href, title: plan.uid, error)
                return false
            } catch {
                throw SyncError(error.message)
            }
            try wrap { () throws(TodoError) in try state.remove(uid: plan.uid) }
            report.sent += 1
        }
        try wrap { () throws(TodoError) in try state.clearRefused(uid: plan.uid) }
        return false
    }

    /// Whether the server's answer refuses this one item (its data, its size, its href) rather
    /// than the round: 400, 403, 409, 413, 415, 422, 507, or a value todod will not send.
    static func refusesItem(_ error: CalDAVError) -> Bool {
        switch error {
        case .http(let status, _): return [400, 403, 405, 409, 413, 415, 422, 507].contains(status)
        case .malformed: return true
        default: return false
        }
    }

    /// Records that the server refused the plan's write: the todo is named in `sync status` and
    /// tried again next round; everything else goes on.
    func refused(_ plan: Plan, href: String, title: String, _ error: CalDAVError) throws(SyncError) {
        log("\(account): the server refused \(href): \(error.message)")
        try wrap { () throws(TodoError) in
            try state.record(SyncProblem(kind: .refused, uid: plan.uid, href: href, title: Self.shortTitle(title), reason: error.message))
        }
    }

    /// A field's value for a person, in one line (what a conflict lost).
    static func shown(_ field: SyncField, _ item: SyncItem) -> String {
        let e = item.entry
        func quoted(_ text: String?) -> String { text.map { "\"" + shortTitle($0) + "\"" } ?? "none" }
        switch field {
        case .title: return quoted(e.title)
        case .notes: return quoted(e.notes)
        case .category: return quoted(e.category)
        case .tags: return e.tags.isEmpty ? "none" : e.tags.joined(separator: ",")
        case .due: return e.due.map { e.allDay ? String($0.rfc3339().prefix(10)) : $0.rfc3339() } ?? "none"
        case .remind: return e.remind?.rfc3339() ?? "none"
        case .reminded: return e.reminded?.rfc3339() ?? "none"
        case .done: return e.done ? "done" : "open"
        case .priority: return e.priority?.rawValue ?? "none"
        case .recurrence: return e.recurrence?.rule ?? "none"
        case .order: return item.sortOrder.map { String($0) } ?? "none"
        case .ical: return "\(e.ical?.utf8.count ?? 0) bytes of other properties"
        }
    }

    /// A title short enough for one line of `sync status`.
    static func shortTitle(_ title: String) -> String {
        let line = String(title.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }

    /// The local changes not on the server: every refusal, every todo to merge again, and the
    /// todos waiting on a resource todod cannot read whose store copy differs from the last
    /// synced one.
    func pendingCount(_ problems: [SyncProblem]) throws(SyncError) -> Int {
        var uids = Set(try wrap { () throws(TodoError) in try state.refetching() }.map(\.uid))
        uids.formUnion(problems.filter { $0.kind == .refused }.compactMap(\.uid))
        let waiting = Set(problems.filter { $0.kind != .refused }.compactMap(\.uid)).subtracting(uids)
        if !waiting.isEmpty {
            let todos = Dictionary(try store.allTodos().map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
            for uid in waiting {
                guard let base = try wrap({ () throws(TodoError) in try state.item(uid: uid) }), !base.base.isEmpty,
                      let baseItem = try? codec.item(base.base).get() else { continue }
                guard let todo = todos[uid] else { uids.insert(uid); continue }
                let local = codec.canonical(SyncItem(todo: todo, kept: baseItem.entry.ical).ordered(baseItem.sortOrder))
                if !ThreeWayMerge.sameContent(local, baseItem) { uids.insert(uid) }
            }
        }
        return uids.count
    }

    /// Records a written resource; a server that sent no ETag is asked for it.
    func confirm(uid: String, href: String, etag: String?, bytes: [UInt8]) throws(SyncError) {
        var etag = etag
        var base = bytes
        if etag == nil {
            let fetched = try calDAV { () throws(CalDAVError) in try collection.fetch([href]) }
            etag = fetched.first?.etag
            // A server that rewrites what it is sent: its bytes are the base.
            if let data = fetched.first?.data { base = data }
        }
        guard let etag else {
            try save(SyncedItem(uid: uid, href: href, etag: "", base: [], refetch: true))
            return
        }
        try save(SyncedItem(uid: uid, href: href, etag: etag, base: base))
    }

    /// The collection's path, which the server's hrefs start with.
    var collectionPath: String {
        var path = collection.url
        if let scheme = path.firstRange(of: "://") {
            let rest = path[scheme.upperBound...]
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        return path.hasSuffix("/") ? path : path + "/"
    }

    /// `store.import` in parts of at most about 512 KiB of JSON each (a request line holds 1 MiB).
    /// An entry todod's rules refuse (the import names it) is left out and the rest imported:
    /// returns the stale uids and the refused ones with why.
    func applyInParts(_ entries: [ExportDocument.Entry]) throws(SyncError) -> (stale: Set<String>, rejected: [String: String]) {
        var entries = entries
        var rejected: [String: String] = [:]
        while true {
            // Named for the account in `undo --list`: an undo after a background round says so.
            switch try store.apply(entries, label: "sync \(account)") {
            case .applied(let stale): return (stale, rejected)
            case .refused(let index, let reason):
                guard entries.indices.contains(index), let uid = entries[index].uid else { throw SyncError("todod refused the import: \(reason)") }
                rejected[uid] = reason
                entries.remove(at: index)
            }
        }
    }

    func save(_ item: SyncedItem) throws(SyncError) {
        try wrap { () throws(TodoError) in try state.save(item) }
    }

    func wrap<T>(_ body: () throws(TodoError) -> T) throws(SyncError) -> T {
        do { return try body() } catch { throw SyncError("sync state \(state.path): \(error.message)") }
    }

    func calDAV<T>(_ body: () throws(CalDAVError) -> T) throws(SyncError) -> T {
        do { return try body() } catch { throw SyncError(error.message) }
    }
}

extension SyncItem {
    func ordered(_ order: Int64?) -> SyncItem {
        var copy = self
        copy.sortOrder = order
        return copy
    }
}
