import TodoCore
import TodoSQLite

// A keyset window of a listing (`todo.list` `after` / `before`): the todos after (or just before)
// one todo in the listing's order, found from that todo's sort values through the indexes, so a
// window deep in 100,000 todos costs what the first page does. `plan` makes a `SeekPlan` when the
// query has `seek`; `run` reads it.

extension StoreTransaction {
    /// One term of a listing's order, as the keyset window compares it: `order` is the expression
    /// sorted by (and compared with `>` or `<`), `equal` the one compared for "the same value"
    /// (`t.category_id` for the category's rank: one value each, and `todos_category` seeks it).
    /// `nullGroup`: a term that puts the todos without the next term's value last (`t.due IS NULL`);
    /// within that group the next term has nothing to compare.
    struct SeekTerm {
        var order: String
        var descending: Bool
        var equal: String
        var text = false
        var nullGroup = false
        /// For a null group: "in the group" and "not in it" spelled so an index is sought
        /// (`coalesce(t.priority, 4) = 4`), where `(t.priority IS NULL) IS ?` would not be.
        var inGroup: String?
        var outOfGroup: String?

        init(
            _ order: String, _ descending: Bool = false, equal: String? = nil, text: Bool = false,
            nullGroup: Bool = false,
            inGroup: String? = nil, outOfGroup: String? = nil
        ) {
            self.order = order
            self.descending = descending
            self.equal = equal ?? order
            self.text = text
            self.nullGroup = nullGroup
            self.inGroup = inGroup
            self.outOfGroup = outOfGroup
        }

        /// The term saying a todo is equal to the anchor here (`value` the anchor's), and the
        /// value it binds.
        func same(_ value: SQLValue) -> (term: String, values: [SQLValue]) {
            if nullGroup, case .integer(let v) = value, let spelled = v == 1 ? inGroup : outOfGroup {
                return (spelled, [])
            }
            return ("(\(equal)) IS ?", [value])
        }
    }

    /// How a keyset window is read: statements in order, each taking the remaining `limit` last;
    /// the rows of `reversed` statements are turned round at the end (a window before its anchor
    /// is read walking backwards from it).
    struct SeekPlan {
        var parts: [(sql: String, values: [SQLValue])]
        /// With a search the index drives: the same window walking the order instead, for a
        /// listing of more than `narrowLimit` matches.
        var walkingParts: [(sql: String, values: [SQLValue])]?
        var reversed: Bool
        /// With `withOffset`: counts whose sum is how many todos of the listing come before the
        /// anchor, and whether the anchor is itself in the listing.
        var before: [(sql: String, values: [SQLValue])]?
        var anchorListed: (sql: String, values: [SQLValue])?
        /// The end of the listing (`Seek.end`) asked `withOffset`: the todos ahead of the page
        /// are all but it.
        var offsetFromEnd = false
    }

    /// The terms of `sort`'s order, the position's tie-break included: spelled as the indexes
    /// keep them (`todos_done_due`, `todos_done_priority`, `todos_done_title`, `todos_category`…),
    /// so each statement of the window seeks one.
    static func seekTerms(_ sort: [TodoQuery.SortKey]) -> [SeekTerm] {
        var terms: [SeekTerm] = []
        for key in sort {
            let d = key.descending
            switch key.field {
            case .id: terms.append(SeekTerm("t.id", d))
            case .position: terms.append(SeekTerm("t.rank", d))
            case .title: terms.append(SeekTerm("t.title_key", d, text: true))
            case .created: terms.append(SeekTerm("t.created", d))
            case .updated: terms.append(SeekTerm("t.updated", d))
            case .due: terms += [SeekTerm("t.due IS NULL", nullGroup: true), SeekTerm("t.due", d)]
            case .start: terms += [SeekTerm("t.start IS NULL", nullGroup: true), SeekTerm("t.start", d)]
            case .category:
                terms += [
                    SeekTerm(
                        "t.category_id IS NULL", nullGroup: true, inGroup: "t.category_id IS NULL",
                        outOfGroup: "t.category_id IS NOT NULL"),
                    SeekTerm("c.rank", d, equal: "t.category_id")
                ]
            // `priority` holds 1 (high) … 3 (low); ascending, none sorts as 4, last, as the index
            // keeps it; descending, the todos with one first.
            case .priority:
                terms +=
                    d
                    ? [
                        SeekTerm(
                            "t.priority IS NULL", nullGroup: true, inGroup: "coalesce(t.priority, 4) = 4",
                            outOfGroup: "coalesce(t.priority, 4) < 4"),
                        SeekTerm("coalesce(t.priority, 4)", true)
                    ]
                    : [SeekTerm("coalesce(t.priority, 4)")]
            }
        }
        if !sort.contains(where: { $0.field == .id || $0.field == .position }) {
            // The tie-break. The indexes by due date, priority and category end with `rank`, so
            // the ties are read in order; those by title, created and updated do not, and a
            // range on `rank` would make SQLite walk `todos_done_rank` instead of seeking the
            // ties: `+` keeps it off that index (the ties are sorted, few).
            let ranked = sort.isEmpty || [.due, .priority, .category].contains(sort.last?.field ?? .position)
            terms.append(ranked ? SeekTerm("t.rank") : SeekTerm("+t.rank"))
        }
        return terms
    }

