import TodoCore
import TodoSQLite

// A listing with sections — by category, then by another key, as `todoctl ui` asks with sections
// on — read one category at a time, so no window sorts a category of 90,000 todos: a large
// category's todos are walked in the order's index (which ends with the category: another
// category's todo is passed over in the index, its row never read), a small one's are sorted.
// A listing of one category (`--category`, the UI's category pane) is read as its one section.

extension StoreTransaction {
    /// The categories of a listing with sections and no filter but the status (or of one
    /// category), in order, with the kept counts that say how many todos each holds, so a window
    /// knows which categories it reaches and how to read each (`ListSeek.swift` reads them).
    struct Sections {
        /// Every category, by rank (then id), with its open and done todos.
        var categories: [(id: Int64, rank: Int64, open: Int, done: Int)]
        /// The todos without a category.
        var uncategorized: (open: Int, done: Int)
        /// How a large category's todos are walked in the order after the category: the index
        /// that keeps it (`INDEXED BY todos_done_title`), or the table itself for ids.
        var walk: String

        /// Up to this many todos, a category's todos are sorted (read through `todos_category`);
        /// beyond, walking the order's index meets them often enough to fill a page sooner.
        static let sortedLimit = 1000

        /// One section: a category, or the todos without one.
        enum Scope {
            case uncategorized
            case category(Int64)
        }

        /// The sections of a listing sorted by `sort` (the category first, then at most one
        /// key; or, for one category, `only`, one key), or nil when another order follows, which no
        /// index keeps.
        init?(_ sort: [TodoQuery.SortKey], only: Int64? = nil, _ connection: Connection) throws(TodoError) {
            let byCategory = sort.first?.field == .category
            guard byCategory ? sort.count <= 2 : only != nil && sort.count == 1 else { return nil }
            switch (byCategory ? sort.dropFirst().first : sort.first)?.field {
            case nil, .position?: walk = "INDEXED BY todos_category"
            case .id?: walk = "NOT INDEXED"
            case .title?: walk = "INDEXED BY todos_done_title"
            case .created?: walk = "INDEXED BY todos_done_created"
            case .updated?: walk = "INDEXED BY todos_done_updated"
            case .due?: walk = "INDEXED BY todos_done_due"
            case .start?: walk = "INDEXED BY todos_done_start"
            case .priority?: walk = "INDEXED BY todos_done_priority"
            case .category?: return nil
            }
            categories = try connection.rows(
                "SELECT id, rank, open_count, done_count FROM categories \(only == nil ? "" : "WHERE id = ? ")ORDER BY rank, id",
                only.map { [.integer($0)] } ?? []
            ) { ($0.int64(0), $0.int64(1), $0.int(2), $0.int(3)) }
            guard only == nil else {
                uncategorized = (0, 0)
                return
            }
            let all = try connection.rows("SELECT n FROM todo_counts ORDER BY done") { $0.int(0) }
            uncategorized = (
                (all.first ?? 0) - categories.reduce(0) { $0 + $1.open },
                (all.dropFirst().first ?? 0) - categories.reduce(0) { $0 + $1.done }
            )
        }

        /// How many todos of `scope` have status `done` (nil: either).
        func count(_ scope: Scope, done: Bool?) -> Int {
            let counts: (open: Int, done: Int)
            switch scope {
            case .uncategorized: counts = uncategorized
            case .category(let id):
                guard let c = categories.first(where: { $0.id == id }) else { return 0 }
                counts = (c.open, c.done)
            }
            return done.map { $0 ? counts.done : counts.open } ?? counts.open + counts.done
        }

        /// The table of a statement reading `count` todos of one section in order: sorted, or walked.
        /// `counting`: only counted, which by id reads `todos_category` alone (its entries end with
        /// the id) rather than the table's rows.
        func table(forCount count: Int, counting: Bool = false) -> String {
            let sorted = count <= Self.sortedLimit || counting && walk == "NOT INDEXED"
            return "todos t " + (sorted ? "INDEXED BY todos_category" : walk)
        }

        /// The categories beyond rank `beyond` (all without it) in the direction read
        /// (`descending`: by rank downwards), with the todos of status `done` each holds.
        func categories(beyond: Int64?, descending: Bool, done: Bool?) -> [(id: Int64, count: Int)] {
            let ordered = descending ? categories.reversed() : categories
            return ordered.compactMap { c in
                if let beyond, descending ? c.rank >= beyond : c.rank <= beyond { return nil }
                let count = count(.category(c.id), done: done)
                return count > 0 ? (c.id, count) : nil
            }
        }
    }
}
