import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

func makeStore(_ dir: TemporaryDirectory, clock: ManualClock = ManualClock()) throws -> TodoStore {
    try TodoStore(path: dir.file("todos.db"), clock: clock.source)
}

func everything(_ store: TodoStore) throws -> ([Todo], [Category]) {
    var query = TodoQuery()
    query.status = .all
    return try store.read { (try $0.list(query).todos, try $0.categories()) }
}
