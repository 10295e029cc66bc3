import TodoCore
import TodoSQLite

// `todo.list` with `tree`: subtasks under their parents. The matching todos are walked in the
// query's order: a top-level one brings its tree there, and so does a matching subtask whose
// top-level todo does not match (that todo and the parents between are shown as context); a
// subtask whose top-level todo matches comes with that todo, where it falls. A tree shows its
// matching todos and the todos above them, each todo's subtasks after it in manual order. The
// walk stops once the page is full, so a page reads about as many todos as it shows, with their
// trees; the total is the number of matches and of the todos above them that do not match.

extension StoreTransaction {
    /// One todo of a tree: its parent, its order key among its siblings, and whether it matches.
    private struct Node {
        var id: Int64
        var parent: Int64?
        var rank: Int64
        var matches: Bool
    }

    /// The page of `query` in tree order, with the number of todos that order holds (the matching
    /// todos and their context parents).
    func treePage(_ query: TodoQuery) throws(TodoError) -> TodoPage {
        let (ids, total) = try treeOrder(query)
        return TodoPage(todos: try treeTodos(ids[...]), total: total)
    }

    /// The todos `ids` name, read whole, with their positions.
    func treeTodos(_ ids: ArraySlice<Int64>) throws(TodoError) -> [Todo] {
        var rows: [TodoRow] = []
        rows.reserveCapacity(ids.count)
        for id in ids {
            if let row = try connection.firstRow(todoByID, [.integer(id)], TodoRow.init) { rows.append(row) }
        }
        return try withPositions(rows)
    }

    /// The ids of the page of `query` in tree order, and how many todos that order holds.
    func treeOrder(_ query: TodoQuery) throws(TodoError) -> (ids: [Int64], total: Int) {
        var flat = query
        flat.tree = false
        flat.limit = nil
        flat.offset = 0
        let plan = try plan(flat)
        let matching = try total(plan)
        let total = matching + (matching == 0 ? 0 : try contextCount(plan))
        let wanted = query.limit.map { query.offset + $0 } ?? Int.max
        var order: [Int64] = []
        var placed: Set<Int64> = []
        // Each todo's top, and whether a top matches, found once: a chain listed children first
        // would otherwise walk up from every one of its todos (quadratic in its depth).
        var tops: [Int64: Int64] = [:]
        var topMatches: [Int64: Bool] = [:]
        guard wanted > 0, matching > 0 else { return ([], total) }
        // A long listing meets mostly todos without subtasks: knowing the parents up front (one
        // walk of `todos_parent`) spares each of them the statement that reads its tree.
        let parentsSQL = "SELECT DISTINCT parent_id FROM todos INDEXED BY todos_parent WHERE parent_id IS NOT NULL"
        let parents = wanted <= Self.treeLookupLimit ? nil : Set(try connection.rows(parentsSQL, []) { $0.int64(0) })
        try forEachPageRow(plan, total: matching) { (s) throws(TodoError) in
            let id = s.int64(TodoSelect.id.rawValue)
            guard !placed.contains(id) else { return true }
            var top = id
            if s.optionalInt64(TodoSelect.parentID.rawValue) != nil {
                top = try self.top(of: id, known: &tops)
                // A matching top-level todo brings this subtask where it falls itself.
                if top != id {
                    let topMatch: Bool
                    if let known = topMatches[top] { topMatch = known } else { topMatch = try matches(top, plan) }
                    topMatches[top] = topMatch
                    if topMatch { return true }
                }
            }
            let tree = parents.map { !$0.contains(top) } == true ? [top] : try shownTree(top, plan)
            for shown in tree where placed.insert(shown).inserted {
                if order.count < wanted { order.append(shown) }
            }
            return order.count < wanted
        }
        return (Array(order.dropFirst(query.offset)), total)
    }

    /// Up to this many todos (offset and limit), a tree page looks each tree up as it meets it.
    static let treeLookupLimit = 1_000

