import Foundation
import Testing
import TodoCore
@testable import TodoStore
import TodoTestSupport

private func makeStore(_ dir: TemporaryDirectory, clock: ManualClock = ManualClock()) throws -> TodoStore {
    try TodoStore(path: dir.file("todos.db"), clock: clock.source)
}

private func everything(_ store: TodoStore) throws -> ([Todo], [Category]) {
    var query = TodoQuery()
    query.status = .all
    return try store.read { (try $0.list(query).todos, try $0.categories()) }
}

@Suite struct ValidationAndConflictTests {
    @Test func invalidInputChangesNothing() throws {
        let dir = TemporaryDirectory("valid")
        let store = try makeStore(dir)
        _ = try store.write { try $0.add(NewTodo(title: "keep me", category: "Home")) }
        let before = try everything(store)
        let bad: [(String, (StoreTransaction) throws -> Void)] = [
            ("empty title", { _ = try $0.add(NewTodo(title: "  \u{3000} ")) }),
            ("long title", { _ = try $0.add(NewTodo(title: String(repeating: "あ", count: 1001))) }),
            ("control", { _ = try $0.add(NewTodo(title: "bell\u{7}")) }),
            ("newline", { _ = try $0.add(NewTodo(title: "two\nlines")) }),
            ("notes", { _ = try $0.add(NewTodo(title: "ok", notes: String(repeating: "x", count: 64 * 1024 + 1))) }),
            ("category", { _ = try $0.add(NewTodo(title: "ok", category: String(repeating: "c", count: 201))) }),
            ("empty category", { _ = try $0.add(NewTodo(title: "ok", category: " ")) }),
            ("clear title", { _ = try $0.update(1, TodoPatch(title: .clear)) }),
            ("bad edit", { _ = try $0.update(1, TodoPatch(title: .set(""))) }),
            ("unknown", { _ = try $0.update(99, TodoPatch(title: .set("x"))) }),
            ("move range", { _ = try $0.move(1, to: .position(2)) }),
            ("move anchor", { _ = try $0.move(1, to: .before(42)) }),
            ("complete some unknown", { _ = try $0.complete([1, 77]) }),
            ("delete some unknown", { _ = try $0.delete([1, 77]) }),
            ("empty ids", { _ = try $0.delete([]) }),
        ]
        for (name, operation) in bad {
            #expect(throws: TodoError.self, "\(name)") { try store.write(operation) }
        }
        #expect(try everything(store) == before)
    }

