import TodoCore
import TodoSQLite

/// One schema change. Append-only: once shipped, a migration is never edited or removed, and it
/// uses plain SQL, never the app's types — except `rewrite`, for a key that only Swift computes
/// (`TextKey.search`), which runs after the SQL in the same transaction.
struct Migration {
    let id: Int
    let name: String
    let sql: String
    var rewrite: (@Sendable (Connection) throws(TodoError) -> Void)? = nil
}

/// Every migration, in order.
///
/// The manual order is stored as sparse integer keys (`rank`), not as dense positions; the dense
/// 1-based `position` of the API is counted from them, among open todos (migration 7). See
/// `ManualOrder`.
let migrations: [Migration] = [
    Migration(
        id: 1, name: "todos and categories",
        sql: """
            CREATE TABLE categories (
                id       INTEGER PRIMARY KEY AUTOINCREMENT,
                name     TEXT    NOT NULL,
                name_key TEXT    NOT NULL UNIQUE,
                rank     INTEGER NOT NULL,
                created  INTEGER NOT NULL
            );
            CREATE INDEX categories_rank ON categories(rank);

            CREATE TABLE todos (
                id          INTEGER PRIMARY KEY AUTOINCREMENT,
                title       TEXT    NOT NULL,
                title_key   TEXT    NOT NULL,
                notes       TEXT,
                search_key  TEXT    NOT NULL,
                category_id INTEGER REFERENCES categories(id),
                due         INTEGER,
                remind      INTEGER,
                reminded    INTEGER,
                done        INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
                completed   INTEGER,
                rank        INTEGER NOT NULL,
                created     INTEGER NOT NULL,
                updated     INTEGER NOT NULL
            );
            CREATE INDEX todos_rank ON todos(rank);
            CREATE INDEX todos_done ON todos(done);
            CREATE INDEX todos_done_rank ON todos(done, rank);
            CREATE INDEX todos_category ON todos(category_id, done, rank);
            CREATE INDEX todos_due ON todos(due);
            CREATE INDEX todos_done_title ON todos(done, title_key);
            CREATE INDEX todos_done_created ON todos(done, created);
            CREATE INDEX todos_done_updated ON todos(done, updated);
            CREATE INDEX todos_pending_reminder ON todos(remind)
                WHERE done = 0 AND remind IS NOT NULL AND reminded IS NULL;

            -- How many todos hold an order key in each block of 2^24 keys, kept by triggers, so a
            -- position is a sum over blocks plus a count inside one block (see ManualOrder).
            CREATE TABLE todo_order_blocks (block INTEGER PRIMARY KEY, size INTEGER NOT NULL);
            CREATE TRIGGER todos_order_insert AFTER INSERT ON todos BEGIN
                INSERT INTO todo_order_blocks (block, size) VALUES (NEW.rank >> 24, 1)
                    ON CONFLICT (block) DO UPDATE SET size = size + 1;
            END;
            CREATE TRIGGER todos_order_delete AFTER DELETE ON todos BEGIN
                UPDATE todo_order_blocks SET size = size - 1 WHERE block = OLD.rank >> 24;
                DELETE FROM todo_order_blocks WHERE block = OLD.rank >> 24 AND size = 0;
            END;
            CREATE TRIGGER todos_order_update AFTER UPDATE OF rank ON todos
                WHEN (NEW.rank >> 24) <> (OLD.rank >> 24) BEGIN
                UPDATE todo_order_blocks SET size = size - 1 WHERE block = OLD.rank >> 24;
                DELETE FROM todo_order_blocks WHERE block = OLD.rank >> 24 AND size = 0;
                INSERT INTO todo_order_blocks (block, size) VALUES (NEW.rank >> 24, 1)
                    ON CONFLICT (block) DO UPDATE SET size = size + 1;
            END;
            """),
    Migration(
        id: 2, name: "open and done counts",
        sql: """
            -- How many todos are open (done = 0) and done (done = 1), kept by triggers, so counting
            -- them never scans.
            CREATE TABLE todo_counts (done INTEGER PRIMARY KEY, n INTEGER NOT NULL);
            INSERT INTO todo_counts (done, n) SELECT 0, COUNT(*) FROM todos WHERE done = 0;
            INSERT INTO todo_counts (done, n) SELECT 1, COUNT(*) FROM todos WHERE done = 1;
            CREATE TRIGGER todos_count_insert AFTER INSERT ON todos BEGIN
                UPDATE todo_counts SET n = n + 1 WHERE done = NEW.done;
            END;
            CREATE TRIGGER todos_count_delete AFTER DELETE ON todos BEGIN
                UPDATE todo_counts SET n = n - 1 WHERE done = OLD.done;
            END;
            CREATE TRIGGER todos_count_update AFTER UPDATE OF done ON todos WHEN NEW.done <> OLD.done BEGIN
                UPDATE todo_counts SET n = n - 1 WHERE done = OLD.done;
                UPDATE todo_counts SET n = n + 1 WHERE done = NEW.done;
            END;
            """),
    Migration(
        id: 3, name: "open and done counts per category",
        sql: """
            -- The inverse relationship's counts, kept by triggers, so a category's counts and the total
            -- of a category listing never scan its todos.
            ALTER TABLE categories ADD COLUMN open_count INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE categories ADD COLUMN done_count INTEGER NOT NULL DEFAULT 0;
            UPDATE categories SET
                open_count = (SELECT COUNT(*) FROM todos WHERE category_id = categories.id AND done = 0),
                done_count = (SELECT COUNT(*) FROM todos WHERE category_id = categories.id AND done = 1);
            CREATE TRIGGER todos_category_count_insert AFTER INSERT ON todos WHEN NEW.category_id IS NOT NULL BEGIN
                UPDATE categories SET open_count = open_count + (NEW.done = 0), done_count = done_count + (NEW.done = 1)
                WHERE id = NEW.category_id;
            END;
            CREATE TRIGGER todos_category_count_delete AFTER DELETE ON todos WHEN OLD.category_id IS NOT NULL BEGIN
                UPDATE categories SET open_count = open_count - (OLD.done = 0), done_count = done_count - (OLD.done = 1)
                WHERE id = OLD.category_id;
            END;
            CREATE TRIGGER todos_category_count_update AFTER UPDATE OF category_id, done ON todos
                WHEN OLD.category_id IS NOT NEW.category_id OR OLD.done <> NEW.done BEGIN
                UPDATE categories SET open_count = open_count - (OLD.done = 0), done_count = done_count - (OLD.done = 1)
                WHERE id = OLD.category_id;
                UPDATE categories SET open_count = open_count + (NEW.done = 0), done_count = done_count + (NEW.done = 1)
                WHERE id = NEW.category_id;
            END;
            """),
    Migration(
        id: 4, name: "todos by status and due date",
        sql: """
            -- In the order a listing by due date wants — dated todos first, then by due and position —
            -- within each status, so that a first page sorted by due, and the todos due before or after
            -- an instant, are read through the index instead of sorting or scanning every todo. It
            -- replaces the plain index on due, which no query needs any more.
            DROP INDEX todos_due;
            CREATE INDEX todos_done_due ON todos(done, due IS NULL, due, rank);
            """),
    Migration(
        id: 5, name: "todo uids and the store id",
        sql: """
            -- Every todo gets a globally unique, stable uid (a random lowercase UUID, version 4, for
            -- the todos already there; the store makes new ones), and the store an id of its own,
            -- made once here. Reminder entries carry both, so the journal can be read back per store.
            ALTER TABLE todos ADD COLUMN uid TEXT;
            UPDATE todos SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'
                || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (random() & 3), 1)
                || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)));
            CREATE UNIQUE INDEX todos_uid ON todos(uid);
            CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            INSERT INTO store_info (key, value) VALUES ('store_id', lower(hex(randomblob(4)) || '-' || hex(randomblob(2))
                || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (random() & 3), 1)
                || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))));
            """),
    Migration(
        id: 6, name: "priority, tags, zone, all-day and recurrence",
        sql: """
            -- priority: TodoPriority.rank (1 high, 2 medium, 3 low) or NULL, so ascending lists high
            -- first. recur_rule/recur_from: the recurrence, NULL for a one-off todo. tags: the todo's
            -- tags as todo_tags holds them, sorted, joined by single spaces (a tag holds no white
            -- space), NULL for none: what a read shows, without a lookup per todo. due_end: the
            -- instant a todo is overdue from: due, or for an all-day todo the start of the next day
            -- in its zone.
            ALTER TABLE todos ADD COLUMN priority INTEGER CHECK (priority BETWEEN 1 AND 3);
            ALTER TABLE todos ADD COLUMN tags TEXT;
            ALTER TABLE todos ADD COLUMN zone TEXT;
            ALTER TABLE todos ADD COLUMN all_day INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1));
            ALTER TABLE todos ADD COLUMN due_end INTEGER;
            ALTER TABLE todos ADD COLUMN recur_rule TEXT;
            ALTER TABLE todos ADD COLUMN recur_from TEXT CHECK (recur_from IN ('due', 'completion'));
            UPDATE todos SET due_end = due WHERE due IS NOT NULL;
            -- By status, priority (none as 4: after low) and position: a listing by priority, or of one
            -- priority, walks it in order.
            CREATE INDEX todos_done_priority ON todos(done, coalesce(priority, 4), rank);
            -- The few recurring todos, by status and position: `recurring: true` never walks the rest.
            CREATE INDEX todos_recurring ON todos(done, rank) WHERE recur_rule IS NOT NULL;
            -- A todo's tags; tag_key is the case-insensitive identity (Validation.tagKey).
            CREATE TABLE todo_tags (
                todo_id INTEGER NOT NULL REFERENCES todos(id) ON DELETE CASCADE,
                tag     TEXT    NOT NULL,
                tag_key TEXT    NOT NULL,
                PRIMARY KEY (todo_id, tag_key)
            ) WITHOUT ROWID;
            CREATE INDEX todo_tags_key ON todo_tags(tag_key, todo_id);
            """),
    openPositionsMigration,
    changeLogMigration,
    Migration(
        id: 9, name: "what iCalendar imports keep",
        sql: """
            -- The unknown properties, parameters and components of an imported VTODO, as unfolded
            -- content lines joined by newlines (docs/ICALENDAR.md); NULL for the rest. Read only by
            -- store.export, which hands it to an iCalendar export as the entry's `ical` member.
            ALTER TABLE todos ADD COLUMN ical_extra TEXT;
            """),
    changeLogICalMigration,
    changeLogDeletionsMigration,
    changeLogSizeMigration,
    Migration(
        id: 13, name: "subtasks and start dates",
        sql: """
            -- parent_id: the todo this one is a subtask of (NULL for none); no foreign key, the store
            -- keeps it pointing at an existing todo (a parent is deleted only with its subtasks).
            -- parent_uid: a parent named by uid (an iCalendar RELATED-TO, an import) that the store
            -- does not hold yet; resolved into parent_id when a todo with that uid arrives.
            -- start: when the todo can be started (iCalendar DTSTART), NULL for none.
            ALTER TABLE todos ADD COLUMN parent_id INTEGER;
            ALTER TABLE todos ADD COLUMN parent_uid TEXT;
            ALTER TABLE todos ADD COLUMN start INTEGER;
            -- A todo's subtasks in manual order, and the links still waiting for their parent.
            CREATE INDEX todos_parent ON todos(parent_id, rank) WHERE parent_id IS NOT NULL;
            CREATE INDEX todos_parent_uid ON todos(parent_uid) WHERE parent_uid IS NOT NULL;
            """),
    Migration(
        id: 14, name: "change log images of subtasks and start dates",
        sql: """
            -- Images logged before this hold NULL there, which is what every todo had then.
            ALTER TABLE change_rows ADD COLUMN b_parent_id;
            ALTER TABLE change_rows ADD COLUMN a_parent_id;
            ALTER TABLE change_rows ADD COLUMN b_parent_uid;
            ALTER TABLE change_rows ADD COLUMN a_parent_uid;
            ALTER TABLE change_rows ADD COLUMN b_start;
            ALTER TABLE change_rows ADD COLUMN a_start;
            """),
    Migration(
        id: 15, name: "recurrence sets",
        sql: """
            -- recur_set: a recurring todo's EXDATEs, RDATEs and the rule's own start while the todo
            -- sits on an RDATE (TodoRecurrence.setText), NULL for none: what completing it reads.
            ALTER TABLE todos ADD COLUMN recur_set TEXT;
            -- Images logged before this hold NULL there, which is what every todo had then.
            ALTER TABLE change_rows ADD COLUMN b_recur_set;
            ALTER TABLE change_rows ADD COLUMN a_recur_set;
            """),
    searchKeyKanaMigration,
    searchIndexMigration,
    searchTrigramMigration,
    Migration(
        id: 19, name: "alarms",
        sql: """
            -- alarms: a todo's alarms (Alarm.storedText: one line per alarm, its uid, trigger, repeats,
            -- acknowledgement, snooze and kept iCalendar), NULL for none. remind is from now on the
            -- next pending firing over them (what the scheduler arms, through todos_pending_reminder).
            -- A todo's one reminder becomes one alarm at that instant, with a new uid.
            ALTER TABLE todos ADD COLUMN alarms TEXT;
            UPDATE todos SET alarms = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'
                || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (random() & 3), 1)
                || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))) || ' at ' || remind
                WHERE remind IS NOT NULL;
            -- Images logged before this hold NULL there: undo of an older change leaves the alarms
            -- as they are (ChangeLog.applyTodo).
            ALTER TABLE change_rows ADD COLUMN b_alarms;
            ALTER TABLE change_rows ADD COLUMN a_alarms;
            INSERT INTO store_info (key, value) VALUES ('alarms_logged_from',
                coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'change_rows'), 0) + 1);
            """),
    Migration(
        id: 20, name: "orders by title, creation, change and start ending with the position",
        sql: """
            -- Each status's todos in the whole order of a listing by title, created, updated and start,
            -- the manual position breaking ties as it does in the listing, so a keyset window walks one
            -- index from its anchor (docs/STORE.md): the indexes by title, created and updated ended
            -- with the id, so the todos tied with an anchor were sorted, and no index kept the order
            -- by start.
            DROP INDEX todos_done_title;
            DROP INDEX todos_done_created;
            DROP INDEX todos_done_updated;
            CREATE INDEX todos_done_title ON todos(done, title_key, rank);
            CREATE INDEX todos_done_created ON todos(done, created, rank);
            CREATE INDEX todos_done_updated ON todos(done, updated, rank);
            CREATE INDEX todos_done_start ON todos(done, start IS NULL, start, rank);
            """),
    Migration(
        id: 21, name: "the search index merged after the reply",
        sql: """
            -- FTS5 merged the index's segments inside the commit that added the fourth of a level
            -- (automerge): at 100,000 todos one title change in about 25 took 20-50 ms for it. The
            -- store merges in small steps after a write has answered (SearchIndex.mergeStep); the
            -- crisis merge (still in the commit) stays for a level that gets 32 segments meanwhile. The
            -- index starts as one segment (a large write makes it one again: SearchIndex.flush).
            INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 0);
            INSERT INTO search_fts (search_fts, rank) VALUES ('crisismerge', 32);
            INSERT INTO search_fts (search_fts) VALUES ('optimize');
            """),
    Migration(
        id: 22, name: "orders that say each todo's category",
        sql: """
            -- Each index of an order ends with the category, so a listing with sections (by category,
            -- then by title, due date...) walks the order for a large category's todos and tells them
            -- from the index alone, reading no other todo's row (ListSeek.swift, docs/STORE.md); the
            -- todos of a small category are sorted instead. No entry is added: each grows by a byte or
            -- two.
            DROP INDEX todos_done_title;
            DROP INDEX todos_done_created;
            DROP INDEX todos_done_updated;
            DROP INDEX todos_done_start;
            DROP INDEX todos_done_due;
            DROP INDEX todos_done_priority;
            CREATE INDEX todos_done_title ON todos(done, title_key, rank, category_id);
            CREATE INDEX todos_done_created ON todos(done, created, rank, category_id);
            CREATE INDEX todos_done_updated ON todos(done, updated, rank, category_id);
            CREATE INDEX todos_done_start ON todos(done, start IS NULL, start, rank, category_id);
            CREATE INDEX todos_done_due ON todos(done, due IS NULL, due, rank, category_id);
            CREATE INDEX todos_done_priority ON todos(done, coalesce(priority, 4), rank, category_id);
            """)
]

