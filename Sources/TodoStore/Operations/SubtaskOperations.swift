import TodoCore
import TodoSQLite

// Subtasks: `todos.parent_id` links a todo to its parent; a todo's subtasks are the todos whose
// parent it is (read through `todos_parent`, never stored). The store keeps the links a forest:
// every parent exists, and no todo is its own ancestor (docs/STORE.md).

extension StoreTransaction {
    /// The ids of todo `id`'s subtasks, in manual order: one seek in `todos_parent`.
    func subtaskIDs(of id: Int64) throws(TodoError) -> [Int64] {
        try connection.rows("SELECT id FROM todos WHERE parent_id = ? ORDER BY rank", [.integer(id)]) { $0.int64(0) }
    }

    /// Fills in what a todo read from its row does not hold: its subtasks, and its parent's uid
    /// (`parentUid`, which for a link not yet made is the uid it waits for).
    func fillLinks(_ todo: inout Todo, anySubtasks: Bool = true) throws(TodoError) {
        if anySubtasks { todo.subtasks = try subtaskIDs(of: todo.id) }
        if let parent = todo.parent {
            todo.parentUid = try connection.firstRow("SELECT uid FROM todos WHERE id = ?", [.integer(parent)]) {
                $0.text(0)
            }
        }
    }

    /// Whether any todo is a subtask: one seek in `todos_parent` (in a read, once until a row
    /// changes: `ReadHints`). A store without subtasks (every store before them) then reads its
    /// todos without a lookup per todo.
    func anySubtasks() throws(TodoError) -> Bool {
        let connection = connection // captured alone: capturing `self` copied the transaction
        let look = { () throws(TodoError) -> Bool in
            try connection.firstRow("SELECT 1 FROM todos WHERE parent_id IS NOT NULL LIMIT 1", [], { _ in true }) != nil
        }
        if let known = try hints?.anySubtasks(connection, look) { return known }
        return try look()
    }

    /// Checks that `parent` may become the parent of todo `child` (nil for a todo not made yet):
    /// it exists, and it is neither `child` nor one of its subtasks at any depth.
    /// - Throws: `.invalidField` (`parent`).
    func checkParent(_ parent: Int64, of child: Int64?) throws(TodoError) {
        guard try connection.firstRow("SELECT 1 FROM todos WHERE id = ?", [.integer(parent)], { _ in true }) != nil
        else {
            throw TodoError.invalid("parent", "no todo with id \(parent)")
        }
        guard let child else { return }
        if parent == child { throw TodoError.invalid("parent", "todo \(child) cannot be its own subtask") }
        // Walking up from the new parent meets `child` when the parent is one of its subtasks.
        if try makesCycle(parent: parent, child: child) {
            throw TodoError.invalid("parent", "todo \(parent) is a subtask of todo \(child): that would make a cycle")
        }
    }

