import TodoCore

/// A SQLite result code, primary or extended (https://sqlite.org/rescode.html), modelled on
/// GRDB's `ResultCode`: the raw `Int32` with names for the codes todod decides on. The names
/// are given in SQLite.swift, from SQLite's own header.
///
/// As a pattern, a primary code matches its extended codes too:
/// `case .busy:` matches `SQLITE_BUSY_SNAPSHOT`; an extended code matches only itself.
package struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low eight bits.
    package var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xff) }

    /// Whether this is a primary code (no extended bits).
    package var isPrimary: Bool { rawValue & ~0xff == 0 }

    package static func ~= (pattern: SQLiteResultCode, code: SQLiteResultCode) -> Bool {
        pattern.isPrimary ? pattern == code.primary : pattern == code
    }

    package var description: String { "SQLite result code \(rawValue)" }
}

extension TodoError {
    /// For a `.storage` error SQLite reported: its extended result code, else nil.
    package var resultCode: SQLiteResultCode? { sqliteCode.map(SQLiteResultCode.init(rawValue:)) }

    /// A storage error SQLite reported, with its result code; `message` defaults to
    /// "storage failure: " and `reason`.
    package init(storage resultCode: SQLiteResultCode, reason: String, message: String? = nil) {
        self.init(storage: resultCode.rawValue, reason: reason, message: message)
    }
}
