import TodoCore
import TodoSQLite

// Reading the change log out (docs/PROTOCOL.md `store.changes`, `watch` `since`): what changed
// after a seq, as the current state of each todo, or change by change as the log recorded it. A
// change's rows are the range `first_n...last_n` of `change_rows` (ChangeLog.swift): every query
// walks `changes` by seq and reads each one's rows by that range of the primary key. `NOT INDEXED`
// keeps it so: left to itself SQLite builds an automatic index on `tbl` and scans every todo row
// of the log once per change (8,000 changes took seconds a page).

/// One todo of a `store.changes` page: the latest change after `since` that touched it, and its
/// state now (nil when it is deleted: a tombstone).
package struct ChangedTodo: Sendable, Equatable {
    package var seq: Int64
    package var kind: ChangeKind
    package var uid: String
    package var todo: Todo?
    /// What an iCalendar import kept of the todo (`todos.ical_extra`), nil when nothing.
    package var ical: String? = nil
}

/// One change of the log as `watch` replays it: the todos and categories it wrote, each as the
/// log's image of it just after the change (just before, for one it deleted).
package struct LoggedChange: Sendable {
    /// How a change left a row it wrote.
    package enum Effect: Sendable, Equatable { case inserted, updated, deleted }

    package struct TodoImage: Sendable {
        package var todo: Todo
        package var effect: Effect
    }

    package struct CategoryImage: Sendable {
        package var id: Int64
        package var name: String
        /// The name before the change, when it changed the name.
        package var oldName: String?
        package var effect: Effect
    }

    package var seq: Int64
    package var kind: ChangeKind
    /// In the order the change first wrote them.
    package var todos: [TodoImage] = []
    package var categories: [CategoryImage] = []
}

extension StoreTransaction {
    /// Refuses a `since` the log no longer reaches back to (`.historyGone`), or one after the
    /// newest change (`.invalidField` `since`: a seq of another store, or of a restored older
    /// file). The oldest change still listed may be pruned in part, so `since` must be at least
    /// its seq — unless nothing was ever pruned (the oldest is seq 1).
    package func checkHistory(since: Int64) throws(TodoError) {
        let newest = try currentSeq()
        guard since <= newest else {
            throw TodoError.invalid("since", "\(since) is after the newest change of this store (\(newest))")
        }
        guard since < newest else { return }
        guard let oldest = try oldestSeq() else { throw TodoError.historyGone(since: since, oldest: newest) }
        if since < oldest && oldest > 1 { throw TodoError.historyGone(since: since, oldest: oldest) }
    }

    /// `store.changes`: every todo changed after `since`, once, at its latest change, oldest
    /// first, with its state now. A page ends at a change's end, never inside one: at most `limit`
    /// todos, except that a single change that wrote more comes whole. `more` says whether later
    /// changes are left for the next page, asked for with `since` = the last item's seq.
    /// - Throws: `.historyGone` (see `checkHistory`).
    package func changedTodos(after since: Int64, limit: Int) throws(TodoError) -> (changes: [ChangedTodo], more: Bool)
    {
        try checkHistory(since: since)
        // Each todo's latest change after `since`, with that change's kind.
        let latest = """
            SELECT r.row_id, max(k.seq) AS s FROM changes k CROSS JOIN change_rows r NOT INDEXED ON r.n BETWEEN k.first_n AND k.last_n WHERE k.seq > ?1 AND r.tbl = 'todo' GROUP BY r.row_id
            """
        let select = "SELECT l.row_id, l.s, k.kind FROM (\(latest)) l JOIN changes k ON k.seq = l.s"
        func read(_ sql: String, _ values: [SQLValue]) throws(TodoError) -> [(id: Int64, seq: Int64, kind: ChangeKind)]
        {
            try connection.rows(sql, values) { s in (s.int64(0), s.int64(1), ChangeKind(rawValue: s.text(2)) ?? .update)
            }
        }
        var rows = try read("\(select) ORDER BY l.s, l.row_id LIMIT ?2", [.integer(since), .integer(Int64(limit) + 1)])
        var more = rows.count > limit
        if more {
            // Cut before the change the page would split; a change larger than the page comes whole.
            let split = rows[limit].seq
            rows.removeLast(rows.count - limit)
            rows.removeAll { $0.seq == split }
            if rows.isEmpty {
                rows = try read(
                    "SELECT * FROM (\(select)) WHERE s = ?2 ORDER BY row_id", [.integer(since), .integer(split)])
                more =
                    try connection.firstRow(
                        "SELECT 1 FROM changes k CROSS JOIN change_rows r NOT INDEXED ON r.n BETWEEN k.first_n AND k.last_n WHERE k.seq > ? AND r.tbl = 'todo' LIMIT 1",
                        [.integer(split)]
                    ) { _ in true } != nil
            }
        }
        // The todos still there, read by id, their positions counted in one pass.
        var stored: [TodoRow] = []
        stored.reserveCapacity(rows.count)
        for row in rows {
            if let found = try connection.firstRow(todoByID, [.integer(row.id)], TodoRow.init) { stored.append(found) }
        }
        var now: [Int64: Todo] = [:]
        for todo in try withPositions(stored) { now[todo.id] = todo }
        var changes: [ChangedTodo] = []
        changes.reserveCapacity(rows.count)
        for row in rows {
            if let todo = now[row.id] {
                let ical = try connection.firstRow(
                    "SELECT ical_extra FROM todos WHERE id = ? AND ical_extra IS NOT NULL",
                    [.integer(row.id)]
                ) { $0.text(0) }
                changes.append(ChangedTodo(seq: row.seq, kind: row.kind, uid: todo.uid, todo: todo, ical: ical))
                continue
            }
            // Deleted: its uid from the last image the log has of it.
            let gone = try connection.firstRow(
                """
                SELECT coalesce(r.a_uid, r.b_uid) FROM changes k CROSS JOIN change_rows r NOT INDEXED ON r.n BETWEEN k.first_n AND k.last_n
                WHERE k.seq = ? AND r.tbl = 'todo' AND r.row_id = ? ORDER BY r.n DESC LIMIT 1
                """, [.integer(row.seq), .integer(row.id)]
            ) { $0.text(0) }
            changes.append(ChangedTodo(seq: row.seq, kind: row.kind, uid: gone ?? "", todo: nil))
        }
        return (changes, more)
    }

