import Foundation
import Testing
import TodoCore
@testable import TodoStore
import TodoTestSupport

/// Positions come from three paths (one todo, a long run of nearby keys, a scattered page);
/// each must give the dense position the manual order implies.
@Suite struct PositionTests {
    @Test func everyPathGivesTheDensePosition() throws {
        let dir = TemporaryDirectory("positions")
        let store = try makeStore(dir)
        // Titles in reverse of the manual order, so a title sort scatters the keys of a page.
        try store.write { tx in for i in 1...3000 { _ = try tx.add(NewTodo(title: String(format: "t%05d", 3001 - i))) } }
        // Spread keys over many blocks, with some moves and deletes in between.
        _ = try store.write { try $0.move(2999, to: .position(1)) }
        _ = try store.write { try $0.move(5, to: .position(2500)) }
        _ = try store.write { try $0.delete([100, 101, 102]) }
        let (all, _) = try everything(store)  // the long run
        #expect(all.map(\.position) == Array(1...2997))
        let positionOf = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.position) })
        var query = TodoQuery()
        query.sort = [TodoQuery.SortKey(.title)]
        query.limit = 7
        for offset in [0, 3, 1000, 2990] {  // scattered pages
            query.offset = offset
            for todo in try store.read({ try $0.list(query).todos }) {
                #expect(todo.position == positionOf[todo.id], "id \(todo.id) at offset \(offset)")
            }
        }
        for id: Int64 in [1, 5, 2999, 3000, 1500] {  // one todo
            #expect(try store.read { try $0.todo(id) }.position == positionOf[id])
        }
    }

    /// Positions count open todos only, on every path: a done todo has none and is not counted,
    /// wherever its key lies (here spread over many blocks of keys).
    @Test func everyPathCountsOpenTodosOnly() throws {
        let dir = TemporaryDirectory("openpositions")
        let store = try makeStore(dir)
        try store.write { tx in for i in 1...3000 { _ = try tx.add(NewTodo(title: String(format: "t%05d", 3001 - i))) } }
        _ = try store.write { try $0.complete(Array(stride(from: 1, through: 3000, by: 3))) }
        _ = try store.write { try $0.move(2999, to: .position(1)) }
        #expect(try store.write { try $0.move(5, to: .position(1500)) }.position == 1500)
        #expect(try store.write { try $0.move(4, to: .position(1500)) }.position == nil)  // done
        _ = try store.write { try $0.reopen([700]) }
        var allQuery = TodoQuery()
        allQuery.status = .all
        let all = try store.read { try $0.list(allQuery).todos }  // the long run, in manual order
        var open = 0
        let expected = all.map { todo -> Int? in
            if todo.done { return nil }
            open += 1
            return open
        }
        #expect(all.map(\.position) == expected)
        #expect(open == 2001 && all.count == 3000)
        let positionOf = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.position) })
        var query = TodoQuery()
        query.status = .all
        query.sort = [TodoQuery.SortKey(.title)]
        query.limit = 7
        for offset in [0, 3, 1000, 2990] {  // scattered pages, open and done mixed
            query.offset = offset
            for todo in try store.read({ try $0.list(query).todos }) {
                #expect(todo.position == positionOf[todo.id], "id \(todo.id) at offset \(offset)")
            }
        }
        for id: Int64 in [1, 4, 5, 700, 2999, 3000, 1500] {  // one todo
            #expect(try store.read { try $0.todo(id) }.position == positionOf[id])
        }
        // `move --to N` lands on N wherever N lies among the blocks of keys, for an open todo and
        // for a done one (which gets that place when reopened).
        let open2001 = try store.read { try $0.list(TodoQuery()).total }
        for (id, target) in [(Int64(6), 1), (8, 2), (9, 255), (11, 256), (12, 257), (14, 1000), (15, 1999), (17, open2001)] {
            #expect(try store.write { try $0.move(id, to: .position(target)) }.position == target, "move \(id) to \(target)")
        }
        for (id, target) in [(Int64(7), 300), (10, 1), (13, 2002)] {
            #expect(try store.write { try $0.move(id, to: .position(target)) }.position == nil)
            #expect(try store.write { try $0.reopen([id]) }.first?.position == target, "reopen \(id) at \(target)")
        }
        let after = try store.read { try $0.list(allQuery).todos }
        var count = 0
        #expect(after.map(\.position) == after.map { $0.done ? nil : { count += 1; return count }() })
    }
}
