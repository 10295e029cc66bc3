import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// The built todod-sync against servers that attack it (HostileServer): answers too large for
/// memory are bounded or streamed, a resource too large is one unreadable item, libxml2 prints
/// nothing, and two resources with one UID do not make the todo flip every round.
@Suite(.serialized) struct HostileCalDAVTests {
    /// A todod, a sync.conf account `home` on `server`'s /cal/, and todod-sync --once.
    final class Host {
        let machine: Machine
        let home = TemporaryDirectory("hostile")
        var environment: [String: String]

        init(_ server: HostileServer) throws {
            machine = try Machine()
            environment = [
                "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "XDG_STATE_HOME": home.file("state"),
                "TODOD_SOCKET": machine.daemon.socket, "TZ": "UTC", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"
            ]
            let password = home.file("pw")
            _ = FileManager.default.createFile(
                atPath: password, contents: Data("pw\n".utf8), attributes: [.posixPermissions: 0o600])
            let url = server.origin + "/cal/"
            try SyncConfig.save(
                [SyncAccount(name: "home", url: url, user: "alice", passwordFile: password, calendar: url)],
                environment: environment)
        }

        /// With TODOD_MEASURE_RSS set (figures for the docs), under /usr/bin/time -v, whose
        /// report is printed and taken off stderr.
        func once() throws -> ChildProcess.Result {
            guard ProcessInfo.processInfo.environment["TODOD_MEASURE_RSS"] != nil else {
                return try ChildProcess.run(
                    BuiltProducts.path("todod-sync"), ["--once"], environment: environment, timeout: 300)
            }
            var r = try ChildProcess.run(
                "/usr/bin/time", ["-v", BuiltProducts.path("todod-sync"), "--once"], environment: environment,
                timeout: 300)
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            if let start = lines.firstIndex(where: {
                $0.hasPrefix("\tCommand being timed") || $0.hasPrefix("Command exited")
            }) {
                print(
                    "todod-sync --once:", lines.first { $0.contains("Maximum resident set size") } ?? "",
                    lines.first { $0.contains("Elapsed") } ?? "")
                r.stderr = lines[..<start].joined(separator: "\n")
            }
            return r
        }

        var status: SyncStatus? {
            guard let path = SyncPaths.statusFile(account: "home", environment: environment),
                let data = FileManager.default.contents(atPath: path), let json = try? JSON.parse(Array(data))
            else { return nil }
            return SyncStatus(json: json)
        }
    }

