import TodoCore
import TodoSQLite

/// A hand-kept order over the rows of one table, stored as sparse integer keys in its `rank`
/// column, exposed as dense 1-based positions.
///
/// **The choice and its cost.** New rows get the last key plus `gap` (or the first minus `gap`);
/// a move takes the midpoint of its new neighbours' keys, so it rewrites exactly one row (plus at
/// most two rows of the block table below). Only when two neighbours have no key left between
/// them (after about log2(gap) = 16 moves into the same spot) is a window around the spot
/// respaced: the window doubles from 16 rows on each side until its keys are sparse enough, so a
/// respace rewrites O(window) rows and happens rarely (amortised O(log² n) per move, as in
/// order-maintenance lists). Deleting leaves a gap and rewrites nothing.
///
/// A position is `1 + count(rank < key)` over the rows that have one (`counted`: for todos only
/// the open ones; a done todo keeps its key, its place for when it is reopened, but has no
/// position and is not counted). To avoid counting linearly, a table may keep a `blocks` table —
/// how many counted rows hold a key in each block of 2^24 keys, maintained by triggers — so that
/// a position is a sum over the blocks before the key's block (n / 256 rows at most when keys are
/// evenly spread) plus a range count inside its block (about 256 rows). Categories are few and
/// count directly.
struct ManualOrder {
    /// The table, one of our own fixed names (never user text).
    let table: StaticString
    /// The table counting rows per block of keys, if the table keeps one.
    let blocks: StaticString?
    /// The SQL condition (on the table's own columns) a row must meet to have a position; nil:
    /// every row has one.
    let counted: StaticString?
    let connection: Connection

    init(table: StaticString, blocks: StaticString?, counted: StaticString? = nil, connection: Connection) {
        self.table = table
        self.blocks = blocks
        self.counted = counted
        self.connection = connection
    }

    /// Which todos have a position: the open ones.
    static let openTodos: StaticString = "done = 0"

    /// The todos' order and its block table.
    static let todos: StaticString = "todos", todoBlocks: StaticString = "todo_order_blocks"

    /// Keys per block are 2^blockShift; must match the triggers in the migrations.
    static let blockShift: Int64 = 24

    /// Key distance between neighbours when rows are appended or respaced.
    static let gap: Int64 = 1 << 16
    /// A respaced window must leave at least this distance between neighbours.
    static let minimumSpacing: Int64 = 1 << 6

    private var name: String { "\(table)" }

    /// `counted` followed by AND, or nothing, to start a WHERE clause with.
    private var countedAnd: String { counted.map { "\($0) AND " } ?? "" }

    /// The number of rows with a position.
    func count() throws(TodoError) -> Int {
        Int(try connection.scalar("SELECT COUNT(*) FROM \(name)" + (counted.map { " WHERE \($0)" } ?? "")))
    }

    /// The key for a row appended after every other row.
    func keyAtEnd() throws(TodoError) -> Int64 {
        let last = try connection.firstRow("SELECT MAX(rank) FROM \(name)") { $0.optionalInt64(0) } ?? nil
        return last.map { $0 + ManualOrder.gap } ?? 0
    }

    /// The key for a row inserted before every other row.
    func keyAtStart() throws(TodoError) -> Int64 {
        let first = try connection.firstRow("SELECT MIN(rank) FROM \(name)") { $0.optionalInt64(0) } ?? nil
        return first.map { $0 - ManualOrder.gap } ?? 0
    }

    /// The 1-based position a counted row with key `rank` has.
    func position(of rank: Int64) throws(TodoError) -> Int {
        Int(
            try connection.scalar(
                "SELECT " + ManualOrder.positionSQL(table: table, blocks: blocks, counted: counted, key: "?1"),
                [.integer(rank)]))
    }

    /// SQL for the 1-based position of a counted row whose key is the SQL expression `key` (a
    /// parameter, or a column of an outer query): `1 + count(counted rows with rank < key)`,
    /// through the block counts when the table keeps them, so a todo and its position come back
    /// from one statement. `counted` is written for a table aliased `o`.
    ///
    /// Inside its block a key is counted from the nearer end: in the block's first half the
    /// counted rows before it, in the second half those from it to the block's end, taken from
    /// the sum through its block. Only one branch of the CASE runs, so at most half a block of
    /// index entries is walked.
    static func positionSQL(table: StaticString, blocks: StaticString?, counted: StaticString?, key: String) -> String {
        let filter = counted.map { "o.\($0) AND " } ?? ""
        guard let blocks else { return "((SELECT COUNT(*) FROM \(table) o WHERE \(filter)o.rank < \(key)) + 1)" }
        let block = "(\(key) >> \(blockShift))"
        let half = Int64(1) << (blockShift - 1)
        return "(CASE WHEN (\(key) & \((Int64(1) << blockShift) - 1)) < \(half) THEN"
            + " (SELECT COALESCE(SUM(size), 0) FROM \(blocks) WHERE block < \(block))"
            + " + (SELECT COUNT(*) FROM \(table) o WHERE \(filter)o.rank >= (\(block) << \(blockShift)) AND o.rank < \(key)) + 1"
            + " ELSE (SELECT COALESCE(SUM(size), 0) FROM \(blocks) WHERE block <= \(block))"
            + " - (SELECT COUNT(*) FROM \(table) o WHERE \(filter)o.rank >= \(key) AND o.rank < ((\(block) + 1) << \(blockShift))) + 1 END)"
    }

