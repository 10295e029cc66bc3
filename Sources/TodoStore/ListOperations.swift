import TodoCore

extension StoreTransaction {
    /// The todos matching `query`, sorted and paged, with the total number matching.
    ///
    /// The SQL is assembled only from fixed fragments chosen by the query's enums; every value
    /// is a bound parameter. `now` decides what is overdue.
    public func list(_ query: TodoQuery) throws(TodoError) -> TodoPage {
        let statements = try listStatements(query)
        let total = try self.total(query, statements)
        let rows = try connection.rows(statements.page, statements.pageValues, TodoRow.init)
        return TodoPage(todos: try withPositions(rows), total: total)
    }

    /// `list` for a long listing: the total first, then the todos `chunk` at a time (with their
    /// positions) as the rows are read, so the listing is never held whole. Stops early when
    /// `each` returns false.
    public func list(_ query: TodoQuery, chunk: Int, total: (Int) -> Void, each: ([Todo]) -> Bool) throws(TodoError) {
        let statements = try listStatements(query)
        total(try self.total(query, statements))
        var rows: [TodoRow] = []
        rows.reserveCapacity(chunk)
        var going = true
        try connection.forEachRow(statements.page, statements.pageValues) { (statement) throws(TodoError) in
            rows.append(TodoRow(statement))
            guard rows.count == chunk else { return true }
            going = each(try withPositions(rows))
            rows.removeAll(keepingCapacity: true)
            return going
        }
        if going && !rows.isEmpty { _ = each(try withPositions(rows)) }
    }

    private func total(_ query: TodoQuery, _ statements: ListStatements) throws(TodoError) -> Int {
        guard let kept = statements.keptCounts else {  // status and category alone: the kept counts answer it
            return Int(try connection.scalar(statements.count, statements.values))
        }
        let counts: (open: Int, done: Int)
        switch kept {
        case .all: counts = try self.counts()
        case .category(let id): counts = try categoryCounts(id)
        }
        return query.status == .open ? counts.open : query.status == .done ? counts.done : counts.open + counts.done
    }

    func listStatements(_ query: TodoQuery) throws(TodoError) -> ListStatements {
        var categoryID: Int64?
        var conditions: [String] = []
        var values: [SQLValue] = []
        switch query.status {
        case .open: conditions.append("t.done = 0")
        case .done: conditions.append("t.done = 1")
        case .all: break
        }
        if let name = query.category {
            guard !query.uncategorized else {
                throw TodoError.invalid("uncategorized", "cannot be combined with category")
            }
            let id = try category(named: name, field: "category").id
            categoryID = id
            conditions.append("t.category_id = ?")
            values.append(.integer(id))
        } else if query.uncategorized {
            conditions.append("t.category_id IS NULL")
        }
        if query.overdue {
            conditions.append("t.done = 0 AND t.due < ?")
            values.append(.integer(now.usec))
        }
        if let before = query.dueBefore {
            conditions.append("t.due < ?")
            values.append(.integer(before.usec))
        }
        if let after = query.dueAfter {
            conditions.append("t.due >= ?")
            values.append(.integer(after.usec))
        }
        if let search = query.search {
            let needle = TextKey.search(Validation.trimmed(search))
            guard !needle.isEmpty else { throw TodoError.invalid("search", "must not be empty") }
            conditions.append("instr(t.search_key, ?) > 0")
            values.append(.text(needle))
        }
        if let limit = query.limit, limit < 0 || limit > TodoQuery.maxLimit {
            throw TodoError.invalid("limit", "must be between 0 and \(TodoQuery.maxLimit)")
        }
        guard query.offset >= 0 else { throw TodoError.invalid("offset", "must not be negative") }

        // Filters beyond status and category? Then the total must be counted.
        let simple = conditions.count == (query.status == .all ? 0 : 1) + (categoryID == nil ? 0 : 1)
        let keptCounts: KeptCounts? = simple ? categoryID.map(KeptCounts.category) ?? .all : nil
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // Ties break by position, unless a unique key (id) already decided.
        let unique = query.sort.contains { $0.field == .id || $0.field == .position }
        let order = (query.sort.flatMap(Self.orderTerms) + (unique ? [] : ["t.rank"])).joined(separator: ", ")
        return ListStatements(
            count: "SELECT COUNT(*) FROM todos t \(filter)",
            page: "SELECT \(todoColumns) \(filter) ORDER BY \(order) LIMIT ? OFFSET ?",
            values: values,
            keptCounts: keptCounts,
            pageValues: values + [.integer(Int64(query.limit ?? -1)), .integer(Int64(query.offset))])
    }

    /// The SQL `list` runs for a query, for `list` itself and for query-plan tests.
    struct ListStatements {
        var count: String
        var page: String
        var values: [SQLValue]
        /// When only the status and category filters apply: the kept counts that give the total.
        var keptCounts: KeptCounts?
        var pageValues: [SQLValue]
    }

    /// Which kept counts answer a listing's total.
    enum KeptCounts {
        case all
        case category(Int64)
    }

    /// SQLite's plan for a statement, one line per step (`EXPLAIN QUERY PLAN`), for tests.
    func queryPlan(_ sql: String, _ values: [SQLValue]) throws(TodoError) -> [String] {
        try connection.rows("EXPLAIN QUERY PLAN " + sql, values) { $0.text(3) }
    }

    /// ORDER BY terms for one sort key. Missing due dates and categories go last either way.
    private static func orderTerms(_ key: TodoQuery.SortKey) -> [String] {
        let direction = key.descending ? " DESC" : ""
        switch key.field {
        case .id: return ["t.id" + direction]
        case .title: return ["t.title_key" + direction]
        case .created: return ["t.created" + direction]
        case .updated: return ["t.updated" + direction]
        case .due: return ["t.due IS NULL", "t.due" + direction]
        case .position: return ["t.rank" + direction]
        case .category: return ["c.rank IS NULL", "c.rank" + direction]
        }
    }
}