    /// Every subtask of `id` at any depth, parents before their subtasks, each in manual order.
    func descendants(of id: Int64) throws(TodoError) -> [Int64] {
        var out: [Int64] = []
        var seen: Set<Int64> = [id]
        var stack = try subtaskIDs(of: id).reversed() as [Int64]
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            out.append(next)
            stack += try subtaskIDs(of: next).reversed()
        }
        return out
    }

    /// The open subtasks of `id` at any depth (a done subtask's own open subtasks included).
    func openDescendants(of id: Int64) throws(TodoError) -> [Int64] {
        var open: [Int64] = []
        for d in try descendants(of: id)
        where try connection.firstRow("SELECT done FROM todos WHERE id = ?", [.integer(d)], { $0.bool(0) }) == false {
            open.append(d)
        }
        return open
    }

    /// The done todos above `id`: its parent, its parent's parent, ... that are done.
    func doneAncestors(of id: Int64) throws(TodoError) -> [Int64] {
        var out: [Int64] = []
        var seen: Set<Int64> = [id]
        var current =
            try connection.firstRow("SELECT parent_id FROM todos WHERE id = ?", [.integer(id)]) { $0.optionalInt64(0) }
            ?? nil
        while let p = current, seen.insert(p).inserted {
            guard
                let (parent, done) = try connection.firstRow(
                    "SELECT parent_id, done FROM todos WHERE id = ?", [.integer(p)],
                    {
                        ($0.optionalInt64(0), $0.bool(1))
                    })
            else { break }
            if done { out.append(p) }
            current = parent
        }
        return out
    }

    /// `ids` and, with `recursive`, every subtask of them at any depth (after the todos named).
    /// - Throws: `.conflict` naming the first todo with a subtask not among `ids`, without `recursive`.
    func withSubtasks(_ ids: [Int64], recursive: Bool) throws(TodoError) -> [Int64] {
        var all = ids
        var seen = Set(ids)
        for id in ids {
            let below = try descendants(of: id)
            if !recursive, let missing = below.first(where: { !seen.contains($0) }) {
                let count = below.filter { !seen.contains($0) }.count
                throw TodoError.conflict(
                    "todo \(id) has \(count) subtask\(count == 1 ? "" : "s") (\(missing) first); delete them with it (recursive) or move them first"
                )
            }
            for d in below where seen.insert(d).inserted { all.append(d) }
        }
        return all
    }

    /// What an import asks of one todo's parent link.
    enum ParentLink {
        /// Top-level.
        case none
        /// The todo with this uid: linked when the store holds it, else kept waiting for it.
        case uid(String)
        /// The todo with this id (a todo that arrived with the uid a link waited for).
        case todo(Int64)
    }

    /// Sets the parent links an import asks for, `links` in order (a later one for the same todo
    /// wins); `touched` are the todos whose `updated` changes with their link (links that waited
    /// for a todo that arrived). A uid the store does not hold is kept waiting (`parent_uid`). A
    /// link that would close a cycle is never written, not even as a waiting uid: of each cycle the
    /// links would make, the last one asked for is dropped and its todo left top-level. Every
    /// todo is read at most once: O(n) for n links, whatever the depth of the trees.
    func setParentLinks(_ links: [(id: Int64, link: ParentLink)], touched: Set<Int64>) throws(TodoError) {
        // The links asked for, resolved to ids, and the order each was asked in.
        var target: [Int64: (parent: Int64?, uid: String?, order: Int)] = [:]
        var children: [Int64] = []
        for (order, (id, link)) in links.enumerated() {
            if target[id] == nil { children.append(id) }
            switch link {
            case .none: target[id] = (nil, nil, order)
            case .todo(let parent): target[id] = (parent, nil, order)
            case .uid(let uid):
                let parent = try connection.firstRow("SELECT id FROM todos WHERE uid = ?", [.text(uid)]) { $0.int64(0) }
                target[id] = (parent, parent == nil ? uid : nil, order)
            }
        }
        // Walks up from each linked todo with the links as asked (the store's own above them),
        // each todo once: `reachesTop` holds the todos known to end at a top-level todo.
        var stored: [Int64: Int64?] = [:]
        func parent(of id: Int64) throws(TodoError) -> Int64? {
            if let asked = target[id] { return asked.parent }
            if let known = stored[id] { return known }
            let read =
                try connection.firstRow("SELECT parent_id FROM todos WHERE id = ?", [.integer(id)]) {
                    $0.optionalInt64(0)
                } ?? nil
            stored[id] = read
            return read
        }
        var reachesTop: Set<Int64> = []
        for child in children {
            var path: [Int64] = []
            var onPath: [Int64: Int] = [:]
            var current: Int64? = child
            while let id = current, !reachesTop.contains(id) {
                if let start = onPath[id] {
                    // A cycle: drop the link of it asked for last (a store's own links make none).
                    let asked = path[start...].compactMap { id in
                        target[id].flatMap { $0.parent == nil ? nil : (id, $0.order) }
                    }
                    if let last = asked.max(by: { $0.1 < $1.1 })?.0 {
                        target[last]?.parent = nil
                    }
                    break
                }
                onPath[id] = path.count
                path.append(id)
                current = try parent(of: id)
            }
            reachesTop.formUnion(path)
        }
        for id in children {
            guard let link = target[id] else { continue }
            let updated = touched.contains(id) ? ", updated = ?3" : ""
            try connection.run(
                """
                UPDATE todos SET parent_id = ?1, parent_uid = ?2, revision = revision + 1\(updated)
                WHERE id = ?4 AND (parent_id IS NOT ?1 OR parent_uid IS NOT ?2)
                """, [.optional(link.parent), .optional(link.uid), .integer(now.usec), .integer(id)])
        }
    }

    /// Whether making `parent` the parent of `child` would make a cycle (or a self-link).
    func makesCycle(parent: Int64, child: Int64) throws(TodoError) -> Bool {
        var current: Int64? = parent
        var steps = 0
        while let id = current, steps <= 100_000 { // a forest has no loop; never spin on a damaged file
            if id == child { return true }
            current =
                try connection.firstRow("SELECT parent_id FROM todos WHERE id = ?", [.integer(id)]) {
                    $0.optionalInt64(0)
                } ?? nil
            steps += 1
        }
        return false
    }

    /// Makes the subtasks of todo `id`, about to be deleted by an import or sync, top-level
    /// todos that wait for it by uid (should it come back, they are its subtasks again).
    func releaseSubtasks(of id: Int64) throws(TodoError) {
        try connection.run(
            """
            UPDATE todos SET parent_uid = (SELECT uid FROM todos WHERE id = ?1), parent_id = NULL WHERE parent_id = ?1
            """, [.integer(id)])
    }
}
