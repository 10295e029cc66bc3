import TodoCore
import TodoSQLite
import TodoTime

// The subtasks of a recurring todo that advanced: done with the occurrence that was completed,
// open again for the next one, their dates moved as the parent's due moved (docs/RECURRENCE.md).

/// How a recurring todo's due moved when it advanced, as a change of local date and wall-clock
/// time in its zone: its subtasks' dates move the same way, each in its own zone, so that a
/// subtask due at 18:00 the day before stays at 18:00 the day before across a change of UTC
/// offset, and an all-day one stays on a date.
struct OccurrenceShift: Sendable, Equatable {
    /// The due of the occurrence that was completed.
    var oldDue: Instant
    /// The due of the next occurrence.
    var newDue: Instant
    /// Local days from the old due's date to the new due's, in the todo's zone.
    var days: Int64
    /// The change of the due's wall-clock time, in seconds (0 unless the rule moved the time).
    var seconds: Int64

    /// The move from `oldDue` to `newDue`, read in `zone` (the advanced todo's).
    init(from oldDue: Instant, to newDue: Instant, in zone: ZoneInfo) {
        self.oldDue = oldDue
        self.newDue = newDue
        let old = LocalTime(oldDue, in: zone)
        let new = LocalTime(newDue, in: zone)
        days = new.days - old.days
        seconds = new.secondOfDay - old.secondOfDay
    }

    /// `instant` moved as the due moved, read in `zone`: the date of an all-day todo (its local
    /// midnight), else the local date and time. Where that names no instant (beyond the year
    /// 9999) it moves by the due's own distance, or not at all.
    func move(_ instant: Instant, in zone: ZoneInfo, allDay: Bool) -> Instant {
        let local = LocalTime(instant, in: zone)
        let micros = (instant.usec % 1_000_000 + 1_000_000) % 1_000_000
        let moved =
            allDay
            ? LocalTime.instant(days: local.days + days, secondOfDay: 0, in: zone)
            : LocalTime.instant(
                days: local.days + days, secondOfDay: local.secondOfDay + seconds, micros: micros,
                in: zone)
        return moved ?? instant.checkedAdding(usec: newDue.usec - oldDue.usec) ?? instant
    }
}

extension StoreTransaction {
    /// Completes the open subtasks of todo `id` at any depth, as `done` of each would: a
    /// recurring one advances to its next occurrence and stays open, its own subtasks renewed
    /// for it (`renewSubtasks`) rather than completed; a used-up rule completes it for good.
    /// Todos in `seen` are left alone (named in the same request); every todo visited joins it.
    /// - Returns: the todos changed, parents before their subtasks.
    func completeSubtasks(of id: Int64, seen: inout Set<Int64>) throws(TodoError) -> [Int64] {
        var touched: [Int64] = []
        var stack = try subtaskIDs(of: id).reversed() as [Int64]
        while let child = stack.popLast() {
            guard seen.insert(child).inserted else { continue }
            let open =
                try connection.firstRow("SELECT done FROM todos WHERE id = ?", [.integer(child)]) { $0.bool(0) }
                == false
            if open, let shift = try advanceIfRecurring(child) {
                touched.append(child)
                touched += try renewSubtasks(of: child, shift: shift, seen: &seen)
                continue
            }
            if open {
                try markDone(child, true)
                touched.append(child)
            }
            stack += try subtaskIDs(of: child).reversed()
        }
        return touched
    }

    /// Renews the subtasks of todo `parent`, which advanced by `shift`, for its next occurrence,
    /// at any depth: a subtask is open again (a done one reopened) with its due, start and
    /// reminder moved by `shift` (the reminder re-armed), and its own subtasks renewed the same
    /// way. A recurring subtask follows its own rule instead: one whose occurrence is due by the
    /// parent's completed one advances as `done` of it would (its subtasks then follow it; a
    /// used-up rule completes it for good with its open subtasks); one due later, or whose series
    /// has ended (done), is left as it is with its subtasks. Todos in `seen` are left alone
    /// (named in the same request); every todo visited joins it.
    /// - Returns: the todos changed, parents before their subtasks, each level in manual order.
    func renewSubtasks(of parent: Int64, shift: OccurrenceShift, seen: inout Set<Int64>) throws(TodoError) -> [Int64] {
        var touched: [Int64] = []
        for child in try subtaskIDs(of: parent) where seen.insert(child).inserted {
            let found = try connection.firstRow(
                "SELECT done, recur_rule IS NOT NULL, due FROM todos WHERE id = ?",
                [.integer(child)]
            ) { ($0.bool(0), $0.bool(1), $0.optionalInstant(2)) }
            guard let (done, recurs, due) = found else { continue }
            if recurs, let due {
                guard !done, due <= shift.oldDue else { continue }
                if let own = try advanceIfRecurring(child) {
                    touched.append(child)
                    touched += try renewSubtasks(of: child, shift: own, seen: &seen)
                } else {
                    try markDone(child, true)
                    touched.append(child)
                    for other in try openDescendants(of: child) where seen.insert(other).inserted {
                        try markDone(other, true)
                        touched.append(other)
                    }
                }
                continue
            }
            if try reopen(child, movedBy: shift) { touched.append(child) }
            touched += try renewSubtasks(of: child, shift: shift, seen: &seen)
        }
        return touched
    }

    /// Opens todo `id` with its due, start and reminder moved by `shift` (the reminder re-armed).
    /// - Returns: whether anything changed (an open todo without dates stays as it is).
    private func reopen(_ id: Int64, movedBy shift: OccurrenceShift) throws(TodoError) -> Bool {
        let found = try connection.firstRow(
            "SELECT done, due, start, remind, zone, all_day, alarms FROM todos WHERE id = ?",
            [.integer(id)]
        ) {
            (
                done: $0.bool(0), due: $0.optionalInstant(1), start: $0.optionalInstant(2),
                remind: $0.optionalInstant(3),
                zone: $0.optionalText(4), allDay: $0.bool(5), alarms: Alarm.alarms(storedText: $0.optionalText(6))
            )
        }
        guard let t = found, t.done || t.due != nil || t.start != nil || t.remind != nil else { return false }
        let zone = zones.zoneOrUTC(t.zone)
        let due = t.due.map { shift.move($0, in: zone, allDay: t.allDay) }
        let start = t.start.map { shift.move($0, in: zone, allDay: t.allDay) }
        // Alarms at an instant move with the occurrence, the others follow due and start; each pending again.
        let alarms = t.alarms.map { a -> Alarm in
            var moved = a
            if case .at(let at) = a.trigger { moved.trigger = .at(shift.move(at, in: zone, allDay: false)) }
            moved.acknowledged = nil
            moved.snoozedUntil = nil
            return moved
        }
        let remind =
            t.alarms.isEmpty
            ? t.remind.map { shift.move($0, in: zone, allDay: false) }
            : Alarm.nextFiring(alarms, after: nil, due: due, start: start)
        try connection.run(
            """
            UPDATE todos SET alarms = ?, done = 0, completed = NULL, due = ?, due_end = ?, start = ?, remind = ?,
                reminded = CASE WHEN ? IS NULL THEN reminded END, updated = ?, revision = revision + 1
            WHERE id = ?
            """,
            [
                .optional(Alarm.storedText(alarms)),
                .optional(due), .optional(dueEnd(due: due, allDay: t.allDay, zone: t.zone)), .optional(start),
                .optional(remind), .optional(remind), .integer(now.usec), .integer(id)
            ])
        return true
    }
}
