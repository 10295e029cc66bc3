import TodoCore
import TodoICal
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoTime
import TodoWhen

#if canImport(Glibc)
    import Glibc
#endif

/// Stage 3 of todoctl: runs one command against the daemon and prints its result.
struct Runner {
    var transport: any RPCTransport
    /// Print only JSON.
    var json: Bool
    var human: HumanOutput
    var out: (String) -> Void
    /// Standard error, for notes that must not mix with `--json` output.
    var err: (String) -> Void = { _ in }
    /// The time now, for output made later than the command started (`watch`).
    var clock: () -> Instant = { Instant.now() }
    /// The tz database directory iCalendar exports read zones from (nil: the system's).
    var tzdir: String?
    /// `import --from`: what the converted file had no counterpart for, reported after the import.
    var unmapped: [String]?
    /// `import --from`: the entries of the file refused ("line 7: …"), reported after the import.
    var refused: [String] = []
    /// The daemon's socket, and how to connect to it again (`watch --reconnect`).
    var socket = ""
    var connect: (() throws(ClientError) -> any RPCTransport)?
    /// What the file being imported held besides todos (`VEVENT`: 3), for the import report.
    var importSkipped: [String: Int] = [:]
    /// The rules the file being imported had that todod keeps without following, for the report.
    var importNotFollowed: [ICalFiles.KeptRule] = []
    /// `import --from todotxt`: the file, read while importing.
    var todotxt: TodotxtInput?
    /// Asks the person at the terminal to confirm an act on many todos: the answer line, nil
    /// at end of input. Nil when there is no terminal to ask on.
    var confirm: (() -> String?)?
    /// The environment (the editor of `edit` on many todos) and the user (its file's directory).
    var environment: [String: String] = [:]
    var uid: UInt32 = 0
    /// Reads the `edit` options of a line `edit` on many todos got back from the editor.
    var parser: Parser?

    // MARK: - Plumbing

    /// Calls the method `params` belong to and reads its result.
    func call<P: MethodParams>(_ params: P) throws(CLIFailure) -> P.Result {
        do { return try transport.call(params) } catch { throw .client(error) }
    }

    /// Calls the method `params` belong to: its result read, and the JSON it came as (what
    /// `--json` prints, as the daemon sent it).
    func answer<P: MethodParams>(_ params: P) throws(CLIFailure) -> (json: JSON, result: P.Result) {
        do {
            let json = try transport.call(P.method, params.encoded)
            return (json, try P.result(from: json))
        } catch {
            throw .client(error)
        }
    }

    /// Prints one JSON document and a newline.
    func emit(_ value: JSON) { out(value.serialized() + "\n") }

    /// Prints lines of human output.
    func print(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        out(lines.joined(separator: "\n") + "\n")
    }

    func print(_ line: String) { out(line + "\n") }

    static func bad(_ what: String) -> CLIFailure { .client(.badAnswer(what)) }

    func todo(_ value: JSON) throws(CLIFailure) -> Todo {
        do { return try Todo(json: value) } catch { throw Runner.bad(error.description) }
    }

    // MARK: - Commands

