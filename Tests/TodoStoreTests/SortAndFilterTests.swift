import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// Seven todos with known titles, dues, categories and timestamps (see `SortAndFilterTests`).
private final class Fixture {
    let dir = TemporaryDirectory("sort")
    let clock = ManualClock()
    let store: TodoStore
    let start: Instant

    init() throws {
        store = try TodoStore(path: dir.file("todos.db"), clock: clock.source)
        start = clock.now
        let day: Int64 = 86_400_000_000
        let specs: [(String, Int64?, String?)] = [
            ("banana", 2, "Work"), // 1
            ("Apple", nil, "Home"), // 2
            ("りんご", 1, nil), // 3
            ("apple", 3, "home"), // 4 (same category as 2)
            ("🍌 emoji", nil, "WORK"), // 5 (same category as 1)
            ("Zebra", 1, nil), // 6
            ("アップル", 5, "仕事") // 7
        ]
        for (title, days, category) in specs {
            let due = days.map { start.adding(usec: $0 * day) }
            _ = try store.write { try $0.add(NewTodo(title: title, category: category, due: due)) }
            clock.advance(seconds: 60)
        }
        clock.set(start.adding(usec: 10 * 60_000_000))
        _ = try store.write { try $0.update(3, TodoPatch(notes: .set("甘い"))) }
        clock.set(start.adding(usec: 11 * 60_000_000))
        _ = try store.write { try $0.update(1, TodoPatch(notes: .set("yellow"))) }
        _ = try store.write { try $0.move(7, to: .position(1)) } // manual order: 7 1 2 3 4 5 6
        clock.set(start.adding(usec: 2 * day - 60_000_000))
    }

    func ids(_ configure: (inout TodoQuery) -> Void) throws -> [Int64] {
        var query = TodoQuery()
        query.status = .all
        configure(&query)
        return try store.read { try $0.list(query) }.todos.map(\.id)
    }

    func sorted(_ keys: TodoQuery.SortKey...) throws -> [Int64] {
        try ids { $0.sort = keys }
    }
}

@Suite struct SortAndFilterTests {
    @Test func everySortKeyInBothDirections() throws {
        let f = try Fixture()
        typealias K = TodoQuery.SortKey
        #expect(try f.sorted() == [7, 1, 2, 3, 4, 5, 6])
        #expect(try f.sorted(K(.id)) == [1, 2, 3, 4, 5, 6, 7])
        #expect(try f.sorted(K(.id, descending: true)) == [7, 6, 5, 4, 3, 2, 1])
        // Case-insensitive; "Apple"/"apple" tie and fall back to position; then code point order.
        #expect(try f.sorted(K(.title)) == [2, 4, 1, 6, 3, 7, 5])
        #expect(try f.sorted(K(.title, descending: true)) == [5, 7, 3, 6, 1, 2, 4])
        #expect(try f.sorted(K(.created)) == [1, 2, 3, 4, 5, 6, 7])
        #expect(try f.sorted(K(.created, descending: true)) == [7, 6, 5, 4, 3, 2, 1])
        #expect(try f.sorted(K(.updated)) == [2, 4, 5, 6, 3, 7, 1]) // 7 and 1 both changed at minute 11
        #expect(try f.sorted(K(.updated, descending: true)) == [7, 1, 3, 6, 5, 4, 2])
        // Todos without a due date come last in both directions; equal dues by position.
        #expect(try f.sorted(K(.due)) == [3, 6, 1, 4, 7, 2, 5])
        #expect(try f.sorted(K(.due, descending: true)) == [7, 4, 1, 3, 6, 2, 5])
        #expect(try f.sorted(K(.position)) == [7, 1, 2, 3, 4, 5, 6])
        #expect(try f.sorted(K(.position, descending: true)) == [6, 5, 4, 3, 2, 1, 7])
        // Category order is Work, Home, 仕事; uncategorised last both ways.
        #expect(try f.sorted(K(.category)) == [1, 5, 2, 4, 7, 3, 6])
        #expect(try f.sorted(K(.category, descending: true)) == [7, 2, 4, 1, 5, 3, 6])
        #expect(try f.sorted(K(.category), K(.title, descending: true)) == [5, 1, 2, 4, 7, 3, 6])
    }

