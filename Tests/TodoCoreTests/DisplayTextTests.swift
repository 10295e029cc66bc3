import Testing

@testable import TodoCore

@Suite struct DisplayTextTests {
    @Test func bidiZeroWidthAndSeparatorsAreWrittenOut() {
        #expect(DisplayText.escaped("invoice\u{202E}fdp.exe") == "invoice<U+202E>fdp.exe")
        #expect(
            DisplayText.escaped("a\u{2066}b\u{2069}c\u{202A}\u{202B}\u{202C}\u{202D}")
                == "a<U+2066>b<U+2069>c<U+202A><U+202B><U+202C><U+202D>")
        #expect(DisplayText.escaped("a\u{2028}b\u{2029}c") == "a<U+2028>b<U+2029>c")
        #expect(
            DisplayText.escaped("pay\u{200B}pal\u{200C}\u{200E}\u{200F}\u{2060}\u{FEFF}")
                == "pay<U+200B>pal<U+200C><U+200E><U+200F><U+2060><U+FEFF>")
        #expect(DisplayText.escaped("\u{200D}ab\u{200C}") == "<U+200D>ab<U+200C>") // joiners next to no letter
        #expect(DisplayText.escaped("a \u{200C}b") == "a <U+200C>b")
        #expect(DisplayText.escaped("\u{3164}") == "<U+3164>")
        #expect(DisplayText.escaped("\u{E0041}") == "<U+E0041>") // a tag outside a flag
    }

    @Test func japaneseAndEmojiAreLeftAlone() {
        for text in [
            "牛乳を買う", "ｶﾀｶﾅﾞ", "葛\u{E0100}城", "👨‍👩‍👧", "👩🏽‍💻", "🏳️‍🌈", "❤️", "1️⃣", "🇯🇵",
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "cafe\u{301}", "plain ascii", "😀\u{FE0E}"
        ] {
            #expect(DisplayText.escaped(text) == text, "\(text.unicodeScalars.map(\.value))")
        }
        // Joiners that spell a word: Persian with a non-joiner, Devanagari and Malayalam half forms.
        for text in ["می\u{200C}خواهم", "क्\u{200D}ष", "ന്\u{200D}റ", "a\u{200D}b"] {
            #expect(DisplayText.escaped(text) == text, "\(text.unicodeScalars.map(\.value))")
        }
        // Inside a sentence, the emoji's joiner stays and a stray one does not.
        #expect(DisplayText.escaped("家族 👨‍👩‍👧 と\u{200D}") == "家族 👨‍👩‍👧 と<U+200D>")
    }

    @Test func everyFormatCharacterIsEscapedOutsideEmoji() {
        for value in UInt32(0xA0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let format = scalar.properties.generalCategory == .format
            #expect(
                DisplayText.isHidden(scalar) == (format || [0x2028, 0x2029, 0x3164, 0xFFA0].contains(value)),
                "U+\(String(value, radix: 16))")
            if format {
                #expect(DisplayText.escaped("x " + String(scalar) + " y") == "x " + DisplayText.name(scalar) + " y")
            }
        }
    }

    @Test func invisibleShortcutsAgreeWithTheRule() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(
                DisplayText.isInvisible(scalar) == DisplayText.isInvisibleByProperties(scalar),
                "U+\(String(value, radix: 16))")
        }
    }
}
