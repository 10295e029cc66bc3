import TodoCore
import TodoSQLite

// MARK: - Reading todos

/// The columns every todo read selects (`TodoSelect`), in the order `TodoRow.init(_:)` reads them.
let todoFields = TodoSelect.list()
/// The join that gives a todo its category's name.
let categoryJoin = "LEFT JOIN categories c ON c.id = t.category_id"
/// `todoFields` from all todos with their category names.
let todoColumns = "\(todoFields) FROM todos t \(categoryJoin)"
/// One todo by id.
let todoByID = "SELECT \(todoColumns) WHERE t.id = ?1"
/// One todo by id, with three columns after `todoFields` (`TodoSelect.extraPosition`, …): its position (null when it is done),
/// whether it has subtasks, and its parent's uid. One statement: a `todo.get` steps no other
/// unless the todo has subtasks. (The parent's row is looked up only for a subtask: a
/// subquery opens its cursor each time it runs, which a top-level todo need not pay.)
let todoWithPositionByID = todoByID(position: positionSQL, subtasks: subtasksSQL)

/// As `todoWithPositionByID`, for a read with `ReadHints`: `TodoSelect.categoryName` is the category's id, which
/// the hints name (no join); the first extra column is the todo's place in its order block
/// (`ManualOrder.placeInBlockSQL`); and without `subtasks` (no todo of the store is a subtask)
/// the second is 0 without looking.
func todoWithPlaceByID(subtasks: Bool) -> String {
    subtasks ? todoWithPlaceAndSubtasksByID : todoWithPlaceNoSubtasksByID
}

private let positionSQL = ManualOrder.positionSQL(
    table: ManualOrder.todos, blocks: ManualOrder.todoBlocks, counted: ManualOrder.openTodos, key: "t.rank")
private let placeSQL = ManualOrder.placeInBlockSQL(
    table: ManualOrder.todos, counted: ManualOrder.openTodos, key: "t.rank")
private let subtasksSQL = "EXISTS (SELECT 1 FROM todos s WHERE s.parent_id = t.id)"
private let fieldsWithCategoryID = TodoSelect.list(category: "t.category_id")
private let todoWithPlaceAndSubtasksByID = todoByID(
    fieldsWithCategoryID, position: placeSQL, subtasks: subtasksSQL, join: "")
private let todoWithPlaceNoSubtasksByID = todoByID(fieldsWithCategoryID, position: placeSQL, subtasks: "0", join: "")

private func todoByID(_ fields: String = todoFields, position: String, subtasks: String, join: String = categoryJoin)
    -> String
{
    "SELECT \(fields), CASE WHEN t.done THEN NULL ELSE \(position) END, \(subtasks),"
        + " CASE WHEN t.parent_id IS NULL THEN NULL ELSE (SELECT p.uid FROM todos p WHERE p.id = t.parent_id) END"
        + " FROM todos t \(join) WHERE t.id = ?1"
}

/// A todo as stored: its fields plus the sparse order key its position is counted from.
struct TodoRow {
    var todo: Todo
    var rank: Int64

    init(_ s: Statement) {
        rank = s.int64(TodoSelect.rank.rawValue)
        todo = TodoRow.todo(s)
    }

    /// The todo of the row `s` stands on, without its position (unless given): read straight into
    /// its value (no `TodoRow` to copy it out of). `category` and `parentUid` override the row's
    /// columns.
    static func todo(
        _ s: Statement, position: Int? = nil, category: String?? = nil, parentUid: String?? = nil,
        subtasks: [Int64] = []
    ) -> Todo {
        typealias C = TodoSelect
        let recurrence = s.optionalText(C.recurRule.rawValue).map {
            var recurrence = TodoRecurrence(
                rule: $0, from: s.optionalText(C.recurFrom.rawValue).flatMap(RecurrenceBase.init(rawValue:)) ?? .due)
            recurrence.readSet(s.optionalText(C.recurSet.rawValue))
            return recurrence
        }
        return Todo(
            id: s.int64(C.id.rawValue), uid: s.text(C.uid.rawValue), title: s.text(C.title.rawValue),
            notes: s.optionalText(C.notes.rawValue), category: category ?? s.optionalText(C.categoryName.rawValue),
            due: s.optionalInstant(C.due.rawValue), remind: s.optionalInstant(C.remind.rawValue),
            reminded: s.optionalInstant(C.reminded.rawValue),
            done: s.bool(C.done.rawValue), completed: s.optionalInstant(C.completed.rawValue), position: position,
            created: s.instant(C.created.rawValue), updated: s.instant(C.updated.rawValue),
            priority: s.optionalInt64(C.priority.rawValue).flatMap { TodoRow.priority(rank: $0) },
            tags: s.withText(C.tags.rawValue, TagColumn.tags(bytes:)),
            zone: s.optionalText(C.zone.rawValue), allDay: s.bool(C.allDay.rawValue), recurrence: recurrence,
            revision: s.int64(C.revision.rawValue),
            parent: s.optionalInt64(C.parentID.rawValue), parentUid: parentUid ?? s.optionalText(C.parentUid.rawValue),
            start: s.optionalInstant(C.start.rawValue),
            subtasks: subtasks, storedAlarms: s.optionalText(C.alarms.rawValue))
    }