    func run(_ command: Command, document: JSON?) throws(CLIFailure) {
        switch command {
        case .add(let options): try add(options)
        case .list(let options):
            try suggestingCategory(options.query.category) { () throws(CLIFailure) in try list(options) }
            if options.hidesFutureStarts { try sayHiddenStarts(options.query) }
        case .show(let id):
            let (raw, shown) = try answer(TodoGetParams(id: id))
            if json {
                emit(raw)
                break
            }
            var query = TodoQuery()
            query.parent = id
            query.status = .all
            let subtasks = shown.subtasks.isEmpty ? [] : try call(query).todos
            print(human.todoDetails(shown, subtasks: subtasks))
        case .edit(let options): try edit(options)
        case .complete(let ids, let stop):
            try batch(TodoCompleteParams(ids: ids, stop: stop), verb: "Completed", already: "done")
        case .reopen(let ids): try batch(TodoReopenParams(ids: ids), verb: "Reopened", already: "open")
        case .remove(let ids, let recursive):
            do {
                try batch(TodoDeleteParams(ids: ids, recursive: recursive), verb: "Deleted")
            } catch {
                // The daemon names its parameter (`recursive`); say the option that sets it.
                let phrase = "delete them with it (recursive)"
                guard case .client(.refused(let rpc)) = error, rpc.code == RPCError.conflictCode,
                    rpc.message.contains(phrase)
                else { throw error }
                throw .input(rpc.message.replacing(phrase, with: "delete them with it (--recursive)"))
            }
        case .move(let id, let destination): try move(id, destination)
        case .snooze(let id, let until):
            let (raw, t) = try answer(TodoSnoozeParams(id: id, until: until))
            if json {
                emit(raw)
            } else if let remind = t.remind, remind > until, t.reminded == nil {
                // A reminder still to fire later than `until` is not moved earlier.
                print(
                    "Reminder of \(t.id) stays at \(human.when(remind)): later than \(LocalTime(until, in: human.timeZone).text), "
                        + "and a snooze never moves it earlier: " + Table.oneLine(t.title))
            } else if let remind = t.remind, remind < until, t.reminded == nil {
                // Only the alarm that fired is snoozed: a later one still fires at its time.
                print(
                    "Snoozed \(t.id) until \(human.when(until)); its next alarm still fires at "
                        + "\(LocalTime(remind, in: human.timeZone).text): \(Table.oneLine(t.title))")
            } else {
                print("Snoozed \(t.id) until \(human.when(until)): \(Table.oneLine(t.title))")
            }
        case .act(let options): try act(options)
        case .category(let sub): try category(sub)
        case .agenda(let days): try agenda(days: days)
        case .reminders(let since, let limit): try reminders(since: since, limit: limit)
        case .watch(let since, let reconnect): try watch(since: since, reconnect: reconnect)
        case .status:
            let (raw, status) = try answer(DaemonStatusParams())
            if json { emit(raw) } else { print(human.status(status)) }
        case .export(let format, let target): try export(format, target)
        case .importFile:
            if let todotxt { return try importTodotxt(todotxt) }
            guard let params = document?.objectValue else { throw .input("nothing to import") }
            // A document too long for one request line goes in parts on this connection; the
            // daemon applies them together with the last one.
            var raw: JSON = .null
            var result = ImportResult(heldTodos: 0, categories: 0)
            let parts = try Runner.importParts(params)
            for (index, part) in parts.enumerated() {
                do { (raw, result) = try answer(part) } catch {
                    throw Runner.importCut(error, last: index == parts.count - 1)
                }
            }
            if json {
                if case .object(var o) = raw {
                    if !importSkipped.isEmpty {
                        var counts = JSONObject()
                        for (kind, n) in importSkipped.sorted(by: { $0.key < $1.key }) { counts[kind] = .int(Int64(n)) }
                        o["skipped"] = .object(counts)
                    }
                    if let unmapped {
                        o["unmapped"] = .array(unmapped.map(JSON.string))
                        o["refused"] = .array(refused.map(JSON.string))
                    }
                    if !importNotFollowed.isEmpty {
                        o["notFollowed"] = .array(
                            importNotFollowed.map { r in
                                var rule = JSONObject()
                                if let file = r.file { rule["file"] = .string(file) }
                                rule["line"] = .int(Int64(r.line))
                                rule["reason"] = .string(r.reason)
                                return .object(rule)
                            })
                    }
                    raw = .object(o)
                }
                emit(raw)
            } else {
                let (todos, categories, added) = (result.todos, result.categories, result.added)
                let (updated, unchanged) = (result.updated, result.unchanged)
                // All new: the plain count; else what became of them.
                let detail = added == todos ? "" : " (\(added) added, \(updated) updated, \(unchanged) unchanged)"
                let skipped =
                    (ICalFiles.skippedWords(importSkipped).map { "; skipped \($0) (not todos)" } ?? "")
                    + (ICalFiles.keptRuleWords(importNotFollowed).map { "; " + $0 } ?? "")
                print(
                    "Imported \(todos) \(todos == 1 ? "todo" : "todos")\(detail) and \(categories) \(categories == 1 ? "category" : "categories")\(skipped)."
                )
                if let unmapped {
                    print(
                        unmapped.isEmpty ? "Everything had a counterpart in todod." : "Without a counterpart in todod:")
                    for line in unmapped { print("  - " + Table.oneLine(line)) }
                }
                Runner.printRefused(refused, noun: "entry", print)
            }
        case .undo(let steps, let redo): try undo(steps: steps, redo: redo)
        case .history(let limit): try history(limit: limit)
        case .help, .version, .sync, .ui:
            break
        }
    }

    /// The most bytes of todos and category names one `store.import` part carries: well inside
    /// the protocol's 1 MiB line, with room for the rest of the request.
    static let importPartBytes = 768 * 1024

