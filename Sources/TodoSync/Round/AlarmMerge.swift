import TodoCore

/// The three-way merge of a todo's alarms (`TodoField.MergeRule.byUID`), against the base, alarm
/// by alarm by uid: one added on either side is kept, one removed on either side is removed, one
/// changed on one side only takes that side's change, and one changed on both goes to the later
/// side (a conflict). Its acknowledgement and snooze are merged apart: the later acknowledgement
/// wins (then the later snooze), so "dismissed here" and "snoozed on the phone" never undo each
/// other. Pure: no I/O.
package enum AlarmMerge {
    /// Whether none of the three has an alarm: what differs is the reminder alone (a default
    /// one), taken whole.
    static func noAlarms(_ items: SyncItem...) -> Bool {
        items.allSatisfy { $0.entry.alarms?.isEmpty ?? true }
    }

    /// The merged list: the later side's alarms in its order, then those only the other side
    /// added; `conflict` when an alarm was changed differently on both sides (apart from its
    /// acknowledgement and snooze).
    package static func merge(base: [Alarm], local: [Alarm], remote: [Alarm], localWins: Bool) -> (
        alarms: [Alarm], conflict: Bool
    ) {
        let b = Dictionary(base.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        let l = Dictionary(local.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        let r = Dictionary(remote.map { ($0.uid, $0) }, uniquingKeysWith: { a, _ in a })
        let (first, second) = localWins ? (local, remote) : (remote, local)
        var seen = Set<String>()
        var out: [Alarm] = []
        var conflict = false
        for uid in (first + second).map(\.uid) where seen.insert(uid).inserted {
            switch (l[uid], r[uid]) {
            case (nil, nil): continue
            case (let only?, nil), (nil, let only?):
                // Added on one side (kept), or removed on the other (removed).
                if b[uid] == nil { out.append(only) }
            case (let lo?, let ro?):
                let (alarm, clash) = merged(base: b[uid], local: lo, remote: ro, localWins: localWins)
                out.append(alarm)
                conflict = conflict || clash
            }
        }
        return (out, conflict)
    }

    /// The alarms of two sides with no base (a todo both hold that was never synced): every alarm
    /// of either, those both hold merged as `merge` merges them, and one of the other side that
    /// fires as one already kept does (the same trigger and repeats under another uid: a `VALARM`
    /// without a `UID` read on each side) left out, so no reminder comes twice.
    package static func joined(local: [Alarm], remote: [Alarm], localWins: Bool) -> [Alarm] {
        var out: [Alarm] = []
        for alarm in merge(base: [], local: local, remote: remote, localWins: localWins).alarms {
            let fires = { (a: Alarm) in
                a.trigger == alarm.trigger && a.repeatCount == alarm.repeatCount && a.intervalUsec == alarm.intervalUsec
                    && a.ical == alarm.ical
            }
            if !out.contains(where: fires) { out.append(alarm) }
        }
        return out
    }

    /// One alarm both sides hold: its definition three-way (the later side on a clash), its
    /// acknowledgement and snooze from the side acknowledged later.
    static func merged(base: Alarm?, local: Alarm, remote: Alarm, localWins: Bool) -> (Alarm, conflict: Bool) {
        func definition(_ a: Alarm) -> Alarm {
            var d = a
            d.acknowledged = nil
            d.snoozedUntil = nil
            return d
        }
        let (ld, rd, bd) = (definition(local), definition(remote), base.map(definition))
        var out: Alarm
        var conflict = false
        if ld == rd || ld == bd {
            out = remote
        } else if rd == bd {
            out = local
        } else {
            out = localWins ? local : remote
            conflict = true
        }
        // The state: the later acknowledgement; the same one on both, the snooze that changed (or the later).
        let state: Alarm
        if local.acknowledged != remote.acknowledged {
            state = later(local.acknowledged, than: remote.acknowledged) ? local : remote
        } else if local.snoozedUntil == base?.snoozedUntil {
            state = remote
        } else if remote.snoozedUntil == base?.snoozedUntil {
            state = local
        } else {
            state = later(local.snoozedUntil, than: remote.snoozedUntil) ? local : remote
        }
        out.acknowledged = state.acknowledged
        out.snoozedUntil = state.snoozedUntil
        return (out, conflict)
    }

    /// Whether `a` is later than `b`, none being earliest.
    static func later(_ a: Instant?, than b: Instant?) -> Bool {
        guard let a else { return false }
        return b.map { a > $0 } ?? true
    }
}
