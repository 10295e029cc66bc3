import TodoCore

extension StoreTransaction {
    /// The whole store: categories in category order, todos in manual order.
    public func export() throws(TodoError) -> ExportDocument {
        let todos = try connection.rows("SELECT \(todoColumns) ORDER BY t.rank", [], TodoRow.init)
        return ExportDocument(
            categories: try categories().map(\.name),
            todos: todos.map { ExportDocument.Entry($0.todo) },
            exported: now)
    }

    /// Adds everything in `document`: missing categories (at the end of the category order),
    /// then every todo as a new one at the bottom of the manual order, keeping its state and
    /// timestamps. Run inside `write`, it is all or nothing.
    /// `progress` is called after every 100 todos (long work can tell the watchdog it moves).
    /// - Throws: `.invalidField` naming the entry (`todos[3].title`) when any value is invalid.
    public func importDocument(_ document: ExportDocument, progress: () -> Void = {}) throws(TodoError) -> ImportCounts {
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
            try connection.run("""
                INSERT INTO todos (title, title_key, notes, search_key, category_id, due, remind, reminded,
                                   done, completed, rank, created, updated)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [
                    .text(title), .text(TextKey.sort(title)), .optional(notes), .text(searchKey(title, notes)),
                    .optional(categoryID), .optional(entry.due), .optional(entry.remind), .optional(entry.reminded),
                    .bool(entry.done), .optional(entry.done ? (entry.completed ?? now) : nil),
                    .integer(try todoOrder.keyAtEnd()), .integer(entry.created.usec), .integer(entry.updated.usec),
                ])
        }
        let after = try connection.scalar("SELECT COUNT(*) FROM categories")
        return ImportCounts(todos: document.todos.count, categories: Int(after - before))
    }
}
