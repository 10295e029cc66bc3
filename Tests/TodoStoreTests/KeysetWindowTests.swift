import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

/// `todo.list` `after` / `before` (a keyset window): the same todos as the listing cut with
/// `offset`, in every sort order of `list --sort` and both directions, and each of its statements
/// a seek in an index, never a sort of the whole listing.
@Suite struct KeysetWindowTests {
    /// 600 todos with repeated titles, due dates, starts, priorities and categories (and none of
    /// each), every 4th done.
    private static func store(_ dir: TemporaryDirectory) throws -> TodoStore {
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let base = Instant(usec: 4_102_444_800_000_000) // 2100-01-01
        try store.write { tx in
            for name in ["仕事", "Home", "買い物"] { _ = try tx.addCategory(name) }
            for i in 1...600 {
                var new = NewTodo(title: ["牛乳", "Write", "write", "ｗｒｉｔｅ", "todo \(i % 37)"][i % 5])
                if i % 3 != 0 { new.due = base.adding(usec: Int64(i % 41) * 3_600_000_000) }
                if i % 4 != 1 { new.category = ["仕事", "Home", "買い物"][i % 3] }
                new.priority = [nil, .high, .medium, .low, nil][i % 5]
                if i % 6 != 0 { new.start = base.adding(usec: -Int64(i % 13) * 86_400_000_000) }
                let todo = try tx.add(new)
                clock.advance(seconds: i % 7 == 0 ? 0 : 0.001)
                if i % 4 == 0 { _ = try tx.complete([todo.id], stop: true) }
                if i % 9 == 0 { _ = try tx.update(todo.id, TodoPatch(title: .set("edited \(i % 11)"))) }
            }
        }
        return store
    }

    private static var orders: [[TodoQuery.SortKey]] {
        var orders: [[TodoQuery.SortKey]] = [[]]
        for field in TodoQuery.SortField.allCases {
            for descending in [false, true] { orders.append([TodoQuery.SortKey(field, descending: descending)]) }
        }
        return orders + sectionOrders
    }

    /// The UI's sections: by category first, then every other key both ways (and the categories
    /// the other way once).
    private static var sectionOrders: [[TodoQuery.SortKey]] {
        var orders: [[TodoQuery.SortKey]] = []
        for field in TodoQuery.SortField.allCases where field != .category {
            for descending in [false, true] {
                orders.append([TodoQuery.SortKey(.category), TodoQuery.SortKey(field, descending: descending)])
            }
        }
        orders.append([TodoQuery.SortKey(.category, descending: true), TodoQuery.SortKey(.title)])
        return orders
    }

    @Test func windowsAreTheListingsRowsInEveryOrder() throws {
        let dir = TemporaryDirectory("keyset")
        let store = try Self.store(dir)
        try store.read { tx in try Self.checkWindows(tx, orders: Self.orders, filters: Array(0..<5)) }
        try store.read { tx in
            var q = TodoQuery()
            q.seek = .init(after: 99_999)
            #expect(throws: TodoError.self) { try tx.list(q) }
            q.seek = .init(after: 1)
            q.offset = 3
            #expect(throws: TodoError.self) { try tx.list(q) }
            q.offset = 0
            q.tree = true
            #expect(throws: TodoError.self) { try tx.list(q) }
            q.seek = .end
            #expect(throws: TodoError.self) { try tx.list(q) }
            q.tree = false
            q.offset = 3
            #expect(throws: TodoError.self) { try tx.list(q) }
        }
    }

