import Dispatch
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// The search index (migration 18) and kana folding: what a search finds, the index kept equal
/// to the trigrams of every todo's key through every kind of write, and the plans that use it.
@Suite struct SearchIndexTests {
    /// The trigrams of `key` as the index holds them: each character with the next two, the key
    /// followed by two line breaks.
    static func grams(_ key: String) -> Set<String> {
        let scalars = Array((key + SearchIndex.pad).unicodeScalars)
        var out: Set<String> = []
        for i in 0..<(scalars.count - 2) {
            var gram = String.UnicodeScalarView()
            gram.append(contentsOf: scalars[i..<(i + 3)])
            out.insert(String(gram))
        }
        return out
    }

    /// Fails unless `search_fts` holds exactly the trigrams of every todo's stored key (read
    /// through `search_terms`), nothing is left noted in `search_pending`, and every key is
    /// `TextKey.searchKey` of the todo's title and notes.
    static func expectIndexRight(
        _ store: TodoStore, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (rows, held, pending) = try store.read { tx in
            (
                try tx.connection.rows("SELECT id, title, notes, search_key FROM todos") {
                    ($0.int64(0), $0.text(1), $0.optionalText(2), $0.text(3))
                },
                try tx.connection.rows("SELECT DISTINCT doc, term FROM search_terms") {
                    "\($0.int64(0)) \($0.text(1))"
                },
                try tx.connection.scalar("SELECT count(*) FROM search_pending")
            )
        }
        var expected: Set<String> = []
        for (id, title, notes, key) in rows {
            #expect(
                key == TextKey.searchKey(title: title, notes: notes), "\(context): key of \(id)",
                sourceLocation: sourceLocation)
            for gram in grams(key) { expected.insert("\(id) \(gram)") }
        }
        #expect(Set(held) == expected, "\(context)", sourceLocation: sourceLocation)
        #expect(pending == 0, "\(context): todos left pending", sourceLocation: sourceLocation)
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
        for (title, notes) in [
            ("クリーニング店", nil), ("くりーにんぐ 出す", nil), ("ｸﾘｰﾆﾝｸﾞ", "ﾜｲｼｬﾂ"), ("Dry CLEANING", "スーツ"),
            ("グラス", nil), ("ｸﾗｽ", nil), ("100% done_ok", nil)
        ] as [(String, String?)] {
            _ = try store.write { try $0.add(NewTodo(title: title, notes: notes)) }
        }
        #expect(try Self.ids(store, "くりーにんぐ") == [1, 2, 3])
        #expect(try Self.ids(store, "クリーニング") == [1, 2, 3])
        #expect(try Self.ids(store, "ｸﾘｰﾆﾝｸﾞ") == [1, 2, 3])
        #expect(try Self.ids(store, "わいしゃつ") == [3]) // half-width katakana notes
        #expect(try Self.ids(store, "すーつ") == [4])
        #expect(try Self.ids(store, "ＣＬＥＡＮ") == [4])
        #expect(try Self.ids(store, "ぐ") == [1, 2, 3, 5]) // one character; ｸﾞ composes into グ
        #expect(try Self.ids(store, "く") == [1, 2, 3, 6])
        #expect(try Self.ids(store, "ぐらす") == [5]) // the voiced mark keeps グ and ク apart
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
        #expect(try Self.ids(store, "ー", exact: true) == [1, 2, 4]) // not the half-width ｰ of 3
        #expect(throws: TodoError.invalid("search", "must not be empty")) { try Self.ids(store, "  　", exact: true) }
        // Open todos only: the total is counted through the index for a folded search alone.
        for (text, mode, total) in [
            ("クリーニング", TodoQuery.SearchMode.exact, 1), ("くりーにんぐ", .exact, 1), ("くりーにんぐ", .folded, 3)
        ] {
            var q = TodoQuery()
            q.search = text
            q.searchMode = mode
            let page = try store.read { try $0.list(q) }
            #expect(page.total == total && page.todos.count == total, "\(text) \(mode)")
        }
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