    /// `document` cut into export documents of at most `importPartBytes` of todos and category
    /// names each, every one but the last marked `"more": true`. A small document is one part. A
    /// `more` member in the document itself is dropped: it belongs to the protocol, and left in it
    /// would make the daemon wait for parts that never come.
    /// - Throws: `.input` naming the entry when one todo or category alone is too large for a
    ///   request (nothing is sent): no entry within todod's limits is (a title of 4 KiB, notes and
    ///   kept iCalendar lines of 64 KiB each, 32 tags), so it is refused here with what is too
    ///   large, not sent as a line the daemon cannot read.
    static func importParts(_ document: JSONObject) throws(CLIFailure) -> [StoreImportParams] {
        let document = StoreImportParams(document: document).document
        let categories = document["categories"]?.arrayValue ?? []
        let todos = document["todos"]?.arrayValue ?? []
        func size(_ value: JSON) -> Int { value.serialized().utf8.count + 1 }
        for (i, todo) in todos.enumerated() where size(todo) > importPartBytes {
            throw .input(tooLarge(todo, at: i, size: size(todo)))
        }
        for (i, name) in categories.enumerated() where size(name) > importPartBytes {
            throw .input(
                "categories[\(i)] is \(byteCount(size(name))), longer than a category name may be (\(Validation.maxCategoryBytes) bytes); nothing was imported"
            )
        }
        guard (categories + todos).reduce(0, { $0 + size($1) }) > importPartBytes else {
            return [StoreImportParams(document: document)]
        }
        var parts: [StoreImportParams] = []
        var part = document
        part["categories"] = .array([])
        part["todos"] = .array([])
        var current = (categories: [JSON](), todos: [JSON](), bytes: 0)
        func close() {
            var next = part
            next["categories"] = .array(current.categories)
            next["todos"] = .array(current.todos)
            parts.append(StoreImportParams(document: next, more: true))
            current = ([], [], 0)
        }
        for (isTodo, item) in categories.map({ (false, $0) }) + todos.map({ (true, $0) }) {
            let bytes = size(item)
            if current.bytes > 0 && current.bytes + bytes > importPartBytes { close() }
            if isTodo { current.todos.append(item) } else { current.categories.append(item) }
            current.bytes += bytes
        }
        close()
        parts[parts.count - 1].more = false
        return parts
    }

    /// Why import entry `i` (`size` bytes as sent) cannot be imported: the member over todod's
    /// limit, else its size; the entry is named by its index, title and uid.
    private static func tooLarge(_ todo: JSON, at i: Int, size: Int) -> String {
        let title = todo["title"]?.stringValue.map { " " + TimeExpression.quoted(String($0.prefix(40))) } ?? ""
        let uid = todo["uid"]?.stringValue.map { " (uid \(String($0.prefix(80))))" } ?? ""
        let entry = "todos[\(i)]\(title)\(uid)"
        let limits: [(member: String, what: String, bytes: Int)] = [
            ("ical", "kept iCalendar lines (the properties todod does not model)", Validation.maxNotesBytes),
            ("notes", "notes", Validation.maxNotesBytes), ("title", "title", Validation.maxTitleBytes)
        ]
        for limit in limits {
            if let text = todo[limit.member]?.stringValue, text.utf8.count > limit.bytes {
                return "cannot import \(entry): its \(limit.what) take \(byteCount(text.utf8.count)), more than the "
                    + "\(byteCount(limit.bytes)) todod keeps; nothing was imported"
            }
        }
        return "cannot import \(entry): it takes \(byteCount(size)), more than one request may carry "
            + "(\(byteCount(importPartBytes))); nothing was imported"
    }

    /// "1.2 MiB", "64 KiB", "900 bytes".
    private static func byteCount(_ bytes: Int) -> String {
        func tenths(_ shift: Int, _ unit: String) -> String {
            let t = (bytes * 10 + (1 << (shift - 1))) >> shift
            return t % 10 == 0 ? "\(t / 10) \(unit)" : "\(t / 10).\(t % 10) \(unit)"
        }
        if bytes >= 1 << 20 { return tenths(20, "MiB") }
        return bytes >= 1 << 10 ? tenths(10, "KiB") : "\(bytes) bytes"
    }

    /// `export`: the document to stdout or a file, or iCalendar to stdout, a file or a vdir.
    func export(_ format: ExportFormat, _ target: String?) throws(CLIFailure) {
        let (answer, document) = try self.answer(StoreExportParams())
        let writer = ICalWriter(tzdir: tzdir)
        let text: String
        switch format {
        case .json:
            text = answer.serialized() + "\n"
        case .ics:
            text = writer.calendar(document.todos)
        case .todotxt:
            text = TodotxtExport.text(document.todos, zone: human.timeZone)
        case .vdir:
            let entries = document.todos
            try ICalFiles.writeVdir(entries, to: target ?? ".", writer: writer)
            return report(entries.count, target ?? ".")
        }
        guard let target else { return out(text) }
        do { try AtomicFile.write(target, Array(text.utf8), mode: 0o600) } catch {
            throw .input("cannot write \(target): \(error.reason)")
        }
        report(document.todos.count, target)
    }

    /// What an export to a file or directory wrote: a line, or `{"todos": N, "path": P}` with --json.
    private func report(_ count: Int, _ path: String) {
        if json {
            emit(.object(["todos": .int(Int64(count)), "path": .string(path)]))
        } else {
            print("Exported \(count) \(count == 1 ? "todo" : "todos") to \(Table.oneLine(path)).")
        }
    }

    func add(_ o: AddOptions) throws(CLIFailure) {
        let (raw, todo) = try answer(o.newTodo(localZone: human.zoneName))
        if json { emit(raw) } else { print("Added " + human.summary(todo)) }
    }

    /// Rows per part of a streamed `list` table: the first part decides the column widths.
    static let streamedRows = 1000

