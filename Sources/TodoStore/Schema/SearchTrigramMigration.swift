import TodoCore
import TodoSQLite

/// Migration 18: the search index becomes an FTS5 table of trigrams (`search_fts`), written by
/// the store once per transaction, in place of migration 17's b-tree of bigrams kept by triggers
/// (which cost an add about as much as the rest of the add did).
///
/// `search_fts` is contentless (the keys stay in `todos`) and holds, for each todo, every run of
/// three characters of `search_key` followed by two line breaks (so that every character of the
/// key starts a trigram: a search for one or two characters reads the trigrams starting with it
/// through `search_terms`, an `fts5vocab` view of it). Its tokenizer folds nothing
/// (`case_sensitive 1`): the key is folded already (`TextKey.search`).
///
/// Triggers only note which todos' keys changed, in `search_pending` (the todo, and the key the
/// index holds for it, NULL when it holds none). `SearchIndex.flush` moves those into
/// `search_fts` before every commit of the store (FTS5 writes in a trigger would flush its
/// buffer at each statement, one index segment per add). A writer that does not flush (the
/// `sqlite3` shell) leaves them noted: a search reads the noted todos beside the index's, and the
/// next write of todod indexes them.
let searchTrigramMigration = Migration(
    id: 18, name: "search index as FTS5 trigrams",
    sql: """
        DROP TRIGGER search_grams_insert;
        DROP TRIGGER search_grams_delete;
        DROP TRIGGER search_grams_update;
        DROP TABLE search_grams;
        DROP TABLE search_positions;
        CREATE VIRTUAL TABLE search_fts USING fts5(key, content = '', tokenize = 'trigram case_sensitive 1', columnsize = 0);
        CREATE VIRTUAL TABLE search_terms USING fts5vocab(search_fts, 'instance');
        INSERT INTO search_fts (rowid, key) SELECT id, search_key || char(10, 10) FROM todos;
        CREATE TABLE search_pending (todo_id INTEGER PRIMARY KEY, old_key TEXT);
        CREATE TRIGGER search_pending_insert AFTER INSERT ON todos BEGIN
            INSERT OR IGNORE INTO search_pending (todo_id, old_key) VALUES (NEW.id, NULL);
        END;
        CREATE TRIGGER search_pending_delete AFTER DELETE ON todos BEGIN
            INSERT OR IGNORE INTO search_pending (todo_id, old_key) VALUES (OLD.id, OLD.search_key);
        END;
        CREATE TRIGGER search_pending_update AFTER UPDATE OF id, search_key ON todos
            WHEN OLD.search_key IS NOT NEW.search_key OR OLD.id IS NOT NEW.id BEGIN
            INSERT OR IGNORE INTO search_pending (todo_id, old_key) VALUES (OLD.id, OLD.search_key);
            INSERT OR IGNORE INTO search_pending (todo_id, old_key) VALUES (NEW.id, NULL);
        END;
        """)