    /// An exact search's count reads the todos: the folded index's candidates are more than its
    /// matches (クリーニング and くりーにんぐ fold alike).
    @Test func anExactSearchCountsOnlyItsMatches() throws {
        let dir = TemporaryDirectory("search-exact-count")
        let store = try makeStore(dir)
        _ = try store.write { try $0.add(NewTodo(title: "クリーニングに出す")) }
        _ = try store.write { try $0.add(NewTodo(title: "くりーにんぐに出す")) }
        var q = TodoQuery()
        q.search = "クリーニング"
        q.searchMode = .exact
        let page = try store.read { try $0.list(q) }
        #expect(page.todos.map(\.id) == [1] && page.total == 1)
        q.searchMode = .folded
        let folded = try store.read { try $0.list(q) }
        #expect(folded.todos.map(\.id) == [1, 2] && folded.total == 2)
    }

    /// A needle longer than `SearchIndex.phraseLimit` asks the index for its first characters
    /// only (a phrase of 20,000 trigrams against twenty todos of 20,000 equal characters held
    /// the store queue 45 s and 1.1 GB): the todos holding just that prefix are candidates, and
    /// the needle itself decides which match and how many.
    @Test func aLongNeedleFindsExactlyItsMatches() throws {
        let dir = TemporaryDirectory("search-long-needle")
        let store = try makeStore(dir)
        let needle = "洗濯物を取り込んでから牛乳を買いに行く、それから report を書く"
        #expect(needle.unicodeScalars.count > SearchIndex.phraseLimit + 5)
        let prefix = String(needle.unicodeScalars.prefix(SearchIndex.phraseLimit + 5))
        _ = try store.write { tx in
            _ = try tx.add(NewTodo(title: "牛", notes: String(repeating: "牛", count: 20_000)))
            _ = try tx.add(NewTodo(title: "prefix only", notes: prefix + " and then something else"))
            _ = try tx.add(NewTodo(title: "whole", notes: "before " + needle + " after"))
            _ = try tx.add(NewTodo(title: "牛", notes: String(repeating: "牛", count: 20_000)))
        }
        #expect(try Self.ids(store, needle) == [3])
        #expect(try Self.ids(store, needle, exact: true) == [3])
        #expect(try Self.ids(store, String(repeating: "牛", count: 20_000)) == [1, 4])
        #expect(try Self.ids(store, String(repeating: "牛", count: 100_000)) == [])
        var q = TodoQuery()
        q.search = needle
        q.limit = 50
        let page = try store.read { try $0.list(q) }
        #expect(page.todos.map(\.id) == [3] && page.total == 1)
        // The phrase the index is asked for: the first `phraseLimit` characters, quoted.
        q.search = String(repeating: "牛", count: 100_000)
        let plan = try store.read { try $0.plan(q) }
        guard case .text(let phrase)? = plan.values.first else {
            Issue.record("the index's phrase is not the first value: \(plan.values.prefix(1))")
            return
        }
        #expect(phrase == "\"" + String(repeating: "牛", count: SearchIndex.phraseLimit) + "\"")
    }