    func list(_ o: ListOptions) throws(CLIFailure) {
        if o.byCategory && !json { return try listByCategory(o) }
        if let local = try localDays(o.query) { return try listByLocalDay(o, local) }
        // The answer is read as it arrives: the first rows are out while the rest is on the wire.
        var shown = 0
        var pending = ""
        var batch: [Todo] = []
        var layout: HumanOutput.ListLayout?
        // In a tree, how deep each todo sits: the chain of its listed parents above it.
        var depths: [Int64: Int] = [:]
        var chain: [Int64] = []
        func depth(_ todo: Todo) -> Int {
            guard o.query.tree else { return 0 }
            if let parent = todo.parent, let i = chain.lastIndex(of: parent) {
                chain.removeSubrange((i + 1)...)
            } else {
                chain.removeAll()
            }
            chain.append(todo.id)
            return chain.count - 1
        }
        if json { pending = "[" }
        let total: Int?
        do throws(ClientError) {
            total = try transport.list(o.query) { item, before throws(ClientError) in
                shown += 1
                if json {
                    pending += (shown > 1 ? "," : "") + item.serialized()
                    if pending.utf8.count >= 1 << 16 {
                        out(pending)
                        pending = ""
                    }
                    return
                }
                let todo = try Todo.decoded(item)
                depths[todo.id] = depth(todo)
                batch.append(todo)
                if batch.count == Runner.streamedRows {
                    // More may follow: leave room for the ids and positions to come.
                    let last = before.map { $0 + o.query.offset } ?? 0
                    print(
                        human.todoTable(
                            batch, layout: &layout, numbersUpTo: last, rules: o.query.recurring == true,
                            depths: depths))
                    depths = [:]
                    batch = []
                }
            }
        } catch {
            if shown > 0 { out(pending) } // what arrived before the failure
            throw .client(error)
        }
        if json {
            out(pending + "]\n")
            return
        }
        if !batch.isEmpty {
            print(human.todoTable(batch, layout: &layout, rules: o.query.recurring == true, depths: depths))
        }
        if shown == 0 {
            let what = o.query.status == .all ? "todos" : "\(o.query.status.rawValue) todos"
            print(o.query.isFiltered ? "No \(what) match." : "No \(what).")
            return
        }
        if let total, total > shown {
            print(human.paint("Showing \(shown) of \(total) todos.", HumanOutput.dim))
        }
    }

    /// An import whose connection todod closed (stopped or killed) says what became of it: the
    /// daemon applies an import as one transaction, with its last part, and answers after it
    /// committed; before the last part nothing was applied at all.
    static func importCut(_ error: CLIFailure, last: Bool) -> CLIFailure {
        switch error {
        case .client(.badAnswer(UnixSocketTransport.closed)), .client(.unreachable):
            return .gone(
                last
                    ? "todod closed the connection before it answered the import (stopped or crashed?); an import is one transaction: "
                        + "nothing was imported, unless todod had just finished all of it ('todoctl list' shows which)"
                    : "todod closed the connection in the middle of the import (stopped or crashed?); nothing was imported"
            )
        default:
            return error
        }
    }

    /// After a listing that the configuration's `hide-future-starts` cut: how many todos it left
    /// out (a dim footer, or one line on stderr with `--json`); nothing when it left out none.
    private func sayHiddenStarts(_ query: TodoQuery) throws(CLIFailure) {
        var count = query
        count.tree = false
        count.limit = 0
        count.offset = 0
        let ready = try call(count).total
        count.ready = false
        let hidden = try call(count).total - ready
        guard hidden > 0 else { return }
        let note =
            hidden == 1
            ? "1 todo whose start is to come is hidden by hide-future-starts; --all-starts shows it."
            : "\(hidden) todos whose start is to come are hidden by hide-future-starts; --all-starts shows them."
        if json { err("todoctl: " + note + "\n") } else { print(human.paint(note, HumanOutput.dim)) }
    }

    /// The adjustment of a listing by due date, where it needs one and the listing is short enough
    /// to be read whole (`LocalDayListing.maxRows`; the daemon counts it first) or is a page read
    /// in parts (`LocalDayListing.readsInParts`); longer ones keep the daemon's order of instants.
    private func localDays(_ query: TodoQuery) throws(CLIFailure) -> LocalDayListing? {
        let zones = human.zones
        guard let local = LocalDayListing(query: query, zone: human.timeZone, zones: { zones.zone($0) }) else {
            return nil
        }
        if local.readsInParts { return local }
        var count = local.serverQuery
        count.limit = 0
        guard try call(count).total <= LocalDayListing.maxRows else { return nil }
        return local
    }

