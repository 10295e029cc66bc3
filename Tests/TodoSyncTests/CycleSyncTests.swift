import Foundation
import Testing
import TodoCalDAV
import TodoProtocol
import TodoTestSupport

/// Another client leaves a cycle of `RELATED-TO` on Radicale (two VTODOs naming each other, one
/// naming itself): the built `todod-sync` brings the todos in, but the store keeps no link of a
/// cycle, not even as a waiting uid, so its exports (and what a sync uploads) carry none.
@Suite(.enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct CycleSyncTests {
    @Test func aCycleOnTheServerIsNotKeptHere() throws {
        let server = try CalDAVSyncTests.server(.radicale)
        let calendar = try CalDAVSyncTests.calendar(server)
        let host = try CalDAVSyncTests.host(server, calendar)
        let collection = CalDAVCollection(url: calendar, user: server.user, password: server.password)
        for (uid, parent) in [("cyc-a", "cyc-b"), ("cyc-b", "cyc-a"), ("cyc-self", "cyc-self")] {
            let text = [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//other//EN", "BEGIN:VTODO", "UID:\(uid)",
                "DTSTAMP:20261201T090000Z", "SUMMARY:輪 \(uid)", "RELATED-TO:\(parent)", "END:VTODO", "END:VCALENDAR"
            ]
            _ = try collection.create(name: uid + ".ics", data: Array((text.joined(separator: "\r\n") + "\r\n").utf8))
        }
        let round = try host.once()
        #expect(round.status == 0, "\(round.stdout)\(round.stderr)")
        var links: [String: String] = [:]
        for uid in ["cyc-a", "cyc-b", "cyc-self"] {
            let todo = try #require(try host.machine.todo(uid: uid))
            if let parent = todo["parentUid"]?.stringValue { links[uid] = parent }
        }
        // Of the two naming each other, one keeps its link; the one naming itself keeps none.
        #expect(links == ["cyc-a": "cyc-b"] || links == ["cyc-b": "cyc-a"], "\(links)")
        let export = try host.machine.daemon.todoctl(["export", "--format", "ics"], environment: ["TZ": "UTC"])
        #expect(export.status == 0)
        let related = export.stdout.split(separator: "\r\n").filter { $0.hasPrefix("RELATED-TO") }
        #expect(related.count == 1, "\(related)")
        // The next rounds end: nothing goes back and forth.
        #expect(try host.once().status == 0)
        let quiet = try host.once()
        #expect(quiet.status == 0 && quiet.stdout.contains(": 0 sent, 0 received"), "\(quiet.stdout)\(quiet.stderr)")
    }
}
