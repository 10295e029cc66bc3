/// A JSON value. Objects keep their keys in order, so output is stable and reads like the input.
package enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer that fits in 64 bits (ids, counts, positions).
    case int(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)

    package subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    package var intValue: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }
    package var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    package var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }
    package var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }
    package var isNull: Bool { self == .null }

    /// A short name of the value's type, for error messages ("a string", "an object").
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object with keys in insertion order.
package struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    package private(set) var pairs: [(key: String, value: JSON)]

    package init() { pairs = [] }

    /// An object of pairs whose keys are known to be distinct (the parser checked them).
    init(distinctPairs: [(key: String, value: JSON)]) { pairs = distinctPairs }
    package init(dictionaryLiteral elements: (String, JSON)...) { pairs = elements.map { ($0.0, $0.1) } }

    package subscript(key: String) -> JSON? {
        get { pairs.first { $0.key == key }?.value }
        set {
            if let i = pairs.firstIndex(where: { $0.key == key }) {
                if let newValue { pairs[i].value = newValue } else { pairs.remove(at: i) }
            } else if let newValue {
                pairs.append((key, newValue))
            }
        }
    }

    package var keys: [String] { pairs.map(\.key) }

    package static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.pairs.count == b.pairs.count && zip(a.pairs, b.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: JSON...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSON)...) {
        var o = JSONObject()
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }
    package init(nilLiteral: ()) { self = .null }
}

// MARK: - Writing

extension JSON {
    /// Compact UTF-8 JSON text (no newlines), non-ASCII written as is.
    package func serialized() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends compact UTF-8 JSON text to `out`.
    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(literal: "null")
        case .bool(let b): out.append(literal: b ? "true" : "false")
        case .int(let i): out.append(decimal: i)
        case .double(let d):
            if d.isFinite {
                if d == d.rounded(), abs(d) < 1e15 {
                    out.append(decimal: Int64(d))
                } else {
                    out.append(contentsOf: "\(d)".utf8)
                }
            } else {
                out.append(literal: "null")
            }
        case .string(let s): JSON.writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, pair) in o.pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(pair.key, to: &out)
                out.append(UInt8(ascii: ":"))
                pair.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Whether any byte is a control character (below 0x20, or DEL), a quote or a backslash.
    /// Reads eight bytes at a time: each test is the "has a zero byte" bit trick, exact for the
    /// question "any?" (a set high bit of `(w - 0x01…) & ~w & 0x80…` marks a zero byte, or is a
    /// borrow above one). Bytes of multi-byte UTF-8 characters (0x80 and up) never match.
    static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ w: UInt64) -> Bool { (w &- ones) & ~w & highs != 0 }
        @inline(__always) func matches(_ w: UInt64) -> Bool {
            (w &- ones &* 0x20) & ~w & highs != 0 // a byte below 0x20
                || hasZeroByte(w ^ (ones &* 0x22)) || hasZeroByte(w ^ (ones &* 0x5C))
                || hasZeroByte(w ^ (ones &* 0x7F))
        }
        var i = 0
        if let base = UnsafeRawPointer(bytes.baseAddress), bytes.count >= 8 {
            while i + 8 <= bytes.count {
                if matches(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return true }
                i += 8
            }
            // The last few bytes: the last eight, read again in part.
            return i < bytes.count && matches(base.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return true }
            i += 1
        }
        return false
    }

    /// `s` as a JSON string (quotes, `\"`, `\\`, `\n`, `\r`, `\t`, and `\u00XX` for the other
    /// control characters and DEL). Most strings need no escape and are copied whole.
    static func writeString(_ s: String, to out: inout [UInt8]) {
        var text = s // `withUTF8` reads a native string in place
        let escaped = text.withUTF8 { bytes in
            guard needsEscape(bytes) else {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: bytes)
                out.append(UInt8(ascii: "\""))
                return false
            }
            return true
        }
        if escaped { out.append(roomFor: ByteWriter.stringBound(utf8Count: text.utf8.count)) { $0.put(string: s) } }
    }

    /// The lowercase hexadecimal digit of `nibble` (0...15).
    static func hexDigit(_ nibble: UInt8) -> UInt8 { hex[Int(nibble)] }
}

