import Foundation
import Testing
import TodoTestSupport

@testable import TodoCalDAV

/// The CalDAV client against a server that attacks it (HostileServer, in this process): the
/// account's credentials never leave its origin, a value from the server never becomes a header
/// line of its own.
@Suite struct HostileServerTests {
    static let user = "alice", password = "秘密-pw"

    /// A server on 127.0.0.2 that records what reaches it (nothing should).
    static func elsewhere() throws -> HostileServer {
        try HostileServer(host: "127.0.0.2") { _ in
            HostileServer.Response(status: 207, xml: HostileServer.multistatus(""))
        }
    }

    @Test func anAbsoluteHrefNamingAnotherHostGetsNothingSent() throws {
        let other = try Self.elsewhere()
        let foreign = "\(other.origin)/cal/stolen.ics"
        let server = try HostileServer { request in
            HostileServer.Response(
                status: 207,
                xml: HostileServer.multistatus(
                    HostileServer.member("/cal/mine.ics", etag: "\"m1\"")
                        + HostileServer.member(foreign, etag: "\"x1\""), token: "t1"))
        }
        let collection = CalDAVCollection(url: "\(server.origin)/cal/", user: Self.user, password: Self.password)
        let delta = try collection.changes(since: nil)
        #expect(delta.changed.map(\.href) == ["/cal/mine.ics"], "a member on another host is no member")
        #expect(try collection.versions().map(\.href) == ["/cal/mine.ics"])
        for attempt in [
            { _ = try collection.update(href: foreign, data: [0x41], ifMatch: "\"x1\"") },
            { try collection.delete(href: foreign, ifMatch: "\"x1\"") }
        ] {
            guard case .malformed(let reason)? = caldavError(attempt) else {
                Issue.record("sent to another host")
                continue
            }
            #expect(reason.contains("another host"))
        }
        // The same host on another port is another origin too.
        let otherPort = "http://127.0.0.1:\(other.port)/cal/x.ics"
        #expect(caldavError { _ = try collection.update(href: otherPort, data: [0x41], ifMatch: "\"x\"") } != nil)
        #expect(other.requests.isEmpty)
        #expect(!server.requests.contains { $0.method == "PUT" || $0.method == "DELETE" })
    }

    @Test func aWellKnownRedirectToAnotherHostIsSaidNotFollowed() throws {
        let other = try Self.elsewhere()
        let server = try HostileServer { request in
            if request.path.hasPrefix("/.well-known/caldav") {
                return HostileServer.Response(status: 301, headers: [("Location", "\(other.origin)/dav/")])
            }
            return HostileServer.Response(status: 404)
        }
        let account = CalDAVAccount(url: "\(server.origin)/", user: Self.user, password: Self.password)
        let error = caldavError { _ = try account.calendars() }
        guard case .network(let message)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(message.contains("redirects discovery to \(other.origin)"))
        #expect(!message.contains(Self.password))
        #expect(other.requests.isEmpty, "the credentials went to \(other.origin)")
        // Every request that reached the account's own server carried the credentials; none other.
        #expect(server.requests.allSatisfy { $0.header("Authorization")?.hasPrefix("Basic ") == true })
    }

    @Test func anETagWithALineBreakIsNeverSentInAHeader() throws {
        let server = try HostileServer { request in
            switch request.method {
            case "REPORT":
                return HostileServer.Response(
                    status: 207,
                    xml: HostileServer.multistatus(
                        HostileServer.member("/cal/a.ics", etag: "\"a1\"&#13;&#10;X-Injected: yes"), token: "t1"))
            default:
                return HostileServer.Response(status: 204, headers: [("ETag", "\"a2\"")])
            }
        }
        let collection = CalDAVCollection(url: "\(server.origin)/cal/", user: Self.user, password: Self.password)
        let etag = try #require(try collection.changes(since: nil).changed.first?.etag)
        #expect(etag.unicodeScalars.contains { $0.value < 0x20 }, "the line break came through the XML")
        guard
            case .malformed? = caldavError({
                _ = try collection.update(href: "/cal/a.ics", data: [0x41], ifMatch: etag)
            })
        else {
            Issue.record("sent")
            return
        }
        guard case .malformed? = caldavError({ try collection.delete(href: "/cal/a.ics", ifMatch: etag) }) else {
            Issue.record("sent")
            return
        }
        #expect(!server.requests.contains { $0.method == "PUT" || $0.method == "DELETE" })
        #expect(!server.requests.contains { $0.headers.contains { $0.hasPrefix("X-Injected") } })
    }

    /// A server dripping its answer 8 bytes at a time (the stall watch never fires) for up to
    /// 30 s: a request gets its total time, and a round's deadline ends every request in it.
    static func dripping() throws -> HostileServer {
        try HostileServer { _ in
            HostileServer.Response(status: 207, headers: [("Content-Type", "application/xml")]) { write in
                let body = Array(
                    HostileServer.multistatus(HostileServer.member("/cal/a.ics", etag: "\"a\""), token: "t").utf8)
                var sent = 0
                for _ in 0..<60 {
                    guard write(Array(body[sent..<min(body.count, sent + 8)])) else { return }
                    sent = min(body.count, sent + 8)
                    if sent == body.count { sent = 0 } // never done: start over
                    usleep(500_000) // the server's slowness is what is tested (at most 30 s, cut short by the client)
                }
            }
        }
    }

    @Test func aDrippingServerMeetsTheRequestsTotalTime() throws {
        let server = try Self.dripping()
        let collection = CalDAVCollection(
            url: "\(server.origin)/cal/", user: Self.user, password: Self.password,
            timeouts: CalDAVTimeouts(connect: 2, stall: 5, total: 2))
        #expect(caldavError { _ = try collection.changes(since: nil) } == .timeout)
    }

    @Test func aRoundsDeadlineEndsEveryRequest() throws {
        let server = try Self.dripping()
        let collection = CalDAVCollection(url: "\(server.origin)/cal/", user: Self.user, password: Self.password)
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let deadline = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + 2
        collection.setDeadline(deadline)
        #expect(caldavError { _ = try collection.changes(since: nil) } == .timeout)
        waitUntilPast(monotonic: deadline) // curl may end a request a little before the deadline
        let before = server.requests.count
        #expect(caldavError { _ = try collection.versions() } == .timeout)
        #expect(server.requests.count == before, "no request starts after the deadline")
    }
}
