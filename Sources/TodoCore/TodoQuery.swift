/// What `todo.list` asks for: filters, a multi-key sort and a page.
public struct TodoQuery: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case open, done, all
    }

    /// A key todos can be sorted by.
    public enum SortField: String, Sendable, CaseIterable {
        case id, title, created, updated, due, position, category, priority, start
    }

    /// One sort key with its direction. Todos without a due date (or category, or priority) sort after those
    /// with one in both directions; the last tie-breaker is always the manual position.
    public struct SortKey: Sendable, Equatable {
        public var field: SortField
        public var descending: Bool

        public init(_ field: SortField, descending: Bool = false) {
            self.field = field
            self.descending = descending
        }
    }

    public var status: Status = .open
    /// Only todos in this category (by name, case-insensitively).
    public var category: String?
    /// Only todos without a category.
    public var uncategorized = false
    /// Only open todos whose due instant has passed.
    public var overdue = false
    /// Only todos due strictly before this instant.
    public var dueBefore: Instant?
    /// Only todos due at or after this instant.
    public var dueAfter: Instant?
    /// Only todos whose title or notes contain this text, ignoring case and width.
    public var search: String?
    /// Only todos carrying every one of these tags (case-insensitively).
    public var tags: [String] = []
    /// Only todos of this priority.
    public var priority: TodoPriority?
    /// Only recurring todos (true) or only one-off todos (false).
    public var recurring: Bool?
    /// Only the subtasks of the todo with this id (one level).
    public var parent: Int64?
    /// Only todos that start strictly before this instant, and at or after `startAfter`.
    public var startBefore: Instant?
    public var startAfter: Instant?
    /// Only todos whose start has come (none, or at or before now).
    public var ready = false
    /// Subtasks under their parents (in manual order among their siblings), with the parents of
    /// matching subtasks as context; the page is cut from that order.
    public var tree = false
    /// Sort keys in order of precedence; empty means manual order.
    public var sort: [SortKey] = []
    public var limit: Int?
    public var offset = 0

    public init() {}

    /// The largest page a single request may ask for.
    public static let maxLimit = 100_000
}

/// A page of todos and the number of todos matching the filters.
public struct TodoPage: Sendable, Equatable {
    public var todos: [Todo]
    public var total: Int

    public init(todos: [Todo], total: Int) {
        self.todos = todos
        self.total = total
    }
}
