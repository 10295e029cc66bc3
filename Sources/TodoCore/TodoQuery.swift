/// What `todo.list` asks for: filters, a multi-key sort and a page.
package struct TodoQuery: Sendable, Equatable {
    package enum Status: String, Sendable, CaseIterable {
        case open, done, all
    }

    /// A key todos can be sorted by.
    package enum SortField: String, Sendable, CaseIterable {
        case id, title, created, updated, due, position, category, priority, start
    }

    /// One sort key with its direction. Todos without a due date (or category, or priority) sort after those
    /// with one in both directions; the last tie-breaker is always the manual position.
    package struct SortKey: Sendable, Equatable {
        package var field: SortField
        package var descending: Bool

        package init(_ field: SortField, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
    }

    /// How `search` compares: `folded` ignores case, width and katakana against hiragana (the
    /// default); `exact` finds the text as written, every character as it is.
    package enum SearchMode: String, Sendable, CaseIterable {
        case folded, exact
    }

    package var status: Status = .open
    /// Only todos in this category (by name, case-insensitively).
    package var category: String?
    /// Only todos without a category.
    package var uncategorized = false
    /// `category` takes in the categories below it too: `仕事` lists `仕事.会議` and `仕事/会議`
    /// (a dotted or slashed name is a sub-category, as Taskwarrior's projects).
    package var subcategories = false
    /// Only open todos whose due instant has passed.
    package var overdue = false
    /// Only todos due strictly before this instant.
    package var dueBefore: Instant?
    /// Only todos due at or after this instant.
    package var dueAfter: Instant?
    /// Only todos whose title or notes contain this text, compared as `searchMode` says.
    package var search: String?
    package var searchMode: SearchMode = .folded
    /// Only todos carrying every one of these tags (case-insensitively).
    package var tags: [String] = []
    /// Only todos of this priority.
    package var priority: TodoPriority?
    /// Only recurring todos (true) or only one-off todos (false).
    package var recurring: Bool?
    /// Only the subtasks of the todo with this id (one level).
    package var parent: Int64?
    /// Only todos that start strictly before this instant, and at or after `startAfter`.
    package var startBefore: Instant?
    package var startAfter: Instant?
    /// Only todos whose start has come (none, or at or before now).
    package var ready = false
    /// Subtasks under their parents (in manual order among their siblings), with the parents of
    /// matching subtasks as context; the page is cut from that order.
    package var tree = false
    /// Sort keys in order of precedence; empty means manual order.
    package var sort: [SortKey] = []
    package var limit: Int?
    package var offset = 0
    /// A keyset window: only the todos after this todo in the listing's order (or, `before`,
    /// the `limit` todos just before it, still in the listing's order). The todo is found by id
    /// and its sort values place it; it need not match the filters. `Seek.end`: the last `limit`
    /// todos of the listing, read from its end. Not with `offset` or `tree`.
    package var seek: Seek?
    /// With `seek`: count the todos ahead of the page too (`TodoPage.offset`).
    package var withOffset = false

    /// Where a keyset window starts: after, or before, the todo with this id, or before the end
    /// of the listing.
    package struct Seek: Sendable, Equatable {
        /// The anchor todo; nil for the end of the listing (`end`).
        package var id: Int64?
        package var before: Bool

        package init(after id: Int64) {
            self.id = id
            before = false
        }

        package init(before id: Int64) {
            self.id = id
            before = true
        }

        private init(fromEnd: Bool) {
            id = nil
            before = fromEnd
        }

        /// The last todos of the listing (`todo.list` `fromEnd`): its order walked backwards from
        /// the end, as cheap as its first page.
        package static let end = Seek(fromEnd: true)
        /// The first todos of the listing, read as a window: the store's own choice for a first
        /// page whose order a single sorted statement would sort (not on the wire).
        package static let start = Seek(fromEnd: false)
    }

    package init() {}

    /// The largest page a single request may ask for.
    package static let maxLimit = 100_000
}

/// A page of todos and the number of todos matching the filters.
package struct TodoPage: Sendable, Equatable {
    package var todos: [Todo]
    package var total: Int
    /// For a keyset window asked `withOffset`: where the page's first todo is in the listing
    /// (0-based; the count of the todos ahead of it).
    package var offset: Int?

    package init(todos: [Todo], total: Int, offset: Int? = nil) {
        self.todos = todos
        self.total = total
        self.offset = offset
    }
}
