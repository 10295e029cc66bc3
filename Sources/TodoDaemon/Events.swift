import TodoCore
import TodoProtocol

/// The `watch` events (see docs/PROTOCOL.md). Each is the `params` of an `event` notification.
enum Events {
    /// Every event type a subscriber may ask for.
    static let types: Set<String> = [
        "todo.added", "todo.updated", "todo.completed", "todo.reopened", "todo.deleted", "todo.moved",
        "category.added", "category.renamed", "category.deleted", "category.moved", "store.imported",
        "reminder",
    ]

    /// `{"type": ..., "todos": [...]}`.
    static func todos(_ type: String, _ todos: [Todo]) -> JSON {
        .object(["type": .string(type), "todos": .array(todos.map(JSON.init))])
    }

    /// `{"type": ..., "category": {...}}`, with `oldName` for a rename.
    static func category(_ type: String, _ category: Category, oldName: String? = nil) -> JSON {
        var o: JSONObject = ["type": .string(type), "category": JSON(category)]
        if let oldName { o["oldName"] = .string(oldName) }
        return .object(o)
    }

    /// `{"type": "reminder", "todo": {...}, "fired": ..., "lateUsec": n}`.
    static func reminder(_ fired: FiredReminder) -> JSON {
        .object(["type": "reminder", "todo": JSON(fired.todo), "fired": JSON(fired.fired), "lateUsec": .int(fired.lateUsec)])
    }
}
