import TodoCore

/// Writes JSON text through a pointer into room made for it beforehand, so that a value of many
/// fields (a todo) is written with plain stores instead of one checked, growing `Array.append` per
/// piece. Each piece checks that it fits before it writes: one that does not writes nothing and
/// marks the writer `overflowed` (nothing after it is written either), and
/// `[UInt8].append(roomFor:_:)` writes the whole value again into more room. The room asked for
/// is a hint, never trusted: the `…Bound` functions below say the most a piece can take.
struct ByteWriter {
    private let start: UnsafeMutablePointer<UInt8>
    private let end: UnsafeMutablePointer<UInt8>
    private var next: UnsafeMutablePointer<UInt8>
    /// A piece did not fit: what was written is incomplete, and nothing more is written.
    private(set) var overflowed = false
    /// The instant `put(instant:)` wrote last, and where its text is: a todo repeats some (its
    /// `created` and `updated`, its `remind` and its alarm's `next`), copied rather than formatted again.
    private var lastInstant: (instant: Instant, text: UnsafeMutablePointer<UInt8>, count: Int)?

    init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        start = room.baseAddress!
        end = start + room.count
        next = start
    }

    /// How many bytes were written.
    var count: Int { next - start }

    /// Whether `n` more bytes fit; when not, the writer stops for good.
    @inline(__always) private mutating func fits(_ n: Int) -> Bool {
        if _fastPath(!overflowed && end - next >= n) { return true }
        overflowed = true
        return false
    }

    @inline(__always) mutating func put(_ byte: UInt8) {
        guard fits(1) else { return }
        next.pointee = byte
        next += 1
    }

    @inline(__always) mutating func put(_ literal: StaticString) {
        let n = literal.utf8CodeUnitCount
        guard fits(n) else { return }
        next.update(from: literal.utf8Start, count: n)
        next += n
    }

    @inline(__always) mutating func put(bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, fits(bytes.count) else { return }
        let n = bytes.count
        if n >= 8 && n <= 16 { // a key or a short value: two overlapping words, no call to memcpy
            let from = UnsafeRawPointer(base)
            let to = UnsafeMutableRawPointer(next)
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        } else {
            next.update(from: base, count: n)
        }
        next += n
    }

    /// The most `put(decimal:)` writes.
    static let decimalBound = 20

    mutating func put(decimal value: Int64) {
        guard fits(Self.decimalBound) else { return }
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 0
        var probe = magnitude
        repeat {
            digits += 1
            probe /= 10
        } while probe > 0
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
        var s = s // `withUTF8` reads a native string in place
        s.withUTF8 { put(string: $0) }
    }

    /// UTF-8 `bytes` as a JSON string, escaped as `JSON.writeString` escapes it.
    mutating func put(string bytes: UnsafeBufferPointer<UInt8>) {
        guard JSON.needsEscape(bytes) else {
            guard fits(bytes.count + 2) else { return }
            put(UInt8(ascii: "\""))
            put(bytes: bytes)
            return put(UInt8(ascii: "\""))
        }
        guard fits(Self.stringBound(utf8Count: bytes.count)) else { return }
        put(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""):
                put(0x5C)
                put(0x22)
            case UInt8(ascii: "\\"):
                put(0x5C)
                put(0x5C)
            case 0x0A:
                put(0x5C)
                put(UInt8(ascii: "n"))
            case 0x0D:
                put(0x5C)
                put(UInt8(ascii: "r"))
            case 0x09:
                put(0x5C)
                put(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                put(#"\u00"#)
                put(JSON.hexDigit(byte >> 4))
                put(JSON.hexDigit(byte & 0xF))
            default: put(byte)
            }
        }
        put(UInt8(ascii: "\""))
    }

    /// The most `put(instant:)` writes.
    static let instantBound = Instant.rfc3339Capacity + 2

    /// `instant` as a quoted RFC 3339 UTC text, with microseconds only when it has them.
    mutating func put(instant: Instant) {
        guard fits(Self.instantBound) else { return }
        put(UInt8(ascii: "\""))
        if let last = lastInstant, last.instant == instant {
            next.update(from: last.text, count: last.count)
            next += last.count
        } else {
            let count = instant.writeRFC3339(fractional: true, into: next)
            lastInstant = (instant, next, count)
            next += count
        }
        put(UInt8(ascii: "\""))
    }
}

extension Array where Element == UInt8 {
    /// Appends what `write` writes, into room for `hint` bytes first (on the stack when it is
    /// small), then, each time a piece does not fit, written again into twice the room.
    @inline(__always) mutating func append(roomFor hint: Int, _ write: (inout ByteWriter) -> Void) {
        var room = Swift.max(hint, 64)
        if room <= 4096 {
            let done = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer -> Bool in
                var writer = ByteWriter(buffer)
                write(&writer)
                guard !writer.overflowed else { return false }
                append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: writer.count))
                return true
            }
            if done { return }
            room *= 2
        }
        append(contentsOf: [UInt8](roomFor: room, write))
    }

    /// The bytes `write` writes, into a new array of capacity `hint`, then twice that each time a
    /// piece does not fit.
    init(roomFor hint: Int, _ write: (inout ByteWriter) -> Void) {
        var room = Swift.max(hint, 64)
        while true {
            var overflowed = false
            self.init(unsafeUninitializedCapacity: room) { buffer, count in
                var writer = ByteWriter(buffer)
                write(&writer)
                overflowed = writer.overflowed
                count = overflowed ? 0 : writer.count
            }
            if !overflowed { return }
            room *= 2
        }
    }
}