    @Test func errorsNameTheField() throws {
        let dir = TemporaryDirectory("field")
        let store = try makeStore(dir)
        #expect(throws: TodoError.invalid("title", "must not be empty")) { try store.write { try $0.add(NewTodo(title: "")) } }
        #expect(throws: TodoError.invalid("title", "contains control character U+0000")) {
            try store.write { try $0.add(NewTodo(title: "a\u{0}b")) }
        }
        #expect(throws: TodoError.invalid("title", "longer than 1000 characters")) {
            try store.write { try $0.add(NewTodo(title: String(repeating: "漢", count: 1001))) }
        }
        // Characters and bytes: 1000 four-byte characters fit, 228 family emoji (18 bytes each) do not.
        _ = try store.write { try $0.add(NewTodo(title: String(repeating: "𠀋", count: 1000))) }
        #expect(throws: TodoError.invalid("title", "longer than 4096 bytes")) {
            try store.write { try $0.add(NewTodo(title: String(repeating: "👨‍👩‍👧", count: 228))) }
        }
        #expect(throws: TodoError.invalid("title", "has no visible characters")) {
            try store.write { try $0.add(NewTodo(title: "\u{200B}\u{2060}")) }
        }
    }

    @Test func injectionShapedTextIsStoredLiterally() throws {
        let dir = TemporaryDirectory("inject")
        let store = try makeStore(dir)
        let evil = "x'); DROP TABLE todos;--"
        let todo = try store.write { try $0.add(NewTodo(title: evil, notes: "\" OR 1=1 --", category: evil)) }
        #expect(todo.title == evil)
        #expect(todo.category == evil)
        let again = try store.read { try $0.todo(todo.id) }
        #expect(again == todo)
        #expect(try store.read { try $0.categories() }.map(\.name) == [evil])
        store.close()  // the store holds its file exclusively while open
        #expect(try ChildProcess.sqlite3(dir.file("todos.db"), "SELECT count(*) FROM todos;") == "1")
    }

    @Test func categoryNamesAreUniqueUnderCaseFolding() throws {
        let dir = TemporaryDirectory("fold")
        let store = try makeStore(dir)
        _ = try store.write { try $0.addCategory("Home") }
        #expect(throws: TodoError.conflict("category \"Home\" already exists")) { try store.write { try $0.addCategory("home") } }
        _ = try store.write { try $0.addCategory("Straße") }
        #expect(throws: TodoError.self) { try store.write { try $0.addCategory("STRASSE") } }
        // A todo naming the category in another case joins it.
        let todo = try store.write { try $0.add(NewTodo(title: "t", category: "HOME")) }
        #expect(todo.category == "Home")
        // A change of case alone is a rename; taking another category's name is a conflict.
        #expect(try store.write { try $0.renameCategory("home", to: "HOME") }.name == "HOME")
        #expect(throws: TodoError.conflict("category \"Straße\" already exists")) {
            try store.write { try $0.renameCategory("HOME", to: "strasse") }
        }
        #expect(try store.read { try $0.todo(todo.id) }.category == "HOME")
    }

    @Test func deletingAUsedCategoryNeedsForceAndUnlinks() throws {
        let dir = TemporaryDirectory("catrm")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let a = try store.write { try $0.add(NewTodo(title: "a", category: "仕事")) }
        _ = try store.write { try $0.add(NewTodo(title: "b", category: "仕事")) }
        _ = try store.write { try $0.complete([a.id]) }
        let counted = try store.read { try $0.categories() }
        #expect(counted == [Category(id: 1, name: "仕事", position: 1, open: 1, done: 1)])
        #expect(throws: TodoError.conflict("category \"仕事\" still has 2 todos; force the deletion to unlink them")) {
            try store.write { try $0.deleteCategory("仕事", force: false) }
        }
        clock.advance(seconds: 5)
        let deleted = try store.write { try $0.deleteCategory("仕事", force: true) }
        #expect(deleted.open == 1 && deleted.done == 1)
        let (todos, categories) = try everything(store)
        #expect(categories.isEmpty)
        #expect(todos.count == 2)
        #expect(todos.allSatisfy { $0.category == nil && $0.updated == clock.now })
    }
}

@Suite struct OrderTests {
    @Test func idsAreNeverReusedAndMovesKeepThem() throws {
        let dir = TemporaryDirectory("ids")
        let store = try makeStore(dir)
        for i in 1...5 { _ = try store.write { try $0.add(NewTodo(title: "t\(i)")) } }
        _ = try store.write { try $0.delete([5]) }
        let next = try store.write { try $0.add(NewTodo(title: "new", top: true)) }
        #expect(next.id == 6)
        #expect(next.position == 1)
        _ = try store.write { try $0.move(6, to: .after(3)) }
        let (todos, _) = try everything(store)
        #expect(todos.map(\.id) == [1, 2, 3, 6, 4])
        #expect(todos.map(\.position) == [1, 2, 3, 4, 5])
    }

    /// A move rewrites one row in the common case, even in a long list; repeated moves into the
    /// same spot trigger occasional local respacing, never a rewrite of the whole list.
    @Test func aMoveRewritesOneRow() throws {
        let dir = TemporaryDirectory("rows")
        let store = try makeStore(dir)
        try store.write { tx in for i in 1...2000 { _ = try tx.add(NewTodo(title: "t\(i)")) } }
        let changes = { try store.read { try $0.connection.scalar("SELECT total_changes()") } }
        var before = try changes()
        _ = try store.write { try $0.move(1500, to: .position(10)) }
        // The rank and `updated` of the moved row, and at most three changes in the block table.
        #expect(try changes() - before <= 5)
        // Move todos one after another between the same two neighbours.
        before = try changes()
        for id in 100..<400 { _ = try store.write { try $0.move(Int64(id), to: .after(1)) } }
        let perMove = Double(try changes() - before) / 300
        #expect(perMove < 10, "rows written per move: \(perMove)")
        let (todos, _) = try everything(store)
        #expect(todos.map(\.position) == Array(1...2000))
        #expect(Array(todos.map(\.id)[0...2]) == [1, 399, 398])
    }
}

