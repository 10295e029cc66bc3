import Testing
import TodoProtocol

@Suite struct LineFramerTests {
    private func lines(_ input: [UInt8], chunk: Int, max: Int = 16) -> [LineFramer.Frame] {
        var framer = LineFramer(maxLineLength: max)
        var out: [LineFramer.Frame] = []
        var i = 0
        while i < input.count {
            framer.append(input[i..<min(i + chunk, input.count)])
            i += chunk
            while let frame = framer.next() {
                out.append(frame)
                if frame == .tooLong { return out }
            }
        }
        return out
    }

    /// The same bytes give the same lines whether fed one by one, in odd chunks, or at once.
    @Test(arguments: [1, 2, 3, 7, 1000])
    func dripFedOrBulkGivesTheSameLines(chunk: Int) {
        let input = Array("a\nbb\r\n\nccc\n日本語\npartial".utf8)
        let expected: [LineFramer.Frame] = [
            .line(Array("a".utf8)), .line(Array("bb".utf8)), .line([]),
            .line(Array("ccc".utf8)), .line(Array("日本語".utf8))
        ]
        #expect(lines(input, chunk: chunk) == expected)
    }

    @Test(arguments: [1, 5, 100])
    func aLineAtTheLimitPassesAndOnePastItFails(chunk: Int) {
        let atLimit = [UInt8](repeating: 0x61, count: 16) + [0x0A]
        #expect(lines(atLimit, chunk: chunk) == [.line([UInt8](repeating: 0x61, count: 16))])
        let past = [UInt8](repeating: 0x61, count: 17) + [0x0A, 0x62, 0x0A]
        #expect(lines(past, chunk: chunk) == [.tooLong])
        // Without a newline at all, the framer notices as soon as the limit is passed.
        #expect(lines([UInt8](repeating: 0x61, count: 40), chunk: chunk) == [.tooLong])
    }

    @Test func overflowIsFinal() {
        var framer = LineFramer(maxLineLength: 4)
        framer.append(Array("toolong\nok\n".utf8))
        #expect(framer.next() == .tooLong)
        framer.append(Array("ok\n".utf8))
        #expect(framer.next() == .tooLong)
    }
}
