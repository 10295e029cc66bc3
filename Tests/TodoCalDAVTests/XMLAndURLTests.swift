import Testing

@testable import TodoCalDAV

/// The XML reader (libxml2 without network or entities) and URL handling, without a server.
@Suite struct XMLAndURLTests {
    @Test func parsesNamespacesTextAndAttributes() throws {
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:response><D:href>/cal/a%20b.ics</D:href>
                <D:propstat><D:prop><D:getetag>"e1"</D:getetag>
                  <C:calendar-data><![CDATA[BEGIN:VCALENDAR\r\nSUMMARY:牛乳 &amp; <パン>\r\n]]></C:calendar-data>
                  <C:supported-calendar-component-set><C:comp name="VTODO"/></C:supported-calendar-component-set>
                </D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
              <response xmlns="DAV:"><href>/cal/gone.ics</href><status>HTTP/1.1 404 Not Found</status></response>
              <D:sync-token>http://example.com/sync/7</D:sync-token>
            </D:multistatus>
            """
        let status = try Multistatus(Array(xml.utf8))
        #expect(status.syncToken == "http://example.com/sync/7")
        #expect(status.responses.map(\.href) == ["/cal/a%20b.ics", "/cal/gone.ics"])
        #expect(status.responses[1].status == 404)
        let first = status.responses[0]
        #expect(first.property(XMLNamespace.dav, "getetag")?.trimmedText == "\"e1\"")
        #expect(
            first.property(XMLNamespace.caldav, "calendar-data")?.text == "BEGIN:VCALENDAR\nSUMMARY:牛乳 &amp; <パン>\n")
        #expect(
            first.property(XMLNamespace.caldav, "supported-calendar-component-set")?.children.first?.attributes["name"]
                == "VTODO")
        #expect(first.property(XMLNamespace.dav, "displayname") == nil)
    }

    @Test func malformedXMLIsRefusedWithItsLine() {
        let error = caldavError { _ = try XMLDocument.parse(Array("<a xmlns='DAV:'>\n<b></a>".utf8)) }
        guard case .malformed(let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("XML error on line 2"))
        #expect(caldavError { _ = try XMLDocument.parse([]) } == .malformed("empty XML body"))
        #expect(
            caldavError { _ = try Multistatus(Array("<error xmlns='DAV:'/>".utf8)) }
                == .malformed("expected a DAV:multistatus, got error"))
    }

    /// A hostile server cannot make the parser read a file or expand entities: any document type
    /// declaration is refused, so no entity can be declared at all.
    @Test func noEntitiesNoFilesNoNetwork() {
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <multistatus xmlns="DAV:"><response><href>&x;</href></response></multistatus>
            """
        #expect(
            caldavError { _ = try Multistatus(Array(external.utf8)) }
                == .malformed("XML with a document type declaration is not accepted"))
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
            <m>&c;&c;&c;</m>
            """
        guard case .malformed? = caldavError({ _ = try XMLDocument.parse(Array(laughs.utf8)) }) else {
            Issue.record("entity expansion was not refused")
            return
        }
        let remote = "<?xml version=\"1.0\"?><!DOCTYPE m SYSTEM \"http://192.0.2.1/x.dtd\"><m/>"
        #expect(
            caldavError { _ = try XMLDocument.parse(Array(remote.utf8)) }
                == .malformed("XML with a document type declaration is not accepted"))
    }

    @Test func escapesRequestText() {
        #expect("a&b<c>\"d'e 日本".xmlEscaped == "a&amp;b&lt;c&gt;&quot;d&apos;e 日本")
    }

    @Test func urlsAndHrefs() throws {
        let base = try #require(HTTPURL("https://Dav.Example.com:8443/cal/home/?x=1#frag"))
        #expect(base.host == "dav.example.com")
        #expect(base.authority == "Dav.Example.com:8443")
        #expect(base.pathOnly == "/cal/home/")
        #expect(base.resolving("/other/a.ics")?.string == "https://Dav.Example.com:8443/other/a.ics")
        #expect(base.resolving("b%20c.ics")?.string == "https://Dav.Example.com:8443/cal/home/b%20c.ics")
        #expect(base.resolving("https://elsewhere.example/x")?.string == "https://elsewhere.example/x")
        #expect(HTTPURL("ftp://x/") == nil)
        #expect(HTTPURL("https://user:pw@x/") == nil)
        #expect(HTTPURL("http://[::1]:5232/a")?.isLoopback == true)
        #expect(HTTPURL("http://127.1.2.3/")?.isLoopback == true)
        #expect(HTTPURL("http://localhost:80/")?.isLoopback == true)
        #expect(HTTPURL("http://127.0.0.1.example.com/")?.isLoopback == false)
        #expect(HTTPURL("http://128.0.0.1/")?.isLoopback == false)
        #expect(percentEncodedPathSegment("a b/ü.ics") == "a%20b%2F%C3%BC.ics")
        #expect(comparablePath("/cal/a%20b/", base: base) == comparablePath("/cal/a b", base: base))
        #expect(HTTPClient.redacted("https://alice:pw@host/x") == "https://…@host/x")
    }

    @Test func strongETagsOnly() {
        func response(_ etag: String?) -> HTTPResponse {
            HTTPResponse(status: 201, headers: etag.map { [("etag", $0)] } ?? [], body: [])
        }
        #expect(CalDAVCollection.strongETag(response("\"abc\"")) == "\"abc\"")
        #expect(CalDAVCollection.strongETag(response("W/\"abc\"")) == nil)
        #expect(CalDAVCollection.strongETag(response(nil)) == nil)
        #expect(response("x").header("ETAG") == "x")
    }

    @Test func calendarDataGetsItsCRLFBack() {
        #expect(CalDAVCollection.restoringCRLF("A\nB\r\nC\n") == Array("A\r\nB\r\nC\r\n".utf8))
    }
}