/// Positions come from three paths (one todo, a long run of nearby keys, a scattered page);
/// each must give the dense position the manual order implies.
@Suite struct PositionTests {
    @Test func everyPathGivesTheDensePosition() throws {
        let dir = TemporaryDirectory("positions")
        let store = try makeStore(dir)
        // Titles in reverse of the manual order, so a title sort scatters the keys of a page.
        try store.write { tx in for i in 1...3000 { _ = try tx.add(NewTodo(title: String(format: "t%05d", 3001 - i))) } }
        // Spread keys over many blocks, with some moves and deletes in between.
        _ = try store.write { try $0.move(2999, to: .position(1)) }
        _ = try store.write { try $0.move(5, to: .position(2500)) }
        _ = try store.write { try $0.delete([100, 101, 102]) }
        let (all, _) = try everything(store)  // the long run
        #expect(all.map(\.position) == Array(1...2997))
        let positionOf = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.position) })
        var query = TodoQuery()
        query.sort = [TodoQuery.SortKey(.title)]
        query.limit = 7
        for offset in [0, 3, 1000, 2990] {  // scattered pages
            query.offset = offset
            for todo in try store.read({ try $0.list(query).todos }) {
                #expect(todo.position == positionOf[todo.id], "id \(todo.id) at offset \(offset)")
            }
        }
        for id: Int64 in [1, 5, 2999, 3000, 1500] {  // one todo
            #expect(try store.read { try $0.todo(id) }.position == positionOf[id])
        }
    }
}

/// The chunked listing gives what the whole one gives, in the same order, whatever the chunk.
@Suite struct ChunkedListTests {
    @Test func chunksAddUpToTheWholeListing() throws {
        let dir = TemporaryDirectory("chunks")
        let store = try makeStore(dir)
        try store.write { tx in
            for i in 1...2500 {
                // Every other todo is due, on one of seven instants: many todos share one.
                let due = i % 2 == 0 ? Instant(usec: 1_800_000_000_000_000 + Int64(i % 7) * 1_000_000) : nil
                _ = try tx.add(NewTodo(title: "t\(3000 - i) 牛乳", category: i % 3 == 0 ? "家" : nil, due: due))
            }
        }
        _ = try store.write { try $0.complete([5, 6, 7]) }
        var queries: [TodoQuery] = []
        for status in TodoQuery.Status.allCases {
            for sort in [[], [TodoQuery.SortKey(.title)], [TodoQuery.SortKey(.id, descending: true)], [TodoQuery.SortKey(.category)],
                         [TodoQuery.SortKey(.due, descending: true)]] {
                var q = TodoQuery()
                q.status = status
                q.sort = sort
                queries.append(q)
            }
        }
        var paged = TodoQuery()
        paged.category = "家"
        paged.limit = 300
        paged.offset = 50
        queries.append(paged)
        var acrossParts = TodoQuery()  // a page that starts among the categorised and ends among the others
        acrossParts.sort = [TodoQuery.SortKey(.category, descending: true)]
        acrossParts.limit = 100
        acrossParts.offset = 780
        queries.append(acrossParts)
        acrossParts.sort = [TodoQuery.SortKey(.due, descending: true)]
        acrossParts.offset = 1200
        queries.append(acrossParts)
        for query in queries {
            let whole = try store.read { try $0.list(query) }
            // The page a single sorted statement gives, whichever way the listing read it.
            let sorted = try store.read { tx in
                let statements = try tx.plan(query)
                return try tx.connection.rows(statements.walkingPage, statements.pageValues) { $0.int64(0) }
            }
            #expect(whole.todos.map(\.id) == sorted, "\(query)")
            for chunk in [1, 7, 1000] {
                var total = -1
                var todos: [Todo] = []
                try store.read { tx in
                    try tx.list(query, chunk: chunk, total: { total = $0 }) { part in
                        #expect(part.count <= chunk)
                        todos += part
                        return true
                    }
                }
                #expect(total == whole.total && todos == whole.todos, "\(query) in chunks of \(chunk)")
            }
        }
        // Returning false stops the listing.
        var parts = 0
        try store.read { tx in try tx.list(TodoQuery(), chunk: 100, total: { _ in }) { _ in parts += 1; return parts < 3 } }
        #expect(parts == 3)
    }
}