    /// The priority a stored rank (`TodoPriority.rank`) stands for.
    static func priority(rank: Int64) -> TodoPriority? {
        switch rank {
        case 1: .high
        case 2: .medium
        case 3: .low
        default: nil
        }
    }
}

extension StoreTransaction {
    /// The todo with `id`.
    /// - Throws: `.notFound`.
    package func todo(_ id: Int64) throws(TodoError) -> Todo {
        // In a read with hints, the sums of the order's blocks, whether the store has any subtask
        // and the category's name are known without a statement until a row changes.
        let hints = self.hints // one reference for the whole read
        let sums = try hints?.todoBlockSums(todoOrder)
        let s =
            try sums == nil
            ? connection.statement(todoWithPositionByID, integer: id)
            : connection.statement(todoWithPlaceByID(subtasks: anySubtasks()), integer: id)
        defer { s.reset() }
        guard try s.step() else { throw TodoError.notFound("no todo with id \(id)") }
        // A subtask's parent uid is the parent's own (the column keeps it only for a link not made yet).
        let parentUid: String?? =
            s.optionalInt64(TodoSelect.parentID.rawValue) == nil
            ? nil
            : .some(s.optionalText(TodoSelect.extraParentUid))
        let subtasks = s.bool(TodoSelect.extraHasSubtasks) ? try subtaskIDs(of: id) : []
        let position = s.optionalInt64(TodoSelect.extraPosition).map { value in
            sums.map { ManualOrder.position(rank: s.int64(TodoSelect.rank.rawValue), placeInBlock: value, sums: $0) }
                ?? Int(value)
        }
        var category: String?? = nil
        if let hints { // `categoryName` holds the category's id
            category = try s.optionalInt64(TodoSelect.categoryName.rawValue).flatMap { categoryID throws(TodoError) in
                try hints.categoryName(categoryID, connection) { (id) throws(TodoError) in
                    try connection.firstRow("SELECT name FROM categories WHERE id = ?", [.integer(id)]) { $0.text(0) }
                }
            }
        }
        return TodoRow.todo(s, position: position, category: category, parentUid: parentUid, subtasks: subtasks)
    }

    func row(_ id: Int64) throws(TodoError) -> TodoRow {
        guard let row = try connection.firstRow(todoByID, [.integer(id)], TodoRow.init) else {
            throw TodoError.notFound("no todo with id \(id)")
        }
        return row
    }

    /// Fills in the dense positions of `rows` among open todos (none for done ones), keeping
    /// their order.
    func withPositions(_ rows: [TodoRow]) throws(TodoError) -> [Todo] {
        let positions = try todoOrder.positions(of: rows.compactMap { $0.todo.done ? nil : $0.rank })
        var todos: [Todo] = []
        todos.reserveCapacity(rows.count)
        let anySubtasks = try anySubtasks()
        for row in rows {
            var todo = row.todo
            todo.position = row.todo.done ? nil : positions[row.rank]
            try fillLinks(&todo, anySubtasks: anySubtasks)
            todos.append(todo)
        }
        return todos
    }

    /// The store's own id: a UUID made with the store, never changed.
    package func storeID() throws(TodoError) -> String {
        try connection.firstRow("SELECT value FROM store_info WHERE key = 'store_id'") { $0.text(0) } ?? ""
    }

    /// The number of open and of done todos.
    /// Read from `todo_counts`, which triggers keep current: no scan.
    package func counts() throws(TodoError) -> (open: Int, done: Int) {
        let open = try connection.scalar("SELECT n FROM todo_counts WHERE done = 0")
        let done = try connection.scalar("SELECT n FROM todo_counts WHERE done = 1")
        return (Int(open), Int(done))
    }

    /// The open and done counts of one category, kept by triggers.
    func categoryCounts(_ id: Int64) throws(TodoError) -> (open: Int, done: Int) {
        try connection.firstRow("SELECT open_count, done_count FROM categories WHERE id = ?", [.integer(id)]) {
            ($0.int(0), $0.int(1))
        } ?? (0, 0)
    }

    // MARK: - Adding

