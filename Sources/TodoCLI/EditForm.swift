import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoTime

#if canImport(Glibc)
    import Glibc
#endif

/// `todoctl edit ID` without field options, on a terminal: the todo as a short text form in
/// `$VISUAL` or `$EDITOR` (else `vi`), one `Field: value` line per field and the notes below
/// `Notes:`. What changed becomes the options `edit` takes (`--title`, `--due`, `--untag`, ...),
/// read by the same parser, so a value is written as on the command line (the whole WHEN
/// grammar). A form that does not read back is opened again with the error on top; a form saved
/// unchanged changes nothing.
package struct EditForm: Equatable {
    /// The one-line fields, in the order written.
    static let fields = ["Title", "Due", "Start", "Remind", "Priority", "Category", "Tags", "Repeat"]

    var values: [String: String] = [:]
    var notes = ""

    /// The form of `todo`, times in `timeZone` (an all-day due as its date).
    init(_ todo: Todo, timeZone: ZoneInfo) {
        values["Title"] = todo.title
        values["Due"] =
            todo.due.map {
                todo.allDay
                    ? LocalTime.dateText(days: LocalTime($0, in: timeZone).days) : LocalTime($0, in: timeZone).text
            } ?? ""
        values["Start"] = todo.start.map { LocalTime($0, in: timeZone).text } ?? ""
        values["Remind"] = todo.remind.map { LocalTime($0, in: timeZone).text } ?? ""
        values["Priority"] = todo.priority?.rawValue ?? ""
        values["Category"] = todo.category ?? ""
        values["Tags"] = todo.tags.joined(separator: " ")
        values["Repeat"] = todo.recurrence?.rule ?? ""
        notes = todo.notes ?? ""
    }

    /// Reads a saved form; throws a one-line message for a line it cannot place.
    init(reading text: String) throws(UsageError) {
        var inNotes = false
        var noteLines: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw).hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            if inNotes {
                noteLines.append(line)
                continue
            }
            if line.hasPrefix("#") || Validation.trimmed(line).isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw UsageError(
                    "the line \"\(line)\" is not Field: value (the fields are \(Self.fields.joined(separator: ", ")) and Notes)",
                    command: "edit")
            }
            let name = Validation.trimmed(String(line[..<colon]))
            let value = Validation.trimmed(String(line[line.index(after: colon)...]))
            if name.lowercased() == "notes" {
                inNotes = true
                if !value.isEmpty { noteLines.append(value) }
                continue
            }
            guard let field = Self.fields.first(where: { $0.lowercased() == name.lowercased() }) else {
                throw UsageError(
                    "unknown field \"\(name)\" (the fields are \(Self.fields.joined(separator: ", ")) and Notes)",
                    command: "edit")
            }
            values[field] = value
        }
        while noteLines.last.map({ Validation.trimmed($0).isEmpty }) == true { noteLines.removeLast() }
        notes = noteLines.joined(separator: "\n")
    }

    /// The file the editor opens.
    func text(id: Int64) -> String {
        var out = "# todod: todo \(id). Change what you like and save; lines starting with # are ignored.\n"
        out += "# Due, Start and Remind take any WHEN (tomorrow 9am, 金曜, 2026-12-24 17:00), empty for none;\n"
        out += "# Priority high, medium or low; Tags separated by spaces; Repeat an --every RULE.\n"
        for field in Self.fields { out += "\(field): \(values[field] ?? "")\n" }
        out += "Notes:\n" + notes + (notes.isEmpty ? "" : "\n")
        return out
    }

    /// The `edit` options that turn `original` into this form (nothing for an unchanged form).
    func options(from original: EditForm) -> [String] {
        var options: [String] = []
        func changed(_ field: String) -> String? {
            let value = values[field] ?? ""
            return value == (original.values[field] ?? "") ? nil : value
        }
        if let title = changed("Title") { options += ["--title", title] }
        for (field, option) in [
            ("Due", "due"), ("Start", "start"), ("Remind", "remind"), ("Priority", "priority"),
            ("Category", "category"), ("Repeat", "every")
        ] {
            guard let value = changed(field) else { continue }
            options += value.isEmpty ? ["--no-\(option)"] : ["--\(option)", value]
        }
        if changed("Tags") != nil {
            let old = Set((original.values["Tags"] ?? "").split(separator: " ").map(String.init))
            let new = (values["Tags"] ?? "").split(separator: " ").map(String.init)
            for tag in new where !old.contains(tag) { options += ["--tag", tag] }
            for tag in old.sorted() where !new.contains(tag) { options += ["--untag", tag] }
        }
        if notes != original.notes { options += notes.isEmpty ? ["--no-notes"] : ["--notes", notes] }
        return options
    }
}

extension CLI {
    /// `todoctl [GLOBAL...] edit ID` with nothing to change, on a terminal: the todo in the
    /// editor (`EditForm`). `editAt` is where `edit` is in `arguments`. Every request goes
    /// through `main` itself (`show --json`, then `edit ID` with the options the form made), so
    /// it reads and reports exactly as those commands do.
    static func editInEditor(
        arguments: [String], editAt index: Int, environment: [String: String], uid: UInt32,
        now: Instant, timeZone: ZoneInfo, zoneName: @escaping () -> String?,
        stdout: (String) -> Void, stderr: (String) -> Void,
        connect: (String) throws(ClientError) -> any RPCTransport
    ) -> Int32 {
        let global = Array(arguments[..<index]).filter { $0 != "--json" && $0 != "-j" }
        let id = arguments[index + 1]
        var shown = ""
        let status = main(
            arguments: global + ["--json", "show", id], environment: environment, uid: uid, isTerminal: false,
            terminalWidth: nil,
            now: now, timeZone: timeZone, zoneName: zoneName(), stdout: { shown += $0 }, stderr: stderr,
            connect: connect)
        guard status == 0 else { return status }
        guard let json = try? JSON.parse(Array(shown.utf8)), let todo = try? Todo(json: json) else {
            stderr("todoctl: todod sent a todo that cannot be read\n")
            return exitUnavailable
        }
        let original = EditForm(todo, timeZone: timeZone)
        var result = exitOK
        let ending: EditorSession.Ending
        do {
            ending = try EditorSession.edit(
                original.text(id: todo.id), fileName: "todo-\(todo.id).txt", maxBytes: 1 << 20,
                environment: environment, uid: uid
            ) { saved throws(CLIFailure) in
                let options: [String]
                do throws(UsageError) {
                    options = try EditForm(reading: saved).options(from: original)
                } catch {
                    return error.message
                }
                if options.isEmpty {
                    stdout("No change.\n")
                    return nil
                }
                var errors = ""
                result = main(
                    arguments: global + ["edit", id] + options, environment: environment, uid: uid, isTerminal: false,
                    terminalWidth: nil, now: now, timeZone: timeZone, zoneName: zoneName(), stdout: stdout,
                    stderr: { errors += $0 }, connect: connect)
                if result == exitOK || result == exitUnavailable {
                    stderr(errors)
                    return nil
                }
                return errors.split(separator: "\n").first.map {
                    String($0.hasPrefix("todoctl: ") ? $0.dropFirst(9) : $0)
                }
                    ?? "todoctl edit failed"
            }
        } catch {
            let (status, message) = report(error, socket: "", socketFromFlag: false)
            stderr(message)
            return status
        }
        switch ending {
        case .accepted:
            return result
        case .unchanged(nil):
            stdout("No change.\n")
            return exitOK
        case .unchanged(let problem?):
            stderr("todoctl: the form was saved unchanged after an error (\(problem)); nothing changed\n")
            return exitRefused
        }
    }
}
