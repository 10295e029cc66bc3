/// The one error type of the domain. Callers match on `code`; `message` is one clear sentence.
///
/// The store, the daemon and the client all speak it: TodoProtocol maps each code to a JSON-RPC
/// error code, TodoClient maps it to an exit status.
public struct TodoError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
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
    }

    public let code: Code
    /// The offending field for `.invalidField` (a wire name such as `title`), else nil.
    public let field: String?
    public let message: String

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public static func notFound(_ message: String) -> TodoError { TodoError(.notFound, message) }
    public static func conflict(_ message: String) -> TodoError { TodoError(.conflict, message) }
    public static func storage(_ message: String) -> TodoError { TodoError(.storage, message) }
    public static func invalid(_ field: String, _ reason: String) -> TodoError {
        TodoError(.invalidField, "invalid \(field): \(reason)", field: field)
    }

    public var description: String { message }
}
