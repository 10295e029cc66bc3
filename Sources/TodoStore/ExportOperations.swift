import TodoCore

extension StoreTransaction {
    /// The whole store: categories in category order, todos in manual order.
    package func export() throws(TodoError) -> ExportDocument {
        let todos = try connection.rows("SELECT \(todoColumns) ORDER BY t.rank", [], TodoRow.init)
        return ExportDocument(
            categories: try categories().map(\.name),
            todos: todos.map { ExportDocument.Entry($0.todo) },
            exported: now)
    }

    /// Adds everything in `document`: missing categories (at the end of the category order),
    /// then every todo as a new one at the bottom of the manual order, keeping its uid, state
    /// and timestamps (a todo without a uid gets a new one). Run inside `write`, it is all or
    /// nothing. `progress` is called after every 100 todos (long work can tell the watchdog it
    /// moves).
    /// - Throws: `.invalidField` naming the entry (`todos[3].title`) when any value is invalid,
    ///   or when a uid is already in the store (or twice in the document): an import never
    ///   duplicates a uid.
    package func importDocument(_ document: ExportDocument, progress: () -> Void = {}) throws(TodoError) -> ImportCounts {
        let before = try connection.scalar("SELECT COUNT(*) FROM categories")
        for (i, name) in document.categories.enumerated() {
            _ = try Validation.categoryName(name, field: "categories[\(i)]")
            _ = try categoryID(creating: name)
        }
        for (i, entry) in document.todos.enumerated() {
            if i % 100 == 99 { progress() }
            let title = try Validation.title(entry.title, field: "todos[\(i)].title")
            let notes = try entry.notes.flatMap { (n) throws(TodoError) in try Validation.notes(n, field: "todos[\(i)].notes") }
            let categoryID = try entry.category.map { (name) throws(TodoError) -> Int64 in
                _ = try Validation.categoryName(name, field: "todos[\(i)].category")
                return try self.categoryID(creating: name)
            }
            let uid = try entry.uid.map { (uid) throws(TodoError) in try importedUID(uid, field: "todos[\(i)].uid") } ?? RandomUUID.make(at: now)
            let fields = try checkedFields(priority: entry.priority, tags: entry.tags, zone: entry.zone, allDay: entry.allDay,
                                           recurrence: entry.recurrence, due: entry.due, prefix: "todos[\(i)].")
            // A recurring todo that is still open keeps the completion it recorded last.
            let completed = entry.done ? (entry.completed ?? now) : (fields.recurrence != nil ? entry.completed : nil)
            try connection.run("""
                INSERT INTO todos (title, title_key, notes, search_key, category_id, due, remind, reminded,
                                   done, completed, rank, created, updated, uid,
                                   priority, tags, zone, all_day, due_end, recur_rule, recur_from)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [
                    .text(title), .text(TextKey.sort(title)), .optional(notes), .text(searchKey(title, notes)),
                    .optional(categoryID), .optional(entry.due), .optional(entry.remind), .optional(entry.reminded),
                    .bool(entry.done), .optional(completed),
                    .integer(try todoOrder.keyAtEnd()), .integer(entry.created.usec), .integer(entry.updated.usec),
                    .text(uid),
                    .optional(entry.priority.map { Int64($0.rank) }), .optional(TagColumn.text(fields.tags)), .optional(fields.zone),
                    .bool(entry.allDay), .optional(dueEnd(due: entry.due, allDay: entry.allDay, zone: fields.zone)),
                    .optional(fields.recurrence?.rule), .optional(fields.recurrence?.from.rawValue),
                ])
            try writeTags(connection.lastInsertRowID, fields.tags, replacing: false)
        }
        let after = try connection.scalar("SELECT COUNT(*) FROM categories")
        try recordChange(.import, "import \(document.todos.count) todo\(document.todos.count == 1 ? "" : "s")")
        return ImportCounts(todos: document.todos.count, categories: Int(after - before))
    }

    /// A uid from an import: any text a UID may be (a foreign one is kept as is), not yet in the store.
    private func importedUID(_ uid: String, field: String) throws(TodoError) -> String {
        guard !uid.isEmpty, uid.utf8.count <= 255, !uid.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
            throw TodoError.invalid(field, "must be 1 to 255 bytes without spaces or control characters")
        }
        if let id = try connection.firstRow("SELECT id FROM todos WHERE uid = ?", [.text(uid)], { $0.int64(0) }) {
            throw TodoError.invalid(field, "\(uid) is already todo \(id) of this store; importing into the same store twice is refused, not duplicated")
        }
        return uid
    }
}