@Suite struct PersistenceTests {
    @Test func closeAndReopenGivesIdenticalState() throws {
        let dir = TemporaryDirectory("reopen")
        let clock = ManualClock()
        var store: TodoStore? = try makeStore(dir, clock: clock)
        _ = try store!.write { try $0.add(NewTodo(title: "牛乳", notes: "2本", category: "買い物", due: clock.now)) }
        _ = try store!.write { try $0.add(NewTodo(title: "🍣", top: true)) }
        _ = try store!.write { try $0.complete([2]) }
        let before = try everything(store!)
        store = nil
        store = try makeStore(dir, clock: clock)
        #expect(try everything(store!) == before)
        store!.close()  // the store holds its file exclusively while open
        #expect(try ChildProcess.sqlite3(dir.file("todos.db"), "PRAGMA integrity_check;") == "ok")
        #expect(try ChildProcess.sqlite3(dir.file("todos.db"), "PRAGMA journal_mode;") == "wal")
    }

    @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
        let dir = TemporaryDirectory("future")
        let path = dir.file("todos.db")
        _ = try makeStore(dir)
        _ = try ChildProcess.sqlite3(path, "INSERT INTO todod_migrations VALUES (99, 'from the future', 0);")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try makeStore(dir)
        } throws: { error in
            let error = error as? TodoError
            return error?.code == .storage && error?.message.contains("newer todod (schema 99") == true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func filesThatAreNotOurDatabaseAreRefusedUntouched() throws {
        let dir = TemporaryDirectory("notdb")
        let text = dir.file("notes.txt")
        try Data("これはデータベースではありません\n".utf8 + [UInt8](repeating: 7, count: 4096)).write(to: URL(fileURLWithPath: text))
        let foreign = dir.file("other.db")
        _ = try ChildProcess.sqlite3(foreign, "CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('x');")
        for path in [text, foreign] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: TodoError.self) { try TodoStore(path: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        }
    }
}

@Suite struct UpdateTests {
    @Test func updatedChangesOnlyOnRealChange() throws {
        let dir = TemporaryDirectory("upd")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let todo = try store.write { try $0.add(NewTodo(title: "same", category: "Home")) }
        clock.advance(seconds: 60)
        let same = try store.write { try $0.update(todo.id, TodoPatch(title: .set("same"), category: .set("HOME"))) }
        #expect(same.updated == todo.updated)
        let done = try store.write { try $0.complete([todo.id, todo.id]) }
        #expect(done.count == 1 && done[0].done && done[0].completed == clock.now && done[0].updated == clock.now)
        clock.advance(seconds: 60)
        let again = try store.write { try $0.complete([todo.id]) }
        #expect(again[0].updated == done[0].updated)
        let reopened = try store.write { try $0.reopen([todo.id]) }
        #expect(!reopened[0].done && reopened[0].completed == nil && reopened[0].updated == clock.now)
    }

    @Test func dueAndRemindFollowTheRules() throws {
        let dir = TemporaryDirectory("remind")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let due = clock.now.adding(usec: 3_600_000_000)
        let lead: Int64 = 15 * 60_000_000
        var todo = try store.write { try $0.add(NewTodo(title: "a", due: due)) }
        #expect(todo.remind == due)  // defaults to due
        todo = try store.write { try $0.update(todo.id, TodoPatch(remind: .set(due.adding(usec: -lead)))) }
        #expect(todo.remind == due.adding(usec: -lead))
        let later = due.adding(usec: 86_400_000_000)
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .set(later))) }
        #expect(todo.remind == later.adding(usec: -lead))  // keeps its lead time
        try store.write { try $0.markReminded(todo.id, scheduled: todo.remind, at: clock.now) }
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .set(due))) }
        #expect(todo.reminded == nil)  // re-armed
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .clear)) }
        #expect(todo.due == nil && todo.remind == nil)
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .set(due))) }
        #expect(todo.remind == due)
        let silent = try store.write { try $0.add(NewTodo(title: "b", due: due, noReminder: true)) }
        #expect(silent.remind == nil)
    }
}