    /// The todos of `local` read whole (or, a page by due date, as many of the first as it takes:
    /// `LocalDayListing.readsInParts`), filtered and ordered here.
    private func localDayListing(_ local: LocalDayListing) throws(CLIFailure) -> (
        items: [(json: JSON, todo: Todo)], total: Int
    ) {
        var read = local.firstPart
        while true {
            let (raw, page) = try answer(local.serverQuery(reading: read))
            // The page was read whole: its todos' JSON, for `--json`, pairs with them one to one.
            let items = raw["todos"]?.arrayValue ?? []
            var pairs: [(json: JSON, todo: Todo)] = []
            for (item, todo) in zip(items, page.todos) { pairs.append((item, todo)) }
            guard let part = read else { return local.apply(pairs, todo: \.todo) }
            if page.total <= part || local.settles(pairs, todo: \.todo) {
                return (local.apply(pairs, todo: \.todo).items, page.total)
            }
            if part >= LocalDayListing.maxRows { return (local.daemonOrder(pairs), page.total) }
            read = min(part * 4, LocalDayListing.maxRows)
        }
    }

    /// `list` with due-date filters or sort (`LocalDayListing`).
    private func listByLocalDay(_ o: ListOptions, _ local: LocalDayListing) throws(CLIFailure) {
        let (items, total) = try localDayListing(local)
        if json {
            out("[" + items.map { $0.json.serialized() }.joined(separator: ",") + "]\n")
            return
        }
        if items.isEmpty {
            let what = o.query.status == .all ? "todos" : "\(o.query.status.rawValue) todos"
            print(o.query.isFiltered ? "No \(what) match." : "No \(what).")
            return
        }
        print(human.todoTable(items.map(\.todo), rules: o.query.recurring == true))
        if total > items.count {
            print(human.paint("Showing \(items.count) of \(total) todos.", HumanOutput.dim))
        }
    }

    /// `list --by-category`: sections need every todo before the first line.
    private func listByCategory(_ o: ListOptions) throws(CLIFailure) {
        if let local = try localDays(o.query) {
            let (items, total) = try localDayListing(local)
            return try printByCategory(items.map(\.todo), total: total, o)
        }
        let page = try call(o.query)
        try printByCategory(page.todos, total: page.total, o)
    }

    private func printByCategory(_ list: [Todo], total: Int?, _ o: ListOptions) throws(CLIFailure) {
        if list.isEmpty {
            let what = o.query.status == .all ? "todos" : "\(o.query.status.rawValue) todos"
            print(o.query.isFiltered ? "No \(what) match." : "No \(what).")
            return
        }
        let categories = try call(CategoryListParams())
        print(
            human.todoTable(
                list, sections: Runner.sections(list, categories: categories), rules: o.query.recurring == true))
        if let total, total > list.count {
            print(human.paint("Showing \(list.count) of \(total) todos.", HumanOutput.dim))
        }
    }

    /// Todos grouped by category in category order, then categories the daemon did not list
    /// (in order of appearance), then the uncategorised ones.
    static func sections(_ todos: [Todo], categories: [Category]) -> [(title: String, todos: [Todo])] {
        var groups: [String: [Todo]] = [:]
        var unknownOrder: [String] = []
        var none: [Todo] = []
        let known = Set(categories.map(\.name))
        for todo in todos {
            guard let name = todo.category else {
                none.append(todo)
                continue
            }
            if groups[name] == nil, !known.contains(name) { unknownOrder.append(name) }
            groups[name, default: []].append(todo)
        }
        var result: [(title: String, todos: [Todo])] = []
        for name in categories.sorted(by: { $0.position < $1.position }).map(\.name) + unknownOrder {
            if let group = groups[name], !group.isEmpty { result.append((Table.oneLine(name), group)) }
        }
        if !none.isEmpty { result.append(("(no category)", none)) }
        return result
    }

    /// `edit`. When it reads the todo first (some options need its current due time), the update
    /// carries the revision it read, and `--if-revision` sends the one given: a todo changed by
    /// someone else meanwhile is refused, not overwritten.
    func edit(_ o: EditOptions) throws(CLIFailure) {
        let (patch, read) = try editPatch(o, id: o.id, known: nil)
        let ifRevision = o.ifRevision ?? read?.revision
        let result: (json: JSON, result: Todo)
        do {
            result = try answer(TodoUpdateParams(id: o.id, patch: patch, ifRevision: ifRevision))
        } catch .client(.refused(let error)) where error.code == RPCError.conflictCode && ifRevision != nil {
            throw refusedEdit(o.id, read: ifRevision!, error)
        }
        if json { emit(result.json) } else { print("Updated " + human.summary(result.result)) }
    }

