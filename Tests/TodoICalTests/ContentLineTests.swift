import Testing
import TodoCore

@testable import TodoICal

/// Folding, unfolding, parameters and TEXT escaping (RFC 5545 §3.1, §3.3.11).
@Suite struct ContentLineTests {
    /// Every physical line of `folded` (CRLF-separated), as bytes.
    static func physicalLines(_ folded: String) -> [[UInt8]] {
        var lines: [[UInt8]] = [[]]
        let bytes = Array(folded.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A {
                lines.append([])
                i += 2
            } else {
                lines[lines.count - 1].append(bytes[i])
                i += 1
            }
        }
        return lines.filter { !$0.isEmpty }
    }

    /// Japanese text starting at every byte offset of the first physical line: no physical line
    /// is longer than 75 octets, none splits a UTF-8 character, and unfolding gives the line back.
    @Test func foldingJapaneseAtEveryOffset() throws {
        let japanese = String(repeating: "日本語のテキスト、折り返し。", count: 12) + "🍣é"
        for offset in 0...80 {
            let line = "SUMMARY:" + String(repeating: "a", count: offset) + japanese
            let folded = ContentLines.fold(line)
            #expect(folded.hasSuffix("\r\n"))
            let physical = Self.physicalLines(folded)
            for (n, p) in physical.enumerated() {
                #expect(p.count <= 75, "offset \(offset), line \(n): \(p.count) octets")
                #expect(String(validating: p, as: UTF8.self) != nil, "offset \(offset), line \(n) splits a character")
                if n > 0 { #expect(p.first == 0x20) }
            }
            let unfolded = try ContentLines.unfold(Array(folded.utf8))
            #expect(unfolded.map(\.text) == [line], "offset \(offset)")
        }
    }

    /// A line of exactly 75 octets is not folded; one more octet is.
    @Test func foldBoundary() {
        let exact = "X-A:" + String(repeating: "b", count: 71)
        #expect(ContentLines.fold(exact) == exact + "\r\n")
        #expect(ContentLines.fold(exact + "c") == exact + "\r\n c\r\n")
    }

    /// LF and CRLF line ends, tab continuations, a byte order mark; line numbers are physical.
    @Test func unfoldAcceptsBothLineEnds() throws {
        let text = "\u{FEFF}BEGIN:VCALENDAR\nSUMMARY:ab\r\n c\n\td\r\nEND:VCALENDAR\r\n"
        let lines = try ContentLines.unfold(Array(text.utf8))
        #expect(lines.map(\.text) == ["BEGIN:VCALENDAR", "SUMMARY:abcd", "END:VCALENDAR"])
        #expect(lines.map(\.number) == [1, 2, 5])
    }

    /// A fold that another writer put inside a UTF-8 character is joined before decoding.
    @Test func unfoldJoinsSplitCharacters() throws {
        var bytes = Array("SUMMARY:".utf8) + [0xE6, 0x97]
        bytes += Array("\r\n ".utf8) + [0xA5] + Array("\r\n".utf8)
        #expect(try ContentLines.unfold(bytes).map(\.text) == ["SUMMARY:日"])
    }

    @Test func escapingRoundTrips() {
        let cases = ["a,b;c\\d", "line1\nline2", "", "\\n is not a newline", "日本語,カンマ;セミコロン"]
        for text in cases {
            #expect(ContentLines.unescape(ContentLines.escape(text)) == [text])
        }
        #expect(ContentLines.escape("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne")
        #expect(ContentLines.escape("a\r\nb") == "a\\nb")
        #expect(ContentLines.unescape("a\\Nb\\,c") == ["a\nb,c"])
        #expect(ContentLines.unescape("one\\,two,three", separator: ",") == ["one,two", "three"])
    }

    /// Parameter values: quoted ones may hold `:` `;` `,`; several values; names upper-cased.
    @Test func parameters() throws {
        let line = try ContentLine(
            parsing: #"attendee;cn="Doe, Jane";x-list=a,"b:c";ROLE=REQ-PARTICIPANT:mailto:jd@example.com"#, number: 3)
        #expect(line.name == "ATTENDEE")
        #expect(line.parameters.map(\.name) == ["CN", "X-LIST", "ROLE"])
        #expect(line.parameters[0].values == ["Doe, Jane"])
        #expect(line.parameters[1].values == ["a", "b:c"])
        #expect(line.value == "mailto:jd@example.com")
        let written = ContentLine(name: "X-Y", parameters: [("P", ["a:b", "plain"])], value: "v")
        #expect(written.text == #"X-Y;P="a:b",plain:v"#)
    }

    @Test func malformedLinesNameTheirLine() {
        #expect(throws: ICalError(line: 7, "expected ':' after SUMMARY")) {
            try ContentLine(parsing: "SUMMARY", number: 7)
        }
        #expect(throws: ICalError(line: 2, "unterminated quoted parameter value in X")) {
            try ContentLine(parsing: "X;A=\"b:c", number: 2)
        }
        #expect(throws: ICalError(line: 1, "expected a property name, found \":value\"")) {
            try ContentLine(parsing: ":value", number: 1)
        }
    }

    @Test func durations() {
        #expect(ICalDuration.parse("-PT15M") == -900)
        #expect(ICalDuration.parse("P1DT2H") == 93_600)
        #expect(ICalDuration.parse("P2W") == 1_209_600)
        #expect(ICalDuration.parse("PT0S") == 0)
        #expect(ICalDuration.parse("+PT1H30M") == 5400)
        #expect(ICalDuration.parse("P") == nil)
        #expect(ICalDuration.parse("PT5") == nil)
        #expect(ICalDuration.parse("15M") == nil)
        for s: Int64 in [0, -900, 93_600, 86_400, -5, 3661] {
            #expect(ICalDuration.parse(ICalDuration.text(s)) == s)
        }
        #expect(ICalDuration.text(-900) == "-PT15M")
        #expect(ICalDuration.text(0) == "PT0S")
        #expect(ICalDuration.text(86_400) == "P1D")
    }
}
