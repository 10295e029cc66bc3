import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The lines of a text file read in blocks, so a file of any length takes memory for one line:
/// LF, CRLF and CR (old Mac files) each end a line, a leading UTF-8 byte order mark is dropped.
/// A line longer than `maxLine` bytes is handed on as nil (and not held).
struct TextLines {
    /// The longest line handed on, in bytes.
    var maxLine = 128 * 1024
    private var line: [UInt8] = []
    private var tooLong = false
    private var afterCR = false
    private var number = 0
    private var atStart = true

    /// Feeds `bytes` (the next block of the file); `body` gets each complete line's number and bytes.
    mutating func feed<E: Error>(_ bytes: ArraySlice<UInt8>, _ body: (Int, [UInt8]?) throws(E) -> Void) throws(E) {
        var bytes = bytes
        if atStart, !bytes.isEmpty {
            // The byte order mark may arrive split across blocks only in a file of under 3 bytes: ignored.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            atStart = false
        }
        for b in bytes {
            if b == 0x0A && afterCR {
                afterCR = false
                continue
            } // the LF of a CRLF
            afterCR = b == 0x0D
            if b == 0x0A || b == 0x0D {
                try end(body)
                continue
            }
            guard !tooLong else { continue }
            if line.count >= maxLine {
                tooLong = true
                line = []
                continue
            }
            line.append(b)
        }
    }

    /// Hands on the last line when the file does not end with a line end.
    mutating func finish<E: Error>(_ body: (Int, [UInt8]?) throws(E) -> Void) throws(E) {
        if !line.isEmpty || tooLong { try end(body) }
    }

    private mutating func end<E: Error>(_ body: (Int, [UInt8]?) throws(E) -> Void) throws(E) {
        number += 1
        let done = tooLong ? nil : line
        line.removeAll(keepingCapacity: true)
        tooLong = false
        try body(number, done)
    }

    /// Every line of the file open as `fd`, read in blocks of 64 KiB.
    static func read<E: Error>(_ fd: Int32, maxLine: Int = 128 * 1024, _ body: (Int, [UInt8]?) throws(E) -> Void)
        throws(TextLinesError<E>)
    {
        var lines = TextLines()
        lines.maxLine = maxLine
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n: Int
            do { n = try Posix.read(fd, into: &buffer) ?? 0 } catch { throw .read(error) }
            if n == 0 { break }
            do { try lines.feed(buffer[0..<n], body) } catch { throw .body(error) }
        }
        do { try lines.finish(body) } catch { throw .body(error) }
    }
}

/// Why `TextLines.read` stopped: the file could not be read, or the body threw.
enum TextLinesError<E: Error>: Error {
    case read(PosixError)
    case body(E)
}

/// A todo.txt file to import: a file open for reading line by line, or standard input as read.
struct TodotxtInput: Sendable {
    enum Source: Sendable {
        case file(Int32)
        case bytes([UInt8])
    }
    let source: Source
    let name: String
    let context: ForeignImport.Context

    init(_ path: String, context: ForeignImport.Context, readStdin: () throws(PosixError) -> [UInt8]) throws(CLIFailure)
    {
        name = path == "-" ? "standard input" : path
        self.context = context
        if path == "-" {
            do { source = .bytes(try readStdin()) } catch {
                throw .input("cannot read standard input: \(error.reason)")
            }
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .input("cannot read \(path): \(PosixError("open", errno: errno).reason)") }
        source = .file(fd)
    }

    /// Every line: its number and bytes (nil: longer than `TextLines.maxLine`).
    func lines<E: Error>(_ body: (Int, [UInt8]?) throws(E) -> Void) throws(TextLinesError<E>) {
        switch source {
        case .file(let fd):
            defer { Posix.close(fd) }
            try TextLines.read(fd, body)
        case .bytes(let bytes):
            var lines = TextLines()
            do {
                try lines.feed(bytes[...], body)
                try lines.finish(body)
            } catch {
                throw .body(error)
            }
        }
    }
}
