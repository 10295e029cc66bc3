import Foundation
import Synchronization
import TodoCore
import TodoStore

/// The store section: bulk insert, first pages of every sort key, a move, and the next-reminder
/// lookup, all on a store of `count` todos.
enum StoreBench {
    static func run(count: Int, samples: Int) throws {
        print("== store (\(count) todos, SQLite WAL synchronous=FULL)")
        let dir = NSTemporaryDirectory() + "todobench-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A clock that ticks a millisecond per transaction, so created/updated differ as in real use.
        let base = Instant.now()
        let ticks = Ticker()
        let store = try TodoStore(path: dir + "/todos.db", clock: { base.adding(usec: ticks.next() * 1000) })
        let categories = ["仕事", "Home", "買い物", "Errands", "🏠"]
        var rng = SystemRandomNumberGenerator()

        let start = Measure.now()
        for batch in stride(from: 0, to: count, by: 100) {
            try store.write { tx in
                for i in batch..<min(batch + 100, count) {
                    let due: Instant? =
                        i % 3 == 0 ? nil : base.adding(usec: Int64.random(in: 1...30 * 86_400, using: &rng) * 1_000_000)
                    _ = try tx.add(
                        NewTodo(
                            title: i % 2 == 0 ? "todo \(i) 牛乳を買う" : "Task \(i) write report",
                            category: i % 4 == 0 ? nil : categories[i % categories.count], due: due))
                }
            }
        }
        let bulk = Measure.now() - start
        report("bulk insert (100 per transaction)", [bulk], extra: String(format: "%.0f todos/s", Double(count) / bulk))

        for field in TodoQuery.SortField.allCases {
            for descending in [false, true] {
                var query = TodoQuery()
                query.sort = [TodoQuery.SortKey(field, descending: descending)]
                query.limit = 50
                let times = try Measure.samples(samples) { _ = try store.read { try $0.list(query) } }
                report("first page of 50, sort \(descending ? "-" : "")\(field)", times)
            }
        }
        var byCategory = TodoQuery()
        byCategory.category = "仕事"
        byCategory.limit = 50
        report(
            "first page of 50 of one category",
            try Measure.samples(samples) { _ = try store.read { try $0.list(byCategory) } })

        var id: Int64 = 1
        let moves = try Measure.samples(samples) {
            id += 1
            _ = try store.write { try $0.move(id, to: .position(count / 2)) }
        }
        report("move to the middle (durable commit)", moves)
        let top = try Measure.samples(samples) {
            id += 1
            _ = try store.write { try $0.move(id, to: .position(1)) }
        }
        report("move to the top (durable commit)", top)
        let next = try Measure.samples(samples * 10) { _ = try store.read { try $0.nextPendingReminder() } }
        report("next pending reminder lookup", next)
        let get = try Measure.samples(samples * 10) { _ = try store.read { try $0.todo(Int64(count / 2)) } }
        report("get one todo (mid-list position)", get)

        // Completing a plain todo beside completing a recurring one (its due advances to the next
        // occurrence in its zone, the reminder moves with it): one durable commit each.
        var plain = Int64(count / 2)
        let completePlain = try Measure.samples(samples * 4) {
            plain += 1
            _ = try store.write { try $0.complete([plain]) }
        }
        report("complete a plain todo (durable commit)", completePlain)
        let recurring = try store.write { tx in
            try (0..<samples * 4).map { i in
                try tx.add(
                    NewTodo(
                        title: "recurring \(i) 水やり", due: base.adding(usec: Int64(i) * 60_000_000), tags: ["garden"],
                        zone: "Europe/Berlin",
                        recurrence: TodoRecurrence(rule: i % 2 == 0 ? "FREQ=DAILY" : "FREQ=WEEKLY;BYDAY=MO,TH"))
                ).id
            }
        }
        var turn = 0
        let completeRecurring = try Measure.samples(samples * 4) {
            let id = recurring[turn % recurring.count]
            turn += 1
            let advanced = try store.write { try $0.complete([id]) }
            precondition(!advanced[0].done, "a recurring todo was closed")
        }
        report("complete a recurring todo (durable commit)", completeRecurring)
        // The same without the commit's fsync to hide it: 100 completions in one transaction, per todo.
        let batch = try store.write { tx in
            try (0..<100).map { i in
                try tx.add(
                    NewTodo(
                        title: "batch \(i)", due: base.adding(usec: Int64(i) * 60_000_000), zone: "Europe/Berlin",
                        recurrence: TodoRecurrence(rule: "FREQ=WEEKLY;BYDAY=MO,TH"))
                ).id
            }
        }
        let perRecurring = try Measure.samples(samples) { _ = try store.write { try $0.complete(batch) } }.map {
            $0 / 100
        }
        var nextPlain = plain
        let perPlain = try Measure.samples(samples) {
            let ids = (1...100).map { nextPlain + Int64($0) }
            nextPlain += 100
            _ = try store.write { try $0.complete(ids) }
        }.map { $0 / 100 }
        report("complete plain, 100 per commit, per todo", perPlain)
        report("complete recurring, 100 per commit, per todo", perRecurring)
        var tagged = TodoQuery()
        tagged.tags = ["garden"]
        tagged.limit = 50
        report(
            "first page of 50 with one tag (\(recurring.count) tagged)",
            try Measure.samples(samples) { _ = try store.read { try $0.list(tagged) } })
    }
}

/// A counter safe to call from the store's queue.
final class Ticker: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = Mutex(())
    private var value: Int64 = 0
    func next() -> Int64 {
        lock.withLock { _ in
            value += 1
            return value
        }
    }
}
