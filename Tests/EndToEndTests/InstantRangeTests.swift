import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// No instant outside the years 0001 to 9999 UTC gets into the store, so its export always imports
/// again.
@Suite struct InstantRangeTests {
    /// Offsets that carry a valid local date out of range are refused with -32602 naming the field;
    /// the store is unchanged.
    @Test func offsetsThatLeaveTheRangeAreRefused() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        _ = try client.result("todo.add", ["title": "基準", "due": "2099-12-01T10:00:00Z"])
        let before = try client.result("store.export")
        let cases: [(String, JSONObject, String)] = [
            ("todo.add", ["title": "x", "due": "9999-12-31T23:59:59-23:59"], "due"),
            ("todo.add", ["title": "x", "due": "9999-12-31T23:59:59.5-00:01"], "due"),
            ("todo.add", ["title": "x", "remind": "0001-01-01T00:00:00+00:01"], "remind"),
            ("todo.update", ["id": 1, "due": "0001-01-01T05:00:00+23:59"], "due"),
            ("todo.snooze", ["id": 1, "until": "9999-12-31T23:00:00-01:00"], "until"),
            ("reminder.list", ["since": "0001-01-01T00:00:00+01:00"], "since")
        ]
        for (method, params, field) in cases {
            let answer = try client.call(method, params)
            #expect(
                answer["error"]?["code"] == .int(-32602),
                "\(method) \(JSON.object(params).serialized()): \(answer.serialized())")
            #expect(answer["error"]?["data"]?["field"] == .string(field), "\(answer.serialized())")
            #expect(
                answer["error"]?["message"]?.stringValue?.contains("0001 to 9999") == true, "\(answer.serialized())")
        }
        // The bounds themselves are fine.
        _ = try client.result(
            "todo.add", ["title": "last", "due": "9999-12-31T23:59:59.999999Z", "remind": "0001-01-01T00:00:00Z"])
        _ = try client.result("todo.add", ["title": "last+offset", "due": "9999-12-31T23:59:59+00:00"])
        _ = try client.result("todo.delete", ["ids": [2, 3]])
        #expect(try client.result("store.export")["todos"] == before["todos"])
    }

    /// An import carrying an out-of-range instant is refused whole.
    @Test func anImportWithAnOutOfRangeInstantIsRefused() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let document: JSONObject = [
            "format": "todod-export", "version": 1, "categories": [],
            "todos": [
                ["title": "ok", "created": "2026-01-01T00:00:00Z"],
                ["title": "x", "due": "9999-12-31T23:59:59-23:59", "created": "2026-01-01T00:00:00Z"]
            ]
        ]
        let answer = try client.call("store.import", document)
        #expect(answer["error"]?["code"] == .int(-32602), "\(answer.serialized())")
        #expect(try client.result("todo.list")["total"] == .int(0))
    }

    /// Moving the due date keeps the reminder's lead time only when that stays in range: a due
    /// time moved next to the year 1 with a reminder an hour before it is refused (before, the
    /// reminder was stored in year 0 and the store's own export could not be imported).
    @Test func aKeptLeadTimeMayNotLeaveTheRange() throws {
        let daemon = try DaemonProcess()
        #expect(try daemon.todoctl(["add", "古い", "--due", "2099-12-01T10:00:00Z", "--remind", "1h"]).status == 0)
        let moved = try daemon.todoctl(["edit", "1", "--due", "0001-01-01T00:30:00Z"])
        #expect(moved.status == 1, "\(moved.status) \(moved.stdout) \(moved.stderr)")
        #expect(moved.stderr.contains("outside the years 0001 to 9999"), "\(moved.stderr)")
        let raw = try daemon.client().call(
            "todo.update", ["id": 1, "due": "9999-12-31T23:30:00Z", "remind": "9999-12-31T23:00:00Z"])
        #expect(raw["result"] != nil, "\(raw.serialized())")
        let late = try daemon.client().call("todo.update", ["id": 1, "due": "0001-01-01T00:10:00Z"])
        #expect(late["error"]?["code"] == .int(-32602), "\(late.serialized())")
        #expect(late["error"]?["data"]?["field"] == .string("due"), "\(late.serialized())")

        // The client's own arithmetic: a lead time before the year 1 is a usage error.
        let early = try daemon.todoctl(["add", "早い", "--due", "0001-01-01T00:30:00Z", "--remind", "1h"])
        #expect(early.status == 2, "\(early.stderr)")
        #expect(early.stderr.contains("falls before the year 0001"), "\(early.stderr)")
        let offset = try daemon.todoctl(["add", "遅い", "--due", "9999-12-31T23:59:59-23:59"])
        #expect(offset.status == 2, "\(offset.stderr)")
        #expect(offset.stderr.contains("outside the years 0001 to 9999"), "\(offset.stderr)")

        // Whatever happened above, the export imports into a fresh daemon.
        let export = try daemon.todoctl(["export"])
        #expect(export.status == 0)
        let other = try DaemonProcess()
        let imported = try other.todoctl(["import", "-"], input: export.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
    }
}
