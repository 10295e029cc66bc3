/// The whole store as `store.export` writes it and `store.import` reads it back.
///
/// Ids are not part of it: importing adds every todo as a new one (new ids, appended to the
/// manual order in the exported order) and reuses categories whose names already exist. Each
/// todo's `uid` is: an import keeps it, and refuses a uid the store already has.
package struct ExportDocument: Sendable, Equatable {
    /// The format identifier written into every export.
    package static let format = "todod-export"
    /// The version of the format this build writes and reads.
    package static let version = 1

    package struct Entry: Sendable, Equatable {
        /// The todo's uid; nil when the document has none (the import makes one).
        package var uid: String?
        package var title: String
        package var notes: String?
        package var category: String?
        package var due: Instant?
        package var remind: Instant?
        package var reminded: Instant?
        package var done: Bool
        package var completed: Instant?
        package var created: Instant
        package var updated: Instant
        package var priority: TodoPriority?
        package var tags: [String]
        package var zone: String?
        package var allDay: Bool
        package var recurrence: TodoRecurrence?
        /// What an iCalendar import kept that todod does not model (unknown properties,
        /// parameters and components of the VTODO, as unfolded content lines joined by `\n`),
        /// written back into the VTODO by an iCalendar export (docs/ICALENDAR.md).
        package var ical: String?
        /// A condition for `store.import` (a sync client's, never written by an export): apply
        /// this entry only while the store's todo with this uid has this `revision`, or, when 0,
        /// only while the store has no todo with this uid. Otherwise the entry is skipped and its
        /// uid listed as stale, so a todo changed meanwhile is never overwritten.
        package var ifRevision: Int64?
        /// With `ifRevision`: delete the todo instead of updating it.
        package var deleted: Bool = false

        package init(
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
        package init(_ todo: Todo) {
            self.init(
                title: todo.title, notes: todo.notes, category: todo.category, due: todo.due,
                remind: todo.remind, reminded: todo.reminded, done: todo.done,
                completed: todo.completed, created: todo.created, updated: todo.updated, uid: todo.uid,
                priority: todo.priority, tags: todo.tags, zone: todo.zone, allDay: todo.allDay,
                recurrence: todo.recurrence)
        }
    }

    /// Category names in category order.
    package var categories: [String]
    /// Todos in manual order.
    package var todos: [Entry]
    package var exported: Instant

    package init(categories: [String], todos: [Entry], exported: Instant) {
        self.categories = categories
        self.todos = todos
        self.exported = exported
    }
}

/// What an import added.
package struct ImportCounts: Sendable, Equatable {
    /// The todos the document held.
    package var todos: Int
    /// The categories the import made.
    package var categories: Int
    /// Of `todos`: added as new, updated (a known uid, newer in the document), left as they were.
    package var added: Int
    package var updated: Int
    package var unchanged: Int
    /// Of `todos`, when entries carried `ifRevision`: the todos deleted (`deleted` entries), and
    /// the uids of the entries skipped because the todo's revision was no longer the one given.
    package var deleted: Int = 0
    package var stale: [String] = []
    /// Whether any entry carried `ifRevision` (the answer then lists `deleted` and `stale`).
    package var conditional = false

    package init(todos: Int, categories: Int, added: Int? = nil, updated: Int = 0, unchanged: Int = 0) {
        self.todos = todos
        self.categories = categories
        self.added = added ?? todos
        self.updated = updated
        self.unchanged = unchanged
    }
}