    /// SQL for a counted row's place inside its key's block, from the nearer end (as
    /// `positionSQL` counts it, without the sums of the blocks): in the block's first half the
    /// count of counted rows before the key, zero or more; in its second half minus the count
    /// from the key to the block's end, the row itself included, so below zero. With the blocks'
    /// sums known (`ReadHints.todoBlockSums`), `position(rank:placeInBlock:sums:)` makes the position.
    static func placeInBlockSQL(table: StaticString, counted: StaticString?, key: String) -> String {
        let filter = counted.map { "o.\($0) AND " } ?? ""
        let block = "(\(key) >> \(blockShift))"
        let half = Int64(1) << (blockShift - 1)
        return "(CASE WHEN (\(key) & \((Int64(1) << blockShift) - 1)) < \(half) THEN"
            + " (SELECT COUNT(*) FROM \(table) o WHERE \(filter)o.rank >= (\(block) << \(blockShift)) AND o.rank < \(key))"
            + " ELSE -(SELECT COUNT(*) FROM \(table) o WHERE \(filter)o.rank >= \(key) AND o.rank < ((\(block) + 1) << \(blockShift))) END)"
    }

    /// The 1-based position of the counted row with key `rank` from its place in its block
    /// (`placeInBlockSQL`) and the counted rows of the blocks before it and through it.
    static func position(rank: Int64, placeInBlock: Int64, sums: BlockSums) -> Int {
        let block = rank >> blockShift
        return Int(placeInBlock >= 0 ? sums.before(block) + placeInBlock + 1 : sums.through(block) + placeInBlock + 1)
    }

    /// How many counted rows the blocks before each block hold: one pass over the block table.
    func blockSums() throws(TodoError) -> BlockSums {
        guard let blocks else { return BlockSums(blocks: [], through: []) }
        var keys: [Int64] = []
        var through: [Int64] = []
        var sum: Int64 = 0
        try connection.forEachRow("SELECT block, size FROM \(blocks) ORDER BY block") { row in
            sum += row.int64(1)
            keys.append(row.int64(0))
            through.append(sum)
            return true
        }
        return BlockSums(blocks: keys, through: through)
    }

    /// Positions of many keys. Scattered keys (a page of a listing): one pass over the block
    /// table, then a count inside each key's block. Many keys close together (a long listing): one
    /// ordered walk over the keys between the first and the last, which costs one index row per
    /// todo in that span instead of a count per key.
    func positions(of ranks: [Int64]) throws(TodoError) -> [Int64: Int] {
        let wanted = Set(ranks).sorted()
        guard let first = wanted.first, let last = wanted.last else { return [:] }
        var result: [Int64: Int] = [:]
        guard let blocks else {
            for rank in wanted {
                result[rank] =
                    Int(
                        try connection.scalar(
                            "SELECT COUNT(*) FROM \(name) WHERE \(countedAnd)rank < ?", [.integer(rank)])) + 1
            }
            return result
        }
        let shift = ManualOrder.blockShift
        let span =
            wanted.count == 1
            ? 0
            : try connection.scalar(
                "SELECT COALESCE(SUM(size), 0) FROM \(blocks) WHERE block BETWEEN ? AND ?",
                [.integer(first >> shift), .integer(last >> shift)])
        if span > 0 && span <= Int64(wanted.count) * 64 {
            let before = try position(of: first) - 1
            let between = try connection.rows(
                "SELECT rank FROM \(name) WHERE \(countedAnd)rank >= ? AND rank <= ? ORDER BY rank",
                [.integer(first), .integer(last)]
            ) { $0.int64(0) }
            var seen = 0
            for rank in wanted {
                while seen < between.count, between[seen] < rank { seen += 1 }
                result[rank] = before + seen + 1
            }
            return result
        }
        if wanted.count == 1 { return [first: try position(of: first)] }
        // One pass over the block table for the rows before each wanted block.
        var before: [Int64: Int] = [:]
        var running = 0
        let sizes = try connection.rows(
            "SELECT block, size FROM \(blocks) WHERE block <= ? ORDER BY block", [.integer(last >> shift)]
        ) { ($0.int64(0), $0.int(1)) }
        var index = sizes.startIndex
        for block in Set(wanted.map { $0 >> shift }).sorted() {
            while index < sizes.endIndex, sizes[index].0 < block {
                running += sizes[index].1
                index += 1
            }
            before[block] = running
        }
        for rank in wanted {
            let block = rank >> shift
            let inBlock = try connection.scalar(
                "SELECT COUNT(*) FROM \(name) WHERE \(countedAnd)rank >= ? AND rank < ?",
                [.integer(block << shift), .integer(rank)])
            result[rank] = (before[block] ?? 0) + Int(inBlock) + 1
        }
        return result
    }