    /// The patch `edit` sends todo `id` for the options `o`, and the todo when it had to be read
    /// (some options need its current due time); `known` is the todo already read.
    func editPatch(_ o: EditOptions, id: Int64, known: Todo?) throws(CLIFailure) -> (TodoPatch, Todo?) {
        var read: Todo? = known
        func current() throws(CLIFailure) -> Todo {
            if let read { return read }
            let todo = try call(TodoGetParams(id: id))
            read = todo
            return todo
        }
        let remind: FieldChange<Instant>
        switch o.remind {
        case .keep: remind = .keep
        case .clear: remind = .clear
        case .at(let instant): remind = .set(instant)
        case .beforeCurrentDue(let usec):
            let current = try current()
            guard let due = current.due else {
                throw .input(
                    "todo \(id) has no due time to count the reminder back from; give --due, or --remind with a time")
            }
            guard let anchor = reminderAnchor(due, allDay: current.allDay, zone: human.zone(named: current.zone), o),
                let instant = TimeExpression.checkedAdd(anchor.usec, -usec)
            else {
                throw .input("the reminder would fall before the year 0001")
            }
            remind = .set(instant)
        case .followDue:
            if case .set(let newDue) = o.due {
                remind = try followingReminder(o, newDue: newDue, current: try current())
            } else {
                remind = .keep
            }
        }
        let patch = try o.patch(
            remind: remind, localZone: human.zoneName, currentDue: { () throws(CLIFailure) in try current().due })
        return (patch, read)
    }

    /// An edit refused because todo `id` is no longer at revision `read`: said plainly, with the
    /// revision it is at now (read again; the daemon's own words if that fails).
    func refusedEdit(_ id: Int64, read: Int64, _ error: RPCError) -> CLIFailure {
        guard let now = try? call(TodoGetParams(id: id)), now.revision != read else { return .client(.refused(error)) }
        return .input(
            "todo \(id) was changed by someone else since you read it (revision \(read), now \(now.revision)); "
                + "nothing was changed — run `todoctl show \(id)` and edit again")
    }

    /// What a reminder counts from: `due`, or for an all-day todo that day (in `zone`) at the morning time.
    func reminderAnchor(_ due: Instant, allDay: Bool, zone: ZoneInfo, _ o: EditOptions) -> Instant? {
        TimeExpression.reminderAnchor(When(instant: due, allDay: allDay), remindTime: o.remindTime, timeZone: zone)
    }

    /// The reminder after `edit --due` without `--remind`: it keeps its lead time before the due
    /// time, where an all-day due counts from its morning time. A todo with a due time but no
    /// reminder keeps none. The daemon keeps the lead time by itself when neither the old nor the
    /// new due is all-day, so then nothing is sent.
    func followingReminder(_ o: EditOptions, newDue: Instant, current: Todo) throws(CLIFailure) -> FieldChange<Instant>
    {
        guard current.allDay || o.dueAllDay else { return .keep }
        guard let newAnchor = reminderAnchor(newDue, allDay: o.dueAllDay, zone: human.timeZone, o) else {
            throw .input("the reminder would fall after the year 9999")
        }
        switch (current.due, current.remind) {
        case (nil, nil): return .set(newAnchor)
        case (nil, _?), (_?, nil): return .keep
        case (let oldDue?, let oldRemind?):
            guard
                let oldAnchor = reminderAnchor(
                    oldDue, allDay: current.allDay, zone: human.zone(named: current.zone), o),
                let moved = newAnchor.checkedAdding(usec: oldRemind.usec - oldAnchor.usec)
            else {
                throw .input(
                    "moving the reminder with the due time would put it outside the years 0001 to 9999; give --remind as well"
                )
            }
            return .set(moved)
        }
    }

    /// `done`, `reopen` and `rm`. With `already` ("done" or "open"), a todo the daemon left as it
    /// was — already in that state — is reported as such, not as changed (exit status 0 either way).
    /// The daemon changes `updated` only when it changes something, so a todo in the wanted state
    /// whose `updated` is older than this command was not changed by it.
    func batch<P: TodoIDsParams>(_ params: P, verb: String, already: String? = nil) throws(CLIFailure) {
        let result: (json: JSON, result: [Todo])
        do { result = try answer(params) } catch {
            // The daemon changes all the ids or none: say so when one of several is refused.
            guard params.ids.count > 1, case .client(.refused(let rpc)) = error else { throw error }
            throw .input(
                rpc.message + "; nothing was changed: none of the \(params.ids.count) todos was \(verb.lowercased())")
        }
        if json {
            emit(result.json)
            return
        }
        var list = result.result
        if already == "done" {
            // A recurring todo moves on to its next occurrence and stays open.
            let advanced = list.filter { !$0.done && $0.recurrence != nil }
            for todo in advanced { print(human.advanced(todo)) }
            // The subtasks of an advanced parent: done with this occurrence, open for the next.
            let reopened = advanced.isEmpty ? [] : list.filter { !$0.done && $0.recurrence == nil }
            if let only = reopened.first, reopened.count == 1 {
                print("Reopened subtask \(only.id) for the next occurrence: \(Table.oneLine(only.title))")
            } else if !reopened.isEmpty {
                print(
                    "Reopened \(reopened.count) subtasks for the next occurrence: \(reopened.map { String($0.id) }.joined(separator: ", "))."
                )
            }
            list.removeAll { !$0.done && ($0.recurrence != nil || !advanced.isEmpty) }
            if list.isEmpty && !advanced.isEmpty { return }
        }
        let unchanged =
            already.map { state in list.filter { $0.done == (state == "done") && $0.updated < human.now } } ?? []
        let changed = list.count - unchanged.count
        if list.count == 1, let only = list.first {
            if let already, !unchanged.isEmpty {
                print("\(only.id) was already \(already): \(Table.oneLine(only.title))")
            } else {
                print("\(verb) \(only.id): \(Table.oneLine(only.title))")
            }
        } else if let already, !unchanged.isEmpty {
            print(
                changed == 0
                    ? "All \(list.count) todos were already \(already)."
                    : "\(verb) \(changed) \(changed == 1 ? "todo" : "todos"); \(unchanged.count) \(unchanged.count == 1 ? "was" : "were") already \(already)."
            )
        } else {
            print("\(verb) \(list.count) todos.")
        }
    }