@Suite struct ReminderQueryTests {
    @Test func nextBatchMarkAndSnooze() throws {
        let dir = TemporaryDirectory("rq")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let t0 = clock.now
        let at = { (seconds: Int64) in t0.adding(usec: seconds * 1_000_000) }
        #expect(try store.read { try $0.nextPendingReminder() } == nil)
        _ = try store.write { try $0.add(NewTodo(title: "late", due: at(30))) }   // 1
        _ = try store.write { try $0.add(NewTodo(title: "soon", due: at(10))) }   // 2
        _ = try store.write { try $0.add(NewTodo(title: "done", due: at(5))) }    // 3
        _ = try store.write { try $0.add(NewTodo(title: "none")) }                // 4
        _ = try store.write { try $0.add(NewTodo(title: "gone", due: at(1))) }    // 5
        _ = try store.write { try $0.complete([3]) }
        _ = try store.write { try $0.delete([5]) }
        #expect(try store.read { try $0.nextPendingReminder() } == at(10))
        #expect(try store.read { try $0.dueReminders(at: at(9)) }.isEmpty)
        #expect(try store.read { try $0.dueReminders(at: at(60)) }.map(\.id) == [2, 1])
        try store.write { try $0.markReminded(2, scheduled: at(9), at: at(10)) }  // moved since: not recorded
        #expect(try store.read { try $0.nextPendingReminder() } == at(10))
        try store.write { try $0.markReminded(5, scheduled: at(1), at: at(10)) }  // deleted since: nothing to record
        try store.write { try $0.markReminded(2, scheduled: at(10), at: at(10)) }
        #expect(try store.read { try $0.nextPendingReminder() } == at(30))
        let snoozed = try store.write { try $0.snooze(2, until: at(100)) }
        #expect(snoozed.remind == at(100) && snoozed.reminded == nil)
        #expect(try store.read { try $0.dueReminders(at: at(100)) }.map(\.id) == [1, 2])
        #expect(throws: TodoError.self) { try store.write { try $0.snooze(3, until: at(100)) } }
    }
}

@Suite struct ExportImportTests {
    @Test func exportThenImportIntoAnEmptyStoreReproducesIt() throws {
        let a = TemporaryDirectory("exp")
        let clock = ManualClock()
        let source = try makeStore(a, clock: clock)
        _ = try source.write { try $0.addCategory("空") }
        _ = try source.write { try $0.add(NewTodo(title: "一", category: "仕事", due: clock.now)) }
        clock.advance(seconds: 9)
        _ = try source.write { try $0.add(NewTodo(title: "two", notes: "n", top: true)) }
        _ = try source.write { try $0.complete([1]) }
        let document = try source.read { try $0.export() }
        #expect(document.todos.map(\.title) == ["two", "一"])
        #expect(document.categories == ["空", "仕事"])

        let b = TemporaryDirectory("imp")
        let target = try makeStore(b, clock: clock)
        let counts = try target.write { try $0.importDocument(document) }
        #expect(counts == ImportCounts(todos: 2, categories: 2))
        // Everything but the ids, which the target assigns afresh.
        let withoutIDs = { (state: ([Todo], [Category])) in
            (state.0.map { var t = $0; t.id = 0; return t }, state.1.map { var c = $0; c.id = 0; return c })
        }
        let (expected, actual) = (withoutIDs(try everything(source)), withoutIDs(try everything(target)))
        #expect(actual.0 == expected.0 && actual.1 == expected.1)
    }

