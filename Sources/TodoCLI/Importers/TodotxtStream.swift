import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC

/// `import --from todotxt`: the file read line by line and its new todos sent in imports of at
/// most `todotxtBatchTodos` todos (`todotxtBatchBytes` as estimated), so a file of any length
/// takes bounded memory. Of the store only the hashes of uids and exported lines are held; a line
/// that says what the store holds is not sent; lines changing a todo are held and merged at the
/// end with the todos they name. Each import is whole or nothing; a file longer than one is
/// several (each one step of undo), and importing it again after an interruption changes nothing
/// for the lines already in.
extension Runner {
    static let todotxtBatchTodos = 100_000
    static let todotxtBatchBytes = 64 << 20

    /// A todo.txt file, imported.
    func importTodotxt(_ input: TodotxtInput) throws(CLIFailure) {
        let context = input.context
        var reader = TodotxtImport(context: context)
        // The store's todos a page at a time: only the hashes of their uids and lines are kept.
        var query = TodoQuery()
        query.status = .all
        query.limit = 10_000
        query.sort = [TodoQuery.SortKey(.id)] // a stable order from page to page
        while true {
            let page = try call(query)
            for todo in page.todos { reader.know(ExportDocument.Entry(todo)) }
            query.offset += page.todos.count
            if page.todos.count < 10_000 || query.offset >= page.total { break }
        }
        var batch: [ExportDocument.Entry] = []
        var bytes = 0
        var total = ImportResult(heldTodos: 0, categories: 0)
        var imports = 0
        // Lines naming a todo and saying something else: merged with the whole todo at the end.
        var changed: [(line: TodotxtImport.Line, uid: String)] = []
        func send() throws(CLIFailure) {
            let document = ExportDocument(categories: [], todos: batch, exported: context.now)
            batch = []
            bytes = 0
            guard case .object(let object) = JSON(document) else { return }
            var parts = try Runner.importParts(object)
            for i in parts.indices {
                parts[i].label =
                    "import todo.txt" + (imports > 0 || changed.isEmpty == false ? " (part \(imports + 1))" : "")
            }
            var result = ImportResult(heldTodos: 0, categories: 0)
            for part in parts { result = try call(part) }
            imports += 1
            total.todos += result.todos
            total.categories += result.categories
            total.added += result.added
            total.updated += result.updated
            total.unchanged += result.unchanged
        }
        func take(_ e: ExportDocument.Entry) throws(CLIFailure) {
            batch.append(e)
            bytes += e.estimatedBytes
            if batch.count >= Runner.todotxtBatchTodos || bytes >= Runner.todotxtBatchBytes { try send() }
        }
        do {
            try input.lines { (number, line) throws(CLIFailure) in
                switch reader.add(line, number: number) {
                case .new(let e): try take(e)
                case .unchanged:
                    total.todos += 1
                    total.unchanged += 1
                case .changed(let line, let uid): changed.append((line, uid))
                case .none: break
                }
            }
        } catch {
            switch error {
            case .read(let e):
                let done = imports == 0 ? "nothing was imported" : "\(total.todos) todos were imported"
                throw .input("cannot read \(input.name): \(e.reason); \(done)")
            case .body(let failure): throw failure
            }
        }
        if !changed.isEmpty {
            // The todos they name, whole (with what todo.txt cannot say).
            let wanted = Set(changed.map(\.uid))
            var stored: [String: ExportDocument.Entry] = [:]
            for e in try call(StoreExportParams()).todos {
                if let uid = e.uid, wanted.contains(uid) { stored[uid] = e }
            }
            for (line, uid) in changed {
                if let known = stored[uid], let e = reader.merged(line, uid: uid, into: known) { try take(e) }
            }
        }
        if !batch.isEmpty { try send() }
        report(total, imports: imports, unmapped: reader.unmapped, refused: reader.refused)
    }

    /// The report of a todo.txt import: the counts over all its imports, what had no counterpart
    /// and each line refused.
    private func report(_ r: ImportResult, imports: Int, unmapped: [String], refused: [String]) {
        if json {
            return emit(
                .object([
                    "todos": .int(Int64(r.todos)), "categories": .int(Int64(r.categories)),
                    "added": .int(Int64(r.added)),
                    "updated": .int(Int64(r.updated)), "unchanged": .int(Int64(r.unchanged)),
                    "imports": .int(Int64(imports)),
                    "unmapped": .array(unmapped.map(JSON.string)), "refused": .array(refused.map(JSON.string))
                ]))
        }
        let detail = r.added == r.todos ? "" : " (\(r.added) added, \(r.updated) updated, \(r.unchanged) unchanged)"
        let split = imports > 1 ? " in \(imports) imports (each one step of undo)" : ""
        print(
            "Imported \(r.todos) \(r.todos == 1 ? "todo" : "todos")\(detail) and \(r.categories) \(r.categories == 1 ? "category" : "categories")\(split)."
        )
        print(unmapped.isEmpty ? "Everything had a counterpart in todod." : "Without a counterpart in todod:")
        for line in unmapped { print("  - " + Table.oneLine(line)) }
        Runner.printRefused(refused, noun: "line", print)
    }

    /// "Not imported (2 lines):" and each refused entry on a line of its own.
    static func printRefused(_ refused: [String], noun: String, _ print: (String) -> Void) {
        guard !refused.isEmpty else { return }
        let plural = noun == "entry" ? "entries" : noun + "s"
        print("Not imported (\(refused.count) \(refused.count == 1 ? noun : plural)):")
        for line in refused { print("  - " + Table.oneLine(line)) }
    }
}