    /// Adds a todo at the bottom of the manual order, at the top with `top`, or directly after
    /// todo `after` (one change: the todo is never seen elsewhere first).
    /// Naming a category that does not exist creates it.
    package func add(_ new: NewTodo) throws(TodoError) -> Todo {
        let title = try Validation.title(new.title)
        if let after = new.after, try todoOrder.rank(of: after) == nil {
            throw TodoError.notFound("no todo with id \(after)")
        }
        let notes = try new.notes.flatMap { (n) throws(TodoError) in try Validation.notes(n) }
        if let parent = new.parent { try checkParent(parent, of: nil) }
        // A subtask given no category takes its parent's.
        var categoryName = new.category
        if categoryName == nil, let parent = new.parent { categoryName = try self.todo(parent).category }
        let category = try categoryName.map { (name) throws(TodoError) in try self.category(creating: name) }
        let fields = try checkedFields(
            priority: new.priority, tags: new.tags, zone: new.zone, allDay: new.allDay,
            recurrence: new.recurrence, due: new.due)
        let alarms = try newAlarms(new)
        let remind = Alarm.nextFiring(alarms, after: nil, due: new.due, start: new.start)
        let rank = new.top ? try todoOrder.keyAtStart() : try todoOrder.keyAtEnd()
        let uid = RandomUUID.make(at: now)
        // The todo as `todo(id)` would read it back (its id and position once the row has them).
        var todo = Todo(id: 0, uid: uid, title: title, position: nil, created: now, updated: now)
        // Each field a new todo is given, checked above (exhaustive: a new field must say here what it starts as).
        for field in TodoField.allCases {
            switch field {
            case .notes: todo.notes = notes
            case .category: todo.category = category?.name
            case .due: todo.due = new.due
            case .remind: todo.remind = remind
            case .alarms: todo.alarms = alarms
            case .priority: todo.priority = new.priority
            case .tags: todo.tags = fields.tags
            case .zone: todo.zone = fields.zone
            case .allDay: todo.allDay = new.allDay
            case .recurrence: todo.recurrence = fields.recurrence
            case .parent: todo.parent = new.parent
            case .start: todo.start = new.start
            // Given above, or the store's (a new todo is open, at revision 1, without subtasks).
            case .id, .uid, .title, .created, .updated, .reminded, .done, .completed, .position, .revision,
                .subtasks, .parentUid:
                continue
            }
        }
        let image = TodoImage(
            todo: todo, categoryID: category?.id, rank: rank, icalExtra: nil,
            dueEnd: dueEnd(due: new.due, allDay: new.allDay, zone: fields.zone))
        try connection.run(Self.addSQL, image.values(Self.addColumns))
        let id = connection.lastInsertRowID
        try writeTags(id, fields.tags, replacing: false)
        // The new todo is first or last (its position needs no counting), or placed after its anchor.
        var open = new.top ? 1 : try connection.scalar("SELECT n FROM todo_counts WHERE done = 0")
        if let after = new.after {
            _ = try todoOrder.move(id: id, next: after, before: false)
            if let placed = try todoOrder.rank(of: id) { open = Int64(try todoOrder.position(of: placed)) }
        }
        try recordChange(.add, "add \(id) \(ChangeLog.quoted(title))")
        todo.id = id
        todo.position = Int(open)
        return todo
    }

    /// What an add writes: every column but the id (assigned), `revision` (1) and what a new todo
    /// does not have yet (its defaults: open, no reminder fired, no kept iCalendar, no waiting link).
    static let addColumns = TodoColumn.all(except: [
        .id, .revision, .reminded, .done, .completed, .ical_extra, .parent_uid
    ])
    static let addSQL = TodoColumn.insert(addColumns)

    /// What an edit writes: every column but the ones it never changes (the todo's identity, its
    /// order, done state and kept iCalendar lines, which other requests change) and the two it
    /// writes itself: `category_id` only when the category changed, `revision` one up.
    static let editColumns = TodoColumn.all(except: [
        .id, .uid, .created, .rank, .done, .completed, .ical_extra, .revision, .category_id
    ])
    static let editSQL =
        "UPDATE todos SET \(TodoColumn.assignments(editColumns)), "
        + "category_id = CASE WHEN ? THEN ? ELSE category_id END, revision = revision + 1 WHERE id = ?"

    func searchKey(_ title: String, _ notes: String?) -> String {
        TextKey.searchKey(title: title, notes: notes)
    }

    // MARK: - Updating

