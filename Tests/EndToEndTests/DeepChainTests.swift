import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// A chain of 10,000 subtasks, each the parent of the next, through the built `todoctl` and raw
/// clients against a real daemon: imported from an iCalendar file parents first, and listed as a
/// tree with the children first in manual order, while another client asks `daemon.status`. Each
/// used to walk up the whole chain once per todo: minutes of work on the store queue, every
/// client waiting. Now each answers well within a generous timeout (no assertion on the clock).
@Suite struct DeepChainTests {
    static let depth = 10_000

    @Test func aDeepChainIsImportedAndListedWithoutHoldingUpOtherClients() throws {
        let d = try DaemonProcess()
        let env = ["NO_COLOR": "1", "TODOCTL_TIMEOUT": "60"]
        // p1 > p2 > … as VTODOs, parents first.
        var ics = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//chain//EN"]
        for i in 1...Self.depth {
            ics += ["BEGIN:VTODO", "UID:p\(i)", "DTSTAMP:20261101T000000Z", "SUMMARY:親 \(i)"]
            if i > 1 { ics.append("RELATED-TO;RELTYPE=PARENT:p\(i - 1)") }
            ics.append("END:VTODO")
        }
        let calendar = d.directory.file("chain.ics")
        try ((ics + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n").write(
            toFile: calendar, atomically: true, encoding: .utf8)
        let imported = try d.todoctl(["import", calendar], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        // c1 > c2 > … as an export document, children first: the manual order puts them so.
        let entries: [JSON] = (1...Self.depth).reversed().map { i in
            var o: JSONObject = ["uid": .string("c\(i)"), "title": .string("子 \(i)"), "created": "2026-11-01T00:00:00Z"]
            if i > 1 { o["parent"] = .string("c\(i - 1)") }
            return .object(o)
        }
        let document = d.directory.file("chain.json")
        try JSON.object(["format": "todod-export", "version": 1, "categories": [], "todos": .array(entries)])
            .serialized()
            .write(toFile: document, atomically: true, encoding: .utf8)
        let second = try d.todoctl(["import", document], environment: env)
        #expect(second.status == 0, "\(second.stderr)")
        // The tree listing asked for, then daemon.status from another client while it is served.
        let lister = try RawClient(path: d.socket, timeoutSeconds: 120)
        let id = try lister.request("todo.list", ["status": "all", "tree": true])
        let other = try RawClient(path: d.socket, timeoutSeconds: 60)
        #expect(try other.result("daemon.status")["open"] == .int(Int64(2 * Self.depth)))
        var answer = try lister.receive()
        while answer["id"] != .int(id) { answer = try lister.receive() }
        let titles = answer["result"]?["todos"]?.arrayValue?.compactMap { $0["title"]?.stringValue } ?? []
        #expect(answer["result"]?["total"] == .int(Int64(2 * Self.depth)), "\(answer["error"] ?? .null)")
        #expect(titles == (1...Self.depth).map { "親 \($0)" } + (1...Self.depth).map { "子 \($0)" })
        let table = try d.todoctl(["list", "--all"], environment: env)
        #expect(table.status == 0 && table.stdout.split(separator: "\n").count == 2 * Self.depth + 1, "\(table.stderr)")
    }
}
