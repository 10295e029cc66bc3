import Foundation
import TodoCore
import TodoProtocol
import TodoStore

/// Generated todos, the same for todod and for Taskwarrior: varied titles (some Japanese), three
/// in four with a category (Taskwarrior: project), two in three with a due date.
enum Seed {
    static let categories = ["仕事", "Home", "買い物", "Errands", "Garden"]

    static func title(_ i: Int) -> String {
        switch i % 4 {
        case 0: return "todo \(i) 牛乳を買う"
        case 1: return "Task \(i) write the quarterly report"
        case 2: return "Call about invoice \(i)"
        default: return "Water the plants \(i)"
        }
    }

    static func category(_ i: Int) -> String? { i % 4 == 0 ? nil : categories[i % categories.count] }

    /// Due dates within the next 30 days (deterministic), for two todos in three.
    static func due(_ i: Int, base: Instant) -> Instant? {
        i % 3 == 0 ? nil : base.adding(usec: Int64((i * 7919) % (30 * 86_400) + 3600) * 1_000_000)
    }

    /// Fills the store at `path` (created if missing) with `count` open todos, in transactions of
    /// `batch` through `importDocument`. `remind` gives each todo's reminder (nil: none).
    /// Returns the seconds it took.
    static func store(path: String, count: Int, batch: Int = 10_000, remind: ((Int, Instant?) -> Instant?)? = nil)
        throws -> Double
    {
        let start = Measure.now()
        let base = Instant.now()
        let store = try TodoStore(path: path)
        defer { store.close() }
        for first in stride(from: 0, to: count, by: batch) {
            var entries: [ExportDocument.Entry] = []
            entries.reserveCapacity(batch)
            for i in first..<min(first + batch, count) {
                let due = due(i, base: base)
                let created = base.adding(usec: Int64(i - count) * 1000)
                entries.append(
                    ExportDocument.Entry(
                        title: title(i), category: category(i), due: due, remind: remind.map { $0(i, due) } ?? nil,
                        created: created, updated: created))
            }
            let document = ExportDocument(categories: first == 0 ? categories : [], todos: entries, exported: base)
            _ = try store.write { try $0.importDocument(document) }
        }
        return Measure.now() - start
    }

    /// The same todos as `store(path:count:)` as a Taskwarrior import file (one JSON object a line).
    static func taskwarriorFile(path: String, count: Int) throws {
        let base = Instant.now()
        var out = ""
        out.reserveCapacity(count * 160)
        for i in 0..<count {
            let created = base.adding(usec: Int64(i - count) * 1000)
            var task: JSONObject = [
                "uuid": .string(UUID().uuidString.lowercased()),
                "description": .string(title(i)),
                "status": "pending",
                "entry": .string(taskwarriorDate(created))
            ]
            if let category = category(i) { task["project"] = .string(category) }
            if let due = due(i, base: base) { task["due"] = .string(taskwarriorDate(due)) }
            out += JSON.object(task).serialized() + "\n"
        }
        try out.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// 20261101T090000Z, Taskwarrior's date format.
    static func taskwarriorDate(_ instant: Instant) -> String {
        String(instant.rfc3339().filter { $0 != "-" && $0 != ":" })
    }
}
