import Glibc

/// Splits a byte stream into `\n`-terminated lines with a hard cap on line length.
///
/// Feed it whatever `read` returned, then take lines until `next()` returns nil. A trailing `\r`
/// is dropped (so CRLF works). Once a line grows past `maxLineLength` without a newline,
/// `next()` returns `.tooLong` and the framer stops producing lines: the connection must close.
package struct LineFramer: Sendable {
    package enum Frame: Equatable, Sendable {
        case line([UInt8])
        case tooLong
    }

    /// A line longer than 1 MiB is refused (docs/PROTOCOL.md).
    package static let defaultMaxLineLength = 1 << 20

    package let maxLineLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes before this index (from `start`) are known to contain no newline.
    private var scanned = 0
    private var overflowed = false

    package init(maxLineLength: Int = LineFramer.defaultMaxLineLength) {
        self.maxLineLength = maxLineLength
    }

    /// Bytes received but not yet returned as a line.
    package var pendingCount: Int { buffer.count - start }

    /// Removes and returns the bytes received but not yet returned as a line (for a reader that
    /// takes the stream over).
    package mutating func takePending() -> [UInt8] {
        defer {
            buffer = []
            start = 0
            scanned = 0
        }
        return Array(buffer[start...])
    }

    /// Appends what a `read` returned. (Concrete rather than generic: called from other modules,
    /// a generic append is not specialized there and copies byte by byte.)
    package mutating func append(_ bytes: ArraySlice<UInt8>) {
        guard !overflowed else { return }
        bytes.withUnsafeBufferPointer { buffer.append(contentsOf: $0) }
    }

    package mutating func append(_ bytes: [UInt8]) {
        append(bytes[...])
    }

    /// The next complete line (without its newline), `.tooLong`, or nil when more bytes are needed.
    package mutating func next() -> Frame? {
        var line: [UInt8] = []
        switch nextDecoded({ line = Array($0) }) {
        case .line: return .line(line)
        case .tooLong: return .tooLong
        case .none: return nil
        }
    }

    /// What `nextDecoded(_:)` found: a line made into a value, a line too long, or nothing yet.
    package enum Decoded<Value> {
        case line(Value)
        case tooLong
        case none
    }

    /// The next request, decoded where its line lies in the buffer (`RPCRequest.decode`); a blank
    /// line is `.line(nil)`. Returned by value: the caller moves it on (a request holds JSON
    /// values, whose copies are released through the runtime's generic code).
    package mutating func nextRequest() -> Decoded<Result<RPCRequest, RPCFailure>?> {
        nextDecoded { line in line.allSatisfy { $0 == 0x20 || $0 == 0x09 } ? nil : RPCRequest.decode(line) }
    }

    /// As `next()`, but the line's bytes are handed to `decode` where they lie (valid only during
    /// the call), and what it makes of them is returned by value. (Used within this module only,
    /// where it is specialized: called from another, the generic code stored and read the
    /// result's enum through the runtime.)
    private mutating func nextDecoded<Value>(_ decode: (UnsafeBufferPointer<UInt8>) -> Value) -> Decoded<Value> {
        if overflowed { return .tooLong }
        let from = max(start, scanned)
        guard let i = LineFramer.newline(in: buffer, from: from) else {
            scanned = buffer.count
            if buffer.count - start > maxLineLength + 1 { return overflow() }
            return .none
        }
        var end = i
        if end > start, buffer[end - 1] == 0x0D { end -= 1 }
        if end - start > maxLineLength { return overflow() }
        let value = buffer.withUnsafeBufferPointer { [start] in decode(UnsafeBufferPointer(rebasing: $0[start..<end])) }
        start = i + 1
        scanned = start
        compact()
        return .line(value)
    }

    /// The index of the first newline in `bytes` at or after `from` (`memchr`, not a loop in Swift).
    private static func newline(in bytes: [UInt8], from: Int) -> Int? {
        guard from < bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { b -> Int? in
            guard let base = b.baseAddress, let hit = memchr(base + from, 0x0A, b.count - from) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    private mutating func overflow<Value>() -> Decoded<Value> {
        overflowed = true
        buffer = []
        start = 0
        scanned = 0
        return .tooLong
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
            scanned = 0
        } else if start > 64 * 1024, start > buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
    }
}