    /// Moves row `id` so that it ends up at 1-based `position` among the counted rows (a row
    /// that is not counted itself, a done todo, gets the place that position would be, for when
    /// it is counted again). Returns whether its place changed. Positions past the end are refused.
    func move(id: Int64, toPosition position: Int) throws(TodoError) -> Bool {
        // The neighbours are the other counted rows at positions position-1 and position.
        let neighbours = position < 1 ? [] : try countedIDs(excluding: id, from: max(position - 2, 0), limit: 2)
        // Past the end there is no row before the target; only then is the table counted, for the message.
        guard position >= 1, position == 1 || !neighbours.isEmpty else {
            let others = try count() - (try isCounted(id) ? 1 : 0)
            throw TodoError.invalid("position", "must be between 1 and \(others + 1)")
        }
        // Directly before the row now at `position`, else directly after the one before it: so
        // rows that are not counted (done todos between two open ones) keep their places.
        let lower = position >= 2 ? neighbours.first : nil
        let upper = position >= 2 ? neighbours.dropFirst().first : neighbours.first
        if let upper { return try move(id: id, next: upper, before: true) }
        if let lower { return try move(id: id, next: lower, before: false) }
        return false // the only counted row: position 1 wherever it is
    }

    /// Up to `limit` ids of counted rows other than row `id`, in order, starting with the one at
    /// 0-based `offset` among them. With a block table the blocks before that row are skipped by
    /// their counts (one pass over the small block table), so only the rows inside one block are
    /// walked, not every row before the target.
    private func countedIDs(excluding id: Int64, from offset: Int, limit: Int) throws(TodoError) -> [Int64] {
        var start = Int64.min
        var skip = offset
        if let blocks, offset > 0 {
            let shift = ManualOrder.blockShift
            let movedBlock = try connection.firstRow(
                "SELECT rank FROM \(name) WHERE \(countedAnd)id = ?", [.integer(id)]
            ) { $0.int64(0) >> shift }
            let sizes = try connection.rows("SELECT block, size FROM \(blocks) ORDER BY block") {
                ($0.int64(0), $0.int(1))
            }
            var before = 0
            var found = false
            for (block, size) in sizes {
                let others = size - (block == movedBlock ? 1 : 0)
                if before + others > offset {
                    start = block << shift
                    skip = offset - before
                    found = true
                    break
                }
                before += others
            }
            if !found { return [] } // past the end
        }
        return try connection.rows(
            "SELECT id FROM \(name) WHERE \(countedAnd)id <> ? AND rank >= ? ORDER BY rank LIMIT ? OFFSET ?",
            [.integer(id), .integer(start), .integer(Int64(limit)), .integer(Int64(skip))]
        ) { $0.int64(0) }
    }

    /// Whether row `id` has a position.
    func isCounted(_ id: Int64) throws(TodoError) -> Bool {
        try connection.firstRow("SELECT 1 FROM \(name) WHERE \(countedAnd)id = ?", [.integer(id)]) { _ in true }
            ?? false
    }

    /// Moves row `id` directly before (or after) row `anchor`. Returns whether its place changed.
    func move(id: Int64, next anchor: Int64, before: Bool) throws(TodoError) -> Bool {
        guard let anchorRank = try rank(of: anchor) else { throw TodoError.notFound("no todo with id \(anchor)") }
        if anchor == id { return false }
        if before {
            let lower = try connection.firstRow(
                "SELECT rank FROM \(name) WHERE rank < ? AND id <> ? ORDER BY rank DESC LIMIT 1",
                [.integer(anchorRank), .integer(id)]
            ) { $0.int64(0) }
            return try place(id: id, after: lower, before: anchorRank)
        } else {
            let upper = try connection.firstRow(
                "SELECT rank FROM \(name) WHERE rank > ? AND id <> ? ORDER BY rank LIMIT 1",
                [.integer(anchorRank), .integer(id)]
            ) { $0.int64(0) }
            return try place(id: id, after: anchorRank, before: upper)
        }
    }