    @Test func filters() throws {
        let f = try Fixture()
        _ = try f.store.write { try $0.complete([4]) }
        #expect(try f.ids { $0.status = .open } == [7, 1, 2, 3, 5, 6])
        #expect(try f.ids { $0.status = .done } == [4])
        #expect(try f.ids { $0.category = "work" } == [1, 5])
        #expect(
            try f.ids {
                $0.category = "HOME"
                $0.status = .open
            } == [2])
        #expect(try f.ids { $0.uncategorized = true } == [3, 6])
        // Now is a minute before two days after the start: 3 and 6 (due +1d) are overdue, 1 (due +2d) not yet.
        #expect(try f.ids { $0.overdue = true } == [3, 6])
        let day: Int64 = 86_400_000_000
        #expect(try f.ids { $0.dueBefore = f.start.adding(usec: 2 * day) } == [3, 6])
        #expect(try f.ids { $0.dueAfter = f.start.adding(usec: 2 * day) } == [7, 1, 4])
        #expect(throws: TodoError.notFound("no category named \"Nowhere\"")) { try f.ids { $0.category = "Nowhere" } }
    }

    @Test func searchIgnoresCaseAndWidthAndWorksForJapanese() throws {
        let f = try Fixture()
        _ = try f.store.write { try $0.add(NewTodo(title: "100% done_ok")) } // 8
        #expect(try f.ids { $0.search = "APPLE" } == [2, 4])
        #expect(try f.ids { $0.search = "ＡＰＰＬＥ" } == [2, 4])
        #expect(try f.ids { $0.search = "りんご" } == [3])
        #expect(try f.ids { $0.search = "ｱｯﾌﾟﾙ" } == [7])
        #expect(try f.ids { $0.search = "甘い" } == [3]) // notes
        #expect(try f.ids { $0.search = "%" } == [8])
        #expect(try f.ids { $0.search = "_" } == [8])
        #expect(try f.ids { $0.search = "' OR 1=1 --" } == [])
    }

    @Test func pagingKeepsTotalsAndPositions() throws {
        let f = try Fixture()
        var query = TodoQuery()
        query.status = .all
        query.sort = [TodoQuery.SortKey(.id)]
        query.limit = 2
        query.offset = 2
        let page = try f.store.read { try $0.list(query) }
        #expect(page.total == 7)
        #expect(page.todos.map(\.id) == [3, 4])
        #expect(page.todos.map(\.position) == [4, 5])
        query.limit = -1
        #expect(throws: TodoError.invalid("limit", "must be between 0 and \(TodoQuery.maxLimit)")) {
            try f.store.read { try $0.list(query) }
        }
    }

    /// Listing by status, category and due, and the next-reminder lookup, go through indexes.
    @Test func queriesNeverScanTheTable() throws {
        let f = try Fixture()
        var queries: [(String, TodoQuery)] = []
        for status in TodoQuery.Status.allCases {
            var q = TodoQuery()
            q.status = status
            q.limit = 50
            queries.append(("status \(status)", q))
        }
        var q = TodoQuery()
        q.category = "Work"
        queries.append(("category", q))
        q = TodoQuery()
        q.category = "Work"
        q.status = .all
        queries.append(("category all", q))
        q = TodoQuery()
        q.overdue = true
        queries.append(("overdue", q))
        q = TodoQuery()
        q.status = .all
        q.dueBefore = f.start
        queries.append(("due before", q))
        q = TodoQuery()
        q.status = .all
        q.dueAfter = f.start
        queries.append(("due after", q))
        for field in TodoQuery.SortField.allCases where field != .category {
            q = TodoQuery()
            q.sort = [TodoQuery.SortKey(field)]
            q.limit = 50
            queries.append(("sort \(field)", q))
        }
        try f.store.read { tx in
            for (name, query) in queries {
                let statements = try tx.plan(query)
                let pages = [statements.walkingPage] + (statements.narrowPage.map { [$0] } ?? [])
                for (sql, values) in [(statements.count, statements.values)]
                    + pages.map({ ($0, statements.pageValues) })
                {
                    let plan = try tx.queryPlan(sql, values)
                    #expect(!plan.contains { $0.hasPrefix("SCAN t") && !$0.contains("INDEX") }, "\(name): \(plan)")
                }
            }
            let next = try tx.queryPlan(StoreTransaction.nextReminderSQL, [])
            #expect(next.contains { $0.contains("todos_pending_reminder") }, "\(next)")
        }
    }

    /// A first page by due date walks `todos_done_due` in order, without sorting; a due-date
    /// range is sought in it, for the total and for a page with few matches.
    @Test func dueDatesAreReadThroughTheirIndex() throws {
        let f = try Fixture()
        try f.store.read { tx in
            var q = TodoQuery()
            q.sort = [TodoQuery.SortKey(.due)]
            q.limit = 50
            let byDue = try tx.plan(q)
            let plan = try tx.queryPlan(byDue.page(forTotal: 7), byDue.pageValues)
            #expect(
                plan.contains { $0.contains("todos_done_due") } && !plan.contains { $0.contains("TEMP B-TREE") },
                "\(plan)")
            // Within a due-date range too, however many match.
            q.dueAfter = f.start
            let after = try tx.plan(q)
            let afterPlan = try tx.queryPlan(after.page(forTotal: Int.max), after.pageValues)
            #expect(
                afterPlan.contains { $0.contains("todos_done_due") }
                    && !afterPlan.contains { $0.contains("TEMP B-TREE") }, "\(afterPlan)")
            // Descending, walking that index would still sort, after a table lookup per todo in due
            // order: the listing sorts what the status leaves instead.
            q = TodoQuery()
            q.sort = [TodoQuery.SortKey(.due, descending: true)]
            q.limit = 50
            let byDueDown = try tx.plan(q)
            let downPlan = try tx.queryPlan(byDueDown.page(forTotal: 7), byDueDown.pageValues)
            #expect(!downPlan.contains { $0.contains("todos_done_due") }, "\(downPlan)")

            var ranges: [TodoQuery] = []
            q = TodoQuery()
            q.overdue = true
            ranges.append(q)
            q = TodoQuery()
            q.status = .all
            q.dueBefore = f.start
            ranges.append(q)
            q = TodoQuery()
            q.status = .done
            q.dueAfter = f.start
            ranges.append(q)
            for query in ranges {
                let statements = try tx.plan(query)
                for (sql, values) in [
                    (statements.count, statements.values), (statements.page(forTotal: 1), statements.pageValues)
                ] {
                    let plan = try tx.queryPlan(sql, values)
                    #expect(
                        plan.contains {
                            $0.contains("todos_done_due") && $0.contains("due")
                                && ($0.contains("<?") || $0.contains(">?"))
                        }, "\(plan)")
                }
                #expect(statements.page(forTotal: StoreTransaction.narrowLimit + 1) == statements.walkingPage)
            }
            // A text search counts the todos the search index (migration 18) finds, each looked
            // up by id (SearchIndexTests: a common one or two characters read the table once).
            q = TodoQuery()
            q.search = "apple"
            let search = try tx.plan(q)
            let countPlan = try tx.queryPlan(search.count, search.values)
            #expect(
                countPlan.contains { $0.contains("search_fts") } && !countPlan.contains { $0.hasPrefix("SCAN t") },
                "\(countPlan)")
        }
    }

    /// Finding the matches first (seeking a due-date range, or reading the table once for a text
    /// search) and walking the sort order read the same page, whatever the status, sort, offset
    /// and limit.
    @Test func narrowAndWalkingPagesAreTheSame() throws {
        let f = try Fixture()
        _ = try f.store.write { try $0.complete([6, 4]) } // done todos inside and outside the ranges
        typealias K = TodoQuery.SortKey
        let sorts: [[K]] = [
            [], [K(.due)], [K(.due, descending: true)], [K(.title)], [K(.id, descending: true)], [K(.category), K(.due)]
        ]
        var compared = 0
        try f.store.read { tx in
            for status in TodoQuery.Status.allCases {
                for sort in sorts {
                    for range in 0..<6 {
                        var q = TodoQuery()
                        q.status = status
                        q.sort = sort
                        switch range {
                        case 0: q.overdue = true
                        case 1: q.dueBefore = f.start.adding(usec: 3 * 86_400_000_000)
                        case 2: q.dueAfter = f.start.adding(usec: 86_400_000_000)
                        case 3:
                            q.dueBefore = f.start.adding(usec: 4 * 86_400_000_000)
                            q.dueAfter = f.start
                            q.offset = 1
                            q.limit = 2
                        case 4:
                            q.search = "a"
                            q.offset = 1
                        default:
                            q.search = "a"
                            q.dueAfter = f.start
                        }
                        let statements = try tx.plan(q)
                        #expect(statements.narrowPage != nil)
                        let narrow = try tx.connection.rows(statements.page(forTotal: 0), statements.pageValues) {
                            $0.int64(0)
                        }
                        let walking = try tx.connection.rows(statements.walkingPage, statements.walkingValues) {
                            $0.int64(0)
                        }
                        #expect(narrow == walking, "status \(status), sort \(sort), range \(range)")
                        compared += narrow.isEmpty ? 0 : 1
                    }
                }
            }
        }
        #expect(compared > 45) // most combinations match something
        // Overdue (due before now, two days after the first todo): 3 and 6 are due on day 1; 6 is done.
        #expect(
            try f.ids {
                $0.status = .open
                $0.overdue = true
            } == [3])
        #expect(
            try f.ids {
                $0.dueBefore = f.start.adding(usec: 3 * 86_400_000_000)
                $0.sort = [K(.due)]
            } == [3, 6, 1])
    }

    /// Sorted by category, or by due date descending, within one status, a page is read in two
    /// parts through indexes: the categorised (dated) todos, then the others. The page is the one
    /// a single sorted statement gives, wherever it falls between the two parts.
    @Test func listingsByCategoryOrLatestDueAreReadInTwoParts() throws {
        let f = try Fixture()
        _ = try f.store.write { try $0.complete([4, 6]) }
        _ = try f.store.write { try $0.moveCategory("仕事", to: 1) } // category order: 仕事 Work Home
        typealias K = TodoQuery.SortKey
        var compared = 0
        try f.store.read { tx in
            var q = TodoQuery()
            q.sort = [K(.category)]
            q.limit = 50
            let parts = try #require(try tx.plan(q).parts)
            let plan = try tx.queryPlan(parts.first, [.integer(50), .integer(0)])
            #expect(
                plan.contains { $0.contains("categories_rank") } && plan.contains { $0.contains("todos_category") }
                    && !plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
            q.sort = [K(.due, descending: true)]
            let dueParts = try #require(try tx.plan(q).parts)
            for sql in [dueParts.first, dueParts.second] {
                let plan = try tx.queryPlan(sql, [.integer(50), .integer(0)])
                // Only todos due at the same instant are sorted (by position).
                #expect(
                    plan.contains { $0.contains("todos_done_due") }
                        && !plan.contains { $0.contains("USE TEMP B-TREE FOR ORDER BY") }, "\(plan)")
            }

            for status in [TodoQuery.Status.open, .done] {
                for sort in [
                    [K(.category)], [K(.category, descending: true)], [K(.category), K(.position)],
                    [K(.due, descending: true)], [K(.due, descending: true), K(.position)]
                ] {
                    for (offset, limit) in [(0, nil), (0, 2), (1, 2), (3, 3), (4, nil), (6, 5), (40, 2)]
                        as [(Int, Int?)]
                    {
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
                        let page = try tx.list(q)
                        #expect(
                            page.todos.map(\.id) == sorted,
                            "status \(status), sort \(sort), offset \(offset), limit \(String(describing: limit))")
                        #expect(page.total == Int(try tx.connection.scalar(statements.count, statements.values)))
                        compared += sorted.isEmpty ? 0 : 1
                    }
                }
            }
        }
        #expect(compared > 35) // most pages hold something
        // Another filter takes the single sorted statement.
        for configure in [
            { (q: inout TodoQuery) in q.search = "a" }, { $0.dueAfter = f.start }, { $0.category = "Work" }
        ] {
            var q = TodoQuery()
            q.sort = [K(.category)]
            configure(&q)
            #expect(try f.store.read { try $0.plan(q) }.parts == nil)
        }
        #expect(
            try f.ids {
                $0.status = .open
                $0.sort = [K(.category)]
            } == [7, 1, 5, 2, 3])
        #expect(
            try f.ids {
                $0.status = .open
                $0.sort = [K(.category, descending: true)]
            } == [2, 1, 5, 7, 3])
        // Due on days 5, 2, 1 and none (3 and 6 share day 1; 6 is done): then the undated by position.
        #expect(
            try f.ids {
                $0.status = .open
                $0.sort = [K(.due, descending: true)]
            } == [7, 1, 3, 2, 5])
    }
}
