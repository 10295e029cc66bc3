import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoTime

#if canImport(Glibc)
    import Glibc
#endif

/// `todoctl edit` with a filter (or several ids) and no field to set: one line per todo in
/// `$VISUAL`/`$EDITOR`, as `git rebase -i` shows commits. A line is the id, then the title and
/// the fields in the words `add` takes (`due:2026-12-24`, `category:買い物`, `priority:high`,
/// `+tag`, ...). An edited line edits its todo, moved lines reorder the todos in the manual
/// order (among the places they hold), a deleted line leaves its todo as it is. A file that does
/// not read back is opened again with the error on top; an unchanged one changes nothing.
/// Everything saved is one `todo.batch`: one request, one undo step.
struct EditLines {
    /// The fields of a line, in the order written: the word before the colon, and the `edit`
    /// options that set and clear it.
    static let fields: [(word: String, set: String, clear: String)] = [
        ("due", "--due", "--no-due"), ("scheduled", "--start", "--no-start"),
        ("category", "--category", "--no-category"),
        ("priority", "--priority", "--no-priority"), ("recur", "--every", "--no-every")
    ]

    /// The other spellings of a field's word (Taskwarrior's).
    static let aliases = [
        "project": "category", "proj": "category", "pro": "category", "cat": "category",
        "pri": "priority", "prio": "priority", "sched": "scheduled", "wait": "scheduled", "start": "scheduled",
        "every": "recur"
    ]

    /// One line read back: the title, the field values (by word; absent: none) and the tags.
    struct Line: Equatable {
        var id: Int64
        var title: String
        var values: [String: String] = [:]
        var tags: [String] = []
    }

    /// The line of `todo`, times in `timeZone`.
    static func line(_ todo: Todo, timeZone: ZoneInfo) -> String {
        var words = ["\(todo.id)", title(todo.title)]
        func time(_ instant: Instant, allDay: Bool) -> String {
            allDay
                ? LocalTime.dateText(days: LocalTime(instant, in: timeZone).days)
                : LocalTime(instant, in: timeZone).text
        }
        if let due = todo.due { words.append("due:" + quoted(time(due, allDay: todo.allDay))) }
        if let start = todo.start { words.append("scheduled:" + quoted(time(start, allDay: false))) }
        if let category = todo.category { words.append("category:" + quoted(category)) }
        if let priority = todo.priority { words.append("priority:" + priority.rawValue) }
        if let rule = todo.recurrence?.rule { words.append("recur:" + quoted(rule)) }
        words += todo.tags.map { "+" + $0 }
        return words.joined(separator: " ")
    }

    /// A title as a line holds it: quoted when a word of it would read as a field or a tag.
    static func title(_ text: String) -> String {
        let plain = split(text).map { $0.map(\.text) } ?? []
        let clean =
            plain.count == text.split(separator: " ", omittingEmptySubsequences: true).count
            && !plain.contains { attribute($0) != nil || $0.hasPrefix("+") } && !text.contains("\"")
            && !text.hasPrefix(" ")
            && !text.hasSuffix(" ") && !text.contains("  ") && !text.isEmpty
        return clean ? text : quoted(text, always: true)
    }