    @Test func theIndexFollowsEveryWrite() throws {
        let dir = TemporaryDirectory("search-writes")
        let store = try makeStore(dir)
        let a = try store.write { try $0.add(NewTodo(title: "クリーニング", notes: "ワイシャツ 3枚")) }
        let b = try store.write { try $0.add(NewTodo(title: "牛乳を買う", category: "買い物")) }
        // A key longer than migration 17's `SearchIndex.shortKey` characters.
        let long = String(repeating: "ﾛﾝｸﾞ note é😀 ", count: 60) + "最後のメモ"
        let c = try store.write { try $0.add(NewTodo(title: "長いメモ", notes: long)) }
        try Self.expectIndexRight(store, "add")
        #expect(
            try Self.ids(store, "最後のめも") == [c.id] && Self.ids(store, "ろんぐ") == [c.id]
                && Self.ids(store, "é😀") == [c.id])
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
        #expect(try store.read { try $0.connection.scalar("SELECT count(*) FROM search_terms") } == 0)
        _ = try store.write { try $0.importDocument(document) }
        try Self.expectIndexRight(store, "import")
        #expect(try Self.ids(store, "くりーにんぐ屋").count == 1)
        _ = try store.write { try $0.undo() }
        try Self.expectIndexRight(store, "undo import")
        _ = try store.write { try $0.redo() }
        try Self.expectIndexRight(store, "redo import")
        #expect(try Self.ids(store, "牛乳").count == 1)
    }

    /// FTS5 merges nothing inside a commit any more (migration 21: `automerge` 0, the crisis merge
    /// at 32): the store merges a step after each write, and a write indexing `optimizeAfter`
    /// todos or more leaves one segment. Through one write of that many adds and 300 single edits the index stays
    /// exactly the todos' trigrams and its segments stay few (`search_fts_idx` has a row per
    /// segment and leaf range; FTS5's crisis merge would only begin at 32 on one level).
    @Test func theIndexIsMergedAfterWritesNotInThem() throws {
        let dir = TemporaryDirectory("search-merge")
        let store = try makeStore(dir)
        let config = try store.read { tx in
            try tx.connection.rows("SELECT k, v FROM search_fts_config WHERE k IN ('automerge', 'crisismerge')") {
                "\($0.text(0))=\($0.int64(1))"
            }
        }
        #expect(Set(config) == ["automerge=0", "crisismerge=32"])
        try store.write { tx in
            for i in 0..<SearchIndex.optimizeAfter { _ = try tx.add(NewTodo(title: "買い物 \(i) レポート")) }
        }
        let segments = {
            try store.read { try $0.connection.scalar("SELECT count(DISTINCT segid) FROM search_fts_idx") }
        }
        #expect(try segments() == 1)
        let first = try #require(try store.read { try $0.list(TodoQuery()).todos.first })
        for i in 0..<300 {
            _ = try store.write { try $0.update(first.id, TodoPatch(title: .set("更新 \(i) クリーニング"))) }
        }
        store.queue.sync {} // the merge step queued after the last write
        try Self.expectIndexRight(store, "300 edits after a large write")
        #expect(try Self.ids(store, "299 くりーにんぐ") == [first.id])
        let left = try segments()
        #expect(left < 16, "segments: \(left)")
    }

    /// Text of three characters or more is read through the index, whatever it is; one or two
    /// characters through the trigrams starting with them, unless those are more than
    /// `prefixLimit` (then the table is read once, as before the index).
    @Test func plansUseTheIndex() throws {
        let dir = TemporaryDirectory("search-plan")
        let store = try makeStore(dir)
        let todos = SearchIndex.prefixLimit / 4 + 10
        _ = try store.write { tx in
            for i in 0..<todos {
                _ = try tx.add(NewTodo(title: "zz zz zz zz zz common \(i)" + (i == 7 ? " 洗濯物" : "")))
            }
        }
        try store.read { tx in
            for (text, indexed) in [
                ("洗濯", true), ("洗", true), ("zz", false), ("z", false), ("zz common 7 洗", true), ("common", true)
            ] {
                var q = TodoQuery()
                q.search = text
                q.limit = 50
                let plan = try tx.plan(q)
                for (sql, values) in [(plan.count, plan.values), (plan.page(forTotal: 1), plan.pageValues)] {
                    let steps = try tx.queryPlan(sql, values)
                    if indexed {
                        #expect(
                            steps.contains { $0.contains("search_fts") || $0.contains("search_terms") }
                                && !steps.contains { $0.hasPrefix("SCAN t") }, "\(text): \(steps)")
                    } else {
                        #expect(
                            steps.contains { $0.hasPrefix("SCAN t") } && !steps.contains { $0.contains("search_") },
                            "\(text): \(steps)")
                    }
                }
                // Three characters or more: the candidates are the matches, counted by id and status alone.
                if text == "common" {
                    #expect(
                        try tx.queryPlan(plan.count, plan.values).contains { $0.contains("COVERING INDEX todos_done") })
                }
                // Past `narrowLimit` matches the page walks the manual order, without the index.
                let walking = plan.page(forTotal: StoreTransaction.narrowLimit + 1)
                #expect(
                    walking == plan.walkingPage && !walking.contains("search_fts") && !walking.contains("search_terms"))
                _ = try tx.connection.rows(walking, plan.walkingValues) { $0.int64(0) }
            }
        }
        #expect(try Self.ids(store, "洗濯") == [8])
        #expect(try Self.ids(store, "zz common 7 洗") == [8])
        #expect(try Self.ids(store, "common 4099").count == 1)
        #expect(try Self.ids(store, "common").count == todos)
        var q = TodoQuery()
        q.search = "common"
        q.limit = 3
        let page = try store.read { try $0.list(q) }
        #expect(page.total == todos && page.todos.map(\.id) == [1, 2, 3])
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
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
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
            try tx.connection.rows(
                "SELECT coalesce(b_search_key, '-'), coalesce(a_search_key, '-') FROM change_rows ORDER BY n"
            ) { "\($0.text(0))|\($0.text(1))" }
        }
        #expect(images == ["-|くりーにんぐ\nわいしゃつ", "くりーにんぐ\nわいしゃつ|どらいくりーにんぐ\nわいしゃつ", "-|milk\n"])
        _ = try store.write { try $0.undo() } // the add of Milk
        _ = try store.write { try $0.undo() } // the edit: the key written back folds kana
        try Self.expectIndexRight(store, "undone")
        #expect(try Self.ids(store, "どらい") == [] && Self.ids(store, "くりーにんぐ") == [1] && Self.ids(store, "milk") == [])
        _ = try store.write { try $0.redo() }
        try Self.expectIndexRight(store, "redone")
        #expect(try Self.ids(store, "どらい") == [1])
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))
    }
}

