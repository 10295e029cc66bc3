import TodoCalDAV
import TodoCore
import TodoRPC
import TodoUserFiles

/// What a pass writes: the planner's decisions carried out in the store and on the server,
/// cut-off safe (the state is written as each step lands).
struct SyncApply: RoundStep {
    let round: RoundContext
    /// What the pass read, which the decisions were made from.
    let gathered: SyncGather.Gathered
    /// The resources this pass created (`Handover.created`).
    private(set) var created: Set<String> = []
    /// Todos the next pass merges again as moved (`Handover.movesToResend`).
    private(set) var movesToResend: Set<String> = []
    /// The todos whose writes to the server the round had no time left for. A pass that left
    /// any is the last, and saves neither the store's seq nor the server's token, so the next
    /// round finds them again (as one cut off would).
    private(set) var left: Set<String> = []

    init(round: RoundContext, gathered: SyncGather.Gathered) {
        self.round = round
        self.gathered = gathered
    }

    /// Applies one pass's decisions; true when another pass should follow.
    mutating func run(_ decided: SyncPlanner.Output, _ report: inout RoundReport) throws(SyncError) -> Bool {
        var again = false
        var plans = decided.plans
        let copies = gathered.copies
        // nothing left to send
        for uid in decided.clearRefused { try wrap { () throws(TodoError) in try state.clearRefused(uid: uid) } }

        // The store first, in one request: a todo changed meanwhile is skipped (stale), merged
        // again next pass, and nothing of it goes to the server now.
        // New todos from the server go to the end of the manual order, in their X-APPLE-SORT-ORDER.
        let entries = plans.enumerated().compactMap { i, p in p.localWrite.map { (i, $0, p.order) } }
            .sorted { a, b in
                switch (a.2, b.2) {
                case (let x?, let y?) where x != y: return x < y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.0 < b.0
                }
            }.map(\.1)
        let (stale, rejected) = try applyInParts(entries)
        report.received +=
            entries.count - entries.filter { stale.contains($0.uid ?? "") || rejected[$0.uid ?? ""] != nil }.count
        // An open todo from the server without a sort order (from a client that writes none) has
        // a place here only: the next pass places it between its neighbours, as if moved here,
        // and sends that place, so every store and the server show one order.
        for p in plans where !stale.contains(p.uid) && rejected[p.uid] == nil {
            guard let entry = p.localWrite, !entry.deleted, !entry.done, case .present(_, _, let item, _) = p.remote,
                item.sortOrder == nil
            else { continue }
            movesToResend.insert(p.uid)
            again = true
        }
        // A todo todod's rules refuse stays out, named, and nothing of it is written anywhere.
        if !rejected.isEmpty {
            for plan in plans {
                guard let reason = rejected[plan.uid] else { continue }
                var href = plan.base?.href ?? ""
                var etag = ""
                if case .present(let h, let e, _, _) = plan.remote { (href, etag) = (h, e) }
                let title = plan.localWrite.map { SyncPlanner.shortTitle($0.title) } ?? href
                log("\(account): \(href) is not taken: \(reason)")
                try wrap { () throws(TodoError) in
                    try state.record(
                        SyncProblem(
                            kind: .rejected, uid: plan.uid, href: href, etag: etag, title: title,
                            reason: "todod refuses it: \(reason)"))
                }
            }
            plans.removeAll { rejected[$0.uid] != nil }
        }
        // Then the server's reorders; a todo changed here meanwhile is not moved, but merged again.
        let (unmoved, moved) = try applyRemoteOrder(plans, stale: stale, &report)
        // A renumbering is remembered until every todo of it is on the server: a round cut off
        // in the middle finishes it next time.
        if decided.renumbering { try wrap { () throws(TodoError) in try state.setMeta("renumber", "1") } }
        var retried: Set<String> = []
        var placedRetried = false
        for var plan in plans {
            if plan.localWrite != nil && stale.contains(plan.uid) || unmoved.contains(plan.uid) {
                again = true
                retried.insert(plan.uid)
                if plan.placed != nil { placedRetried = true }
                if let base = plan.base {
                    try wrap { () throws(TodoError) in try state.markRefetch(uid: base.uid) }
                } else if case .present(let href, let etag, _, _) = plan.remote {
                    // Never synced: remember where it is, without a base.
                    try save(SyncedItem(uid: plan.uid, href: href, etag: etag, base: [], refetch: true))
                }
                if let copy = copies.first(where: { $0.value.original == plan.uid }) {
                    try save(
                        SyncedItem(uid: copy.key, href: copy.value.href, etag: copy.value.etag, base: [], refetch: true)
                    )
                }
                continue
            }
            let copy = copies.first { $0.value.original == plan.uid }
            if plan.remoteWrite != nil || plan.completeAfter || copy != nil, timeIsUp {
                left.insert(plan.uid) // no time to write it: the next round does
                continue
            }
            if let conflict = plan.conflict {
                report.conflicts.append(conflict)
                options.onConflict(conflict)
            }
            if plan.completeAfter, let id = plan.localID {
                // The server completed a recurring todo: complete it here so it advances, and send
                // the advanced one.
                if let advanced = try store.complete(id: id),
                    case .update(let href, let etag, let merged)? = plan.remoteWrite
                {
                    let item = codec.canonical(
                        SyncItem(todo: advanced, kept: merged.entry.ical).ordered(merged.sortOrder))
                    plan.remoteWrite = .update(href: href, etag: etag, item: item)
                }
            }
            let retry: Bool
            do {
                retry = try write(plan, &report)
                if let copy { try settle(copy: copy.key, copy.value, advanced: plan.completeAfter && !retry, &report) }
            } catch .outOfTime {
                left.insert(plan.uid)
                continue
            }
            if retry {
                again = true
                retried.insert(plan.uid)
                if plan.placed != nil { placedRetried = true }
            }
        }
        retried.formUnion(left)
        if !placedRetried, left.isEmpty, state.meta("renumber") != nil {
            try wrap { () throws(TodoError) in try state.setMeta("renumber", nil) }
        }
        // The store follows the server's order wherever it is in step with it.
        let serverChanged = plans.contains { plan in
            if case .present = plan.remote { return true }
            return plan.localWrite != nil
        }
        if serverChanged || gathered.input.initialMode != nil || state.seq == nil {
            let ours = Set(entries.compactMap(\.uid)).subtracting(stale).union(moved).union(
                plans.filter(\.completeAfter).map(\.uid))
            try followServer(since: gathered.seq, ours: ours, retried: retried, &report)
        }
        return again
    }

