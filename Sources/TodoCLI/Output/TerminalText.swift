import TodoCore
import TodoTime

/// Display width, truncation, padding and human time formats for terminal output.
package enum TerminalText {
    /// Columns a string occupies in a terminal: East Asian Wide and Fullwidth characters (CJK, kana,
    /// fullwidth forms, most emoji) take 2; combining marks, zero-width joiners, variation selectors
    /// and other zero-width scalars take 0; everything else 1. Measured per grapheme cluster (an
    /// emoji ZWJ sequence or a flag is 2).
    ///
    /// A cluster is 2 when it contains a scalar with emoji presentation, or an emoji followed by
    /// VS16 (U+FE0F, as in `❤️` or `1️⃣`); otherwise it is the sum of its scalars' widths, so a base
    /// letter with combining marks is 1 and a decomposed Hangul syllable 2, while the half-width
    /// katakana sound marks U+FF9E/FF9F (which extend the cluster) keep their own column. Control
    /// characters count 0. East Asian Ambiguous characters (`…`, `°`, Greek, Cyrillic) count 1.
    package static func width(_ s: String) -> Int {
        // Printable ASCII, the common case, is one column per byte.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return s.utf8.count }
        var total = 0
        for c in s { total += width(of: c) }
        return total
    }

    /// `s` cut to at most `columns` columns, ending with "…" when cut, never splitting a grapheme
    /// cluster or leaving half of a wide character. Spaces before the "…" are dropped, so the result
    /// may be narrower than `columns`; it is empty when `columns` is 0 or less.
    package static func truncate(_ s: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if width(s) <= columns { return s }
        var out = ""
        var used = 0
        for c in s {
            let w = width(of: c)
            if used + w > columns - 1 { break }
            out.append(c)
            used += w
        }
        while let last = out.last, last.isWhitespace { out.removeLast() }
        return out + "…"
    }

    /// `s` padded with spaces on the right (or left when `alignRight` is true) to `columns` columns;
    /// unchanged when it is already that wide or wider.
    package static func pad(_ s: String, to columns: Int, alignRight: Bool = false) -> String {
        let missing = columns - width(s)
        guard missing > 0 else { return s }
        let spaces = String(repeating: " ", count: missing)
        return alignRight ? spaces + s : s + spaces
    }

    /// `s` without the spaces at its end.
    package static func droppingTrailingSpaces(_ s: String) -> String {
        var end = s.endIndex
        while end > s.startIndex, s[s.index(before: end)] == " " { end = s.index(before: end) }
        return String(s[..<end])
    }

    /// A short relative description of `instant` seen from `now`: "in 45s", "in 5m", "in 2h",
    /// "in 3d", "in 2w", "now" (within half a second), "5m overdue", "3d overdue". Rounded to the
    /// nearest unit: the time is rounded to seconds, then to minutes once it is a minute or more,
    /// to hours once that is 60 minutes or more, to days at 24 hours, to weeks at 7 days — so a
    /// due time given as `+2h` reads "in 2h" for its first half hour, not "in 1h" a moment after it
    /// was set, and 1h 59m reads "in 2h". Weeks are the largest unit ("in 60w").
    package static func relative(_ instant: Instant, now: Instant) -> String {
        let (diff, overflow) = instant.usec.subtractingReportingOverflow(now.usec)
        let future = overflow ? instant.usec > now.usec : diff > 0
        let usec = overflow ? UInt64.max / 2 : diff.magnitude
        func rounded(_ value: UInt64, _ size: UInt64) -> UInt64 {
            value / size + (value % size >= (size + 1) / 2 ? 1 : 0)
        }
        let seconds = rounded(usec, 1_000_000)
        guard seconds >= 1 else { return "now" }
        var text = "\(seconds)s"
        let units: [(size: UInt64, name: String, next: UInt64)] = [
            (60, "m", 60), (3600, "h", 24), (86_400, "d", 7), (604_800, "w", .max)
        ]
        if seconds >= 60 {
            for unit in units {
                let value = rounded(seconds, unit.size)
                text = "\(value)\(unit.name)"
                if value < unit.next { break }
            }
        }
        return future ? "in " + text : text + " overdue"
    }

    // MARK: - Width tables

    /// Columns of one grapheme cluster: 0, 1 or 2.
    static func width(of c: Character) -> Int {
        let scalars = c.unicodeScalars
        if let only = scalars.first, scalars.index(after: scalars.startIndex) == scalars.endIndex {
            // One scalar below U+231A (the first with emoji presentation), or in the kana, CJK
            // ideograph or Hangul syllable blocks (which have none): no emoji lookup needed.
            let v = only.value
            if v < 0x231A { return width(of: only) }
            if (0x3041...0x3096).contains(v) || (0x30A1...0x30FA).contains(v) || (0x4E00...0x9FFF).contains(v)
                || (0xAC00...0xD7A3).contains(v)
            {
                return 2
            }
        }
        return clusterWidth(c)
    }

    /// `width(of:)` without its shortcuts: the rule for any cluster.
    static func clusterWidth(_ c: Character) -> Int {
        var total = 0
        var afterEmoji = false
        for scalar in c.unicodeScalars {
            let properties = scalar.properties
            if properties.isEmojiPresentation { return 2 }
            if scalar.value == 0xFE0F && afterEmoji { return 2 }
            afterEmoji = properties.isEmoji
            total += width(of: scalar)
        }
        return total
    }

    /// Columns of one scalar on its own.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x7F { return v < 0x20 ? 0 : 1 }
        switch scalar.properties.generalCategory {
        case .control, .nonspacingMark, .enclosingMark, .format:
            return 0
        default:
            break
        }
        // Hangul medial vowels and final consonants join the preceding initial consonant.
        if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return 0 }
        return isWide(v) ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges, sorted, after Unicode's EastAsianWidth.txt.
    /// Emoji with emoji presentation are handled separately through scalar properties.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, // Hangul Jamo initial consonants
        0x2329...0x232A, // angle brackets
        0x2E80...0x303E, // CJK radicals, Kangxi radicals, ideographic description, CJK symbols and punctuation
        // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed CJK, CJK compatibility
        0x3041...0x33FF,
        0x3400...0x4DBF, // CJK Unified Ideographs Extension A
        0x4E00...0x9FFF, // CJK Unified Ideographs
        0xA000...0xA4CF, // Yi syllables and radicals
        0xA960...0xA97F, // Hangul Jamo Extended-A
        0xAC00...0xD7A3, // Hangul syllables
        0xF900...0xFAFF, // CJK Compatibility Ideographs
        0xFE10...0xFE19, // vertical forms
        0xFE30...0xFE6F, // CJK compatibility forms, small form variants
        0xFF00...0xFF60, // fullwidth ASCII variants and brackets
        0xFFE0...0xFFE6, // fullwidth signs
        0x16FE0...0x16FE4, // ideographic symbols and punctuation
        0x17000...0x18CFF, // Tangut, Khitan small script
        0x1AFF0...0x1B2FF, // Kana Extended-B, Kana Supplement, Kana Extended-A, small kana, Nushu
        0x1F200...0x1F2FF, // enclosed ideographic supplement
        0x20000...0x2FFFD, // plane 2: CJK extensions B–F, compatibility supplement
        0x30000...0x3FFFD // plane 3: CJK extensions G–H
    ]

    static func isWide(_ v: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = wideRanges[mid]
            if v < range.lowerBound {
                high = mid - 1
            } else if v > range.upperBound {
                low = mid + 1
            } else {
                return true
            }
        }
        return false
    }
}
