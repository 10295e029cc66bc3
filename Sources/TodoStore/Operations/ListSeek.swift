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
    /// and beyond it in this one — each a seek in an index and a walk in its order.
    func seekPlan(
        _ seek: TodoQuery.Seek, _ query: TodoQuery, from table: String, conditions: [String], values: [SQLValue]
    ) throws(TodoError) -> SeekPlan {
        let field = seek.before ? "before" : "after"
        guard !query.tree else { throw TodoError.invalid("tree", "cannot be combined with after or before") }
        guard query.offset == 0 else { throw TodoError.invalid("offset", "cannot be combined with after or before") }
        let terms = Self.seekTerms(query.sort)
        let columns = terms.flatMap { [$0.order, $0.equal] }.joined(separator: ", ")
        guard
            let anchor = try connection.firstRow(
                "SELECT \(columns) FROM todos t \(categoryJoin) WHERE t.id = ?", [.integer(seek.id)],
                { statement in
                    terms.indices.map { i in
                        (
                            order: Self.value(statement, Int32(2 * i), text: terms[i].text),
                            equal: Self.value(statement, Int32(2 * i + 1), text: terms[i].text)
                        )
                    }
                })
        else {
            throw TodoError.notFound("no todo with id \(seek.id) (\(field))")
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
                let where_ = "WHERE " + (conditions + same.map(\.term)).joined(separator: " AND ")
                let seekValues = same.flatMap(\.values)
                // Beyond the anchor's category: the categories in order, each one's todos through
                // `todos_category` (as a listing by category reads them).
                let byCategory = rest < terms.count && terms[rest].order == "c.rank" && table == "todos t"
                let from =
                    byCategory ? "categories c CROSS JOIN todos t ON t.category_id = c.id" : "\(table) \(categoryJoin)"
                if ordered {
                    let order = terms[min(rest, terms.count)...].map {
                        $0.order + ($0.descending != backwards ? " DESC" : "")
                    }.joined(separator: ", ")
                    statements.append(
                        (
                            "SELECT \(todoFields) FROM \(from) \(where_) ORDER BY \(order.isEmpty ? "t.rank" : order) LIMIT ?",
                            values + seekValues
                        ))
                } else {
                    // A count needs the category only for its rank, else it reads the index alone.
                    statements.append(
                        (
                            "SELECT COUNT(*) FROM \(byCategory || where_.contains("c.rank") ? from : table) \(where_)",
                            values + seekValues
                        ))
                }
            }
            return statements
        }
        var plan = SeekPlan(parts: parts(backwards: seek.before, ordered: true), reversed: seek.before)
        if query.withOffset {
            plan.before = parts(backwards: true, ordered: false)
            plan.anchorListed = (
                "SELECT COUNT(*) FROM \(table) WHERE " + (conditions + ["t.id = ?"]).joined(separator: " AND "),
                values + [.integer(seek.id)]
            )
        }
        return plan
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
        if let counts = seek.before, let anchor = seek.anchorListed {
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
