import TodoCore
import TodoSQLite

// A todo's fields (`TodoField`) as the store keeps them: the columns of `todos` each is stored
// in, the columns a read selects (each read by its declared index, never a counted position),
// and the value each column takes for a todo. The statements that write a todo (add, edit,
// import), the change log's row images and the reads that fill a `Todo` are all made from
// these, so a new field is a new case in each of the switches below, where the compiler asks.

/// A column of `todos`, in the order the change log's row images name them (`ChangeLog.todoColumns`).
enum TodoColumn: String, CaseIterable {
    case id, title, title_key, notes, search_key, category_id, due, remind, reminded, done
    case completed, rank, created, updated, uid, priority, tags, zone, all_day, due_end
    case recur_rule, recur_from, revision, ical_extra, parent_id, parent_uid, start, recur_set, alarms

    /// The field the column stores, nil for `ical_extra` (what an iCalendar import kept, not a
    /// field of the todo). A column derived from fields (a key, `due_end`) names the first.
    var field: TodoField? {
        switch self {
        case .id: .id
        case .title, .title_key, .search_key: .title
        case .notes: .notes
        case .category_id: .category
        case .due, .due_end: .due
        case .remind: .remind
        case .reminded: .reminded
        case .done: .done
        case .completed: .completed
        case .rank: .position
        case .created: .created
        case .updated: .updated
        case .uid: .uid
        case .priority: .priority
        case .tags: .tags
        case .zone: .zone
        case .all_day: .allDay
        case .recur_rule, .recur_from, .recur_set: .recurrence
        case .revision: .revision
        case .ical_extra: nil
        case .parent_id: .parent
        case .parent_uid: .parentUid
        case .start: .start
        case .alarms: .alarms
        }
    }

    /// Made from other columns when written (a sort or search key, the end of a due day): never
    /// read into a todo.
    var isDerived: Bool {
        switch self {
        case .title_key, .search_key, .due_end: true
        case .id, .title, .notes, .category_id, .due, .remind, .reminded, .done, .completed, .rank, .created, .updated,
            .uid, .priority, .tags, .zone, .all_day, .recur_rule, .recur_from, .revision, .ical_extra, .parent_id,
            .parent_uid, .start, .recur_set, .alarms:
            false
        }
    }
}

extension TodoField {
    /// The columns of `todos` that store the field (none for `subtasks`, the inverse of the
    /// other todos' `parent`). Exhaustive: a new field must say here where it is stored, and
    /// `TodoColumn.field` must say the same (FieldDeclarationTests).
    var columns: [TodoColumn] {
        switch self {
        case .id: [.id]
        case .uid: [.uid]
        case .title: [.title, .title_key, .search_key]
        case .notes: [.notes]
        case .category: [.category_id]
        case .due: [.due, .due_end]
        case .remind: [.remind]
        case .reminded: [.reminded]
        case .done: [.done]
        case .completed: [.completed]
        case .position: [.rank]
        case .created: [.created]
        case .updated: [.updated]
        case .priority: [.priority]
        case .tags: [.tags]
        case .zone: [.zone]
        case .allDay: [.all_day]
        case .recurrence: [.recur_rule, .recur_from, .recur_set]
        case .revision: [.revision]
        case .parent: [.parent_id]
        case .subtasks: []
        case .parentUid: [.parent_uid]
        case .start: [.start]
        case .alarms: [.alarms]
        }
    }
}

/// The columns every todo read selects, each read at its declared index (`rawValue`) by
/// `TodoRow.todo`. Three more columns follow them in `todoWithPositionByID`: `extraPosition`,
/// `extraHasSubtasks`, `extraParentUid`.
enum TodoSelect: Int32, CaseIterable {
    case id, title, notes, categoryName, due, remind, reminded, done, completed, rank
    case created, updated, uid, priority, tags, zone, allDay, recurRule, recurFrom, revision
    case parentID, parentUid, start, recurSet, alarms