    func move(_ id: Int64, _ destination: MoveDestination) throws(CLIFailure) {
        let target: MoveTarget
        switch destination {
        case .position(let n): target = .position(Int(n))
        case .before(let other): target = .before(other)
        case .after(let other): target = .after(other)
        case .bottom:
            // Directly after the last open todo (positions count open todos only).
            var last = TodoListParams()
            last.status = .open
            last.sort = [TodoQuery.SortKey(.position, descending: true)]
            last.limit = 1
            let page = try call(last)
            target = page.todos.first.map { $0.id == id ? .position(page.total) : .after($0.id) } ?? .position(1)
        }
        let (raw, t) = try answer(TodoMoveParams(id: id, target: target))
        if json {
            emit(raw)
        } else {
            if let position = t.position {
                print("Moved \(t.id) to position \(position).")
            } else {
                print("Moved \(t.id); it is done, so it has no position until it is reopened.")
            }
        }
    }

    /// `body`, with a refusal for a category that does not exist given the closest existing name.
    func suggestingCategory(_ name: String?, _ body: () throws(CLIFailure) -> Void) throws(CLIFailure) {
        do { try body() } catch {
            guard let name, case .client(.refused(let rpc)) = error, rpc.code == RPCError.notFoundCode,
                let categories = try? call(CategoryListParams()),
                let hint = Suggestion.closest(to: name, in: categories.map(\.name))
            else { throw error }
            throw .input(rpc.message + "; did you mean \(TimeExpression.quoted(hint))?")
        }
    }

    func category(_ sub: CategoryCommand) throws(CLIFailure) {
        switch sub {
        case .rename(let name, _), .move(let name, _):
            try suggestingCategory(name) { () throws(CLIFailure) in try categoryChange(sub) }
        case .remove(let name, let force):
            do {
                try suggestingCategory(name) { () throws(CLIFailure) in try categoryChange(sub) }
            } catch {
                // Name the option that does it.
                guard !force, case .client(.refused(let rpc)) = error, rpc.code == RPCError.conflictCode else {
                    throw error
                }
                let count = ((try? call(CategoryListParams())) ?? [])
                    .first { $0.name.lowercased() == name.lowercased() }
                    .map { $0.open + $0.done }
                let what = count.map { "still has \(Runner.count($0, "todo"))" } ?? "still has todos"
                throw .input(
                    "category \(TimeExpression.quoted(name)) \(what); 'todoctl category rm \(Table.oneLine(name)) --force' deletes it "
                        + "and leaves its todos without a category")
            }
        default:
            try categoryChange(sub)
        }
    }

    private func categoryChange(_ sub: CategoryCommand) throws(CLIFailure) {
        switch sub {
        case .list:
            let (raw, categories) = try answer(CategoryListParams())
            if json {
                emit(raw)
                return
            }
            print(categories.isEmpty ? ["No categories."] : human.categoryTable(categories))
            return
        case .add(let name):
            let (raw, c) = try answer(CategoryAddParams(name: name))
            if json { emit(raw) } else { print("Added category \(Table.oneLine(c.name)).") }
        case .rename(let name, let newName):
            let (raw, c) = try answer(CategoryRenameParams(name: name, newName: newName))
            if json { emit(raw) } else { print("Renamed category \(Table.oneLine(name)) to \(Table.oneLine(c.name)).") }
        case .remove(let name, let force):
            let (raw, c) = try answer(CategoryDeleteParams(name: name, force: force))
            if json {
                emit(raw)
                return
            }
            let unlinked = c.open + c.done
            print(
                "Deleted category \(Table.oneLine(c.name))."
                    + (unlinked > 0 ? " \(unlinked) \(unlinked == 1 ? "todo is" : "todos are") now uncategorised." : "")
            )
        case .move(let name, let position):
            let (raw, c) = try answer(CategoryMoveParams(name: name, position: position))
            if json {
                emit(raw)
            } else {
                print("Moved category \(Table.oneLine(c.name)) to position \(c.position).")
            }
        }
    }

