import TodoCore
import TodoProtocol
import TodoRPC
import TodoTime

/// `done|reopen|rm|edit|move|snooze|annotate|dismiss` on many todos: a filter as `list` takes it, several
/// ids, or `--all`. The todos are read first (those `list --flat` shows with the filter), a
/// filter's set is confirmed at the terminal (or by `--yes`), then the act is one request:
/// `todo.complete`, `todo.reopen` or `todo.delete` with the ids, or one `todo.batch`, so it
/// happens whole or not at all and `undo` reverts all of it.
extension Runner {
    func act(_ o: ActOptions) throws(CLIFailure) {
        var todos: [Todo]
        switch o.targets {
        case .ids(let ids):
            todos = try ids.map { (id) throws(CLIFailure) in try call(TodoGetParams(id: id)) }
        case .filter(let options):
            let page = try call(options.query)
            todos = page.todos
            // `dismiss` takes those of them with an alarm to dismiss.
            var with = ""
            if case .dismiss(let choice) = o.verb {
                todos = todos.filter { Runner.hasDismissible($0, choice, now: human.now) }
                with = " with an alarm to dismiss"
            }
            if todos.isEmpty {
                let what = options.query.status == .all ? "todos" : "\(options.query.status.rawValue) todos"
                if json { emit(.array([])) } else { print("No \(what)\(with) match; nothing changed.") }
                return
            }
            guard todos.count <= TodoBatchParams.maxOps else {
                throw .input(
                    "\(todos.count) todos match; at most \(TodoBatchParams.maxOps) change at once: narrow the filter")
            }
            // The editor shows the todos itself, and a file saved unchanged changes nothing.
            if !o.yes, o.verb != .editLines { try confirmAct(o.verb, todos) }
        }
        let ids = todos.map(\.id)
        switch o.verb {
        case .done(let stop): try run(.complete(ids: ids, stop: stop), document: nil)
        case .reopen: try run(.reopen(ids: ids), document: nil)
        case .remove(let recursive): try run(.remove(ids: ids, recursive: recursive), document: nil)
        case .edit(let options):
            var ops: [TodoBatchParams.Op] = []
            for todo in todos {
                let (patch, _) = try editPatch(options, id: todo.id, known: todo)
                ops.append(
                    .update(
                        TodoUpdateParams(id: todo.id, patch: patch, ifRevision: options.ifRevision ?? todo.revision)))
            }
            try runBatch(ops, todos, said: "Updated")
        case .editLines: try editLines(todos)
        case .move(let destination): try runBatch(try moveOps(todos, destination), todos, said: "Moved")
        case .snooze(let until):
            try runBatch(
                todos.map { .snooze(TodoSnoozeParams(id: $0.id, until: until)) }, todos, said: "Snoozed",
                suffix: " until \(human.when(until))",
                unchanged: "kept a later reminder (a snooze never moves one earlier)")
        case .annotate(let text):
            let stamp = LocalTime(human.now, in: human.timeZone).text
            let ops: [TodoBatchParams.Op] = todos.map { todo in
                let notes = (todo.notes.map { $0.isEmpty ? "" : $0 + "\n" } ?? "") + "\(stamp) \(text)"
                return .update(
                    TodoUpdateParams(id: todo.id, patch: TodoPatch(notes: .set(notes)), ifRevision: todo.revision))
            }
            try runBatch(ops, todos, said: "Annotated")
        case .dismiss(let choice): try dismiss(todos, choice)
        }
    }

    /// The confirmation of an act on a filter's todos: on a terminal, the todos as `list` prints
    /// them and one question; without one (or with `--json`) the act is refused.
    func confirmAct(_ verb: ActVerb, _ todos: [Todo]) throws(CLIFailure) {
        let count = Runner.count(todos.count, "todo")
        guard let confirm, !json else {
            throw .unconfirmed(
                "\(count) would change (\(verb.name)); give --yes to go on (todoctl asks only on a terminal, and never with --json)"
            )
        }
        print("\(count) will change (\(verb.name)):")
        print(human.todoTable(todos))
        out("Go on? [y/N] ")
        let answer = Validation.trimmed(confirm() ?? "").lowercased()
        guard Runner.yes.contains(answer) else { throw .input("not confirmed; nothing changed") }
    }

