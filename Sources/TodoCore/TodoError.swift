/// The one error type of the domain. Callers match on `code`; `message` is one clear sentence.
///
/// The store, the daemon and the client all speak it: TodoProtocol maps each code to a JSON-RPC
/// error code, todoctl maps it to an exit status. A storage error that SQLite reported keeps
/// SQLite's result code in `sqliteCode` (TodoSQLite's `resultCode` names it), so callers decide
/// on the code, never on the words.
package struct TodoError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: Sendable, Equatable {
        /// A todo or category that does not exist.
        case notFound
        /// The change contradicts existing data (a duplicate category name, a category still in use).
        case conflict
        /// A value that breaks a rule of the data model; `field` names it.
        case invalidField
        /// The caller may not do this.
        case permissionDenied
        /// The database could not be read or written.
        case storage
        /// A change-log read (`store.changes`, `watch` `since`) reaches back further than the log keeps.
        case historyGone
    }

    package let code: Code
    /// The offending field for `.invalidField` (a wire name such as `title`), else nil.
    package let field: String?
    package let message: String
    /// For a `.storage` error SQLite reported: its extended result code, else nil (TodoSQLite's
    /// `resultCode` gives it as a `SQLiteResultCode`).
    package let sqliteCode: Int32?
    /// For a `.storage` error SQLite reported: what went wrong in words, as `message` says it
    /// after "storage failure: " (for a caller that words the failure its own way), else nil.
    package let reason: String?

    package init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.sqliteCode = nil
        self.reason = nil
    }

    /// A storage error SQLite reported, with its result code; `message` defaults to
    /// "storage failure: " and `reason`.
    package init(storage sqliteCode: Int32, reason: String, message: String? = nil) {
        self.code = .storage
        self.message = message ?? "storage failure: \(reason)"
        self.field = nil
        self.sqliteCode = sqliteCode
        self.reason = reason
    }

    private init(code: Code, field: String?, message: String, sqliteCode: Int32?, reason: String?) {
        self.code = code
        self.field = field
        self.message = message
        self.sqliteCode = sqliteCode
        self.reason = reason
    }

    /// The same error said another way: code, field, result code and reason kept.
    package func withMessage(_ message: String) -> TodoError {
        TodoError(code: code, field: field, message: message, sqliteCode: sqliteCode, reason: reason)
    }

    package static func notFound(_ message: String) -> TodoError { TodoError(.notFound, message) }
    package static func conflict(_ message: String) -> TodoError { TodoError(.conflict, message) }
    package static func storage(_ message: String) -> TodoError { TodoError(.storage, message) }
    /// "history gone: ..." for a `since` older than the change log keeps; `oldest` is the
    /// oldest seq it can still go on from.
    package static func historyGone(since: Int64, oldest: Int64) -> TodoError {
        TodoError(
            .historyGone,
            "history gone: the change log no longer reaches back to seq \(since) (the oldest seq to go on from is \(oldest)); read everything again"
        )
    }
    package static func invalid(_ field: String, _ reason: String) -> TodoError {
        TodoError(.invalidField, "invalid \(field): \(reason)", field: field)
    }

    package var description: String { message }
}

/// An error type a `TodoError` converts into. Store calls that run the caller's code (a
/// savepoint around a request) throw the caller's own error type, a storage failure of their own
/// converted, so no caller has to cast an `any Error` back.
package protocol TodoErrorConvertible: Error {
    init(_ error: TodoError)
}

extension TodoError: TodoErrorConvertible {
    package init(_ error: TodoError) { self = error }
}
