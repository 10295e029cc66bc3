import TodoCore
import TodoSQLite

/// Migration 8: the change log and `todos.revision`.
///
/// `changes` holds one row per committed change (one client request that changed something):
/// its store-wide `seq` (AUTOINCREMENT: strictly increasing, never reused, not even after
/// pruning), instant, kind, a short description, and where it stands for undo (`state`: 'done'
/// can be undone, 'undone' can be redone, NULL neither), and the range of `change_rows`
/// (`first_n`...`last_n`) it wrote. `change_rows` holds, in the order they were written (its
/// AUTOINCREMENT `n`, so one change's rows are one range), the rows the change touched: the stored row before it (`b_*`, when
/// `has_before`) and after it (`a_*`, when `has_after`), every column of `todos` (a category's
/// row uses `id`, `title` for its name, `title_key` for its `name_key`, `rank` and `created`).
/// Plain columns, not JSON: a trigger copies `NEW.*` as it is, which costs little on every add;
/// and no index: each add touches three b-trees of the log (`changes`, `change_rows` and
/// `sqlite_sequence`), one page each per commit.
/// The rows are written by triggers (`ChangeLog.triggers`) in the change's own transaction.
let changeLogMigration = Migration(
    id: 8, name: "change log and todo revisions",
    sql: """
        ALTER TABLE todos ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
        CREATE TABLE changes (
            seq         INTEGER PRIMARY KEY AUTOINCREMENT,
            at          INTEGER NOT NULL,
            kind        TEXT    NOT NULL,
            description TEXT    NOT NULL,
            state       TEXT    CHECK (state IN ('done', 'undone')),
            first_n     INTEGER NOT NULL,
            last_n      INTEGER NOT NULL
        );
        CREATE TABLE change_rows (
            n          INTEGER PRIMARY KEY AUTOINCREMENT,
            tbl        TEXT    NOT NULL CHECK (tbl IN ('todo', 'category')),
            row_id     INTEGER NOT NULL,
            has_before INTEGER NOT NULL,
            has_after  INTEGER NOT NULL,
            b_id, b_title, b_title_key, b_notes, b_search_key, b_category_id, b_due, b_remind,
            b_reminded, b_done, b_completed, b_rank, b_created, b_updated, b_uid, b_priority, b_tags,
            b_zone, b_all_day, b_due_end, b_recur_rule, b_recur_from, b_revision,
            a_id, a_title, a_title_key, a_notes, a_search_key, a_category_id, a_due, a_remind,
            a_reminded, a_done, a_completed, a_rank, a_created, a_updated, a_uid, a_priority, a_tags,
            a_zone, a_all_day, a_due_end, a_recur_rule, a_recur_from, a_revision,
            CHECK (has_before IN (0, 1) AND has_after IN (0, 1))
        );
        """)

/// Migration 10: the row images carry `todos.ical_extra` (what an iCalendar import kept, migration
/// 9) as `b_ical_extra` and `a_ical_extra`, so undo and redo give a todo its kept lines back.
/// Rows logged before it have no such image (NULL there means "not recorded", not "none"):
/// `store_info`'s `ical_extra_logged_from` is the first `change_rows.n` that has one, and undo or
/// redo of an older row leaves the todo's `ical_extra` as it is, as before the migration.
let changeLogICalMigration = Migration(
    id: 10, name: "change log images of what iCalendar imports keep",
    sql: """
        ALTER TABLE change_rows ADD COLUMN b_ical_extra;
        ALTER TABLE change_rows ADD COLUMN a_ical_extra;
        INSERT INTO store_info (key, value) VALUES ('ical_extra_logged_from',
            coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'change_rows'), 0) + 1);
        """)

/// Migration 11: the deletions in the log, by todo. Undo or redo that brings a todo back looks
/// up the image its last deletion left (a reminder delivered before it stays delivered): through
/// this partial index that is one lookup instead of a scan of every row of the log, so bringing
/// back N todos costs O(N log N), not O(N × log size). Only deletions enter it: an add or an
/// update writes no more pages than before.
let changeLogDeletionsMigration = Migration(
    id: 11, name: "change log deletions by todo",
    sql: """
        CREATE INDEX change_rows_deleted ON change_rows(row_id, n) WHERE tbl = 'todo' AND has_after = 0;
        """)