    /// With sections, a category of more todos than `Sections.sortedLimit` is walked in the
    /// order's index, its todos told from the others' by the category the index ends with: the
    /// same rows as the listing, and its statements walks, not sorts.
    @Test func aLargeCategoryIsWalkedInItsOrder() throws {
        let dir = TemporaryDirectory("keysetlarge")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let base = Instant(usec: 4_102_444_800_000_000) // 2100-01-01
        let large = StoreTransaction.Sections.sortedLimit * 4 / 3 + 150 // its open todos more than the limit
        try store.write { tx in
            for name in ["大きい", "小さい", "空"] { _ = try tx.addCategory(name) }
            for i in 1...(large + 260) {
                // The large category's todos first in the manual order, then the others mixed:
                // its values and the others' interleave in every order.
                var new = NewTodo(title: ["牛乳", "Write", "write", "todo \(i % 37)", "ｗｒｉｔｅ"][i % 5])
                if i % 3 != 0 { new.due = base.adding(usec: Int64(i % 41) * 3_600_000_000) }
                new.category = i <= large ? "大きい" : i % 5 == 0 ? nil : "小さい"
                new.priority = [nil, .high, .medium, .low, nil][i % 5]
                if i % 6 != 0 { new.start = base.adding(usec: -Int64(i % 13) * 86_400_000_000) }
                let todo = try tx.add(new)
                clock.advance(seconds: i % 7 == 0 ? 0 : 0.001)
                if i % 4 == 0 { _ = try tx.complete([todo.id], stop: true) }
            }
        }
        try store.read { tx in
            try Self.checkWindows(tx, orders: Self.orders, filters: [0, 1, 4], category: "大きい")
            try Self.checkWindows(tx, orders: Self.sectionOrders, filters: [4], category: "小さい")
            // With sections, and by one key in the large category alone (the UI's category pane).
            let orders =
                Self.sectionOrders.filter { ![.position, .id].contains($0[1].field) }.map { ($0, false) }
                + Self.orders.filter { $0.count == 1 && ![.position, .id, .category].contains($0[0].field) }.map {
                    ($0, true)
                }
            for (order, inCategory) in orders {
                for status in [TodoQuery.Status.open, .all] {
                    var q = TodoQuery()
                    q.sort = order
                    q.status = status
                    if inCategory { q.category = "大きい" }
                    q.limit = 50
                    q.seek = .init(after: 3) // in the large category
                    let plans = try tx.seekQueryPlans(q)
                    let name = "\(order.map { "\($0.field)\($0.descending ? "↓" : "↑")" }) \(status) \(inCategory)"
                    let walks = plans.filter { $0.contains { $0.contains("todos_done_") } }
                    #expect(!walks.isEmpty, "\(name): \(plans)")
                    for walk in walks { #expect(!walk.contains { $0.contains("TEMP B-TREE") }, "\(name): \(walk)") }
                }
            }
        }
    }

    /// The windows of `orders` against the listing cut by offset, with filters `filters` (0: open,
    /// 1: every status, 2 and 3: a search, 4: `category`).
    private static func checkWindows(
        _ tx: StoreTransaction, orders: [[TodoQuery.SortKey]], filters: [Int], category: String = "Home"
    ) throws {
        for order in orders {
            for filter in filters {
                var q = TodoQuery()
                q.sort = order
                switch filter {
                case 0: q.status = .open
                case 1: q.status = .all
                case 2: q.search = "write"
                case 3:
                    q.status = .all
                    q.search = "write"
                default:
                    q.status = .all
                    q.category = category
                }
                let all = try tx.list(q).todos.map(\.id)
                let name = "\(order.map { "\($0.field)\($0.descending ? "↓" : "↑")" }) filter \(filter)"
                #expect(all.count > 40, "\(name)")
                for k in [0, 1, 7, all.count / 3, all.count / 2, all.count - 8, all.count - 2, all.count - 1] {
                    var after = q
                    after.seek = .init(after: all[k])
                    after.limit = 7
                    after.withOffset = true
                    let page = try tx.list(after)
                    #expect(
                        page.todos.map(\.id) == Array(all[(k + 1)..<min(all.count, k + 8)]),
                        "\(name) after row \(k)")
                    #expect(
                        page.offset == k + 1 && page.total == all.count,
                        "\(name) after row \(k): offset \(page.offset ?? -1)")
                    var before = q
                    before.seek = .init(before: all[k])
                    before.limit = 7
                    before.withOffset = true
                    let back = try tx.list(before)
                    #expect(back.todos.map(\.id) == Array(all[max(0, k - 7)..<k]), "\(name) before row \(k)")
                    #expect(back.offset == max(0, k - 7), "\(name) before row \(k): offset \(back.offset ?? -1)")
                }
                // The first page (read as a window when one statement would sort it).
                for limit in [1, 7, all.count + 5] {
                    var first = q
                    first.limit = limit
                    #expect(
                        try tx.list(first).todos.map(\.id) == Array(all.prefix(limit)), "\(name) the first \(limit)"
                    )
                }
                // The end of the listing: its last rows, wherever it is cut.
                for limit in [1, 7, all.count - 1, all.count + 5] {
                    var last = q
                    last.seek = .end
                    last.limit = limit
                    last.withOffset = true
                    let page = try tx.list(last)
                    #expect(page.todos.map(\.id) == Array(all.suffix(limit)), "\(name) the last \(limit)")
                    #expect(
                        page.offset == max(0, all.count - limit) && page.total == all.count,
                        "\(name) the last \(limit): offset \(page.offset ?? -1)")
                }
                // An anchor outside the listing (a done todo in the open listing) places the
                // window by its sort values all the same.
                if filter == 0 {
                    var done = TodoQuery()
                    done.status = .done
                    done.sort = order
                    done.limit = 1
                    let anchor = try #require(try tx.list(done).todos.first)
                    var everything = q
                    everything.status = .all
                    let allRows = try tx.list(everything).todos
                    let next = allRows.drop { $0.id != anchor.id }.dropFirst().filter { !$0.done }.prefix(5).map(
                        \.id)
                    var after = q
                    after.seek = .init(after: anchor.id)
                    after.limit = 5
                    after.withOffset = true
                    let page = try tx.list(after)
                    #expect(page.todos.map(\.id) == Array(next), "\(name) after a done todo")
                    #expect(
                        page.offset == next.first.map { all.firstIndex(of: $0) } ?? all.count,
                        "\(name) after a done todo: offset")
                }
            }
        }
    }

    /// Every statement of a window — after, before and from the end; of the open, the done and
    /// every todo (a statement per status, merged) — seeks an index and walks it: never a scan
    /// of the table, and by one sort key never a sort (`TEMP B-TREE`), the order by start and
    /// the todos tied with the anchor by title, created and updated included (migration 20).
    @Test func windowStatementsSeekAnIndex() throws {
        let dir = TemporaryDirectory("keysetplan")
        let store = try Self.store(dir)
        try store.read { tx in
            for order in Self.orders {
                for status in [TodoQuery.Status.open, .done, .all] {
                    for seek in [TodoQuery.Seek(after: 300), .init(before: 300), .end, nil] {
                        var q = TodoQuery()
                        q.sort = order
                        q.status = status
                        q.limit = 50
                        q.seek = seek
                        let place =
                            seek.map { $0.id == nil ? "from the end" : $0.before ? "before" : "after" } ?? "first page"
                        let name = "\(order.map { "\($0.field)\($0.descending ? "↓" : "↑")" }) \(status) \(place)"
                        let plans = try tx.seekQueryPlans(q)
                        // A first page is a window where one statement would sort it: over every
                        // status, or by title, created, updated, start or priority descending.
                        let windowed =
                            order.count == 1 && ![.id, .position].contains(order[0].field)
                            && (status == .all
                                || order[0].descending
                                    && [.title, .created, .updated, .start, .priority].contains(order[0].field))
                            || order.count == 2
                        #expect(!plans.isEmpty || (seek == nil && !windowed), "\(name)")
                        for plan in plans {
                            #expect(
                                !plan.contains { $0.hasPrefix("SCAN t") && !$0.contains("INDEX") }, "\(name): \(plan)")
                            // By title, created or updated, the ties are sought by their value,
                            // not by walking the manual order.
                            #expect(
                                !plan.contains { $0.contains("todos_done_rank") }
                                    || ![.title, .created, .updated].contains(order.last?.field ?? .id),
                                "\(name): \(plan)")
                            // One sort key: every statement walks an index in its order, nothing
                            // sorted (an order whose value runs against the position is read a
                            // value at a time).
                            #expect(
                                order.count > 1 || !plan.contains { $0.contains("TEMP B-TREE") }, "\(name): \(plan)")
                            // The sections (two keys): sorted, only the todos of one category
                            // sought by equality.
                            #expect(
                                !plan.contains { $0.contains("TEMP B-TREE FOR ORDER BY") }
                                    || plan.contains {
                                        $0.contains("SEARCH t USING INDEX") && $0.contains("=?)")
                                            && !$0.contains("(done=?)")
                                    },
                                "\(name): \(plan)")
                        }
                    }
                }
            }
        }
    }
}
