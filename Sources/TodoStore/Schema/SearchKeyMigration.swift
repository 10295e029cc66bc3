import TodoCore
import TodoSQLite

/// Migration 16: `todos.search_key` folds katakana into hiragana (`TextKey.kanaFolded`), so the
/// key of every todo is computed again — in Swift, the folding is Swift code — and so is every
/// key of the change log's row images (`change_rows.b_search_key`, `a_search_key`): undo and redo
/// write those images back, and an image with the old key would hide the todo from a kana search.
/// Keys of the same text keep their byte length (katakana and hiragana are 3 bytes each in UTF-8),
/// so the log's kept sizes (`changes.bytes`, migration 12) stay right.
let searchKeyKanaMigration = Migration(
    id: 16, name: "search keys fold katakana into hiragana", sql: "",
    rewrite: { connection throws(TodoError) in
        let todos = try connection.rows("SELECT id, title, notes, search_key FROM todos") {
            ($0.int64(0), $0.text(1), $0.optionalText(2), $0.text(3))
        }
        for (id, title, notes, old) in todos {
            let key = TextKey.searchKey(title: title, notes: notes)
            if key != old {
                try connection.run("UPDATE todos SET search_key = ? WHERE id = ?", [.text(key), .integer(id)])
            }
        }
        for image in ["b", "a"] {
            let rows = try connection.rows(
                """
                SELECT n, \(image)_title, \(image)_notes, \(image)_search_key FROM change_rows
                WHERE tbl = 'todo' AND has_\(image == "b" ? "before" : "after") = 1 AND \(image)_title IS NOT NULL
                """
            ) { ($0.int64(0), $0.text(1), $0.optionalText(2), $0.optionalText(3)) }
            for (n, title, notes, old) in rows {
                let key = TextKey.searchKey(title: title, notes: notes)
                if key != old {
                    try connection.run(
                        "UPDATE change_rows SET \(image)_search_key = ? WHERE n = ?", [.text(key), .integer(n)])
                }
            }
        }
    })