    /// The terms of `plan`'s filters as one expression on todo `t`: 1 when it matches, else 0.
    private func matchExpression(_ plan: ListPlan) -> String {
        plan.matchTerms.isEmpty ? "1" : "coalesce(" + plan.matchTerms.joined(separator: " AND ") + ", 0)"
    }

    /// Whether todo `id` matches `plan`'s filters.
    private func matches(_ id: Int64, _ plan: ListPlan) throws(TodoError) -> Bool {
        let sql = "SELECT \(matchExpression(plan)) FROM todos t WHERE t.id = ?"
        return try connection.scalar(sql, plan.matchValues + [.integer(id)]) != 0
    }

    /// The top of the tree holding `id`: its highest ancestor (itself for a top-level todo).
    /// `known` holds the tops found so far and gets every todo walked: each todo is read once.
    private func top(of id: Int64, known: inout [Int64: Int64]) throws(TodoError) -> Int64 {
        if let top = known[id] { return top }
        var top = id
        var walked: [Int64] = [id]
        var seen: Set<Int64> = [id]
        let sql = "SELECT p.id FROM todos t JOIN todos p ON p.id = t.parent_id WHERE t.id = ?"
        while let parent = try connection.firstRow(sql, [.integer(top)], { $0.int64(0) }),
            seen.insert(parent).inserted
        {
            if let above = known[parent] {
                top = above
                break
            }
            top = parent
            walked.append(parent)
        }
        for todo in walked { known[todo] = top }
        return top
    }

    /// How many todos above the matches of `plan` do not match: the context of a tree listing.
    /// The matching subtasks are found among the subtasks (`todos_parent`): left to itself,
    /// SQLite would walk every todo of the status to find them.
    private func contextCount(_ plan: ListPlan) throws(TodoError) -> Int {
        let subtasks = (["t.parent_id IS NOT NULL"] + plan.matchTerms).joined(separator: " AND ")
        let sql = """
            WITH RECURSIVE above(id) AS (
                SELECT t.parent_id FROM todos t INDEXED BY todos_parent WHERE \(subtasks)
                UNION SELECT t.parent_id FROM todos t JOIN above ON t.id = above.id WHERE t.parent_id IS NOT NULL)
            SELECT COUNT(*) FROM above JOIN todos t ON t.id = above.id WHERE \(matchExpression(plan)) = 0
            """
        return Int(try connection.scalar(sql, plan.matchValues + plan.matchValues))
    }

    /// The todos the tree under `top` shows for `plan`, depth first, each todo's subtasks in
    /// manual order: those that match and those above a match. Reads the whole tree.
    private func shownTree(_ top: Int64, _ plan: ListPlan) throws(TodoError) -> [Int64] {
        let sql = """
            WITH RECURSIVE below(id) AS (
                SELECT ? UNION SELECT c.id FROM todos c JOIN below ON c.parent_id = below.id)
            SELECT t.id, t.parent_id, t.rank, \(matchExpression(plan)) FROM below JOIN todos t ON t.id = below.id
            """
        let nodes = try connection.rows(sql, [.integer(top)] + plan.matchValues) {
            Node(id: $0.int64(0), parent: $0.optionalInt64(1), rank: $0.int64(2), matches: $0.int64(3) != 0)
        }
        var children: [Int64: [Node]] = [:]
        for node in nodes where node.id != top {
            if let parent = node.parent { children[parent, default: []].append(node) }
        }
        for key in children.keys { children[key]?.sort { $0.rank < $1.rank } }
        // Every todo in depth-first order; then, from the deepest up, whether it or one below matches.
        var walk: [Int64] = []
        var matchesHere: [Int64: Bool] = [:]
        var stack = [top]
        while let id = stack.popLast() {
            walk.append(id)
            stack += (children[id] ?? []).reversed().map(\.id)
        }
        for node in nodes { matchesHere[node.id] = node.matches }
        var shown: Set<Int64> = []
        for id in walk.reversed()
        where matchesHere[id] == true || (children[id] ?? []).contains(where: { shown.contains($0.id) }) {
            shown.insert(id)
        }
        return walk.filter(shown.contains)
    }
}
