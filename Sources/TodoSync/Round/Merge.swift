import TodoCore

/// The fields the merge works on, each compared and taken whole (tags as a set, alarms by
/// uid). `due` carries `allDay` and `zone`, `done` carries `completed`, `alarms` carries `remind`
/// (their next firing): they only make sense together.
package enum SyncField: String, CaseIterable, Sendable {
    case title, notes, category, tags, due, alarms, reminded, done, priority, recurrence, order
    /// The parent's uid (`RELATED-TO`) and the start (`DTSTART`).
    case parent, start
    /// What iCalendar kept of the VTODO (unknown properties): an import here or an edit elsewhere changes it.
    case ical
}

extension SyncField {
    /// The merge field that carries a todo's field (`TodoField.mergeRule`): its own, or the one
    /// it is taken with; nil for a field the merge does not take. Exhaustive: a new todo field
    /// must say here how it syncs.
    package init?(_ field: TodoField) {
        switch field {
        case .title: self = .title
        case .notes: self = .notes
        case .category: self = .category
        case .tags: self = .tags
        case .due, .zone, .allDay: self = .due
        case .remind, .alarms: self = .alarms
        case .reminded: self = .reminded
        case .done, .completed: self = .done
        case .priority: self = .priority
        case .recurrence: self = .recurrence
        case .position: self = .order
        case .parent, .parentUid: self = .parent
        case .start: self = .start
        case .id, .uid, .created, .updated, .revision, .subtasks: return nil
        }
    }
}