// MARK: - Reading

/// Why a text is not acceptable JSON; `offset` is the byte where reading stopped.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package let reason: String
    package let offset: Int
    package var description: String { "\(reason) at byte \(offset)" }
}

extension JSON {
    /// The deepest nesting of arrays and objects accepted.
    package static let maxDepth = 64

    /// Parses one JSON text (RFC 8259, strict: no trailing commas, comments, NaN, or invalid
    /// UTF-8; surrounding whitespace allowed; nesting at most `maxDepth`).
    package static func parse<Bytes: Collection>(_ bytes: Bytes) throws(JSONParseError) -> JSON
    where Bytes.Element == UInt8 {
        var parser = JSONParser(bytes: Array(bytes))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.fail("unexpected text after the value") }
        return value
    }

    package static func parse(_ text: String) throws(JSONParseError) -> JSON { try parse(Array(text.utf8)) }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    func fail(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

    mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSON {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard index + w.count <= bytes.count, bytes[index..<index + w.count].elementsEqual(w) else {
            throw fail("unexpected character")
        }
        index += w.count
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSON {
        guard depth <= JSON.maxDepth else { throw fail("nesting deeper than \(JSON.maxDepth)") }
        index += 1
        // Pairs are appended; a duplicate key is looked for among the few pairs so far, and past
        // `setFrom` keys in a set, so a huge object stays linear in the number of keys.
        var pairs: [(key: String, value: JSON)] = []
        pairs.reserveCapacity(4) // a request's members, in one allocation
        var keys: Set<String>? = nil
        let setFrom = 16
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let v = try value(depth: depth)
            let duplicate: Bool
            if keys != nil {
                duplicate = !keys!.insert(key).inserted
            } else {
                duplicate = pairs.contains { $0.key == key }
                if pairs.count + 1 == setFrom { keys = Set(pairs.map(\.key) + [key]) }
            }
            guard !duplicate else { throw fail("duplicate key \"\(key)\"") }
            pairs.append((key, v))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject(distinctPairs: pairs))
            }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSON {
        guard depth <= JSON.maxDepth else { throw fail("nesting deeper than \(JSON.maxDepth)") }
        index += 1
        var a: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(a)
        }
        while true {
            skipWhitespace()
            a.append(try value(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(a)
            }
            throw fail("expected ',' or ']'")
        }
    }

    mutating func string() throws(JSONParseError) -> String {
        index += 1
        // Most strings have no escape: they are made straight from the input bytes.
        let start = index
        var high: UInt8 = 0 // the union of the bytes' high bits: zero for ASCII
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"),
            bytes[index] >= 0x20
        {
            high |= bytes[index] & 0x80
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let end = index
            index += 1
            // ASCII needs no validation; the generic validating initializer costs more than the copy.
            if high == 0 {
                return bytes.withUnsafeBufferPointer {
                    String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
                }
            }
            guard let s = String(validating: bytes[start..<end], as: UTF8.self) else {
                throw fail("invalid UTF-8 in string")
            }
            return s
        }
        var out: [UInt8] = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { throw fail("unterminated string") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw fail("invalid escape")
                }
                continue
            }
            out.append(byte)
            index += 1
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
        return s
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("invalid escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 55)
            default: throw fail("invalid escape")
            }
            v = v * 16 + d
            index += 1
        }
        return v
    }

    mutating func number() throws(JSONParseError) -> JSON {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let i = Int64(text) { return .int(i) }
        guard let d = Double(text), d.isFinite else { throw fail("number out of range") }
        return .double(d)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
}

extension Array where Element == UInt8 {
    /// Appends a literal's UTF-8 bytes in one copy (appending a `String.UTF8View` goes through
    /// the generic sequence path).
    mutating func append(literal text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends the decimal digits of `value`, without making a String.
    mutating func append(decimal value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
