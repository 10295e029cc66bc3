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
}
