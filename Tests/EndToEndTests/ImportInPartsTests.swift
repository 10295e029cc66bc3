#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// `store.import` in parts (`"more": true`): held per connection, applied with the last part in
/// one transaction, dropped on any error or when the connection closes.
@Suite struct ImportInPartsTests {
    static func part(_ titles: [String], categories: [String] = [], more: Bool) -> JSONObject {
        var document: JSONObject = [
            "format": "todod-export", "version": 1, "categories": .array(categories.map { .string($0) }),
            "todos": .array(titles.map { ["title": .string($0), "category": $0 == "" ? nil : "家", "created": "2026-11-01T00:00:00Z"] }),
        ]
        if more { document["more"] = true }
        return document
    }

    @Test func partsLandTogetherOrNotAtAll() throws {
        let daemon = try DaemonProcess()
        let watcher = try daemon.client()
        _ = try watcher.result("watch", ["events": ["store.imported"]])
        // Held parts are not applied, and a closed connection drops them.
        do {
            let c = try daemon.client()
            #expect(try c.result("store.import", Self.part(["一", "二"], categories: ["家"], more: true))
                    == ["todos": 2, "categories": 1, "more": true])
            #expect(try c.result("todo.list", ["status": "all"])["total"] == 0)
        }
        let c = try daemon.client()
        #expect(try c.result("todo.list", ["status": "all"])["total"] == 0)
        // An error in a later part names the todo by its place in the whole import and drops it all.
        _ = try c.result("store.import", Self.part(["一", "二"], categories: ["家"], more: true))
        let bad = try c.call("store.import", Self.part(["三", "\u{7}"], more: false))
        #expect(bad["error"]?["code"] == -32602)
        #expect(bad["error"]?["message"]?.stringValue?.contains("todos[3].title") == true, "\(bad)")
        let afterBad = try c.call("store.import", Self.part(["四"], more: false))
        #expect(afterBad["result"] == ["todos": 1, "categories": 1, "added": 1, "updated": 0, "unchanged": 0])  // only this one: the held parts were dropped
        // Parts, with other requests between them, then the last: one transaction, in order.
        _ = try c.result("store.import", Self.part(["五", "六"], more: true))
        _ = try c.result("todo.add", ["title": "between"])
        _ = try c.result("store.import", Self.part(["七"], more: true))
        #expect(try c.result("store.import", Self.part(["八"], more: false)) == ["todos": 4, "categories": 0, "added": 4, "updated": 0, "unchanged": 0])
        let titles = try c.result("todo.list", ["status": "all"])["todos"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(titles == ["四", "between", "五", "六", "七", "八"])
        // Two imports applied, so two events; held parts raise none.
        let events = try (0..<2).map { _ in try watcher.receive()["params"]?["todos"] }
        #expect(events == [1, 4])
        var notAFlag = Self.part(["x"], more: false)
        notAFlag["more"] = "yes"
        #expect(errorCode(try c.call("store.import", notAFlag)) == -32602)
    }
}
