import TodoCore

/// Migration 8: the change log and `todos.revision`.
///
/// `changes` holds one row per committed change (one client request that changed something):
/// its store-wide `seq` (AUTOINCREMENT: strictly increasing, never reused, not even after
/// pruning), instant, kind, a short description, and where it stands for undo (`state`: 'done'
/// can be undone, 'undone' can be redone, NULL neither). `change_rows` holds, in the order they
/// were written, the rows the change touched: the image before and after (`ChangeLog.todoImage`,
/// `categoryImage`: JSON arrays of every stored column; NULL before an insert or after a delete).
/// The images are written by triggers (`ChangeLog.triggers`) in the change's own transaction.
let changeLogMigration = Migration(id: 8, name: "change log and todo revisions", sql: """
    ALTER TABLE todos ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
    CREATE TABLE changes (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        at          INTEGER NOT NULL,
        kind        TEXT    NOT NULL,
        description TEXT    NOT NULL,
        state       TEXT    CHECK (state IN ('done', 'undone'))
    );
    CREATE INDEX changes_state ON changes(state, seq) WHERE state IS NOT NULL;
    CREATE TABLE change_rows (
        n      INTEGER PRIMARY KEY,
        seq    INTEGER NOT NULL,
        tbl    TEXT    NOT NULL CHECK (tbl IN ('todo', 'category')),
        row_id INTEGER NOT NULL,
        before TEXT,
        after  TEXT
    );
    CREATE INDEX change_rows_seq ON change_rows(seq);
    """)

/// What kind of change a log entry records.
package enum ChangeKind: String, Sendable, CaseIterable {
    case add, update, complete, reopen, delete, move, snooze
    case categoryAdd = "category.add", categoryRename = "category.rename"
    case categoryDelete = "category.delete", categoryMove = "category.move"
    case `import`, undo, redo
}

/// One entry of the change log as read back.
package struct ChangeEntry: Sendable, Equatable {
    package var seq: Int64
    package var at: Instant
    package var kind: ChangeKind
    package var description: String
    /// True when `undo` would revert it now (an ordinary change not undone, or redone).
    package var canUndo: Bool
    /// True when `redo` would apply it again now (undone, and no ordinary change since).
    package var canRedo: Bool
}

/// A todo one change touched: its id and uid, and whether the change left it deleted.
package struct TouchedTodo: Sendable, Equatable {
    package var id: Int64
    package var uid: String
    package var deleted: Bool
}

/// How much of the log is kept: at least the last `changes` changes or the changes of the last
/// `age`, whichever is more. Pruning happens a little at a time, with each change committed.
package struct LogRetention: Sendable {
    package var changes: Int64
    package var ageUsec: Int64
    /// Rows of `change_rows` deleted at most per commit.
    package var rowsPerCommit: Int

    package init(changes: Int64 = 10_000, ageUsec: Int64 = 30 * 86_400 * 1_000_000, rowsPerCommit: Int = 256) {
        self.changes = changes
        self.ageUsec = ageUsec
        self.rowsPerCommit = rowsPerCommit
    }

    package static let standard = LogRetention()
}

/// The triggers and row images of the log.
enum ChangeLog {
    /// The stored columns of a todo, in image order (a todo image is a JSON array of them).
    static let todoColumns = [
        "id", "title", "title_key", "notes", "search_key", "category_id", "due", "remind", "reminded", "done",
        "completed", "rank", "created", "updated", "uid", "priority", "tags", "zone", "all_day", "due_end",
        "recur_rule", "recur_from", "revision",
    ]
    /// The stored columns of a category in image order (its counts are kept by triggers).
    static let categoryColumns = ["id", "name", "name_key", "rank", "created"]

    static func image(_ columns: [String], _ row: String) -> String {
        "json_array(" + columns.map { "\(row).\($0)" }.joined(separator: ", ") + ")"
    }

    /// The seq the change being written will get.
    static let nextSeqSQL = "(SELECT coalesce(max(seq), 0) + 1 FROM main.sqlite_sequence WHERE name = 'changes')"