    /// The answers that confirm.
    static let yes: Set<String> = ["y", "yes", "はい", "ｙ", "ｙｅｓ"]

    /// Sends `ops` as one `todo.batch` and says what it did: a todo whose revision did not
    /// change (`read` has it as it was) was left as it was, and is not counted as changed.
    func runBatch(
        _ ops: [TodoBatchParams.Op], _ read: [Todo], said verb: String, suffix: String = "",
        unchanged: String = "already so"
    ) throws(CLIFailure) {
        let result: (json: JSON, result: [Todo])
        do { result = try answer(TodoBatchParams(ops: ops)) } catch {
            guard ops.count > 1, case .client(.refused(let rpc)) = error else { throw error }
            if rpc.code == RPCError.conflictCode, rpc.message.contains("revision") {
                throw .input(
                    rpc.message + "; a todo changed since it was read, so nothing was changed: run the command again")
            }
            throw .input(rpc.message + "; nothing was changed: none of the \(ops.count) changes was made")
        }
        if json {
            emit(result.json)
            return
        }
        Runner.sayChanged(result.result, read, verb: verb, suffix: suffix, unchanged: unchanged, print: print)
    }

    /// "Updated 3 todos.", and how many of them were already so.
    static func sayChanged(
        _ result: [Todo], _ read: [Todo], verb: String, suffix: String = "", unchanged: String = "already so",
        print: (String) -> Void
    ) {
        var before: [Int64: Int64] = [:]
        for todo in read { before[todo.id] = todo.revision }
        let changed = result.filter { todo in before[todo.id].map { $0 != todo.revision } ?? true }
        let same = result.count - changed.count
        // "2 were already so", "2 kept a later reminder".
        func were(_ n: Int) -> String { unchanged.hasPrefix("already") ? (n == 1 ? "was " : "were ") : "" }
        if changed.isEmpty {
            print(
                result.count == 1
                    ? "Nothing changed: todo \(result[0].id) \(were(1))\(unchanged)."
                    : "Nothing changed: the \(result.count) todos \(were(result.count))\(unchanged).")
        } else if changed.count == 1, same == 0, let only = changed.first {
            print("\(verb) \(only.id)\(suffix): \(Table.oneLine(only.title))")
        } else {
            print(
                "\(verb) \(Runner.count(changed.count, "todo"))\(suffix)"
                    + (same > 0 ? "; \(same) \(were(same))\(unchanged)." : "."))
        }
    }

    /// The moves that put `todos`, in their order, at `destination`: the first there, each next
    /// one directly after the one before.
    func moveOps(_ todos: [Todo], _ destination: MoveDestination) throws(CLIFailure) -> [TodoBatchParams.Op] {
        let ids = todos.map(\.id)
        let first: MoveTarget
        switch destination {
        case .position(let n): first = .position(Int(n))
        case .before(let other), .after(let other):
            guard !ids.contains(other) else {
                throw .input("todo \(other) is one of the todos being moved; give a todo outside them")
            }
            if case .before = destination { first = .before(other) } else { first = .after(other) }
        case .bottom:
            // After the last open todo that is not one of them.
            var query = TodoListParams()
            query.status = .open
            query.sort = [TodoQuery.SortKey(.position, descending: true)]
            query.limit = ids.count + 1
            let last = try call(query).todos.first { !ids.contains($0.id) }
            first = last.map { .after($0.id) } ?? .position(1)
        }
        var ops: [TodoBatchParams.Op] = [.move(TodoMoveParams(id: ids[0], target: first))]
        for (previous, id) in zip(ids, ids.dropFirst()) {
            ops.append(.move(TodoMoveParams(id: id, target: .after(previous))))
        }
        return ops
    }
}
