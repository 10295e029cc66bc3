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
        defer { buffer = []; start = 0; scanned = 0 }
        return Array(buffer[start...])
    }

    package mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        guard !overflowed else { return }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line (without its newline), `.tooLong`, or nil when more bytes are needed.
    package mutating func next() -> Frame? {
        if overflowed { return .tooLong }
        var i = max(start, scanned)
        while i < buffer.count {
            if buffer[i] == 0x0A {
                var end = i
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                if end - start > maxLineLength { return overflow() }
                let line = Array(buffer[start..<end])
                start = i + 1
                scanned = start
                compact()
                return .line(line)
            }
            i += 1
        }
        scanned = i
        if buffer.count - start > maxLineLength + 1 { return overflow() }
        return nil
    }

    private mutating func overflow() -> Frame {
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
