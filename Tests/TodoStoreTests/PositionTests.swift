import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

/// Positions come from three paths (one todo, a long run of nearby keys, a scattered page);
/// each must give the dense position the manual order implies.
@Suite struct PositionTests {
    @Test func everyPathGivesTheDensePosition() throws {
        let dir = TemporaryDirectory("positions")
        let store = try makeStore(dir)
        // Titles in reverse of the manual order, so a title sort scatters the keys of a page.
        try store.write { tx in for i in 1...3000 { _ = try tx.add(NewTodo(title: String(format: "t%05d", 3001 - i))) }
        }
        // Spread keys over many blocks, with some moves and deletes in between.
        _ = try store.write { try $0.move(2999, to: .position(1)) }
        _ = try store.write { try $0.move(5, to: .position(2500)) }
        _ = try store.write { try $0.delete([100, 101, 102]) }
        let (all, _) = try everything(store) // the long run
        #expect(all.map(\.position) == Array(1...2997))
        let positionOf = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.position) })
        var query = TodoQuery()
        query.sort = [TodoQuery.SortKey(.title)]
        query.limit = 7
        for offset in [0, 3, 1000, 2990] { // scattered pages
            query.offset = offset
            for todo in try store.read({ try $0.list(query).todos }) {
                #expect(todo.position == positionOf[todo.id], "id \(todo.id) at offset \(offset)")
            }
        }
        for id: Int64 in [1, 5, 2999, 3000, 1500] { // one todo
            #expect(try store.read { try $0.todo(id) }.position == positionOf[id])
        }
    }

    /// Positions count open todos only, on every path: a done todo has none and is not counted,
    /// wherever its key lies (here spread over many blocks of keys).
    @Test func everyPathCountsOpenTodosOnly() throws {
        let dir = TemporaryDirectory("openpositions")
        let store = try makeStore(dir)
        try store.write { tx in for i in 1...3000 { _ = try tx.add(NewTodo(title: String(format: "t%05d", 3001 - i))) }
        }
        _ = try store.write { try $0.complete(Array(stride(from: 1, through: 3000, by: 3))) }
        _ = try store.write { try $0.move(2999, to: .position(1)) }
        #expect(try store.write { try $0.move(5, to: .position(1500)) }.position == 1500)
        #expect(try store.write { try $0.move(4, to: .position(1500)) }.position == nil) // done
        _ = try store.write { try $0.reopen([700]) }
        var allQuery = TodoQuery()
        allQuery.status = .all
        let all = try store.read { try $0.list(allQuery).todos } // the long run, in manual order
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
        for offset in [0, 3, 1000, 2990] { // scattered pages, open and done mixed
            query.offset = offset
            for todo in try store.read({ try $0.list(query).todos }) {
                #expect(todo.position == positionOf[todo.id], "id \(todo.id) at offset \(offset)")
            }
        }
        for id: Int64 in [1, 4, 5, 700, 2999, 3000, 1500] { // one todo
            #expect(try store.read { try $0.todo(id) }.position == positionOf[id])
        }
        // `move --to N` lands on N wherever N lies among the blocks of keys, for an open todo and
        // for a done one (which gets that place when reopened).
        let open2001 = try store.read { try $0.list(TodoQuery()).total }
        for (id, target) in [
            (Int64(6), 1), (8, 2), (9, 255), (11, 256), (12, 257), (14, 1000), (15, 1999), (17, open2001)
        ] {
            #expect(
                try store.write { try $0.move(id, to: .position(target)) }.position == target, "move \(id) to \(target)"
            )
        }
        for (id, target) in [(Int64(7), 300), (10, 1), (13, 2002)] {
            #expect(try store.write { try $0.move(id, to: .position(target)) }.position == nil)
            #expect(try store.write { try $0.reopen([id]) }.first?.position == target, "reopen \(id) at \(target)")
        }
        let after = try store.read { try $0.list(allQuery).todos }
        var count = 0
        #expect(
            after.map(\.position)
                == after.map {
                    $0.done
                        ? nil
                        : {
                            count += 1
                            return count
                        }()
                })
    }
}

/// A read keeps what it learnt about the whole store (`ReadHints`: the sums of the order's blocks,
/// whether any todo is a subtask, category names) until a row changes. Every todo read alone must
/// show what a write transaction, which always looks, shows — after every kind of change, and
/// after an undo.
@Suite struct ReadHintTests {
    /// Every todo as a read and as a write transaction see it alone.
    private func alone(_ store: TodoStore, _ ids: ClosedRange<Int64>) throws -> (read: [Todo], written: [Todo]) {
        let read = try store.read { tx in ids.compactMap { id in try? tx.todo(id) } }
        let written = try store.write { tx in ids.compactMap { id in try? tx.todo(id) } }
        return (read, written)
    }

    @Test func aTodoReadAloneMatchesWhatAWriteSeesAfterEveryChange() throws {
        let dir = TemporaryDirectory("readhints")
        let store = try makeStore(dir)
        try store.write { tx in
            _ = try tx.addCategory("家")
            _ = try tx.addCategory("仕事")
            // three blocks of keys
            for i in 1...700 { _ = try tx.add(NewTodo(title: "t\(i)", category: [nil, "家", "仕事"][i % 3])) }
        }
        let ids: ClosedRange<Int64> = 1...702
        var seen = try alone(store, ids)
        #expect(seen.read.map(\.position) == Array(1...700))
        #expect(seen.read.map(\.category) == (1...700).map { [nil, "家", "仕事"][$0 % 3] })
        let changes: [(String, (StoreTransaction) throws -> Void)] = [
            ("move to the front", { tx in _ = try tx.move(690, to: .position(1)) }),
            ("move into the second half of a block", { tx in _ = try tx.move(3, to: .position(500)) }),
            ("complete", { tx in _ = try tx.complete([10, 300, 650]) }),
            ("reopen", { tx in _ = try tx.reopen([300]) }),
            ("delete", { tx in _ = try tx.delete([1, 2, 699]) }),
            ("add at the end", { tx in _ = try tx.add(NewTodo(title: "new")) }),
            ("rename a category", { tx in _ = try tx.renameCategory("家", to: "うち") }),
            (
                "move a todo to another category",
                { tx in
                    var patch = TodoPatch()
                    patch.category = .set("仕事")
                    _ = try tx.update(4, patch)
                }
            ),
            ("delete a category its todos are in", { tx in _ = try tx.deleteCategory("仕事", force: true) }),
            (
                "make a subtask",
                { tx in
                    var subtask = NewTodo(title: "sub")
                    subtask.parent = 5
                    _ = try tx.add(subtask)
                }
            )
        ]
        for (what, change) in changes {
            _ = try store.write { tx in try change(tx) }
            seen = try alone(store, ids)
            #expect(seen.read == seen.written, "after \(what)")
            // The positions are the dense ones of the open todos in manual order.
            let listed = try store.read { try $0.list(TodoQuery()).todos }
            let positionOf = Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0.position) })
            let wrong = seen.read.filter { todo in todo.position != (todo.done ? nil : positionOf[todo.id] ?? nil) }
                .map(\.id)
            #expect(wrong.isEmpty, "after \(what): todos \(wrong.prefix(5))")
        }
        #expect(try store.read { try $0.todo(5) }.subtasks == [702])
        // An undo puts rows back: the subtask goes, and reads see it gone.
        _ = try store.write { try $0.undo() }
        seen = try alone(store, ids)
        #expect(seen.read == seen.written)
        #expect(try store.read { try $0.todo(5) }.subtasks == [])
    }
}