    /// Plans the window of `query` around `seek`: reads the anchor's sort values, then makes one
    /// statement per term, nearest first — the todos equal to the anchor in every term before it
    /// and beyond it in this one — each a seek in an index and a walk in its order. The end of the
    /// listing (`Seek.end`) has no anchor: its order walked backwards, in two statements when the
    /// order starts with a null group (the group, then the rest).
    func seekPlan(
        _ seek: TodoQuery.Seek, _ query: TodoQuery, from table: String, conditions: [String], values: [SQLValue]
    ) throws(TodoError) -> SeekPlan {
        guard !query.tree else { throw TodoError.invalid("tree", "cannot be combined with after, before or fromEnd") }
        guard query.offset == 0 else {
            throw TodoError.invalid("offset", "cannot be combined with after, before or fromEnd")
        }
        let terms = Self.seekTerms(query.sort)
        let window = WindowStatements(terms: terms, table: table, conditions: conditions, values: values)
        guard let id = seek.id else {
            var statements: [(sql: String, values: [SQLValue])] = []
            if let first = terms.first, first.nullGroup {
                // In the group the next term is null: said as an equality (`t.due IS ?`) unless
                // the group's own spelling holds it, so the group is sought in the index.
                let inGroup = [first.same(.integer(1))] + (first.inGroup == nil ? [terms[1].same(.null)] : [])
                statements.append(window.statement(inGroup, rest: 2, backwards: true))
                statements.append(window.statement([first.same(.integer(0))], rest: 1, backwards: true))
            } else {
                statements.append(window.statement([], rest: 0, backwards: true))
            }
            return SeekPlan(parts: statements, reversed: true, offsetFromEnd: query.withOffset)
        }
        let field = seek.before ? "before" : "after"
        let columns = terms.flatMap { [$0.order, $0.equal] }.joined(separator: ", ")
        guard
            let anchor = try connection.firstRow(
                "SELECT \(columns) FROM todos t \(categoryJoin) WHERE t.id = ?", [.integer(id)],
                { statement in
                    terms.indices.map { i in
                        (
                            order: Self.value(statement, Int32(2 * i), text: terms[i].text),
                            equal: Self.value(statement, Int32(2 * i + 1), text: terms[i].text)
                        )
                    }
                })
        else {
            throw TodoError.notFound("no todo with id \(id) (\(field))")
        }
        // Each statement: equal in terms ..<j, beyond in term j, ordered by terms j...
        func parts(backwards: Bool, ordered: Bool) -> [(sql: String, values: [SQLValue])] {
            var statements: [(sql: String, values: [SQLValue])] = []
            for j in terms.indices.reversed() {
                // Nothing is beyond a null, nor beyond the anchor's value within the null group.
                if case .null = anchor[j].order { continue }
                if j > 0 && terms[j - 1].nullGroup, case .integer(1) = anchor[j - 1].order { continue }
                let later = terms[j].descending != backwards
                var same = terms[..<j].indices.map { terms[$0].same(anchor[$0].equal) }
                var rest = j
                if terms[j].nullGroup {
                    // Into the null group (after) or out of it (backwards), spelled as an index
                    // has it; in the group the next term is null throughout.
                    guard case .integer(let inGroup) = anchor[j].order, inGroup == (backwards ? 1 : 0) else { continue }
                    same.append(terms[j].same(.integer(backwards ? 0 : 1)))
                    rest = backwards ? j + 1 : j + 2
                } else {
                    same.append(("(\(terms[j].order)) \(later ? "<" : ">") ?", [anchor[j].order]))
                }
                statements.append(
                    ordered
                        ? window.statement(same, rest: rest, backwards: backwards)
                        : window.count(same, rest: rest))
            }
            return statements
        }
        var plan = SeekPlan(parts: parts(backwards: seek.before, ordered: true), reversed: seek.before)
        if query.withOffset {
            plan.before = parts(backwards: true, ordered: false)
            plan.anchorListed = (
                "SELECT COUNT(*) FROM \(table) WHERE " + (conditions + ["t.id = ?"]).joined(separator: " AND "),
                values + [.integer(id)]
            )
        }
        return plan
    }

