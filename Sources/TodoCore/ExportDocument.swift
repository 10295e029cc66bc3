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
        /// The uid of the todo this one is a subtask of (its own entry may come later, or the
        /// store may already hold it; otherwise the link waits for it).
        package var parent: String? = nil
        /// When the todo can be started.
        package var start: Instant? = nil
        /// Its alarms; nil when the document does not say (an older export: one at `remind`).
        package var alarms: [Alarm]? = nil

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

        /// The entry a todo exports as: every field an entry has (exhaustive: a new field must
        /// say here whether it exports).
        package init(_ todo: Todo) {
            self.init(title: todo.title, created: todo.created, updated: todo.updated)
            for field in TodoField.allCases {
                switch field {
                // The store's own: an import assigns them (`subtasks` follow from the entries' `parent`).
                case .id, .position, .revision, .subtasks: continue
                case .title, .created, .updated: continue
                case .uid: uid = todo.uid
                case .notes: notes = todo.notes
                case .category: category = todo.category
                case .due: due = todo.due
                case .remind: remind = todo.remind
                case .reminded: reminded = todo.reminded
                case .done: done = todo.done
                case .completed: completed = todo.completed
                case .priority: priority = todo.priority
                case .tags: tags = todo.tags
                case .zone: zone = todo.zone
                case .allDay: allDay = todo.allDay
                case .recurrence: recurrence = todo.recurrence
                // An entry names its parent by uid: the store's id means nothing elsewhere.
                case .parent: continue
                case .parentUid: parent = todo.parentUid
                case .start: start = todo.start
                case .alarms: alarms = todo.alarms
                }
            }
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

extension ExportDocument {
    /// About how many bytes the document takes, as JSON text on the wire or held in memory by
    /// the daemon (whichever is more): the one import-size estimate, used by todod to bound an
    /// import held in parts and by clients to cut an import into parts. Generous on purpose
    /// (text counted twice where escaping may double it).
    package var estimatedBytes: Int {
        var bytes = 0
        for name in categories { bytes += ExportDocument.estimatedBytes(category: name) }
        for todo in todos { bytes += todo.estimatedBytes }
        return bytes
    }

    /// About the bytes one category name takes (see `estimatedBytes`).
    package static func estimatedBytes(category name: String) -> Int { 32 + name.utf8.count * 2 }
}

extension ExportDocument.Entry {
    /// About the bytes one entry takes: its fixed members, then its text (see
    /// `ExportDocument.estimatedBytes`).
    package var estimatedBytes: Int {
        400 + title.utf8.count * 2 + (notes?.utf8.count ?? 0) * 2 + (ical?.utf8.count ?? 0) * 2
            + tags.reduce(0) { $0 + $1.utf8.count * 2 + 3 } + (category?.utf8.count ?? 0) * 2
            + (zone?.utf8.count ?? 0) + (uid?.utf8.count ?? 0) + (recurrence?.rule.utf8.count ?? 0)
    }
}