    /// The triggers that write `change_rows`: TEMP triggers of the connection (made when the store
    /// opens, so a store opened without the log writes none). A todo update that only records a
    /// fired reminder (`reminded`) is not a change and is not logged; nor is a category's counts.
    static var triggers: String {
        let todoChanged = todoColumns.filter { $0 != "reminded" }.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
        let categoryChanged = ["name", "name_key", "rank"].map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
        func insert(_ table: String, _ before: String, _ after: String, id: String) -> String {
            "INSERT INTO change_rows (seq, tbl, row_id, before, after) VALUES (\(nextSeqSQL), '\(table)', \(id), \(before), \(after));"
        }
        return """
            CREATE TEMP TRIGGER IF NOT EXISTS log_todo_insert AFTER INSERT ON main.todos BEGIN
                \(insert("todo", "NULL", image(todoColumns, "NEW"), id: "NEW.id"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_todo_update AFTER UPDATE ON main.todos WHEN \(todoChanged) BEGIN
                \(insert("todo", image(todoColumns, "OLD"), image(todoColumns, "NEW"), id: "NEW.id"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_todo_delete AFTER DELETE ON main.todos BEGIN
                \(insert("todo", image(todoColumns, "OLD"), "NULL", id: "OLD.id"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_category_insert AFTER INSERT ON main.categories BEGIN
                \(insert("category", "NULL", image(categoryColumns, "NEW"), id: "NEW.id"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_category_update AFTER UPDATE OF name, name_key, rank ON main.categories
                WHEN \(categoryChanged) BEGIN
                \(insert("category", image(categoryColumns, "OLD"), image(categoryColumns, "NEW"), id: "NEW.id"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_category_delete AFTER DELETE ON main.categories BEGIN
                \(insert("category", image(categoryColumns, "OLD"), "NULL", id: "OLD.id"))
            END;
            """
    }

    /// A title or name in a description: quoted, cut to 40 characters.
    static func quoted(_ text: String) -> String {
        "\"" + (text.count > 40 ? text.prefix(39) + "…" : text) + "\""
    }

    /// Ids in a description: "3, 4, 5" (the first ten, then "…").
    static func list(_ ids: [Int64]) -> String {
        ids.prefix(10).map(String.init).joined(separator: ", ") + (ids.count > 10 ? ", …" : "")
    }

    /// JSON path of column `name` in an image of `columns`.
    static func path(_ columns: [String], _ name: String) -> String {
        "'$[\(columns.firstIndex(of: name)!)]'"
    }
}

// MARK: - Writing the log

extension StoreTransaction {
    /// The seq of the newest change ever logged (0 before the first). Pruning never lowers it.
    package func currentSeq() throws(TodoError) -> Int64 {
        try connection.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")
    }

    /// The oldest seq still in the log, or nil when it is empty.
    package func oldestSeq() throws(TodoError) -> Int64? {
        try connection.firstRow("SELECT seq FROM changes ORDER BY seq LIMIT 1") { $0.int64(0) }
    }

    /// Closes the change the rows written so far belong to: when they changed something, it gets
    /// its seq, `kind` and `description`, and a bounded step of pruning runs. Nothing happens for
    /// a request that changed nothing. An ordinary change (not undo or redo) can be undone and
    /// clears what could be redone.
    /// - Returns: the change's seq, or nil when nothing changed.
    @discardableResult
    func recordChange(_ kind: ChangeKind, _ description: @autoclosure () -> String) throws(TodoError) -> Int64? {
        let next = try connection.scalar("SELECT \(ChangeLog.nextSeqSQL)")
        guard try connection.firstRow("SELECT 1 FROM change_rows WHERE seq = ? LIMIT 1", [.integer(next)], { _ in true }) != nil else {
            return nil
        }
        let ordinary = kind != .undo && kind != .redo
        if ordinary { try connection.run("UPDATE changes SET state = NULL WHERE state = 'undone'") }
        try connection.run("INSERT INTO changes (seq, at, kind, description, state) VALUES (?, ?, ?, ?, ?)", [
            .integer(next), .integer(now.usec), .text(kind.rawValue), .text(description()), ordinary ? .text("done") : .null,
        ])
        try prune(latest: next)
        return next
    }

