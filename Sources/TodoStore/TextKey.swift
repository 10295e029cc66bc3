import Foundation

/// Normalised forms of user text that the store compares, sorts and searches by.
///
/// SQLite compares the keys bytewise (UTF-8, so by code point), which is deterministic for any
/// Unicode text; the originals are stored as entered.
///
/// Most titles and names are ASCII, kana and kanji, which no normalization changes and whose only
/// case folding is A–Z to a–z: their keys are computed directly (`plainKey`), and only other text
/// goes through Foundation's normalization and folding. Both give the same key (a test compares
/// them for every scalar the direct path accepts).
enum TextKey {
    /// The identity of a name: canonical composition and full Unicode case folding, so that
    /// `Home`, `HOME` and `home` (and `Straße`/`STRASSE`) are the same category.
    static func identity(_ text: String) -> String {
        plainKey(text) ?? foundationIdentity(text)
    }

    /// The key titles sort by: case-folded like `identity`, so order ignores case.
    static func sort(_ text: String) -> String { identity(text) }

    /// The key text is searched in: compatibility composition (full-width Latin and half-width
    /// katakana become their usual forms, voiced sound marks compose), case folding, and katakana
    /// as hiragana (`kanaFolded`), so `ｶﾀｶﾅ` finds `かたかな`, `くりーにんぐ` finds `クリーニング`
    /// and `ＴＯＤＯ` finds `todo`.
    ///
    /// `todos.search_key` holds this of the title and the notes; migration 16 recomputed it when
    /// kana joined the folding. A change to this function needs a migration that recomputes it.
    static func search(_ text: String) -> String {
        kanaFolded(plainKey(text) ?? foundationSearch(text))
    }

    /// `todos.search_key` of a todo: its title's and its notes' `search` keys, a line break between.
    static func searchKey(title: String, notes: String?) -> String {
        search(title) + "\n" + search(notes ?? "")
    }

    /// `text` (already NFKC and case folded) with each katakana that has a hiragana twin written
    /// as that hiragana: U+30A1–U+30F6 (ァ–ヶ) and the iteration marks ヽヾ. The long vowel mark ー,
    /// ヷ–ヺ (no hiragana twin), the middle dot and the small katakana of U+31F0–U+31FF stay.
    static func kanaFolded(_ text: String) -> String {
        // Katakana in UTF-8 is E3 82 A1–E3 83 BE: text without an E3 byte has none.
        guard text.utf8.contains(0xE3) else { return text }
        var changed = false
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x30A1...0x30F6, 0x30FD...0x30FE:
                if let hiragana = Unicode.Scalar(scalar.value - 0x60) {
                    scalars.append(hiragana)
                    changed = true
                }
            default:
                scalars.append(scalar)
            }
        }
        return changed ? String(scalars) : text
    }

    static func foundationIdentity(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    static func foundationSearch(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
    }

    /// The key of text made only of ASCII and `isPlain` scalars, which is both its `identity`
    /// and its `search` key: the text with A–Z made lowercase. Nil for any other text.
    static func plainKey(_ text: String) -> String? {
        var capitals = false
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                if scalar.value &- 0x41 < 26 { capitals = true }
            } else if !isPlain(scalar) {
                return nil
            }
        }
        guard capitals else { return text }
        var bytes = Array(text.utf8)
        for i in bytes.indices where bytes[i] &- 0x41 < 26 { bytes[i] |= 0x20 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Hiragana, katakana, CJK ideographs and the common Japanese punctuation, each only if
    /// NFKC and case folding leave it alone and it is a starter (combining class 0). In these
    /// blocks only the voiced sound marks U+3099/U+309A compose with a neighbour, and they are
    /// not starters.
    static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3001...0x3003, 0x3005...0x3007, 0x3008...0x3011, 0x3041...0x3096, 0x30A1...0x30FA, 0x30FC...0x30FE,
            0x3400...0x4DBF, 0x4E00...0x9FFF:
            let properties = scalar.properties
            return !properties.changesWhenNFKCCaseFolded && properties.canonicalCombiningClass == .notReordered
        default:
            return false
        }
    }
}

extension TodoStore {
    /// The folded form a search compares (`TextKey.search`), for todobench's figures of the plan
    /// before the search index.
    package static func foldedSearchText(_ text: String) -> String { TextKey.search(text) }
}
