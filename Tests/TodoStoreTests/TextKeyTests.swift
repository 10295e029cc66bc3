import Testing

@testable import TodoStore

struct TextKeyTests {
    @Test func textKeysFoldCaseAndWidth() {
        #expect(TextKey.identity("Home") == TextKey.identity("HOME"))
        #expect(TextKey.identity("Straße") == TextKey.identity("STRASSE"))
        #expect(TextKey.identity("e\u{301}") == TextKey.identity("\u{E9}"))
        #expect(TextKey.identity("仕事") != TextKey.identity("しごと"))
        #expect(TextKey.search("ｶﾀｶﾅ") == TextKey.search("カタカナ"))
        #expect(TextKey.search("ＴＯＤＯ") == TextKey.search("todo"))
    }

    @Test func searchKeysFoldKatakanaIntoHiragana() {
        #expect(TextKey.search("クリーニング") == "くりーにんぐ")
        #expect(TextKey.search("ｸﾘｰﾆﾝｸﾞ") == "くりーにんぐ") // half-width, the voiced mark composed
        #expect(TextKey.search("ク\u{3099}") == "ぐ") // a combining voiced mark composed
        #expect(TextKey.search("ヴァイオリン") == "ゔぁいおりん")
        #expect(TextKey.search("ヽヾヵヶ") == "ゝゞゕゖ")
        #expect(TextKey.search("ヷ・ㇰ") == "ヷ・ㇰ") // no hiragana twin: left alone
        #expect(TextKey.search("ＡＢＣ ﾃｽﾄ テスト") == "abc てすと てすと")
        #expect(TextKey.identity("カテゴリ") != TextKey.identity("かてごり")) // names keep kana apart
    }
}
