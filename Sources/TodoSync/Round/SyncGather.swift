import TodoCalDAV
import TodoCore
import TodoRPC
import TodoUserFiles

/// What a pass reads: the store's changes and the server's, and the last synced versions.
struct SyncGather: RoundStep {
    let round: RoundContext
    /// What the pass before left this one.
    let handover: Handover
    /// The round's first pass tries again the local changes the server refused before (once a
    /// round).
    let firstPass: Bool

    /// What one pass gathered: the planner's input, and what the pass saves after applying.
    struct Gathered {
        var input: SyncPlanner.Input
        /// The store's seq the pass read up to.
        var seq: Int64
        /// The server's sync token after the pass's listing.
        var token: String?
        /// Copies a peer made of recurring todos it completed, by copy uid (`foldRecurringCopies`).
        var copies: [String: RecurringCopy]
    }

    /// The whole store, read at most once a pass, when first needed.
    final class StoreListing {
        let store: LocalStore
        /// Every todo by uid (nil: not read yet).
        private(set) var todos: [String: Todo]?
        /// The lines iCalendar kept of the todos, by uid.
        private(set) var kept: [String: String] = [:]
        /// The open todos' uids in the manual order.
        private(set) var open: [String] = []

        init(_ store: LocalStore) { self.store = store }

        func read() throws(SyncError) -> [String: Todo] {
            if let todos { return todos }
            let list = try store.allTodos()
            let all = Dictionary(list.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
            open = list.filter { $0.position != nil }.sorted { $0.position! < $1.position! }.map(\.uid)
            kept = try store.keptLines()
            todos = all
            return all
        }
    }

    /// The store's side: the todos changed since the last pass (all of them without a seq, or
    /// when the change log no longer reaches back), by uid, and the seq read up to.
    func localChanges(_ listing: StoreListing) throws(SyncError) -> (locals: [String: SyncPlanner.Local], seq: Int64) {
        var locals: [String: SyncPlanner.Local] = [:]
        let newSeq: Int64
        if let seq = state.seq, let changes = try store.changes(since: seq) {
            for c in changes.todos {
                // A move this sync made itself (a remote reorder) is not a move made here.
                var moved = c.kind == .move
                if moved, let t = c.todo,
                    try wrap({ () throws(TodoError) in try state.isOwnMove(uid: c.uid, updated: t.updated) })
                {
                    moved = false
                }
                locals[c.uid] = SyncPlanner.Local(todo: c.todo, moved: moved, ical: .some(c.ical))
            }
            newSeq = changes.seq
        } else {
            newSeq = try store.status().seq
            let all = try listing.read()
            for t in all.values {
                locals[t.uid] = SyncPlanner.Local(todo: t, moved: false, ical: .some(listing.kept[t.uid]))
            }
            for (_, known) in try wrap({ () throws(TodoError) in try state.versions() }) where all[known.uid] == nil {
                locals[known.uid] = SyncPlanner.Local(todo: nil, moved: false)
            }
        }
        for uid in handover.movesToResend {
            let todo = locals[uid] != nil ? locals[uid]?.todo : try listing.read()[uid]
            if let todo {
                var local = locals[uid] ?? SyncPlanner.Local(todo: todo, moved: true, ical: .some(listing.kept[uid]))
                (local.todo, local.moved) = (todo, true)
                locals[uid] = local
            }
        }
        return (locals, newSeq)
    }

