import TodoCore
import TodoSQLite

/// Migration 17: an index of the search keys, so a text search reads only the todos that can match.
///
/// `search_grams` holds, for each todo, every pair of neighbouring characters of its
/// `search_key` (a bigram), and the key's last character alone (so that every character of the
/// key starts some gram): `(gram, todo_id)`, one b-tree (WITHOUT ROWID), each pair once. A search
/// for text of two characters or more reads the todos under one of its bigrams, one character the
/// grams that start with it (`SearchIndex`); each candidate is then checked against the key itself
/// (`instr`), so the index only ever narrows.
///
/// Triggers keep it in the transaction of every write to `todos` — add, edit, delete, undo,
/// redo, import, a sync's writes — whoever writes, since they are part of the schema. They are
/// plain SQL (`SearchIndex.gramsOf`). Migration 18 replaced all of it with an FTS5 index of trigrams.
let searchIndexMigration = Migration(
    id: 17, name: "search key index",
    sql: """
        CREATE TABLE search_positions (p INTEGER PRIMARY KEY);
        INSERT INTO search_positions (p) SELECT key + 1 FROM json_each('[' || substr(replace(hex(zeroblob(\(SearchIndex.shortKey))), '00', ',0'), 2) || ']');
        CREATE TABLE search_grams (
            gram    TEXT    NOT NULL,
            todo_id INTEGER NOT NULL,
            PRIMARY KEY (gram, todo_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO search_grams (gram, todo_id)
            SELECT gram, todo_id FROM \(SearchIndex.gramsOf("t.search_key", id: "t.id", from: "todos t"));
        CREATE TRIGGER search_grams_insert AFTER INSERT ON todos BEGIN
            INSERT OR IGNORE INTO search_grams (gram, todo_id) SELECT gram, NEW.id FROM \(SearchIndex.gramsOf("NEW.search_key"));
        END;
        CREATE TRIGGER search_grams_delete AFTER DELETE ON todos BEGIN
            DELETE FROM search_grams WHERE todo_id = OLD.id AND gram IN (SELECT gram FROM \(SearchIndex.gramsOf("OLD.search_key")));
        END;
        -- Only the grams that came or went are written.
        CREATE TRIGGER search_grams_update AFTER UPDATE OF id, search_key ON todos
            WHEN OLD.search_key IS NOT NEW.search_key OR OLD.id IS NOT NEW.id BEGIN
            DELETE FROM search_grams WHERE todo_id = OLD.id AND gram IN (
                SELECT gram FROM \(SearchIndex.gramsOf("OLD.search_key"))
                EXCEPT SELECT gram FROM \(SearchIndex.gramsOf("NEW.search_key")) WHERE OLD.id = NEW.id);
            INSERT OR IGNORE INTO search_grams (gram, todo_id) SELECT gram, NEW.id FROM \(SearchIndex.gramsOf("NEW.search_key"));
        END;
        """)

/// The search index: migration 17's grams (here), the FTS5 index of migration 18 and how a
/// search reads it (SearchIndex.swift).
enum SearchIndex {
    /// Keys up to this many characters are cut with `substr` on the text, which counts
    /// characters from the start each time (O(n²), cheap for a title); longer ones from their bytes.
    static let shortKey = 512

    /// A FROM term (a subquery) whose rows are the grams of the text `key` (`gram`), with
    /// repeats, each beside `id` (`todo_id`): for each character, it and the next one (the last
    /// character alone). `from`: the table `key` and `id` are read from, if any (in a trigger
    /// they are `NEW`'s). Triggers may use no common table expression: the positions of a short
    /// key are rows of `search_positions` (1...`shortKey`); a longer key's come from `json_each`
    /// over an array of as many zeros as the key has bytes, and its grams are cut from its UTF-8
    /// bytes, where a character starts at a byte that is not 10xxxxxx and its length is read from
    /// that byte, so it costs O(its length).
    static func gramsOf(_ key: String, id: String = "0", from: String? = nil) -> String {
        let table = from.map { "\($0), " } ?? ""
        let short =
            "SELECT substr(\(key), p, 2) AS gram, \(id) AS todo_id FROM \(table)search_positions "
            + "WHERE p <= length(\(key)) AND length(\(key)) <= \(shortKey)"
        // x1: the byte at position p, in hex; a character starts where it is below 80 or from C0.
        // l1, the UTF-8 length of the character at p, read from that byte; then the next one's.
        func length(_ hex: String) -> String {
            "CASE WHEN \(hex) < '80' THEN 1 WHEN \(hex) < 'E0' THEN 2 WHEN \(hex) < 'F0' THEN 3 ELSE 4 END"
        }
        let bytes = "CAST(\(key) AS BLOB)"
        let positions = "json_each('[' || substr(replace(hex(zeroblob(length(\(bytes)))), '00', ',0'), 2) || ']') j"
        let bytesAt =
            "(SELECT \(bytes) AS b, j.key + 1 AS p, hex(substr(\(bytes), j.key + 1, 1)) AS x1, \(id) AS todo_id FROM "
            + table + positions + " WHERE length(\(key)) > \(shortKey))"
        let starts = "(SELECT b, p, \(length("x1")) AS l1, todo_id FROM \(bytesAt) WHERE x1 < '80' OR x1 >= 'C0')"
        let long =
            "SELECT CAST(substr(b, p, l1 + \(length("hex(substr(b, p + l1, 1))"))) AS TEXT) AS gram, todo_id FROM \(starts)"
        return "(\(short) UNION ALL \(long))"
    }
}
