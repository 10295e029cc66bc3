import Testing
import TodoCore
import TodoSQLite
@testable import TodoStore
import TodoTestSupport

/// The search index (migration 17) and kana folding: what a search finds, the index kept equal
/// to the grams of every todo's key through every kind of write, and the plans that use it.
@Suite struct SearchIndexTests {
    /// The grams of `key` as the index holds them: each character with the next, the last alone.
    static func grams(_ key: String) -> Set<String> {
        let scalars = Array(key.unicodeScalars)
        var out: Set<String> = []
        for i in scalars.indices {
            var gram = String.UnicodeScalarView()
            gram.append(scalars[i])
            if i + 1 < scalars.count { gram.append(scalars[i + 1]) }
            out.insert(String(gram))
        }
        return out
    }

    /// Fails unless `search_grams` holds exactly the grams of every todo's stored key, and every
    /// key is `TextKey.searchKey` of the todo's title and notes.
    static func expectIndexRight(_ store: TodoStore, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (rows, held) = try store.read { tx in
            (try tx.connection.rows("SELECT id, title, notes, search_key FROM todos") { ($0.int64(0), $0.text(1), $0.optionalText(2), $0.text(3)) },
             try tx.connection.rows("SELECT gram, todo_id FROM search_grams") { "\($0.int64(1)) \($0.text(0))" })
        }
        var expected: Set<String> = []
        for (id, title, notes, key) in rows {
            #expect(key == TextKey.searchKey(title: title, notes: notes), "\(context): key of \(id)", sourceLocation: sourceLocation)
            for gram in grams(key) { expected.insert("\(id) \(gram)") }
        }
        #expect(Set(held) == expected, "\(context)", sourceLocation: sourceLocation)
        #expect(held.count == expected.count, "\(context): a gram twice", sourceLocation: sourceLocation)
    }

    static func ids(_ store: TodoStore, _ text: String, exact: Bool = false) throws -> [Int64] {
        var q = TodoQuery()
        q.status = .all
        q.search = text
        if exact { q.searchMode = .exact }
        q.sort = [TodoQuery.SortKey(.id)]
        return try store.read { try $0.list(q).todos.map(\.id) }
    }

    @Test func kanaWidthAndCaseFoldTogether() throws {
        let dir = TemporaryDirectory("search-kana")
        let store = try makeStore(dir)
        for (title, notes) in [("クリーニング店", nil), ("くりーにんぐ 出す", nil), ("ｸﾘｰﾆﾝｸﾞ", "ﾜｲｼｬﾂ"), ("Dry CLEANING", "スーツ"),
                               ("グラス", nil), ("ｸﾗｽ", nil), ("100% done_ok", nil)] as [(String, String?)] {
            _ = try store.write { try $0.add(NewTodo(title: title, notes: notes)) }
        }
        #expect(try Self.ids(store, "くりーにんぐ") == [1, 2, 3])
        #expect(try Self.ids(store, "クリーニング") == [1, 2, 3])
        #expect(try Self.ids(store, "ｸﾘｰﾆﾝｸﾞ") == [1, 2, 3])
        #expect(try Self.ids(store, "わいしゃつ") == [3])  // half-width katakana notes
        #expect(try Self.ids(store, "すーつ") == [4])
        #expect(try Self.ids(store, "ＣＬＥＡＮ") == [4])
        #expect(try Self.ids(store, "ぐ") == [1, 2, 3, 5])  // one character; ｸﾞ composes into グ
        #expect(try Self.ids(store, "く") == [1, 2, 3, 6])
        #expect(try Self.ids(store, "ぐらす") == [5])  // the voiced mark keeps グ and ク apart
        #expect(try Self.ids(store, "%") == [7])
        #expect(try Self.ids(store, "_") == [7])
        #expect(try Self.ids(store, "' OR 1=1 --") == [])
        // Exact: as written, nothing folded.
        #expect(try Self.ids(store, "クリーニング", exact: true) == [1])
        #expect(try Self.ids(store, "くりーにんぐ", exact: true) == [2])
        #expect(try Self.ids(store, "ｸﾘｰﾆﾝｸﾞ", exact: true) == [3])
        #expect(try Self.ids(store, "CLEANING", exact: true) == [4])
        #expect(try Self.ids(store, "cleaning", exact: true) == [])
        #expect(try Self.ids(store, "ク", exact: true) == [1])
        #expect(try Self.ids(store, "ー", exact: true) == [1, 2, 4])  // not the half-width ｰ of 3
        #expect(throws: TodoError.invalid("search", "must not be empty")) { try Self.ids(store, "  　", exact: true) }
        try Self.expectIndexRight(store, "after adds")
    }

