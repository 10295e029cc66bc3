import Foundation
import TodoCore
import TodoSQLite
import TodoStore

/// The search section: `todo.list` with a search at `count` todos (store level, first page of 50
/// in manual order, total counted), Japanese and ASCII text, through the search index (migration
/// 18) and through the plan before it (every todo's key read in table order, the statements the
/// store ran before the index, on the same file); and what keeping the index costs an add.
enum SearchBench {
    static let words = [
        "クリーニング", "牛乳を買う", "洗濯物", "請求書を払う", "歯医者の予約", "ミーティング", "レポートを書く", "電話する",
        "write report", "call mom", "buy milk", "pay invoice", "dentist", "team meeting", "review PR", "backup"
    ]

    static func run(count: Int, samples: Int) throws {
        print("== search (\(count) todos: Japanese and ASCII titles, first page of 50 and the total)")
        let dir = NSTemporaryDirectory() + "todobench-search-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/todos.db"
        let store = try TodoStore(path: path)
        let start = Measure.now()
        for batch in stride(from: 0, to: count, by: 1000) {
            try store.write { tx in
                for i in batch..<min(batch + 1000, count) {
                    let a = words[i % words.count]
                    let b = words[(i / words.count) % words.count]
                    _ = try tx.add(NewTodo(title: "\(a) \(i) \(b)", notes: i % 10 == 0 ? "メモ note \(i)" : nil))
                }
            }
        }
        let bulk = Measure.now() - start
        report(
            "bulk insert (1000 per transaction)", [bulk],
            extra: String(format: "%.1f µs a todo", bulk / Double(count) * 1e6))
        let queries = ["くりーにんぐ", "牛乳", "洗", "ﾐｰﾃｨﾝｸﾞ", "洗濯物 4242", "report", "invoice 77", "PR", "zzz"]
        var indexed: [String: [Double]] = [:]
        for text in queries {
            var q = TodoQuery()
            q.search = text
            q.limit = 50
            indexed[text] = try Measure.samples(samples) { _ = try store.read { try $0.list(q) } }
        }
        store.close()
        // The plan before the index: count by reading the table in table order, then the page the
        // same way (up to 4,096 matches) or by walking the manual order.
        let connection = try Connection(path: path, readOnly: true)
        defer { connection.close() }
        let filter = "WHERE t.done = 0 AND instr(t.search_key, ?) > 0"
        for text in queries {
            let needle = TodoStore.foldedSearchText(text)
            let total = try connection.scalar("SELECT COUNT(*) FROM todos t NOT INDEXED \(filter)", [.text(needle)])
            let scan = try Measure.samples(samples) {
                let n = try connection.scalar("SELECT COUNT(*) FROM todos t NOT INDEXED \(filter)", [.text(needle)])
                let table = n <= 4096 ? "todos t NOT INDEXED" : "todos t"
                _ = try connection.rows(
                    "SELECT t.* FROM \(table) LEFT JOIN categories c ON c.id = t.category_id \(filter) ORDER BY t.rank LIMIT 50",
                    [.text(needle)]
                ) { $0.int64(0) }
            }
            let i = Stats(indexed[text] ?? [])
            let s = Stats(scan)
            let name = "search \"\(text)\" (\(total) match)"
            print(
                name.padding(toLength: 44, withPad: " ", startingAt: 0)
                    + "index p50 \(formatSeconds(i.median)) p99 \(formatSeconds(i.percentile(99)))   "
                    + "before p50 \(formatSeconds(s.median)) p99 \(formatSeconds(s.percentile(99)))  n=\(samples)")
            Summary.add(
                "search \"\(text)\" at \(count), p50 (before)",
                value: "\(formatSeconds(i.median)) (\(formatSeconds(s.median)))")
        }
        // What the index costs an add: the same adds into a store without its triggers (so nothing
        // is noted, and nothing flushed).
        var perAdd: [String: [Double]] = [:]
        for withIndex in [true, false, true, false] {
            let file = dir + "/adds-\(withIndex)-\(perAdd[withIndex ? "with" : "without"]?.count ?? 0).db"
            var s = try TodoStore(path: file)
            if !withIndex {
                s.close()
                let c = try Connection(path: file)
                try c.execute(
                    "DROP TRIGGER search_pending_insert; DROP TRIGGER search_pending_update; DROP TRIGGER search_pending_delete;"
                )
                c.close()
                s = try TodoStore(path: file)
            }
            let adds = 10_000
            let t0 = Measure.now()
            for batch in stride(from: 0, to: adds, by: 1000) {
                try s.write { tx in
                    for i in batch..<batch + 1000 { _ = try tx.add(NewTodo(title: "\(words[i % words.count]) \(i)")) }
                }
            }
            perAdd[withIndex ? "with" : "without", default: []].append((Measure.now() - t0) / Double(adds))
            s.close()
        }
        for key in ["without", "with"] {
            report("add, 1000 per transaction, per todo, \(key) the index", perAdd[key] ?? [])
        }
    }
}
