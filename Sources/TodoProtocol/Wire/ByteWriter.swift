import TodoCore

/// Writes JSON text through a pointer into room that was sized for it beforehand, so that a
/// value of many fields (a todo) is written with plain stores instead of one checked, growing
/// `Array.append` per piece. The room's size comes from the `…Bound` functions below, each the
/// most its piece can take; `[UInt8].append(atMost:_:)` makes the room and keeps what was written.
struct ByteWriter {
    private let start: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        next = start
    }

    /// How many bytes were written.
    var count: Int { next - start }

    @inline(__always) mutating func put(_ byte: UInt8) {
        next.pointee = byte
        next += 1
    }

    @inline(__always) mutating func put(_ literal: StaticString) {
        let n = literal.utf8CodeUnitCount
        next.update(from: literal.utf8Start, count: n)
        next += n
    }

    @inline(__always) mutating func put(bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        next.update(from: base, count: bytes.count)
        next += bytes.count
    }

    /// The most `put(decimal:)` writes.
    static let decimalBound = 20

    mutating func put(decimal value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 0
        var probe = magnitude
        repeat { digits += 1; probe /= 10 } while probe > 0
        var at = next + digits
        next = at
        repeat {
            at -= 1
            at.pointee = 0x30 + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }

    /// The most `put(string:)` writes for a string of `utf8Count` bytes: each byte escaped as
    /// `\u00XX`, and the quotes.
    static func stringBound(utf8Count: Int) -> Int { utf8Count * 6 + 2 }

    /// The most `put(string:)` writes for `s` (its UTF-8 count is stored: no scan).
    @inline(__always) static func stringBound(_ s: String) -> Int { stringBound(utf8Count: s.utf8.count) }

    /// `s` as a JSON string, escaped as `JSON.writeString` escapes it.
    mutating func put(string s: String) {
        put(UInt8(ascii: "\""))
        var s = s  // `withUTF8` reads a native string in place
        s.withUTF8 { bytes in
            guard JSON.needsEscape(bytes) else { return put(bytes: bytes) }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): put(0x5C); put(0x22)
                case UInt8(ascii: "\\"): put(0x5C); put(0x5C)
                case 0x0A: put(0x5C); put(UInt8(ascii: "n"))
                case 0x0D: put(0x5C); put(UInt8(ascii: "r"))
                case 0x09: put(0x5C); put(UInt8(ascii: "t"))
                case 0..<0x20, 0x7F:
                    put(#"\u00"#)
                    put(JSON.hexDigit(byte >> 4)); put(JSON.hexDigit(byte & 0xF))
                default: put(byte)
                }
            }
        }
        put(UInt8(ascii: "\""))
    }

    /// The most `put(instant:)` writes.
    static let instantBound = Instant.rfc3339Capacity + 2

    /// `instant` as a quoted RFC 3339 UTC text, with microseconds only when it has them.
    mutating func put(instant: Instant) {
        put(UInt8(ascii: "\""))
        next += instant.writeRFC3339(fractional: true, into: next)
        put(UInt8(ascii: "\""))
    }
}

extension Array where Element == UInt8 {
    /// Appends what `write` writes into room for `bound` bytes (it must write no more). The room
    /// is on the stack when it is small, else a heap array.
    @inline(__always) mutating func append(atMost bound: Int, _ write: (inout ByteWriter) -> Void) {
        guard bound <= 4096 else { return append(contentsOf: [UInt8](atMost: bound, write)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { room in
            var writer = ByteWriter(room.baseAddress!)
            write(&writer)
            precondition(writer.count <= bound, "wrote \(writer.count) bytes into room for \(bound)")
            append(contentsOf: UnsafeBufferPointer(start: room.baseAddress, count: writer.count))
        }
    }

    /// The bytes `write` writes into a new array of capacity `bound` (it must write no more).
    @inline(__always) init(atMost bound: Int, _ write: (inout ByteWriter) -> Void) {
        self.init(unsafeUninitializedCapacity: bound) { room, count in
            var writer = ByteWriter(room.baseAddress!)
            write(&writer)
            precondition(writer.count <= bound, "wrote \(writer.count) bytes into room for \(bound)")
            count = writer.count
        }
    }
}
