import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// Work that grows with the store, counted (no clock) in rows SQLite hands out or in its virtual
/// machine steps: a tree listing of a chain listed children first, and an import that links a
/// chain parents first, used to walk up the whole chain once per todo (2,000 levels: some two
/// million rows; now a few per todo); a page of `store.changes` used to scan every todo row of the
/// log once per change (2,000 changes: some four million steps; now a few dozen per change).
@Suite struct LinearWorkTests {
    static let depth = 2_000

    /// The chain 1 > 2 > … > `depth` as an import document, `childrenFirst` or parents first.
    static func chain(childrenFirst: Bool, at now: Instant) -> ExportDocument {
        var entries = (1...depth).map { i in
            var e = ExportDocument.Entry(title: "段 \(i)", created: now, updated: now, uid: "chain-\(i)")
            if i > 1 { e.parent = "chain-\(i - 1)" }
            return e
        }
        if childrenFirst { entries.reverse() }
        return ExportDocument(categories: [], todos: entries, exported: now)
    }

    @Test func aTreeListingOfAChainListedChildrenFirstReadsEachTodoOnce() throws {
        let dir = TemporaryDirectory("deep-tree")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        _ = try store.write { try $0.importDocument(Self.chain(childrenFirst: true, at: clock.now)) }
        for limit in [nil, 50, 5_000] as [Int?] {
            var query = TodoQuery()
            query.tree = true
            query.limit = limit
            let (page, rows) = try store.read { tx in
                try tx.connection.countingRows { () throws(TodoError) -> TodoPage in try tx.list(query) }
            }
            let shown = min(limit ?? Self.depth, Self.depth)
            #expect(page.total == Self.depth && page.todos.map(\.title) == (1...shown).map { "段 \($0)" })
            #expect(rows < 30 * Self.depth, "limit \(limit ?? -1): \(rows) rows read for a chain of \(Self.depth)")
        }
    }

    @Test func importingAChainParentsFirstReadsEachTodoOnce() throws {
        let dir = TemporaryDirectory("deep-import")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let (counts, rows) = try store.write { tx in
            try tx.connection.countingRows { () throws(TodoError) -> ImportCounts in
                try tx.importDocument(Self.chain(childrenFirst: false, at: clock.now))
            }
        }
        #expect(counts.added == Self.depth)
        #expect(rows < 30 * Self.depth, "\(rows) rows read to import a chain of \(Self.depth)")
        let last = try store.read { try $0.todo(Int64(Self.depth)) }
        #expect(last.parent == Int64(Self.depth - 1) && last.parentUid == "chain-\(Self.depth - 1)")
    }

    @Test func aPageOfChangesReadsTheLogOnce() throws {
        let dir = TemporaryDirectory("changes-steps")
        let store = try makeStore(dir)
        let count = 2_000
        for i in 1...count {
            _ = try store.write { try $0.add(NewTodo(title: "変更 \(i)")) }
        }
        let (page, steps) = try store.read { tx in
            try tx.connection.countingSteps { () throws(TodoError) in try tx.changedTodos(after: 0, limit: 100) }
        }
        #expect(page.changes.count == 100 && page.more && page.changes.last?.todo?.title == "変更 100")
        #expect(steps < 200 * count, "\(steps) steps for a page of 100 of \(count) changes")
    }
}
