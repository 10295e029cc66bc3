import Testing
import TodoProtocol

/// A source handing over `bytes` in pieces of `size` bytes, then end of input.
private func pieces(_ bytes: [UInt8], size: Int) -> JSONStream.Source {
    var offset = 0
    return {
        guard offset < bytes.count else { return nil }
        defer { offset += size }
        return Array(bytes[offset..<min(offset + size, bytes.count)])
    }
}

struct JSONStreamTests {
    static let todos: [JSON] = [
        ["id": 1, "title": "牛乳を買う ] } \" \\ ,", "notes": nil, "done": false, "tags": [["a": [1, 2]], []]],
        ["id": 2, "title": "🍣 emoji", "due": "2026-12-01T09:00:00Z", "n": -15],
        ["id": 3, "title": "", "done": true]
    ]

    static func line(_ message: JSON) -> [UInt8] {
        var bytes: [UInt8] = []
        message.write(to: &bytes)
        return bytes + [0x0A]
    }

    /// Any split of the bytes gives the elements one by one and the other members whole.
    @Test func everySplitGivesTheSameElementsAndMembers() throws {
        let message: JSON = [
            "jsonrpc": "2.0", "result": ["total": 7, "todos": .array(Self.todos), "more": ["x": true]], "id": 4
        ]
        let bytes = Self.line(message) + Array(#"{"next":1}"#.utf8)
        for size in 1...bytes.count {
            var stream = JSONStream(source: pieces(bytes, size: size))
            var seen: [JSON] = []
            let (members, streamed) = try stream.message(streaming: "todos") { item, before in
                seen.append(item)
                #expect(before == ["total": 7]) // what came before the array
            }
            #expect(seen == Self.todos, "pieces of \(size)")
            #expect(streamed && members["id"] == 4 && members["jsonrpc"] == "2.0")
            #expect(members["result"] == ["total": 7, "more": ["x": true]])
            #expect(stream.remainder.count <= bytes.count)
        }
    }

    @Test func anErrorOrAnotherShapeIsReadWhole() throws {
        let error: JSON = ["jsonrpc": "2.0", "error": ["code": -32001, "message": "no todo with id 9"], "id": 1]
        var stream = JSONStream(source: pieces(Self.line(error), size: 3))
        var calls = 0
        #expect(try stream.message(streaming: "todos") { _, _ in calls += 1 }.members == error.objectValue)
        #expect(calls == 0)
        let notArray: JSON = ["jsonrpc": "2.0", "result": ["todos": "none"], "id": 1]
        stream = JSONStream(source: pieces(Self.line(notArray), size: 5))
        let read = try stream.message(streaming: "todos") { _, _ in calls += 1 }
        #expect(read.members == notArray.objectValue && !read.streamed)
        #expect(calls == 0)
    }

    @Test(arguments: [
        #"{"result":{"todos":[{"id":1},{"id":2"#, // cut off
        #"{"result":{"todos":[{"id":1} {"id":2}]}}"#, // missing comma
        #"{"result":{"todos":[{"id":01}]}}"#, // not JSON inside
        #"{"result":{"todos":[}]}}"#, // stray closer
        #"["not","an","object"]"#,
        #"{"id":1}{"id":2}"#, // no newline after the message
        ""
    ])
    func malformedStreamsFail(text: String) {
        var stream = JSONStream(source: pieces(Array(text.utf8), size: 4))
        #expect(throws: (any Error).self) { _ = try stream.message(streaming: "todos") { _, _ in } }
    }

    @Test func endOfValueFindsWhereEachValueEnds() {
        let cases: [(String, Int?)] = [
            (#""a\"b" x"#, 6), (#"{"a":[1,{"b":"]"}]},"#, 19), ("123,", 3), ("123", nil), ("true]", 4),
            (#"{"a":"#, nil), (#""abc"#, nil), ("[[]]", 4), ("}", 1)
        ]
        for (text, end) in cases {
            #expect(JSONStream.endOfValue(in: Array(text.utf8), from: 0) == end, "\(text)")
        }
    }
}
