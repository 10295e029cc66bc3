import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// The v2 filters of `todo.list` on a store big enough that a scan would show: tags, priority
/// and recurring are sought through their indexes, and give the same todos as the reference.
@Suite struct TagAndPriorityPlanTests {
    /// 3,000 todos; every 100th tagged `rare` (and every 300th also `Both`), every 7th high
    /// priority, every 50th recurring; every 3rd done.
    private static func bigStore(_ dir: TemporaryDirectory) throws -> TodoStore {
        let store = try makeStore(dir)
        let due = Instant(usec: 4_102_444_800_000_000) // 2100-01-01
        try store.write { tx in
            for i in 1...3_000 {
                var new = NewTodo(title: "todo \(i)", due: i % 2 == 0 ? due.adding(usec: Int64(i) * 1_000_000) : nil)
                if i % 100 == 0 { new.tags = i % 300 == 0 ? ["rare", "Both"] : ["rare"] }
                if i % 11 == 0 { new.tags += ["common\(i % 3)"] }
                if i % 7 == 0 { new.priority = .high } else if i % 5 == 0 { new.priority = .low }
                if i % 50 == 0 {
                    new.recurrence = TodoRecurrence(rule: "FREQ=DAILY")
                    new.due = due
                }
                let todo = try tx.add(new)
                if i % 3 == 0 { _ = try tx.complete([todo.id], stop: true) }
            }
        }
        return store
    }