    /// The stored column it reads (`categoryName` reads the category's name through `category_id`).
    var column: TodoColumn {
        switch self {
        case .id: .id
        case .title: .title
        case .notes: .notes
        case .categoryName: .category_id
        case .due: .due
        case .remind: .remind
        case .reminded: .reminded
        case .done: .done
        case .completed: .completed
        case .rank: .rank
        case .created: .created
        case .updated: .updated
        case .uid: .uid
        case .priority: .priority
        case .tags: .tags
        case .zone: .zone
        case .allDay: .all_day
        case .recurRule: .recur_rule
        case .recurFrom: .recur_from
        case .revision: .revision
        case .parentID: .parent_id
        case .parentUid: .parent_uid
        case .start: .start
        case .recurSet: .recur_set
        case .alarms: .alarms
        }
    }

    /// The select list, `t.id, t.title, …`, with `category` for the category's name (`c.name`
    /// through `categoryJoin`, or `t.category_id` for a read that names it from `ReadHints`)
    /// and each other column as `column(name)` makes it.
    static func list(category: String = "c.name", column: (String) -> String = { "t." + $0 }) -> String {
        allCases.map { $0 == .categoryName ? category : column($0.column.rawValue) }.joined(separator: ", ")
    }

    /// The index of the first column after the todo's own.
    static let extraPosition = Int32(allCases.count)
    static let extraHasSubtasks = extraPosition + 1
    static let extraParentUid = extraPosition + 2
}

/// A todo as one row of `todos`: its fields, the category's id, its order key and the lines an
/// iCalendar import kept.
struct TodoImage {
    var todo: Todo
    var categoryID: Int64?
    var rank: Int64
    var icalExtra: String?
    /// `due_end`, which needs the zone's rules (`StoreTransaction.dueEnd`).
    var dueEnd: Instant?

    /// The value `column` stores for this todo.
    func value(_ column: TodoColumn) -> SQLValue {
        switch column {
        case .id: .integer(todo.id)
        case .title: .text(todo.title)
        case .title_key: .text(TextKey.sort(todo.title))
        case .notes: .optional(todo.notes)
        case .search_key: .text(TextKey.search(todo.title) + "\n" + TextKey.search(todo.notes ?? ""))
        case .category_id: .optional(categoryID)
        case .due: .optional(todo.due)
        case .remind: .optional(todo.remind)
        case .reminded: .optional(todo.reminded)
        case .done: .bool(todo.done)
        case .completed: .optional(todo.completed)
        case .rank: .integer(rank)
        case .created: .integer(todo.created.usec)
        case .updated: .integer(todo.updated.usec)
        case .uid: .text(todo.uid)
        case .priority: .optional(todo.priority.map { Int64($0.rank) })
        case .tags: .optional(TagColumn.text(todo.tags))
        case .zone: .optional(todo.zone)
        case .all_day: .bool(todo.allDay)
        case .due_end: .optional(dueEnd)
        case .recur_rule: .optional(todo.recurrence?.rule)
        case .recur_from: .optional(todo.recurrence?.from.rawValue)
        case .revision: .integer(todo.revision)
        case .ical_extra: .optional(icalExtra)
        case .parent_id: .optional(todo.parent)
        case .parent_uid: .optional(todo.parentUid)
        case .start: .optional(todo.start)
        case .recur_set: .optional(todo.recurrence?.setText)
        case .alarms: .optional(todo.storedAlarms)
        }
    }

    func values(_ columns: [TodoColumn]) -> [SQLValue] { columns.map(value) }
}

extension TodoColumn {
    /// `INSERT INTO todos (columns) VALUES (?, …)`.
    static func insert(_ columns: [TodoColumn]) -> String {
        "INSERT INTO todos (\(columns.map(\.rawValue).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
    }

    /// `a = ?, b = ?, …`.
    static func assignments(_ columns: [TodoColumn]) -> String {
        columns.map { "\($0.rawValue) = ?" }.joined(separator: ", ")
    }

    /// Every column except `excluded`, in declared order: a new column is written by every
    /// statement made from this unless it says otherwise.
    static func all(except excluded: Set<TodoColumn>) -> [TodoColumn] { allCases.filter { !excluded.contains($0) } }
}