extension SearchIndexTests {
    /// A database made by migration 17 (its bigram table and triggers, filled by them): migration
    /// 18 drops them and indexes every key as trigrams; a todo a `sqlite3` shell then adds is found
    /// at once (noted, not yet indexed) and indexed by todod's next write.
    @Test func aMigration17DatabaseIsIndexedAsTrigrams() throws {
        let dir = TemporaryDirectory("migrate18")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 17 }
        func add(_ title: String, _ key: String, _ rank: Int) -> String {
            "INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid) VALUES ('\(title)', '\(key)', '\(key)' || char(10), \(rank), 1, 1, 'old-\(rank)');"
        }
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            \(MigrationTests.triggers(without: ["alarms"]))
            \(add("クリーニング", "くりーにんぐ", 1))
            \(add("牛乳を買う", "牛乳を買う", 2))
            \(add("Pay invoice", "pay invoice", 3))
            UPDATE todos SET title = 'ドライクリーニング', title_key = 'ドライクリーニング', search_key = 'どらいくりーにんぐ' || char(10) WHERE uid = 'old-1';
            DELETE FROM todos WHERE uid = 'old-3';
            """)
        #expect(try ChildProcess.sqlite3(path, "SELECT count(*) FROM search_grams;") != "0")
        let store = try TodoStore(path: path)
        try Self.expectIndexRight(store, "migrated")
        let tables = try store.read {
            try $0.connection.rows("SELECT name FROM sqlite_master WHERE name LIKE 'search_%' ORDER BY name") {
                $0.text(0)
            }
        }
        #expect(
            !tables.contains("search_grams") && !tables.contains("search_positions") && tables.contains("search_fts"))
        #expect(try Self.ids(store, "くりーにんぐ") == [1] && Self.ids(store, "どら") == [1] && Self.ids(store, "牛乳") == [2])
        #expect(try Self.ids(store, "invoice") == [] && Self.ids(store, "いん") == [])
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))

        // Another writer, which does not index.
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(add("洗濯物", "洗濯物", 4))
            UPDATE todos SET search_key = '牛乳をかう' || char(10) WHERE id = 2;
            """)
        let reopened = try TodoStore(path: path)
        #expect(try reopened.read { try $0.connection.scalar("SELECT count(*) FROM search_pending") } == 2)
        #expect(
            try Self.ids(reopened, "洗濯物") == [4] && Self.ids(reopened, "洗") == [4] && Self.ids(reopened, "をかう") == [2])
        #expect(try Self.ids(reopened, "を買う") == [])
        var open = TodoQuery()
        open.search = "洗濯物"
        #expect(try reopened.read { try $0.list(open) }.total == 1) // counted through the keys while noted
        _ = try reopened.write { try $0.add(NewTodo(title: "電話する")) }
        #expect(try reopened.read { try $0.connection.scalar("SELECT count(*) FROM search_pending") } == 0)
        // The key todod indexed for 2 is the one the shell wrote (the title still says 買う).
        let held = try reopened.read {
            try $0.connection.rows("SELECT DISTINCT term FROM search_terms WHERE doc = 2") { $0.text(0) }
        }
        #expect(Set(held) == Self.grams("牛乳をかう\n"))
        #expect(try Self.ids(reopened, "洗濯物") == [4] && Self.ids(reopened, "電話") == [5])
    }
}