    /// One bounded step of pruning: removes changes older than both the last `retention.changes`
    /// and `retention.ageUsec`, at most `retention.rowsPerCommit` images and 16 changes at a time.
    func prune(latest: Int64) throws(TodoError) {
        var budget = retention.rowsPerCommit
        for _ in 0..<16 where budget > 0 {
            guard let oldest = try connection.firstRow("SELECT seq, at FROM changes ORDER BY seq LIMIT 1", [], { ($0.int64(0), $0.int64(1)) }),
                  oldest.0 <= latest - retention.changes, oldest.1 < now.usec - retention.ageUsec
            else { return }
            // A change pruned in part can no longer be undone or redone.
            try connection.run("UPDATE changes SET state = NULL WHERE seq = ? AND state IS NOT NULL", [.integer(oldest.0)])
            try connection.run("DELETE FROM change_rows WHERE n IN (SELECT n FROM change_rows WHERE seq = ? ORDER BY n LIMIT ?)",
                               [.integer(oldest.0), .integer(Int64(budget))])
            budget -= Int(connection.changes)
            if try connection.firstRow("SELECT 1 FROM change_rows WHERE seq = ? LIMIT 1", [.integer(oldest.0)], { _ in true }) == nil {
                try connection.run("DELETE FROM changes WHERE seq = ?", [.integer(oldest.0)])
            }
        }
    }
}

// MARK: - Reading the log

extension StoreTransaction {
    private static let entrySelect = "SELECT seq, at, kind, description, state FROM changes"

    private static func entry(_ s: Statement) -> ChangeEntry {
        let state = s.optionalText(4)
        return ChangeEntry(seq: s.int64(0), at: s.instant(1), kind: ChangeKind(rawValue: s.text(2)) ?? .update,
                           description: s.text(3), canUndo: state == "done", canRedo: state == "undone")
    }

    /// The changes after `seq`, oldest first, at most `limit`.
    package func changes(after seq: Int64, limit: Int) throws(TodoError) -> [ChangeEntry] {
        try connection.rows("\(Self.entrySelect) WHERE seq > ? ORDER BY seq LIMIT ?",
                            [.integer(seq), .integer(Int64(limit))], Self.entry)
    }

    /// The newest changes first, at most `limit`.
    package func history(limit: Int) throws(TodoError) -> [ChangeEntry] {
        try connection.rows("\(Self.entrySelect) ORDER BY seq DESC LIMIT ?", [.integer(Int64(limit))], Self.entry)
    }

    /// The todos change `seq` touched, in the order first touched; `deleted` when the change
    /// left the todo deleted.
    package func touchedTodos(_ seq: Int64) throws(TodoError) -> [TouchedTodo] {
        let uid = ChangeLog.path(ChangeLog.todoColumns, "uid")
        let rows = try connection.rows("""
            SELECT row_id, coalesce(json_extract(after, \(uid)), json_extract(before, \(uid))), after IS NULL
            FROM change_rows WHERE seq = ? AND tbl = 'todo' ORDER BY n
            """, [.integer(seq)]) { TouchedTodo(id: $0.int64(0), uid: $0.text(1), deleted: $0.bool(2)) }
        var order: [Int64] = []
        var last: [Int64: TouchedTodo] = [:]
        for row in rows {
            if last[row.id] == nil { order.append(row.id) }
            last[row.id] = row
        }
        return order.compactMap { last[$0] }
    }

    /// The ids of the categories change `seq` touched, and whether it left each deleted.
    package func touchedCategories(_ seq: Int64) throws(TodoError) -> [(id: Int64, deleted: Bool)] {
        let rows = try connection.rows("SELECT row_id, after IS NULL FROM change_rows WHERE seq = ? AND tbl = 'category' ORDER BY n",
                                       [.integer(seq)]) { ($0.int64(0), $0.bool(1)) }
        var order: [Int64] = []
        var last: [Int64: Bool] = [:]
        for (id, deleted) in rows {
            if last[id] == nil { order.append(id) }
            last[id] = deleted
        }
        return order.map { ($0, last[$0]!) }
    }
}

// MARK: - Undo and redo

/// What one `undo` or `redo` did.
package struct Reversal: Sendable, Equatable {
    /// The seq of the undo or redo itself (a change like any other); nil when it changed nothing.
    package var seq: Int64?
    /// The seqs of the changes it reverted or applied again, in that order.
    package var changes: [Int64]
    /// Their descriptions, joined by "; ".
    package var description: String
    /// The todos it touched as they are now (without the ones it deleted).
    package var todos: [Todo]
    /// The todos it deleted, as they were.
    package var deletedTodos: [Todo]
    /// The categories it touched as they are now (without the ones it deleted).
    package var categories: [Category]
    /// The categories it deleted, as they were.
    package var deletedCategories: [Category]
    /// The touched todos and categories as they were before it (absent: it made them).
    package var todosBefore: [Int64: Todo]
    package var categoriesBefore: [Int64: Category]
}

