/// Stored text made safe to show: the characters a terminal or a journal viewer would not show,
/// or would let reorder the line, are written out as `<U+XXXX>`.
///
/// Shown escaped: format characters (general category Cf: bidi embeddings, overrides and isolates
/// U+202A–202E and U+2066–2069, the marks U+200E/200F and U+061C, zero-width space, non-joiner and
/// joiner U+200B–200D, word joiner U+2060, U+FEFF, soft hyphen, tags ...), the line and paragraph
/// separators U+2028/2029, and the Hangul fillers U+3164 and U+FFA0. Kept: a zero-width joiner
/// between two emoji (👨‍👩‍👧), a zero-width non-joiner or joiner between two letters or marks
/// (Persian `می‌خواهم`, Devanagari half forms: spelling, not spoofing), and the tags of an emoji tag sequence (a subdivision flag: U+1F3F4,
/// tags, U+E007F), which draw one picture; variation selectors, combining marks and everything else.
/// Control characters (Cc) are not this function's business: titles cannot hold them, and
/// todoctl turns them into spaces before calling it.
package enum DisplayText {
    /// `text` with the characters above written as `<U+XXXX>`; `text` itself when it has none.
    package static func escaped(_ text: String) -> String {
        // Most text has no scalar at or above U+00AD, the first format character.
        guard text.unicodeScalars.contains(where: { $0.value >= 0xAD && isHidden($0) }) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            if scalar.value == 0x1F3F4, let end = tagSequenceEnd(scalars, after: i) {
                out.append(contentsOf: scalars[i...end]) // a subdivision flag, kept whole
                i = end + 1
                continue
            }
            if scalar.value >= 0xAD && isHidden(scalar) && !joinsEmoji(scalars, at: i) && !joinsLetters(scalars, at: i)
            {
                out.append(contentsOf: name(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
            i += 1
        }
        return String(out)
    }

    /// Whether `scalar` is one `escaped` writes out (before the emoji exceptions).
    package static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0xAD { return false }
        // Between U+2070 and U+FEFE (kana, CJK, Hangul ...) there is no format character: no lookup.
        if v >= 0x2070 && v < 0xFEFF { return v == 0x3164 }
        if v == 0x2028 || v == 0x2029 || v == 0x3164 || v == 0xFFA0 { return true }
        return scalar.properties.generalCategory == .format
    }

    /// Whether `scalar` draws nothing by itself: white space, control and format characters,
    /// marks (which need a base), default-ignorable code points (fillers, variation selectors).
    /// A title or category name made only of these is refused.
    package static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x80 { return v <= 0x20 || v == 0x7F }
        // Kana, CJK ideographs and Hangul syllables, the usual first letters past ASCII: visible.
        if (0x3041...0x3096).contains(v) || (0x30A1...0x30FA).contains(v) || (0x4E00...0x9FFF).contains(v)
            || (0xAC00...0xD7A3).contains(v)
        {
            return false
        }
        return isInvisibleByProperties(scalar)
    }

    /// `isInvisible` without its shortcuts: the rule for any scalar.
    static func isInvisibleByProperties(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x80 { return v <= 0x20 || v == 0x7F }
        let properties = scalar.properties
        if properties.isWhitespace || properties.isDefaultIgnorableCodePoint || isHidden(scalar) { return true }
        switch properties.generalCategory {
        case .control, .format, .nonspacingMark, .spacingMark, .enclosingMark, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return true
        default:
            // Letters, symbols, private use, and scalars newer than this Swift's tables (a new emoji).
            return false
        }
    }

    /// "<U+202E>".
    package static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    }

    /// A zero-width joiner with an emoji (or an emoji's modifier or VS16) before it and an emoji
    /// after it: part of one drawn emoji.
    static func joinsEmoji(_ scalars: [Unicode.Scalar], at i: Int) -> Bool {
        guard scalars[i].value == 0x200D, i > 0, i + 1 < scalars.count else { return false }
        let before = scalars[i - 1]
        let after = scalars[i + 1]
        let emojiBefore = before.value == 0xFE0F || (!before.isASCII && before.properties.isEmoji)
        return emojiBefore && !after.isASCII && after.properties.isEmoji
    }

    /// A zero-width non-joiner or joiner between two letters or marks: part of how a word in
    /// Persian, Arabic or an Indic script is spelt.
    static func joinsLetters(_ scalars: [Unicode.Scalar], at i: Int) -> Bool {
        guard scalars[i].value == 0x200C || scalars[i].value == 0x200D, i > 0, i + 1 < scalars.count else {
            return false
        }
        return isLetterOrMark(scalars[i - 1]) && isLetterOrMark(scalars[i + 1])
    }

    static func isLetterOrMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// The index of the cancel tag U+E007F ending a run of tag characters right after index `i`,
    /// or nil when there is no such run.
    static func tagSequenceEnd(_ scalars: [Unicode.Scalar], after i: Int) -> Int? {
        var j = i + 1
        while j < scalars.count, (0xE0020...0xE007E).contains(scalars[j].value) { j += 1 }
        guard j > i + 1, j < scalars.count, scalars[j].value == 0xE007F else { return nil }
        return j
    }
}
