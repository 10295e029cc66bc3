import TodoCore
import TodoSQLite

extension StoreTransaction {
    /// The todos matching `query`, sorted and paged, with the total number matching: the query
    /// is planned (`plan`), then the plan is run.
    ///
    /// The SQL is assembled only from fixed fragments chosen by the query's enums; every value
    /// is a bound parameter. `now` decides what is overdue.
    package func list(_ query: TodoQuery) throws(TodoError) -> TodoPage {
        if query.tree {
            guard query.seek == nil else {
                throw TodoError.invalid("tree", "cannot be combined with after, before or fromEnd")
            }
            return try treePage(query)
        }
        return try run(try plan(query))
    }

    /// `list` for a long listing: the total first, then the todos `chunk` at a time (with their
    /// positions) as the rows are read, so the listing is never held whole. Stops early when
    /// `each` returns false.
    package func list(_ query: TodoQuery, chunk: Int, total: (Int) -> Void, each: ([Todo]) -> Bool) throws(TodoError) {
        // A keyset window (its plan refuses `tree`) is one page, handed out in chunks.
        guard query.tree && query.seek == nil else {
            return try run(try plan(query), chunk: chunk, total: total, each: each)
        }
        // The order first (ids only), then the todos read a chunk at a time as they go out, as a
        // flat listing reads them: a long tree is never held whole nor written faster than read.
        let (ids, count) = try treeOrder(query)
        total(count)
        for start in stride(from: 0, to: ids.count, by: max(1, chunk)) {
            guard each(try treeTodos(ids[start..<min(start + chunk, ids.count)])) else { return }
        }
    }

    /// Runs a plan: the total, then the page.
    func run(_ plan: ListPlan) throws(TodoError) -> TodoPage {
        if let seek = plan.seek { return try run(seek, plan) }
        let total = try self.total(plan)
        var rows: [TodoRow] = []
        try forEachPageRow(plan, total: total) { (statement) throws(TodoError) in
            rows.append(TodoRow(statement))
            return true
        }
        return TodoPage(todos: try withPositions(rows), total: total)
    }

    /// Runs a plan in chunks (see `list(_:chunk:total:each:)`).
    func run(_ plan: ListPlan, chunk: Int, total: (Int) -> Void, each: ([Todo]) -> Bool) throws(TodoError) {
        if let seek = plan.seek { // a keyset window: one page, read before it goes out
            let page = try run(seek, plan)
            total(page.total)
            for start in stride(from: 0, to: page.todos.count, by: max(1, chunk)) {
                guard each(Array(page.todos[start..<min(start + chunk, page.todos.count)])) else { return }
            }
            return
        }
        let count = try self.total(plan)
        total(count)
        var rows: [TodoRow] = []
        rows.reserveCapacity(chunk)
        var going = true
        try forEachPageRow(plan, total: count) { (statement) throws(TodoError) in
            rows.append(TodoRow(statement))
            guard rows.count == chunk else { return true }
            going = each(try withPositions(rows))
            rows.removeAll(keepingCapacity: true)
            return going
        }
        if going && !rows.isEmpty { _ = each(try withPositions(rows)) }
    }

    /// Calls `body` with each row of the page, in order, until it returns false. A page in two
    /// parts reads the first part's rows, then the second's from where the first part ended:
    /// right away when the page held some of the first part, else after counting it.
    func forEachPageRow(
        _ plan: ListPlan, total: Int,
        _ body: (Statement) throws(TodoError) -> Bool
    ) throws(TodoError) {
        guard let parts = plan.parts else {
            try connection.forEachRow(plan.page(forTotal: total), plan.pageValues(forTotal: total), body)
            return
        }
        var read = 0
        var going = true
        try connection.forEachRow(parts.first, plan.pageValues) { (statement) throws(TodoError) in
            read += 1
            going = try body(statement)
            return going
        }
        guard going, plan.limit < 0 || read < plan.limit else { return }
        let skip =
            read > 0 || plan.offset == 0
            ? 0
            : max(0, plan.offset - Int(try connection.scalar(parts.firstCount, plan.values)))
        let rest = plan.limit < 0 ? -1 : plan.limit - read
        try connection.forEachRow(parts.second, plan.values + [.integer(Int64(rest)), .integer(Int64(skip))], body)
    }

    /// How many todos `plan` matches, from the kept counts when they answer it.
    func total(_ plan: ListPlan) throws(TodoError) -> Int {
        guard let kept = plan.keptCounts else { // status and category alone: the kept counts answer it
            return Int(try connection.scalar(plan.count, plan.values))
        }
        let counts: (open: Int, done: Int)
        switch kept {
        case .all: counts = try self.counts()
        case .category(let id): counts = try categoryCounts(id)
        }
        let status = plan.status
        return status == .open ? counts.open : status == .done ? counts.done : counts.open + counts.done
    }

    /// SQLite's plan for a statement, one line per step (`EXPLAIN QUERY PLAN`), for tests.
    func queryPlan(_ sql: String, _ values: [SQLValue]) throws(TodoError) -> [String] {
        try connection.rows("EXPLAIN QUERY PLAN " + sql, values) { $0.text(3) }
    }
}