    /// A combining mark after the text in the todo composes with its last character in the
    /// folded key; an exact search still finds the text as written.
    @Test func exactSearchFindsTextBeforeACombiningMark() throws {
        let dir = TemporaryDirectory("search-exact-mark")
        let store = try makeStore(dir)
        _ = try store.write { try $0.add(NewTodo(title: "ク\u{3099}リーム")) }
        _ = try store.write { try $0.add(NewTodo(title: "cafe\u{301} au lait")) }
        #expect(try Self.ids(store, "ク", exact: true) == [1])
        #expect(try Self.ids(store, "cafe", exact: true) == [2])
        #expect(try Self.ids(store, "ぐりーむ") == [1])
        #expect(try Self.ids(store, "café") == [2])
    }

    @Test func theIndexFollowsEveryWrite() throws {
        let dir = TemporaryDirectory("search-writes")
        let store = try makeStore(dir)
        let a = try store.write { try $0.add(NewTodo(title: "クリーニング", notes: "ワイシャツ 3枚")) }
        let b = try store.write { try $0.add(NewTodo(title: "牛乳を買う", category: "買い物")) }
        // A key longer than `SearchIndex.shortKey` characters is cut from its bytes.
        let long = String(repeating: "ﾛﾝｸﾞ note é😀 ", count: 60) + "最後のメモ"
        let c = try store.write { try $0.add(NewTodo(title: "長いメモ", notes: long)) }
        try Self.expectIndexRight(store, "add")
        #expect(try Self.ids(store, "最後のめも") == [c.id] && Self.ids(store, "ろんぐ") == [c.id] && Self.ids(store, "é😀") == [c.id])
        _ = try store.write { try $0.update(c.id, TodoPatch(notes: .set(long + " 追記"))) }
        try Self.expectIndexRight(store, "edit a long key")
        _ = try store.write { try $0.update(c.id, TodoPatch(notes: .set("短い"))) }
        try Self.expectIndexRight(store, "a long key made short")
        _ = try store.write { try $0.undo() }
        try Self.expectIndexRight(store, "a short key made long again")
        _ = try store.write { try $0.delete([c.id]) }
        try Self.expectIndexRight(store, "delete a long key")
        _ = try store.write { try $0.update(a.id, TodoPatch(title: .set("クリーニング屋さん"), notes: .clear)) }
        try Self.expectIndexRight(store, "edit")
        #expect(try Self.ids(store, "わいしゃつ") == [])
        #expect(try Self.ids(store, "屋さん") == [a.id])
        _ = try store.write { try $0.undo() }
        try Self.expectIndexRight(store, "undo edit")
        #expect(try Self.ids(store, "わいしゃつ") == [a.id])
        #expect(try Self.ids(store, "屋さん") == [])
        _ = try store.write { try $0.redo() }
        try Self.expectIndexRight(store, "redo edit")
        #expect(try Self.ids(store, "屋さん") == [a.id])
        _ = try store.write { try $0.delete([b.id]) }
        try Self.expectIndexRight(store, "delete")
        #expect(try Self.ids(store, "ぎゅうにゅう") == [] && Self.ids(store, "牛乳") == [])
        _ = try store.write { try $0.undo() }
        try Self.expectIndexRight(store, "undo delete")
        #expect(try Self.ids(store, "牛乳") == [b.id])
        _ = try store.write { try $0.complete([b.id]) }
        _ = try store.write { try $0.move(b.id, to: .position(1)) }
        try Self.expectIndexRight(store, "complete and move")
        let document = try store.read { try $0.export() }
        _ = try store.write { try $0.delete([a.id, b.id]) }
        try Self.expectIndexRight(store, "delete all")
        #expect(try store.read { try $0.connection.scalar("SELECT count(*) FROM search_grams") } == 0)
        _ = try store.write { try $0.importDocument(document) }
        try Self.expectIndexRight(store, "import")
        #expect(try Self.ids(store, "くりーにんぐ屋").count == 1)
        _ = try store.write { try $0.undo() }
        try Self.expectIndexRight(store, "undo import")
        _ = try store.write { try $0.redo() }
        try Self.expectIndexRight(store, "redo import")
        #expect(try Self.ids(store, "牛乳").count == 1)
    }