extension StoreTransaction {
    /// Reverts the most recent change that can be undone, `steps` times (fewer when the log
    /// holds fewer): every row it wrote goes back to what it was, exactly (same id, uid, order
    /// key, category, tags), except that a reminder already delivered stays delivered. All the
    /// steps are one change of kind `undo`; what was undone can be redone.
    /// - Throws: `.invalidField` (`steps`), `.conflict` when there is nothing to undo.
    package func undo(steps: Int = 1) throws(TodoError) -> Reversal {
        try reverse(redo: false, steps: steps)
    }

    /// Applies again the most recently undone change, `steps` times (fewer when fewer can be
    /// redone). A new ordinary change makes the undone ones final.
    /// - Throws: `.invalidField` (`steps`), `.conflict` when there is nothing to redo.
    package func redo(steps: Int = 1) throws(TodoError) -> Reversal {
        try reverse(redo: true, steps: steps)
    }

    private func reverse(redo: Bool, steps: Int) throws(TodoError) -> Reversal {
        guard steps >= 1, steps <= 10_000 else { throw TodoError.invalid("steps", "must be 1 to 10000") }
        let pick = redo
            ? "SELECT seq, description FROM changes INDEXED BY changes_state WHERE state = 'undone' ORDER BY seq LIMIT 1"
            : "SELECT seq, description FROM changes INDEXED BY changes_state WHERE state = 'done' ORDER BY seq DESC LIMIT 1"
        var done: [(seq: Int64, description: String)] = []
        var todosBefore: [Int64: Todo] = [:]
        var categoriesBefore: [Int64: Category] = [:]
        var categoryIDs: Set<Int64> = []
        var todoIDs: [Int64] = []
        let allCategories = try categories()
        for _ in 0..<steps {
            guard let target = try connection.firstRow(pick, [], { ($0.int64(0), $0.text(1)) }) else { break }
            for (table, id) in try connection.rows("SELECT tbl, row_id FROM change_rows WHERE seq = ? ORDER BY n", [.integer(target.0)], {
                ($0.text(0), $0.int64(1))
            }) {
                if table == "todo" {
                    guard !todoIDs.contains(id) else { continue }
                    todoIDs.append(id)
                    if let todo = try? todo(id) { todosBefore[id] = todo }
                } else if categoryIDs.insert(id).inserted, let category = allCategories.first(where: { $0.id == id }) {
                    categoriesBefore[id] = category
                }
            }
            try apply(target.0, forward: redo)
            try connection.run("UPDATE changes SET state = ? WHERE seq = ?", [.text(redo ? "done" : "undone"), .integer(target.0)])
            done.append(target)
        }
        guard !done.isEmpty else { throw TodoError.conflict(redo ? "nothing to redo" : "nothing to undo") }
        let description = done.map(\.description).joined(separator: "; ")
        let seq = try recordChange(redo ? .redo : .undo, (redo ? "redo " : "undo ") + description)
        var reversal = Reversal(seq: seq, changes: done.map(\.seq), description: description, todos: [], deletedTodos: [],
                                categories: [], deletedCategories: [], todosBefore: todosBefore, categoriesBefore: categoriesBefore)
        for id in todoIDs {
            if let now = try? todo(id) {
                reversal.todos.append(now)
            } else if let was = todosBefore[id] {
                reversal.deletedTodos.append(was)
            }
        }
        let categoriesNow = try categories()
        reversal.categories = categoriesNow.filter { categoryIDs.contains($0.id) }
        reversal.deletedCategories = categoryIDs.filter { id in !categoriesNow.contains { $0.id == id } }
            .compactMap { categoriesBefore[$0] }.sorted { $0.position < $1.position }
        return reversal
    }

