import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// A parent link that would make a cycle is never written, through the built `todoctl` against a
/// real daemon and database: not by a JSON or iCalendar import that names one (two todos naming
/// each other, a todo naming itself, a todo arriving as the parent of the todo waiting for it),
/// nor by `edit --parent`; so neither export (JSON nor iCalendar) carries a cycle to another client.
@Suite struct SubtaskCycleTests {
    static let env = ["TZ": "Asia/Tokyo", "NO_COLOR": "1", "COLUMNS": "100"]

    private func run(_ d: DaemonProcess, _ arguments: [String]) throws -> ChildProcess.Result {
        try d.todoctl(arguments, environment: Self.env)
    }

    private func json(_ d: DaemonProcess, _ arguments: [String]) throws -> JSON {
        let result = try run(d, ["--json"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    /// An import document of todos named by uid, each with the parent uid given.
    private func document(_ links: [(uid: String, parent: String?)]) -> String {
        let todos: [JSON] = links.map { uid, parent in
            var o: JSONObject = [
                "uid": .string(uid), "title": .string("課題 " + uid), "created": "2026-11-01T00:00:00Z",
                "updated": "2026-11-01T00:00:00Z"
            ]
            if let parent { o["parent"] = .string(parent) }
            return .object(o)
        }
        return JSON.object(["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)])
            .serialized()
    }

    /// An iCalendar file of VTODOs, each with a `RELATED-TO` naming the parent uid given.
    private func calendar(_ links: [(uid: String, parent: String)]) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//cycles//EN"]
        for (uid, parent) in links {
            lines += [
                "BEGIN:VTODO", "UID:\(uid)", "DTSTAMP:20261101T000000Z", "SUMMARY:課題 \(uid)", "RELATED-TO:\(parent)",
                "END:VTODO"
            ]
        }
        return (lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    /// Every todo's parent uid as the store gives it (`parent`'s uid, else the waiting `parentUid`).
    private func links(_ d: DaemonProcess) throws -> [String: String] {
        let all = try json(d, ["list", "--all", "--flat"]).arrayValue ?? []
        var out: [String: String] = [:]
        for t in all {
            guard let uid = t["uid"]?.stringValue else { continue }
            if let parent = t["parentUid"]?.stringValue { out[uid] = parent }
        }
        return out
    }

    /// The uids whose parent links lead back to themselves.
    private func cycles(_ parents: [String: String]) -> [String] {
        parents.keys.sorted().filter { start in
            var seen: Set<String> = []
            var current = parents[start]
            while let uid = current, seen.insert(uid).inserted {
                if uid == start { return true }
                current = parents[uid]
            }
            return false
        }
    }

    @Test func noImportEditOrExportWritesACycle() throws {
        let d = try DaemonProcess()
        let first = d.directory.file("first.json")
        // a and b name each other; c names itself; d waits for x, which is not there yet.
        try document([("a", "b"), ("b", "a"), ("c", "c"), ("d", "x")]).write(
            toFile: first, atomically: true, encoding: .utf8)
        #expect(try run(d, ["import", first]).status == 0)
        // x arrives naming d as its parent: d waited for it first, so x stays top-level.
        let second = d.directory.file("second.json")
        try document([("x", "d")]).write(toFile: second, atomically: true, encoding: .utf8)
        #expect(try run(d, ["import", second]).status == 0)
        // The same from an iCalendar file: e and f name each other, g itself.
        let third = d.directory.file("third.ics")
        try calendar([("e", "f"), ("f", "e"), ("g", "g")]).write(toFile: third, atomically: true, encoding: .utf8)
        #expect(try run(d, ["import", third]).status == 0)
        let stored = try links(d)
        #expect(cycles(stored).isEmpty, "\(stored)")
        // Of each cycle asked for, the link asked for last is dropped, not kept waiting.
        #expect(stored == ["a": "b", "d": "x", "e": "f"], "\(stored)")
        // A link that would close a cycle is refused by edit, and nothing changes.
        let ids = Dictionary(
            uniqueKeysWithValues: (try json(d, ["list", "--all", "--flat"]).arrayValue ?? []).compactMap { t in
                t["uid"]?.stringValue.flatMap { uid in t["id"]?.intValue.map { (uid, String($0)) } }
            })
        let refused = try run(d, ["edit", ids["x"]!, "--parent", ids["d"]!])
        #expect(refused.status != 0 && refused.stderr.contains("cycle"), "\(refused.stderr)")
        #expect(try links(d) == stored)
        // Neither export writes a link of a cycle.
        let exported = d.directory.file("export.json")
        #expect(try run(d, ["export", "--output", exported]).status == 0)
        let entries = try JSON.parse(String(contentsOfFile: exported, encoding: .utf8))["todos"]?.arrayValue ?? []
        var fromJSON: [String: String] = [:]
        for e in entries {
            if let uid = e["uid"]?.stringValue, let parent = e["parent"]?.stringValue { fromJSON[uid] = parent }
        }
        #expect(fromJSON == stored, "\(fromJSON)")
        let ics = d.directory.file("export.ics")
        #expect(try run(d, ["export", "--format", "ics", "--output", ics]).status == 0)
        var fromICS: [String: String] = [:]
        var uid: String?
        for line in try String(contentsOfFile: ics, encoding: .utf8).split(separator: "\r\n") {
            if line == "BEGIN:VTODO" { uid = nil }
            if line.hasPrefix("UID:") { uid = String(line.dropFirst(4)) }
            if line.hasPrefix("RELATED-TO"), let uid, let value = line.split(separator: ":", maxSplits: 1).last {
                fromICS[uid] = String(value)
            }
        }
        #expect(fromICS == stored, "\(fromICS)")
    }
}
