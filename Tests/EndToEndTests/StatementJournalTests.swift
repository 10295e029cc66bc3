import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Each request runs in a savepoint, whose journal holds the original of every page the request
/// changes. Unless temporary storage is in memory, SQLite writes that journal to a file in
/// /var/tmp once it passes its spill size, and with the store's exclusive lock it keeps the file
/// for good: every request after paid two write calls per page it changed (the 16-client add
/// spent more time writing it than writing the WAL). A large import followed by adds must leave
/// no such file.
@Suite struct StatementJournalTests {
    @Test func aLargeRequestLeavesNoJournalFileBehind() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let todos: [JSON] = (0..<400).map { i in
            [
                "title": .string("日誌 \(i) " + String(repeating: "長い題名", count: 8)),
                "notes": .string(String(repeating: "メモ", count: 100)),
                "tags": ["仕事", .string("t\(i % 7)")], "priority": "high", "created": "2026-11-01T00:00:00Z"
            ]
        }
        #expect(
            try c.result(
                "store.import", ["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)])[
                    "added"] == 400)
        // Then adds on the grown store, each of which changes pages that existed before it.
        for i in 0..<20 { _ = try c.result("todo.add", ["title": .string("追加 \(i)"), "tags": ["仕事"]]) }
        let links = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.pid)/fd/\($0)")
        }
        #expect(links.contains(daemon.database), "\(links)")
        #expect(!links.contains { $0.contains("etilqs") }, "a temporary SQLite file is open: \(links)")
    }
}
