import Foundation

/// Normalised forms of user text that the store compares, sorts and searches by.
///
/// SQLite compares the keys bytewise (UTF-8, so by code point), which is deterministic for any
/// Unicode text; the originals are stored as entered.
enum TextKey {
    /// The identity of a name: canonical composition and full Unicode case folding, so that
    /// `Home`, `HOME` and `home` (and `Straße`/`STRASSE`) are the same category.
    static func identity(_ text: String) -> String {
        text.precomposedStringWithCanonicalMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    /// The key titles sort by: case-folded like `identity`, so order ignores case.
    static func sort(_ text: String) -> String { identity(text) }

    /// The key text is searched in: compatibility composition (full-width Latin and half-width
    /// katakana become their usual forms) and case folding, so `ｶﾀｶﾅ` finds `カタカナ` and
    /// `ＴＯＤＯ` finds `todo`.
    static func search(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive], locale: nil)
            .precomposedStringWithCompatibilityMapping
    }
}
