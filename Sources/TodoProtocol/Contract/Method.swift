/// Every JSON-RPC method todod serves (docs/PROTOCOL.md): the one place a method's name is
/// written. Each has one params type (`MethodParams`, in Contract.swift) that the daemon decodes
/// and clients encode.
package enum Method: String, Sendable, CaseIterable {
    // Declared roughly by how often they are called: `init(name:)` tries them in this order.
    case todoGet = "todo.get"
    case todoAdd = "todo.add"
    case todoList = "todo.list"
    case todoUpdate = "todo.update"
    case todoComplete = "todo.complete"
    case todoReopen = "todo.reopen"
    case todoDelete = "todo.delete"
    case todoMove = "todo.move"
    case todoSnooze = "todo.snooze"
    case todoAlarmAck = "todo.alarm.ack"
    case todoBatch = "todo.batch"
    case categoryList = "category.list"
    case categoryAdd = "category.add"
    case categoryRename = "category.rename"
    case categoryDelete = "category.delete"
    case categoryMove = "category.move"
    case reminderList = "reminder.list"
    case daemonStatus = "daemon.status"
    case watch = "watch"
    case storeExport = "store.export"
    case storeImport = "store.import"
    case storeUndo = "store.undo"
    case storeRedo = "store.redo"
    case storeHistory = "store.history"
    // The change log's readers.
    case storeChanges = "store.changes"

    /// Whether a method changes the store (and so needs the write transaction and an fsync).
    package enum Kind: Sendable { case read, write }

    /// The name on the wire.
    package var name: String { rawValue }

    /// The method called `name`; nil for one todod does not know. Compares the name with each
    /// method's in turn (every name is a small string, so each comparison is a word compare):
    /// no hashing, no allocation.
    package init?(name: String) {
        for method in Method.inOrder where method.rawValue == name {
            self = method
            return
        }
        return nil
    }

    private static let inOrder = Method.allCases

    package var kind: Kind {
        switch self {
        case .todoGet, .todoList, .categoryList, .storeExport, .daemonStatus, .watch, .reminderList, .storeHistory:
            .read
        case .storeChanges:
            .read
        case .todoAdd, .todoUpdate, .todoComplete, .todoReopen, .todoDelete, .todoMove, .todoSnooze, .todoAlarmAck,
            .todoBatch,
            .categoryAdd, .categoryRename, .categoryDelete, .categoryMove, .storeImport, .storeUndo, .storeRedo:
            .write
        }
    }

    /// Whether the method reads the journal rather than the store: todod runs it on the
    /// journal-read queue, off the store queue.
    package var readsJournal: Bool { self == .reminderList }

    /// Whether a client should allow it the long timeout (it may move the whole store: an
    /// import, an export, the undo or redo of a large import).
    package var movesWholeStore: Bool {
        self == .storeImport || self == .storeExport || self == .storeUndo || self == .storeRedo
    }
}

/// The type of a `watch` event (docs/PROTOCOL.md): the one place each is named.
package enum EventType: String, Sendable, CaseIterable {
    case todoAdded = "todo.added"
    case todoUpdated = "todo.updated"
    case todoCompleted = "todo.completed"
    case todoReopened = "todo.reopened"
    case todoDeleted = "todo.deleted"
    case todoMoved = "todo.moved"
    case categoryAdded = "category.added"
    case categoryRenamed = "category.renamed"
    case categoryDeleted = "category.deleted"
    case categoryMoved = "category.moved"
    case storeImported = "store.imported"
    case reminder = "reminder"

    /// The name on the wire.
    package var name: String { rawValue }
}
