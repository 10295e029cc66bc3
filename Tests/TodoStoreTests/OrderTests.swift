import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

@Suite struct OrderTests {
    @Test func idsAreNeverReusedAndMovesKeepThem() throws {
        let dir = TemporaryDirectory("ids")
        let store = try makeStore(dir)
        for i in 1...5 { _ = try store.write { try $0.add(NewTodo(title: "t\(i)")) } }
        _ = try store.write { try $0.delete([5]) }
        let next = try store.write { try $0.add(NewTodo(title: "new", top: true)) }
        #expect(next.id == 6)
        #expect(next.position == 1)
        _ = try store.write { try $0.move(6, to: .after(3)) }
        let (todos, _) = try everything(store)
        #expect(todos.map(\.id) == [1, 2, 3, 6, 4])
        #expect(todos.map(\.position) == [1, 2, 3, 4, 5])
    }

    /// A move rewrites one row in the common case, even in a long list; repeated moves into the
    /// same spot trigger occasional local respacing, never a rewrite of the whole list.
    @Test func aMoveRewritesOneRow() throws {
        let dir = TemporaryDirectory("rows")
        // Without the change log: the rows counted are the order's own.
        let store = try TodoStore(path: dir.file("todos.db"), changeLog: false)
        try store.write { tx in for i in 1...2000 { _ = try tx.add(NewTodo(title: "t\(i)")) } }
        let changes = { try store.read { try $0.connection.scalar("SELECT total_changes()") } }
        var before = try changes()
        _ = try store.write { try $0.move(1500, to: .position(10)) }
        // The rank and `updated` of the moved row, and at most three changes in the block table.
        #expect(try changes() - before <= 5)
        // Move todos one after another between the same two neighbours.
        before = try changes()
        for id in 100..<400 { _ = try store.write { try $0.move(Int64(id), to: .after(1)) } }
        let perMove = Double(try changes() - before) / 300
        #expect(perMove < 10, "rows written per move: \(perMove)")
        let (todos, _) = try everything(store)
        #expect(todos.map(\.position) == Array(1...2000))
        #expect(Array(todos.map(\.id)[0...2]) == [1, 399, 398])
    }

    /// `todo.add` with `after` places the new todo directly after its anchor in the same change,
    /// also when the keys there are used up and the rows around must be respaced; an unknown
    /// anchor changes nothing.
    @Test func addAfterATodo() throws {
        let dir = TemporaryDirectory("after")
        let store = try makeStore(dir)
        for i in 1...3 { _ = try store.write { try $0.add(NewTodo(title: "t\(i)")) } }
        var expected: [Int64] = [1, 2, 3]
        for i in 0..<80 { // each right after todo 1: the gap halves until a respace
            var new = NewTodo(title: "間 \(i)")
            new.after = 1
            let added = try store.write { try $0.add(new) }
            #expect(added.position == 2)
            expected.insert(added.id, at: 1)
        }
        let (todos, _) = try everything(store)
        #expect(todos.map(\.id) == expected)
        #expect(todos.map(\.position) == Array(1...expected.count))
        var bad = NewTodo(title: "x")
        bad.after = 999
        #expect(throws: TodoError.self) { try store.write { try $0.add(bad) } }
        #expect(try everything(store).0.count == expected.count)
    }
}
