import TodoCore

// RFC 5545 §3.1: content lines, folding, parameters and TEXT escaping. No I/O.

/// Why a file is refused: the 1-based number of the (first physical) line at fault and what is wrong.
package struct ICalError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var message: String
    package init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }
    /// "line 12: ...".
    package var description: String { "line \(line): \(message)" }
}

/// One unfolded content line: `NAME;PARAM=VALUE,...:value`.
package struct ContentLine: Sendable, Equatable {
    /// Upper-cased property name (`SUMMARY`, `X-APPLE-SORT-ORDER`).
    package var name: String
    /// Parameters in their order: upper-cased name and values (quotes removed).
    package var parameters: [(name: String, values: [String])]
    /// The raw value after the first unquoted colon (TEXT still escaped).
    package var value: String
    /// The whole unfolded line as it was read (kept byte for byte for unknown properties).
    package var raw: String
    /// The first physical line it came from (1-based).
    package var number: Int

    package init(name: String, parameters: [(name: String, values: [String])] = [], value: String, number: Int = 0) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.number = number
        self.raw = ""
        self.raw = text
    }

    package static func == (a: ContentLine, b: ContentLine) -> Bool {
        a.raw == b.raw && a.number == b.number
    }

    /// The first value of parameter `name` (upper-case), if present.
    package func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.values.first
    }

    /// The line written out (parameters quoted where they must be); not folded.
    package var text: String {
        var s = name
        for p in parameters {
            s += ";" + p.name + "=" + p.values.map(ContentLine.parameterValue).joined(separator: ",")
        }
        return s + ":" + value
    }

    /// A parameter value, in double quotes when it holds `:`, `;` or `,` (RFC 5545 §3.2). A double
    /// quote cannot be written in a parameter value (RFC 6868 aside) and becomes a single one.
    static func parameterValue(_ v: String) -> String {
        let clean = v.replacingOccurrences("\"", "'")
        return clean.contains(where: { $0 == ":" || $0 == ";" || $0 == "," }) ? "\"" + clean + "\"" : clean
    }

    /// Parses one unfolded line.
    /// - Throws: `ICalError` naming `number` when the line has no name or no colon, or a parameter is malformed.
    package init(parsing raw: String, number: Int) throws(ICalError) {
        let chars = Array(raw.unicodeScalars)
        var i = 0
        // `_` is read as `-` (Synology writes PERCENT_COMPLETE); the raw line keeps it.
        func isNameChar(_ c: Unicode.Scalar) -> Bool {
            (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "-" || c == "_"
        }
        func readName() -> String {
            var s = ""
            while i < chars.count, isNameChar(chars[i]) {
                s.unicodeScalars.append(chars[i] == "_" ? "-" : chars[i])
                i += 1
            }
            return s.uppercased()
        }
        let name = readName()
        guard !name.isEmpty else {
            throw ICalError(line: number, "expected a property name, found \(ContentLine.quote(raw))")
        }
        var parameters: [(name: String, values: [String])] = []
        while i < chars.count, chars[i] == ";" {
            i += 1
            let pname = readName()
            guard !pname.isEmpty, i < chars.count, chars[i] == "=" else {
                throw ICalError(line: number, "malformed parameter in \(name) (expected NAME=VALUE)")
            }
            i += 1
            var values: [String] = []
            while true {
                var v = ""
                if i < chars.count, chars[i] == "\"" {
                    i += 1
                    while i < chars.count, chars[i] != "\"" {
                        v.unicodeScalars.append(chars[i])
                        i += 1
                    }
                    guard i < chars.count else {
                        throw ICalError(line: number, "unterminated quoted parameter value in \(name)")
                    }
                    i += 1
                } else {
                    while i < chars.count, chars[i] != ";", chars[i] != ":", chars[i] != ",", chars[i] != "\"" {
                        v.unicodeScalars.append(chars[i])
                        i += 1
                    }
                }
                values.append(v)
                if i < chars.count, chars[i] == "," {
                    i += 1
                    continue
                }
                break
            }
            parameters.append((pname, values))
        }
        guard i < chars.count, chars[i] == ":" else {
            throw ICalError(line: number, "expected ':' after \(name)")
        }
        var value = ""
        value.unicodeScalars.append(contentsOf: chars[(i + 1)...])
        self.name = name
        self.parameters = parameters
        self.value = value
        self.raw = raw
        self.number = number
    }

    /// `text` in quotes, cut short and without control characters, for error messages.
    static func quote(_ text: String) -> String {
        let cut = text.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        return "\"" + cut + (text.unicodeScalars.count > 40 ? "…" : "") + "\""
    }
}