    /// Applies `patch` to todo `id`. `updated` changes only when something really changed.
    ///
    /// Changing `due` alone keeps the reminder's lead time (a reminder at the due time stays at
    /// the due time); clearing `due` clears the reminder; setting `due` on a todo that had none
    /// sets the reminder to it. Any change to `due` or `remind` re-arms the reminder.
    /// With `ifRevision`, the update is refused (`.conflict`, nothing changes) when the todo's
    /// revision is no longer that: another client changed it since it was read.
    /// - Throws: `.notFound`, `.invalidField`, `.conflict`.
    package func update(_ id: Int64, _ patch: TodoPatch, ifRevision: Int64? = nil) throws(TodoError) -> Todo {
        let old = try row(id).todo
        if let ifRevision, ifRevision != old.revision {
            throw TodoError.conflict("todo \(id) changed since revision \(ifRevision) (now \(old.revision))")
        }
        var new = old
        var categoryID: Int64? = nil
        var categoryChanged = false
        // Each field the patch may change (exhaustive: a new field must say here how it changes).
        for field in TodoField.allCases {
            switch field {
            case .title:
                switch patch.title {
                case .keep: break
                case .set(let t): new.title = try Validation.title(t)
                case .clear: throw TodoError.invalid("title", "cannot be cleared")
                }
            case .notes:
                switch patch.notes {
                case .keep: break
                case .set(let n): new.notes = try Validation.notes(n)
                case .clear: new.notes = nil
                }
            case .category:
                switch patch.category {
                case .keep: break
                case .set(let name):
                    categoryID = try self.categoryID(creating: name)
                    new.category = try connection.firstRow(
                        "SELECT name FROM categories WHERE id = ?", [.optional(categoryID)]
                    ) { $0.text(0) }
                    categoryChanged = true
                case .clear:
                    new.category = nil
                    categoryChanged = true
                }
            case .due: new.due = patch.due.applied(to: old.due)
            case .priority: new.priority = patch.priority.applied(to: old.priority)
            case .tags: new.tags = try patchedTags(old.tags, patch)
            case .zone:
                switch patch.zone {
                case .keep: break
                case .set(let z): new.zone = try checkedZone(z, field: "zone")
                case .clear: new.zone = nil
                }
            // Setting `due` without `allDay` makes it a time of day; clearing it clears `allDay` (below).
            case .allDay:
                if let allDay = patch.allDay {
                    new.allDay = allDay
                } else if case .set = patch.due {
                    new.allDay = false
                }
            case .recurrence:
                switch patch.recurrence {
                case .keep: break
                case .set(let r):
                    new.recurrence = try checkedRecurrence(r, field: "recurrence")
                    // The EXDATEs and RDATEs came with the todo's iCalendar and stay while it recurs.
                    if let old = old.recurrence, r.exdates.isEmpty, r.rdates.isEmpty {
                        new.recurrence?.exdates = old.exdates
                        new.recurrence?.rdates = old.rdates
                    }
                case .clear: new.recurrence = nil
                }
            case .parent:
                switch patch.parent {
                case .keep: break
                case .set(let p):
                    try checkParent(p, of: id)
                    new.parent = p
                    new.parentUid = nil
                case .clear:
                    new.parent = nil
                    new.parentUid = nil
                }
            case .start: new.start = patch.start.applied(to: old.start)
            // Below: the alarms and the next reminder follow the new due date and start.
            case .remind, .alarms: continue
            // The store's: kept, or changed by their own operations (complete, move).
            case .id, .uid, .reminded, .done, .completed, .position, .created, .updated, .revision, .subtasks,
                .parentUid:
                continue
            }
        }
        if new.due == nil {
            if case .clear = patch.due, patch.allDay != true { new.allDay = false }
            if case .clear = patch.due, new.recurrence != nil {
                throw TodoError.invalid(
                    "due", "cannot be cleared while the todo recurs (its next occurrence); clear recurrence as well")
            }
            try checkSchedule(due: nil, allDay: new.allDay, recurrence: new.recurrence)
        }
        switch (patch.alarms, patch.remind) {
        case (.set, .set), (.set, .clear), (.clear, .set):
            throw TodoError.invalid("remind", "give either alarms or remind, not both")
        case (.set(let alarms), _): new.alarms = try checkedAlarms(alarms, old: old.alarms)
        case (.clear, _), (.keep, .clear): new.alarms = []
        case (.keep, .set(let r)):
            // One alarm at that instant (an old client's `remind`), keeping the first alarm's uid.
            new.alarms = [
                Alarm(uid: old.alarms.first?.uid ?? RandomUUID.make(at: now), trigger: .at(try checkedInstant(r)))
            ]
        case (.keep, .keep) where new.due != old.due:
            if let newDue = new.due, let oldDue = old.due {
                // An alarm at an instant keeps its lead time (one relative to due follows by itself).
                new.alarms = try old.alarms.map { (a) throws(TodoError) in
                    guard let moved = a.shifted(by: newDue.usec - oldDue.usec),
                        moved.triggerInstant(due: newDue, start: new.start).map(\.isInRange) ?? true
                    else {
                        throw TodoError.invalid(
                            "due",
                            "moving the due time to \(newDue) would move the reminder, kept at the same lead time, outside the years 0001 to 9999; give remind as well"
                        )
                    }
                    return moved
                }
            } else if new.due != nil {
                if old.alarms.isEmpty { new.alarms = [Alarm(uid: RandomUUID.make(at: now), trigger: .due(0))] }
            } else {
                // Clearing the due date clears the reminders, but for those relative to the start.
                new.alarms = old.alarms.filter { if case .start = $0.trigger { true } else { false } }
            }
        case (.keep, .keep): break
        }
        let remindTouched: Bool = {
            if case .set = patch.remind { return true }
            if case .set = patch.alarms { return true }
            return false
        }()
        let startMatters =
            new.start != old.start && new.alarms.contains { if case .start = $0.trigger { true } else { false } }
        if new.due != old.due || new.alarms != old.alarms || remindTouched || startMatters {
            new.remind = Alarm.nextFiring(new.alarms, after: nil, due: new.due, start: new.start)
            new.reminded = nil
        }
        // A rule start of its own holds only while the todo sits on the RDATE it advanced to.
        if new.due != old.due || new.start != old.start || new.recurrence?.rule != old.recurrence?.rule {
            new.recurrence?.ruleStart = nil
        }
        guard new != old else { return try todo(id) }
        new.updated = now
        let image = TodoImage(
            todo: new, categoryID: categoryID, rank: 0, icalExtra: nil,
            dueEnd: dueEnd(due: new.due, allDay: new.allDay, zone: new.zone))
        try connection.run(
            Self.editSQL, image.values(Self.editColumns) + [.bool(categoryChanged), .optional(categoryID), .integer(id)]
        )
        if new.tags != old.tags { try writeTags(id, new.tags, replacing: true) }
        try recordChange(.update, "edit \(id) \(ChangeLog.quoted(new.title))")
        return try todo(id)
    }

