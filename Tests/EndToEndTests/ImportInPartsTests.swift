import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `store.import` in parts (`"more": true`): held per connection, applied with the last part in
/// one transaction, dropped on any error or when the connection closes.
@Suite struct ImportInPartsTests {
    static func part(_ titles: [String], categories: [String] = [], more: Bool) -> JSONObject {
        var document: JSONObject = [
            "format": "todod-export", "version": 1, "categories": .array(categories.map { .string($0) }),
            "todos": .array(
                titles.map {
                    ["title": .string($0), "category": $0 == "" ? nil : "家", "created": "2026-11-01T00:00:00Z"]
                })
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
            #expect(
                try c.result("store.import", Self.part(["一", "二"], categories: ["家"], more: true))
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
        // only this one: the held parts were dropped
        #expect(afterBad["result"] == ["todos": 1, "categories": 1, "added": 1, "updated": 0, "unchanged": 0])
        // Parts, with other requests between them, then the last: one transaction, in order.
        _ = try c.result("store.import", Self.part(["五", "六"], more: true))
        _ = try c.result("todo.add", ["title": "between"])
        _ = try c.result("store.import", Self.part(["七"], more: true))
        #expect(
            try c.result("store.import", Self.part(["八"], more: false)) == [
                "todos": 4, "categories": 0, "added": 4, "updated": 0, "unchanged": 0
            ])
        let titles = try c.result("todo.list", ["status": "all"])["todos"]?.arrayValue?.compactMap {
            $0["title"]?.stringValue
        }
        #expect(titles == ["四", "between", "五", "六", "七", "八"])
        // Two imports applied, so two events; held parts raise none.
        let events = try (0..<2).map { _ in try watcher.receive()["params"]?["todos"] }
        #expect(events == [1, 4])
        var notAFlag = Self.part(["x"], more: false)
        notAFlag["more"] = "yes"
        #expect(errorCode(try c.call("store.import", notAFlag)) == -32602)
    }

    /// An entry too large for one request line (1.2 MiB of iCalendar lines todod does not model)
    /// is refused by todoctl before anything is sent, with one line naming the entry and what is
    /// too large, and nothing is imported; one within the line but over the 64 KiB kept is
    /// refused by the daemon naming its member. Before, the line went out whole, the daemon could
    /// not read it, and todoctl said "todod answered request null instead of 1" (exit 69).
    @Test func anEntryTooLargeToSendIsRefusedByName() throws {
        let daemon = try DaemonProcess()
        let dir = daemon.directory
        func ics(_ keptBytes: Int) -> String {
            let value = String(repeating: "QUJD", count: keptBytes / 4)
            var folded = "X-ATTACHMENT-DATA:" + value.prefix(50)
            var rest = value.dropFirst(50)
            while !rest.isEmpty {
                folded += "\r\n " + rest.prefix(74)
                rest = rest.dropFirst(74)
            }
            return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:big-1@example.com\r\n"
                + "SUMMARY:旅行の計画\r\n\(folded)\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        }
        let huge = dir.file("huge.ics")
        try ics(1_200 * 1024).write(toFile: huge, atomically: true, encoding: .utf8)
        let refused = try daemon.todoctl(["import", huge])
        #expect(refused.status == 1, "\(refused.status): \(refused.stderr)")
        #expect(
            refused.stderr.hasPrefix(
                "todoctl: cannot import todos[0] \"旅行の計画\" (uid big-1@example.com): its kept iCalendar lines"),
            "\(refused.stderr)")
        #expect(
            refused.stderr.contains("more than the 64 KiB todod keeps; nothing was imported")
                && refused.stderr.split(separator: "\n").count == 1,
            "\(refused.stderr)")
        // Within one line but over what todod keeps: the daemon names the member.
        let large = dir.file("large.ics")
        try ics(100 * 1024).write(toFile: large, atomically: true, encoding: .utf8)
        let over = try daemon.todoctl(["import", large])
        #expect(
            over.status == 1 && over.stderr.contains("todos[0].ical") && over.stderr.contains("65536"),
            "\(over.status): \(over.stderr)")
        let c = try daemon.client()
        #expect(try c.result("todo.list", ["status": "all"])["total"] == 0)
        // Within the limit: imported, the lines kept.
        let fits = dir.file("fits.ics")
        try ics(60 * 1024).write(toFile: fits, atomically: true, encoding: .utf8)
        let imported = try daemon.todoctl(["import", fits])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try c.result("todo.list", ["status": "all"])["total"] == 1)
    }
    /// `todoctl import` whose daemon is killed with -9 before it answered says that nothing was
    /// imported (an import is one transaction), and nothing was: the daemon started again on the
    /// same database holds no todo. The store of `todod-faults` hangs from its start, so the
    /// import is still waiting when the kill comes (after the daemon accepted todoctl).
    @Test func anImportCutByKillNineSaysNothingWasImported() throws {
        let dir = TemporaryDirectory("cut")
        let file = dir.file("import.json")
        try #"{"format": "todod-export", "version": 1, "categories": [], "todos": [{"title": "牛乳"}, {"title": "卵"}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let hung = try DaemonProcess(
            directory: dir, environment: ["TODOD_TEST_FAULT": "hang-store-after=0"], executable: "todod-faults")
        // The daemon's end of each connection it accepted is listed with the socket's path, as
        // the listening socket is (/proc/net/unix).
        func sockets() -> Int {
            let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
            return table.split(separator: "\n").filter { $0.hasSuffix(" " + hung.socket) }.count
        }
        #expect(eventually(timeout: 30) { sockets() == 1 }) // DaemonProcess's probe is gone
        let result = LockedBox<ChildProcess.Result?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let r = try? hung.todoctl(["import", file])
            result.mutate { $0 = r }
            done.signal()
        }
        // The daemon accepted todoctl's connection.
        #expect(eventually(timeout: 30) { sockets() > 1 })
        hung.stop(signal: SIGKILL)
        done.wait()
        let cut = try #require(result.value)
        #expect(
            cut.status == 69
                && cut.stderr.hasPrefix("todoctl: todod closed the connection before it answered the import")
                && cut.stderr.contains("nothing was imported") && cut.stderr.split(separator: "\n").count == 1,
            "\(cut.stderr)")
        let again = try DaemonProcess(directory: dir)
        #expect(try again.client().result("todo.list", ["status": "all"])["total"] == 0)
    }
}
