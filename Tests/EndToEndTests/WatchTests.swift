import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct WatchTests {
    @Test func subscribersSeeEveryChangeInCommitOrder() throws {
        let daemon = try DaemonProcess()
        let watcher = try daemon.client()
        #expect(try watcher.result("watch") == ["subscribed": true])
        let c = try daemon.client()
        _ = try c.result("todo.add", ["title": "一", "category": "仕事"])
        _ = try c.result("todo.add", ["title": "two"])
        _ = try c.result("todo.update", ["id": 1, "notes": "メモ"])
        _ = try c.result("todo.update", ["id": 1, "notes": "メモ"]) // no change, no event
        _ = try c.result("todo.complete", ["ids": [1, 2]])
        _ = try c.result("todo.reopen", ["ids": [2]])
        // Todo 2 is the only open todo (position 1 already); before the done todo 1 it still
        // moves in the manual order, which is a change with its event.
        _ = try c.result("todo.move", ["id": 2, "before": 1])
        _ = try c.result("category.add", ["name": "Home"])
        _ = try c.result("category.rename", ["name": "home", "newName": "家"])
        _ = try c.result("category.move", ["name": "家", "position": 1])
        _ = try c.result("category.delete", ["name": "仕事", "force": true])
        _ = try c.result("todo.delete", ["ids": [2]])
        // Adding a todo with a new category creates the category: category.added comes first.
        let expected = [
            "category.added", "todo.added", "todo.added", "todo.updated", "todo.completed", "todo.reopened",
            "todo.moved", "category.added", "category.renamed", "category.moved", "category.deleted",
            "todo.updated", "todo.deleted"
        ]
        var events: [JSON] = []
        while events.count < expected.count {
            let message = try watcher.receive()
            #expect(message["method"] == "event")
            events.append(message["params"] ?? .null)
        }
        #expect(events.map { $0["type"]?.stringValue ?? "?" } == expected)
        #expect(events[1]["todos"]?[0]?["title"] == "一")
        #expect(events[4]["todos"]?.arrayValue?.count == 2)
        #expect(
            events.contains {
                $0["type"] == "category.renamed" && $0["oldName"] == "Home" && $0["category"]?["name"] == "家"
            })
        #expect(events.last?["type"] == "todo.deleted")
    }
}
