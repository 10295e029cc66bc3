import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

@Suite struct MigrationTests {
    /// The SQL that makes a database as a release with only `previous` applied left it (WAL,
    /// the migrations table, each migration's SQL and its row), for a test to add rows to.
    static func schema(_ previous: [Migration]) -> String {
        """
        PRAGMA journal_mode = WAL;
        CREATE TABLE todod_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL);
        \(previous.map(\.sql).joined(separator: "\n"))
        \(previous.map { "INSERT INTO todod_migrations VALUES (\($0.id), '\($0.name)', 0);" }.joined(separator: "\n"))
        """
    }

    /// The change-log triggers of a release before `columns` existed: today's, with every
    /// mention of those columns' images taken out.
    static func triggers(without columns: [String]) -> String {
        var triggers = ChangeLog.triggers
        for column in columns {
            for gone in [
                " OR OLD.\(column) IS NOT NEW.\(column)", ", b_\(column)", ", a_\(column)", ", OLD.\(column)",
                ", NEW.\(column)"
            ] {
                triggers = triggers.replacingOccurrences(of: gone, with: "")
            }
        }
        return triggers
    }

    /// A database written by the previous schema (migrations 1 to 4) gets a uid for every todo
    /// (distinct random UUIDs, kept from then on) and a store id that stays the same.
    @Test func aPreviousSchemaDatabaseGetsUIDsAndAStoreID() throws {
        let dir = TemporaryDirectory("migrate5")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 4 }
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            INSERT INTO todos (title, title_key, search_key, done, rank, created, updated)
                VALUES ('a', 'a', 'a', 0, 0, 0, 0), ('b', 'b', 'b', 1, 65536, 0, 0), ('牛乳', '牛乳', '牛乳', 0, 131072, 0, 0);
            """)
        var store = try TodoStore(path: path)
        let everything = { (store: TodoStore) throws -> [Todo] in
            var query = TodoQuery()
            query.status = .all
            return try store.read { try $0.list(query).todos }
        }
        let todos = try everything(store)
        #expect(todos.map(\.title) == ["a", "b", "牛乳"])
        #expect(todos.allSatisfy { RandomUUID.isWellFormed($0.uid) && Array($0.uid.utf8)[14] == UInt8(ascii: "4") })
        #expect(Set(todos.map(\.uid)).count == 3)
        let storeID = try store.read { try $0.storeID() }
        #expect(RandomUUID.isWellFormed(storeID))
        let added = try store.write { try $0.add(NewTodo(title: "new")) }
        #expect(RandomUUID.isWellFormed(added.uid) && !todos.map(\.uid).contains(added.uid))
        #expect(Array(added.uid.utf8)[14] == UInt8(ascii: "7")) // made by the store: version 7, time-ordered
        store.close()
        #expect(
            try ChildProcess.sqlite3(path, "SELECT name FROM sqlite_master WHERE name = 'todos_uid';") == "todos_uid")
        store = try TodoStore(path: path)
        #expect(try everything(store).prefix(3).map(\.uid) == todos.map(\.uid))
        #expect(try store.read { try $0.storeID() } == storeID)
    }

    /// A store written before migration 7, with done todos between open ones: afterwards the
    /// positions count open todos only (1...n, none for a done todo), the block counts agree,
    /// and a reopened todo comes back at the place it had.
    @Test func positionsCountOpenTodosAfterMigration7() throws {
        let dir = TemporaryDirectory("migrate7")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id < openPositionsMigration.id }
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            INSERT INTO todos (title, title_key, search_key, done, rank, created, updated, uid) VALUES
                ('a', 'a', 'a', 0, 0, 0, 0, 'u1'), ('b', 'b', 'b', 1, 65536, 0, 0, 'u2'), ('c', 'c', 'c', 0, 33554432, 0, 0, 'u3'),
                ('d', 'd', 'd', 1, 33619968, 0, 0, 'u4'), ('e', 'e', 'e', 0, 67108864, 0, 0, 'u5');
            """)
        let store = try TodoStore(path: path)
        var all = TodoQuery()
        all.status = .all
        let positions = { () throws -> [String] in
            try store.read { try $0.list(all).todos }.map { "\($0.title)\($0.position.map(String.init) ?? "-")" }
        }
        #expect(try positions() == ["a1", "b-", "c2", "d-", "e3"])
        #expect(try store.read { try $0.todo(2) }.position == nil)
        #expect(try store.read { try $0.todo(5) }.position == 3)
        _ = try store.write { try $0.complete([3]) }
        #expect(try positions() == ["a1", "b-", "c-", "d-", "e2"])
        _ = try store.write { try $0.reopen([2, 4]) }
        #expect(try positions() == ["a1", "b2", "c-", "d3", "e4"])
        let moved = try store.write { try $0.move(5, to: .position(1)) }
        #expect(moved.position == 1)
        #expect(try positions() == ["e1", "a2", "b3", "c-", "d4"])
        // A done todo moved to position 2 comes back there when reopened.
        let movedDone = try store.write { try $0.move(3, to: .position(2)) }
        #expect(movedDone.position == nil && movedDone.done)
        _ = try store.write { try $0.reopen([3]) }
        #expect(try positions() == ["e1", "c2", "a3", "b4", "d5"])
        #expect(throws: TodoError.self) { try store.write { try $0.move(1, to: .position(6)) } }
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT SUM(size) FROM todo_order_blocks;") == "5")
    }

    /// A database written by the first schema (a fixture made from migration 1 alone) migrates
    /// forward with its data intact, and the counts the new schema keeps are right.
    @Test func aFirstSchemaDatabaseMigratesForward() throws {
        let dir = TemporaryDirectory("migrate")
        let path = dir.file("todos.db")
        let v1 = migrations[0]
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(Self.schema([v1]))
            INSERT INTO categories (name, name_key, rank, created) VALUES ('仕事', '仕事', 0, 0);
            INSERT INTO todos (title, title_key, search_key, category_id, done, rank, created, updated)
                VALUES ('a', 'a', 'a', 1, 0, 0, 0, 0), ('b', 'b', 'b', NULL, 1, 65536, 0, 0), ('c', 'c', 'c', 1, 0, 131072, 0, 0);
            """)
        let store = try TodoStore(path: path)
        let counts = try store.read { try $0.counts() }
        #expect(counts.open == 2 && counts.done == 1)
        #expect(try store.read { try $0.categories() }.first?.open == 2)
        _ = try store.write { try $0.complete([1]) }
        _ = try store.write { try $0.delete([2]) }
        let after = try store.read { try $0.counts() }
        #expect(after.open == 1 && after.done == 1)
        store.close() // the store holds its file exclusively while open
        #expect(
            try ChildProcess.sqlite3(path, "SELECT id FROM todod_migrations ORDER BY id;")
                == migrations.map { "\($0.id)" }.sorted { Int($0)! < Int($1)! }.joined(separator: "\n"))
        // The plain due index gave way to the one listings by due date walk.
        #expect(
            try ChildProcess.sqlite3(
                path, "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'todos_%due%' ORDER BY name;")
                == "todos_done_due")
    }

    /// A store written by the previous release (migrations 1 to 5, with real rows) upgrades in
    /// place: every todo survives as it was, with no priority, tags, zone or recurrence and not
    /// all-day; overdue still finds what was overdue, and the new fields can be set.
    @Test func aPreviousReleaseStoreGetsTheV2Fields() throws {
        let dir = TemporaryDirectory("migrate6")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 5 }
        let past = Instant(rfc3339: "2026-11-30T09:00:00Z")!.usec
        let future = Instant(rfc3339: "2099-01-01T09:00:00Z")!.usec
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            INSERT INTO categories (name, name_key, rank, created) VALUES ('仕事', '仕事', 0, 0);
            INSERT INTO todos (title, title_key, search_key, category_id, due, remind, done, completed, rank, created, updated, uid)
                VALUES ('late', 'late', 'late', 1, \(past), \(past), 0, NULL, 0, 1, 2, 'u-1'),
                       ('later', 'later', 'later', NULL, \(future), NULL, 0, NULL, 65536, 3, 4, 'u-2'),
                       ('牛乳', '牛乳', '牛乳', 1, NULL, NULL, 1, 5, 131072, 5, 6, 'u-3');
            """)
        let store = try TodoStore(path: path)
        var all = TodoQuery()
        all.status = .all
        let todos = try store.read { try $0.list(all) }.todos
        #expect(todos.map(\.title) == ["late", "later", "牛乳"] && todos.map(\.uid) == ["u-1", "u-2", "u-3"])
        #expect(todos.map(\.category) == ["仕事", nil, "仕事"] && todos.map(\.done) == [false, false, true])
        #expect(
            todos.map(\.due) == [Instant(usec: past), Instant(usec: future), nil]
                && todos[0].remind == Instant(usec: past))
        #expect(todos.map(\.updated) == [Instant(usec: 2), Instant(usec: 4), Instant(usec: 6)])
        #expect(
            todos.allSatisfy {
                $0.priority == nil && $0.tags.isEmpty && $0.zone == nil && !$0.allDay && $0.recurrence == nil
            })
        var overdue = TodoQuery()
        overdue.overdue = true
        #expect(try store.read { try $0.list(overdue) }.todos.map(\.title) == ["late"])
        let tagged = try store.write { try $0.update(todos[1].id, TodoPatch(priority: .set(.high), addTags: ["new"])) }
        #expect(tagged.tags == ["new"] && tagged.priority == .high)
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))
    }

    /// A store written before migration 10 (migrations 1 to 9, with changes logged by the
    /// triggers of that release, whose images have no `ical_extra`) upgrades in place, and its
    /// older changes still undo and redo: a todo's kept iCalendar lines are left as they are by
    /// them (not cleared), a todo whose delete is undone comes back (without the lines its image
    /// never held), and changes logged after the upgrade restore the lines exactly.
    @Test func aStoreWithChangesLoggedBeforeMigration10UndoesThem() throws {
        let dir = TemporaryDirectory("migrate10")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 9 }
        // The previous release's triggers: today's without the ical_extra image.
        let oldTriggers = Self.triggers(without: [
            "ical_extra", "parent_id", "parent_uid", "start", "recur_set", "alarms"
        ])
        #expect(!oldTriggers.contains("ical_extra"))
        func change(_ seq: Int, _ kind: String, _ description: String) -> String {
            "INSERT INTO changes (at, kind, description, state, first_n, last_n) VALUES (\(seq), '\(kind)', '\(description)', 'done', \(seq), \(seq));"
        }
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            \(oldTriggers)
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid, ical_extra)
                VALUES ('古い', '古い', '古い', 65536, 1, 1, 'old-1', 'X-OLD:1');
            \(change(1, "import", "import: 1 added, 0 updated"))
            UPDATE todos SET title = '新しい', title_key = '新しい', search_key = '新しい', updated = 2, revision = revision + 1 WHERE uid = 'old-1';
            \(change(2, "update", "edit 1"))
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid, ical_extra)
                VALUES ('消す', '消す', '消す', 131072, 3, 3, 'old-2', 'X-GONE:1');
            \(change(3, "import", "import: 1 added, 0 updated"))
            DELETE FROM todos WHERE uid = 'old-2';
            \(change(4, "delete", "delete 2"))
            """)
        #expect(try ChildProcess.sqlite3(path, "SELECT count(*) FROM change_rows;") == "4")
        let store = try TodoStore(path: path)
        func kept(_ uid: String) throws -> String?? {
            try store.read { try $0.export() }.todos.first { $0.uid == uid }.map(\.ical)
        }
        func title(_ uid: String) throws -> String? {
            var all = TodoQuery()
            all.status = .all
            return try store.read { try $0.list(all) }.todos.first { $0.uid == uid }?.title
        }
        #expect(try store.read { try $0.history(limit: 10) }.map(\.canUndo) == [true, true, true, true])
        // The delete, logged before: the todo comes back, without lines its image never held.
        _ = try store.write { try $0.undo() }
        #expect(try title("old-2") == "消す" && kept("old-2") == .some(nil))
        _ = try store.write { try $0.undo() }
        #expect(try title("old-2") == nil)
        // The edit, logged before: undone and redone, the kept lines stay.
        _ = try store.write { try $0.undo() }
        #expect(try title("old-1") == "古い" && kept("old-1") == "X-OLD:1")
        _ = try store.write { try $0.redo() }
        #expect(try title("old-1") == "新しい" && kept("old-1") == "X-OLD:1")
        // Logged after the upgrade: the images hold the lines.
        let id = try #require(try store.read { try $0.list(TodoQuery()) }.todos.first { $0.uid == "old-1" }).id
        _ = try store.write { try $0.delete([id]) }
        _ = try store.write { try $0.undo() }
        #expect(try title("old-1") == "新しい" && kept("old-1") == "X-OLD:1")
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))
    }

    /// A store whose changes were logged before migration 12 gets each change's image size and the
    /// running total filled in, and the size rule prunes by them from the first commit after.
    @Test func aStoreLoggedBeforeMigration12GetsItsSizes() throws {
        let dir = TemporaryDirectory("migrate12")
        let path = dir.file("todos.db")
        let store = try TodoStore(path: path)
        let todo = try store.write { try $0.add(NewTodo(title: "メモ")) }
        for i in 0..<20 {
            _ = try store.write {
                try $0.update(todo.id, TodoPatch(notes: .set(String(repeating: "長い\(i)", count: 4_000))))
            }
        }
        store.close()
        _ = try ChildProcess.sqlite3(
            path,
            """
            ALTER TABLE changes DROP COLUMN bytes; ALTER TABLE changes DROP COLUMN total_bytes;
            DELETE FROM todod_migrations WHERE id = 12;
            """)
        let reopened = try TodoStore(path: path)
        let (sizes, images) = try reopened.read { tx in
            (
                try tx.connection.rows("SELECT bytes, total_bytes FROM changes ORDER BY seq") {
                    ($0.int64(0), $0.int64(1))
                },
                try tx.connection.rows(
                    "SELECT SUM(\(ChangeLog.imageBytes)) FROM change_rows GROUP BY n <= 1 ORDER BY n <= 1 DESC"
                ) { $0.int64(0) }
            )
        }
        #expect(sizes.count == 21 && sizes.allSatisfy { $0.0 > 0 })
        #expect(sizes.first?.0 == images.first, "the add's image")
        var running: Int64 = 0
        #expect(
            sizes.allSatisfy {
                running += $0.0
                return $0.1 == running
            }, "\(sizes)")
        #expect(running == images.reduce(0, +))
        reopened.close()
        // The size rule reads them: a bound below the log prunes it over the next commits (at most
        // 16 changes each).
        let bounded = try TodoStore(path: path, retention: LogRetention(bytes: 200_000))
        for title in ["メモ!", "メモ!!"] { _ = try bounded.write { try $0.update(todo.id, TodoPatch(title: .set(title))) } }
        let kept = try bounded.read { try $0.connection.scalar("SELECT SUM(bytes) FROM changes") }
        let oldest = try bounded.read { try $0.oldestSeq() } ?? 0
        #expect(kept <= 200_000 && oldest > 1, "\(kept) bytes kept from seq \(oldest)")
    }

    /// A store of the previous release (migrations 1 to 12, changes logged by that release's
    /// triggers, whose images have no parent or start) upgrades in place: its todos are top-level
    /// without a start, its older changes still undo and redo, and changes logged after the
    /// upgrade undo a parent and a start exactly.
    @Test func aPreviousReleaseStoreGetsSubtasksAndStarts() throws {
        let dir = TemporaryDirectory("migrate13")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 12 }
        let oldTriggers = Self.triggers(without: ["parent_id", "parent_uid", "start", "recur_set", "alarms"])
        #expect(!oldTriggers.contains("parent") && !oldTriggers.contains("start"))
        func change(_ seq: Int, _ kind: String, _ description: String) -> String {
            "INSERT INTO changes (at, kind, description, state, first_n, last_n) VALUES (\(seq), '\(kind)', '\(description)', 'done', \(seq), \(seq));"
        }
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            \(oldTriggers)
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid) VALUES ('親', '親', '親', 65536, 1, 1, 'p-1');
            \(change(1, "add", "add 1"))
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid) VALUES ('子', '子', '子', 131072, 2, 2, 'c-1');
            \(change(2, "add", "add 2"))
            UPDATE todos SET title = '子供', title_key = '子供', search_key = '子供', updated = 3, revision = revision + 1 WHERE uid = 'c-1';
            \(change(3, "update", "edit 2"))
            """)
        let store = try TodoStore(path: path)
        #expect(try store.read { try $0.todo(2) }.parent == nil && store.read { try $0.todo(2) }.start == nil)
        // Logged after the upgrade: a parent and a start, undone exactly.
        let start = Instant(usec: 4_102_444_800_000_000)
        let linked = try store.write { try $0.update(2, TodoPatch(parent: .set(1), start: .set(start))) }
        #expect(linked.parent == 1 && linked.start == start)
        #expect(try store.read { try $0.todo(1) }.subtasks == [2])
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.todo(2) }.parent == nil && store.read { try $0.todo(1) }.subtasks == [])
        // Logged before: the edit undoes and redoes as before; the todo stays top-level.
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.todo(2) }.title == "子")
        _ = try store.write { try $0.redo() }
        #expect(try store.read { try $0.todo(2) }.title == "子供" && store.read { try $0.todo(2) }.parent == nil)
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))
    }

    /// A store of the previous release (migrations 1 to 14, changes logged by its triggers, whose
    /// images have no `recur_set`) upgrades in place: its recurring todo has no EXDATE or RDATE,
    /// its older change still undoes, and a set given after the upgrade is undone exactly.
    @Test func aPreviousReleaseStoreGetsRecurrenceSets() throws {
        let dir = TemporaryDirectory("migrate15")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 14 }
        let oldTriggers = Self.triggers(without: ["recur_set", "alarms"])
        #expect(!oldTriggers.contains("recur_set"))
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            \(oldTriggers)
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid, due, recur_rule, recur_from)
                VALUES ('毎週', '毎週', '毎週', 65536, 1, 1, 'w-1', 4102444800000000, 'FREQ=WEEKLY', 'due');
            INSERT INTO changes (at, kind, description, state, first_n, last_n) VALUES (1, 'add', 'add 1', 'done', 1, 1);
            UPDATE todos SET title = '毎週月曜', title_key = '毎週月曜', search_key = '毎週月曜', updated = 2,
                revision = revision + 1 WHERE uid = 'w-1';
            INSERT INTO changes (at, kind, description, state, first_n, last_n) VALUES (2, 'update', 'edit 1', 'done', 2, 2);
            """)
        let store = try TodoStore(path: path)
        let before = try store.read { try $0.todo(1) }.recurrence
        #expect(before == TodoRecurrence(rule: "FREQ=WEEKLY"))
        let excluded = TodoRecurrence(
            rule: "FREQ=WEEKLY", exdates: [.date(47_489)], rdates: [.instant(Instant(usec: 4_102_617_600_000_000))])
        let set = try store.write { try $0.update(1, TodoPatch(recurrence: .set(excluded))) }
        #expect(set.recurrence == excluded)
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.todo(1) }.recurrence == before)
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.todo(1) }.title == "毎週")
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))
    }
}
