import Foundation
import Testing
import TodoCore
import TodoTime

@testable import TodoCLI

@Suite struct TerminalTextTests {
    /// The shortcuts for ASCII, kana, ideographs and Hangul agree with the general rule for every
    /// scalar of planes 0–3 on its own.
    @Test func shortcutsAgreeWithTheGeneralRule() {
        var checked = 0
        for v in UInt32(0)...0x3FFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let c = Character(scalar)
            if TerminalText.width(of: c) != TerminalText.clusterWidth(c) {
                Issue.record(
                    "U+\(String(v, radix: 16, uppercase: true)): \(TerminalText.width(of: c)) vs \(TerminalText.clusterWidth(c))"
                )
                return
            }
            checked += 1
        }
        #expect(checked > 250_000)
        let ascii = "Buy milk at 9:00, then call ~Bob (x2)!"
        #expect(TerminalText.width(ascii) == ascii.reduce(0) { $0 + TerminalText.clusterWidth($1) })
        #expect(TerminalText.width("牛乳を買う") == 10 && TerminalText.width("a\tb") == 2)
    }

    @Test func trailingSpacesGoAndNothingElse() {
        #expect(TerminalText.droppingTrailingSpaces("牛乳を買う   ") == "牛乳を買う")
        #expect(TerminalText.droppingTrailingSpaces("  a b  ") == "  a b")
        #expect(TerminalText.droppingTrailingSpaces("   ") == "")
        #expect(TerminalText.droppingTrailingSpaces("") == "")
        #expect(TerminalText.droppingTrailingSpaces("x\u{3000}") == "x\u{3000}") // only U+0020
        #expect(TerminalText.droppingTrailingSpaces("e \u{301}") == "e \u{301}") // a space carrying an accent stays
    }

    @Test(arguments: [
        ("", 0), ("abc", 3), ("Buy milk", 8),
        ("牛乳を買う", 10), ("日本語abc", 9), ("한국어", 6), ("\u{1112}\u{1161}\u{11AB}", 2), ("𠮷野家", 6),
        ("、。", 4), ("\u{3000}", 2), ("ー", 2), ("中文", 4),
        ("ｶﾀｶﾅ", 4), ("ﾊﾟﾝ", 3), ("ﾊﾟ", 2), ("ﾞ", 1),
        ("Ａｂ１", 6), ("￥", 2), ("＄", 2),
        ("🍣", 2), ("🍣🍣", 4), ("👨‍👩‍👧‍👦", 2), ("🇯🇵", 2), ("🇯🇵🇺🇸", 4), ("👍🏽", 2), ("❤️", 2), ("❤", 1),
        ("1️⃣", 2), ("⌚", 2), ("☺︎", 1),
        ("e\u{301}", 1), ("cafe\u{301}", 4), ("a\u{300}\u{301}\u{302}", 1), ("\u{301}", 0),
        ("\u{200B}", 0), ("a\u{200D}b", 2), ("\u{FE0F}", 0), ("\u{FEFF}x", 1), ("\u{AD}", 0),
        ("\t", 0), ("\u{7F}", 0), ("…", 1), ("Ωé→", 3)
    ])
    func width(text: String, columns: Int) {
        #expect(TerminalText.width(text) == columns)
    }

    @Test(arguments: [
        ("牛乳を買う", 10, "牛乳を買う"), ("牛乳を買う", 9, "牛乳を買…"), ("牛乳を買う", 6, "牛乳…"),
        ("牛乳を買う", 5, "牛乳…"), ("牛乳を買う", 2, "…"), ("牛乳を買う", 1, "…"), ("牛乳を買う", 0, ""),
        ("abcdef", 4, "abc…"), ("abcdef", 6, "abcdef"), ("abc", -3, ""),
        ("buy milk and eggs", 10, "buy milk…"),
        ("🍣🍣", 3, "🍣…"), ("🍣🍣", 2, "…"), ("👨‍👩‍👧‍👦x", 2, "…"), ("👨‍👩‍👧‍👦xy", 3, "👨‍👩‍👧‍👦…"), ("👨‍👩‍👧‍👦xy", 4, "👨‍👩‍👧‍👦xy"), ("👨‍👩‍👧‍👦xyz", 4, "👨‍👩‍👧‍👦x…"),
        ("🇯🇵🇺🇸", 3, "🇯🇵…"), ("e\u{301}e\u{301}e\u{301}", 2, "e\u{301}…"),
        ("ｶﾀｶﾅｶﾀｶﾅ", 5, "ｶﾀｶﾅ…")
    ])
    func truncate(text: String, columns: Int, expected: String) {
        #expect(TerminalText.truncate(text, to: columns) == expected)
    }

    /// Truncation never exceeds the limit and keeps whole grapheme clusters of the original.
    @Test func truncationKeepsWholeClusters() {
        let samples = [
            "牛乳を買う", "🍣 sushi 👨‍👩‍👧‍👦 🇯🇵", "cafe\u{301} au lait", "ｶﾀｶﾅ half-width", "한국어 텍스트",
            "mixed 日本 and 🇫🇷 text", "\u{1112}\u{1161}\u{11AB}\u{1112}\u{1161}\u{11AB}"
        ]
        for text in samples {
            let full = TerminalText.width(text)
            for columns in 0...(full + 2) {
                let cut = TerminalText.truncate(text, to: columns)
                #expect(TerminalText.width(cut) <= max(columns, 0), "\(text) to \(columns)")
                if columns >= full {
                    #expect(cut == text)
                } else if columns > 0 {
                    #expect(cut.hasSuffix("…"))
                    let kept = Array(cut.dropLast())
                    #expect(kept == Array(text.prefix(kept.count)), "\(text) to \(columns)")
                    // Nothing more would have fitted (apart from trimmed spaces).
                    if let next = text.dropFirst(kept.count).first(where: { !$0.isWhitespace }) {
                        let keptWidth = TerminalText.width(String(kept))
                        let spaces = text.dropFirst(kept.count).prefix(while: \.isWhitespace).count
                        #expect(keptWidth + spaces + TerminalText.width(String(next)) > columns - 1)
                    }
                }
            }
        }
    }

    @Test func pad() {
        #expect(TerminalText.pad("牛乳", to: 6) == "牛乳  ")
        #expect(TerminalText.pad("牛乳", to: 6, alignRight: true) == "  牛乳")
        #expect(TerminalText.pad("🍣", to: 3) == "🍣 ")
        #expect(TerminalText.pad("e\u{301}", to: 2) == "e\u{301} ")
        #expect(TerminalText.pad("abc", to: 2) == "abc")
        #expect(TerminalText.pad("", to: 3, alignRight: true) == "   ")
    }

    static let day: Int64 = 86_400_000_000
    static let relativeCases: [(Int64, String)] = [
        (0, "now"), (499_999, "now"), (-499_999, "now"), (500_000, "in 1s"), (999_999, "in 1s"),
        (-999_999, "1s overdue"),
        (1_000_000, "in 1s"), (-1_000_000, "1s overdue"),
        (45_000_000, "in 45s"), (59_499_999, "in 59s"), (59_999_999, "in 1m"), (60_000_000, "in 1m"),
        (300_000_000, "in 5m"),
        (3_569_000_000, "in 59m"), (3_599_000_000, "in 1h"), (7_200_000_000, "in 2h"), (7_199_999_000, "in 2h"),
        (84_599_000_000, "in 23h"), (86_399_000_000, "in 1d"),
        (3 * day, "in 3d"), (10 * day, "in 1w"), (13 * day, "in 2w"), (14 * day, "in 2w"),
        (400 * day, "in 57w"), (-300_000_000, "5m overdue"), (-3 * day - 5, "3d overdue"),
        (-7_199_000_000, "2h overdue"), (-5_399_000_000, "1h overdue"), (-21 * day, "3w overdue")
    ]

    @Test(arguments: relativeCases)
    func relative(offset: Int64, expected: String) throws {
        let now = try #require(Instant(rfc3339: "2026-12-01T09:00:00Z"))
        #expect(TerminalText.relative(now.adding(usec: offset), now: now) == expected)
    }

    @Test func relativeAtTheExtremesDoesNotTrap() {
        #expect(TerminalText.relative(Instant(usec: .max), now: Instant(usec: .min)).hasPrefix("in "))
        #expect(TerminalText.relative(Instant(usec: .min), now: Instant(usec: .max)).hasSuffix(" overdue"))
        #expect(TerminalText.relative(Instant(usec: .min), now: Instant(usec: .min)) == "now")
        for (usec, seconds): (Int64, Int64) in [
            (-1, -1), (-999_999, -1), (-1_000_000, -1), (-1_000_001, -2), (0, 0), (999_999, 0), (1_000_000, 1)
        ] {
            #expect(Instant(usec: usec).seconds == seconds)
        }
        #expect(Instant(usec: .min).seconds == -9_223_372_036_855)
    }
}
