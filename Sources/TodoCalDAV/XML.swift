// WebDAV XML: the only file that touches libxml2 (CLibXML2). Answers are parsed into a small
// namespace-aware tree; request bodies are written as text with `xmlEscaped`. The parser loads
// nothing from the network or disk and expands no entities, and a document type declaration is
// refused outright: a hostile server cannot make us read files or blow up memory.
import CLibXML2

/// One element of a parsed document: its namespace URI, local name, text and child elements.
struct XMLElement: Equatable {
    var namespace: String
    var name: String
    /// The element's own character data (text and CDATA children, concatenated), untrimmed.
    var text: String
    /// Attributes by local name (namespaces of attributes are not kept).
    var attributes: [String: String] = [:]
    var children: [XMLElement]
    /// Its text was longer than the parse's limit and is left out (`text` is empty).
    var truncated = false

    /// Whether this element is `{namespace}name`.
    func `is`(_ namespace: String, _ name: String) -> Bool { self.name == name && self.namespace == namespace }

    /// The first child `{namespace}name`.
    func child(_ namespace: String, _ name: String) -> XMLElement? { children.first { $0.is(namespace, name) } }

    /// Every child `{namespace}name`.
    func children(_ namespace: String, _ name: String) -> [XMLElement] { children.filter { $0.is(namespace, name) } }

    /// The text trimmed of surrounding white space.
    var trimmedText: String {
        let scalars = text.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}

/// Namespace URIs of the elements CalDAV uses.
enum XMLNamespace {
    static let dav = "DAV:"
    static let caldav = "urn:ietf:params:xml:ns:caldav"
    static let calendarServer = "http://calendarserver.org/ns/"
    static let apple = "http://apple.com/ns/ical/"
}

/// xmlInitParser, run once for the process, with libxml2's own error printing off (errors are
/// collected per parse, never written to stderr).
private let xmlReady: Bool = {
    xmlInitParser()
    xmlSetStructuredErrorFunc(nil, { _, _ in })
    return true
}()

/// A streaming (SAX2, push) parse: bytes go in as they arrive; each element at `depth` (1: the
/// root, 2: its children, as each `DAV:response` of a multistatus) is handed out whole when it
/// closes, and nothing else of the document is kept, so a large answer takes the memory of its
/// largest such element, not of the whole. A text longer than `textLimit` bytes is cut and its
/// element marked `truncated` (one resource too large, not a document that cannot be read).
/// Loads nothing from the network or disk, expands no entity, and refuses a document type
/// declaration.
final class XMLStream {
    let depth: Int
    let textLimit: Int
    /// Called with each element at `depth`; returning false stops the parse.
    let onElement: (XMLElement) -> Bool
    /// The root element's namespace and name, once it started.
    private(set) var root: (namespace: String, name: String)?
    private var stack: [XMLElement] = []
    private var level = 0
    /// The last text ended with a CR (its LF may start the next).
    private var afterCR = false
    private var error: String?
    private var stopped = false
    private var context: xmlParserCtxtPtr?
    private var handler = xmlSAXHandler()

    init(depth: Int, textLimit: Int, onElement: @escaping (XMLElement) -> Bool) {
        precondition(xmlReady)
        self.depth = depth
        self.textLimit = textLimit
        self.onElement = onElement
        handler.initialized = 0xDEED_BEAF // XML_SAX2_MAGIC
        handler.startElementNs = { ctx, name, _, uri, _, _, count, _, attributes in
            XMLStream.of(ctx).start(name, uri, count, attributes)
        }
        handler.endElementNs = { ctx, _, _, _ in XMLStream.of(ctx).end() }
        handler.characters = { ctx, text, length in XMLStream.of(ctx).text(text, length) }
        handler.cdataBlock = { ctx, text, length in XMLStream.of(ctx).text(text, length) }
        handler.internalSubset = { ctx, _, _, _ in
            XMLStream.of(ctx).fail("XML with a document type declaration is not accepted")
        }
        handler.serror = { ctx, error in
            guard let error, let message = error.pointee.message else { return }
            XMLStream.of(ctx).fail(
                "XML error on line \(error.pointee.line): " + String(cString: message).trimmingTrailingNewlines())
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        context = xmlCreatePushParserCtxt(&handler, me, nil, 0, "answer.xml")
        let options =
            XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_HUGE.rawValue
        if let context { _ = xmlCtxtUseOptions(context, Int32(options)) }
    }

    deinit {
        if let context {
            if context.pointee.myDoc != nil { xmlFreeDoc(context.pointee.myDoc) }
            xmlFreeParserCtxt(context)
        }
    }

    private static func of(_ ctx: UnsafeMutableRawPointer?) -> XMLStream {
        Unmanaged<XMLStream>.fromOpaque(ctx!).takeUnretainedValue()
    }

    /// Parses the next bytes. Throws `.malformed` once the document is known to be bad.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(CalDAVError) {
        guard let context else { throw .malformed("the XML parser could not be made") }
        var rest = bytes[...]
        // xmlParseChunk takes an Int32 size: at most 1 MiB at a time.
        while !rest.isEmpty, !stopped {
            let part = rest.prefix(1 << 20)
            rest = rest.dropFirst(part.count)
            _ = UnsafeRawBufferPointer(rebasing: part).withMemoryRebound(to: CChar.self) {
                xmlParseChunk(context, $0.baseAddress, Int32($0.count), 0)
            }
        }
        if let error { throw .malformed(error) }
    }