    // MARK: - Completing, reopening, deleting many

    /// Marks todos done; already-done todos are left as they are. A recurring todo advances to its
    /// next occurrence and stays open (`advanceIfRecurring`) unless `stop` is given or its rule is
    /// exhausted. All or nothing.
    /// - Throws: `.notFound` naming the first unknown id.
    package func complete(_ ids: [Int64], stop: Bool = false) throws(TodoError) -> [Todo] {
        try setDone(ids, true, stop: stop)
    }

    /// Marks todos open again. All or nothing.
    package func reopen(_ ids: [Int64]) throws(TodoError) -> [Todo] {
        try setDone(ids, false)
    }

    /// Completing a todo completes its open subtasks, at any depth, in the same change (a
    /// recurring subtask advances instead, `completeSubtasks`); a recurring todo that advances
    /// stays open, and its subtasks are done with this occurrence and open again for the next
    /// (`renewSubtasks`). Reopening a subtask reopens its done
    /// parents. The todos returned are the ones named, then the others this touched.
    private func setDone(_ ids: [Int64], _ done: Bool, stop: Bool = true) throws(TodoError) -> [Todo] {
        let ids = try existing(ids)
        var touched = ids
        var seen = Set(ids)
        for id in ids {
            if done, !stop, let shift = try advanceIfRecurring(id) {
                touched += try renewSubtasks(of: id, shift: shift, seen: &seen)
                continue
            }
            try markDone(id, done)
            if done {
                // A recurring subtask advances, as `done` of it would (docs/RECURRENCE.md).
                touched += try completeSubtasks(of: id, seen: &seen)
                continue
            }
            for other in try doneAncestors(of: id) where seen.insert(other).inserted {
                touched.append(other)
                try markDone(other, done)
            }
        }
        try recordChange(done ? .complete : .reopen, (done ? "done " : "reopen ") + ChangeLog.list(ids))
        return try withPositions(touched.map { (id) throws(TodoError) in try row(id) })
    }

    /// Marks todo `id` done (now) or open; nothing changes when it already is.
    func markDone(_ id: Int64, _ done: Bool) throws(TodoError) {
        try connection.run(
            """
            UPDATE todos SET done = ?, completed = ?, updated = ?, revision = revision + 1 WHERE id = ? AND done <> ?
            """, [.bool(done), done ? .integer(now.usec) : .null, .integer(now.usec), .integer(id), .bool(done)])
    }

    /// Deletes todos and returns them as they were. All or nothing. Their ids are never reused.
    /// A todo with subtasks is deleted only with `recursive` (its subtasks, at any depth, go in
    /// the same change); otherwise it is refused (`.conflict`) unless they are named too.
    package func delete(_ ids: [Int64], recursive: Bool = false) throws(TodoError) -> [Todo] {
        let ids = try withSubtasks(existing(ids), recursive: recursive)
        let deleted = try withPositions(ids.map { (id) throws(TodoError) in try row(id) })
        for id in ids {
            try connection.run("DELETE FROM todos WHERE id = ?", [.integer(id)])
        }
        try recordChange(
            .delete,
            deleted.count == 1
                ? "delete \(ids[0]) \(ChangeLog.quoted(deleted[0].title))" : "delete " + ChangeLog.list(ids))
        return deleted
    }

