import TodoCore
import TodoProtocol
import TodoRPC

/// `import --from todotxt`: the file read line by line and sent in imports of at most
/// `batchTodos` todos (`batchBytes` as estimated), so a file of any length takes bounded memory.
/// Each import is whole or nothing; a file longer than one is several (each one step of undo),
/// and importing it again after an interruption changes nothing for the lines already in.
extension Runner {
    static let todotxtBatchTodos = 100_000
    static let todotxtBatchBytes = 64 << 20

    /// A todo.txt file, imported.
    func importTodotxt(_ input: TodotxtInput) throws(CLIFailure) {
        let context = input.context
        // The store's todos by uid, for the lines naming one.
        var stored: [String: ExportDocument.Entry] = [:]
        for e in try call(StoreExportParams()).todos { if let uid = e.uid { stored[uid] = e } }
        var reader = TodotxtImport(context: context, stored: stored)
        stored = [:]
        var batch: [ExportDocument.Entry] = [], bytes = 0, firstLine = 1, lastLine = 0
        var total = ImportResult(heldTodos: 0, categories: 0), imports = 0
        var raw: JSON = .null
        func send(last: Bool) throws(CLIFailure) {
            let document = ExportDocument(categories: [], todos: batch, exported: context.now)
            batch = []
            bytes = 0
            guard case .object(let object) = JSON(document) else { return }
            var parts = try Runner.importParts(object)
            // Only a file in several imports names the lines of each in `undo --list`.
            if !last || imports > 0 {
                for i in parts.indices { parts[i].label = "import todo.txt lines \(firstLine)-\(lastLine)" }
            }
            var result = ImportResult(heldTodos: 0, categories: 0)
            for part in parts { (raw, result) = try answer(part) }
            imports += 1
            total.todos += result.todos
            total.categories += result.categories
            total.added += result.added
            total.updated += result.updated
            total.unchanged += result.unchanged
            firstLine = lastLine + 1
        }
        do {
            try input.lines { (number, line) throws(CLIFailure) in
                lastLine = number
                guard let e = reader.add(line, number: number) else { return }
                batch.append(e)
                bytes += e.estimatedBytes
                if batch.count >= Runner.todotxtBatchTodos || bytes >= Runner.todotxtBatchBytes { try send(last: false) }
            }
        } catch {
            switch error {
            case .read(let e):
                let done = imports == 0 ? "nothing was imported" : "lines 1-\(firstLine - 1) were imported"
                throw .input("cannot read \(input.name): \(e.reason); \(done)")
            case .body(let failure): throw failure
            }
        }
        if !batch.isEmpty || imports == 0 { try send(last: true) }
        report(total, json: raw, imports: imports, unmapped: reader.unmapped, refused: reader.refused)
    }

    /// The report of a todo.txt import: the counts over all its imports, what had no counterpart
    /// and each line refused.
    private func report(_ r: ImportResult, json raw: JSON, imports: Int, unmapped: [String], refused: [String]) {
        if json {
            guard case .object(var o) = raw else { return emit(raw) }
            o["todos"] = .int(Int64(r.todos))
            o["categories"] = .int(Int64(r.categories))
            o["added"] = .int(Int64(r.added))
            o["updated"] = .int(Int64(r.updated))
            o["unchanged"] = .int(Int64(r.unchanged))
            o["imports"] = .int(Int64(imports))
            o["unmapped"] = .array(unmapped.map(JSON.string))
            o["refused"] = .array(refused.map(JSON.string))
            return emit(.object(o))
        }
        let detail = r.added == r.todos ? "" : " (\(r.added) added, \(r.updated) updated, \(r.unchanged) unchanged)"
        let split = imports > 1 ? " in \(imports) imports (each one step of undo)" : ""
        print("Imported \(r.todos) \(r.todos == 1 ? "todo" : "todos")\(detail) and \(r.categories) \(r.categories == 1 ? "category" : "categories")\(split).")
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
