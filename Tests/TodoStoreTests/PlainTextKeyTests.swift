import Testing

@testable import TodoStore

/// The direct path for ASCII, kana and kanji must give exactly Foundation's keys: the keys are
/// stored, and a difference would split a category or hide a todo from search.
struct PlainTextKeyTests {
    @Test func everyPlainScalarAndEveryASCIIScalarKeysAsFoundationDoes() {
        var plain = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.isASCII || TextKey.isPlain(scalar) else { continue }
            plain += 1
            let text = String(Character(scalar))
            #expect(TextKey.plainKey(text) == TextKey.foundationIdentity(text), "U+\(String(value, radix: 16))")
            #expect(TextKey.plainKey(text) == TextKey.foundationSearch(text), "U+\(String(value, radix: 16))")
        }
        #expect(plain > 20_000) // ASCII, kana, the CJK blocks
    }

    @Test func mixedTextKeysAsFoundationDoes() {
        let samples = [
            "Buy MILK 牛乳を買う", "ＴＯＤＯ", "ｶﾀｶﾅ", "か\u{3099}", "ヽ\u{3099}ヾ", "Straße", "e\u{301}",
            "ＡＰＰＬＥ りんご", "㍻", "Ǆ", "仕事　Home", "\u{3000}", "x\u{200B}y", "ﬁle", "カ\u{309A}"
        ]
        var random = SystemRandomNumberGenerator()
        let pool: [Unicode.Scalar] = [
            "A", "z", " ", "-", "あ", "ア", "ー", "漢", "、", "ｱ", "Ａ", "\u{3099}", "é", "\u{301}", "ß", "ヾ", "㐀"
        ]
        let generated = (0..<2_000).map { _ in
            String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 1...8, using: &random)).map { _ in pool.randomElement(using: &random)! }))
        }
        for text in samples + generated {
            #expect(
                TextKey.identity(text) == TextKey.foundationIdentity(text), "\(text.unicodeScalars.map { $0.value })")
            #expect(
                TextKey.search(text) == TextKey.kanaFolded(TextKey.foundationSearch(text)),
                "\(text.unicodeScalars.map { $0.value })")
        }
        #expect(TextKey.plainKey("Buy MILK 牛乳を買う") == "buy milk 牛乳を買う")
        #expect(TextKey.plainKey("ｶﾀｶﾅ") == nil) // half-width: Foundation's path
    }
}