    /// The server's reorders of existing todos, in the store: each todo the server gave a new
    /// sort order goes (`todo.move`) just before the first open todo, in the local order, whose
    /// known sort order (its base's, or its new one from this round) is greater, or equal for a
    /// todo that moved up (a peer that moved it up to a place gives it that place's number); at
    /// the end if none. In ascending sort order, so several reordered todos end in their order.
    /// Done todos have no place: left alone. Returns the todos not moved because they changed
    /// here since the round read them (merged again next pass), and those it moved.
    func applyRemoteOrder(_ plans: [SyncPlanner.Plan], stale: Set<String>, _ report: inout RoundReport)
        throws(SyncError)
        -> (unmoved: Set<String>, moved: Set<String>)
    {
        var moves: [(index: Int, target: Int64, plan: SyncPlanner.Plan)] = []
        for (i, p) in plans.enumerated() where !stale.contains(p.uid) {
            if let target = p.move { moves.append((i, target, p)) }
        }
        moves.sort { a, b in a.target != b.target ? a.target < b.target : a.index < b.index }
        guard !moves.isEmpty else { return ([], []) }
        var known = try wrap { () throws(TodoError) in try state.sortOrders() }
        for p in plans { if let k = p.known { known[p.uid] = k } }
        let todos = try store.allTodos()
        let current = Dictionary(todos.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        var order = todos.filter { $0.position != nil }.sorted { $0.position! < $1.position! }.map(\.uid)
        var unmoved: Set<String> = []
        var done: Set<String> = []
        for (_, target, p) in moves {
            guard let todo = current[p.uid], let index = order.firstIndex(of: p.uid) else { continue }
            guard todo.revision == (p.revision ?? 0) + (p.localWrite == nil ? 0 : 1) else {
                unmoved.insert(p.uid)
                continue
            }
            order.remove(at: index)
            let slot =
                order.firstIndex { (uid: String) -> Bool in
                    guard let k = known[uid] else { return false }
                    return p.moveUp ? k >= target : k > target
                } ?? order.count
            order.insert(p.uid, at: slot)
            guard slot != index else { continue }
            let moved = try store.move(id: todo.id, position: slot + 1)
            try wrap { () throws(TodoError) in try state.recordMove(uid: p.uid, updated: moved.updated) }
            done.insert(p.uid)
            if p.localWrite == nil { report.received += 1 }
        }
        return (unmoved, done)
    }

    /// Moves the store's open todos that are in step with the server into the server's order
    /// (`SyncPlanner.followingServer`), after the pass wrote everything: what a reorder, an
    /// import or a resync left elsewhere than its sort order says. Todos changed here since the
    /// pass read the store (`since`, except by the pass itself: `ours`), to be merged again
    /// (`retried`), refused or waiting keep their places: the next round sends or merges them.
    /// A todo the pass already wrote is not counted again.
    func followServer(since seq: Int64, ours: Set<String>, retried: Set<String>, _ report: inout RoundReport)
        throws(SyncError)
    {
        guard let changes = try store.changes(since: seq) else { return }
        var keep = Set(changes.todos.map(\.uid)).subtracting(ours).union(retried)
        keep.formUnion(try wrap { () throws(TodoError) in try state.problems() }.compactMap(\.uid))
        keep.formUnion(try wrap { () throws(TodoError) in try state.refetching() }.map(\.uid))
        var known = try wrap { () throws(TodoError) in try state.sortOrders() }
        for uid in keep { known[uid] = nil }
        let todos = try store.allTodos().filter { $0.position != nil }.sorted { $0.position! < $1.position! }
        let ids = Dictionary(todos.map { ($0.uid, $0.id) }, uniquingKeysWith: { a, _ in a })
        var order = todos.map(\.uid)
        let target = SyncPlanner.followingServer(open: order, known: known)
        for (i, uid) in target.enumerated() where order[i] != uid {
            guard let id = ids[uid], let from = order.firstIndex(of: uid) else { continue }
            let moved = try store.move(id: id, position: i + 1)
            try wrap { () throws(TodoError) in try state.recordMove(uid: uid, updated: moved.updated) }
            order.remove(at: from)
            order.insert(uid, at: i)
            if !ours.contains(uid) { report.received += 1 }
        }
    }

    // MARK: - Writing

    /// Carries out a plan's server side and records the state. True when the server changed
    /// the resource meanwhile (412): it is fetched and merged again next pass.
    mutating func write(_ plan: SyncPlanner.Plan, _ report: inout RoundReport) throws(SyncError) -> Bool {
        guard let write = plan.remoteWrite else {
            switch plan.newState {
            case .some(nil): try wrap { () throws(TodoError) in try state.remove(uid: plan.uid) }
            case .some(let item?): try save(item)
            case nil: break
            }
            return false
        }
        switch write {
        case .create(let chosen, let item):
            let name = chosen ?? RandomUUID.make(at: options.now()) + ".ics"
            let bytes = codec.bytes(item)
            // Recorded before the PUT: a round cut off after it finds the resource next time
            // instead of making a second one.
            try save(SyncedItem(uid: plan.uid, href: collectionPath + name, etag: "", base: [], refetch: true))
            let created: (href: String, etag: String?)
            do {
                created = try collection.create(name: name, data: bytes)
            } catch .preconditionFailed {
                return true // the name exists: it is fetched (ours from a cut-off round, or not) next pass
            } catch  where Self.refusesItem(error) {
                try wrap { () throws(TodoError) in try state.remove(uid: plan.uid) }
                try refused(plan, href: collectionPath + name, title: item.entry.title, error)
                return false
            } catch {
                throw roundError(error)
            }
            try confirm(uid: plan.uid, href: created.href, etag: created.etag, bytes: bytes)
            self.created.insert(created.href)
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
            } catch  where Self.refusesItem(error) {
                try refused(plan, href: href, title: item.entry.title, error)
                return false
            } catch {
                throw roundError(error)
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
            } catch  where Self.refusesItem(error) {
                try refused(plan, href: href, title: plan.uid, error)
                return false
            } catch {
                throw roundError(error)
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
    func refused(_ plan: SyncPlanner.Plan, href: String, title: String, _ error: CalDAVError) throws(SyncError) {
        log("\(account): the server refused \(href): \(error.message)")
        try wrap { () throws(TodoError) in
            try state.record(
                SyncProblem(
                    kind: .refused, uid: plan.uid, href: href, title: SyncPlanner.shortTitle(title),
                    reason: error.message))
        }
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

    /// `store.import` in parts of at most about 512 KiB of JSON each (a request line holds 1 MiB).
    /// An entry todod's rules refuse (the import names it) is left out and the rest imported:
    /// returns the stale uids and the refused ones with why.
    func applyInParts(_ entries: [ExportDocument.Entry]) throws(SyncError) -> (
        stale: Set<String>, rejected: [String: String]
    ) {
        var entries = entries
        var rejected: [String: String] = [:]
        while true {
            // Named for the account in `undo --list`: an undo after a background round says so.
            switch try store.apply(entries, label: "sync \(account)") {
            case .applied(let stale): return (stale, rejected)
            case .refused(let index, let reason):
                guard entries.indices.contains(index), let uid = entries[index].uid else {
                    throw SyncError("todod refused the import: \(reason)")
                }
                rejected[uid] = reason
                entries.remove(at: index)
            }
        }
    }

    // MARK: - todoman's recurring completion

    /// Once the original advanced and went back to the server, its copy is deleted there (a copy
    /// changed meanwhile is kept, and comes back as a todo of its own). Otherwise the copy is
    /// remembered to be fetched and folded again.
    func settle(copy uid: String, _ copy: SyncGather.RecurringCopy, advanced: Bool, _ report: inout RoundReport)
        throws(SyncError)
    {
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
            throw roundError(error)
        }
        try wrap { () throws(TodoError) in try state.remove(uid: uid) }
    }
}