    /// Reads both sides for one pass.
    func gather(_ report: inout RoundReport) throws(SyncError) -> Gathered {
        let listing = StoreListing(store)
        var (locals, newSeq) = try localChanges(listing)

        // The server's side.
        var (remotes, token, skipped) = try remoteChanges()
        report.skipped += skipped

        // A first round with todos on both sides: the account's --initial mode (read whole on
        // both sides, with no base yet).
        var initialMode: String?
        if let mode = state.meta("initial"), state.count == 0, !locals.isEmpty,
            remotes.values.contains(where: { if case .present = $0 { return true } else { return false } })
        {
            initialMode = mode
            log("\(account): first round with todos on both sides: --initial \(mode)")
        }

        // Todos fetched again (a 412, a creation not confirmed, a stale import) are merged again.
        var uids = Set(locals.keys).union(remotes.keys)
        for item in try wrap({ () throws(TodoError) in try state.refetching() }) { uids.insert(item.uid) }
        // Local changes the server refused before are tried again, once a round.
        let problems = try wrap { () throws(TodoError) in try state.problems() }
        let refused = Set(problems.filter { $0.kind == .refused }.compactMap(\.uid))
        if firstPass { uids.formUnion(refused) }
        // A todo whose resource on the server cannot be read (or is refused here) waits, with
        // its local changes, until the server has another version of it: nothing overwrites
        // or deletes what todod could not read.
        let blocked = Set(problems.filter { $0.kind != .refused }.compactMap(\.uid)).filter { uid in
            if case .present? = remotes[uid] { return false }
            return true
        }
        uids.subtract(blocked)
        // Todos the server changed that the store's changes do not name: read the store whole.
        if listing.todos == nil, uids.contains(where: { locals[$0] == nil }) { _ = try listing.read() }

        let copies = try foldRecurringCopies(&remotes) { uid in locals[uid].map(\.todo) ?? listing.todos?[uid] }
        for uid in copies.keys { uids.remove(uid) }

        var bases: [String: SyncedItem] = [:]
        func loadBases<S: Sequence>(_ uids: S) throws(SyncError) where S.Element == String {
            for uid in uids where bases[uid] == nil {
                if let base = try wrap({ () throws(TodoError) in try state.item(uid: uid) }) { bases[uid] = base }
            }
        }
        try loadBases(uids)
        // The order is read when a todo moved here, has no place on the server, or a renumbering is due.
        let renumber = state.meta("renumber") != nil || initialMode == "local"
        let placing =
            renumber
            || uids.contains { uid in
                guard let local = locals[uid], local.todo?.position != nil else { return false }
                return local.moved || SyncPlanner.hasNoPlace(base: bases[uid], remote: remotes[uid] ?? .unchanged)
            }
        var open: [String]?
        var known: [String: Int64] = [:]
        if placing {
            _ = try listing.read()
            open = listing.open
            try loadBases(listing.open)
            known = try wrap { () throws(TodoError) in try state.sortOrders() }
        }
        for uid in uids.union(open ?? []) where locals[uid] == nil {
            locals[uid] = SyncPlanner.Local(
                todo: listing.todos?[uid], moved: false, ical: listing.todos == nil ? nil : .some(listing.kept[uid]))
        }
        let input = SyncPlanner.Input(
            uids: uids, locals: locals, remotes: remotes, bases: bases, open: open, known: known, refused: refused,
            initialMode: initialMode, renumber: renumber, now: options.now(), codec: codec)
        return Gathered(input: input, seq: newSeq, token: token, copies: copies)
    }

    // MARK: - Server changes