    /// Writes the images of change `seq` back: the ones before it, last row first (undo), or the
    /// ones after it, first row first (redo).
    func apply(_ seq: Int64, forward: Bool) throws(TodoError) {
        let rows = try connection.rows(
            "SELECT tbl, row_id, before, after FROM change_rows WHERE seq = ? ORDER BY n \(forward ? "ASC" : "DESC")",
            [.integer(seq)]) { ($0.text(0), $0.int64(1), $0.optionalText(forward ? 3 : 2)) }
        var categoryIDs = Set<Int64>()
        for (table, id, image) in rows {
            if table == "todo" {
                if let old = try connection.firstRow("SELECT category_id FROM todos WHERE id = ?", [.integer(id)], { $0.optionalInt64(0) }),
                   let old { categoryIDs.insert(old) }
                try applyTodo(id, image)
                if let new = try connection.firstRow("SELECT category_id FROM todos WHERE id = ?", [.integer(id)], { $0.optionalInt64(0) }),
                   let new { categoryIDs.insert(new) }
            } else {
                try applyCategory(id, image)
                categoryIDs.insert(id)
            }
        }
        // The counts follow the todos through triggers; counted again here so that a restored
        // category starts right whatever order its rows come back in.
        for id in categoryIDs {
            try connection.run("""
                UPDATE categories SET
                    open_count = (SELECT COUNT(*) FROM todos WHERE category_id = ?1 AND done = 0),
                    done_count = (SELECT COUNT(*) FROM todos WHERE category_id = ?1 AND done = 1)
                WHERE id = ?1
                """, [.integer(id)])
        }
    }

    private func applyTodo(_ id: Int64, _ image: String?) throws(TodoError) {
        let columns = ChangeLog.todoColumns
        guard let image else {
            try connection.run("DELETE FROM todos WHERE id = ?", [.integer(id)])
            return
        }
        let current = try connection.firstRow("SELECT tags FROM todos WHERE id = ?", [.integer(id)]) { $0.optionalText(0) }
        let tagsPath = ChangeLog.path(columns, "tags")
        let tags = try connection.firstRow("SELECT json_extract(?, \(tagsPath))", [.text(image)]) { $0.optionalText(0) } ?? nil
        if let current {
            // A reminder delivered since stays delivered while it is still the same reminder.
            let sets = columns.filter { !["id", "reminded", "revision"].contains($0) }
                .map { "\($0) = json_extract(?1, \(ChangeLog.path(columns, $0)))" }.joined(separator: ", ")
            try connection.run("""
                UPDATE todos SET \(sets),
                    reminded = CASE WHEN reminded IS NOT NULL AND remind IS json_extract(?1, \(ChangeLog.path(columns, "remind")))
                        THEN reminded ELSE json_extract(?1, \(ChangeLog.path(columns, "reminded"))) END,
                    revision = revision + 1
                WHERE id = ?2
                """, [.text(image), .integer(id)])
            if current != tags { try writeTags(id, TagColumn.tags(tags), replacing: true) }
        } else {
            // The todo as it was when last deleted: a reminder delivered before that stays delivered.
            let last = try connection.firstRow(
                "SELECT before FROM change_rows WHERE row_id = ? AND tbl = 'todo' AND after IS NULL ORDER BY n DESC LIMIT 1",
                [.integer(id)]) { $0.optionalText(0) } ?? nil
            let remind = ChangeLog.path(columns, "remind"), reminded = ChangeLog.path(columns, "reminded")
            let values = columns.map { name in
                switch name {
                case "revision": "json_extract(?1, \(ChangeLog.path(columns, name))) + 1"
                case "reminded": """
                    CASE WHEN json_extract(?2, \(reminded)) IS NOT NULL AND json_extract(?2, \(remind)) IS json_extract(?1, \(remind))
                        THEN json_extract(?2, \(reminded)) ELSE json_extract(?1, \(reminded)) END
                    """
                default: "json_extract(?1, \(ChangeLog.path(columns, name)))"
                }
            }
            try connection.run("INSERT INTO todos (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))",
                               [.text(image), .optional(last)])
            try writeTags(id, TagColumn.tags(tags), replacing: true)
        }
    }

    private func applyCategory(_ id: Int64, _ image: String?) throws(TodoError) {
        let columns = ChangeLog.categoryColumns
        guard let image else {
            try connection.run("DELETE FROM categories WHERE id = ?", [.integer(id)])
            return
        }
        if try connection.firstRow("SELECT 1 FROM categories WHERE id = ?", [.integer(id)], { _ in true }) != nil {
            let sets = columns.filter { $0 != "id" }.map { "\($0) = json_extract(?1, \(ChangeLog.path(columns, $0)))" }
            try connection.run("UPDATE categories SET \(sets.joined(separator: ", ")) WHERE id = ?2", [.text(image), .integer(id)])
        } else {
            let values = columns.map { "json_extract(?1, \(ChangeLog.path(columns, $0)))" }
            try connection.run("INSERT INTO categories (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))",
                               [.text(image)])
        }
    }
}
