import TodoCore
import TodoSQLite

/// Facts about the whole store that reads use to skip work (a position's block sums, whether
/// there are subtasks, category names), each worked out once and kept until
/// a row changes: the store's exclusive connection is the only writer, so while its count of
/// changed rows (`Connection.changeCount`) stands still, nothing a read sees has changed.
///
/// Only reads outside a write transaction use them (`Database.hints(for:)`): a rollback puts
/// rows back without counting, so a fact worked out inside a write could outlive it.
final class ReadHints {
    private var anySubtasksAt: Int64 = -1
    private var storeHasSubtasks = true

    private var blockSumsAt: Int64 = -1
    private var sums = BlockSums(blocks: [], through: [])

    /// The running sums of the todos' order blocks (`ManualOrder.blockSums`), read again when a
    /// row changed since they were.
    func todoBlockSums(_ order: ManualOrder) throws(TodoError) -> BlockSums {
        let now = order.connection.changeCount
        if now != blockSumsAt {
            sums = try order.blockSums()
            blockSumsAt = now
        }
        return sums
    }

    private var categoriesAt: Int64 = -1
    private var categories: [Int64: String] = [:]

    /// The name of the category with `id`; `look` reads it, the first time it is asked for since
    /// a row changed (the names are forgotten then, never read all at once).
    func categoryName(_ id: Int64, _ connection: Connection, _ look: (Int64) throws(TodoError) -> String?) throws(TodoError) -> String? {
        let now = connection.changeCount
        if now != categoriesAt {
            categories.removeAll(keepingCapacity: true)
            categoriesAt = now
        }
        if let name = categories[id] { return name }
        let name = try look(id)
        if let name { categories[id] = name }
        return name
    }

    /// Whether any todo is a subtask; `compute` looks, when a row changed since it last did.
    func anySubtasks(_ connection: Connection, _ compute: () throws(TodoError) -> Bool) throws(TodoError) -> Bool {
        let now = connection.changeCount
        if now != anySubtasksAt {
            storeHasSubtasks = try compute()
            anySubtasksAt = now
        }
        return storeHasSubtasks
    }
}
