import Synchronization
import TodoCalendar
import TodoCore
import TodoSQLite
import TodoTime

// The v2 fields of a todo as the store keeps them — `priority`, `tags`, `zone`, `allDay`,
// `recurrence` — checked on every write, and completing a recurring todo (docs/STORE.md).

/// The time zones todos name, read from the tz database once each (a todo's zone is checked to
/// exist when written, and read again to advance a recurrence or find where an all-day todo's
/// day ends).
package final class ZoneCatalog: Sendable {
    /// The tz database directory (`TZDIR`); nil means /usr/share/zoneinfo.
    private let tzdir: String?
    /// Zones read so far; only names that exist are kept, so it holds at most the database's zones.
    private let known = Mutex<[String: ZoneInfo]>([:])

    package init(tzdir: String? = nil) { self.tzdir = tzdir }

    /// The zone named `name`, nil when this machine has no such zone.
    package func zone(_ name: String) -> ZoneInfo? {
        if let zone = known.withLock({ $0[name] }) { return zone }
        guard let zone = ZoneInfo(identifier: name, tzdir: tzdir) else { return nil }
        known.withLock { $0[name] = zone }
        return zone
    }

    /// The zone a todo's dates are computed in: its own, or UTC when it has none (or when its zone
    /// has gone from this machine since).
    func zoneOrUTC(_ name: String?) -> ZoneInfo { name.flatMap(zone) ?? .utc }
}

/// How `todos.tags` holds a todo's tags: sorted, joined by single spaces (no tag holds white
/// space), NULL for none. `todo_tags` holds the same tags one row each, for lookups.
enum TagColumn {
    static func text(_ tags: [String]) -> String? { tags.isEmpty ? nil : tags.joined(separator: " ") }
    static func tags(_ text: String?) -> [String] {
        guard var text, !text.isEmpty else { return [] }
        return text.withUTF8(tags(bytes:))
    }

    /// The tags of the column's UTF-8 bytes, split on the space byte (not the Character: this
    /// runs for every todo read), into an array sized once.
    static func tags(bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        guard !bytes.isEmpty else { return [] }
        var spaces = 0
        for byte in bytes where byte == 0x20 { spaces += 1 }
        var tags: [String] = []
        tags.reserveCapacity(spaces + 1)
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x20 {
            if i > start {
                tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
            }
            start = i + 1
        }
        return tags
    }
}

extension StoreTransaction {
    // MARK: - Checking

    /// A zone name as IANA spells it that names a zone of this machine's tz database.
    func checkedZone(_ raw: String, field: String) throws(TodoError) -> String {
        let name = try Validation.zone(raw, field: field)
        guard zones.zone(name) != nil else {
            throw TodoError.invalid(field, "\(name) is not a time zone known on this machine")
        }
        return name
    }

    /// A recurrence whose rule parses (TodoCalendar), with the rule in its canonical text.
    func checkedRecurrence(_ recurrence: TodoRecurrence, field: String) throws(TodoError) -> TodoRecurrence {
        let text = try Validation.ruleText(recurrence.rule, field: field + ".rule")
        do {
            var checked = recurrence
            checked.rule = try RecurrenceRule(parsing: text).text
            return checked
        } catch {
            throw TodoError.invalid(field + ".rule", error.message)
        }
    }

    /// An all-day or recurring todo needs a due date: its day, its first occurrence.
    func checkSchedule(due: Instant?, allDay: Bool, recurrence: TodoRecurrence?, prefix: String = "") throws(TodoError)
    {
        guard due == nil else { return }
        if allDay { throw TodoError.invalid(prefix + "allDay", "needs a due date (the day the todo is due on)") }
        if recurrence != nil {
            throw TodoError.invalid(prefix + "recurrence", "needs a due date (its first occurrence)")
        }
    }

    /// The checked v2 fields of a new or imported todo; field names start with `prefix`
    /// (`todos[3].` for an import).
    func checkedFields(
        priority: TodoPriority?, tags: [String], zone: String?, allDay: Bool, recurrence: TodoRecurrence?,
        due: Instant?, prefix: String = ""
    ) throws(TodoError) -> (tags: [String], zone: String?, recurrence: TodoRecurrence?) {
        let tags = tags.isEmpty ? [] : try Validation.tags(tags, field: prefix + "tags")
        let zone = try zone.map { (z) throws(TodoError) in try checkedZone(z, field: prefix + "zone") }
        let recurrence = try recurrence.map { (r) throws(TodoError) in
            try checkedRecurrence(r, field: prefix + "recurrence")
        }
        try checkSchedule(due: due, allDay: allDay, recurrence: recurrence, prefix: prefix)
        return (tags, zone, recurrence)
    }

