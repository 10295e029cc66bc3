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
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
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

/// xmlInitParser, run once for the process.
private let xmlReady: Bool = {
    xmlInitParser()
    return true
}()

enum XMLDocument {
    /// Parses `bytes` into its root element. Throws `.malformed` for anything that is not
    /// well-formed XML, and for documents with a document type declaration.
    static func parse(_ bytes: [UInt8]) throws(CalDAVError) -> XMLElement {
        precondition(xmlReady)
        guard !bytes.isEmpty else { throw .malformed("empty XML body") }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        xmlResetLastError()
        let document: xmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlReadMemory(chars.baseAddress, Int32(clamping: chars.count), "answer.xml", nil, options)
            }
        }
        guard let document else {
            if let error = xmlGetLastError(), let message = error.pointee.message {
                let text = String(cString: message).trimmingTrailingNewlines()
                throw .malformed("XML error on line \(error.pointee.line): \(text)")
            }
            throw .malformed("not well-formed XML")
        }
        defer { xmlFreeDoc(document) }
        guard document.pointee.intSubset == nil, document.pointee.extSubset == nil else {
            throw .malformed("XML with a document type declaration is not accepted")
        }
        guard let root = xmlDocGetRootElement(document) else { throw .malformed("XML without a root element") }
        return element(root)
    }

    private static func element(_ node: xmlNodePtr) -> XMLElement {
        var result = XMLElement(
            namespace: node.pointee.ns.flatMap { $0.pointee.href }.map { string($0) } ?? "",
            name: string(node.pointee.name), text: "", children: [])
        var attribute = node.pointee.properties
        while let current = attribute {
            var value = ""
            var part = current.pointee.children
            while let text = part {
                if let content = text.pointee.content { value += string(content) }
                part = text.pointee.next
            }
            result.attributes[string(current.pointee.name)] = value
            attribute = current.pointee.next
        }
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE: result.children.append(element(current))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { result.text += string(content) }
            default: break  // comments, processing instructions, unexpanded entity references
            }
            child = current.pointee.next
        }
        return result
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
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