    static func todo(_ uid: String, _ summary: String, extra: String = "") -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//EN\r\nBEGIN:VTODO\r\nUID:\(uid)\r\nDTSTAMP:20261201T090000Z\r\n"
            + "LAST-MODIFIED:20261201T090000Z\r\nSUMMARY:\(summary)\r\n\(extra)END:VTODO\r\nEND:VCALENDAR\r\n"
    }

    /// A calendar whose sync-collection `listing` answers, whose multiget serves `resources`
    /// (href → text), and which takes every PUT.
    static func server(
        resources: [String: String], etags: [String: String] = [:],
        listing: @escaping @Sendable (HostileServer.Request) -> HostileServer.Response
    ) throws -> HostileServer {
        try HostileServer { request in
            if request.method == "REPORT", request.bodyText.contains("sync-collection") { return listing(request) }
            if request.method == "REPORT", request.bodyText.contains("calendar-multiget") {
                var out = ""
                for (href, text) in resources where request.bodyText.contains("<d:href>\(href)</d:href>") {
                    out += HostileServer.member(
                        href, etag: etags[href] ?? "\"\(href.count)\"", data: text.xmlEscapedForTest)
                }
                return HostileServer.Response(status: 207, xml: HostileServer.multistatus(out))
            }
            if request.method == "PUT" {
                return HostileServer.Response(status: 201, headers: [("ETag", "\"put-\(UUID().uuidString)\"")])
            }
            return HostileServer.Response(status: 404)
        }
    }

    /// sync-collection answered 507 with a new page of new hrefs and a new token, forever: the
    /// listing is bounded, the round ends with one line, memory stays bounded.
    @Test func anEndlessTruncatedListingIsBounded() throws {
        let server = try Self.server(resources: [:]) { request in
            let page = UUID().uuidString
            var members = ""
            for i in 0..<2000 { members += HostileServer.member("/cal/\(page)-\(i).ics", etag: "\"e\"") }
            members +=
                "<d:response><d:href>/cal/</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status></d:response>"
            return HostileServer.Response(status: 207, xml: HostileServer.multistatus(members, token: "tok-\(page)"))
        }
        let host = try Host(server)
        let r = try host.once()
        #expect(r.status == 1)
        #expect(r.stdout.contains("more than 100000 members"), "\(r.stdout) \(r.stderr)")
        #expect(host.status?.error?.contains("more than 100000 members") == true)
    }

    /// One multistatus of a million hrefs (about 130 MB), sent as it is made: read as it
    /// arrives, and refused past the bound without holding it.
    @Test func aHugeMultistatusIsStreamedAndBounded() throws {
        let server = try Self.server(resources: [:]) { _ in
            HostileServer.Response(status: 207, headers: [("Content-Type", "application/xml")]) { write in
                guard write(Array("<?xml version='1.0'?><d:multistatus xmlns:d='DAV:'>".utf8)) else { return }
                var chunk = ""
                for i in 0..<1_000_000 {
                    chunk += HostileServer.member(
                        "/cal/\(String(repeating: "x", count: 40))-\(i).ics", etag: "\"etag-\(i)\"")
                    if chunk.utf8.count > 1 << 16 {
                        guard write(Array(chunk.utf8)) else { return }
                        chunk = ""
                    }
                }
                _ = write(Array((chunk + "<d:sync-token>t</d:sync-token></d:multistatus>").utf8))
            }
        }
        let host = try Host(server)
        let r = try host.once()
        #expect(r.status == 1)
        #expect(r.stdout.contains("more than 100000 members"), "\(r.stdout) \(r.stderr)")
    }

    /// A resource over 10 MB (an inline ATTACH) is one unreadable item: the other todo comes
    /// in, `sync status` names the large one, and libxml2 writes nothing to stderr.
    @Test func aResourceOverTenMegabytesIsOneBadItem() throws {
        let attach = "ATTACH;ENCODING=BASE64;VALUE=BINARY:" + String(repeating: "QUJD", count: 11 << 18) + "\r\n"
        let resources = [
            "/cal/big.ics": Self.todo("big", "大きい", extra: attach), "/cal/small.ics": Self.todo("small", "小さい")
        ]
        let server = try Self.server(resources: resources) { _ in
            HostileServer.Response(
                status: 207,
                xml: HostileServer.multistatus(
                    HostileServer.member("/cal/big.ics", etag: "\"11\"")
                        + HostileServer.member("/cal/small.ics", etag: "\"14\""), token: "t1"))
        }
        let host = try Host(server)
        let r = try host.once()
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.isEmpty, "nothing on stderr: \(r.stderr.prefix(500))")
        #expect(try host.machine.todo(uid: "small") != nil)
        let problem = try #require(host.status?.problems.first)
        #expect(problem.href == "/cal/big.ics" && problem.reason.contains("larger than"), "\(problem)")
        #expect(host.status?.error == nil)
    }

    /// A server giving a resource an ETag with CR LF: the todo comes in, but its update is never
    /// sent (the ETag would be a header line of its own); it is named as not syncing, and the
    /// other todos go on syncing.
    @Test func anETagWithALineBreakIsOneRefusedItem() throws {
        let resources = ["/cal/evil.ics": Self.todo("evil", "悪い ETag")]
        let etag = "\"e\"&#13;&#10;X-Injected: 1"
        let server = try Self.server(resources: resources, etags: ["/cal/evil.ics": etag]) { _ in
            HostileServer.Response(
                status: 207,
                xml: HostileServer.multistatus(HostileServer.member("/cal/evil.ics", etag: etag), token: "t1"))
        }
        let host = try Host(server)
        _ = try host.once()
        #expect(try host.machine.todo(uid: "evil") != nil)
        try host.machine.update(uid: "evil", ["title": "ここで直す"])
        try host.machine.add("ほかの")
        let r = try host.once()
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        let puts = server.requests.filter { $0.method == "PUT" }
        #expect(puts.count == 1 && !puts.contains { $0.path.contains("evil") }, "only the other todo was sent")
        #expect(!server.requests.contains { $0.headers.contains { $0.hasPrefix("X-Injected") } })
        let problem = try #require(host.status?.problems.first)
        #expect(
            problem.kind == "refused" && problem.title == "ここで直す" && problem.reason.contains("control character"),
            "\(problem)")
    }

    /// Two resources holding one UID (a permissive server): the round keeps one, the todo does
    /// not flip between them, and later rounds are quiet (no change in the store).
    @Test(arguments: [true, false])
    func twoResourcesWithOneUIDDoNotFlipFlop(tokens: Bool) throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        cal.tokens = tokens // without: the ETag fallback lists both every round
        cal.put("one.ics", vtodo(uid: "twin", summary: "一つ目"))
        cal.put("two.ics", vtodo(uid: "twin", summary: "二つ目"))
        try m.sync(cal)
        let title = try #require(try m.todo(uid: "twin")?["title"]?.stringValue)
        let seq = try m.client.result("daemon.status", [:])["seq"]?.intValue
        for _ in 0..<4 {
            let r = try m.sync(cal)
            #expect(r.received == 0 && r.sent == 0, "\(r)")
            #expect(
                r.problems.count == 1 && r.problems.first?.reason.contains("holds the UID of") == true,
                "the other copy is named")
        }
        #expect(try m.todo(uid: "twin")?["title"]?.stringValue == title)
        #expect(try m.client.result("daemon.status", [:])["seq"]?.intValue == seq, "the change log did not grow")
        #expect(cal.resources.count == 2 && cal.deletes == 0)
        // The kept copy deleted elsewhere: the other one is the todo now.
        let kept = try #require(
            cal.resources.first { String(decoding: $0.value.data, as: UTF8.self).contains("SUMMARY:\(title)") }?.key)
        cal.remove(kept)
        let after = try m.sync(cal)
        #expect(try m.todo(uid: "twin")?["title"]?.stringValue == (title == "一つ目" ? "二つ目" : "一つ目"))
        #expect(after.problems.isEmpty)
    }
}

extension String {
    /// The text escaped for XML character data (a test's own, not the client's).
    var xmlEscapedForTest: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;"
        )
        .replacingOccurrences(of: "\r", with: "&#13;")
    }
}
