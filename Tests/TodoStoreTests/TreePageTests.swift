import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// The tree page (`todo.list` with `tree`) that walks the matches in order and stops once the page
/// is full gives exactly what the algorithm it replaced gave — reading every match, placing each
/// subtask, then cutting the page — over random trees, filters, sorts, limits and offsets.
@Suite struct TreePageTests {
    @Test func theTreePageIsTheWholeTreeOrderCut() throws {
        let seed = SeededRandom.seed(from: "TREE_PAGE_SEED")
        var random = SeededRandom(seed: seed)
        for round in 0..<6 {
            let dir = TemporaryDirectory("tree-page")
            let clock = ManualClock()
            let store = try makeStore(dir, clock: clock)
            let count = try Self.makeForest(store, &random)
            for _ in 0..<120 {
                let query = Self.randomQuery(&random, count: count)
                let context = "seed \(seed) round \(round): \(query)"
                let (expected, page, streamed, order) = try store.read { tx in
                    let expected = try tx.referenceTreeOrder(query)
                    let page = try tx.list(query)
                    var streamed: [Int64] = []
                    var streamedTotal = -1
                    try tx.list(query, chunk: 3, total: { streamedTotal = $0 }) {
                        streamed += $0.map(\.id)
                        return true
                    }
                    return (expected, page, (streamed, streamedTotal), try tx.treeOrder(query))
                }
                #expect(order.ids == expected.ids && order.total == expected.total, "\(context)")
                #expect(page.todos.map(\.id) == expected.ids && page.total == expected.total, "\(context)")
                #expect(streamed.0 == expected.ids && streamed.1 == expected.total, "\(context)")
            }
        }
    }

    /// The first page of a tree listing reads about as many rows as it shows (with their trees),
    /// not every match: 3,000 todos, every tenth a subtask, in a few sorts and filters.
    @Test func theFirstTreePageDoesNotReadTheWholeStore() throws {
        let dir = TemporaryDirectory("tree-reads")
        let store = try makeStore(dir)
        try store.write { tx in
            var parent: Int64 = 0
            for i in 1...3000 {
                // A subtask outside 家 names a category of its own (given none, it would take its parent's).
                let new = NewTodo(
                    title: "t\(i) 牛乳", category: i % 3 == 0 ? "家" : i % 10 == 0 ? "外" : nil,
                    parent: i % 10 == 0 ? parent : nil)
                let todo = try tx.add(new)
                if i % 10 != 0 { parent = todo.id }
            }
        }
        let sorts: [[TodoQuery.SortKey]] = [[], [.init(.title)], [.init(.id, descending: true)], [.init(.due)]]
        for sort in sorts {
            for category in [nil, "家"] {
                var query = TodoQuery()
                query.tree = true
                query.sort = sort
                query.category = category
                query.limit = 20
                var flat = query
                flat.tree = false
                let (page, rows) = try store.read { tx in
                    try tx.connection.countingRows { () throws(TodoError) -> TodoPage in try tx.list(query) }
                }
                let flatRows = try store.read { tx in
                    try tx.connection.countingRows { () throws(TodoError) -> TodoPage in try tx.list(flat) }.rows
                }
                #expect(page.todos.count == 20 && page.total == (category == nil ? 3000 : 1000 + 100), "\(query)")
                // The flat page's own reads (its positions among them), plus the few trees and tests.
                #expect(rows < flatRows + 150, "\(query): \(rows) rows read for a page of 20, \(flatRows) flat")
            }
        }
    }

