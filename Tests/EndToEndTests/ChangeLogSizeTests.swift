import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The change log's size rule in the shipped daemon: 400 edits of a 60 KiB note log about 96 MB
/// of row images; the daemon keeps at most 64 MiB of them, never the newest change, and the file
/// reuses what pruning frees. Before, only the count and age rules pruned (2,000 such edits made a
/// 525 MB database).
@Suite struct ChangeLogSizeTests {
    @Test func theDaemonKeepsAtMost64MiBOfRowImages() throws {
        let daemon = try DaemonProcess()
        let client = try RawClient(path: daemon.socket, timeoutSeconds: 300)
        let id = try client.result("todo.add", ["title": "長いメモ"])["id"]?.intValue ?? -1
        func note(_ i: Int) -> String { String(repeating: "メモ\(i) ", count: 60 * 1024 / 12) }
        let edits = 400
        for first in stride(from: 0, to: edits, by: 50) { // pipelined in fifties: group commit batches them
            try client.send(
                lines(
                    50, "todo.update", { ["id": .int(id), "notes": .string(note(first + $0))] }, firstID: 1_000 + first)
            )
            for _ in 0..<50 {
                let answer = try client.receive()
                #expect(answer["result"] != nil, "\(answer.serialized().prefix(200))")
            }
        }
        let undone = try client.result("store.undo")
        #expect(undone["todos"]?.arrayValue?.first?["notes"] == .string(note(edits - 2)))
        #expect(daemon.stop() == 0)
        // Measured on the file with the row images' own columns, not the store's bookkeeping.
        try Self.expectTheLogHoldsAtMost64MiB(daemon.database, edits: edits)
        let file = (try FileManager.default.attributesOfItem(atPath: daemon.database)[.size] as? Int) ?? 0
        #expect(file < 90 << 20, "the database is \(file) bytes")
    }

    /// A recurring todo's EXDATEs count too: 10,000 of them (about 280 KB in `recur_set`, in both
    /// images of every change) and 160 edits of its title log about 90 MB. Before, the rule
    /// did not count `recur_set` and kept all of it.
    @Test func aLargeRecurrenceSetCountsInTheLogSize() throws {
        let daemon = try DaemonProcess()
        let client = try RawClient(path: daemon.socket, timeoutSeconds: 300)
        let start = Instant(usec: 1_893_488_400_123_456) // 2030-01-01T09:00:00.123456Z
        let exdates = (0..<10_000).map {
            JSON.string(Instant(usec: start.usec + Int64($0 + 1) * 86_400_000_000).rfc3339(fractional: true))
        }
        let added = try client.result(
            "todo.add",
            [
                "title": "毎日", "due": .string(start.rfc3339(fractional: true)),
                "recurrence": ["rule": "FREQ=DAILY", "exdates": .array(exdates)]
            ])
        let id = added["id"]?.intValue ?? -1
        #expect(added["recurrence"]?["exdates"]?.arrayValue?.count == 10_000)
        let edits = 160
        for first in stride(from: 0, to: edits, by: 20) {
            try client.send(
                lines(
                    20, "todo.update", { ["id": .int(id), "title": .string("毎日 \(first + $0)")] },
                    firstID: 1_000 + first))
            for _ in 0..<20 {
                let answer = try client.receive()
                #expect(answer["result"] != nil, "\(answer.serialized().prefix(200))")
            }
        }
        #expect(daemon.stop() == 0)
        try Self.expectTheLogHoldsAtMost64MiB(daemon.database, edits: edits)
    }

    /// The row images' own text columns in the file (not the store's bookkeeping) hold more than
    /// 48 MiB and at most 64 MiB, and pruning kept neither the first change nor only the newest.
    static func expectTheLogHoldsAtMost64MiB(
        _ database: String, edits: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let text = [
            "title", "title_key", "notes", "search_key", "uid", "tags", "zone", "recur_rule", "ical_extra",
            "parent_uid", "recur_set"
        ]
        let size = ["b", "a"].flatMap { p in text.map { "coalesce(length(CAST(\(p)_\($0) AS BLOB)), 0)" } }.joined(
            separator: " + ")
        let images = Int(try ChildProcess.sqlite3(database, "SELECT SUM(\(size)) FROM change_rows;")) ?? -1
        #expect(
            images > 48 << 20 && images <= 64 << 20, "the log holds \(images) bytes of images",
            sourceLocation: sourceLocation)
        let oldest = Int(try ChildProcess.sqlite3(database, "SELECT min(seq) FROM changes;")) ?? -1
        #expect(oldest > 1 && oldest < edits, "the oldest change kept is \(oldest)", sourceLocation: sourceLocation)
    }
}