/// Brings a database to the newest schema this build knows, or refuses it untouched.
struct Migrator {
    /// What every connection that writes the store sets when it opens (they last as long as it).
    /// `journal_size_limit`: the WAL SQLite starts again after a checkpoint is cut back to
    /// `DiskRoom.walLimit` (by default it keeps the size of its largest transaction).
    static let connectionPragmas =
        "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA journal_size_limit = \(DiskRoom.walLimit);"
    let connection: Connection
    let path: String

    /// - Throws: `TodoError.storage`.
    func migrate() throws(TodoError) {
        // Read-only inspection first: nothing below writes until the file is known to be ours.
        let tables: [String]
        do {
            tables = try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(0) }
        } catch {
            if connection.isReadOnly { // a WAL database on a read-only file system cannot even be read
                throw error.withMessage(
                    "cannot use \(path): the database is read-only (todod must be able to write it and its directory)")
            }
            // The lock of another connection in `locking_mode = EXCLUSIVE` outlasted the busy timeout.
            if case .busy? = error.resultCode {
                throw error.withMessage(
                    "cannot use \(path): another process has it open (is another todod using this database?)")
            }
            throw error.withMessage("cannot use \(path): \(error.reason ?? error.message)")
        }
        var applied: Set<Int> = []
        if tables.contains("todod_migrations") {
            applied = Set(try connection.rows("SELECT id FROM todod_migrations") { $0.int(0) })
        } else if tables.contains(where: { !$0.hasPrefix("sqlite_") }) {
            throw TodoError.storage("cannot use \(path): it is a SQLite database of another program (no todod schema)")
        }
        let known = Set(migrations.map(\.id))
        if let newest = applied.subtracting(known).max() {
            throw TodoError.storage(
                "cannot use \(path): it was written by a newer todod (schema \(newest); this build knows up to \(known.max() ?? 0)); the file was left untouched"
            )
        }

        // A store todod cannot write is refused rather than served half-working.
        guard !connection.isReadOnly else {
            throw TodoError.storage(
                "cannot use \(path): the database is read-only (todod must be able to write it and its directory)")
        }
        let mode = try connection.firstRow("PRAGMA journal_mode = WAL") { $0.text(0) }
        guard mode?.lowercased() == "wal" else {
            throw TodoError.storage("cannot use \(path): could not switch it to WAL mode")
        }
        try connection.execute(Self.connectionPragmas)

        for migration in migrations where !applied.contains(migration.id) {
            try connection.transaction { () throws(TodoError) in
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS todod_migrations (
                        id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL)
                    """)
                if !migration.sql.isEmpty { try connection.execute(migration.sql) }
                try migration.rewrite?(connection)
                try connection.run(
                    "INSERT INTO todod_migrations (id, name, applied) VALUES (?, ?, ?)",
                    [.integer(Int64(migration.id)), .text(migration.name), .integer(Instant.now().usec)])
            }
        }
    }
}
