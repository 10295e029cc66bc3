import TodoCore
import TodoSQLite

// The search index (migration 18): keeping `search_fts` up to date, and reading it for a search.

extension SearchIndex {
    /// What follows every key in `search_fts`, so that each character of the key starts a trigram.
    static let pad = "\n\n"

    /// Moves the todos noted in `search_pending` into `search_fts`: the key the index held goes
    /// out (a contentless FTS5 table deletes by the text it was given), the todo's key now goes
    /// in, unless the two are the same. Runs before every commit of the store, outside any
    /// savepoint, so FTS5 writes what a transaction indexed as one segment.
    static func flush(_ connection: Connection) throws(TodoError) {
        let pending = try connection.rows(
            """
            SELECT p.todo_id, p.old_key, t.search_key FROM search_pending p LEFT JOIN todos t ON t.id = p.todo_id
            """
        ) { ($0.int64(0), $0.optionalText(1), $0.optionalText(2)) }
        guard !pending.isEmpty else { return }
        for (id, old, key) in pending where old != key {
            if let old {
                try connection.run(
                    "INSERT INTO search_fts (search_fts, rowid, key) VALUES ('delete', ?, ?)",
                    [.integer(id), .text(old + pad)])
            }
            if let key {
                try connection.run(
                    "INSERT INTO search_fts (rowid, key) VALUES (?, ?)", [.integer(id), .text(key + pad)])
            }
        }
        try connection.run("DELETE FROM search_pending")
        // A large write (an import, its undo) leaves the index in many segments, which the merge
        // steps after it would take thousands of writes to bring together, and a level reaching
        // the crisis merge would merge them inside a later commit (180 ms at 100,000 todos): they
        // become one here, inside the write that made them (0.2 s at 100,000).
        if pending.count >= optimizeAfter {
            try connection.run("INSERT INTO search_fts (search_fts) VALUES ('optimize')")
        }
    }

    /// The number of todos indexed in one write from which the index is made one segment again.
    static let optimizeAfter = 1_000

    /// Index pages one merge step writes at most (`mergeStep`).
    static let mergePages = 16
    /// The writes between two merge steps: each adds a segment at most, and a level is merged
    /// once it holds 4.
    static let writesPerMergeStep = 4

    /// One step of merging the index's segments (migration 21 turned FTS5's own merge in the
    /// commit off): up to `mergePages` pages of a level holding 4 segments or more, nothing when
    /// none does. Its own transaction, run on the store queue after every `writesPerMergeStep`th
    /// write has answered. Not synced to disk on its own (`synchronous = NORMAL`): it changes no
    /// todo, and the next durable commit syncs the log with it.
    static func mergeStep(_ connection: Connection) throws(TodoError) {
        try connection.execute("PRAGMA synchronous = NORMAL")
        defer { try? connection.execute("PRAGMA synchronous = FULL") }
        try connection.transaction { () throws(TodoError) in
            try connection.run(
                "INSERT INTO search_fts (search_fts, rank) VALUES ('merge', ?)", [.integer(Int64(mergePages))])
        }
    }

    /// The candidates of a search: a subquery of `todo_id`s (its values go first in the
    /// statement), every todo that can match among them.
    struct Driver {
        var table: String
        var values: [SQLValue]
        /// Whether the candidates are exactly the todos whose key holds the text (an FTS5 phrase
        /// with nothing pending), so that a count need not read the keys.
        var exact = false
    }

    /// A search for one or two characters reads the trigrams that start with them; beyond this
    /// many (occurrences), reading the table once costs about as much.
    static let prefixLimit = 16_384

    /// The todos noted but not yet indexed, candidates of every search while there are any
    /// (only a writer that does not flush leaves some; `UNION` costs a temporary b-tree of the
    /// candidates, so it is left out when there are none).
    private static func pendingTodos(_ connection: Connection) throws(TodoError) -> String {
        try connection.scalar("SELECT EXISTS (SELECT 1 FROM search_pending)") == 0
            ? "" : " UNION SELECT todo_id FROM search_pending"
    }

    /// The most characters of a needle the index's phrase holds. FTS5 reads each trigram of a
    /// phrase with an iterator of its own: a needle of 20,000 characters held the store queue
    /// 45 s and 1.1 GB (docs/FUZZING.md, finding 3). The todos holding the needle's first
    /// `phraseLimit` characters are candidates enough; the needle's own term then decides.
    static let phraseLimit = 16

    /// The candidates for a folded search for `needle` (a `TextKey.search` key): for three
    /// characters or more, the todos whose key holds its trigrams in a row (an FTS5 phrase, of its
    /// first `phraseLimit` characters); for one or two, the todos with a trigram starting with
    /// them; nil when those are more than `prefixLimit`.
    static func driver(folded needle: String, _ connection: Connection) throws(TodoError) -> Driver? {
        let count = needle.unicodeScalars.count
        guard count > 0 else { return nil }
        if count >= 3 {
            var phrase = "\""
            for scalar in needle.unicodeScalars.prefix(phraseLimit) {
                if scalar == "\"" { phrase.unicodeScalars.append(scalar) }
                phrase.unicodeScalars.append(scalar)
            }
            phrase += "\""
            let pending = try pendingTodos(connection)
            return Driver(
                table: "(SELECT rowid AS todo_id FROM search_fts WHERE search_fts MATCH ?\(pending))",
                values: [.text(phrase)],
                exact: pending.isEmpty && count <= phraseLimit)
        }
        // Every trigram starting with the text: the text itself up to it followed by the largest
        // scalar as often as it lacks characters.
        let low = needle
        let high = needle + String(repeating: "\u{10FFFF}", count: 3 - count)
        let occurrences = try connection.scalar(
            "SELECT count(*) FROM (SELECT 1 FROM search_terms WHERE term >= ? AND term <= ? LIMIT \(prefixLimit + 1))",
            [.text(low), .text(high)])
        guard occurrences <= prefixLimit else { return nil }
        return Driver(
            table:
                "(SELECT DISTINCT doc AS todo_id FROM search_terms WHERE term >= ? AND term <= ?\(try pendingTodos(connection)))",
            values: [.text(low), .text(high)])
    }

    /// The candidates for an exact search for `text` (as written, trimmed), from the folded
    /// index: when `text` is plain (ASCII, kana, kanji: `TextKey.isPlain`, which folding maps one
    /// scalar to one and which compose with nothing before them), a todo holding it holds the
    /// folded key of all of it but its last character (a combining mark after it in the todo
    /// may compose with that one). Nil for other text: the search reads every todo.
    static func driver(exact text: String, _ connection: Connection) throws(TodoError) -> Driver? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > 1, scalars.allSatisfy({ $0.isASCII || TextKey.isPlain($0) }) else { return nil }
        var head = String.UnicodeScalarView()
        head.append(contentsOf: scalars.dropLast())
        // Candidates only: the exact term still decides, so a count must read the todos.
        var candidates = try driver(folded: TextKey.search(String(head)), connection)
        candidates?.exact = false
        return candidates
    }
}
