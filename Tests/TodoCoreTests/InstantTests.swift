import Testing
@testable import TodoCore

@Suite struct InstantTests {
    @Test(arguments: [
        ("2026-12-01T09:00:00Z", Int64(1_796_115_600) * 1_000_000),
        ("2026-12-01T18:00:00+09:00", Int64(1_796_115_600) * 1_000_000),
        ("2026-12-01T09:00:00.5Z", Int64(1_796_115_600) * 1_000_000 + 500_000),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999999Z", -1),
        ("2024-02-29T00:00:00-05:30", Int64(1_709_184_600) * 1_000_000),
    ])
    func parses(text: String, usec: Int64) {
        #expect(Instant(rfc3339: text)?.usec == usec)
    }

    @Test(arguments: [
        "", "2026-12-01", "2026-12-01T09:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-12-01T24:00:00Z", "2026-12-01T09:60:00Z", "2026-12-01T09:00:00+9:00", "２０２６-12-01T09:00:00Z",
        "2026-12-01T09:00:00Zjunk", "2026-12-01T09:00:00.Z", "0000-01-01T00:00:00Z",
    ])
    func rejects(text: String) {
        #expect(Instant(rfc3339: text) == nil)
    }

    @Test func formatsInUTC() {
        #expect(Instant(usec: 1_796_115_600_000_000).rfc3339() == "2026-12-01T09:00:00Z")
        #expect(Instant(usec: 1_796_115_600_123_456).rfc3339(fractional: true) == "2026-12-01T09:00:00.123456Z")
        #expect(Instant(usec: -1).rfc3339(fractional: true) == "1969-12-31T23:59:59.999999Z")
        _ = Instant(usec: .min).rfc3339(fractional: true)  // must not trap
        _ = Instant(usec: .max).rfc3339(fractional: true)
        for usec in stride(from: Int64(-5_000_000_000_000_000), to: 200_000_000_000_000_000, by: 7_777_777_777_777) {
            let text = Instant(usec: usec).rfc3339(fractional: true)
            #expect(Instant(rfc3339: text)?.usec == usec, "\(text)")
        }
    }
}

@Suite struct ValidationTests {
    @Test func trimsIncludingIdeographicSpace() throws {
        #expect(try Validation.title("\u{3000} 牛乳を買う \t") == "牛乳を買う")
        #expect(try Validation.categoryName("  仕事 ") == "仕事")
    }

    @Test func notesAllowLineBreaksButNotOtherControls() throws {
        #expect(try Validation.notes("a\nb\tc") == "a\nb\tc")
        #expect(try Validation.notes("   ") == nil)
        #expect(throws: TodoError.invalid("notes", "contains control character U+001B")) { try Validation.notes("\u{1B}[31m") }
    }

