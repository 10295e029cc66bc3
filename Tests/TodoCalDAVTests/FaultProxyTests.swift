import Foundation
import Testing
import TodoCalDAV
import TodoTestSupport

/// Each fault scripts/lib/fault-proxy.py injects between the client and Radicale reaches the
/// client as the right CalDAVError, and a refused write changes nothing on the server.
@Suite(.enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct FaultProxyTests {
    /// `url` with its port replaced by the proxy's.
    static func throughProxy(_ url: String, _ server: CalDAVServer, _ proxy: FaultProxy) -> String {
        url.replacingOccurrences(of: "127.0.0.1:\(server.port)/", with: "127.0.0.1:\(proxy.port)/")
    }

    /// A collection on a new client (so its first request opens a new connection: curl repeats
    /// a request once by itself when a reused connection turns out closed).
    static func fresh(_ url: String, _ server: CalDAVServer) -> CalDAVCollection {
        CalDAVCollection(
            url: url, user: server.user, password: server.password, timeouts: CalDAVTimeouts(connect: 2, stall: 1))
    }

    @Test func eachFaultIsTheRightError() throws {
        let server = try Servers.server(.radicale)
        let (url, direct) = try Servers.freshCalendar(server)
        let existing = try direct.create(name: "there.ics", data: vtodo("there", "前からある"))
        let proxy = try FaultProxy(upstream: server.rootURL, delay: 8)
        let proxied = Self.throughProxy(url, server, proxy)
        let host = "127.0.0.1:\(proxy.port)"

        // Nothing injected: the request passes, credentials and all.
        #expect(try Self.fresh(proxied, server).versions().map(\.href) == [existing.href])

        try proxy.inject("drop")
        #expect(
            caldavError { _ = try Self.fresh(proxied, server).versions() }
                == .network("connection to \(host) closed without an answer"))

        try proxy.inject("cut")
        #expect(
            caldavError { _ = try Self.fresh(proxied, server).fetch([existing.href]) }
                == .network("connection to \(host) cut before the answer was complete"))

        try proxy.inject("500")
        #expect(
            caldavError { _ = try Self.fresh(proxied, server).changes(since: nil) }
                == .http(status: 500, "internal server error"))

        try proxy.inject("503")
        #expect(
            caldavError { _ = try Self.fresh(proxied, server).versions() } == .http(status: 503, "service unavailable"))

        try proxy.inject("delay")
        let before = Date()
        #expect(caldavError { _ = try Self.fresh(proxied, server).versions() } == .timeout)
        #expect(Date().timeIntervalSince(before) < 8)

        // 412 to writes, not forwarded: the server is unchanged.
        let client = Self.fresh(proxied, server)
        try proxy.inject("412", count: 3, method: "PUT")
        #expect(
            caldavError { _ = try client.create(name: "new.ics", data: vtodo("new", "new")) } == .preconditionFailed)
        let etag = try #require(try direct.versions().first?.etag)
        #expect(
            caldavError { _ = try client.update(href: existing.href, data: vtodo("there", "changed"), ifMatch: etag) }
                == .preconditionFailed)
        try proxy.inject("412", method: "DELETE")
        #expect(caldavError { try client.delete(href: existing.href, ifMatch: etag) } == .preconditionFailed)
        #expect(try direct.versions() == [RemoteVersion(href: existing.href, etag: etag)])
        #expect(try direct.fetch([existing.href]).map { propertyBytes($0.data, "SUMMARY") } == [Array("前からある".utf8)])

        // The queue is used up: the next requests pass; the log names every fault.
        #expect(try client.versions().count == 1)
        let log = proxy.faultLog
        for kind in ["drop", "cut", "500", "503", "delay"] {
            #expect(log.contains { $0.hasPrefix("fault \(kind) ") }, "\(log)")
        }
        #expect(log.filter { $0.hasPrefix("fault 412 ") }.count == 3)
        #expect(!log.contains { $0.hasPrefix("pass PUT") || $0.hasPrefix("pass DELETE") })
    }

    /// Random faults: every failed request is one the proxy logged as a fault, of a kind that maps
    /// to the right error, and every other request got its answer.
    @Test func seededRandomFaults() throws {
        let server = try Servers.server(.xandikos)
        let (url, direct) = try Servers.freshCalendar(server)
        _ = try direct.create(name: "a.ics", data: vtodo("a", "A"))
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        let proxy = try FaultProxy(upstream: server.rootURL, seed: seed, rate: 0.5, faults: ["500", "503", "drop"])
        let proxied = Self.throughProxy(url, server, proxy)
        var failures = 0
        for _ in 0..<30 {
            switch caldavError({ _ = try Self.fresh(proxied, server).versions() }) {
            case nil: break
            case .http(status: 500, _)?, .http(status: 503, _)?,
                .network("connection to 127.0.0.1:\(proxy.port) closed without an answer")?:
                failures += 1
            case let other?: Issue.record("seed \(seed): unexpected \(other)")
            }
        }
        let faults = proxy.faultLog.filter { $0.hasPrefix("fault ") }.count
        #expect(faults == failures, "seed \(seed)")
        #expect(proxy.faultLog.filter { $0.hasPrefix("pass ") }.count == 30 - failures, "seed \(seed)")
    }

    /// Answers the test servers never give, made up by the proxy: a truncated sync-collection
    /// (507 on the request-URI) continued with the new token, the ways servers refuse a token or
    /// the report, weak ETags, hrefs as absolute URLs, and an unreadable body.
    @Test func unusualAnswers() throws {
        let server = try Servers.server(.xandikos)
        let (url, _) = try Servers.freshCalendar(server)
        let proxy = try FaultProxy(upstream: server.rootURL)
        let collection = Self.fresh(Self.throughProxy(url, server, proxy), server)
        let path = try #require(URL(string: url)?.path) + "/"
        func multistatus(_ responses: String, token: String?) -> String {
            "<?xml version='1.0'?><d:multistatus xmlns:d='DAV:'>\(responses)"
                + (token.map { "<d:sync-token>\($0)</d:sync-token>" } ?? "") + "</d:multistatus>"
        }
        func item(_ name: String, _ etag: String) -> String {
            "<d:response><d:href>\(path)\(name)</d:href><d:propstat><d:prop><d:getetag>&quot;\(etag)&quot;</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        }
        func gone(_ name: String) -> String {
            "<d:response><d:href>\(path)\(name)</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>"
        }

        // Truncated: the client asks again with the token of the first answer.
        let truncated =
            item("a.ics", "a1") + item("b.ics", "b1")
            + "<d:response><d:href>\(path)</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response>"
        try proxy.injectAnswer(status: 207, body: multistatus(truncated, token: "tok-1"), method: "REPORT")
        try proxy.injectAnswer(
            status: 207, body: multistatus(item("c.ics", "c1") + gone("b.ics"), token: "tok-2"), method: "REPORT")
        let delta = try collection.changes(since: "tok-0")
        #expect(
            delta
                == CollectionDelta(
                    changed: [
                        RemoteVersion(href: path + "a.ics", etag: "\"a1\""),
                        RemoteVersion(href: path + "c.ics", etag: "\"c1\"")
                    ],
                    removed: [path + "b.ics"], token: "tok-2"))
        let asked = proxy.faultLog.filter { $0.hasPrefix("fault canned REPORT") }
        #expect(asked.count == 2)
        #expect(asked.first?.contains("<d:sync-token>tok-0</d:sync-token>") == true)
        #expect(asked.last?.contains("<d:sync-token>tok-1</d:sync-token>") == true)

        // A member without its ETag changed (etag ""); a response saying nothing removes nothing.
        let noETag =
            "<d:response><d:href>\(path)n.ics</d:href><d:propstat><d:prop><d:getetag/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response>"
        let empty = "<d:response><d:href>\(path)e.ics</d:href></d:response>"
        try proxy.injectAnswer(status: 207, body: multistatus(noETag + empty, token: "tok-3"), method: "REPORT")
        #expect(
            try collection.changes(since: "tok-2")
                == CollectionDelta(
                    changed: [RemoteVersion(href: path + "n.ics", etag: "")], removed: [], token: "tok-3"))

        // Tokens refused, and servers without the report.
        try proxy.injectAnswer(
            status: 409, body: "<?xml version='1.0'?><error xmlns='DAV:'><valid-sync-token/></error>",
            headers: ["Content-Type": "application/xml"])
        #expect(caldavError { _ = try collection.changes(since: "old") } == .tokenInvalid)
        try proxy.injectAnswer(status: 400, body: "bad token")
        #expect(caldavError { _ = try collection.changes(since: "old") } == .tokenInvalid)
        try proxy.injectAnswer(status: 501, body: "")
        #expect(caldavError { _ = try collection.changes(since: nil) } == .unsupported("sync-collection"))
        try proxy.injectAnswer(
            status: 403, body: "<?xml version='1.0'?><error xmlns='DAV:'><supported-report/></error>",
            headers: ["Content-Type": "application/xml"])
        #expect(caldavError { _ = try collection.changes(since: nil) } == .unsupported("sync-collection"))
        try proxy.injectAnswer(status: 207, body: multistatus(item("a.ics", "a1"), token: nil))
        #expect(caldavError { _ = try collection.changes(since: nil) } == .unsupported("sync-collection"))

        // Weak or missing ETags are not returned; a strong one is, exactly.
        try proxy.injectAnswer(status: 201, body: "", headers: ["ETag": "W/\"weak\""], method: "PUT")
        #expect(try collection.create(name: "w.ics", data: vtodo("w", "w")).etag == nil)
        try proxy.injectAnswer(status: 204, body: "", method: "PUT")
        #expect(try collection.update(href: path + "w.ics", data: vtodo("w", "w"), ifMatch: "\"x\"") == nil)
        try proxy.injectAnswer(status: 204, body: "", headers: ["etag": "\"strong-1\""], method: "PUT")
        #expect(try collection.update(href: path + "w.ics", data: vtodo("w", "w"), ifMatch: "\"x\"") == "\"strong-1\"")

        // Hrefs written as absolute URLs are kept as written.
        let absolute =
            "<d:response><d:href>http://127.0.0.1:\(proxy.port)\(path)x.ics</d:href><d:propstat><d:prop><d:getetag>\"x1\"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
        try proxy.injectAnswer(status: 207, body: multistatus(absolute, token: nil), method: "REPORT")
        #expect(
            try collection.versions() == [
                RemoteVersion(href: "http://127.0.0.1:\(proxy.port)\(path)x.ics", etag: "\"x1\"")
            ])

        // An unreadable answer, and an unexpected status.
        try proxy.injectAnswer(status: 207, body: "<d:multistatus xmlns:d='DAV:'><d:response>", method: "REPORT")
        guard case .malformed? = caldavError({ _ = try collection.versions() }) else {
            Issue.record("malformed XML accepted")
            return
        }
        // A redirect is not followed (only discovery follows /.well-known/caldav's).
        try proxy.injectAnswer(
            status: 301, body: "", headers: ["Location": "https://elsewhere.example/"], method: "REPORT")
        #expect(caldavError { _ = try collection.versions() } == .http(status: 301, ""))
        #expect(!proxy.faultLog.contains { $0.contains("elsewhere") })
        try proxy.injectAnswer(status: 418, body: "teapot", method: "REPORT")
        #expect(caldavError { _ = try collection.fetch([path + "a.ics"]) } == .http(status: 418, ""))
    }

    /// A certificate nobody vouches for is refused, and said so.
    @Test func untrustedCertificate() throws {
        let server = try Servers.server(.xandikos)
        let directory = TemporaryDirectory("tls")
        try Data(Self.certificate.utf8).write(to: URL(fileURLWithPath: directory.file("cert.pem")))
        try Data(Self.key.utf8).write(to: URL(fileURLWithPath: directory.file("key.pem")))
        let proxy = try FaultProxy(
            upstream: server.rootURL, tls: (directory.file("cert.pem"), directory.file("key.pem")))
        let collection = CalDAVCollection(
            url: "https://127.0.0.1:\(proxy.port)/user/calendars/", user: nil, password: nil)
        #expect(caldavError { _ = try collection.versions() } == .network("TLS certificate of 127.0.0.1 not trusted"))
        #expect(!proxy.faultLog.contains { $0.hasPrefix("pass ") })
    }

    /// A self-signed certificate for 127.0.0.1 (made with openssl req -x509, valid until 2126).
    static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBmjCCAUGgAwIBAgIUTXXKCvtN4gp5/bzpZQuo8BzFxwkwCgYIKoZIzj0EAwIw
        FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTIwMTEzMzM0M1oYDzIxMjYxMTA3
        MTMzMzQzWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
        PQMBBwNCAASbA+CJRWvCI8eYJxzyQyhGxgBai1rY3cGzS9CeipoqbwKOGSkucaRw
        rIEZt1vRWTSlQabukVaD/1WHuiBONiwfo28wbTAdBgNVHQ4EFgQUbTsPTqGBFHx1
        6iE3XUT2WoQ/Ib0wHwYDVR0jBBgwFoAUbTsPTqGBFHx16iE3XUT2WoQ/Ib0wDwYD
        VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
        zj0EAwIDRwAwRAIgXdDxV191hViy7IQXPNM1JcGnh3UAR2cYanP1RyfkXbECIFFh
        QwTUEYq6kjFldroaHs4FYnQTxibD/k5S8Ir9kk3Z
        -----END CERTIFICATE-----

        """
    /// Its private key (a test key: it protects nothing).
    static let key = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqhpb27zbkIJjjViN
        j9MU9f0MVKyZZbh1KfDTBntGsm2hRANCAASbA+CJRWvCI8eYJxzyQyhGxgBai1rY
        3cGzS9CeipoqbwKOGSkucaRwrIEZt1vRWTSlQabukVaD/1WHuiBONiwf
        -----END PRIVATE KEY-----

        """
}
