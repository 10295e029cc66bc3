/// The whole store as `store.export` writes it and `store.import` reads it back.
///
/// Ids are not part of it: importing adds every todo as a new one (new ids, appended to the
/// manual order in the exported order) and reuses categories whose names already exist. Each
/// todo's `uid` is: an import keeps it, and refuses a uid the store already has.
public struct ExportDocument: Sendable, Equatable {
    /// The format identifier written into every export.
    public static let format = "todod-export"
    /// The version of the format this build writes and reads.
    public static let version = 1

    public struct Entry: Sendable, Equatable {
        /// The todo's uid; nil when the document has none (the import makes one).
        public var uid: String?
        public var title: String
        public var notes: String?
        public var category: String?
        public var due: Instant?
        public var remind: Instant?
        public var reminded: Instant?
        public var done: Bool
        public var completed: Instant?
        public var created: Instant
        public var updated: Instant
        public var priority: TodoPriority?
        public var tags: [String]
        public var zone: String?
        public var allDay: Bool
        public var recurrence: TodoRecurrence?
        /// What an iCalendar import kept that todod does not model (unknown properties,
        /// parameters and components of the VTODO, as unfolded content lines joined by `\n`),
        /// written back into the VTODO by an iCalendar export (docs/ICALENDAR.md).
        public var ical: String?
        /// A condition for `store.import` (a sync client's, never written by an export): apply
        /// this entry only while the store's todo with this uid has this `revision`, or, when 0,
        /// only while the store has no todo with this uid. Otherwise the entry is skipped and its
        /// uid listed as stale, so a todo changed meanwhile is never overwritten.
        public var ifRevision: Int64?
        /// With `ifRevision`: delete the todo instead of updating it.
        public var deleted: Bool = false
        /// The uid of the todo this one is a subtask of (its own entry may come later, or the
        /// store may already hold it; otherwise the link waits for it).
        public var parent: String? = nil
        /// When the todo can be started.
        public var start: Instant? = nil

        public init(
            title: String, notes: String? = nil, category: String? = nil, due: Instant? = nil,
            remind: Instant? = nil, reminded: Instant? = nil, done: Bool = false,
            completed: Instant? = nil, created: Instant, updated: Instant, uid: String? = nil,
            priority: TodoPriority? = nil, tags: [String] = [], zone: String? = nil, allDay: Bool = false,
            recurrence: TodoRecurrence? = nil, ical: String? = nil
        ) {
            self.ical = ical
            self.uid = uid
            self.title = title
            self.notes = notes
            self.category = category
            self.due = due
            self.remind = remind
            self.reminded = reminded
            self.done = done
            self.completed = completed
            self.created = created
            self.updated = updated
            self.priority = priority
            self.tags = tags
            self.zone = zone
            self.allDay = allDay
            self.recurrence = recurrence
        }

        /// The entry a todo exports as.
        public init(_ todo: Todo) {
            self.init(
                title: todo.title, notes: todo.notes, category: todo.category, due: todo.due,
                remind: todo.remind, reminded: todo.reminded, done: todo.done,
                completed: todo.completed, created: todo.created, updated: todo.updated, uid: todo.uid,
                priority: todo.priority, tags: todo.tags, zone: todo.zone, allDay: todo.allDay,
                recurrence: todo.recurrence)
            start = todo.start
            parent = todo.parentUid
        }
    }

    /// Category names in category order.
    public var categories: [String]
    /// Todos in manual order.
    public var todos: [Entry]
    public var exported: Instant

    public init(categories: [String], todos: [Entry], exported: Instant) {
        self.categories = categories
        self.todos = todos
        self.exported = exported
    }
}

/// What an import added.
public struct ImportCounts: Sendable, Equatable {
    /// The todos the document held.
    public var todos: Int
    /// The categories the import made.
    public var categories: Int
    /// Of `todos`: added as new, updated (a known uid, newer in the document), left as they were.
    public var added: Int
    public var updated: Int
    public var unchanged: Int
    /// Of `todos`, when entries carried `ifRevision`: the todos deleted (`deleted` entries), and
    /// the uids of the entries skipped because the todo's revision was no longer the one given.
    public var deleted: Int = 0
    public var stale: [String] = []
    /// Whether any entry carried `ifRevision` (the answer then lists `deleted` and `stale`).
    public var conditional = false

    public init(todos: Int, categories: Int, added: Int? = nil, updated: Int = 0, unchanged: Int = 0) {
        self.todos = todos
        self.categories = categories
        self.added = added ?? todos
        self.updated = updated
        self.unchanged = unchanged
    }
}

extension ExportDocument {
    /// About how many bytes the document takes, as JSON text on the wire or held in memory by
    /// the daemon (whichever is more): the one import-size estimate, used by todod to bound an
    /// import held in parts and by clients to cut an import into parts. Generous on purpose
    /// (text counted twice where escaping may double it).
    public var estimatedBytes: Int {
        var bytes = 0
        for name in categories { bytes += ExportDocument.estimatedBytes(category: name) }
        for todo in todos { bytes += todo.estimatedBytes }
        return bytes
    }

    /// About the bytes one category name takes (see `estimatedBytes`).
    public static func estimatedBytes(category name: String) -> Int { 32 + name.utf8.count * 2 }
}

extension ExportDocument.Entry {
    /// About the bytes one entry takes: its fixed members, then its text (see
    /// `ExportDocument.estimatedBytes`).
    public var estimatedBytes: Int {
        400 + title.utf8.count * 2 + (notes?.utf8.count ?? 0) * 2 + (ical?.utf8.count ?? 0) * 2
            + tags.reduce(0) { $0 + $1.utf8.count * 2 + 3 } + (category?.utf8.count ?? 0) * 2
            + (zone?.utf8.count ?? 0) + (uid?.utf8.count ?? 0) + (recurrence?.rule.utf8.count ?? 0)
    }
}
