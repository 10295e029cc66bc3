/// What kind of change a change-log entry records: the `kind` of `store.changes` items and of
/// `store.history` entries on the wire (docs/PROTOCOL.md), and what the store writes in its log.
package enum ChangeKind: String, Sendable, CaseIterable {
    case add, update, complete, reopen, delete, move, snooze
    /// A `todo.batch`: several changes of todos as one (one undo step).
    case batch
    case categoryAdd = "category.add"
    case categoryRename = "category.rename"
    case categoryDelete = "category.delete"
    case categoryMove = "category.move"
    case `import`, undo, redo
}