/// The field-level three-way merge of SPEC §9 (docs/SYNC.md): against the last synced version
/// (the base), fields changed on one side only are taken from that side, fields both sides
/// changed the same way are kept, and a field both changed differently is a conflict: the side
/// with the later `updated` (LAST-MODIFIED) wins it, the remote on a tie. The store's side keeps
/// its microseconds, so within the second a VTODO's LAST-MODIFIED names, the store's change counts as later. Tags merge as sets: what
/// either side added is added, what either side removed is removed. Alarms merge by uid
/// (`AlarmMerge`), and `remind` follows the merged list. Pure: no I/O.
package enum ThreeWayMerge {
    package struct Outcome: Sendable, Equatable {
        package var merged: SyncItem
        /// The fields both sides changed differently (empty: no conflict).
        package var conflicts: [SyncField]
        /// `local` or `remote`: the side that won the conflicting fields.
        package var kept: String
    }

    /// Merges `local` and `remote` against `base`. Without a base (a todo both sides hold that
    /// was never synced: a resync after lost state), the later side wins whole, and tags and
    /// alarms are joined (`AlarmMerge.joined`); that is not reported as a conflict.
    package static func merge(base: SyncItem?, local: SyncItem, remote: SyncItem) -> Outcome {
        let localWins = local.entry.updated > remote.entry.updated
        var merged = localWins ? local : remote
        var conflicts: [SyncField] = []
        var derivedAlarms = false
        guard let base else {
            merged.entry.tags = union(local.entry.tags, remote.entry.tags)
            if !AlarmMerge.noAlarms(local, remote) {
                let alarms = AlarmMerge.joined(
                    local: local.entry.alarms ?? [], remote: remote.entry.alarms ?? [], localWins: localWins)
                merged.entry.alarms = alarms
                (merged.entry.remind, merged.entry.reminded) =
                    alarms.isEmpty
                    ? (nil, nil) : Alarm.reminder(alarms, due: merged.entry.due, start: merged.entry.start)
            }
            merged.entry.updated = max(local.entry.updated, remote.entry.updated)
            if merged.entry.ical == nil { merged.entry.ical = remote.entry.ical }
            return Outcome(merged: merged, conflicts: [], kept: localWins ? "local" : "remote")
        }
        for field in SyncField.allCases {
            let b = value(field, base)
            let l = value(field, local)
            let r = value(field, remote)
            let chosen: SyncItem
            if l == r || l == b {
                chosen = remote
            } else if r == b {
                chosen = local
            } else if field == .tags {
                merged.entry.tags = mergedTags(
                    base: base.entry.tags, local: local.entry.tags, remote: remote.entry.tags)
                continue
            } else if field == .alarms, !AlarmMerge.noAlarms(base, local, remote) {
                let m = AlarmMerge.merge(
                    base: base.entry.alarms ?? [], local: local.entry.alarms ?? [], remote: remote.entry.alarms ?? [],
                    localWins: localWins)
                merged.entry.alarms = m.alarms
                derivedAlarms = true
                if m.conflict { conflicts.append(.alarms) }
                continue
            } else {
                conflicts.append(field)
                chosen = localWins ? local : remote
            }
            set(field, from: chosen, into: &merged)
        }
        if derivedAlarms, let alarms = merged.entry.alarms, !alarms.isEmpty {
            // The next firing of the merged list, after `due` and `start` were merged.
            (merged.entry.remind, merged.entry.reminded) = Alarm.reminder(
                alarms, due: merged.entry.due, start: merged.entry.start)
        } else if derivedAlarms {
            merged.entry.remind = nil
            merged.entry.reminded = nil
        }
        merged.entry.uid = remote.entry.uid ?? local.entry.uid
        merged.entry.created = min(local.entry.created, remote.entry.created)
        merged.entry.updated = max(local.entry.updated, remote.entry.updated)
        return Outcome(merged: merged, conflicts: conflicts, kept: localWins ? "local" : "remote")
    }

    /// Whether two items hold the same todo, `updated`, `created` and the manual order aside:
    /// what decides that a side changed (compare canonical items, `VTodoCodec.canonical`).
    package static func sameContent(_ a: SyncItem, _ b: SyncItem) -> Bool {
        SyncField.allCases.allSatisfy { $0 == .order || value($0, a) == value($0, b) }
    }

    /// The fields in which `a` and `b` differ.
    package static func differences(_ a: SyncItem, _ b: SyncItem) -> [SyncField] {
        SyncField.allCases.filter { value($0, a) != value($0, b) }
    }

    /// A field's value as comparable text (one encoding per field; never shown).
    static func value(_ field: SyncField, _ item: SyncItem) -> [String?] {
        let e = item.entry
        switch field {
        case .title: return [e.title]
        case .notes: return [e.notes]
        case .category: return [e.category?.lowercased()]
        case .tags: return e.tags.map { $0.lowercased() }.sorted()
        case .due: return [e.due.map { String($0.usec) }, String(e.allDay), e.due == nil ? nil : e.zone]
        case .alarms:
            // The alarms by uid; without any, the reminder the todo has anyway (a default one).
            guard let alarms = e.alarms, !alarms.isEmpty else { return [e.remind.map { String($0.usec) }] }
            return alarms.map(\.storedLine).sorted()
        case .reminded: return [e.reminded.map { String($0.usec) }]
        case .done: return [String(e.done), e.done ? e.completed.map { String($0.seconds) } : nil]
        case .priority: return [e.priority?.rawValue]
        case .recurrence: return [e.recurrence?.rule, e.recurrence?.from.rawValue]
        case .order: return [item.sortOrder.map { String($0) }]
        case .parent: return [e.parent]
        case .start: return [e.start.map { String($0.seconds) }]
        case .ical:
            // The kept lines as a set: a server may store a resource's properties in another order.
            // The line a start was read from (`^`) follows the start, which is compared as itself.
            guard let ical = e.ical else { return [] }
            return ical.split(separator: "\n").filter { !$0.hasPrefix("^") }.map(String.init).sorted()
        }
    }

    static func set(_ field: SyncField, from source: SyncItem, into target: inout SyncItem) {
        let s = source.entry
        switch field {
        case .title: target.entry.title = s.title
        case .notes: target.entry.notes = s.notes
        case .category: target.entry.category = s.category
        case .tags: target.entry.tags = s.tags
        case .due:
            target.entry.due = s.due
            target.entry.allDay = s.allDay
            target.entry.zone = s.zone
        case .alarms:
            target.entry.remind = s.remind
            target.entry.alarms = s.alarms
        case .reminded: target.entry.reminded = s.reminded
        case .done:
            target.entry.done = s.done
            target.entry.completed = s.completed
        case .priority: target.entry.priority = s.priority
        case .recurrence: target.entry.recurrence = s.recurrence
        case .order: target.sortOrder = source.sortOrder
        case .parent: target.entry.parent = s.parent
        case .start: target.entry.start = s.start
        case .ical: target.entry.ical = s.ical
        }
    }

    /// Set merge of tags, case-insensitively: the base's tags that neither side removed, plus
    /// what either side added (the local spelling first).
    static func mergedTags(base: [String], local: [String], remote: [String]) -> [String] {
        let b = Set(base.map { $0.lowercased() })
        let l = Set(local.map { $0.lowercased() })
        let r = Set(remote.map { $0.lowercased() })
        var out: [String] = []
        var seen: Set<String> = []
        for tag in local + remote {
            let key = tag.lowercased()
            let keep = b.contains(key) ? (l.contains(key) && r.contains(key)) : true
            if keep, seen.insert(key).inserted { out.append(tag) }
        }
        return Array(out.prefix(32)).sorted { $0.lowercased() < $1.lowercased() }
    }

    static func union(_ a: [String], _ b: [String]) -> [String] {
        var seen: Set<String> = []
        return Array((a + b).filter { seen.insert($0.lowercased()).inserted }.prefix(32)).sorted {
            $0.lowercased() < $1.lowercased()
        }
    }
}
