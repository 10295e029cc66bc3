/// Reads one JSON-RPC response from a byte stream without holding it whole: the members of its
/// `result` object are parsed one by one, and the elements of one array member are handed over as
/// each arrives. A client prints the first todos of a long listing while the rest is still on the
/// wire, and its memory stays that of one element.
///
/// The reader only finds where each value ends (`JSONStream.endOfValue`); every piece is then
/// parsed by `JSON.parse`, so it accepts exactly what the whole-message parser accepts.
package struct JSONStream {
    /// What `read` is called for: more bytes, or nil at end of input.
    package typealias Source = () throws -> [UInt8]?

    /// Why the stream cannot be read as a response.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    private var buffer: [UInt8]
    private var position = 0
    private let source: Source
    /// One value (an element, a member) may not grow past this many bytes.
    private let maxValueLength: Int

    /// A reader of the bytes `buffered` (already received) followed by what `source` delivers.
    package init(buffered: [UInt8] = [], maxValueLength: Int = 1 << 30, source: @escaping Source) {
        buffer = buffered
        self.maxValueLength = maxValueLength
        self.source = source
    }

    /// Reads one message line: `{ … }` then a newline. Members are parsed whole, except that when
    /// the message has a `result` object holding an array under `arrayKey`, that array's elements
    /// go to `element` one by one, with the members of `result` read before the array, and the
    /// array is left out of the returned `result`; `streamed` says whether there was one.
    package mutating func message(
        streaming arrayKey: String,
        element: (JSON, JSONObject) throws -> Void
    ) throws -> (members: JSONObject, streamed: Bool) {
        var members = JSONObject()
        var streamed = false
        try skipWhitespace(allowingNewline: false)
        try expect(UInt8(ascii: "{"))
        var first = true
        while let key = try nextMember(first: &first) {
            guard key == "result", try peek() == UInt8(ascii: "{") else {
                members[key] = try value()
                continue
            }
            var result = JSONObject()
            try expect(UInt8(ascii: "{"))
            var firstInner = true
            while let inner = try nextMember(first: &firstInner) {
                if inner == arrayKey, try peek() == UInt8(ascii: "[") {
                    let before = result
                    try array { try element($0, before) }
                    streamed = true
                } else {
                    result[inner] = try value()
                }
            }
            members["result"] = .object(result)
        }
        try skipWhitespace(allowingNewline: false)
        if try peek() == 0x0D { position += 1 }
        guard try peek() == 0x0A else { throw Failure(description: "expected the end of the line") }
        position += 1
        compact()
        return (members, streamed)
    }

    /// The bytes received after the message, for whoever reads the stream next.
    package var remainder: [UInt8] { Array(buffer[position...]) }

    // MARK: - Structure

    /// The name of the next member of the object being read, positioned at its value; nil after
    /// the closing brace.
    private mutating func nextMember(first: inout Bool) throws -> String? {
        try skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            position += 1
            return nil
        }
        if !first {
            try expect(UInt8(ascii: ","))
            try skipWhitespace()
        }
        first = false
        guard case .string(let key) = try value() else { throw Failure(description: "expected a member name") }
        try skipWhitespace()
        try expect(UInt8(ascii: ":"))
        try skipWhitespace()
        return key
    }

    private mutating func array(_ element: (JSON) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        try skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            try skipWhitespace()
            try element(try value())
            compact()
            try skipWhitespace()
            if try peek() == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return
        }
    }

    /// The complete value at the current position, parsed.
    private mutating func value() throws -> JSON {
        while true {
            if let end = JSONStream.endOfValue(in: buffer, from: position) {
                let parsed = try JSON.parse(buffer[position..<end])
                position = end
                return parsed
            }
            guard buffer.count - position <= maxValueLength else {
                throw Failure(description: "a value longer than \(maxValueLength) bytes")
            }
            try fill()
        }
    }

    // MARK: - Bytes

    private mutating func peek() throws -> UInt8 {
        while position >= buffer.count { try fill() }
        return buffer[position]
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try peek() == byte else {
            throw Failure(description: "expected '\(Character(Unicode.Scalar(byte)))' at byte \(position)")
        }
        position += 1
    }

    /// Skips blanks, waiting for more bytes when the buffer ends: something must follow.
    private mutating func skipWhitespace(allowingNewline: Bool = true) throws {
        while true {
            while position < buffer.count {
                let byte = buffer[position]
                guard byte == 0x20 || byte == 0x09 || (allowingNewline && (byte == 0x0A || byte == 0x0D)) else {
                    return
                }
                position += 1
            }
            try fill()
        }
    }

    private mutating func fill() throws {
        guard let more = try source(), !more.isEmpty else { throw Failure(description: "the message ended early") }
        buffer.append(contentsOf: more)
    }

    /// Drops what has been consumed once it is most of the buffer.
    private mutating func compact() {
        if position > 64 * 1024, position > buffer.count / 2 {
            buffer.removeSubrange(0..<position)
            position = 0
        }
    }

    /// The index just past the JSON value starting at `start` (after no whitespace), or nil when
    /// `bytes` ends before the value does. Only strings and nesting are tracked: what lies between
    /// is checked by the parser afterwards.
    package static func endOfValue(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        var i = start
        var depth = 0
        repeat {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                i += 1
                while i < bytes.count && bytes[i] != UInt8(ascii: "\"") {
                    i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard i < bytes.count else { return nil }
                i += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return i + 1 } // a stray closer: the parser reports it
                depth -= 1
                i += 1
            default:
                // A number or literal runs to the next delimiter; at top level that ends the value.
                if depth == 0 {
                    while i < bytes.count, !isDelimiter(bytes[i]) { i += 1 }
                    return i < bytes.count ? i : nil
                }
                i += 1
            }
        } while depth > 0 && i < bytes.count
        return depth == 0 ? i : nil
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: true
        default: false
        }
    }
}