    /// `text` in double quotes (backslash before `"` and `\`) when it holds a space or a quote.
    static func quoted(_ text: String, always: Bool = false) -> String {
        guard always || text.contains(" ") || text.contains("\"") || text.isEmpty else { return text }
        return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// The words of a line: spaces separate them, double quotes hold spaces (`due:"12/24 15:00"`).
    /// Nil when a quote is not closed. `quoted` tells whether a word was (wholly) in quotes.
    static func split(_ line: String) -> [(text: String, quoted: Bool)]? {
        var words: [(text: String, quoted: Bool)] = []
        var current = ""
        var inWord = false
        var inQuotes = false
        var wasQuoted = false
        var escaped = false
        for c in line {
            if escaped {
                current.append(c)
                escaped = false
                continue
            }
            if inQuotes {
                if c == "\\" { escaped = true } else if c == "\"" { inQuotes = false } else { current.append(c) }
                continue
            }
            if c == " " || c == "\t" {
                if inWord {
                    words.append((current, wasQuoted))
                    current = ""
                    inWord = false
                    wasQuoted = false
                }
            } else if c == "\"" {
                inQuotes = true
                inWord = true
                wasQuoted = current.isEmpty
            } else {
                current.append(c)
                inWord = true
            }
        }
        guard !inQuotes else { return nil }
        if inWord { words.append((current, wasQuoted)) }
        return words
    }

    /// `due:friday` as ("due", "friday"), a field's other spelling as its own; nil for any other word.
    static func attribute(_ word: String) -> (String, String)? {
        guard let colon = word.firstIndex(of: ":") else { return nil }
        let key = word[..<colon].lowercased()
        let name = aliases[key] ?? key
        guard fields.contains(where: { $0.word == name }) else { return nil }
        return (name, String(word[word.index(after: colon)...]))
    }

    /// Reads one line (not a comment nor blank).
    static func read(_ line: String) throws(UsageError) -> Line {
        guard let words = split(line) else { throw UsageError("a quote is not closed", command: "edit") }
        guard let first = words.first, !first.quoted, let id = Parser.positiveInteger(first.text) else {
            throw UsageError("a line starts with the todo's id", command: "edit")
        }
        var result = Line(id: id, title: "")
        var title: [String] = []
        for word in words.dropFirst() {
            if !word.quoted, let (name, value) = attribute(word.text) {
                result.values[name] = value.isEmpty ? nil : value
            } else if !word.quoted, word.text.hasPrefix("+"), word.text.count > 1 {
                result.tags.append(String(word.text.dropFirst()))
            } else {
                title.append(word.text)
            }
        }
        result.title = title.joined(separator: " ")
        guard !Validation.trimmed(result.title).isEmpty else {
            throw UsageError("todo \(id) has no title", command: "edit")
        }
        return result
    }

    /// The `edit` options that turn `original` into `new` (none when they are the same).
    static func options(from original: Line, to new: Line) -> [String] {
        var options: [String] = []
        if new.title != original.title { options += ["--title", new.title] }
        for field in fields {
            let value = new.values[field.word]
            guard value != original.values[field.word] else { continue }
            options += value.map { [field.set, $0] } ?? [field.clear]
        }
        let old = Set(original.tags)
        for tag in new.tags where !old.contains(tag) { options += ["--tag", tag] }
        for tag in original.tags.sorted() where !new.tags.contains(tag) { options += ["--untag", tag] }
        return options
    }

    /// The header of the file.
    static func header(_ count: Int) -> String {
        """
        # todod: \(count == 1 ? "1 todo" : "\(count) todos"), one a line: its id, then its title and fields as add takes them
        # (due:WHEN scheduled:WHEN category:NAME priority:high|medium|low recur:RULE +tag; "quote" a value with spaces).
        # Edit a line to edit that todo; move lines to reorder the todos in the manual order.
        # Deleting a line leaves its todo as it is (todoctl rm deletes). Lines starting with # are ignored.
        # Save without changes to change nothing.

        """
    }
}

extension Runner {
    /// `edit` on many todos without a field to set: the lines in the editor, then one batch.
    func editLines(_ todos: [Todo]) throws(CLIFailure) {
        guard let parser else { throw .input("cannot edit here") }
        let zone = human.timeZone
        let originals = todos.map { EditLines.line($0, timeZone: zone) }
        var byID: [Int64: (todo: Todo, line: EditLines.Line)] = [:]
        for (todo, text) in zip(todos, originals) {
            guard let line = try? EditLines.read(text) else {
                throw .input("todo \(todo.id) cannot be written as a line")
            }
            byID[todo.id] = (todo, line)
        }
        let text = EditLines.header(todos.count) + originals.joined(separator: "\n") + "\n"
        func check(_ saved: String) throws(CLIFailure) -> String? {
            let ops: [TodoBatchParams.Op]
            do throws(UsageError) {
                ops = try plan(saved, byID: byID, order: todos.map(\.id), parser: parser)
            } catch {
                return error.message
            }
            if ops.isEmpty {
                if json { emit(.array([])) } else { print("No change.") }
                return nil
            }
            do {
                let (raw, changed) = try answer(TodoBatchParams(ops: ops))
                if json { emit(raw) } else { Runner.sayChanged(changed, todos, verb: "Updated", print: { print($0) }) }
                return nil
            } catch .client(.refused(let rpc)) where rpc.code != RPCError.conflictCode {
                return rpc.message
            }
        }
        let ending = try EditorSession.edit(
            text, fileName: "todos.txt", maxBytes: 16 << 20, environment: environment, uid: uid,
            check: check)
        switch ending {
        case .accepted:
            break
        case .unchanged(nil):
            if json { emit(.array([])) } else { print("No change.") }
        case .unchanged(let problem?):
            throw .input("the file was saved unchanged after an error (\(problem)); nothing changed")
        }
    }

