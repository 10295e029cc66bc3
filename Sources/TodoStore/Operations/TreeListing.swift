import TodoCore

// `todo.list` with `tree`: subtasks under their parents. The matching todos are read in the
// query's order (ids and links only), the parents of matching subtasks are added as context,
// and the forest is walked: each top-level todo where it falls in the query's order, each
// todo's subtasks after it in manual order among their siblings. The page is cut from that order.

extension StoreTransaction {
    /// One todo of the forest: its parent and its order key.
    private struct Node {
        var parent: Int64?
        var rank: Int64
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
        var matched: [Int64] = []
        var nodes: [Int64: Node] = [:]
        // Columns 0, 9 and 20 of `todoFields`: id, rank, parent_id.
        try forEachPageRow(plan, total: Int.max) { (s) throws(TodoError) in
            let id = s.int64(0)
            matched.append(id)
            nodes[id] = Node(parent: s.optionalInt64(20), rank: s.int64(9))
            return true
        }
        // The parents of matching subtasks, up to the top, as context.
        for id in matched {
            var parent = nodes[id]?.parent
            while let p = parent, nodes[p] == nil {
                guard let node = try connection.firstRow("SELECT parent_id, rank FROM todos WHERE id = ?", [.integer(p)], {
                    Node(parent: $0.optionalInt64(0), rank: $0.int64(1))
                }) else { break }
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
        /// The subtree under `root`, depth first; only the first `wanted` ids are kept.
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
            // The top of this todo's tree among the listed ones: where a tree whose top is only
            // context starts (at its first matching member); a matching top keeps its own place.
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