/// Migration 12: the size of each change's row images (`changes.bytes`: the bytes of their text
/// columns plus `ChangeLog.rowOverhead` per row) and the running total of every change logged
/// up to it (`changes.total_bytes`, like `seq` never lowered by pruning), so the size of the log
/// is the newest total minus the oldest's total before it: two rows read, never a sum over the
/// log. Filled in here for the changes already logged, with the measure `recordChange` used then
/// (`ChangeLog.imageBytesOfMigration12`: the columns added later are counted from their migration on).
let changeLogSizeMigration = Migration(
    id: 12, name: "change log sizes",
    sql: """
        ALTER TABLE changes ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE changes ADD COLUMN total_bytes INTEGER NOT NULL DEFAULT 0;
        UPDATE changes SET bytes = (SELECT coalesce(SUM(\(ChangeLog.imageBytesOfMigration12)), 0) FROM change_rows
                                    WHERE n BETWEEN changes.first_n AND changes.last_n);
        UPDATE changes SET total_bytes = t.total
            FROM (SELECT seq, SUM(bytes) OVER (ORDER BY seq) AS total FROM changes) AS t WHERE t.seq = changes.seq;
        """)

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
/// `age`, whichever is more, as long as their row images take at most `bytes`; past that the
/// oldest go until they fit again, but never the newest change (the last change can always be
/// undone, however large). Pruning happens a little at a time, with each change committed.
package struct LogRetention: Sendable {
    package var changes: Int64
    package var ageUsec: Int64
    /// The most bytes of row images kept (`changes.bytes` summed over the log).
    package var bytes: Int64
    /// Rows of `change_rows` deleted at most per commit.
    package var rowsPerCommit: Int

    package init(
        changes: Int64 = 10_000, ageUsec: Int64 = 30 * 86_400 * 1_000_000, bytes: Int64 = 64 << 20,
        rowsPerCommit: Int = 256
    ) {
        self.changes = changes
        self.ageUsec = ageUsec
        self.bytes = bytes
        self.rowsPerCommit = rowsPerCommit
    }

    package static let standard = LogRetention()
}

/// The newest change a write transaction logged: its seq, the last `change_rows` row it wrote
/// and its kind. Set by `recordChange`; cleared when a savepoint that may hold it rolls back.
/// Pruning, which runs last, never removes what the next change reads from it.
final class LogTail {
    var newest: (seq: Int64, lastRow: Int64, kind: ChangeKind, totalBytes: Int64)?
    /// The changes and image rows this transaction logged (a rolled-back savepoint's included):
    /// pruning before the commit may remove twice as many, so it keeps up with any pass.
    var logged: (changes: Int, rows: Int) = (0, 0)
    /// Inside `StoreTransaction.asOneChange`: the operations' own `recordChange` calls log
    /// nothing, so that their rows become one change.
    var holding = false
}

/// The triggers and row images of the log.
enum ChangeLog {
    /// The stored columns of a todo (`TodoColumn`, every field's): `change_rows` has each as
    /// `b_NAME` and `a_NAME`, so undo and redo give back every field a todo has.
    static let todoColumns = TodoColumn.allCases.map(\.rawValue)
    /// The stored columns of a category (its counts are kept by triggers), and the `change_rows`
    /// columns (after the prefix) that hold them.
    static let categoryColumns: [(column: String, image: String)] = [
        ("id", "id"), ("name", "title"), ("name_key", "title_key"), ("rank", "rank"), ("created", "created")
    ]

    /// Bytes counted per `change_rows` row besides its text: its integers and record headers.
    static let rowOverhead = 160
    /// The text columns of a row image, the ones that make a log large (a note, kept iCalendar
    /// lines, a recurrence set of up to 20,000 dates).
    static let textColumns = [
        TodoColumn.title, .title_key, .notes, .search_key, .uid, .tags, .zone, .recur_rule, .ical_extra,
        .parent_uid, .recur_set, .alarms
    ].map(\.rawValue)
    /// SQL for the bytes one `change_rows` row holds: both images' text plus `rowOverhead`.
    static let imageBytes = imageBytes(of: textColumns)
    /// `imageBytes` over the text columns migration 12 knew (it runs before later migrations add
    /// columns, so its measure stays the one of its time).
    static let imageBytesOfMigration12 = imageBytes(of: Array(textColumns.prefix(9)))