    /// The statements of a keyset window over one listing: the todos of its filters that also
    /// meet some terms (`same`), in the listing's order from term `rest` on, forwards or
    /// backwards, or their count.
    struct WindowStatements {
        var terms: [SeekTerm]
        var table: String
        var conditions: [String]
        var values: [SQLValue]

        private func whereClause(_ same: [(term: String, values: [SQLValue])]) -> String {
            let terms = conditions + same.map(\.term)
            return terms.isEmpty ? "" : "WHERE " + terms.joined(separator: " AND ")
        }

        /// Ordered by the terms from `rest` on, the categories in order (each one's todos through
        /// `todos_category`, as a listing by category reads them) when the order goes on by the
        /// category's rank; takes the rest of the page as its last value.
        func statement(_ same: [(term: String, values: [SQLValue])], rest: Int, backwards: Bool) -> (
            sql: String, values: [SQLValue]
        ) {
            // A category's rank, then its id: one category at a time, so its todos come in
            // `todos_category`'s order without a sort.
            let order = terms[min(rest, terms.count)...].map {
                let direction = $0.descending != backwards ? " DESC" : ""
                return $0.order + direction + ($0.order == "c.rank" ? ", c.id" + direction : "")
            }.joined(separator: ", ")
            return (
                "SELECT \(todoFields) FROM \(from(rest)) \(whereClause(same)) ORDER BY \(order.isEmpty ? "t.rank" : order) LIMIT ?",
                values + same.flatMap(\.values)
            )
        }

        /// How many todos `statement` would read without a limit. A count needs the category only
        /// for its rank, else it reads the index alone.
        func count(_ same: [(term: String, values: [SQLValue])], rest: Int) -> (sql: String, values: [SQLValue]) {
            let where_ = whereClause(same)
            return (
                "SELECT COUNT(*) FROM \(byCategory(rest) || where_.contains("c.rank") ? from(rest) : table) \(where_)",
                values + same.flatMap(\.values)
            )
        }

        private func byCategory(_ rest: Int) -> Bool {
            rest < terms.count && terms[rest].order == "c.rank" && table == "todos t"
        }

        private func from(_ rest: Int) -> String {
            byCategory(rest) ? "categories c CROSS JOIN todos t ON t.category_id = c.id" : "\(table) \(categoryJoin)"
        }
    }

    private static func value(_ statement: Statement, _ column: Int32, text: Bool) -> SQLValue {
        statement.isNull(column) ? .null : text ? .text(statement.text(column)) : .integer(statement.int64(column))
    }

    /// Reads a keyset window: each statement in turn until the page is full.
    func run(_ seek: SeekPlan, _ plan: ListPlan) throws(TodoError) -> TodoPage {
        let total = try self.total(plan)
        var rows: [TodoRow] = []
        let parts = total > Self.narrowLimit ? seek.walkingParts ?? seek.parts : seek.parts
        for part in parts {
            let left = plan.limit < 0 ? -1 : plan.limit - rows.count
            if left == 0 { break }
            try connection.forEachRow(part.sql, part.values + [.integer(Int64(left))]) {
                (statement) throws(TodoError) in
                rows.append(TodoRow(statement))
                return true
            }
        }
        if seek.reversed { rows.reverse() }
        var offset: Int?
        if seek.offsetFromEnd {
            offset = total - rows.count
        } else if let counts = seek.before, let anchor = seek.anchorListed {
            var ahead = 0
            for count in counts { ahead += Int(try connection.scalar(count.sql, count.values)) }
            // After the anchor: past it too when it is listed; before it: the page ends there.
            offset = seek.reversed ? ahead - rows.count : ahead + Int(try connection.scalar(anchor.sql, anchor.values))
        }
        return TodoPage(todos: try withPositions(rows), total: total, offset: offset)
    }

    /// SQLite's plans for a keyset window's statements (query-plan tests read them).
    func seekQueryPlans(_ query: TodoQuery) throws(TodoError) -> [[String]] {
        guard let seek = try plan(query).seek else { return [] }
        var plans: [[String]] = []
        for part in seek.parts { plans.append(try queryPlan(part.sql, part.values + [.integer(50)])) }
        return plans
    }
}
