import TodoCore
import TodoRPC
import TodoUserFiles

/// What one pass decides, as a pure function of the store's side, the server's side and the
/// last synced versions (docs/SYNC.md): no I/O, no clock, no randomness. `SyncRound` gathers its
/// input and applies its result; the model test drives it directly.
package enum SyncPlanner {
    /// The remote side of one todo in this pass.
    enum Remote {
        /// Not among the server's changes: as the base says.
        case unchanged
        /// Not on the server (never was, or gone).
        case absent
        case present(href: String, etag: String, item: SyncItem, bytes: [UInt8])

        var item: SyncItem? { if case .present(_, _, let item, _) = self { item } else { nil } }
    }

    /// The local side: the todo now (nil: not in the store) and whether it moved in the order.
    struct Local {
        var todo: Todo?
        var moved: Bool
        /// The lines an iCalendar import kept of the todo in the store (`.some(nil)`: none); nil
        /// when not read this pass (the base's are the store's then: every round writes both).
        var ical: String?? = nil
    }

    /// Everything one pass decides from.
    struct Input {
        /// The todos to decide for (the ones placed in the order are added).
        var uids: Set<String>
        /// The store's side of every todo in `uids` (and of every open todo when `open` is set).
        var locals: [String: Local]
        /// The server's side, by uid (missing: unchanged).
        var remotes: [String: Remote] = [:]
        /// The last synced versions, by uid (of every todo in `uids`, and in `open` when set).
        var bases: [String: SyncedItem] = [:]
        /// The open todos' uids in the local manual order, when read (needed to place moves).
        var open: [String]?
        /// The sort orders of the last synced versions (`SyncState.sortOrders`), when `open` is read.
        var known: [String: Int64] = [:]
        /// The todos the server refused last time (their problem is cleared when nothing is left).
        var refused: Set<String> = []
        /// A first round's `--initial` mode with todos on both sides.
        var initialMode: String?
        /// A renumbering a failure cut off (or `--initial local`): every open todo is renumbered.
        var renumber = false
        /// The time conflicts are stamped with.
        var now: Instant
        var codec: VTodoCodec
    }

    enum RemoteWrite {
        /// `name` nil: a name of the applier's making.
        case create(name: String?, item: SyncItem)
        case update(href: String, etag: String, item: SyncItem)
        case delete(href: String, etag: String)
    }

    /// What to do for one todo.
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
        /// The conflict, with the value that lost.
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

    /// One pass's decisions.
    struct Output {
        var plans: [Plan] = []
        /// The sort orders chosen for todos moved (or new) here, or a renumbering.
        var placed: [String: Int64] = [:]
        /// Whether `placed` renumbers every open todo (a cut-off one is finished next round).
        var renumbering = false
        /// Refused todos with nothing left to send.
        var clearRefused: [String] = []
    }

    /// Decides one pass: places the todos moved (or new) here in the server's order, then plans
    /// each todo in uid order.
    static func plan(_ input: Input) -> Output {
        var out = Output()
        var uids = input.uids
        if let open = input.open {
            var known = input.known
            for (uid, remote) in input.remotes {
                if case .present(_, _, let item, _) = remote { known[uid] = item.sortOrder }
            }
            let moved = Set(
                open.filter { uid in
                    guard let local = input.locals[uid], local.todo?.position != nil else { return false }
                    guard !local.moved else { return true }
                    return input.uids.contains(uid)
                        && hasNoPlace(base: input.bases[uid], remote: input.remotes[uid] ?? .unchanged)
                        && changedHere(local.todo, base: input.bases[uid], input.codec)
                })
            // Todos coming from the server this pass go to the end of the local order.
            let incoming = input.remotes.compactMap { uid, remote -> Int64? in
                guard case .present(_, _, let item, _) = remote, !item.entry.done, input.locals[uid]?.todo == nil else {
                    return nil
                }
                return item.sortOrder
            }.min()
            (out.placed, out.renumbering) = place(
                moved: moved, open: open, known: known, incoming: incoming, renumber: input.renumber)
            uids.formUnion(out.placed.keys)
        }
        for uid in uids.sorted() {
            let local = input.locals[uid] ?? Local(todo: nil, moved: false)
            let base = input.bases[uid]
            var remote = input.remotes[uid] ?? .unchanged
            if case .unchanged = remote, let base, base.refetch {
                remote = .absent // refetched and not found
            }
            if let plan = plan(uid: uid, base: base, local: local, remote: remote, placed: out.placed[uid], input) {
                out.plans.append(plan)
            } else if input.refused.contains(uid) {
                out.clearRefused.append(uid)
            }
        }
        return out
    }

    /// Whether the store's todo differs from the last synced version (true without one): an
    /// import of the server's version is no change made here.
    static func changedHere(_ todo: Todo?, base: SyncedItem?, _ codec: VTodoCodec) -> Bool {
        guard let todo, let base, let baseItem = codec.base(base.base) else { return true }
        let local = codec.canonical(SyncItem(todo: todo, kept: baseItem.entry.ical).ordered(baseItem.sortOrder))
        return !ThreeWayMerge.sameContent(local, baseItem)
    }

    /// A todo without a place in the server's order: the server's new version has no sort order,
    /// or (unchanged there) the last synced one has none (never synced, a creation not confirmed,
    /// a todo sent while done or from a client without sort orders). Open and changed here, it is
    /// placed.
    static func hasNoPlace(base: SyncedItem?, remote: Remote) -> Bool {
        if case .present(_, _, let item, _) = remote { return item.sortOrder == nil }
        guard let base, !base.base.isEmpty else { return true }
        return SyncState.sortOrder(in: String(decoding: base.base, as: UTF8.self)) == nil
    }

    /// What to do for one todo, from its base, its store side and its server side; `placed` is
    /// the sort order `place` chose for it (a move here, or a renumbering).
    static func plan(uid: String, base: SyncedItem?, local: Local, remote: Remote, placed: Int64? = nil, _ input: Input)
        -> Plan?
    {
        let codec = input.codec
        let initialMode = input.initialMode
        let baseItem: SyncItem? = base.flatMap { codec.base($0.base) }
        var remoteItem: (href: String, etag: String, item: SyncItem, bytes: [UInt8])?
        switch remote {
        case .unchanged:
            if let base, let baseItem, !base.etag.isEmpty { remoteItem = (base.href, base.etag, baseItem, base.base) }
        case .absent: remoteItem = nil
        case .present(let href, let etag, let item, let bytes): remoteItem = (href, etag, item, bytes)
        }
        // The store's kept lines when this pass read them, else the base's (or the server's).
        let kept: String? =
            if case .some(let known) = local.ical { known } else { baseItem?.entry.ical ?? remoteItem?.item.entry.ical }
        let localItem: SyncItem? = local.todo.map { todo in
            var item = SyncItem(todo: todo, kept: kept)
            if let placed, todo.position != nil {
                item.sortOrder = placed
            } else if let baseItem, !local.moved || todo.position == nil {
                item.sortOrder = baseItem.sortOrder
            }
            item = codec.canonical(item)
            item.entry.updated = todo.updated // to the microsecond, for the merge's "later"
            return item
        }
        var p = Plan(uid: uid, base: base, remote: remote, localID: local.todo?.id, revision: local.todo?.revision)
        if local.todo?.position != nil { p.placed = placed }
        // The name a cut-off round already chose for a new resource (else the applier makes one,
        // never derived from the UID).
        let newName: String? =
            if let base, base.etag.isEmpty, let name = base.href.split(separator: "/").last { String(name) } else {
                nil
            }
        func conflict(_ fields: [String], kept: String, title: String, lost: String) -> SyncStatus.Conflict {
            SyncStatus.Conflict(at: input.now, uid: uid, title: title, fields: fields, kept: kept, lost: lost)
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
                p.conflict = conflict(
                    ["deleted"], kept: "local", title: l.entry.title, lost: "its deletion on the server")
            }
            p.remoteWrite = .create(name: newName, item: l)
        case (nil, let r?):
            if let base, !base.etag.isEmpty, let baseItem {
                if ThreeWayMerge.sameContent(input.codec.canonical(r.item), baseItem) {
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
            guard
                merge(
                    &p, local: l, remote: r, baseItem: baseItem, placed: placed, revision: local.todo?.revision, input)
            else { return nil }
        }
        return p
    }

    /// Both sides hold the todo: merged against the base (or one side taken whole by a first
    /// round's `--initial`), and what goes where. False when the two are in step.
    static func merge(
        _ p: inout Plan, local l: SyncItem, remote r: (href: String, etag: String, item: SyncItem, bytes: [UInt8]),
        baseItem: SyncItem?, placed: Int64?, revision: Int64?, _ input: Input
    ) -> Bool {
        var remote = input.codec.canonical(r.item)
        // todoman and others complete a recurring todo by marking it COMPLETED: here it
        // advances instead (todo.complete), and the advanced todo goes back.
        if remote.entry.done, remote.entry.recurrence != nil, let baseItem, !baseItem.entry.done, !l.entry.done,
            l.entry.recurrence != nil
        {
            remote.entry.done = false
            remote.entry.completed = nil
            p.completeAfter = true
        }
        var outcome = ThreeWayMerge.merge(base: baseItem, local: l, remote: remote)
        if baseItem == nil, let mode = input.initialMode {
            // A first round's --initial remote or local: that side wins whole.
            outcome.merged = mode == "remote" ? remote : l
            outcome.merged.entry.uid = remote.entry.uid ?? l.entry.uid
        }
        if baseItem == nil, placed == nil, let order = remote.sortOrder {
            // Matched by UID without a base (a lost state): the server's place is kept, and
            // the store follows it; the store's position is no sort order.
            outcome.merged.sortOrder = order
        }
        let merged = input.codec.canonical(outcome.merged)
        if !outcome.conflicts.isEmpty {
            let losing = outcome.kept == "local" ? remote : l
            p.conflict = SyncStatus.Conflict(
                at: input.now, uid: p.uid, title: merged.entry.title, fields: outcome.conflicts.map(\.rawValue),
                kept: outcome.kept,
                lost: outcome.conflicts.map { "\($0.rawValue) \(shown($0, losing))" }.joined(separator: ", "))
        }
        if !ThreeWayMerge.sameContent(merged, l) || p.completeAfter {
            var entry = merged.entry
            entry.ifRevision = revision
            p.localWrite = entry
        }
        let orderChanged = merged.sortOrder != nil && merged.sortOrder != remote.sortOrder
        p.known = merged.sortOrder
        // Reordered on the server (and not here, or later there): the local order follows.
        if let baseItem, let target = merged.sortOrder, target == remote.sortOrder, target != baseItem.sortOrder,
            target != l.sortOrder
        {
            p.move = target
            p.moveUp = baseItem.sortOrder.map { target < $0 } ?? false
        }
        if !ThreeWayMerge.sameContent(merged, remote) || orderChanged || p.completeAfter {
            p.remoteWrite = .update(href: r.href, etag: r.etag, item: merged)
        } else if p.base?.etag != r.etag || p.base?.base != r.bytes || p.base?.refetch == true {
            p.newState = .some(SyncedItem(uid: p.uid, href: r.href, etag: r.etag, base: r.bytes))
        } else if p.localWrite == nil {
            return false // in step: the echo of what the last round wrote
        }
        return true
    }

    // MARK: - The manual order

    /// Sort orders for the open todos moved (or new) here (`moved`), from their new neighbours in
    /// the local order (`open`, uids top to bottom) and the sort orders the server knows (`known`:
    /// the bases', or what it has now). From the top, so each moved todo's neighbours are settled:
    /// with P the known sort order of the nearest todo above and N that of the nearest settled one
    /// below (todos without one are skipped), the midpoint when N − P ≥ 2, P + 1024 with none
    /// below, N − 1024 with none above, 1024 with neither. Todos about to come from the server
    /// (`incoming`: the lowest of their sort orders) go below the local ones, so they count as
    /// the one below the bottom when they leave room. No room (or no value in Int64), or
    /// `renumber`: every open todo gets 1024, 2048, ... in local order. Returns the todos whose
    /// sort order changes, and whether that is a renumbering.
    static func place(
        moved: Set<String>, open: [String], known: [String: Int64], incoming: Int64? = nil,
        renumber: Bool = false
    ) -> (orders: [String: Int64], renumbered: Bool) {
        func renumbered() -> (orders: [String: Int64], renumbered: Bool) {
            var fresh: [String: Int64] = [:]
            for (j, uid) in open.enumerated() {
                let order = Int64(j + 1) * 1024
                if moved.contains(uid) || known[uid] != order { fresh[uid] = order }
            }
            return (fresh, true)
        }
        if renumber { return renumbered() }
        // The nearest known sort order below each place among the todos not moved.
        var below = [Int64?](repeating: nil, count: open.count)
        var next: Int64?
        for i in open.indices.reversed() {
            below[i] = next
            if !moved.contains(open[i]), let k = known[open[i]] { next = k }
        }
        var out: [String: Int64] = [:]
        var above: Int64?
        for (i, uid) in open.enumerated() {
            guard moved.contains(uid) else {
                if let k = known[uid] { above = k }
                continue
            }
            var bound = below[i]
            if bound == nil, let incoming, above.map({ incoming > $0 }) ?? true { bound = incoming }
            guard let order = between(above, bound) else { return renumbered() }
            above = order
            out[uid] = order
        }
        return (out, false)
    }

    /// A sort order strictly between `above` and `below` (either may be missing), or nil when
    /// there is none (no room, or past Int64's range).
    static func between(_ above: Int64?, _ below: Int64?) -> Int64? {
        switch (above, below) {
        case (let p?, let n?):
            guard n > p else { return nil }
            let (gap, overflow) = n.subtractingReportingOverflow(p)
            if overflow { return (p >> 1) + (n >> 1) } // a gap beyond Int64: both halves, still between
            return gap >= 2 ? p + gap / 2 : nil
        case (let p?, nil):
            let (order, overflow) = p.addingReportingOverflow(1024)
            return overflow ? nil : order
        case (nil, let n?):
            let (order, overflow) = n.subtractingReportingOverflow(1024)
            return overflow ? nil : order
        case (nil, nil):
            return 1024
        }
    }

    /// The order the store's open todos take after a round (`open`, top to bottom): the todos in
    /// step with the server (`known` holds their sort order) in ascending sort order, then by uid
    /// (two stores that placed new todos at one place at once gave them one sort order), each in
    /// one of the places they held; the others (pending, refused, with no sort order) keep theirs.
    static func followingServer(open: [String], known: [String: Int64]) -> [String] {
        let slots = open.indices.filter { known[open[$0]] != nil }
        let sorted = slots.map { open[$0] }.sorted { a, b in
            let (x, y) = (known[a]!, known[b]!)
            return x != y ? x < y : a < b
        }
        var out = open
        for (slot, uid) in zip(slots, sorted) { out[slot] = uid }
        return out
    }

    // MARK: - Shown to people

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
        case .alarms:
            let alarms = e.alarms ?? []
            guard !alarms.isEmpty else { return e.remind.map { "reminder " + $0.rfc3339() } ?? "none" }
            return "\(alarms.count) alarm\(alarms.count == 1 ? "" : "s")"
                + (e.remind.map { ", next " + $0.rfc3339() } ?? "")
        case .reminded: return e.reminded?.rfc3339() ?? "none"
        case .done: return e.done ? "done" : "open"
        case .priority: return e.priority?.rawValue ?? "none"
        case .recurrence: return e.recurrence?.rule ?? "none"
        case .order: return item.sortOrder.map { String($0) } ?? "none"
        case .parent: return e.parent.map { "subtask of " + $0 } ?? "none"
        case .start: return e.start?.rfc3339() ?? "none"
        case .ical: return "\(e.ical?.utf8.count ?? 0) bytes of other properties"
        }
    }

    /// A title short enough for one line of `sync status`.
    static func shortTitle(_ title: String) -> String {
        let line = String(title.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return line.count > 80 ? String(line.prefix(79)) + "…" : line
    }
}
