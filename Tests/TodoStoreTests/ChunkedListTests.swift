import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// The chunked listing gives what the whole one gives, in the same order, whatever the chunk.
@Suite struct ChunkedListTests {
    @Test func chunksAddUpToTheWholeListing() throws {
        let dir = TemporaryDirectory("chunks")
        let store = try makeStore(dir)
        try store.write { tx in
            for i in 1...2500 {
                // Every other todo is due, on one of seven instants: many todos share one.
                let due = i % 2 == 0 ? Instant(usec: 1_800_000_000_000_000 + Int64(i % 7) * 1_000_000) : nil
                _ = try tx.add(NewTodo(title: "t\(3000 - i) 牛乳", category: i % 3 == 0 ? "家" : nil, due: due))
            }
        }
        _ = try store.write { try $0.complete([5, 6, 7]) }
        var queries: [TodoQuery] = []
        for status in TodoQuery.Status.allCases {
            for sort in [
                [], [TodoQuery.SortKey(.title)], [TodoQuery.SortKey(.id, descending: true)],
                [TodoQuery.SortKey(.category)],
                [TodoQuery.SortKey(.due, descending: true)]
            ] {
                var q = TodoQuery()
                q.status = status
                q.sort = sort
                queries.append(q)
            }
        }
        var paged = TodoQuery()
        paged.category = "家"
        paged.limit = 300
        paged.offset = 50
        queries.append(paged)
        var acrossParts = TodoQuery() // a page that starts among the categorised and ends among the others
        acrossParts.sort = [TodoQuery.SortKey(.category, descending: true)]
        acrossParts.limit = 100
        acrossParts.offset = 780
        queries.append(acrossParts)
        acrossParts.sort = [TodoQuery.SortKey(.due, descending: true)]
        acrossParts.offset = 1200
        queries.append(acrossParts)
        for query in queries {
            let whole = try store.read { try $0.list(query) }
            // The page a single sorted statement gives, whichever way the listing read it.
            let sorted = try store.read { tx in
                let statements = try tx.plan(query)
                return try tx.connection.rows(statements.walkingPage, statements.walkingValues) { $0.int64(0) }
            }
            #expect(whole.todos.map(\.id) == sorted, "\(query)")
            for chunk in [1, 7, 1000] {
                var total = -1
                var todos: [Todo] = []
                try store.read { tx in
                    try tx.list(query, chunk: chunk, total: { total = $0 }) { part in
                        #expect(part.count <= chunk)
                        todos += part
                        return true
                    }
                }
                #expect(total == whole.total && todos == whole.todos, "\(query) in chunks of \(chunk)")
            }
        }
        // Returning false stops the listing.
        var parts = 0
        try store.read { tx in
            try tx.list(TodoQuery(), chunk: 100, total: { _ in }) { _ in
                parts += 1
                return parts < 3
            }
        }
        #expect(parts == 3)
    }
}
