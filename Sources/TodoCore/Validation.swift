/// The limits of a todo's and a category's fields (docs/PROTOCOL.md). Each function returns the value to store or throws `.invalidField`
/// naming the field.
package enum Validation {
    package static let maxTitleCharacters = 1000
    /// Room for 1000 characters of up to four bytes each. A character (grapheme cluster) has no
    /// size limit of its own: 200,000 combining marks on one letter are one character.
    package static let maxTitleBytes = 4096
    package static let maxNotesBytes = 64 * 1024
    package static let maxCategoryCharacters = 200
    /// Room for 200 characters of up to four bytes each (and some to spare).
    package static let maxCategoryBytes = 1024

    /// A title: trimmed, non-empty, at most 1000 characters and 4 KiB of UTF-8, no control
    /// characters, and at least one visible character.
    package static func title(_ raw: String, field: String = "title") throws(TodoError) -> String {
        try singleLine(raw, field: field, maxCharacters: maxTitleCharacters, maxBytes: maxTitleBytes)
    }

    /// Notes: at most 64 KiB of UTF-8; tabs and line breaks are allowed, other control
    /// characters are not. Notes that are only whitespace are stored as no notes.
    package static func notes(_ raw: String, field: String = "notes") throws(TodoError) -> String? {
        guard raw.utf8.count <= maxNotesBytes else {
            throw TodoError.invalid(field, "longer than \(maxNotesBytes) bytes")
        }
        if let bad = raw.unicodeScalars.first(where: { isControl($0) && !"\t\n\r".unicodeScalars.contains($0) }) {
            throw TodoError.invalid(field, "contains control character \(scalarName(bad))")
        }
        return trimmed(raw).isEmpty ? nil : raw
    }

    /// A category name: trimmed, non-empty, at most 200 characters and 1 KiB of UTF-8, no control
    /// characters, and at least one visible character.
    package static func categoryName(_ raw: String, field: String = "category") throws(TodoError) -> String {
        try singleLine(raw, field: field, maxCharacters: maxCategoryCharacters, maxBytes: maxCategoryBytes)
    }

    package static let maxTagCharacters = 64
    package static let maxTags = 32
    /// Longer than any IANA zone name (the longest is about 30 bytes).
    package static let maxZoneBytes = 64
    package static let maxRuleBytes = 1024

    /// Tags: each non-empty, at most 64 characters, without white space or commas, no control
    /// or only-invisible characters; at most 32, unique case-insensitively (the first spelling
    /// wins); returned sorted case-insensitively.
    package static func tags(_ raw: [String], field: String = "tags") throws(TodoError) -> [String] {
        var seen: Set<String> = []
        var tags: [String] = []
        for (i, rawTag) in raw.enumerated() {
            let tag = try self.tag(rawTag, field: "\(field)[\(i)]")
            if seen.insert(tagKey(tag)).inserted { tags.append(tag) }
        }
        guard tags.count <= maxTags else { throw TodoError.invalid(field, "more than \(maxTags) tags") }
        return tags.sorted { (tagKey($0), $0) < (tagKey($1), $1) }
    }

    /// One tag (see `tags`).
    package static func tag(_ raw: String, field: String = "tag") throws(TodoError) -> String {
        let tag = try singleLine(raw, field: field, maxCharacters: maxTagCharacters, maxBytes: maxTagCharacters * 4)
        if let bad = tag.unicodeScalars.first(where: { isWhitespace($0) || $0 == "," }) {
            throw TodoError.invalid(field, bad == "," ? "must not contain a comma" : "must not contain white space")
        }
        return tag
    }

    /// The case-insensitive identity of a tag, as stored for lookups.
    package static func tagKey(_ tag: String) -> String { tag.lowercased() }

    /// A time zone name as IANA spells them (`Asia/Tokyo`, `America/Argentina/Buenos_Aires`,
    /// `Etc/GMT+9`, `UTC`): ASCII letters, digits and `/_+-`, no empty or dot-dot part. Whether the
    /// zone exists on this machine is not checked here.
    package static func zone(_ raw: String, field: String = "zone") throws(TodoError) -> String {
        let ok =
            !raw.isEmpty && raw.utf8.count <= maxZoneBytes
            && raw.utf8.allSatisfy { b in
                (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                    || b == UInt8(ascii: "/") || b == UInt8(ascii: "_") || b == UInt8(ascii: "+")
                    || b == UInt8(ascii: "-")
            }
            && raw.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != ".." }
        guard ok else { throw TodoError.invalid(field, "is not a time zone name like Asia/Tokyo") }
        return raw
    }

    /// The shape of a recurrence rule's text: non-empty ASCII without white space, at most 1 KiB.
    /// Its meaning is checked by TodoCalendar.
    package static func ruleText(_ raw: String, field: String = "recurrence.rule") throws(TodoError) -> String {
        var rule = trimmed(raw)
        if rule.uppercased().hasPrefix("RRULE:") { rule = String(rule.dropFirst(6)) }
        guard !rule.isEmpty, rule.utf8.count <= maxRuleBytes,
            rule.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw TodoError.invalid(field, "is not an iCalendar RRULE like FREQ=WEEKLY;BYDAY=MO")
        }
        return rule
    }

    /// Trimmed, non-empty, at most `maxCharacters` characters (grapheme clusters) and `maxBytes`
    /// bytes of UTF-8, no control characters, not only invisible characters (`DisplayText.isInvisible`:
    /// zero-width and format characters, marks without a base, fillers).
    static func singleLine(_ raw: String, field: String, maxCharacters: Int, maxBytes: Int) throws(TodoError) -> String
    {
        let text = trimmed(raw)
        guard !text.isEmpty else { throw TodoError.invalid(field, "must not be empty") }
        let bytes = text.utf8.count
        guard bytes <= maxBytes else { throw TodoError.invalid(field, "longer than \(maxBytes) bytes") }
        // Counting characters walks grapheme boundaries; no text has more characters than bytes.
        guard bytes <= maxCharacters || text.count <= maxCharacters else {
            throw TodoError.invalid(field, "longer than \(maxCharacters) characters")
        }
        if let bad = text.unicodeScalars.first(where: isControl) {
            throw TodoError.invalid(field, "contains control character \(scalarName(bad))")
        }
        // After trimming, the first scalar is usually a visible one: one check.
        guard text.unicodeScalars.contains(where: { !DisplayText.isInvisible($0) }) else {
            throw TodoError.invalid(field, "has no visible characters")
        }
        return text
    }

    /// Removes leading and trailing white space, including the ideographic space U+3000.
    package static func trimmed(_ s: String) -> String {
        let ends = s.unicodeScalars
        if let first = ends.first, let last = ends.last, !isWhitespace(first), !isWhitespace(last) {
            return s
        }
        var scalars = Substring(s).unicodeScalars[...]
        while let first = scalars.first, isWhitespace(first) { scalars.removeFirst() }
        while let last = scalars.last, isWhitespace(last) { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }

    /// The White_Space property, with ASCII answered without a table lookup.
    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        s.isASCII ? s.value == 0x20 || (0x09...0x0D).contains(s.value) : s.properties.isWhitespace
    }

    /// General category Cc, which Unicode fixes forever as U+0000–U+001F and U+007F–U+009F.
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value)
    }

    static func scalarName(_ s: Unicode.Scalar) -> String {
        let hex = String(s.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