    /// `ids` without repeats, in the given order, after checking each exists.
    private func existing(_ ids: [Int64]) throws(TodoError) -> [Int64] {
        guard !ids.isEmpty else { throw TodoError.invalid("ids", "must name at least one todo") }
        var seen = Set<Int64>()
        var unique: [Int64] = []
        for id in ids where seen.insert(id).inserted {
            guard try connection.firstRow("SELECT 1 FROM todos WHERE id = ?", [.integer(id)], { _ in true }) != nil
            else {
                throw TodoError.notFound("no todo with id \(id)")
            }
            unique.append(id)
        }
        return unique
    }

    // MARK: - Moving

    /// Moves todo `id` in the manual order. Rewrites one row in the common case.
    /// - Throws: `.notFound` for an unknown todo or anchor, `.invalidField` for a position out of range.
    package func move(_ id: Int64, to target: MoveTarget) throws(TodoError) -> Todo {
        _ = try row(id)
        let moved: Bool
        switch target {
        case .position(let p): moved = try todoOrder.move(id: id, toPosition: p)
        case .before(let anchor): moved = try todoOrder.move(id: id, next: anchor, before: true)
        case .after(let anchor): moved = try todoOrder.move(id: id, next: anchor, before: false)
        }
        if moved {
            try connection.run(
                "UPDATE todos SET updated = ?, revision = revision + 1 WHERE id = ?", [.integer(now.usec), .integer(id)]
            )
        }
        try recordChange(.move, "move \(id)")
        return try todo(id)
    }

    // MARK: - Reminders

    /// The earliest instant at which a pending reminder fires (open todo, reminder set, not yet
    /// fired), found through the partial index `todos_pending_reminder` (`INDEXED BY` makes the
    /// query fail rather than scan should the index ever stop applying).
    package func nextPendingReminder() throws(TodoError) -> Instant? {
        try connection.firstRow(Self.nextReminderSQL) { $0.instant(0) }
    }

    static let nextReminderSQL = """
        SELECT remind FROM todos INDEXED BY todos_pending_reminder WHERE done = 0 AND remind IS NOT NULL AND reminded IS NULL
        ORDER BY remind LIMIT 1
        """

    /// Todos whose pending reminder is due at `instant`, in reminder order.
    package func dueReminders(at instant: Instant, limit: Int = 1000) throws(TodoError) -> [Todo] {
        try withPositions(
            connection.rows(
                """
                SELECT \(todoFields) FROM todos t INDEXED BY todos_pending_reminder \(categoryJoin)
                WHERE t.done = 0 AND t.remind IS NOT NULL AND t.reminded IS NULL AND t.remind <= ?
                ORDER BY t.remind, t.id LIMIT ?
                """, [.integer(instant.usec), .integer(Int64(limit))], TodoRow.init))
    }

    /// The earliest stored reminder instant of the pending reminders of all-day todos with a
    /// zone (`allDay`) or of the others: the first ones follow the local wall clock (the
    /// scheduler moves them when the local zone is not the todo's), the others are instants.
    package func nextPendingReminder(allDay: Bool) throws(TodoError) -> Instant? {
        try connection.firstRow(allDay ? Self.nextWallClockReminderSQL : Self.nextInstantReminderSQL) { $0.instant(0) }
    }

    static let nextWallClockReminderSQL = """
        SELECT remind FROM todos INDEXED BY todos_pending_reminder WHERE done = 0 AND remind IS NOT NULL AND reminded IS NULL
        AND all_day = 1 AND zone IS NOT NULL ORDER BY remind LIMIT 1
        """
    static let nextInstantReminderSQL = """
        SELECT remind FROM todos INDEXED BY todos_pending_reminder WHERE done = 0 AND remind IS NOT NULL AND reminded IS NULL
        AND NOT (all_day = 1 AND zone IS NOT NULL) ORDER BY remind LIMIT 1
        """

    /// Pending reminders stored at or before `instant`, in stored reminder order: those of all-day
    /// todos with a zone (`allDay`), or the others.
    package func dueReminders(at instant: Instant, allDay: Bool, limit: Int) throws(TodoError) -> [Todo] {
        try withPositions(
            connection.rows(
                """
                SELECT \(todoFields) FROM todos t INDEXED BY todos_pending_reminder \(categoryJoin)
                WHERE t.done = 0 AND t.remind IS NOT NULL AND t.reminded IS NULL AND t.remind <= ?
                AND \(allDay ? "" : "NOT ")(t.all_day = 1 AND t.zone IS NOT NULL)
                ORDER BY t.remind, t.id LIMIT ?
                """, [.integer(instant.usec), .integer(Int64(limit))], TodoRow.init))
    }

