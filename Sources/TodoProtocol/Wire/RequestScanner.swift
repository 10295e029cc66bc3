import Glibc

/// Reads a plain request line straight into an `RPCRequest`, without a tree of JSON values for
/// the envelope: the hot path of `RPCRequest.decode` (a `todo.get` in a loop decodes in a
/// fraction of the tree's instructions).
///
/// It accepts only what it can read completely and knows to be a valid request: an object with
/// at most the members `jsonrpc` (the string `"2.0"`), `id` (an integer of up to 18 digits, a
/// string or null), `method` (a string) and `params` (an object), each once; strings without a
/// backslash; `params` members that are such strings, integers, `true`, `false`, `null`, or
/// arrays of those, with distinct keys. Anything else — an error of any kind, an escape, a
/// fraction, a deeper value — is left to the tree decoder (`RPCRequest.decodeTree`), so every
/// strictness rule and every error message stays that decoder's, and for every line the
/// scanner accepts, the tree decoder makes the same request.
package enum RequestScanner {
    /// The request `line` holds, or nil when it is not a plain one (see above).
    package static func scan(_ line: [UInt8]) -> RPCRequest? {
        line.withUnsafeBufferPointer { scan($0) }
    }

    package static func scan(_ line: UnsafeBufferPointer<UInt8>) -> RPCRequest? {
        var scanner = Scanner(bytes: line)
        return scanner.request()
    }

    /// Members a scanned `params` object may have; a longer one is left to the tree decoder (its
    /// duplicate-key check here compares each key with those before it).
    static let maxParams = 16
}

private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private static let quote = UInt8(ascii: "\"")

    mutating func request() -> RPCRequest? {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        var id: JSON?
        var method: String?
        var params: JSONObject?
        var versioned = false
        skipWhitespace()
        if !take(UInt8(ascii: "}")) {
            while true {
                skipWhitespace()
                guard let key = plainString() else { return nil }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                switch Member(bytes, key) {
                case .jsonrpc?:
                    guard !versioned, let v = plainString(), equals(v, "2.0") else { return nil }
                    versioned = true
                case .id?:
                    guard id == nil, let v = scalar(), v == .null || v.intValue != nil || v.stringValue != nil else {
                        return nil
                    }
                    id = v
                case .method?:
                    guard method == nil, let v = plainString(), let name = string(v) else { return nil }
                    method = name
                case .params?:
                    guard params == nil, let v = object() else { return nil }
                    params = v
                case nil:
                    return nil
                }
                skipWhitespace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        skipWhitespace()
        guard index == bytes.count, versioned, let method else { return nil }
        return RPCRequest(id: id, method: method, params: params ?? JSONObject())
    }

    /// The envelope's members.
    private enum Member {
        case jsonrpc, id, method, params

        init?(_ bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) {
            let k = UnsafeBufferPointer(rebasing: bytes[key])
            if Scanner.equals(k, "id") {
                self = .id
            } else if Scanner.equals(k, "method") {
                self = .method
            } else if Scanner.equals(k, "params") {
                self = .params
            } else if Scanner.equals(k, "jsonrpc") {
                self = .jsonrpc
            } else {
                return nil
            }
        }
    }

    /// A `params` object of plain members with distinct keys.
    private mutating func object() -> JSONObject? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var pairs: [(key: String, value: JSON)] = []
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return JSONObject(distinctPairs: pairs) }
        pairs.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard pairs.count < RequestScanner.maxParams, let k = plainString(), let key = string(k) else { return nil }
            guard !pairs.contains(where: { $0.key == key }) else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            guard let value = index < bytes.count && bytes[index] == UInt8(ascii: "[") ? array() : scalar() else {
                return nil
            }
            pairs.append((key, value))
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            return JSONObject(distinctPairs: pairs)
        }
    }

    /// An array of plain scalars.
    private mutating func array() -> JSON? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var items: [JSON] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return .array(items) }
        while true {
            skipWhitespace()
            guard let item = scalar() else { return nil }
            items.append(item)
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "]")) else { return nil }
            return .array(items)
        }
    }

    /// A plain string, a short integer, `true`, `false` or `null`.
    private mutating func scalar() -> JSON? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case Scanner.quote:
            guard let s = plainString(), let text = string(s) else { return nil }
            return .string(text)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer().map(JSON.int)
        case UInt8(ascii: "t"): return word("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return word("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return word("null") ? .null : nil
        default: return nil
        }
    }

    /// `-?(0|[1-9][0-9]*)` of at most 18 digits (always within Int64), not followed by a
    /// fraction, an exponent or another digit.
    private mutating func integer() -> Int64? {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value &* 10 &+ Int64(bytes[index] - 0x30)
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits <= 18, digits == 1 || bytes[start] != 0x30 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") {
            return nil
        }
        return negative ? -value : value
    }

    /// The bytes between the quotes of a string with no backslash and no control character.
    private mutating func plainString() -> Range<Int>? {
        guard take(Scanner.quote) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == Scanner.quote {
                index += 1
                return start..<(index - 1)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// The text of a plain string; nil for invalid UTF-8.
    private func string(_ range: Range<Int>) -> String? {
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        if !text.contains(where: { $0 >= 0x80 }) { return String(decoding: text, as: UTF8.self) }
        return String(validating: text, as: UTF8.self)
    }

    private func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        Scanner.equals(UnsafeBufferPointer(rebasing: bytes[range]), text)
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        guard let base = bytes.baseAddress else { return bytes.isEmpty }
        return memcmp(base, text.utf8Start, bytes.count) == 0
    }

    private mutating func word(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard index + n <= bytes.count, Scanner.equals(UnsafeBufferPointer(rebasing: bytes[index..<index + n]), text)
        else { return false }
        index += n
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }
}