    /// The changes after `since` up to `through`, in commit order, each with the rows it wrote
    /// as the log's images hold them: for `watch` `since`. A todo's `category` is its category's
    /// name now (nil when that category is gone since), and its `position` is nil (the order of
    /// the others moved on since).
    /// - Throws: `.historyGone` (see `checkHistory`).
    package func loggedChanges(after since: Int64, through: Int64) throws(TodoError) -> [LoggedChange] {
        try checkHistory(since: since)
        guard since < through else { return [] }
        var changes: [LoggedChange] = []
        var index: [Int64: Int] = [:]
        try connection.rows(
            "SELECT seq, kind FROM changes WHERE seq > ?1 AND seq <= ?2 ORDER BY seq",
            [.integer(since), .integer(through)]
        ) { s in (s.int64(0), ChangeKind(rawValue: s.text(1)) ?? .update) }
        .forEach { seq, kind in
            index[seq] = changes.count
            changes.append(LoggedChange(seq: seq, kind: kind))
        }
        // Todos: the fields `TodoRow` reads, taken from the image after the change (before it, for a
        // row it deleted), the category's name from its row now.
        func image(_ column: String) -> String { "CASE WHEN r.has_after THEN r.a_\(column) ELSE r.b_\(column) END" }
        let fields = TodoSelect.list(column: image)
        var todoSlots: [Int64: [Int64: Int]] = [:] // seq → todo id → index in its change
        try connection.rows(
            """
            SELECT \(fields), k.seq, r.has_before = 0, r.has_after = 0
            FROM changes k CROSS JOIN change_rows r NOT INDEXED ON r.n BETWEEN k.first_n AND k.last_n LEFT JOIN categories c ON c.id = \(image("category_id"))
            WHERE k.seq > ?1 AND k.seq <= ?2 AND r.tbl = 'todo'
            ORDER BY r.n
            """, [.integer(since), .integer(through)]
        ) { s in
            (
                TodoRow.todo(s), s.int64(TodoSelect.extraPosition), s.bool(TodoSelect.extraHasSubtasks),
                s.bool(TodoSelect.extraParentUid)
            )
        }.forEach { todo, seq, inserted, deleted in
            guard let c = index[seq] else { return } // pruned meanwhile: cannot happen inside one transaction
            if let slot = todoSlots[seq]?[todo.id] {
                let first = changes[c].todos[slot].effect
                changes[c].todos[slot] = .init(
                    todo: todo, effect: deleted ? .deleted : first == .inserted ? .inserted : .updated)
            } else {
                todoSlots[seq, default: [:]][todo.id] = changes[c].todos.count
                changes[c].todos.append(.init(todo: todo, effect: inserted ? .inserted : deleted ? .deleted : .updated))
            }
        }
        var categorySlots: [Int64: [Int64: Int]] = [:]
        try connection.rows(
            """
            SELECT r.row_id, CASE WHEN r.has_after THEN r.a_title ELSE r.b_title END, CASE WHEN r.has_before THEN r.b_title END,
                   k.seq, r.has_before = 0, r.has_after = 0
            FROM changes k CROSS JOIN change_rows r NOT INDEXED ON r.n BETWEEN k.first_n AND k.last_n WHERE k.seq > ?1 AND k.seq <= ?2 AND r.tbl = 'category' ORDER BY r.n
            """, [.integer(since), .integer(through)]
        ) { s in
            (s.int64(0), s.text(1), s.optionalText(2), s.int64(3), s.bool(4), s.bool(5))
        }.forEach { id, name, before, seq, inserted, deleted in
            guard let c = index[seq] else { return }
            if let slot = categorySlots[seq]?[id] {
                var image = changes[c].categories[slot]
                image.name = name
                if deleted { image.effect = .deleted }
                changes[c].categories[slot] = image
            } else {
                categorySlots[seq, default: [:]][id] = changes[c].categories.count
                changes[c].categories.append(
                    .init(
                        id: id, name: name, oldName: before,
                        effect: inserted ? .inserted : deleted ? .deleted : .updated))
            }
        }
        return changes
    }
}