    /// Up to 70 todos in random trees (up to four levels), some moved, some done, with random
    /// categories, due dates, starts, priorities, tags and titles; returns how many were made.
    private static func makeForest(_ store: TodoStore, _ random: inout SeededRandom) throws -> Int {
        let count = Int.random(in: 20...70, using: &random)
        let base = Instant(rfc3339: "2026-12-01T09:00:00Z")!
        let titles = ["買い物", "牛乳", "Milk", "卵", "掃除", "report", "Report 2", "ｒｅｐｏｒｔ"]
        try store.write { tx in
            var depth: [Int64: Int] = [:]
            for i in 1...count {
                var new = NewTodo(title: titles.randomElement(using: &random)! + " \(i)")
                if i > 1, Bool.random(using: &random) {
                    let parent = Int64.random(in: 1...Int64(i - 1), using: &random)
                    if depth[parent, default: 0] < 3 { new.parent = parent }
                }
                if Int.random(in: 0..<3, using: &random) > 0 {
                    new.category = ["家", "work"].randomElement(using: &random)
                }
                if Bool.random(using: &random) {
                    new.due = base.adding(usec: Int64.random(in: -5...5, using: &random) * 86_400_000_000)
                }
                if Int.random(in: 0..<3, using: &random) == 0 {
                    new.start = base.adding(usec: Int64.random(in: -3...3, using: &random) * 86_400_000_000)
                }
                new.priority = [nil, .high, .medium, .low].randomElement(using: &random)!
                new.tags = Array(
                    ["a", "b", "タグ"].shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random)))
                new.top = Int.random(in: 0..<4, using: &random) == 0
                let todo = try tx.add(new)
                depth[todo.id] = new.parent.map { depth[$0, default: 0] + 1 } ?? 0
            }
            for _ in 0..<(count / 5) {
                let id = Int64.random(in: 1...Int64(count), using: &random)
                let target = Int64.random(in: 1...Int64(count), using: &random)
                if id != target {
                    _ = try tx.move(id, to: Bool.random(using: &random) ? .before(target) : .after(target))
                }
            }
            for _ in 0..<(count / 4) {
                _ = try tx.complete([Int64.random(in: 1...Int64(count), using: &random)])
            }
        }
        return count
    }

    private static func randomQuery(_ random: inout SeededRandom, count: Int) -> TodoQuery {
        let base = Instant(rfc3339: "2026-12-01T09:00:00Z")!
        func day(_ random: inout SeededRandom) -> Instant {
            base.adding(usec: Int64.random(in: -4...4, using: &random) * 86_400_000_000)
        }
        func sometimes(_ random: inout SeededRandom) -> Bool { Int.random(in: 0..<6, using: &random) == 0 }
        var query = TodoQuery()
        query.tree = true
        query.status = TodoQuery.Status.allCases.randomElement(using: &random)!
        if sometimes(&random) {
            query.category = ["家", "work"].randomElement(using: &random)
        } else if sometimes(&random) {
            query.uncategorized = true
        }
        if sometimes(&random) { query.overdue = true }
        if sometimes(&random) { query.dueBefore = day(&random) }
        if sometimes(&random) { query.dueAfter = day(&random) }
        if sometimes(&random) { query.search = ["report", "牛乳", "REPORT"].randomElement(using: &random) }
        if sometimes(&random) {
            query.tags = Array(["a", "b", "タグ"].shuffled(using: &random).prefix(Int.random(in: 1...2, using: &random)))
        }
        if sometimes(&random) { query.priority = TodoPriority.allCases.randomElement(using: &random) }
        if sometimes(&random) { query.recurring = false }
        if sometimes(&random) { query.parent = Int64.random(in: 1...Int64(count), using: &random) }
        if sometimes(&random) { query.startBefore = day(&random) }
        if sometimes(&random) { query.startAfter = day(&random) }
        if sometimes(&random) { query.ready = true }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            query.sort.append(
                TodoQuery.SortKey(
                    TodoQuery.SortField.allCases.randomElement(using: &random)!,
                    descending: Bool.random(using: &random)))
        }
        if Int.random(in: 0..<4, using: &random) > 0 { query.limit = Int.random(in: 0...25, using: &random) }
        if Bool.random(using: &random) { query.offset = Int.random(in: 0...40, using: &random) }
        return query
    }
}

extension StoreTransaction {
    private struct ReferenceNode {
        var parent: Int64?
        var rank: Int64
    }

    /// The tree order as it was computed before the walking page (kept here, verbatim, to compare
    /// against): every match read, the parents of matching subtasks added up to the top, the
    /// forest walked, the page cut from it.
    fileprivate func referenceTreeOrder(_ query: TodoQuery) throws(TodoError) -> (ids: [Int64], total: Int) {
        var flat = query
        flat.tree = false
        flat.limit = nil
        flat.offset = 0
        let plan = try plan(flat)
        var matched: [Int64] = []
        var nodes: [Int64: ReferenceNode] = [:]
        try forEachPageRow(plan, total: Int.max) { (s) throws(TodoError) in
            let id = s.int64(0)
            matched.append(id)
            nodes[id] = ReferenceNode(parent: s.optionalInt64(20), rank: s.int64(9))
            return true
        }
        for id in matched {
            var parent = nodes[id]?.parent
            while let p = parent, nodes[p] == nil {
                guard
                    let node = try connection.firstRow(
                        "SELECT parent_id, rank FROM todos WHERE id = ?", [.integer(p)],
                        {
                            ReferenceNode(parent: $0.optionalInt64(0), rank: $0.int64(1))
                        })
                else { break }
                nodes[p] = node
                parent = node.parent
            }
        }
        var children: [Int64: [Int64]] = [:]
        for (id, node) in nodes {
            if let p = node.parent, nodes[p] != nil { children[p, default: []].append(id) }
        }
        for key in children.keys { children[key]!.sort { nodes[$0]!.rank < nodes[$1]!.rank } }
        let wanted = query.limit.map { query.offset + $0 } ?? Int.max
        var order: [Int64] = []
        var total = 0
        var emitted: Set<Int64> = []
        func emit(_ root: Int64) {
            var stack = [root]
            while let id = stack.popLast() {
                guard emitted.insert(id).inserted else { continue }
                total += 1
                if order.count < wanted { order.append(id) }
                stack += (children[id] ?? []).reversed()
            }
        }
        let matchedSet = Set(matched)
        for id in matched {
            var top = id
            var steps = 0
            while let p = nodes[top]?.parent, nodes[p] != nil, steps < nodes.count {
                top = p
                steps += 1
            }
            if top == id || !matchedSet.contains(top) { emit(top) }
        }
        return (Array(order.dropFirst(query.offset)), total)
    }
}