    /// The changes a saved file asks for: an update per edited line, then the moves that give
    /// the todos of the kept lines the order of the lines. Throws the first wrong line.
    private func plan(
        _ saved: String, byID: [Int64: (todo: Todo, line: EditLines.Line)], order: [Int64],
        parser: Parser
    ) throws(UsageError) -> [TodoBatchParams.Op] {
        var seen: [Int64] = []
        var ops: [TodoBatchParams.Op] = []
        for (number, raw) in saved.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            if Validation.trimmed(text).isEmpty || Validation.trimmed(text).hasPrefix("#") { continue }
            let line: EditLines.Line
            do { line = try EditLines.read(text) } catch {
                throw UsageError("line \(number + 1): \(error.message)", command: "edit")
            }
            guard let original = byID[line.id] else {
                throw UsageError(
                    "line \(number + 1): todo \(line.id) is not one of the todos being edited (add new ones with todoctl add)",
                    command: "edit")
            }
            guard !seen.contains(line.id) else {
                throw UsageError("line \(number + 1): todo \(line.id) has two lines", command: "edit")
            }
            seen.append(line.id)
            let options = EditLines.options(from: original.line, to: line)
            guard !options.isEmpty else { continue }
            let edit: EditOptions
            do {
                guard case .edit(let parsed) = try parser.parse(["edit", "\(line.id)"] + options).command else {
                    continue
                }
                edit = parsed
            } catch {
                throw UsageError("line \(number + 1): \(error.message)", command: "edit")
            }
            let patch: TodoPatch
            do { (patch, _) = try editPatch(edit, id: line.id, known: original.todo) } catch {
                if case .input(let message) = error {
                    throw UsageError("line \(number + 1): \(message)", command: "edit")
                }
                throw UsageError("line \(number + 1): todo \(line.id) cannot be changed so", command: "edit")
            }
            ops.append(.update(TodoUpdateParams(id: line.id, patch: patch, ifRevision: original.todo.revision)))
        }
        // The order: only when the kept open todos are in another order than they were shown.
        let open = Set(byID.values.filter { !$0.todo.done }.map(\.todo.id))
        let shown = order.filter { open.contains($0) && seen.contains($0) }
        let wanted = seen.filter { open.contains($0) }
        if shown != wanted {
            do { ops += try reorder(wanted, byID: byID) } catch {
                throw UsageError("the new order cannot be read: the todos could not be listed", command: "edit")
            }
        }
        return ops
    }

    /// The moves that put `wanted` in this order on the places (in the whole open list, by
    /// position) the same todos hold now; the other todos stay where they are.
    private func reorder(_ wanted: [Int64], byID: [Int64: (todo: Todo, line: EditLines.Line)]) throws(CLIFailure)
        -> [TodoBatchParams.Op]
    {
        var query = TodoListParams()
        query.status = .open
        query.limit = TodoQuery.maxLimit
        var current = try call(query).todos.map(\.id)
        let moving = Set(wanted)
        var next = wanted.makeIterator()
        let target = current.map { moving.contains($0) ? (next.next() ?? $0) : $0 }
        var ops: [TodoBatchParams.Op] = []
        for (i, id) in target.enumerated() where moving.contains(id) {
            guard let at = current.firstIndex(of: id) else { continue }
            let before = at > 0 ? current[at - 1] : nil
            let wantedBefore = i > 0 ? target[i - 1] : nil
            guard before != wantedBefore else { continue }
            current.remove(at: at)
            if let wantedBefore, let after = current.firstIndex(of: wantedBefore) {
                current.insert(id, at: after + 1)
                ops.append(.move(TodoMoveParams(id: id, target: .after(wantedBefore))))
            } else {
                current.insert(id, at: 0)
                ops.append(.move(TodoMoveParams(id: id, target: .position(1))))
            }
        }
        return ops
    }
}