    @Test func tagPriorityAndRecurringFiltersUseTheirIndexes() throws {
        let dir = TemporaryDirectory("tagplan")
        let store = try Self.bigStore(dir)
        var queries: [(String, TodoQuery, String)] = []
        for status in TodoQuery.Status.allCases {
            var q = TodoQuery()
            q.status = status
            q.tags = ["RARE"]
            q.limit = 50
            queries.append(("tag \(status)", q, "todo_tags_key"))
            q.tags = ["rare", "both"]
            queries.append(("two tags \(status)", q, "todo_tags_key"))
            q = TodoQuery()
            q.status = status
            q.priority = .high
            q.limit = 50
            queries.append(("priority \(status)", q, "todos_done_priority"))
            q = TodoQuery()
            q.status = status
            q.recurring = true
            q.limit = 50
            queries.append(("recurring \(status)", q, "todos_recurring"))
            q = TodoQuery()
            q.status = status
            q.tags = ["rare"]
            q.sort = [TodoQuery.SortKey(.priority)]
            q.limit = 50
            queries.append(("tag by priority \(status)", q, "todo_tags_key"))
        }
        // Ascending, a listing by priority walks `todos_done_priority` in order (descending, with
        // todos of no priority still last, it sorts what the status leaves).
        var q = TodoQuery()
        q.sort = [TodoQuery.SortKey(.priority)]
        q.limit = 50
        queries.append(("sort priority", q, "todos_done_priority"))
        q = TodoQuery()
        q.status = .all
        q.tags = ["rare"]
        q.recurring = true
        queries.append(("tag recurring", q, "todos_recurring"))
        try store.read { tx in
            // Descending, with todos of no priority still last: the todos with a priority, sought
            // and sorted, then the rest in the index's order.
            var down = TodoQuery()
            down.sort = [TodoQuery.SortKey(.priority, descending: true)]
            down.limit = 50
            let parts = try #require(try tx.plan(down).parts)
            for sql in [parts.first, parts.second] {
                let plan = try tx.queryPlan(sql, [.integer(50), .integer(0)])
                #expect(plan.first?.contains("todos_done_priority") == true, "\(plan)")
            }
            #expect(
                !(try tx.queryPlan(parts.second, [.integer(50), .integer(0)])).contains { $0.contains("TEMP B-TREE") })
            for (name, query, index) in queries {
                let statements = try tx.plan(query)
                let total = try tx.list(query).total
                let count = statements.keptCounts == nil ? [(statements.count, statements.values)] : []
                for (sql, values) in count + [(statements.page(forTotal: total), statements.pageValues)] {
                    let plan = try tx.queryPlan(sql, values)
                    #expect(
                        !plan.contains { $0.hasPrefix("SCAN t") && !$0.contains("todos_recurring") }, "\(name): \(plan)"
                    )
                    if index == "todos_done_priority" && query.tags.isEmpty && query.status != .all {
                        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(name): \(plan)")
                    }
                    // The filter's index drives the statement: the first step seeks it.
                    #expect(plan.first?.contains(index) == true, "\(name): \(plan)")
                }
            }
        }
    }

    /// Each filter, alone and combined, lists exactly the todos a plain filter of all of them keeps,
    /// in manual order, with the right total.
    @Test func filtersKeepWhatTheyShould() throws {
        let dir = TemporaryDirectory("tagfilter")
        let store = try Self.bigStore(dir)
        var all = TodoQuery()
        all.status = .all
        let everything = try store.read { try $0.list(all) }.todos
        for status in TodoQuery.Status.allCases {
            for tags in [[], ["RARE"], ["rare", "both"], ["common1"], ["nothing"]] {
                for priority in [nil, TodoPriority.high, .medium, .low] {
                    for recurring in [nil, true, false] {
                        var q = TodoQuery()
                        q.status = status
                        q.tags = tags
                        q.priority = priority
                        q.recurring = recurring
                        q.search = tags == ["common1"] ? "todo" : nil
                        let expected = everything.filter { t in
                            (status == .all || t.done == (status == .done))
                                && tags.allSatisfy { tag in t.tags.contains { $0.lowercased() == tag.lowercased() } }
                                && (priority == nil || t.priority == priority)
                                && (recurring == nil || (t.recurrence != nil) == recurring)
                        }.map(\.id)
                        let page = try store.read { try $0.list(q) }
                        #expect(
                            page.todos.map(\.id) == expected,
                            "\(status) \(tags) \(String(describing: priority)) \(String(describing: recurring))")
                        #expect(page.total == expected.count)
                    }
                }
            }
        }
        // By priority: high, medium, low, none; descending: low, medium, high, none.
        var q = TodoQuery()
        q.status = .all
        q.sort = [TodoQuery.SortKey(.priority)]
        let rank = { (p: TodoPriority?) in p?.rank ?? 4 }
        let up = try store.read { try $0.list(q) }.todos
        #expect(up.map(\.id) == everything.sorted { rank($0.priority) < rank($1.priority) }.map(\.id))
        q.sort = [TodoQuery.SortKey(.priority, descending: true)]
        let down = try store.read { try $0.list(q) }.todos
        let downRank = { (p: TodoPriority?) in p.map { 4 - $0.rank } ?? 4 }
        #expect(down.map(\.id) == everything.sorted { downRank($0.priority) < downRank($1.priority) }.map(\.id))
    }

    /// By priority descending within one status, a page is read in two parts (the todos with a
    /// priority, then those without); it is the page one sorted statement gives, wherever it
    /// falls between the parts.
    @Test func pagesByPriorityDescendingMatchOneSortedStatement() throws {
        let dir = TemporaryDirectory("prioparts")
        let store = try Self.bigStore(dir)
        var compared = 0
        try store.read { tx in
            for status in [TodoQuery.Status.open, .done] {
                let ranked = try tx.list(
                    {
                        var q = TodoQuery()
                        q.status = status
                        q.priority = nil
                        return q
                    }()
                ).todos.filter { $0.priority != nil }.count
                for sort in [
                    [TodoQuery.SortKey(.priority, descending: true)],
                    [TodoQuery.SortKey(.priority, descending: true), TodoQuery.SortKey(.position)]
                ] {
                    for (offset, limit) in [
                        (0, nil), (0, 50), (ranked - 10, 20), (ranked, 5), (ranked + 3, nil), (5_000, 2)
                    ] as [(Int, Int?)] {
                        var q = TodoQuery()
                        q.status = status
                        q.sort = sort
                        q.offset = offset
                        q.limit = limit
                        let statements = try tx.plan(q)
                        #expect(statements.parts != nil)
                        let sorted = try tx.connection.rows(statements.walkingPage, statements.walkingValues) {
                            $0.int64(0)
                        }
                        #expect(
                            try tx.list(q).todos.map(\.id) == sorted,
                            "\(status) \(sort) \(offset) \(String(describing: limit))")
                        compared += sorted.isEmpty ? 0 : 1
                    }
                }
            }
        }
        #expect(compared >= 20)
    }
}
