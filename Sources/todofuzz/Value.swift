/// A JSON-ish value the fuzzer can write *exactly* as it wants: raw number text, raw bytes inside
/// a string, duplicate keys (objects are lists of pairs). `TodoProtocol.JSON` cannot express those.
indirect enum V {
    case null
    case bool(Bool)
    case int(Int64)
    /// Verbatim text: numbers such as `1e308` or `-0`, or anything at all.
    case raw(String)
    /// Verbatim bytes (invalid UTF-8, NUL ...).
    case rawBytes([UInt8])
    /// A string, escaped properly.
    case str(String)
    /// `"` + these bytes unescaped + `"`: invalid UTF-8, raw control bytes, hand-written escapes.
    case strBytes([UInt8])
    case arr([V])
    case obj([(String, V)])

    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .raw(let text): out.append(contentsOf: text.utf8)
        case .rawBytes(let bytes): out.append(contentsOf: bytes)
        case .str(let s): V.writeString(s, to: &out)
        case .strBytes(let bytes):
            out.append(0x22)
            out.append(contentsOf: bytes)
            out.append(0x22)
        case .arr(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .obj(let pairs):
            out.append(UInt8(ascii: "{"))
            for (i, pair) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                V.writeString(pair.0, to: &out)
                out.append(UInt8(ascii: ":"))
                pair.1.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    private static let hex = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}

/// A request under construction. Any member may be missing or of the wrong type.
struct Request {
    var jsonrpc: V? = .str("2.0")
    var id: V?
    var method: V?
    var params: V?
    /// Extra top-level members, after the usual ones.
    var extra: [(String, V)] = []
    /// Write the members in reverse order (members are unordered in JSON).
    var reversed = false

    var value: V {
        var pairs: [(String, V)] = []
        if let jsonrpc { pairs.append(("jsonrpc", jsonrpc)) }
        if let id { pairs.append(("id", id)) }
        if let method { pairs.append(("method", method)) }
        if let params { pairs.append(("params", params)) }
        pairs += extra
        return .obj(reversed ? pairs.reversed() : pairs)
    }

    var line: [UInt8] {
        var out = value.bytes
        out.append(0x0A)
        return out
    }
}