    /// What the server changed since the token (everything when there is none), fetched and read:
    /// by uid. Also the next token and the resources that could not be read.
    func remoteChanges() throws(SyncError) -> (remotes: [String: SyncPlanner.Remote], token: String?, skipped: [String])
    {
        let known = try wrap { () throws(TodoError) in try state.versions() }
        var changed: [RemoteVersion] = []
        var removed: [String] = []
        var token: String?
        var full = false
        do throws(CalDAVError) {
            let delta: CollectionDelta
            do throws(CalDAVError) {
                let since = handover.tokenAfterCreating ?? state.token
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
            throw roundError(error)
        }
        if full {
            let present = Set(changed.map(\.href))
            removed += known.keys.filter { !present.contains($0) }
            for p in try wrap({ () throws(TodoError) in try state.problems() })
            where p.kind != .refused && !present.contains(p.href) {
                try wrap { () throws(TodoError) in try state.clearRemoteProblems(href: p.href) }
            }
        } else {
            removed += try wholeAnswerRemovals(changed, removed, known)
            // A resource this round created after the token and deleted since is in no state a
            // server's token names, so a server that compares states (xandikos) does not report
            // it removed: one the delta does not list is gone.
            let listed = Set(changed.map(\.href)).union(removed)
            removed += handover.created.filter { !listed.contains($0) }
        }
        // Our own writes come back with the ETag we stored: nothing to fetch; nor does a resource
        // known not to sync whose ETag has not changed.
        var unchangedProblems: [String: String] = [:]
        for p in try wrap({ () throws(TodoError) in try state.problems() }) where p.kind != .refused && !p.etag.isEmpty
        { unchangedProblems[p.href] = p.etag }
        var hrefs = changed.filter { known[$0.href]?.etag != $0.etag && unchangedProblems[$0.href] != $0.etag }.map(
            \.href)
        let gone = Set(removed)
        // A second copy of a todo (named, not synced) is read again once anything is removed:
        // it may be the only copy now.
        if !gone.isEmpty {
            for p in try wrap({ () throws(TodoError) in try state.problems() })
            where p.kind == .rejected && p.uid == nil && !gone.contains(p.href) {
                hrefs.append(p.href)
            }
        }
        let refetch = try wrap { () throws(TodoError) in try state.refetching() }
        hrefs += refetch.map(\.href)
        var seen = Set<String>()
        hrefs = hrefs.filter { seen.insert($0).inserted }

        var remotes: [String: SyncPlanner.Remote] = [:]
        var skipped: [String] = []
        var start = 0
        while start < hrefs.count {
            let batch = Array(hrefs[start..<min(start + options.fetchBatch, hrefs.count)])
            start += batch.count
            for object in try calDAV({ () throws(CalDAVError) in try collection.fetch(batch) }) {
                let read =
                    object.tooLarge
                    ? .failure(SyncError("it is larger than todod reads (1 MiB)")) : codec.item(object.data)
                switch read {
                case .failure(let error):
                    skipped.append("\(object.href): \(error.message)")
                    log("\(account): cannot read \(object.href): \(error.message)")
                    try wrap { () throws(TodoError) in
                        try state.record(
                            SyncProblem(
                                kind: .unreadable, uid: known[object.href]?.uid, href: object.href, etag: object.etag,
                                title: object.href, reason: "cannot be read: \(error.message)"))
                    }
                case .success(let item):
                    try wrap { () throws(TodoError) in try state.clearRemoteProblems(href: object.href) }
                    guard let uid = item.entry.uid else { continue }
                    // A second resource with the UID of one the state knows, still there (a
                    // permissive server): left alone and named, so the todo never flips between them.
                    func duplicate(_ href: String, _ etag: String, of kept: String) throws(SyncError) {
                        try wrap { () throws(TodoError) in
                            try state.record(
                                SyncProblem(
                                    kind: .rejected, uid: nil, href: href, etag: etag,
                                    title: SyncPlanner.shortTitle(item.entry.title),
                                    reason: "holds the UID of \(kept) too; todod syncs that one"))
                        }
                    }
                    if let base = try wrap({ () throws(TodoError) in try state.item(uid: uid) }),
                        base.href != object.href,
                        !base.etag.isEmpty, !gone.contains(base.href)
                    {
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
    func foldRecurringCopies(_ remotes: inout [String: SyncPlanner.Remote], local: (String) -> Todo??) throws(SyncError)
        -> [String: RecurringCopy]
    {
        var copies: [String: RecurringCopy] = [:]
        for uid in remotes.keys.sorted() {
            guard case .present(let href, let etag, var item, let bytes)? = remotes[uid], item.entry.done,
                item.entry.recurrence == nil,
                let base = try wrap({ () throws(TodoError) in try state.item(uid: uid) }), !base.base.isEmpty,
                let baseItem = try? codec.item(base.base).get(), let rule = baseItem.entry.recurrence,
                !baseItem.entry.done,
                let todo = local(uid) ?? nil, !todo.done, todo.recurrence != nil
            else { continue }
            var found: (uid: String, href: String, etag: String)?
            for cuid in remotes.keys.sorted() where cuid != uid && copies[cuid] == nil {
                guard case .present(let chref, let cetag, let c, _)? = remotes[cuid], !c.entry.done,
                    c.entry.recurrence?.rule == rule.rule, c.entry.title == item.entry.title,
                    c.entry.created == item.entry.created,
                    (local(cuid) ?? nil) == nil
                else { continue }
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
            log(
                "\(account): \(chref) is a copy of the recurring todo \(uid) made when it was completed elsewhere; it advances instead"
            )
        }
        return copies
    }
}
