import Testing
import TodoProtocol

@Suite struct JSONTests {
    @Test func roundTripsUnicodeAndEscapes() throws {
        let value: JSON = [
            "title": "牛乳を買う 🍣 \"quoted\" \\ \n\t\u{1}", "n": 42, "neg": -7, "f": .double(1.5),
            "ok": true, "none": nil, "list": [1, "two", [:]]
        ]
        let text = value.serialized()
        #expect(!text.contains("\n"))
        #expect(text.contains("牛乳を買う 🍣"))
        #expect(try JSON.parse(text) == value)
        #expect(try JSON.parse("\"\\ud83c\\udf63\\u00e9\"") == "🍣é")
    }

    @Test(arguments: [
        "", "{", "{\"a\":1,}", "[1,]", "01", "1.", "-", "NaN", "{\"a\" 1}", "\"\\x\"", "\"\\ud83c\"", "tru",
        "{\"a\":1}{", "\"a\u{1}\"", "{\"a\":1,\"a\":2}", "1e999"
    ])
    func rejectsMalformedText(text: String) {
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) {
            try JSON.parse(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))
        }
        #expect((try? JSON.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))) != nil)
    }

    @Test func keepsIntegersExact() throws {
        #expect(try JSON.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSON.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSON.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        for n: Int64 in [0, 7, -1, 10, -10, 1_000_000, Int64.max, Int64.min] {
            #expect(JSON.int(n).serialized() == String(n))
        }
    }

    /// The exact text written: escapes only where JSON needs them, everything else as is.
    @Test func writesStringsWithTheFewEscapesJSONNeeds() {
        #expect(JSON.string("牛乳を買う 🍣").serialized() == "\"牛乳を買う 🍣\"")
        #expect(
            JSON.string("a\"b\\c\nd\re\tf\u{1}g\u{1F}h\u{7F}i/").serialized()
                == #""a\"b\\c\nd\re\tf\u0001g\u001fh\u007fi/""#)
        #expect(JSON.string("").serialized() == "\"\"")
        #expect(JSON.object(["キー": "値", "k": .null, "b": false]).serialized() == #"{"キー":"値","k":null,"b":false}"#)
    }

    /// Plain ASCII strings take a fast path when parsed; the others are validated as UTF-8.
    @Test func parsesASCIIAndOtherStringsAlike() throws {
        #expect(
            try JSON.parse(#"{"method":"todo.get","ja":"予定","mixed":"a😀b"}"#)
                == ["method": "todo.get", "ja": "予定", "mixed": "a😀b"])
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0x61, 0xC3, 0x22]) } // truncated sequence
    }
}