    /// `old` with a patch's tag changes: `tags` replaces the set, then `addTags` and `removeTags`
    /// apply. Spellings already there are kept; the result is sorted as `Validation.tags` sorts.
    func patchedTags(_ old: [String], _ patch: TodoPatch) throws(TodoError) -> [String] {
        var tags = old
        switch patch.tags {
        case .keep: break
        case .set(let t): tags = try Validation.tags(t, field: "tags")
        case .clear: tags = []
        }
        if !patch.addTags.isEmpty {
            let keys = Set(tags.map(Validation.tagKey))
            tags += try Validation.tags(patch.addTags, field: "addTags").filter {
                !keys.contains(Validation.tagKey($0))
            }
            guard tags.count <= Validation.maxTags else {
                throw TodoError.invalid("addTags", "would give the todo more than \(Validation.maxTags) tags")
            }
        }
        if !patch.removeTags.isEmpty {
            var gone: Set<String> = []
            for (i, tag) in patch.removeTags.enumerated() {
                gone.insert(Validation.tagKey(try Validation.tag(tag, field: "removeTags[\(i)]")))
            }
            tags.removeAll { gone.contains(Validation.tagKey($0)) }
        }
        return tags.sorted { (Validation.tagKey($0), $0) < (Validation.tagKey($1), $1) }
    }

    // MARK: - Writing

    /// The instant todo becomes overdue at (`due_end`): its due time, or for an all-day todo the
    /// start of the next day in its zone (UTC when it has none).
    func dueEnd(due: Instant?, allDay: Bool, zone: String?) -> Instant? {
        guard let due, allDay else { return due }
        let zone = zones.zoneOrUTC(zone)
        let day = LocalTime(due, in: zone).days
        return LocalTime.instant(days: day + 1, secondOfDay: 0, in: zone).map { max($0, due) } ?? due
    }

    /// Writes todo `id`'s tag rows (`todo_tags`), replacing any it had.
    func writeTags(_ id: Int64, _ tags: [String], replacing: Bool) throws(TodoError) {
        if replacing { try connection.run("DELETE FROM todo_tags WHERE todo_id = ?", [.integer(id)]) }
        for tag in tags {
            try connection.run(
                "INSERT INTO todo_tags (todo_id, tag, tag_key) VALUES (?, ?, ?)",
                [.integer(id), .text(tag), .text(Validation.tagKey(tag))])
        }
    }

    // MARK: - Completing a recurring todo

    /// Completes open todo `id` when it recurs and `stop` is false: it moves to the next occurrence
    /// of its recurrence set (in its zone; see TodoCalendar's `Recurrence.advance`: the start, when
    /// it has one, is the rule's anchor and the due keeps its distance from it), the reminder keeps
    /// its distance from the due (and is re-armed), `completed` records this completion, the rule
    /// keeps what is left of it (COUNT counts down), and the todo stays open. One row's update.
    /// - Returns: how its due moved (its subtasks move the same way), or nil when the todo is
    ///   done, does not recur, or its set is exhausted: it is then to be completed for good like
    ///   any todo.
    /// - Throws: `.conflict` when the stored rule cannot be used (nothing changes).
    func advanceIfRecurring(_ id: Int64) throws(TodoError) -> OccurrenceShift? {
        let found = try connection.firstRow(
            """
            SELECT recur_rule, recur_from, due, remind, zone, all_day, start, recur_set, alarms FROM todos
            WHERE id = ? AND done = 0 AND recur_rule IS NOT NULL AND due IS NOT NULL
            """, [.integer(id)]
        ) { s in
            var recurrence = TodoRecurrence(
                rule: s.text(0), from: s.optionalText(1).flatMap(RecurrenceBase.init(rawValue:)) ?? .due)
            recurrence.readSet(s.optionalText(7))
            return (
                recurrence: recurrence, due: s.instant(2), remind: s.optionalInstant(3), zone: s.optionalText(4),
                allDay: s.bool(5), start: s.optionalInstant(6), alarms: Alarm.alarms(storedText: s.optionalText(8))
            )
        }
        guard let t = found else { return nil }
        let next: Recurrence.Advanced?
        do {
            next = try Recurrence.advance(
                t.recurrence, due: t.due, start: t.start, zone: zones.zoneOrUTC(t.zone),
                completed: now, allDay: t.allDay)
        } catch {
            throw TodoError.conflict(
                "todo \(id) recurs by a rule this build cannot use (\(error.message)); complete it with stop to end it")
        }
        guard let next else { return nil }
        // The alarms at an instant keep their distance from the due (the others follow it), each
        // pending again for the next occurrence.
        let alarms = t.alarms.compactMap { a -> Alarm? in
            var moved = a.shifted(by: next.due.usec - t.due.usec)
            moved?.acknowledged = nil
            moved?.snoozedUntil = nil
            return moved
        }
        let remind = Alarm.nextFiring(alarms, after: nil, due: next.due, start: next.start)
        try connection.run(
            """
            UPDATE todos SET alarms = ?, due = ?, due_end = ?, remind = ?, start = ?, reminded = NULL, recur_rule = ?, recur_set = ?,
                completed = ?, updated = ?, revision = revision + 1
            WHERE id = ?
            """,
            [
                .optional(Alarm.storedText(alarms)),
                .integer(next.due.usec), .optional(dueEnd(due: next.due, allDay: t.allDay, zone: t.zone)),
                .optional(remind),
                .optional(next.start), .text(next.recurrence.rule), .optional(next.recurrence.setText),
                .integer(now.usec), .integer(now.usec), .integer(id)
            ])
        return OccurrenceShift(from: t.due, to: next.due, in: zones.zoneOrUTC(t.zone))
    }
}