    /// A rare text is read through the index; text whose every gram is in more than
    /// `candidateLimit` todos reads the table once, as before the index.
    @Test func plansUseTheIndexForRareText() throws {
        let dir = TemporaryDirectory("search-plan")
        let store = try makeStore(dir)
        _ = try store.write { tx in
            for i in 0..<(SearchIndex.candidateLimit + 10) {
                _ = try tx.add(NewTodo(title: "zz common \(i)" + (i == 7 ? " 洗濯物" : "")))
            }
        }
        try store.read { tx in
            for (text, indexed) in [("洗濯", true), ("洗", true), ("zz", false), ("z", false), ("zz common 7 洗", true)] {
                var q = TodoQuery()
                q.search = text
                q.limit = 50
                let plan = try tx.plan(q)
                for (sql, values) in [(plan.count, plan.values), (plan.page(forTotal: 1), plan.pageValues)] {
                    let steps = try tx.queryPlan(sql, values)
                    if indexed {
                        #expect(steps.contains { $0.contains("search_grams") } && !steps.contains { $0.hasPrefix("SCAN t") }, "\(text): \(steps)")
                    } else {
                        #expect(steps.contains { $0.hasPrefix("SCAN t") } && !steps.contains { $0.contains("search_grams") }, "\(text): \(steps)")
                    }
                }
            }
        }
        #expect(try Self.ids(store, "洗濯") == [8])
        #expect(try Self.ids(store, "zz common 7 洗") == [8])
        #expect(try Self.ids(store, "common 4099").count == 1)
    }
}

extension SearchIndexTests {
    /// A database of the previous schema (migrations 1 to 15), whose keys and logged images keep
    /// katakana: migration 16 computes every key again, migration 17 indexes them, and undo of a
    /// change logged before writes back a key that folds kana too.
    @Test func aPreviousSchemaDatabaseIsFoldedAndIndexed() throws {
        let dir = TemporaryDirectory("migrate16")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 15 }
        func change(_ seq: Int, _ kind: String, _ description: String) -> String {
            "INSERT INTO changes (at, kind, description, state, first_n, last_n) VALUES (\(seq), '\(kind)', '\(description)', 'done', \(seq), \(seq));"
        }
        _ = try ChildProcess.sqlite3(path, """
            PRAGMA journal_mode = WAL;
            CREATE TABLE todod_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL);
            \(previous.map(\.sql).joined(separator: "\n"))
            \(previous.map { "INSERT INTO todod_migrations VALUES (\($0.id), '\($0.name)', 0);" }.joined(separator: "\n"))
            \(MigrationTests.triggers(without: ["alarms"]))
            INSERT INTO todos (title, title_key, notes, search_key, rank, created, updated, uid)
                VALUES ('クリーニング', 'クリーニング', 'ﾜｲｼｬﾂ', 'クリーニング' || char(10) || 'ワイシャツ', 65536, 1, 1, 'old-1');
            \(change(1, "add", "add 1"))
            UPDATE todos SET title = 'ドライクリーニング', title_key = 'ドライクリーニング',
                search_key = 'ドライクリーニング' || char(10) || 'ワイシャツ', updated = 2, revision = revision + 1 WHERE uid = 'old-1';
            \(change(2, "update", "edit 1"))
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid)
                VALUES ('Milk', 'milk', 'milk' || char(10), 131072, 3, 3, 'old-2');
            \(change(3, "add", "add 2"))
            """)
        let store = try TodoStore(path: path)
        try Self.expectIndexRight(store, "migrated")
        #expect(try Self.ids(store, "くりーにんぐ") == [1])
        #expect(try Self.ids(store, "わいしゃつ") == [1])
        #expect(try Self.ids(store, "どらい") == [1])
        #expect(try Self.ids(store, "MILK") == [2])
        let images = try store.read { tx in
            try tx.connection.rows("SELECT coalesce(b_search_key, '-'), coalesce(a_search_key, '-') FROM change_rows ORDER BY n") { "\($0.text(0))|\($0.text(1))" }
        }
        #expect(images == ["-|くりーにんぐ\nわいしゃつ", "くりーにんぐ\nわいしゃつ|どらいくりーにんぐ\nわいしゃつ", "-|milk\n"])
        _ = try store.write { try $0.undo() }  // the add of Milk
        _ = try store.write { try $0.undo() }  // the edit: the key written back folds kana
        try Self.expectIndexRight(store, "undone")
        #expect(try Self.ids(store, "どらい") == [] && Self.ids(store, "くりーにんぐ") == [1] && Self.ids(store, "milk") == [])
        _ = try store.write { try $0.redo() }
        try Self.expectIndexRight(store, "redone")
        #expect(try Self.ids(store, "どらい") == [1])
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))
    }
}