/// Folding, unfolding and TEXT escaping.
package enum ContentLines {
    /// The most octets of one physical line, CRLF not counted (RFC 5545 §3.1).
    package static let foldWidth = 75

    /// `line` folded into physical lines of at most 75 octets, each ended by CRLF; a fold never
    /// splits a UTF-8 character (continuation lines start with one space, which counts).
    package static func fold(_ line: String) -> String {
        var out = ""
        var count = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if count + size > foldWidth {
                out += "\r\n "
                count = 1
            }
            out.unicodeScalars.append(scalar)
            count += size
        }
        return out + "\r\n"
    }

    /// The logical lines of `bytes`: CRLF or LF line ends, folds (a line break followed by a
    /// space or tab) removed, empty lines skipped; each with the number of its first physical
    /// line. A UTF-8 byte order mark at the start is ignored.
    /// - Throws: when a logical line is not valid UTF-8, or the file starts with a continuation.
    package static func unfold(_ bytes: [UInt8]) throws(ICalError) -> [(text: String, number: Int)] {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        var logical: [(bytes: [UInt8], number: Int)] = []
        var number = 0
        var i = start
        while i < bytes.count {
            number += 1
            var end = i
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            var line = Array(bytes[i..<end])
            if line.last == 0x0D { line.removeLast() }
            i = end + 1
            if let first = line.first, first == 0x20 || first == 0x09 {
                guard !logical.isEmpty else {
                    throw ICalError(line: number, "a continuation line with nothing before it")
                }
                logical[logical.count - 1].bytes += line.dropFirst()
            } else if !line.isEmpty {
                logical.append((line, number))
            }
        }
        var out: [(text: String, number: Int)] = []
        out.reserveCapacity(logical.count)
        for l in logical {
            guard let text = String(validating: l.bytes, as: UTF8.self) else {
                throw ICalError(line: l.number, "not valid UTF-8")
            }
            if let bad = text.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                throw ICalError(
                    line: l.number,
                    "control character U+\(String(bad.value, radix: 16, uppercase: true)) in a content line")
            }
            out.append((text, l.number))
        }
        return out
    }

    /// TEXT escaped: `\` `;` `,` and line breaks (RFC 5545 §3.3.11).
    package static func escape(_ text: String) -> String {
        var out = ""
        var previousCR = false
        for c in text.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\r": out += "\\n"
            case "\n": if !previousCR { out += "\\n" }
            default: out.unicodeScalars.append(c)
            }
            previousCR = c == "\r"
        }
        return out
    }

    /// TEXT unescaped; with `separator` (`,` for CATEGORIES) split at its unescaped occurrences.
    /// An unknown escape keeps the character after the backslash.
    package static func unescape(_ text: String, separator: Unicode.Scalar? = nil) -> [String] {
        var parts: [String] = []
        var out = ""
        var escaped = false
        for c in text.unicodeScalars {
            if escaped {
                out.unicodeScalars.append(c == "n" || c == "N" ? "\n" : c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if let separator, c == separator {
                parts.append(out)
                out = ""
            } else {
                out.unicodeScalars.append(c)
            }
        }
        if escaped { out += "\\" }
        parts.append(out)
        return parts
    }
}

extension String {
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
