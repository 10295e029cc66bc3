import TodoCore
import TodoSQLite

/// Facts about the whole store that reads use to skip work (a position's block sums, whether
/// there are subtasks, category names), each worked out when first asked for and kept until a
/// row changes: the store's exclusive connection is the only writer, so while its count of
/// changed rows (`Connection.changeCount`) stands still, nothing a read sees has changed.
///
/// Only reads outside a write transaction use them (`Database.hints(for:)`): a rollback puts
/// rows back without counting, so a fact worked out inside a write could outlive it.
final class ReadHints {
    // Unchecked: touched only on the store queue, by one read at a time (every `todo.get` reads
    // them; the checks cost some 60 instructions each).
    /// The change count the facts below were worked out at; all are forgotten when it moves.
    @exclusivity(unchecked) private var changeCount: Int64 = -1
    @exclusivity(unchecked) private var blockSums: BlockSums?
    @exclusivity(unchecked) private var anySubtasks: Bool?
    @exclusivity(unchecked) private var categories: [Int64: String] = [:]
    /// The category named last: a run of reads in one category hashes no id.
    @exclusivity(unchecked) private var lastCategory: (id: Int64, name: String)?

    /// Forgets every fact when a row changed since they were worked out.
    private func forgetIfChanged(_ connection: Connection) {
        let now = connection.changeCount
        guard now != changeCount else { return }
        changeCount = now
        blockSums = nil
        anySubtasks = nil
        categories.removeAll(keepingCapacity: true)
        lastCategory = nil
    }

    /// The running sums of the todos' order blocks (`ManualOrder.blockSums`).
    func todoBlockSums(_ order: ManualOrder) throws(TodoError) -> BlockSums {
        forgetIfChanged(order.connection)
        if let blockSums { return blockSums }
        let sums = try order.blockSums()
        blockSums = sums
        return sums
    }

    /// Whether any todo is a subtask; `compute` looks.
    func anySubtasks(_ connection: Connection, _ compute: () throws(TodoError) -> Bool) throws(TodoError) -> Bool {
        forgetIfChanged(connection)
        if let anySubtasks { return anySubtasks }
        let any = try compute()
        anySubtasks = any
        return any
    }

    /// The name of the category with `id`; `look` reads it, the first time it is asked for (the
    /// names are never read all at once).
    func categoryName(_ id: Int64, _ connection: Connection, _ look: (Int64) throws(TodoError) -> String?)
        throws(TodoError) -> String?
    {
        forgetIfChanged(connection)
        if let lastCategory, lastCategory.id == id { return lastCategory.name }
        let name: String
        if let known = categories[id] {
            name = known
        } else {
            guard let read = try look(id) else { return nil }
            name = read
            categories[id] = name
        }
        lastCategory = (id, name)
        return name
    }
}