    /// Records that todo `id`'s reminder, scheduled for `scheduled`, fired at `instant`: `remind`
    /// moves on to its alarms' next firing after `instant` (a repeat, a later alarm), or, when
    /// none is left, `reminded` is set. Not a user change: `updated` stays, and the log does not
    /// record it. Nothing happens when the todo is gone or its reminder was moved (snoozed,
    /// edited) since it was read: the new one is still to fire. Returns the alarm that fired
    /// (its index in `alarms` and its uid), nil for none (a snooze, or nothing recorded).
    @discardableResult
    package func markReminded(_ id: Int64, scheduled: Instant?, at instant: Instant) throws(TodoError) -> (
        index: Int, uid: String
    )? {
        guard
            let found = try connection.firstRow(
                "SELECT alarms, due, start FROM todos WHERE id = ? AND remind IS ? AND reminded IS NULL",
                [.integer(id), .optional(scheduled)],
                {
                    (
                        alarms: Alarm.alarms(storedText: $0.optionalText(0)), due: $0.optionalInstant(1),
                        start: $0.optionalInstant(2)
                    )
                })
        else { return nil }
        let next = Alarm.nextFiring(
            found.alarms, after: max(instant, scheduled ?? instant), due: found.due, start: found.start)
        if let next {
            try connection.run("UPDATE todos SET remind = ? WHERE id = ?", [.integer(next.usec), .integer(id)])
        } else {
            try connection.run("UPDATE todos SET reminded = ? WHERE id = ?", [.integer(instant.usec), .integer(id)])
        }
        guard let scheduled,
            let index = found.alarms.firstIndex(where: { $0.fires(at: scheduled, due: found.due, start: found.start) })
        else { return nil }
        return (index, found.alarms[index].uid)
    }

    /// Acknowledges (dismisses) alarm `uid` of todo `id` at `instant` (RFC 9074 `ACKNOWLEDGED`):
    /// its firings up to now and its repeats are no longer pending; the others' are. Without a
    /// uid, every alarm that has fired by `instant` and was not acknowledged since
    /// (`Alarm.firedUnacknowledged`); when there is none (or the todo is done) nothing changes
    /// and the todo is returned as it is. A change like a snooze (logged as one, undone by undo).
    /// - Throws: `.notFound` for an unknown todo or alarm.
    package func acknowledgeAlarm(_ id: Int64, uid: String?, at instant: Instant) throws(TodoError) -> Todo {
        let old = try row(id).todo
        var alarms = old.alarms // read once: `Todo.alarms` reads its stored text each time
        let indices: [Int]
        if let uid {
            guard let index = alarms.firstIndex(where: { $0.uid == uid }) else {
                throw TodoError.notFound("todo \(id) has no alarm \(uid)")
            }
            indices = [index]
        } else {
            indices =
                old.done
                ? []
                : alarms.indices.filter {
                    alarms[$0].firedUnacknowledged(by: instant, due: old.due, start: old.start)
                }
            // Nothing to acknowledge: the todo as it is (with its position).
            guard !indices.isEmpty else { return try todo(id) }
        }
        for index in indices {
            alarms[index].acknowledged = instant
            alarms[index].snoozedUntil = nil
        }
        let next = old.done ? nil : Alarm.nextFiring(alarms, after: instant, due: old.due, start: old.start)
        try connection.run(
            """
            UPDATE todos SET alarms = ?, remind = ?, reminded = CASE WHEN ? IS NULL THEN coalesce(reminded, ?) END,
                updated = ?, revision = revision + 1 WHERE id = ?
            """,
            [
                .optional(Alarm.storedText(alarms)), .optional(next ?? old.remind), .optional(next),
                .integer(instant.usec),
                .integer(now.usec), .integer(id)
            ])
        let which = indices.map { String($0 + 1) }.joined(separator: ", ")
        try recordChange(
            .update,
            "dismiss alarm\(indices.count == 1 ? "" : "s") \(which) of \(id) \(ChangeLog.quoted(old.title))")
        return try todo(id)
    }

    /// The alarms of a new todo: the ones given, or one at `remind`, or at the due time.
    func newAlarms(_ new: NewTodo) throws(TodoError) -> [Alarm] {
        if let given = new.alarms {
            if new.remind != nil { throw TodoError.invalid("remind", "give either alarms or remind, not both") }
            return try checkedAlarms(given, old: [])
        }
        if new.noReminder { return [] }
        if let remind = new.remind {
            return [Alarm(uid: RandomUUID.make(at: now), trigger: .at(try checkedInstant(remind)))]
        }
        if new.due != nil { return [Alarm(uid: RandomUUID.make(at: now), trigger: .due(0))] }
        return []
    }