    /// The daemon's default and largest `reminder.list` limits (PROTOCOL.md).
    static let defaultReminderLimit = ReminderListParams.defaultLimit
    static let maxReminderLimit = ReminderListParams.maxLimit

    /// `reminders`. Human output asks for one more than it shows, to say when older reminders
    /// were left out; `--json` prints the daemon's answer to the limit as given.
    func reminders(since: Instant?, limit: Int?) throws(CLIFailure) {
        let shown = limit ?? Runner.defaultReminderLimit
        var (raw, items) = try answer(
            ReminderListParams(since: since, limit: json ? limit : min(shown + 1, Runner.maxReminderLimit)))
        if json {
            emit(raw)
            return
        }
        if items.isEmpty {
            print(
                "No reminders have fired" + (since.map { " since " + LocalTime($0, in: human.timeZone).text } ?? "")
                    + ".")
            return
        }
        // Oldest first: the extra one, if any, is the oldest.
        let more = items.count > shown
        if more { items.removeFirst(items.count - shown) }
        var reminders: [HumanOutput.Reminder] = []
        for item in items {
            do { reminders.append(try HumanOutput.Reminder(item)) } catch { throw Runner.bad(error.description) }
        }
        print(human.reminderTable(reminders))
        if more {
            let hint = shown < Runner.maxReminderLimit ? " (--limit N shows up to \(Runner.maxReminderLimit))" : ""
            print(
                human.paint(
                    "Showing the latest \(Runner.count(shown, "reminder")); older ones were left out\(hint).",
                    HumanOutput.dim))
        } else if shown == Runner.maxReminderLimit && items.count == shown {
            print(
                human.paint(
                    "Showing the latest \(Runner.count(shown, "reminder")); there may be older ones (--since WHEN).",
                    HumanOutput.dim))
        }
    }

    /// `undo` / `redo`: one line saying what was reverted or applied again.
    func undo(steps: Int, redo: Bool) throws(CLIFailure) {
        let (raw, result) = redo ? try answer(StoreRedoParams(steps: steps)) : try answer(StoreUndoParams(steps: steps))
        if json {
            emit(raw)
            return
        }
        let description = result.description
        print((redo ? "Redid: " : "Undid: ") + Table.oneLine(description))
        // Fewer changes than asked for: say so, so `redo 2` with one left is not taken for two.
        if case let done = result.changes.count, done < steps {
            print(
                "Only \(Runner.count(done, "change")) could be \(redo ? "redone" : "undone") of the \(steps) asked for: there was nothing more to \(redo ? "redo" : "undo")."
            )
        }
        // A change todod-sync made (`sync NAME: ...`) came from another device: say so.
        if !redo, description.hasPrefix("sync "), let colon = description.firstIndex(of: ":") {
            let account = description[description.index(description.startIndex, offsetBy: 5)..<colon]
            print(
                human.paint(
                    "That change came from the server of sync account \(Table.oneLine(String(account))) (another device's edit); "
                        + "the next sync round sends the undo there too.", HumanOutput.dim))
        }
    }

    /// "1 reminder", "2 reminders".
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `undo --list`: the recent changes, newest first.
    func history(limit: Int?) throws(CLIFailure) {
        let (raw, entries) = try answer(StoreHistoryParams(limit: limit))
        if json {
            emit(raw)
            return
        }
        if entries.isEmpty {
            print("No changes in the log.")
            return
        }
        print(human.historyTable(entries))
    }

    /// `watch [--since SEQ] [--reconnect]`: with `since`, the events of the changes after it come
    /// first (the daemon replays them), then the live ones. When todod goes away it ends with a
    /// one-line message and exit 69; with `reconnect` it waits for todod to come back and
    /// resumes after the last seq it printed, so no change is missed or repeated.
    func watch(since: Int64?, reconnect: Bool) throws(CLIFailure) {
        var since = since
        var transport = self.transport
        while true {
            var lost = "it closed the connection"
            do {
                try transport.watch(WatchParams(since: since)) { event in
                    if let seq = WatchEvent(params: event).seq { since = max(since ?? seq, seq) }
                    if json {
                        emit(event)
                        return true
                    }
                    var seen = human
                    seen.now = clock() // "in 3m" and "overdue" as of this event, not of the start
                    print(seen.event(event))
                    return true
                }
            } catch {
                switch error {
                case .unreachable(_, let reason) where reconnect: lost = reason
                case .timedOut where reconnect: lost = "it stopped answering"
                default: throw .client(error)
                }
            }
            guard reconnect, let connect else {
                throw .gone("todod at \(socket) went away (\(lost)); 'watch --reconnect' waits for it to come back")
            }
            if !json {
                print(
                    human.paint(
                        "todod went away (\(Table.oneLine(lost))); waiting for it to come back", HumanOutput.dim))
            }
            var delay: UInt32 = 100_000
            while true {
                usleep(delay)
                if let again = try? connect() {
                    transport = again
                    break
                }
                delay = min(delay * 2, 2_000_000)
            }
        }
    }
}