    /// Ends the document. Throws `.malformed` when it was not well-formed (or empty).
    func finish() throws(CalDAVError) {
        guard let context else { throw .malformed("the XML parser could not be made") }
        if !stopped { _ = xmlParseChunk(context, nil, 0, 1) }
        if let error { throw .malformed(error) }
        guard root != nil else { throw .malformed("empty XML body") }
        guard stopped || level == 0 else { throw .malformed("not well-formed XML") }
    }

    private func fail(_ message: String) {
        if error == nil { error = message }
        stop()
    }

    private func stop() {
        guard !stopped else { return }
        stopped = true
        if let context { xmlStopParser(context) }
    }

    private func start(
        _ name: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?, _ count: Int32,
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard !stopped else { return }
        level += 1
        afterCR = false
        let namespace = Self.string(uri)
        let local = Self.string(name)
        if level == 1 { root = (namespace, local) }
        guard level >= depth else { return }
        var element = XMLElement(namespace: namespace, name: local, text: "", children: [])
        if let attributes, count > 0 {
            for i in 0..<Int(count) {
                // localname, prefix, URI, value, end of value
                guard let key = attributes[5 * i], let value = attributes[5 * i + 3], let end = attributes[5 * i + 4]
                else { continue }
                element.attributes[String(cString: key)] = String(
                    decoding: UnsafeBufferPointer(start: value, count: end - value), as: UTF8.self)
            }
        }
        stack.append(element)
    }

    private func end() {
        guard !stopped else { return }
        defer { level -= 1 }
        guard level >= depth, let element = stack.popLast() else { return }
        if level > depth {
            stack[stack.count - 1].children.append(element)
        } else if !onElement(element) {
            stop()
        }
    }

    private func text(_ text: UnsafePointer<xmlChar>?, _ length: Int32) {
        guard !stopped, level >= depth, let text, length > 0, !stack.isEmpty else { return }
        let i = stack.count - 1
        guard !stack[i].truncated else { return }
        guard stack[i].text.utf8.count + Int(length) <= textLimit else {
            stack[i].truncated = true
            stack[i].text = ""
            return
        }
        let bytes = UnsafeBufferPointer(start: text, count: Int(length))
        guard bytes.contains(13) || afterCR else {
            stack[i].text += String(decoding: bytes, as: UTF8.self)
            return
        }
        // XML 1.0 §2.11: CR LF and a lone CR are read as LF (libxml2's push parser leaves some).
        var normal: [UInt8] = []
        normal.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte == 13 {
                normal.append(10)
                afterCR = true
                continue
            }
            if !(byte == 10 && afterCR) { normal.append(byte) }
            afterCR = false
        }
        stack[i].text += String(decoding: normal, as: UTF8.self)
    }

    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }
}

enum XMLDocument {
    /// The longest text of one element in a document parsed whole.
    static let textLimit = 64 << 20

    /// Parses `bytes` into its root element. Throws `.malformed` for anything that is not
    /// well-formed XML, and for documents with a document type declaration.
    static func parse(_ bytes: [UInt8]) throws(CalDAVError) -> XMLElement {
        guard !bytes.isEmpty else { throw .malformed("empty XML body") }
        var root: XMLElement?
        let stream = XMLStream(depth: 1, textLimit: textLimit) { element in
            root = element
            return true
        }
        let fed = bytes.withUnsafeBytes { buffer in Result { () throws(CalDAVError) in try stream.feed(buffer) } }
        try fed.get()
        try stream.finish()
        guard let root else { throw .malformed("XML without a root element") }
        return root
    }
}

extension String {
    /// The text escaped for XML character data and attribute values (`&`, `<`, `>`, `"`, `'`).
    var xmlEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for c in unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    fileprivate func trimmingTrailingNewlines() -> String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == "\r" || last == "\r\n" { s = s.dropLast() }
        return String(s)
    }
}