    func rank(of id: Int64) throws(TodoError) -> Int64? {
        try connection.firstRow("SELECT rank FROM \(name) WHERE id = ?", [.integer(id)]) { $0.int64(0) }
    }

    // MARK: - Placing between neighbours

    /// Gives row `id` a key strictly between `lower` and `upper` (nil: no neighbour on that side).
    private func place(id: Int64, after lower: Int64?, before upper: Int64?) throws(TodoError) -> Bool {
        guard let current = try rank(of: id) else { throw TodoError.notFound("no row with id \(id)") }
        if (lower.map { $0 < current } ?? true) && (upper.map { current < $0 } ?? true) {
            return false // already there
        }
        let key: Int64
        switch (lower, upper) {
        case (nil, nil): key = 0
        case (let l?, nil): key = l + ManualOrder.gap
        case (nil, let u?): key = u - ManualOrder.gap
        case (let l?, let u?):
            if u - l >= 2 {
                key = l + (u - l) / 2
            } else {
                key = try respace(around: l, excluding: id)
            }
        }
        try connection.run("UPDATE \(name) SET rank = ? WHERE id = ?", [.integer(key), .integer(id)])
        return true
    }

    /// Spreads out the keys of a window of rows around the full spot just after key `lower`, and
    /// returns a free key for the row being placed there. Row `excluding` is the row being moved.
    private func respace(around lower: Int64, excluding id: Int64) throws(TodoError) -> Int64 {
        var half = 16
        while true {
            // `below` ends with the row at `lower`; `above` starts with its successor.
            let below = try connection.rows(
                "SELECT id, rank FROM \(name) WHERE rank <= ? AND id <> ? ORDER BY rank DESC LIMIT ?",
                [.integer(lower), .integer(id), .integer(Int64(half + 1))]
            ) { ($0.int64(0), $0.int64(1)) }
            let above = try connection.rows(
                "SELECT id, rank FROM \(name) WHERE rank > ? AND id <> ? ORDER BY rank LIMIT ?",
                [.integer(lower), .integer(id), .integer(Int64(half + 1))]
            ) { ($0.int64(0), $0.int64(1)) }
            // The outermost row on each side stays fixed as a fence unless that side reached the end.
            let openBelow = below.count <= half
            let openAbove = above.count <= half
            var window = Array(below.reversed()) + above
            let slotIndex = below.count // the new row goes before window[slotIndex] (after fences removed below)
            var lowFence: Int64
            var highFence: Int64
            var slot = slotIndex
            if openBelow {
                lowFence = (window.first?.1 ?? 0) - ManualOrder.gap * Int64(window.count + 2)
            } else {
                lowFence = window.removeFirst().1
                slot -= 1
            }
            if openAbove {
                highFence = (window.last?.1 ?? 0) + ManualOrder.gap * Int64(window.count + 2)
            } else {
                highFence = window.removeLast().1
            }
            if openBelow && openAbove {
                // The whole order fits in the window: lay it out afresh with the full gap.
                lowFence = -ManualOrder.gap
                highFence = ManualOrder.gap * Int64(window.count + 1)
            }
            let slots = Int64(window.count + 1)
            let spacing = (highFence - lowFence) / (slots + 1)
            if spacing >= ManualOrder.minimumSpacing || (openBelow && openAbove) {
                var free: Int64 = 0
                for index in 0...window.count {
                    let key = lowFence + spacing * Int64(index + 1)
                    if index == slot {
                        free = key
                    } else {
                        let row = window[index < slot ? index : index - 1]
                        if row.1 != key {
                            try connection.run(
                                "UPDATE \(name) SET rank = ? WHERE id = ?", [.integer(key), .integer(row.0)])
                        }
                    }
                }
                return free
            }
            half *= 2
        }
    }
}

/// The running sums of a block table (`ManualOrder.blockSums`): how many counted rows the blocks
/// up to each one hold.
struct BlockSums {
    /// The blocks that hold counted rows, ascending.
    let blocks: [Int64]
    /// For each of `blocks`, the counted rows of it and of every block before it.
    let through: [Int64]

    /// The counted rows in the blocks before `block`.
    func before(_ block: Int64) -> Int64 {
        let i = firstIndex(notBelow: block)
        return i == 0 ? 0 : through[i - 1]
    }

    /// The counted rows in `block` and the blocks before it.
    func through(_ block: Int64) -> Int64 {
        let i = firstIndex(notBelow: block)
        if i < blocks.count, blocks[i] == block { return through[i] }
        return i == 0 ? 0 : through[i - 1]
    }

    /// The index of the first block at or after `block` (binary search).
    private func firstIndex(notBelow block: Int64) -> Int {
        var low = 0
        var high = blocks.count
        while low < high {
            let mid = (low + high) / 2
            if blocks[mid] < block { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