    private static func imageBytes(of columns: [String]) -> String {
        "\(rowOverhead) + "
            + ["b", "a"].flatMap { p in columns.map { "coalesce(length(CAST(\(p)_\($0) AS BLOB)), 0)" } }
            .joined(separator: " + ")
    }

    /// The `change_rows` of change `?1`: a range of `n`.
    static let rowsOf =
        "n BETWEEN (SELECT first_n FROM changes WHERE seq = ?1) AND (SELECT last_n FROM changes WHERE seq = ?1)"

    /// The triggers that write `change_rows`: TEMP triggers of the connection (made when the store
    /// opens, so a store opened without the log writes none). A todo update that only records a
    /// fired reminder (`reminded`, or `remind` moved on to the alarms' next firing) is not a
    /// change and is not logged; nor is a category's counts.
    static var triggers: String {
        let todoChanged = todoColumns.filter { $0 != "reminded" && $0 != "remind" }.map { "OLD.\($0) IS NOT NEW.\($0)" }
            .joined(separator: " OR ")
        let categoryChanged = ["name", "name_key", "rank"].map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(
            separator: " OR ")
        /// The INSERT of one `change_rows` row: the `before` and/or `after` image ("OLD", "NEW").
        func insert(_ table: String, before: String?, after: String?) -> String {
            let pairs: [(String, String)] =
                table == "todo"
                ? todoColumns.map { ($0, $0) }
                : categoryColumns.map { ($0.image, $0.column) }
            var names = ["tbl", "row_id", "has_before", "has_after"]
            var values = ["'\(table)'", "\(after ?? before!).id", before == nil ? "0" : "1", after == nil ? "0" : "1"]
            for (prefix, row) in [("b", before), ("a", after)] {
                guard let row else { continue }
                names += pairs.map { "\(prefix)_\($0.0)" }
                values += pairs.map { "\(row).\($0.1)" }
            }
            return
                "INSERT INTO change_rows (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")));"
        }
        return """
            CREATE TEMP TRIGGER IF NOT EXISTS log_todo_insert AFTER INSERT ON main.todos BEGIN
                \(insert("todo", before: nil, after: "NEW"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_todo_update AFTER UPDATE ON main.todos WHEN \(todoChanged) BEGIN
                \(insert("todo", before: "OLD", after: "NEW"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_todo_delete AFTER DELETE ON main.todos BEGIN
                \(insert("todo", before: "OLD", after: nil))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_category_insert AFTER INSERT ON main.categories BEGIN
                \(insert("category", before: nil, after: "NEW"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_category_update AFTER UPDATE OF name, name_key, rank ON main.categories
                WHEN \(categoryChanged) BEGIN
                \(insert("category", before: "OLD", after: "NEW"))
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS log_category_delete AFTER DELETE ON main.categories BEGIN
                \(insert("category", before: "OLD", after: nil))
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

}

// MARK: - Writing the log

extension StoreTransaction {
    /// The seq of the newest change ever logged (0 before the first). Pruning never lowers it.
    package func currentSeq() throws(TodoError) -> Int64 {
        if let newest = logTail?.newest { return newest.seq }
        return try connection.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")
    }

    /// The oldest seq still in the log, or nil when it is empty.
    package func oldestSeq() throws(TodoError) -> Int64? {
        try connection.firstRow("SELECT seq FROM changes ORDER BY seq LIMIT 1") { $0.int64(0) }
    }

    /// Closes the change the rows written so far belong to: when they changed something, it gets
    /// its seq, `kind` and `description`. Nothing happens for a request that changed nothing. An
    /// ordinary change (not undo or redo) can be undone and clears what could be redone. The log
    /// is pruned once per transaction, when it commits (`pruneBeforeCommit`), not per change.
    /// - Returns: the change's seq, or nil when nothing changed.
    @discardableResult
    func recordChange(_ kind: ChangeKind, _ description: @autoclosure () -> String) throws(TodoError) -> Int64? {
        if logTail?.holding == true { return nil }
        // The newest row written, and the newest change (kind, last row) if any: known when this
        // transaction logged it, else read in the same statement.
        let lastRow: Int64
        let previousLast: Int64
        let previousKind: String?
        let previousTotal: Int64
        if let newest = logTail?.newest {
            lastRow = try connection.scalar(
                "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'change_rows'), 0)")
            (previousLast, previousKind, previousTotal) = (newest.lastRow, newest.kind.rawValue, newest.totalBytes)
        } else {
            (lastRow, previousLast, previousKind, previousTotal) =
                try connection.firstRow(
                    """
                    SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'change_rows'), 0), last_n, kind, total_bytes
                    FROM (SELECT 1) LEFT JOIN (SELECT last_n, kind, total_bytes FROM changes ORDER BY seq DESC LIMIT 1)
                    """
                ) { ($0.int64(0), $0.optionalInt64(1) ?? 0, $0.optionalText(2), $0.optionalInt64(3) ?? 0) } ?? (
                    0, 0, nil, 0
                )
        }
        guard lastRow > previousLast else { return nil }
        // The size of its images: the rows it just wrote, still in the page cache.
        let bytes = try connection.scalar(
            "SELECT coalesce(SUM(\(ChangeLog.imageBytes)), 0) FROM change_rows WHERE n BETWEEN ? AND ?",
            [.integer(previousLast + 1), .integer(lastRow)])
        let ordinary = kind != .undo && kind != .redo
        // Only after an undo or redo can anything be undone; all of it is newer than every `done`.
        if ordinary, previousKind == ChangeKind.undo.rawValue || previousKind == ChangeKind.redo.rawValue {
            try connection.run("UPDATE changes SET state = NULL WHERE seq > \(Self.newestDone) AND state = 'undone'")
        }
        try connection.run(
            "INSERT INTO changes (at, kind, description, state, first_n, last_n, bytes, total_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .integer(now.usec), .text(kind.rawValue), .text(description()), ordinary ? .text("done") : .null,
                .integer(previousLast + 1), .integer(lastRow), .integer(bytes), .integer(previousTotal + bytes)
            ])
        let seq = connection.lastInsertRowID
        logTail?.newest = (seq, lastRow, kind, previousTotal + bytes)
        logTail?.logged.changes += 1
        logTail?.logged.rows += Int(lastRow - previousLast)
        return seq
    }

    /// Runs `body`, several operations, as one change of the log (`todo.batch`): what they all
    /// wrote is logged once, as `kind` with `description` (made from what `body` returned), so
    /// one undo reverts all of it. Nothing is logged when they changed nothing.
    package func asOneChange<T>(
        _ kind: ChangeKind, _ body: () throws(TodoError) -> T,
        description: (T) -> String
    ) throws(TodoError) -> T {
        guard let tail = logTail, !tail.holding else { return try body() }
        tail.holding = true
        let result: T
        do {
            result = try body()
        } catch {
            tail.holding = false
            throw error
        }
        tail.holding = false
        try recordChange(kind, description(result))
        return result
    }

    /// The seq of the newest change undo may take (0 when none): walked back from the newest.
    static let newestDone = "coalesce((SELECT seq FROM changes WHERE state = 'done' ORDER BY seq DESC LIMIT 1), 0)"

    /// One bounded step of pruning: removes changes older than both the last `retention.changes`
    /// and `retention.ageUsec`, and the oldest changes while the log's images take more than
    /// `retention.bytes` (never the newest change), at most `retention.rowsPerCommit` images and
    /// 16 changes at a time, or twice what the transaction logged when that is more (so a pass
    /// of many large edits cannot outgrow the bound). Run once by every write transaction just
    /// before it commits (`TodoStore.write`, `writeOnQueue`), not per change: a pass of group
    /// commit that logged eight adds reads the oldest change once. While the log is within its
    /// bounds that one read is all it does.
    func pruneBeforeCommit() throws(TodoError) {
        let logged = logTail?.logged ?? (changes: 0, rows: 0)
        var budget = max(retention.rowsPerCommit, 2 * logged.rows)
        for _ in 0..<max(16, 2 * logged.changes) where budget > 0 {
            // The oldest change, the newest seq ever given (pruning never lowers it) and the
            // running size total of the newest change.
            guard
                let oldest = try connection.firstRow(
                    """
                    SELECT seq, at, first_n, last_n, (SELECT seq FROM sqlite_sequence WHERE name = 'changes'), total_bytes - bytes,
                           (SELECT total_bytes FROM changes ORDER BY seq DESC LIMIT 1) FROM changes ORDER BY seq LIMIT 1
                    """, [],
                    {
                        (
                            seq: $0.int64(0), at: $0.int64(1), first: $0.int64(2), last: $0.int64(3),
                            latest: $0.int64(4),
                            totalBefore: $0.int64(5), newestTotal: $0.int64(6)
                        )
                    })
            else { return }
            let outsideCountAndAge =
                oldest.seq <= oldest.latest - retention.changes && oldest.at < now.usec - retention.ageUsec
            let overSize = oldest.newestTotal - oldest.totalBefore > retention.bytes && oldest.seq < oldest.latest
            guard outsideCountAndAge || overSize else { return }
            // A change pruned in part can no longer be undone or redone.
            try connection.run(
                "UPDATE changes SET state = NULL WHERE seq = ? AND state IS NOT NULL", [.integer(oldest.seq)])
            try connection.run(
                "DELETE FROM change_rows WHERE n IN (SELECT n FROM change_rows WHERE n BETWEEN ? AND ? ORDER BY n LIMIT ?)",
                [.integer(oldest.first), .integer(oldest.last), .integer(Int64(budget))])
            budget -= Int(connection.changes)
            if try connection.firstRow(
                "SELECT 1 FROM change_rows WHERE n BETWEEN ? AND ? LIMIT 1",
                [.integer(oldest.first), .integer(oldest.last)], { _ in true }) == nil
            {
                try connection.run("DELETE FROM changes WHERE seq = ?", [.integer(oldest.seq)])
            }
        }
    }
}

// MARK: - Reading the log

extension StoreTransaction {
    private static let entrySelect = "SELECT seq, at, kind, description, state FROM changes"

    private static func entry(_ s: Statement) -> ChangeEntry {
        let state = s.optionalText(4)
        return ChangeEntry(
            seq: s.int64(0), at: s.instant(1), kind: ChangeKind(rawValue: s.text(2)) ?? .update,
            description: s.text(3), canUndo: state == "done", canRedo: state == "undone")
    }

    /// The changes after `seq`, oldest first, at most `limit`.
    package func changes(after seq: Int64, limit: Int) throws(TodoError) -> [ChangeEntry] {
        try connection.rows(
            "\(Self.entrySelect) WHERE seq > ? ORDER BY seq LIMIT ?",
            [.integer(seq), .integer(Int64(limit))], Self.entry)
    }

    /// The newest changes first, at most `limit`.
    package func history(limit: Int) throws(TodoError) -> [ChangeEntry] {
        try connection.rows("\(Self.entrySelect) ORDER BY seq DESC LIMIT ?", [.integer(Int64(limit))], Self.entry)
    }

    /// The todos change `seq` touched, in the order first touched; `deleted` when the change
    /// left the todo deleted.
    package func touchedTodos(_ seq: Int64) throws(TodoError) -> [TouchedTodo] {
        let rows = try connection.rows(
            """
            SELECT row_id, coalesce(a_uid, b_uid), has_after = 0 FROM change_rows WHERE \(ChangeLog.rowsOf) AND tbl = 'todo' ORDER BY n
            """, [.integer(seq)]
        ) { TouchedTodo(id: $0.int64(0), uid: $0.text(1), deleted: $0.bool(2)) }
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
        let rows = try connection.rows(
            "SELECT row_id, has_after = 0 FROM change_rows WHERE \(ChangeLog.rowsOf) AND tbl = 'category' ORDER BY n",
            [.integer(seq)]
        ) { ($0.int64(0), $0.bool(1)) }
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
    /// Costs O(rows written back) and calls `progress` every 100 of them (long work can tell the
    /// watchdog it moves), as an import does.
    /// - Throws: `.invalidField` (`steps`), `.conflict` when there is nothing to undo.
    package func undo(steps: Int = 1, progress: () -> Void = {}) throws(TodoError) -> Reversal {
        try reverse(redo: false, steps: steps, progress: progress)
    }

    /// Applies again the most recently undone change, `steps` times (fewer when fewer can be
    /// redone). A new ordinary change makes the undone ones final.
    /// - Throws: `.invalidField` (`steps`), `.conflict` when there is nothing to redo.
    package func redo(steps: Int = 1, progress: () -> Void = {}) throws(TodoError) -> Reversal {
        try reverse(redo: true, steps: steps, progress: progress)
    }

    /// How many logged rows `undo(steps:)` (or `redo`) would reverse now: what tells a long
    /// reversal from a short one before it starts.
    package func reversalRows(redo: Bool, steps: Int) throws(TodoError) -> Int {
        let pick =
            redo
            ? "SELECT first_n, last_n FROM changes WHERE seq > \(Self.newestDone) AND state = 'undone' ORDER BY seq LIMIT ?"
            : "SELECT first_n, last_n FROM changes WHERE state = 'done' ORDER BY seq DESC LIMIT ?"
        let rows = try connection.scalar(
            "SELECT coalesce(SUM(last_n - first_n + 1), 0) FROM (\(pick))", [.integer(Int64(max(1, steps)))])
        return Int(clamping: rows)
    }

    private func reverse(redo: Bool, steps: Int, progress: () -> Void) throws(TodoError) -> Reversal {
        guard steps >= 1, steps <= 10_000 else { throw TodoError.invalid("steps", "must be 1 to 10000") }
        let pick =
            redo
            ? "SELECT seq, description FROM changes WHERE seq > \(Self.newestDone) AND state = 'undone' ORDER BY seq LIMIT 1"
            : "SELECT seq, description FROM changes WHERE state = 'done' ORDER BY seq DESC LIMIT 1"
        var done: [(seq: Int64, description: String)] = []
        var todosBefore: [Int64: Todo] = [:]
        var categoriesBefore: [Int64: Category] = [:]
        var categoryIDs: Set<Int64> = []
        // The todos touched, in the order first touched; `seenTodos` keeps the lookup O(1).
        var todoIDs: [Int64] = []
        var seenTodos: Set<Int64> = []
        let allCategories = Dictionary(try categories().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for _ in 0..<steps {
            guard let target = try connection.firstRow(pick, [], { ($0.int64(0), $0.text(1)) }) else { break }
            var firstTouched: [Int64] = []
            for (table, id) in try connection.rows(
                "SELECT tbl, row_id FROM change_rows WHERE \(ChangeLog.rowsOf) ORDER BY n", [.integer(target.0)],
                {
                    ($0.text(0), $0.int64(1))
                })
            {
                if table == "todo" {
                    if seenTodos.insert(id).inserted { firstTouched.append(id) }
                } else if categoryIDs.insert(id).inserted, let category = allCategories[id] {
                    categoriesBefore[id] = category
                }
            }
            // As they were before the first step that touched them: read together, their
            // positions in one walk of the order rather than counted one by one.
            for todo in try todosNow(firstTouched, progress: progress) { todosBefore[todo.id] = todo }
            todoIDs += firstTouched
            try apply(target.0, forward: redo, progress: progress)
            try connection.run(
                "UPDATE changes SET state = ? WHERE seq = ?", [.text(redo ? "done" : "undone"), .integer(target.0)])
            done.append(target)
        }
        guard !done.isEmpty else { throw TodoError.conflict(redo ? "nothing to redo" : "nothing to undo") }
        let description = done.map(\.description).joined(separator: "; ")
        progress() // recording the change sums the size of every row it wrote
        let seq = try recordChange(redo ? .redo : .undo, (redo ? "redo " : "undo ") + description)
        var reversal = Reversal(
            seq: seq, changes: done.map(\.seq), description: description, todos: [], deletedTodos: [],
            categories: [], deletedCategories: [], todosBefore: todosBefore, categoriesBefore: categoriesBefore)
        let after = Dictionary(
            try todosNow(todoIDs, progress: progress).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for id in todoIDs {
            if let todo = after[id] {
                reversal.todos.append(todo)
            } else if let was = todosBefore[id] {
                reversal.deletedTodos.append(was)
            }
        }
        let categoriesNow = try categories()
        reversal.categories = categoriesNow.filter { categoryIDs.contains($0.id) }
        let remaining = Set(categoriesNow.map(\.id))
        reversal.deletedCategories = categoryIDs.filter { !remaining.contains($0) }
            .compactMap { categoriesBefore[$0] }.sorted { $0.position < $1.position }
        return reversal
    }

    /// The todos among `ids` that exist, with their positions: each row read by id, then every
    /// position from one pass (`withPositions`), so N todos cost O(N), not N counts.
    private func todosNow(_ ids: [Int64], progress: () -> Void) throws(TodoError) -> [Todo] {
        var rows: [TodoRow] = []
        rows.reserveCapacity(ids.count)
        for (i, id) in ids.enumerated() {
            if i % 1_000 == 999 { progress() }
            if let row = try connection.firstRow(todoByID, [.integer(id)], TodoRow.init) { rows.append(row) }
        }
        return try withPositions(rows)
    }

    /// Writes the images of change `seq` back: the ones before it, last row first (undo), or the
    /// ones after it, first row first (redo). A constant number of indexed statements per row,
    /// `progress` called every 100 rows.
    func apply(_ seq: Int64, forward: Bool, progress: () -> Void = {}) throws(TodoError) {
        let rows = try connection.rows(
            "SELECT tbl, row_id, n, \(forward ? "has_after" : "has_before") FROM change_rows WHERE \(ChangeLog.rowsOf) ORDER BY n \(forward ? "ASC" : "DESC")",
            [.integer(seq)]
        ) { s -> (String, Int64, (n: Int64, prefix: String)?) in
            (s.text(0), s.int64(1), s.bool(3) ? (n: s.int64(2), prefix: forward ? "a" : "b") : nil)
        }
        // Images logged before migration 10 do not hold `ical_extra`.
        let icalLoggedFrom =
            try connection.firstRow(
                "SELECT CAST(value AS INTEGER) FROM store_info WHERE key = 'ical_extra_logged_from'"
            ) { $0.int64(0) } ?? 1
        // Images logged before migration 19 do not hold `alarms`: the reminder they hold becomes
        // one alarm at that instant, as the migration made it.
        let alarmsLoggedFrom =
            try connection.firstRow(
                "SELECT CAST(value AS INTEGER) FROM store_info WHERE key = 'alarms_logged_from'"
            ) { $0.int64(0) } ?? 1
        var categoryIDs = Set<Int64>()
        for (i, (table, id, image)) in rows.enumerated() {
            if i % 100 == 99 { progress() }
            if table == "todo" {
                if let old = try connection.firstRow(
                    "SELECT category_id FROM todos WHERE id = ?", [.integer(id)], { $0.optionalInt64(0) }),
                    let old
                {
                    categoryIDs.insert(old)
                }
                try applyTodo(id, image, holdsICal: image.map { $0.n >= icalLoggedFrom } ?? true)
                if let image, image.n < alarmsLoggedFrom {
                    try connection.run(
                        "UPDATE todos SET alarms = CASE WHEN remind IS NULL THEN NULL ELSE ? || ' at ' || remind END WHERE id = ?",
                        [.text(RandomUUID.make(at: Instant.now())), .integer(id)])
                }
                if let new = try connection.firstRow(
                    "SELECT category_id FROM todos WHERE id = ?", [.integer(id)], { $0.optionalInt64(0) }),
                    let new
                {
                    categoryIDs.insert(new)
                }
            } else {
                try applyCategory(id, image)
                categoryIDs.insert(id)
            }
        }
        // The counts follow the todos through triggers; counted again here so that a restored
        // category starts right whatever order its rows come back in.
        for id in categoryIDs {
            try connection.run(
                """
                UPDATE categories SET
                    open_count = (SELECT COUNT(*) FROM todos WHERE category_id = ?1 AND done = 0),
                    done_count = (SELECT COUNT(*) FROM todos WHERE category_id = ?1 AND done = 1)
                WHERE id = ?1
                """, [.integer(id)])
        }
    }

    /// `holdsICal` false: the image predates migration 10, so an update keeps the todo's
    /// `ical_extra` and a todo brought back has none (the log never recorded it).
    private func applyTodo(_ id: Int64, _ image: (n: Int64, prefix: String)?, holdsICal: Bool) throws(TodoError) {
        let columns = ChangeLog.todoColumns
        guard let image else {
            try connection.run("DELETE FROM todos WHERE id = ?", [.integer(id)])
            return
        }
        let p = image.prefix
        let current = try connection.firstRow("SELECT tags FROM todos WHERE id = ?", [.integer(id)]) {
            $0.optionalText(0)
        }
        let tags =
            try connection.firstRow("SELECT \(p)_tags FROM change_rows WHERE n = ?", [.integer(image.n)]) {
                $0.optionalText(0)
            } ?? nil
        if let current {
            // A reminder delivered since stays delivered while it is still the same reminder.
            let set = columns.filter {
                !["id", "reminded", "revision"].contains($0) && (holdsICal || $0 != "ical_extra")
            }
            try connection.run(
                """
                UPDATE todos SET (\(set.joined(separator: ", "))) =
                    (SELECT \(set.map { "\(p)_\($0)" }.joined(separator: ", ")) FROM change_rows WHERE n = ?1),
                    reminded = CASE WHEN reminded IS NOT NULL AND remind IS (SELECT \(p)_remind FROM change_rows WHERE n = ?1)
                        THEN reminded ELSE (SELECT \(p)_reminded FROM change_rows WHERE n = ?1) END,
                    revision = revision + 1
                WHERE id = ?2
                """, [.integer(image.n), .integer(id)])
            if current != tags { try writeTags(id, TagColumn.tags(tags), replacing: true) }
        } else {
            // The todo as it was when last deleted: a reminder delivered before that stays delivered.
            let last = try connection.firstRow(
                "SELECT n FROM change_rows WHERE row_id = ? AND tbl = 'todo' AND has_after = 0 ORDER BY n DESC LIMIT 1",
                [.integer(id)]
            ) { $0.int64(0) }
            let values = columns.map { name in
                switch name {
                case "revision": "r.\(p)_revision + 1"
                case "reminded":
                    "CASE WHEN d.b_reminded IS NOT NULL AND d.b_remind IS r.\(p)_remind THEN d.b_reminded ELSE r.\(p)_reminded END"
                default: "r.\(p)_\(name)"
                }
            }
            try connection.run(
                """
                INSERT INTO todos (\(columns.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", ")) FROM change_rows r LEFT JOIN change_rows d ON d.n = ?2 WHERE r.n = ?1
                """, [.integer(image.n), .optional(last)])
            try writeTags(id, TagColumn.tags(tags), replacing: true)
        }
    }

    private func applyCategory(_ id: Int64, _ image: (n: Int64, prefix: String)?) throws(TodoError) {
        guard let image else {
            try connection.run("DELETE FROM categories WHERE id = ?", [.integer(id)])
            return
        }
        let columns = ChangeLog.categoryColumns
        let images = columns.map { "\(image.prefix)_\($0.image)" }
        if try connection.firstRow("SELECT 1 FROM categories WHERE id = ?", [.integer(id)], { _ in true }) != nil {
            try connection.run(
                """
                UPDATE categories SET (\(columns.dropFirst().map(\.column).joined(separator: ", "))) =
                    (SELECT \(images.dropFirst().joined(separator: ", ")) FROM change_rows WHERE n = ?1)
                WHERE id = ?2
                """, [.integer(image.n), .integer(id)])
        } else {
            try connection.run(
                """
                INSERT INTO categories (\(columns.map(\.column).joined(separator: ", ")))
                SELECT \(images.joined(separator: ", ")) FROM change_rows WHERE n = ?1
                """, [.integer(image.n)])
        }
    }
}
