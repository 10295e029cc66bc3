import TodoCore
import TodoSQLite

extension StoreTransaction {
    /// The columns a category read selects; the counts are kept by triggers on the todos that name it.
    private static let categorySelect = """
        SELECT c.id, c.name, c.rank, c.open_count, c.done_count FROM categories c
        """

    /// Every category in category order, with its open and done counts.
    package func categories() throws(TodoError) -> [Category] {
        let rows = try connection.rows("\(Self.categorySelect) ORDER BY c.rank") { s in
            Category(id: s.int64(0), name: s.text(1), position: 0, open: s.int(3), done: s.int(4))
        }
        return rows.enumerated().map { index, category in
            var category = category
            category.position = index + 1
            return category
        }
    }

    /// The category named `name` (case-insensitively).
    /// - Throws: `.notFound`, `.invalidField` for an invalid name.
    package func category(named name: String, field: String = "name") throws(TodoError) -> Category {
        let valid = try Validation.categoryName(name, field: field)
        guard
            let found = try connection.firstRow(
                "\(Self.categorySelect) WHERE c.name_key = ?", [.text(TextKey.identity(valid))],
                { s in
                    (Category(id: s.int64(0), name: s.text(1), position: 0, open: s.int(3), done: s.int(4)), s.int64(2))
                })
        else {
            throw TodoError.notFound("no category named \"\(valid)\"")
        }
        var category = found.0
        category.position = try categoryOrder.position(of: found.1)
        return category
    }

    /// The ids of the category named `name` and of those below it (`仕事.会議`, `仕事/会議`,
    /// `仕事.会議.議事録`), matched as names are (case and width folded); not found when none is.
    package func categoryTree(named name: String, field: String = "name") throws(TodoError) -> [Int64] {
        let valid = try Validation.categoryName(name, field: field)
        let key = TextKey.identity(valid)
        let ids = try connection.rows(
            "SELECT id FROM categories WHERE name_key = ?1 OR substr(name_key, 1, length(?2)) IN (?2, ?3) ORDER BY rank",
            [.text(key), .text(key + "."), .text(key + "/")]
        ) { s in s.int64(0) }
        guard !ids.isEmpty else { throw TodoError.notFound("no category named \"\(valid)\"") }
        return ids
    }

    /// The id of the category named `name`, creating it (at the end of the order) when missing.
    func categoryID(creating name: String) throws(TodoError) -> Int64 {
        try category(creating: name).id
    }

    /// The id and stored name of the category called `name` under any case, created when missing.
    func category(creating name: String) throws(TodoError) -> (id: Int64, name: String) {
        let valid = try Validation.categoryName(name)
        let key = TextKey.identity(valid)
        if let existing = try connection.firstRow(
            "SELECT id, name FROM categories WHERE name_key = ?", [.text(key)],
            {
                (id: $0.int64(0), name: $0.text(1))
            })
        {
            return existing
        }
        try connection.run(
            "INSERT INTO categories (name, name_key, rank, created) VALUES (?, ?, ?, ?)",
            [.text(valid), .text(key), .integer(try categoryOrder.keyAtEnd()), .integer(now.usec)])
        return (connection.lastInsertRowID, valid)
    }

    /// Adds a category at the end of the category order.
    /// - Throws: `.conflict` when a category of that name exists under any case.
    package func addCategory(_ name: String) throws(TodoError) -> Category {
        let valid = try Validation.categoryName(name, field: "name")
        if let existing = try? category(named: valid) {
            throw TodoError.conflict("category \"\(existing.name)\" already exists")
        }
        _ = try categoryID(creating: valid)
        try recordChange(.categoryAdd, "category add \(ChangeLog.quoted(valid))")
        return try category(named: valid)
    }

    /// Renames a category; a change of case alone is allowed.
    /// - Throws: `.notFound`; `.conflict` when another category already has the new name.
    package func renameCategory(_ name: String, to newName: String) throws(TodoError) -> Category {
        let old = try category(named: name)
        let valid = try Validation.categoryName(newName, field: "newName")
        let key = TextKey.identity(valid)
        if let other = try connection.firstRow(
            "SELECT name FROM categories WHERE name_key = ? AND id <> ?", [.text(key), .integer(old.id)], { $0.text(0) }
        ) {
            throw TodoError.conflict("category \"\(other)\" already exists")
        }
        if valid != old.name {
            try connection.run(
                "UPDATE categories SET name = ?, name_key = ? WHERE id = ?",
                [.text(valid), .text(key), .integer(old.id)])
            // Its todos changed with it (their category's name is part of each): they are in the
            // change log, so sync (and a client following changes) sends them again.
            try connection.run(
                "UPDATE todos SET updated = ?, revision = revision + 1 WHERE category_id = ?",
                [.integer(now.usec), .integer(old.id)])
        }
        try recordChange(.categoryRename, "category rename \(ChangeLog.quoted(old.name)) \(ChangeLog.quoted(valid))")
        return try category(named: valid)
    }

    /// Deletes a category. One that still has todos is refused unless `force`, which unlinks
    /// them (they become uncategorised); no todo is ever deleted. Returns the category as it was.
    package func deleteCategory(_ name: String, force: Bool) throws(TodoError) -> Category {
        let old = try category(named: name)
        let count = old.open + old.done
        if count > 0 {
            guard force else {
                throw TodoError.conflict(
                    "category \"\(old.name)\" still has \(count) todo\(count == 1 ? "" : "s"); force the deletion to unlink them"
                )
            }
            try connection.run(
                "UPDATE todos SET category_id = NULL, updated = ?, revision = revision + 1 WHERE category_id = ?",
                [.integer(now.usec), .integer(old.id)])
        }
        try connection.run("DELETE FROM categories WHERE id = ?", [.integer(old.id)])
        try recordChange(.categoryDelete, "category delete \(ChangeLog.quoted(old.name))")
        return old
    }

    /// Moves a category to 1-based `position` in the category order.
    package func moveCategory(_ name: String, to position: Int) throws(TodoError) -> Category {
        let old = try category(named: name)
        _ = try categoryOrder.move(id: old.id, toPosition: position)
        try recordChange(.categoryMove, "category move \(ChangeLog.quoted(old.name)) \(position)")
        return try category(named: old.name)
    }
}
