/// The limits of SPEC §3. Each function returns the value to store or throws `.invalidField`
/// naming the field.
public enum Validation {
    public static let maxTitleCharacters = 1000
    public static let maxNotesBytes = 64 * 1024
    public static let maxCategoryCharacters = 200

    /// A title: trimmed, non-empty, at most 1000 characters, no control characters.
    public static func title(_ raw: String, field: String = "title") throws(TodoError) -> String {
        let title = trimmed(raw)
        guard !title.isEmpty else { throw TodoError.invalid(field, "must not be empty") }
        guard title.count <= maxTitleCharacters else {
            throw TodoError.invalid(field, "longer than \(maxTitleCharacters) characters")
        }
        if let bad = title.unicodeScalars.first(where: isControl) {
            throw TodoError.invalid(field, "contains control character \(scalarName(bad))")
        }
        return title
    }

    /// Notes: at most 64 KiB of UTF-8; tabs and line breaks are allowed, other control
    /// characters are not. Notes that are only whitespace are stored as no notes.
    public static func notes(_ raw: String, field: String = "notes") throws(TodoError) -> String? {
        guard raw.utf8.count <= maxNotesBytes else {
            throw TodoError.invalid(field, "longer than \(maxNotesBytes) bytes")
        }
        if let bad = raw.unicodeScalars.first(where: { isControl($0) && !"\t\n\r".unicodeScalars.contains($0) }) {
            throw TodoError.invalid(field, "contains control character \(scalarName(bad))")
        }
        return trimmed(raw).isEmpty ? nil : raw
    }

    /// A category name: trimmed, non-empty, at most 200 characters, no control characters.
    public static func categoryName(_ raw: String, field: String = "category") throws(TodoError) -> String {
        let name = trimmed(raw)
        guard !name.isEmpty else { throw TodoError.invalid(field, "must not be empty") }
        guard name.count <= maxCategoryCharacters else {
            throw TodoError.invalid(field, "longer than \(maxCategoryCharacters) characters")
        }
        if let bad = name.unicodeScalars.first(where: isControl) {
            throw TodoError.invalid(field, "contains control character \(scalarName(bad))")
        }
        return name
    }

    /// Removes leading and trailing white space, including the ideographic space U+3000.
    public static func trimmed(_ s: String) -> String {
        var scalars = Substring(s).unicodeScalars[...]
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }

    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.properties.generalCategory == .control
    }

    static func scalarName(_ s: Unicode.Scalar) -> String {
        let hex = String(s.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
