import Testing
import TodoCore
import TodoProtocol

/// The writers that skip the JSON tree produce exactly the bytes the tree would.
private func tree(_ page: TodoPage) -> JSON {
    .object(["total": .int(Int64(page.total)), "todos": .array(page.todos.map(JSON.init))])
}

struct EncodingTests {
    static func page(_ count: Int) -> TodoPage {
        let now = Instant(rfc3339: "2026-11-30T06:00:00.25Z") ?? Instant(usec: 0)
        let todos = (0..<count).map { i in
            Todo(id: Int64(i + 1), title: i % 2 == 0 ? "牛乳を買う \"\(i)\"\n" : "task \(i)", notes: i % 3 == 0 ? "メモ\t\\" : nil,
                 category: i % 4 == 0 ? nil : "仕事", due: i % 5 == 0 ? nil : now, remind: nil, done: i % 6 == 0,
                 completed: i % 6 == 0 ? now : nil, position: i + 1, created: now, updated: now)
        }
        return TodoPage(todos: todos, total: count * 3)
    }

    @Test(arguments: [0, 1, 7, 1000])
    func aPageEncodesLikeItsTree(count: Int) {
        let page = Self.page(count)
        var bytes: [UInt8] = []
        tree(page).write(to: &bytes)
        #expect(page.encoded == bytes)
    }

    @Test func aResultLineIsTheResponseLine() {
        let page = Self.page(3)
        for id: JSON in [7, "abc", .null] {
            #expect(RPCMessage.resultLine(id: id, encodedResult: page.encoded) == RPCMessage.line(RPCMessage.result(id: id, tree(page))))
        }
    }
}
