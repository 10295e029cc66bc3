import TodoCore
import TodoSQLite

extension StoreTransaction {
    /// The whole store: categories in category order, todos in manual order.
    package func export() throws(TodoError) -> ExportDocument {
        let todos = try connection.rows("SELECT \(todoColumns) ORDER BY t.rank", [], TodoRow.init)
        // What iCalendar imports kept: few todos have it, so one lookup beside the main query.
        let kept = Dictionary(
            try connection.rows("SELECT uid, ical_extra FROM todos WHERE ical_extra IS NOT NULL", []) {
                ($0.text(0), $0.text(1))
            }, uniquingKeysWith: { a, _ in a })
        let uids = Dictionary(todos.map { ($0.todo.id, $0.todo.uid) }, uniquingKeysWith: { a, _ in a })
        return ExportDocument(
            categories: try categories().map(\.name),
            todos: todos.map {
                var entry = ExportDocument.Entry($0.todo)
                entry.ical = kept[$0.todo.uid]
                if let parent = $0.todo.parent { entry.parent = uids[parent] }
                return entry
            },
            exported: now)
    }

    /// Adds everything in `document`: missing categories (at the end of the category order),
    /// then every todo whose uid the store does not have as a new one at the bottom of the
    /// manual order, keeping its uid, state and timestamps (a todo without a uid gets a new one).
    /// A todo whose uid the store has is updated from the document when the document's
    /// `updated` is later than the stored one (keeping its id and place), else left as it is:
    /// importing the same document twice changes nothing the second time. An entry with
    /// `ifRevision` (a sync client's) is applied, whatever its `updated`, only while the todo's
    /// revision is that one (0: only while the store has no todo with its uid), and deletes the
    /// todo when `deleted`; otherwise it is skipped and its uid listed in `stale`. Run inside `write`,
    /// it is all or nothing. `progress` is called after every 100 todos (long work can tell the
    /// watchdog it moves).
    /// - Throws: `.invalidField` naming the entry (`todos[3].title`) when any value is invalid,
    ///   or when the document holds a uid twice.
    package func importDocument(_ document: ExportDocument, label: String? = nil, progress: () -> Void = {})
        throws(TodoError) -> ImportCounts
    {
        let before = try connection.scalar("SELECT COUNT(*) FROM categories")
        var seen: Set<String> = []
        var added = 0
        var updated = 0
        var unchanged = 0
        var deleted = 0
        var stale: [String] = []
        // The parent links of the entries applied, made once every entry is in (a subtask may
        // come before its parent), and the uids that arrived (links waiting for them resolve).
        var links: [(id: Int64, parent: String?)] = []
        var arrived: [(uid: String, id: Int64)] = []
        for (i, name) in document.categories.enumerated() {
            _ = try Validation.categoryName(name, field: "categories[\(i)]")
            _ = try categoryID(creating: name)
        }
        for (i, entry) in document.todos.enumerated() {
            if i % 100 == 99 { progress() }
            let title = try Validation.title(entry.title, field: "todos[\(i)].title")
            let notes = try entry.notes.flatMap { (n) throws(TodoError) in
                try Validation.notes(n, field: "todos[\(i)].notes")
            }
            let categoryID = try entry.category.map { (name) throws(TodoError) -> Int64 in
                _ = try Validation.categoryName(name, field: "todos[\(i)].category")
                return try self.categoryID(creating: name)
            }
            if let ical = entry.ical, ical.utf8.count > Validation.maxNotesBytes {
                throw TodoError.invalid("todos[\(i)].ical", "must be at most \(Validation.maxNotesBytes) bytes")
            }
            let uid =
                try entry.uid.map { (uid) throws(TodoError) in try importedUID(uid, field: "todos[\(i)].uid") }
                ?? RandomUUID.make(at: now)
            guard seen.insert(uid).inserted else {
                throw TodoError.invalid("todos[\(i)].uid", "\(uid) appears twice in the document")
            }
            let fields = try checkedFields(
                priority: entry.priority, tags: entry.tags, zone: entry.zone, allDay: entry.allDay,
                recurrence: entry.recurrence, due: entry.due, prefix: "todos[\(i)].")
            // A recurring todo that is still open keeps the completion it recorded last.
            let completed = entry.done ? (entry.completed ?? now) : (fields.recurrence != nil ? entry.completed : nil)
            let known = try connection.firstRow("SELECT id, updated, revision FROM todos WHERE uid = ?", [.text(uid)]) {
                ($0.int64(0), $0.int64(1), $0.int64(2))
            }
            if let condition = entry.ifRevision {
                guard condition == (known?.2 ?? 0) else {
                    stale.append(uid)
                    continue
                }
                if entry.deleted, let known {
                    try releaseSubtasks(of: known.0)
                    try connection.run("DELETE FROM todos WHERE id = ?", [.integer(known.0)])
                    deleted += 1
                    continue
                }
            }
            // The entry's alarms; an entry without them (an older export, an iCalendar VTODO that
            // gives one reminder) has one at `remind`, or keeps the store's while that is the same.
            var alarms: [Alarm] = []
            var remind = entry.remind
            if let given = entry.alarms {
                alarms = try checkedAlarms(given, old: [], field: "todos[\(i)].alarms")
                if remind == nil { remind = Alarm.nextFiring(alarms, after: nil, due: entry.due, start: entry.start) }
            } else if let r = entry.remind {
                if let known,
                    let stored = try connection.firstRow(
                        "SELECT remind, alarms FROM todos WHERE id = ?", [.integer(known.0)],
                        {
                            ($0.optionalInstant(0), Alarm.alarms(storedText: $0.optionalText(1)))
                        }), stored.0 == r, !stored.1.isEmpty
                {
                    alarms = stored.1
                } else {
                    alarms = [Alarm(uid: RandomUUID.make(at: now), trigger: .at(r))]
                }
            }
            var todo = Todo(
                id: known?.0 ?? 0, uid: uid, title: title, position: nil, created: entry.created,
                updated: entry.updated)
            // Each field the entry gives, checked above (exhaustive: a new field must say here how
            // an import takes it).
            for field in TodoField.allCases {
                switch field {
                case .notes: todo.notes = notes
                case .due: todo.due = entry.due
                case .remind: todo.remind = remind
                case .reminded: todo.reminded = entry.reminded
                case .done: todo.done = entry.done
                case .completed: todo.completed = completed
                case .priority: todo.priority = entry.priority
                case .tags: todo.tags = fields.tags
                case .zone: todo.zone = fields.zone
                case .allDay: todo.allDay = entry.allDay
                case .recurrence: todo.recurrence = fields.recurrence
                case .start: todo.start = entry.start
                case .alarms: todo.alarms = alarms
                // Given above; the category by its id (below), the parent linked once every entry is in.
                case .id, .uid, .title, .created, .updated, .category, .parent, .parentUid, .position, .revision,
                    .subtasks:
                    continue
                }
            }
            // The row the entry makes, every column from `TodoImage` as an add and an edit write it.
            var image = TodoImage(
                todo: todo, categoryID: categoryID, rank: 0, icalExtra: entry.ical,
                dueEnd: dueEnd(due: entry.due, allDay: entry.allDay, zone: fields.zone))
            if let known {
                // Later at the precision both sides have: an iCalendar file says whole seconds, so
                // a JSON export of the same todos (microseconds) is not later than its import.
                let coarse = known.1 % 1_000_000 == 0 || entry.updated.usec % 1_000_000 == 0
                let later =
                    coarse ? entry.updated.seconds > Instant(usec: known.1).seconds : entry.updated.usec > known.1
                guard entry.ifRevision != nil || later else {
                    unchanged += 1
                    continue
                }
                // A default reminder (an iCalendar todo without an alarm, `!REMIND-DEFAULT`) has no
                // ACKNOWLEDGED to say it fired: while it stays where it was, it stays fired.
                if entry.reminded == nil, let remind, entry.ical?.contains("!REMIND-DEFAULT ") == true,
                    let stored = try connection.firstRow(
                        "SELECT remind, reminded FROM todos WHERE id = ?", [.integer(known.0)],
                        {
                            ($0.optionalInstant(0), $0.optionalInstant(1))
                        }), stored.0 == remind
                {
                    image.todo.reminded = stored.1
                }
                // A later entry that says what the store holds is no change (a file without any
                // timestamp is read as written now, so its every import would be "later").
                // A sync client's conditional entry is always applied.
                let always = entry.ifRevision != nil
                try connection.run(
                    always ? Self.importUpdateSQL : Self.importUpdateIfChangedSQL,
                    image.values(Self.importUpdateColumns) + [.integer(known.0)]
                        + (always ? [] : image.values(Self.importComparedColumns)))
                links.append((known.0, entry.parent))
                guard connection.changes > 0 else {
                    unchanged += 1
                    continue
                }
                try writeTags(known.0, fields.tags, replacing: true)
                updated += 1
                continue
            }
            added += 1
            image.rank = try todoOrder.keyAtEnd()
            try connection.run(Self.importInsertSQL, image.values(Self.importInsertColumns))
            let id = connection.lastInsertRowID
            try writeTags(id, fields.tags, replacing: false)
            arrived.append((uid, id))
            if entry.parent != nil { links.append((id, entry.parent)) }
        }
        // The links waiting for a todo that arrived first, then the entries' own.
        var asked: [(id: Int64, link: ParentLink)] = []
        var touched: Set<Int64> = []
        for (uid, id) in arrived {
            for child in try connection.rows("SELECT id FROM todos WHERE parent_uid = ?", [.text(uid)], { $0.int64(0) })
            {
                asked.append((child, .todo(id)))
                touched.insert(child)
            }
        }
        for (id, parent) in links {
            asked.append((id, parent.map(ParentLink.uid) ?? .none))
            touched.remove(id)
        }
        try setParentLinks(asked, touched: touched)
        let after = try connection.scalar("SELECT COUNT(*) FROM categories")
        progress() // recording the change sums the size of every row it wrote
        try recordChange(
            .import,
            "\(label ?? "import"): \(added) added, \(updated) updated" + (deleted > 0 ? ", \(deleted) deleted" : ""))
        var counts = ImportCounts(
            todos: document.todos.count, categories: Int(after - before), added: added, updated: updated,
            unchanged: unchanged + stale.count)
        counts.deleted = deleted
        counts.stale = stale
        counts.conditional = document.todos.contains { $0.ifRevision != nil }
        return counts
    }