    /// An import keeps each todo's uid, makes one for an entry without, and refuses (importing
    /// nothing) a uid the store already has or one the document repeats.
    @Test func uidsSurviveAndAreNeverDuplicated() throws {
        let dir = TemporaryDirectory("impuid")
        let store = try makeStore(dir)
        let now = Instant.now()
        let foreign = "040000008200E00074C5B7101A82E008@example.com"
        let document = ExportDocument(categories: [], todos: [
            .init(title: "kept", created: now, updated: now, uid: "0f8fad5b-d9cb-469f-a165-70867728950e"),
            .init(title: "foreign", created: now, updated: now, uid: foreign),
            .init(title: "none", created: now, updated: now),
        ], exported: now)
        _ = try store.write { try $0.importDocument(document) }
        let todos = try everything(store).0
        #expect(todos.map(\.uid).prefix(2) == ["0f8fad5b-d9cb-469f-a165-70867728950e", foreign])
        #expect(RandomUUID.isWellFormed(todos[2].uid))
        #expect(try store.read { try $0.export() }.todos.map(\.uid) == todos.map(\.uid))
        // The same document again: refused, nothing added.
        #expect(throws: TodoError.self) { try store.write { try $0.importDocument(document) } }
        let twice = ExportDocument(categories: [], todos: [
            .init(title: "x", created: now, updated: now, uid: "u-1"), .init(title: "y", created: now, updated: now, uid: "u-1"),
        ], exported: now)
        do {
            _ = try store.write { try $0.importDocument(twice) }
            Issue.record("a repeated uid was imported")
        } catch {
            #expect((error as? TodoError)?.message.contains("todos[1].uid") == true)
        }
        for bad in ["", "has space", "tab\t"] {
            let doc = ExportDocument(categories: [], todos: [.init(title: "z", created: now, updated: now, uid: bad)], exported: now)
            #expect(throws: TodoError.self) { try store.write { try $0.importDocument(doc) } }
        }
        #expect(try everything(store).0.count == 3)
        // An edit never changes the uid.
        let edited = try store.write { try $0.update(1, TodoPatch(title: .set("renamed"))) }
        #expect(edited.uid == todos[0].uid)
    }

    @Test func anInvalidEntryImportsNothing() throws {
        let dir = TemporaryDirectory("impbad")
        let store = try makeStore(dir)
        let now = Instant.now()
        let document = ExportDocument(
            categories: ["新しい"],
            todos: [.init(title: "fine", created: now, updated: now), .init(title: "  ", created: now, updated: now)],
            exported: now)
        #expect(throws: TodoError.invalid("todos[1].title", "must not be empty")) {
            try store.write { try $0.importDocument(document) }
        }
        #expect(try everything(store) == ([], []))
    }
}

@Suite struct MigrationTests {
    /// A database written by the previous schema (migrations 1 to 4) gets a uid for every todo
    /// (distinct random UUIDs, kept from then on) and a store id that stays the same.
    @Test func aPreviousSchemaDatabaseGetsUIDsAndAStoreID() throws {
        let dir = TemporaryDirectory("migrate5")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 4 }
        _ = try ChildProcess.sqlite3(path, """
            PRAGMA journal_mode = WAL;
            CREATE TABLE todod_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL);
            \(previous.map(\.sql).joined(separator: "\n"))
            \(previous.map { "INSERT INTO todod_migrations VALUES (\($0.id), '\($0.name)', 0);" }.joined(separator: "\n"))
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
        #expect(Array(added.uid.utf8)[14] == UInt8(ascii: "7"))  // made by the store: version 7, time-ordered
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT name FROM sqlite_master WHERE name = 'todos_uid';") == "todos_uid")
        store = try TodoStore(path: path)
        #expect(try everything(store).prefix(3).map(\.uid) == todos.map(\.uid))
        #expect(try store.read { try $0.storeID() } == storeID)
    }

    /// A database written by the first schema (a fixture made from migration 1 alone) migrates
    /// forward with its data intact, and the counts the new schema keeps are right.
    @Test func aFirstSchemaDatabaseMigratesForward() throws {
        let dir = TemporaryDirectory("migrate")
        let path = dir.file("todos.db")
        let v1 = migrations[0]
        _ = try ChildProcess.sqlite3(path, """
            PRAGMA journal_mode = WAL;
            CREATE TABLE todod_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL);
            \(v1.sql)
            INSERT INTO todod_migrations VALUES (1, '\(v1.name)', 0);
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
        store.close()  // the store holds its file exclusively while open
        #expect(try ChildProcess.sqlite3(path, "SELECT id FROM todod_migrations ORDER BY id;") == "1\n2\n3\n4\n5")
        // The plain due index gave way to the one listings by due date walk.
        #expect(try ChildProcess.sqlite3(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'todos_%due%' ORDER BY name;")
                == "todos_done_due")
    }
}