    @Test func controlCharactersAreExactlyCategoryCc() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(Validation.isControl(scalar) == (scalar.properties.generalCategory == .control), "U+\(String(value, radix: 16))")
        }
    }

    @Test func limitsCountCharactersAndBytes() throws {
        let kanji = String(repeating: "漢", count: Validation.maxTitleCharacters)  // 3,000 bytes
        #expect(try Validation.title(kanji) == kanji)
        let astral = String(repeating: "𠀋", count: Validation.maxTitleCharacters)  // 4 bytes each: 4,000 bytes
        #expect(try Validation.title(astral) == astral)
        let family = String(repeating: "👨‍👩‍👧", count: 227)  // one character each, 18 bytes: 4,086 bytes
        #expect(try Validation.title(family) == family)
        #expect(throws: TodoError.invalid("title", "longer than 4096 bytes")) { try Validation.title(family + "👨‍👩‍👧") }
        #expect(throws: TodoError.invalid("title", "longer than 1000 characters")) { try Validation.title(kanji + "字") }
        // 200,000 combining marks on one letter are one character, but 400,000 bytes.
        let zalgo = "a" + String(repeating: "\u{301}", count: 200_000)
        #expect(zalgo.count == 1)
        #expect(throws: TodoError.invalid("title", "longer than 4096 bytes")) { try Validation.title(zalgo) }
        let category = String(repeating: "仕", count: Validation.maxCategoryCharacters)  // 600 bytes
        #expect(try Validation.categoryName(category) == category)
        #expect(throws: TodoError.invalid("category", "longer than 1024 bytes")) {
            try Validation.categoryName("x" + String(repeating: "\u{301}", count: 600))
        }
        #expect(try Validation.title("plain") == "plain")
        #expect(try Validation.title(" a ") == "a")
    }

    @Test func aTitleOfOnlyInvisibleCharactersIsRefused() throws {
        let invisible = ["\u{200B}", "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}", "\u{202E}", "\u{2066}\u{2069}",
                         "\u{301}\u{302}", "\u{3164}", "\u{FE0F}", "\u{E0100}", "\u{00AD}", "\u{115F}", "\u{180E}"]
        for text in invisible {
            #expect(throws: TodoError.invalid("title", "has no visible characters"), "\(text.unicodeScalars.map(\.value))") {
                try Validation.title(text)
            }
            #expect(throws: TodoError.invalid("name", "has no visible characters")) { try Validation.categoryName(text, field: "name") }
        }
        // Separators and spaces around them are trimmed away: empty.
        #expect(throws: TodoError.invalid("title", "must not be empty")) { try Validation.title("\u{2028}\u{3000}\u{2029}") }
        // Visible text with invisible characters in it is kept as given (todoctl shows them escaped).
        for text in ["a\u{200B}", "\u{202E}abc", "牛乳を買う", "👨‍👩‍👧", "葛\u{E0100}", "❤️", "\u{E000}", "・", "🫠"] {
            #expect(try Validation.title(text) == text)
        }
    }
}

@Suite struct DisplayTextTests {
    @Test func bidiZeroWidthAndSeparatorsAreWrittenOut() {
        #expect(DisplayText.escaped("invoice\u{202E}fdp.exe") == "invoice<U+202E>fdp.exe")
        #expect(DisplayText.escaped("a\u{2066}b\u{2069}c\u{202A}\u{202B}\u{202C}\u{202D}") == "a<U+2066>b<U+2069>c<U+202A><U+202B><U+202C><U+202D>")
        #expect(DisplayText.escaped("a\u{2028}b\u{2029}c") == "a<U+2028>b<U+2029>c")
        #expect(DisplayText.escaped("pay\u{200B}pal\u{200C}\u{200E}\u{200F}\u{2060}\u{FEFF}") == "pay<U+200B>pal<U+200C><U+200E><U+200F><U+2060><U+FEFF>")
        #expect(DisplayText.escaped("a\u{200D}b") == "a<U+200D>b")       // a joiner between letters
        #expect(DisplayText.escaped("\u{3164}") == "<U+3164>")
        #expect(DisplayText.escaped("\u{E0041}") == "<U+E0041>")         // a tag outside a flag
    }

    @Test func japaneseAndEmojiAreLeftAlone() {
        for text in ["牛乳を買う", "ｶﾀｶﾅﾞ", "葛\u{E0100}城", "👨‍👩‍👧", "👩🏽‍💻", "🏳️‍🌈", "❤️", "1️⃣", "🇯🇵",
                     "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "cafe\u{301}", "plain ascii", "😀\u{FE0E}"] {
            #expect(DisplayText.escaped(text) == text, "\(text.unicodeScalars.map(\.value))")
        }
        // Inside a sentence, the emoji's joiner stays and a stray one does not.
        #expect(DisplayText.escaped("家族 👨‍👩‍👧 と\u{200D}") == "家族 👨‍👩‍👧 と<U+200D>")
    }

    @Test func everyFormatCharacterIsEscapedOutsideEmoji() {
        for value in UInt32(0xA0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let format = scalar.properties.generalCategory == .format
            #expect(DisplayText.isHidden(scalar) == (format || [0x2028, 0x2029, 0x3164, 0xFFA0].contains(value)), "U+\(String(value, radix: 16))")
            if format { #expect(DisplayText.escaped("x" + String(scalar) + "y") == "x" + DisplayText.name(scalar) + "y") }
        }
    }

    @Test func invisibleShortcutsAgreeWithTheRule() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(DisplayText.isInvisible(scalar) == DisplayText.isInvisibleByProperties(scalar), "U+\(String(value, radix: 16))")
        }
    }
}