    func checkedInstant(_ t: Instant) throws(TodoError) -> Instant {
        guard t.isInRange else { throw TodoError.invalid("remind", "must be in the years 0001 to 9999") }
        return t
    }

    /// `alarms` checked: at most `Alarm.maxPerTodo`, repeats within bounds, uids unique (an
    /// empty uid gets the uid of the alarm at the same place in `old` with the same trigger, or
    /// a new one).
    func checkedAlarms(_ alarms: [Alarm], old: [Alarm], field: String = "alarms") throws(TodoError) -> [Alarm] {
        guard alarms.count <= Alarm.maxPerTodo else {
            throw TodoError.invalid(field, "at most \(Alarm.maxPerTodo) alarms per todo (\(alarms.count) given)")
        }
        var seen = Set<String>()
        var checked: [Alarm] = []
        for (i, var a) in alarms.enumerated() {
            if a.uid.isEmpty {
                a.uid = i < old.count && old[i].trigger == a.trigger ? old[i].uid : RandomUUID.make(at: now)
            }
            guard a.uid.count <= 255, !a.uid.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" }) else {
                throw TodoError.invalid(
                    field, "an alarm uid must be at most 255 characters without spaces or line breaks")
            }
            guard seen.insert(a.uid).inserted else { throw TodoError.invalid(field, "two alarms have uid \(a.uid)") }
            guard (0...Alarm.maxRepeats).contains(a.repeatCount) else {
                throw TodoError.invalid(
                    field, "an alarm repeats 0 to \(Alarm.maxRepeats) times (\(a.repeatCount) given)")
            }
            if a.repeatCount > 0, a.intervalUsec < Alarm.minIntervalUsec {
                throw TodoError.invalid(field, "a repeating alarm needs an interval of at least 1 second")
            }
            if a.repeatCount == 0 { a.intervalUsec = 0 }
            switch a.trigger {
            case .at(let t): _ = try checkedInstant(t)
            case .due(let o), .start(let o):
                guard o.magnitude <= 100 * 366 * 86_400 * 1_000_000 else {
                    throw TodoError.invalid(field, "an alarm is at most 100 years before or after")
                }
            }
            checked.append(a)
        }
        return checked
    }

    /// Snoozes todo `id`'s reminder until `instant`, alarm by alarm (RFC 9074): the alarms that
    /// fired and were not dismissed (by now, or by the firing last recorded), else the one the
    /// pending reminder is of, are acknowledged up to then and fire again at `instant` (their
    /// `snoozedUntil`); the other alarms keep their times, so a later one still fires at its own
    /// even before `instant`. A todo without an alarm to snooze has its reminder moved to
    /// `instant`. A snooze never moves a reminder earlier: one still to fire at or after
    /// `instant` stays where it is, and nothing changes.
    /// - Throws: `.notFound`; `.conflict` when the todo is done.
    package func snooze(_ id: Int64, until instant: Instant) throws(TodoError) -> Todo {
        let old = try row(id).todo
        guard !old.done else { throw TodoError.conflict("todo \(id) is done; reopen it before snoozing") }
        if let pending = old.remind, old.reminded == nil, pending >= instant { return old }
        var alarms = old.alarms
        let firedBy = old.reminded == nil ? now : max(now, old.remind ?? now)
        var snoozed = alarms.indices.filter {
            alarms[$0].firedUnacknowledged(by: firedBy, due: old.due, start: old.start)
        }
        var acknowledged = firedBy
        if snoozed.isEmpty, let pending = old.remind, old.reminded == nil,
            let i = alarms.firstIndex(where: { $0.fires(at: pending, due: old.due, start: old.start) })
        {
            // Snoozed before it fired: its firing at `pending` is the one acknowledged.
            snoozed = [i]
            acknowledged = max(firedBy, pending)
        }
        for i in snoozed {
            alarms[i].acknowledged = acknowledged
            alarms[i].snoozedUntil = instant
        }
        let remind =
            snoozed.isEmpty
            ? instant : Alarm.nextFiring(alarms, after: firedBy, due: old.due, start: old.start) ?? instant
        try connection.run(
            """
            UPDATE todos SET alarms = ?, remind = ?, reminded = NULL, updated = ?, revision = revision + 1
            WHERE id = ?
            """,
            [.optional(Alarm.storedText(alarms)), .integer(remind.usec), .integer(now.usec), .integer(id)])
        try recordChange(.snooze, "snooze \(id)")
        return try todo(id)
    }
}
