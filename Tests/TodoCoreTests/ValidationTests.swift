import Testing

@testable import TodoCore

@Suite struct ValidationTests {
    @Test func trimsIncludingIdeographicSpace() throws {
        #expect(try Validation.title("\u{3000} 牛乳を買う \t") == "牛乳を買う")
        #expect(try Validation.categoryName("  仕事 ") == "仕事")
    }

    @Test func notesAllowLineBreaksButNotOtherControls() throws {
        #expect(try Validation.notes("a\nb\tc") == "a\nb\tc")
        #expect(try Validation.notes("   ") == nil)
        #expect(throws: TodoError.invalid("notes", "contains control character U+001B")) {
            try Validation.notes("\u{1B}[31m")
        }
    }

    @Test func controlCharactersAreExactlyCategoryCc() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(
                Validation.isControl(scalar) == (scalar.properties.generalCategory == .control),
                "U+\(String(value, radix: 16))")
        }
    }

    @Test func limitsCountCharactersAndBytes() throws {
        let kanji = String(repeating: "漢", count: Validation.maxTitleCharacters) // 3,000 bytes
        #expect(try Validation.title(kanji) == kanji)
        let astral = String(repeating: "𠀋", count: Validation.maxTitleCharacters) // 4 bytes each: 4,000 bytes
        #expect(try Validation.title(astral) == astral)
        let family = String(repeating: "👨‍👩‍👧", count: 227) // one character each, 18 bytes: 4,086 bytes
        #expect(try Validation.title(family) == family)
        #expect(throws: TodoError.invalid("title", "longer than 4096 bytes")) { try Validation.title(family + "👨‍👩‍👧") }
        #expect(throws: TodoError.invalid("title", "longer than 1000 characters")) { try Validation.title(kanji + "字") }
        // 200,000 combining marks on one letter are one character, but 400,000 bytes.
        let zalgo = "a" + String(repeating: "\u{301}", count: 200_000)
        #expect(zalgo.count == 1)
        #expect(throws: TodoError.invalid("title", "longer than 4096 bytes")) { try Validation.title(zalgo) }
        let category = String(repeating: "仕", count: Validation.maxCategoryCharacters) // 600 bytes
        #expect(try Validation.categoryName(category) == category)
        #expect(throws: TodoError.invalid("category", "longer than 1024 bytes")) {
            try Validation.categoryName("x" + String(repeating: "\u{301}", count: 600))
        }
        #expect(try Validation.title("plain") == "plain")
        #expect(try Validation.title(" a ") == "a")
    }

    @Test func aTitleOfOnlyInvisibleCharactersIsRefused() throws {
        let invisible = [
            "\u{200B}", "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}", "\u{202E}", "\u{2066}\u{2069}",
            "\u{301}\u{302}", "\u{3164}", "\u{FE0F}", "\u{E0100}", "\u{00AD}", "\u{115F}", "\u{180E}"
        ]
        for text in invisible {
            #expect(
                throws: TodoError.invalid("title", "has no visible characters"), "\(text.unicodeScalars.map(\.value))"
            ) {
                try Validation.title(text)
            }
            #expect(throws: TodoError.invalid("name", "has no visible characters")) {
                try Validation.categoryName(text, field: "name")
            }
        }
        // Separators and spaces around them are trimmed away: empty.
        #expect(throws: TodoError.invalid("title", "must not be empty")) {
            try Validation.title("\u{2028}\u{3000}\u{2029}")
        }
        // Visible text with invisible characters in it is kept as given (todoctl shows them escaped).
        for text in ["a\u{200B}", "\u{202E}abc", "牛乳を買う", "👨‍👩‍👧", "葛\u{E0100}", "❤️", "\u{E000}", "・", "🫠"] {
            #expect(try Validation.title(text) == text)
        }
    }
}
