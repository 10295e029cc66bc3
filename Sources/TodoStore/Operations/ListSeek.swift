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

    /// How a keyset window is read: parts in order, each taking the remaining `limit` last;
    /// the rows of `reversed` parts are turned round at the end (a window before its anchor
    /// is read walking backwards from it).
    struct SeekPlan {
        var parts: [WindowPart]
        /// With a search the index drives: the same window walking the order instead, for a
        /// listing of more than `narrowLimit` matches.
        var walkingParts: [WindowPart]?
        var reversed: Bool
        /// With `withOffset`: counts whose sum is how many todos of the listing come before the
        /// anchor, and whether the anchor is itself in the listing.
        var before: [(sql: String, values: [SQLValue])]?
        var anchorListed: (sql: String, values: [SQLValue])?
        /// The end of the listing (`Seek.end`) asked `withOffset`: the todos ahead of the page
        /// are all but it.
        var offsetFromEnd = false
    }

    /// One statement of a keyset window or, over every status, two (`arms`): one per status, each
    /// walking its status's index (which all start with `done`), their rows merged by the sort
    /// values each row carries after the todo's columns (`descending`: the direction the rows
    /// come in, per value).
    struct WindowPart {
        var arms: [Arm]
        var descending: [Bool]
        var text: [Bool]

        /// A statement taking the rest of the page as its last value, or its rows read one value
        /// of the order at a time (`steps`).
        struct Arm {
            var sql: String
            var values: [SQLValue]
            var steps: Steps?
        }

        /// An order whose value runs the other way from the position that breaks its ties
        /// (`title` descending, ties by position ascending), which no index keeps whole: each
        /// value in turn is sought (`first`, then `next` beyond the last one read), and its
        /// todos walked in the index by position (`group`), so nothing is sorted.
        struct Steps {
            /// The first value (beyond the anchor's, if any); `next` takes the last value read as
            /// its last value.
            var first: (sql: String, values: [SQLValue])
            var next: (sql: String, values: [SQLValue])
            var text: Bool
            /// The todos of one value (never null: `=` seeks an index's expression, `IS` does not; a
            /// column after a null group is sought with `IS`, see `statement`): takes it, then the rest
            /// of the page.
            var group: (sql: String, values: [SQLValue])
        }

        /// Reads the part's rows, at most `limit` (-1: all), each with its sort values when it
        /// has arms to merge: one statement's, or the arms' merged in order.
        func rows(_ connection: Connection, limit: Int) throws(TodoError) -> [TodoRow] {
            let first = Int32(TodoSelect.allCases.count)
            var merged: [(row: TodoRow, keys: [SQLValue])] = []
            for arm in arms {
                let each = { (statement: Statement) throws(TodoError) -> Bool in
                    merged.append(
                        (
                            TodoRow(statement),
                            arms.count == 1
                                ? []
                                : text.indices.map {
                                    StoreTransaction.value(statement, first + Int32($0), text: text[$0])
                                }
                        ))
                    return true
                }
                guard let steps = arm.steps else {
                    try connection.forEachRow(arm.sql, arm.values + [.integer(Int64(limit))], each)
                    continue
                }
                let start = merged.count
                var bound: SQLValue?
                while limit < 0 || merged.count - start < limit {
                    let sought = bound.map { (steps.next.sql, steps.next.values + [$0]) } ?? steps.first
                    guard
                        let value = try connection.firstRow(
                            sought.0, sought.1, { StoreTransaction.value($0, 0, text: steps.text) })
                    else { break }
                    let left = limit < 0 ? -1 : limit - (merged.count - start)
                    try connection.forEachRow(
                        steps.group.sql, steps.group.values + [value, .integer(Int64(left))], each)
                    bound = value
                }
            }
            guard arms.count > 1 else { return merged.map(\.row) }
            // Each arm is in order; the values end with a unique one (the position, or the id).
            merged.sort { precedes($0.keys, $1.keys) }
            return (limit < 0 ? merged[...] : merged.prefix(limit)).map(\.row)
        }

        /// Whether values `a` come before `b` in the part's order, compared as SQLite does
        /// (NULL first, integers by value, text by its UTF-8 bytes).
        private func precedes(_ a: [SQLValue], _ b: [SQLValue]) -> Bool {
            for i in a.indices {
                let order = Self.compare(a[i], b[i])
                if order != 0 { return descending[i] ? order > 0 : order < 0 }
            }
            return false
        }

        private static func compare(_ a: SQLValue, _ b: SQLValue) -> Int {
            switch (a, b) {
            case (.null, .null): return 0
            case (.null, _): return -1
            case (_, .null): return 1
            case (.integer(let x), .integer(let y)): return x < y ? -1 : x > y ? 1 : 0
            case (.integer, .text): return -1
            case (.text, .integer): return 1
            case (.text(let x), .text(let y)):
                return x.utf8.elementsEqual(y.utf8) ? 0 : x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
            }
        }
    }

    /// The terms of `sort`'s order, the position's tie-break included: spelled as the indexes
    /// keep them (`todos_done_due`, `todos_done_priority`, `todos_done_title`, `todos_done_start`,
    /// `todos_category`…), so each statement of the window seeks one.
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
        // The tie-break: every index of an order ends with `rank` (`todos_done_title`,
        // `todos_done_start`…), so the todos tied with the anchor are read in order too.
        if !sort.contains(where: { $0.field == .id || $0.field == .position }) { terms.append(SeekTerm("t.rank")) }
        return terms
    }

    /// The terms saying a todo equals the anchor in `terms` (its values `equal`, its null groups'
    /// `groups`). A null group spelled as a range (`coalesce(t.priority, 4) < 4`) whose next term
    /// has a value is left out — that value says it — and the value is sought with `=` (with the
    /// range there SQLite would seek it instead, then sort; `IS` on an expression seeks nothing).
    static func same(_ terms: ArraySlice<SeekTerm>, _ equal: [SQLValue], groups: [SQLValue])
        -> [(term: String, values: [SQLValue])]
    {
        var same: [(term: String, values: [SQLValue])] = []
        var implied = false
        for i in terms.indices {
            if implied {
                same.append(("(\(terms[i].equal)) = ?", [equal[i]]))
                implied = false
                continue
            }
            let valued = i + 1 < terms.endIndex && !equal[i + 1].isNull
            if terms[i].nullGroup, terms[i].outOfGroup != nil, valued, case .integer(0) = groups[i] {
                implied = true
                continue
            }
            same.append(terms[i].same(equal[i]))
        }
        return same
    }

    /// Plans the window of `query` around `seek`: reads the anchor's sort values, then makes one
    /// statement per term, nearest first — the todos equal to the anchor in every term before it
    /// and beyond it in this one — each a seek in an index and a walk in its order. The end of the
    /// listing (`Seek.end`) has no anchor: its order walked backwards, in two statements when the
    /// order starts with a null group (the group, then the rest).
    ///
    /// `sectioned`: the listing has no filter but the status (`.all`) or one category besides
    /// (`.category`), so with sections (the category first), or by one key in one category, each
    /// category is read on its own (`Sections`).
    func seekPlan(
        _ seek: TodoQuery.Seek, _ query: TodoQuery, from table: String, conditions: [String], values: [SQLValue],
        sectioned: KeptCounts? = nil
    ) throws(TodoError) -> SeekPlan {
        guard !query.tree else { throw TodoError.invalid("tree", "cannot be combined with after, before or fromEnd") }
        guard query.offset == 0 else {
            throw TodoError.invalid("offset", "cannot be combined with after, before or fromEnd")
        }
        let terms = Self.seekTerms(query.sort)
        let window = WindowStatements(
            terms: terms, table: table, conditions: conditions, values: values, status: query.status,
            sections: try sectioned.flatMap { (kept) throws(TodoError) in
                guard table == "todos t" else { return nil }
                if case .category(let id) = kept { return try Sections(query.sort, only: id, connection) }
                return try Sections(query.sort, connection)
            },
            only: sectioned.flatMap { if case .category(let id) = $0 { .category(id) } else { nil } },
            limit: query.limit ?? -1)
        guard let id = seek.id else {
            // From the end backwards (or from the start): the null group last (first).
            let backwards = seek.before
            var statements: [WindowPart] = []
            if let first = terms.first, first.nullGroup {
                // In the group the next term is null: said as an equality (`t.due IS ?`) unless
                // the group's own spelling holds it, so the group is sought in the index.
                let inGroup = [first.same(.integer(1))] + (first.inGroup == nil ? [terms[1].same(.null)] : [])
                let group = window.statements(
                    inGroup, rest: 2, backwards: backwards,
                    scope: query.sort.first?.field == .category ? .uncategorized : nil)
                let rest = window.statements([first.same(.integer(0))], rest: 1, backwards: backwards)
                statements = backwards ? group + rest : rest + group
            } else {
                statements = window.statements([], rest: 0, backwards: backwards)
            }
            return SeekPlan(parts: statements, reversed: backwards, offsetFromEnd: query.withOffset && backwards)
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
        func parts(backwards: Bool, ordered: Bool) -> [WindowPart] {
            var statements: [WindowPart] = []
            for j in terms.indices.reversed() {
                // Nothing is beyond a null, nor beyond the anchor's value within the null group.
                if case .null = anchor[j].order { continue }
                if j > 0 && terms[j - 1].nullGroup, case .integer(1) = anchor[j - 1].order { continue }
                var same = Self.same(terms[..<j], anchor.map(\.equal), groups: anchor.map(\.order))
                var rest = j
                var beyond: SQLValue?
                // With sections, a statement past the category's terms reads one category: the
                // anchor's, or (into the null group) the todos without one.
                var scope: Sections.Scope?
                if query.sort.first?.field == .category {
                    if case .integer(let category) = anchor[1].equal {
                        scope = .category(category)
                    } else {
                        scope = .uncategorized
                    }
                }
                if terms[j].nullGroup {
                    // Into the null group (after) or out of it (backwards), spelled as an index
                    // has it; in the group the next term is null throughout.
                    guard case .integer(let inGroup) = anchor[j].order, inGroup == (backwards ? 1 : 0) else { continue }
                    same.append(terms[j].same(.integer(backwards ? 0 : 1)))
                    // In the group the next term is null: said, so the index is sought through it.
                    if !backwards && terms[j].inGroup == nil && j + 1 < terms.count {
                        same.append(terms[j + 1].same(.null))
                    }
                    rest = backwards ? j + 1 : j + 2
                } else {
                    beyond = anchor[j].order
                }
                if j == 0 && !backwards && scope != nil { scope = .uncategorized }
                statements +=
                    ordered
                    ? window.statements(same, rest: rest, backwards: backwards, beyond: beyond, scope: scope)
                    : [window.count(same, rest: rest, backwards: backwards, beyond: beyond, scope: scope)]
            }
            return statements
        }
        var plan = SeekPlan(parts: parts(backwards: seek.before, ordered: true), reversed: seek.before)
        if query.withOffset {
            plan.before = parts(backwards: true, ordered: false).flatMap { $0.arms.map { ($0.sql, $0.values) } }
            plan.anchorListed = (
                "SELECT COUNT(*) FROM \(table) WHERE " + (conditions + ["t.id = ?"]).joined(separator: " AND "),
                values + [.integer(id)]
            )
        }
        return plan
    }

    /// The statements of a keyset window over one listing: the todos of its filters that also
    /// meet some terms (`same`), in the listing's order from term `rest` on, forwards or
    /// backwards, or their count. Over every status (`everyStatus`), a statement per status.
    struct WindowStatements {
        var terms: [SeekTerm]
        var table: String
        var conditions: [String]
        var values: [SQLValue]
        var status: TodoQuery.Status
        /// With sections and no filter but the status: the categories, each read on its own.
        var sections: Sections?
        /// A listing of one category: the section every statement reads.
        var only: Sections.Scope?
        /// The page's size (-1: all): the categories read stop where their todos fill it.
        var limit: Int

        private var everyStatus: Bool { status == .all }

        /// A statement per status over every status, else one; with the status each reads
        /// (`done`; nil: the listing's own, in `conditions`).
        private var statuses: [(terms: [String], done: Bool?)] {
            everyStatus ? [(["t.done = 0"], false), (["t.done = 1"], true)] : [([], status == .done)]
        }

        /// The table a statement reads the todos of `scope` with status `done` from: with
        /// sections, sorted or walked by how many they are (`Sections.sortedLimit`); `counting`: for
        /// a count (`Sections.table`).
        private func source(_ scope: Sections.Scope?, done: Bool?, counting: Bool = false) -> (
            table: String, sorted: Bool
        ) {
            guard let sections, let scope = scope ?? only else { return (table, false) }
            let count = sections.count(scope, done: done)
            return (sections.table(forCount: count, counting: counting), count <= Sections.sortedLimit)
        }

        /// `statement`, or with sections, when the order goes on by the category: one per
        /// category beyond `beyond` (the anchor's rank), in order, as many as fill the page; and
        /// when it goes on by a null group (`t.due IS NULL`), the group and the rest apart, each
        /// walked in its index (no index keeps the group ascending and the values descending).
        func statements(
            _ same: [(term: String, values: [SQLValue])], rest: Int, backwards: Bool, beyond: SQLValue? = nil,
            scope: Sections.Scope? = nil
        ) -> [WindowPart] {
            guard let sections, rest < terms.count else {
                return [statement(same, rest: rest, backwards: backwards, beyond: beyond, scope: scope)]
            }
            if terms[rest].nullGroup && beyond == nil && rest + 1 < terms.count {
                let first = terms[rest]
                let inGroup = [first.same(.integer(1))] + (first.inGroup == nil ? [terms[rest + 1].same(.null)] : [])
                let group = statements(same + inGroup, rest: rest + 2, backwards: backwards, scope: scope)
                let others = statements(
                    same + [first.same(.integer(0))], rest: rest + 1, backwards: backwards, scope: scope)
                return backwards ? group + others : others + group
            }
            guard terms[rest].order == "c.rank" else {
                return [statement(same, rest: rest, backwards: backwards, beyond: beyond, scope: scope)]
            }
            var rank: Int64?
            if case .integer(let r) = beyond { rank = r }
            var parts: [WindowPart] = []
            var reached = 0
            let done = everyStatus ? nil : status == .done
            for category in sections.categories(
                beyond: rank, descending: terms[rest].descending != backwards, done: done)
            {
                if limit >= 0 && reached >= limit { break }
                reached += category.count
                parts += statements(
                    same + [("t.category_id = ?", [.integer(category.id)])], rest: rest + 1, backwards: backwards,
                    scope: .category(category.id))
            }
            return parts
        }

        private func whereClause(_ same: [(term: String, values: [SQLValue])], _ status: [String]) -> String {
            let terms = conditions + status + same.map(\.term)
            return terms.isEmpty ? "" : "WHERE " + terms.joined(separator: " AND ")
        }

        /// The terms from `rest` on as the statement's order: each with the direction read, a
        /// category's rank followed by its id (one category at a time, so its todos come in
        /// `todos_category`'s order without a sort).
        private func keys(_ rest: Int, backwards: Bool) -> [(order: String, descending: Bool, text: Bool)] {
            var keys: [(order: String, descending: Bool, text: Bool)] = []
            for term in terms[min(rest, terms.count)...] {
                keys.append((term.order, term.descending != backwards, term.text))
                if term.order == "c.rank" { keys.append(("c.id", term.descending != backwards, false)) }
            }
            return keys.isEmpty ? [("t.rank", false, false)] : keys
        }

        /// The todos beyond `beyond` in term `rest` (the anchor's value), when there is one.
        private func range(_ rest: Int, backwards: Bool, beyond: SQLValue?) -> [(term: String, values: [SQLValue])] {
            guard let beyond else { return [] }
            return [("(\(terms[rest].order)) \(terms[rest].descending != backwards ? "<" : ">") ?", [beyond])]
        }

        /// Ordered by the terms from `rest` on, beyond `beyond` in the first of them, the
        /// categories in order (each one's todos through `todos_category`, as a listing by
        /// category reads them) when the order goes on by the category's rank; takes the rest of
        /// the page as its last value. An order of one value and the position running the other
        /// way is read a value at a time (`WindowPart.Steps`).
        /// With sections, `scope` is the one section the statement reads (`same` holds it).
        func statement(
            _ same: [(term: String, values: [SQLValue])], rest: Int, backwards: Bool, beyond: SQLValue? = nil,
            scope: Sections.Scope? = nil
        ) -> WindowPart {
            let keys = keys(rest, backwards: backwards)
            let order = keys.map { $0.order + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
            // Merged arms carry their sort values after the todo's columns.
            let carried = everyStatus ? ", " + keys.map(\.order).joined(separator: ", ") : ""
            let bounded = same + range(rest, backwards: backwards, beyond: beyond)
            return WindowPart(
                arms: statuses.map { (status, done) in
                    let (table, sorted) = source(scope, done: done)
                    let select = "SELECT \(todoFields)\(carried) FROM \(from(rest, table))"
                    let stepped =
                        !sorted && keys.count == 2 && keys[1].order == "t.rank"
                        && keys[0].descending != keys[1].descending
                    var arm = WindowPart.Arm(
                        sql: "\(select) \(whereClause(bounded, status)) ORDER BY \(order) LIMIT ?",
                        values: values + bounded.flatMap(\.values))
                    if stepped {
                        let value = keys[0]
                        let seek = "SELECT \(value.order) FROM \(from(rest, table))"
                        let direction = value.descending ? " DESC" : ""
                        let next = same + [("(\(value.order)) \(value.descending ? "<" : ">") ?", [])]
                        // A value found is out of the null group before it: that term, when it is a range
                        // (`coalesce(t.priority, 4) < 4`, which SQLite would seek instead), is left out of
                        // the value's todos; an equality (`(t.due IS NULL) IS ?`) is the index's own column
                        // and stays, the value then said with `IS`: with `=` SQLite would put the value into
                        // `t.due IS NULL` (constant propagation), and the index would no longer match it.
                        let nullGroup = rest > 0 && terms[rest - 1].nullGroup
                        let group = nullGroup && terms[rest - 1].outOfGroup != nil ? Array(same.dropLast()) : same
                        let equal = nullGroup && terms[rest - 1].outOfGroup == nil ? "IS" : "="
                        arm.steps = WindowPart.Steps(
                            first: (
                                "\(seek) \(whereClause(bounded, status)) ORDER BY \(value.order)\(direction) LIMIT 1",
                                values + bounded.flatMap(\.values)
                            ),
                            next: (
                                "\(seek) \(whereClause(next, status)) ORDER BY \(value.order)\(direction) LIMIT 1",
                                values + same.flatMap(\.values)
                            ),
                            text: value.text,
                            group: (
                                "\(select) \(whereClause(group + [("(\(value.order)) \(equal) ?", [])], status)) "
                                    + "ORDER BY t.rank\(keys[1].descending ? " DESC" : "") LIMIT ?",
                                values + group.flatMap(\.values)
                            ))
                    }
                    return arm
                },
                descending: keys.map(\.descending), text: keys.map(\.text))
        }

        /// How many todos `statement` would read without a limit: a statement per status. A
        /// count needs the category only for its rank, else it reads the index alone.
        /// With sections, the categories' todos are counted from the kept counts.
        func count(
            _ same: [(term: String, values: [SQLValue])], rest: Int, backwards: Bool, beyond: SQLValue? = nil,
            scope: Sections.Scope? = nil
        ) -> WindowPart {
            let bounded = same + range(rest, backwards: backwards, beyond: beyond)
            return WindowPart(
                arms: statuses.map { (status, done) in
                    if let sections, byCategory(rest) {
                        var rank: Int64?
                        if case .integer(let r) = beyond { rank = r }
                        let descending = terms[rest].descending != backwards
                        let count = sections.categories(beyond: rank, descending: descending, done: done).reduce(0) {
                            $0 + $1.count
                        }
                        return WindowPart.Arm(sql: "SELECT ?", values: [.integer(Int64(count))])
                    }
                    let where_ = whereClause(bounded, status)
                    let table = source(scope, done: done, counting: true).table
                    return WindowPart.Arm(
                        sql:
                            "SELECT COUNT(*) FROM \(byCategory(rest) || where_.contains("c.rank") ? from(rest, table) : table) \(where_)",
                        values: values + bounded.flatMap(\.values))
                }, descending: [], text: [])
        }

        private func byCategory(_ rest: Int) -> Bool {
            rest < terms.count && terms[rest].order == "c.rank" && table == "todos t"
        }

        private func from(_ rest: Int, _ table: String) -> String {
            byCategory(rest) ? "categories c CROSS JOIN todos t ON t.category_id = c.id" : "\(table) \(categoryJoin)"
        }
    }

    fileprivate static func value(_ statement: Statement, _ column: Int32, text: Bool) -> SQLValue {
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
            rows += try part.rows(connection, limit: left)
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
        for part in seek.parts {
            for arm in part.arms {
                guard let steps = arm.steps else {
                    plans.append(try queryPlan(arm.sql, arm.values + [.integer(50)]))
                    continue
                }
                plans.append(try queryPlan(steps.first.sql, steps.first.values))
                plans.append(try queryPlan(steps.next.sql, steps.next.values + [.integer(1)]))
                plans.append(try queryPlan(steps.group.sql, steps.group.values + [.integer(1), .integer(50)]))
            }
        }
        return plans
    }
}

extension SQLValue {
    fileprivate var isNull: Bool {
        if case .null = self { true } else { false }
    }
}