    /// What an import writes for a new todo: every column but the id (assigned), `revision` (1)
    /// and the links, which are made once every entry is in.
    static let importInsertColumns = TodoColumn.all(except: [.id, .revision, .parent_id, .parent_uid])
    static let importInsertSQL = TodoColumn.insert(importInsertColumns)
    /// What an import writes over a todo it holds: all but its identity, order, revision and links.
    static let importUpdateColumns = TodoColumn.all(except: [.id, .uid, .rank, .revision, .parent_id, .parent_uid])
    static let importUpdateSQL =
        "UPDATE todos SET \(TodoColumn.assignments(importUpdateColumns)), revision = revision + 1 WHERE id = ?"
    /// What an entry that changes nothing holds already: what it writes but the derived columns
    /// and the timestamps.
    static let importComparedColumns = importUpdateColumns.filter { !$0.isDerived && $0 != .created && $0 != .updated }
    static let importUpdateIfChangedSQL =
        importUpdateSQL + " AND NOT (" + importComparedColumns.map { "\($0.rawValue) IS ?" }.joined(separator: " AND ")
        + ")"

    /// A uid from an import: any text a UID may be (a foreign one is kept as is).
    private func importedUID(_ uid: String, field: String) throws(TodoError) -> String {
        guard !uid.isEmpty, uid.utf8.count <= 255,
            !uid.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " })
        else {
            throw TodoError.invalid(field, "must be 1 to 255 bytes without spaces or control characters")
        }
        return uid
    }
}
