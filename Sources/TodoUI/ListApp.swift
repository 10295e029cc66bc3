import TodoCLI
import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoTerminal
import TodoTime
import TodoUserFiles

#if canImport(Glibc)
    import Glibc
#endif

/// `todoctl ui`: the open todos as a list the user moves through and edits in place, kept live
/// by the daemon's `watch` stream (docs/UI.md).
///
/// Only the rows on screen, and a page either side, are read (`todo.list` with `limit` and
/// `offset`), so the size of the store does not matter. The selection is a todo (its uid), not a
/// row: whatever moves, it stays on that todo while the todo is in the rows read, and on the row
/// it was on when the todo left the list. Each key that changes something is one todoctl command
/// run in this process (one request to todod), so errors read as todoctl's do; they show as one
/// line in the status bar.
final class ListApp {
    struct Environment {
        var socket: String
        var variables: [String: String]
        var timeZone: ZoneInfo
        var zoneName: String?
    }

    enum PromptKind: Equatable {
        case add
        case edit(Int64)
        case category(Int64)
        case snooze(Int64)
        case filter, command
    }

    private let environment: Environment
    private let terminal: Terminal
    private let keys: KeyBindings
    private var transport: UnixSocketTransport?
    private var watch: DaemonWatch?
    private var retryAt = 0.0

    // What is shown.
    private static let sorts: [TodoQuery.SortField?] = [
        nil, .due, .priority, .title, .created, .updated, .id, .category, .start
    ]
    private var sortIndex = 0
    private var descending = false
    private var showDone = false
    private var filter = ""
    private var detailsShown = true
    /// Rows grouped under a line per category (the listing sorted by category first).
    private var sections = false
    /// Only this category (`.some(nil)`: only todos without one); nil: all.
    private var category: String??
    /// The category pane while it is open: the categories with their counts, and the row chosen
    /// (0 is "All", 1 "No category").
    private var pane: (categories: [Category], row: Int)?
    private var helpShown = false
    private var helpTop = 0

    // The rows read: `rows[i]` is row `windowStart + i` of the listing of `total`.
    private var rows: [Todo] = []
    private var windowStart = 0
    /// Whether nothing changed since the rows were read (then a window next to them is read
    /// from one of them, by its sort values).
    private var rowsCurrent = false
    private var total = 0
    private var top = 0
    private var cursor = 0
    private var selectedUID: String?
    /// The id of the selected todo, to find it again when it moved out of the rows read.
    private var selectedID: Int64?
    private var marked: Set<Int64> = []
    /// The parents whose subtasks are folded away, by uid (kept across every reading of the
    /// list), and what the rows read have told of each todo's parent and uid.
    private var folded: Set<String> = []
    private var parents: [Int64: Int64?] = [:]
    private var uids: [Int64: String] = [:]
    /// With the mouse on: which listing row each screen line shows, as last drawn.
    private let mouse: Bool
    private var screenRows: [Int: Int] = [:]

    private var prompt: (kind: PromptKind, editor: LineEditor)?
    private var status: (text: String, error: Bool)?
    private var quit = false

    init(environment: Environment, config: Config, terminal: Terminal, keys: KeyBindings, problems: [String]) {
        self.environment = environment
        self.terminal = terminal
        self.keys = keys
        mouse = config.uiMouse
        if let first = problems.first { status = (first, true) }
        if let sort = config.sort?.first {
            sortIndex = Self.sorts.firstIndex(of: sort.field == .position ? nil : sort.field) ?? 0
            descending = sort.descending
        }
    }

    // MARK: The loop

    /// Runs until `q`; returns the exit status.
    func run() -> Int32 {
        connect()
        draw()
        while !quit {
            var fds = [
                pollfd(fd: terminal.inputDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: terminal.resizeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: terminal.stopDescriptor, events: Int16(POLLIN), revents: 0)
            ]
            if let watch { fds.append(pollfd(fd: watch.descriptor, events: Int16(POLLIN), revents: 0)) }
            let timeout: Double? = watch == nil ? max(0.05, retryAt - Posix.monotonicSeconds()) : nil
            _ = try? EventWait.wait(&fds, timeoutUsec: timeout.map { UInt64($0 * 1e6) })
            trace("woke")
            var dirty = false
            while let key = terminal.readKey() {
                handle(key)
                dirty = true
                if quit { break }
            }
            if let signal = terminal.stopSignal { return 128 + signal }
            if quit { break }
            if let watch {
                if fds.count > 3 && fds[3].revents != 0 {
                    trace("watch readable")
                    guard let items = watch.read() else {
                        lost("todod went away")
                        draw()
                        continue
                    }
                    var changed = false
                    for item in items {
                        switch item {
                        case .changed: changed = true
                        case .reminder(let titles):
                            status = ("⏰ " + titles.map(ListRendering.safe).joined(separator: ", "), false)
                        }
                    }
                    trace("watch read")
                    if changed { reload() }
                    trace("reloaded")
                    dirty = dirty || !items.isEmpty
                }
            } else if Posix.monotonicSeconds() >= retryAt {
                connect()
                dirty = true
            }
            if dirty {
                draw()
                trace("drawn")
            }
        }
        return 0
    }

    /// With `TODOCTL_UI_TRACE=FILE`: each step of the loop with the monotonic time, in µs.
    private lazy var traceFile: Int32? = environment.variables["TODOCTL_UI_TRACE"].map {
        open($0, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    }
    private func trace(_ what: String) {
        guard let fd = traceFile, fd >= 0 else { return }
        let line = "\(Int64(Posix.monotonicSeconds() * 1e6)) \(what)\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
    }

    /// (Re)connects: the request socket and the `watch` subscription, then reads the list.
    private func connect() {
        do {
            transport = try UnixSocketTransport(path: environment.socket, timeout: UnixSocketTransport.defaultTimeout)
            watch = try DaemonWatch(socket: environment.socket)
            if status?.text.hasPrefix("todod") == true { status = ("todod is back", false) }
            reload()
        } catch {
            lost("todod is not running at \(environment.socket)")
        }
    }

    private func lost(_ why: String) {
        transport = nil
        watch = nil
        retryAt = Posix.monotonicSeconds() + 1
        status = (why + "; waiting for it to come back", true)
    }

    // MARK: Reading the list

    private var listHeight: Int { max(1, terminal.rows - 3 - detailsHeight) }
    private var detailsHeight: Int { detailsShown && terminal.rows >= 16 ? min(10, terminal.rows / 3) : 0 }

    private var query: TodoQuery {
        var q = TodoQuery()
        q.status = showDone ? .all : .open
        if let field = Self.sorts[sortIndex] {
            q.sort = [TodoQuery.SortKey(field, descending: descending)]
        } else if descending {
            q.sort = [TodoQuery.SortKey(.position, descending: true)]
        }
        if sections && Self.sorts[sortIndex] != .category { q.sort.insert(TodoQuery.SortKey(.category), at: 0) }
        switch category {
        case .some(.some(let name)): q.category = name
        case .some(.none): q.uncategorized = true
        case .none: break
        }
        // A leading `=` asks for the text exactly as typed (no case, width or kana folding).
        let exact = filter.hasPrefix("=")
        let search = Validation.trimmed(exact ? String(filter.dropFirst()) : filter)
        if !search.isEmpty {
            q.search = search
            if exact { q.searchMode = .exact }
        }
        return q
    }

    /// Reads the rows around the top of the screen again and puts the selection back on its todo.
    /// `scrolling`: only the place in the list moved since the rows were read (nothing changed,
    /// the query is the same), so a window next to them may be read from one of them.
    private func reload(scrolling: Bool = false) {
        if !scrolling { rowsCurrent = false }
        guard let transport else { return }
        let page = listHeight
        let start = max(0, top - page)
        // Deep in an order only an offset walk would reach (not the manual order nor by id, read
        // from their end): after a change, read around the selected todo by two keyset windows,
        // which cost the daemon the same wherever it is, keeping it on the same screen line.
        let field = Self.sorts[sortIndex]
        if !scrolling, start > Self.deepRow, sections || !(field == nil || field == .id), selectedUID != nil {
            if follow(line: cursor - top) {
                trace("read around the selection")
                settle()
                return
            }
            // The selected todo left the list (done, deleted or filtered out elsewhere): around
            // the nearest todo after it (else before it) still listed, which takes its place;
            // several left at once (a batch elsewhere) are passed over, up to `neighbours` each way.
            let nearest = (1...Self.neighbours).flatMap { [todo(at: cursor + $0), todo(at: cursor - $0)] }
            for neighbour in nearest.compactMap({ $0 })
            where follow(id: neighbour.id, uid: neighbour.uid, line: cursor - top) {
                trace("read around the selection's neighbour")
                settle()
                return
            }
        }
        do {
            let result = try readWindow(start: start, count: page * 3, transport: transport)
            rows = result.todos
            total = result.total
            windowStart = start
            rowsCurrent = true
            for todo in rows {
                parents[todo.id] = .some(todo.parent)
                uids[todo.id] = todo.uid
            }
        } catch {
            if case .refused = error {
                status = (describe(error), true)
            } else {
                lost("todod went away")
            }
            return
        }
        if let uid = selectedUID, let i = rows.firstIndex(where: { $0.uid == uid }) {
            cursor = windowStart + i
        } else if selectedUID != nil && follow() {
            // The selected todo moved beyond the rows read: the rows around it were read.
        }
        settle()
    }

    /// Past this row an offset walk costs the daemon more than two keyset windows.
    private static let deepRow = 1000

    /// How far on each side of a selected todo that left the list its successor is looked for
    /// (each look two keyset windows, about a millisecond) before the rows are read by offset.
    private static let neighbours = 8

    /// Puts the cursor back in the list and on screen after a reading.
    private func settle() {
        cursor = max(0, min(cursor, total - 1))
        while cursor > 0 && isHidden(at: cursor) { cursor -= 1 } // inside a fold: on its parent
        scrollToCursor()
        selectedUID = todo(at: cursor)?.uid
        selectedID = todo(at: cursor)?.id
    }

    /// The rows `start..<start + count` of the listing. Rows that reach its end (`G`, End) are
    /// its last rows (`todo.list` `fromEnd`), read walking the order backwards from the end in
    /// any order: at 100,000 that costs what the top does. In the second half of an order whose
    /// reverse is exact (manual, id: one unique key), they are read from the end in the reverse
    /// order, so the daemon's `offset` walk is never longer than half the list. When the total
    /// changed meanwhile, read again from the start.
    private func readWindow(start: Int, count: Int, transport: UnixSocketTransport) throws(ClientError) -> TodoPage {
        var q = query
        // Next to rows read since the last change: a keyset window from the row just before it
        // (or just after it), which costs the daemon the same wherever it is in the list.
        if rowsCurrent, start > 0, let anchor = todo(at: start - 1) {
            var next = q
            next.seek = .init(after: anchor.id)
            next.limit = count
            let page = try transport.call(next)
            if page.total == total { return page }
        } else if rowsCurrent, let anchor = todo(at: start + count), count > 0 {
            var previous = q
            previous.seek = .init(before: anchor.id)
            previous.limit = count
            let page = try transport.call(previous)
            if page.total == total && page.todos.count == count { return page }
        }
        if total > 1, start > total / 2, start + count >= total {
            var last = q
            last.seek = .end
            last.limit = total - start
            let page = try transport.call(last)
            trace("read the last rows")
            if page.total == total { return page }
            total = page.total // changed meanwhile: the last rows are no longer those from `start`
        }
        let field = Self.sorts[sortIndex]
        if total > 1, start > total / 2, !sections, field == nil || field == .id {
            let end = min(total, start + count)
            var reversed = q
            reversed.sort = [TodoQuery.SortKey(field ?? .position, descending: !descending)]
            reversed.offset = total - end
            reversed.limit = max(0, end - start)
            let result = try transport.call(reversed)
            if result.total == total { return TodoPage(todos: result.todos.reversed(), total: result.total) }
            total = result.total // changed meanwhile: the offset from the end no longer says the same rows
        }
        q.offset = start
        q.limit = count
        return try transport.call(q)
    }

    /// Reads the rows around the selected todo when it moved beyond the rows read (another client
    /// sent it to the other end of 100,000), in any order and with any filter: the page before it
    /// (`todo.list` `before` its id, with the count of the todos ahead), then the rows from it
    /// on (`after` the last of those). Two keyset windows, each a seek in an index. False when it
    /// is no longer in the list (completed, deleted, filtered out).
    private func follow(line: Int? = nil) -> Bool {
        guard let id = selectedID, let uid = selectedUID else { return false }
        return follow(id: id, uid: uid, line: line)
    }

    /// `follow` for the todo `id` (whose uid is `uid`), which the cursor goes to.
    private func follow(id: Int64, uid: String, line: Int?) -> Bool {
        guard let transport else { return false }
        let page = listHeight
        do {
            var before = query
            before.seek = .init(before: id)
            before.limit = page
            before.withOffset = true
            let ahead = try transport.call(before)
            guard let offset = ahead.offset else { return false }
            var after = query
            if let last = ahead.todos.last { after.seek = .init(after: last.id) }
            after.limit = 2 * page + 1
            let from = try transport.call(after)
            guard from.todos.first?.uid == uid else { return false }
            rows = ahead.todos + from.todos
            total = from.total
            windowStart = offset
            rowsCurrent = true
            for todo in rows {
                parents[todo.id] = .some(todo.parent)
                uids[todo.id] = todo.uid
            }
            cursor = offset + ahead.todos.count
            top = max(0, cursor - min(max(0, line ?? page / 2), page - 1))
            return true
        } catch {
            return false
        }
    }

    /// Whether row `index` is inside a folded parent (a todo above it whose subtasks are folded).
    private func isHidden(at index: Int) -> Bool {
        guard !folded.isEmpty, let todo = todo(at: index) else { return false }
        return isHidden(todo)
    }

    private func isHidden(_ todo: Todo) -> Bool {
        guard !folded.isEmpty else { return false }
        var parent = todo.parent
        var steps = 0
        while let id = parent, steps < 1000 {
            if let uid = uids[id], folded.contains(uid) { return true }
            parent = parents[id] ?? nil
            steps += 1
        }
        return false
    }

    /// Moves the selection `delta` shown rows (folded ones are passed over).
    private func move(by delta: Int) {
        var index = cursor
        var left = abs(delta)
        while left > 0 {
            let next = index + (delta > 0 ? 1 : -1)
            guard next >= 0 && next < total else { break }
            index = next
            if !isHidden(at: index) { left -= 1 }
        }
        select(index)
    }

    private func todo(at index: Int) -> Todo? {
        let i = index - windowStart
        return i >= 0 && i < rows.count ? rows[i] : nil
    }

    private var selected: Todo? { todo(at: cursor) }

    /// Moves the cursor to `index` (clamped), scrolling and reading more rows when needed.
    private func select(_ index: Int) {
        cursor = max(0, min(index, total - 1))
        scrollToCursor()
        // Rows on screen that were not read: read around the new top.
        if total > 0 && (todo(at: top) == nil || todo(at: min(total - 1, top + listHeight - 1)) == nil) {
            selectedUID = nil
            reload(scrolling: true)
        }
        while cursor > 0 && isHidden(at: cursor) { cursor -= 1 }
        selectedUID = todo(at: cursor)?.uid
        selectedID = todo(at: cursor)?.id
    }

    private func scrollToCursor() {
        let height = listHeight
        if cursor < top { top = cursor }
        if cursor >= top + height { top = cursor - height + 1 }
        top = max(0, min(top, max(0, total - height)))
        // With sections, the category lines take room too, and folded rows none: the cursor's
        // row must still fit.
        while (sections || !folded.isEmpty) && top < cursor && linesNeeded(from: top, to: cursor) > height { top += 1 }
    }

    /// Screen lines the rows `from...to` take with their section lines.
    private func linesNeeded(from first: Int, to last: Int) -> Int {
        var lines = 0
        var previous: String?
        for index in first...last where !isHidden(at: index) {
            let category = todo(at: index)?.category
            if index == first || category != previous { lines += 1 }
            previous = category
            lines += 1
        }
        return lines
    }

    // MARK: Keys

    func handle(_ key: Key) {
        if key == .resize {
            scrollToCursor()
            reload()
            return
        }
        switch key {
        case .click(let row, _):
            // A click selects the row under it (and closes the help); elsewhere it does nothing.
            if helpShown {
                helpShown = false
            } else if prompt == nil && pane == nil, let index = screenRows[row] {
                select(index)
            }
            return
        case .wheelUp, .wheelDown:
            if helpShown {
                helpTop = max(0, helpTop + (key == .wheelUp ? -3 : 3))
            } else if prompt == nil && pane == nil {
                move(by: key == .wheelUp ? -3 : 3)
            }
            return
        default: break
        }
        if helpShown {
            switch keys.action(for: key) {
            case .down?: helpTop += 1
            case .up?: helpTop = max(0, helpTop - 1)
            default:
                helpShown = false
                helpTop = 0
            }
            return
        }
        if prompt != nil { return promptKey(key) }
        if pane != nil { return paneKey(key) }
        if key == .escape {
            if !marked.isEmpty { marked = [] } else if !filter.isEmpty { setFilter("") }
            status = nil
            return
        }
        guard let action = keys.action(for: key) else {
            if case .character(let c) = key, c != " " {
                status = ("'\(ListRendering.safe(String(c)))' does nothing; ? lists the keys", true)
            }
            return
        }
        perform(action)
    }

    private func perform(_ action: Action) {
        status = nil
        switch action {
        case .down: move(by: 1)
        case .up: move(by: -1)
        case .pageDown: move(by: listHeight)
        case .pageUp: move(by: -listHeight)
        case .first: select(0)
        case .last: select(total - 1)
        case .toggleDone:
            let ids = targets()
            guard !ids.isEmpty else { return }
            let allDone = ids.allSatisfy { id in rows.first { $0.id == id }?.done == true }
            run([allDone ? "reopen" : "done"] + ids.map(String.init))
            marked = []
        case .delete:
            let ids = targets()
            guard !ids.isEmpty else { return }
            run(
                ["rm"] + ids.map(String.init)
                    + (ids.contains { id in rows.first { $0.id == id }?.subtasks.isEmpty == false }
                        ? ["--recursive"] : []))
            marked = []
        case .add: prompt = (.add, LineEditor())
        case .edit:
            guard let todo = selected else { return }
            prompt = (.edit(todo.id), LineEditor(todo.title))
        case .category:
            guard let todo = selected else { return }
            prompt = (.category(todo.id), LineEditor(todo.category ?? ""))
        case .snooze:
            guard let todo = selected else { return }
            run(["snooze", String(todo.id)])
        case .snoozeUntil:
            guard let todo = selected else { return }
            prompt = (.snooze(todo.id), LineEditor())
        case .moveDown, .moveUp:
            guard let todo = selected else { return }
            guard Self.sorts[sortIndex] == nil && !descending else {
                status = ("J and K move in the manual order: press s until the sort is manual", true)
                return
            }
            guard let neighbour = self.todo(at: cursor + (action == .moveDown ? 1 : -1)) else { return }
            run(["move", String(todo.id), action == .moveDown ? "--after" : "--before", String(neighbour.id)])
        case .indent:
            guard let todo = selected, let above = self.todo(at: cursor - 1) else { return }
            run(["edit", String(todo.id), "--parent", String(above.parent == nil ? above.id : above.parent!)])
        case .outdent:
            guard let todo = selected, todo.parent != nil else { return }
            run(["edit", String(todo.id), "--no-parent"])
        case .undo, .redo:
            // The selection goes to the todo the step brought back or changed.
            let answer = run([action == .undo ? "undo" : "redo"], json: true)
            if case .array(let todos)? = answer?["todos"], let uid = todos.first?["uid"]?.stringValue {
                selectedUID = uid
                reload()
            }
        case .mark:
            guard let todo = selected else { return }
            if marked.remove(todo.id) == nil { marked.insert(todo.id) }
            move(by: 1)
        case .filter: prompt = (.filter, LineEditor(filter))
        case .command: prompt = (.command, LineEditor())
        case .sort:
            sortIndex = (sortIndex + 1) % Self.sorts.count
            descending = false
            reload()
        case .reverse:
            descending.toggle()
            reload()
        case .showDone:
            showDone.toggle()
            reload()
        case .details:
            detailsShown.toggle()
            scrollToCursor()
            reload()
        case .help: helpShown = true
        case .quit: quit = true
        case .refresh:
            reload()
        case .categories:
            guard let transport else { return }
            do {
                let categories = try transport.call(CategoryListParams())
                let row: Int
                switch category {
                case .some(.some(let name)): row = 2 + (categories.firstIndex { $0.name == name } ?? -2)
                case .some(.none): row = 1
                case .none: row = 0
                }
                pane = (categories, row)
            } catch {
                status = (describe(error), true)
            }
        case .sections:
            sections.toggle()
            reload()
        case .fold:
            guard let todo = selected else { return }
            if !todo.subtasks.isEmpty {
                if folded.remove(todo.uid) == nil { folded.insert(todo.uid) }
            } else if let parent = todo.parent, let uid = uids[parent] {
                folded.insert(uid) // folds the subtask's parent, which takes the selection
                while cursor > 0 && isHidden(at: cursor) { cursor -= 1 }
            } else {
                status = ("it has no subtasks to fold", true)
                return
            }
            select(cursor)
        case .editor:
            guard let todo = selected else { return }
            // The editor gets the terminal; the list redraws when it ends.
            terminal.suspend()
            run(["edit", String(todo.id)], onTerminal: true)
            terminal.resume()
        }
    }

    /// A key while the category pane is open: move, choose (enter), close (escape).
    private func paneKey(_ key: Key) {
        guard case (let categories, var row)? = pane else { return }
        let count = categories.count + 2
        switch key {
        case .escape: pane = nil
        case .enter:
            pane = nil
            category = row == 0 ? nil : row == 1 ? .some(nil) : .some(categories[row - 2].name)
            selectedUID = nil
            cursor = 0
            top = 0
            reload()
            return
        default:
            switch keys.action(for: key) {
            case .down?: row = min(count - 1, row + 1)
            case .up?: row = max(0, row - 1)
            case .first?: row = 0
            case .last?: row = count - 1
            case .quit?, .categories?: pane = nil
            default: break
            }
            if pane != nil { pane = (categories, row) }
        }
    }

    /// The marked todos, else the selected one.
    private func targets() -> [Int64] {
        marked.isEmpty ? selected.map { [$0.id] } ?? [] : marked.sorted()
    }

    private func promptKey(_ key: Key) {
        guard let (kind, current) = prompt else { return }
        var editor = current
        switch key {
        case .escape:
            prompt = nil
            if kind == .filter { setFilter("") }
        case .enter:
            prompt = nil
            submit(kind, Validation.trimmed(editor.text))
        default:
            if editor.handle(key) {
                prompt = (kind, editor)
                if kind == .filter { setFilter(editor.text) }
            }
        }
    }

    private func setFilter(_ text: String) {
        filter = text
        reload()
    }

    private func submit(_ kind: PromptKind, _ text: String) {
        switch kind {
        case .filter:
            setFilter(text)
        case .add:
            guard !text.isEmpty else { return }
            guard let (title, options) = titleAndOptions(text) else { return }
            let below = selected
            var arguments = ["add", title] + options
            if let parent = below?.parent, !options.contains("--parent") { arguments += ["--parent", String(parent)] }
            // Below the selection in the manual order, in the same request (todo.add `after`).
            if let below,
                Self.sorts[sortIndex] == nil && !descending && !options.contains("--top")
                    && !options.contains("--after")
            {
                arguments += ["--after", String(below.id)]
            }
            guard let answer = run(arguments, json: true), let uid = answer["uid"]?.stringValue else { return }
            selectedUID = uid
            selectedID = answer["id"]?.intValue
            reload()
        case .edit(let id):
            guard !text.isEmpty else { return }
            if text.hasPrefix("--") {
                guard case .success(let words) = ShellWords.split(text) else {
                    return fail("the options are not closed (a quote is missing)")
                }
                run(["edit", String(id)] + words)
            } else {
                run(["edit", String(id), "--title", text])
            }
        case .category(let id):
            run(["edit", String(id)] + (text.isEmpty ? ["--no-category"] : ["--category", text]))
        case .snooze(let id):
            // A duration (`2h`) or any WHEN (`tomorrow 9am`, `明日の朝`); empty: the configured one.
            run(["snooze", String(id)] + (text.isEmpty ? [] : [text]))
        case .command:
            guard !text.isEmpty else { return }
            guard case .success(var words) = ShellWords.split(text) else {
                return fail("the command is not closed (a quote is missing)")
            }
            if words.first == "todoctl" { words.removeFirst() }
            if words.first == "ui" { return fail("todoctl ui is already running") }
            if words.first == "watch" { return fail("watch runs until stopped: run it in another terminal") }
            run(words)
        }
    }

    /// `TITLE [--option ...]`: the title is everything before the first ` --`.
    private func titleAndOptions(_ text: String) -> (String, [String])? {
        let characters = Array(text)
        guard
            let dash = (0..<max(0, characters.count - 2)).first(where: {
                characters[$0] == " " && characters[$0 + 1] == "-" && characters[$0 + 2] == "-"
            })
        else {
            return (text, [])
        }
        let title = Validation.trimmed(String(characters[..<dash]))
        guard case .success(let words) = ShellWords.split(String(characters[(dash + 1)...])) else {
            fail("the options are not closed (a quote is missing)")
            return nil
        }
        return (title, words)
    }

    private func fail(_ message: String) { status = (message, true) }

    /// Runs one todoctl command in this process (one request to todod, as todoctl makes it);
    /// its first line of output, or its error, goes to the status bar. With `json`, returns what
    /// it printed as JSON.
    @discardableResult
    private func run(_ arguments: [String], json: Bool = false, quiet: Bool = false, onTerminal: Bool = false) -> JSON?
    {
        var out = ""
        var err = ""
        var variables = environment.variables
        variables["NO_COLOR"] = "1" // the first line goes to the status bar as text
        let code = CLI.main(
            arguments: ["--socket", environment.socket] + (json ? ["--json"] : []) + arguments,
            environment: variables, uid: getuid(), isTerminal: onTerminal, terminalWidth: nil,
            now: Instant.now(), timeZone: self.environment.timeZone, zoneName: self.environment.zoneName,
            stdout: { out += $0 }, stderr: { err += $0 },
            connect: { (path: String) throws(ClientError) -> any RPCTransport in try UnixSocketTransport(path: path) })
        let lines = { (text: String) in
            text.split(separator: "\n").map(String.init).filter { !Validation.trimmed($0).isEmpty }
        }
        let answer = code == 0 && json ? try? JSON.parse(Array(out.utf8)) : nil
        if code != 0 {
            status = (
                lines(err).first.map(ListRendering.safe) ?? "todoctl \(arguments.first ?? "") failed (\(code))", true
            )
        } else if !quiet {
            status = (
                json
                    ? Self.confirmation(arguments, answer)
                    : lines(out).first.map(ListRendering.safe) ?? lines(err).first.map(ListRendering.safe) ?? "done",
                false
            )
        }
        reload()
        return answer
    }

    private static func confirmation(_ arguments: [String], _ answer: JSON?) -> String {
        switch arguments.first {
        case "add": return "Added " + ListRendering.safe(arguments.count > 1 ? arguments[1] : "")
        case "undo": return "Undid: " + ListRendering.safe(answer?["description"]?.stringValue ?? "")
        case "redo": return "Redid: " + ListRendering.safe(answer?["description"]?.stringValue ?? "")
        default: return "done"
        }
    }

    private func describe(_ error: ClientError) -> String { ListRendering.safe("\(error)") }

    // MARK: Drawing

    func draw() {
        terminal.erase()
        let width = terminal.columns
        let now = Instant.now()
        let rendering = ListRendering(now: now, timeZone: environment.timeZone, width: max(20, width - 2))
        // The bar on top.
        let sortName = Self.sorts[sortIndex].map(\.rawValue) ?? "manual"
        var bar = " todod · \(total) \(showDone ? "todos" : "open") · sort: \(sortName) \(descending ? "↓" : "↑")"
        switch category {
        case .some(.some(let name)): bar += " · " + ListRendering.safe(name)
        case .some(.none): bar += " · no category"
        case .none: break
        }
        if sections { bar += " · sections" }
        if !filter.isEmpty { bar += " · /" + ListRendering.safe(filter) }
        if !marked.isEmpty { bar += " · \(marked.count) marked" }
        let hint = "? help "
        bar = TerminalText.truncate(bar, to: max(0, width - TerminalText.width(hint) - 1))
        let barStyle = Style(reverse: true)
        terminal.put(bar, row: 0, column: 0, style: barStyle)
        terminal.fill(row: 0, from: TerminalText.width(bar), style: barStyle)
        terminal.put(hint, row: 0, column: max(0, width - TerminalText.width(hint)), style: barStyle)

        if helpShown { return drawHelp() }

        // The rows from the top that fit, folded ones left out.
        var visibleIndices: [Int] = []
        var index = top
        while index < total && visibleIndices.count < listHeight, todo(at: index) != nil {
            if !isHidden(at: index) { visibleIndices.append(index) }
            index += 1
        }
        let visible = visibleIndices.compactMap { todo(at: $0) }
        screenRows = [:]
        var depths: [Int64: Int] = [:]
        for todo in rows {
            if let parent = todo.parent { depths[todo.id] = (depths[parent] ?? 0) + 1 }
        }
        let table = rendering.table(visible, depths: depths, categoryColumn: !sections)
        if visible.isEmpty {
            let empty =
                watch == nil
                ? ""
                : filter.isEmpty ? "Nothing to do. a adds a todo." : "No todo matches /\(ListRendering.safe(filter))."
            terminal.put(empty, row: 2, column: 2, style: Style(dim: true))
        } else {
            terminal.put(
                TerminalText.truncate(table.header, to: width - 2), row: 1, column: 2, style: Style(bold: true))
        }
        // With sections, a line names the category where it changes (and at the top); the rows
        // that no longer fit below are left out (the cursor stays in view: scrollToCursor).
        var row = 1
        var previous: String?
        for (i, line) in table.rows.enumerated() where i < visible.count {
            let todo = visible[i]
            row += 1
            if sections && (i == 0 || previous != todo.category) {
                terminal.put(
                    TerminalText.truncate(todo.category.map(ListRendering.safe) ?? "No category", to: width - 2),
                    row: row, column: 1,
                    style: Style(bold: true, underline: true))
                row += 1
            }
            previous = todo.category
            guard row < 2 + listHeight else { break }
            let isSelected = visibleIndices[i] == cursor
            screenRows[row] = visibleIndices[i]
            var style = Style(dim: todo.done, reverse: isSelected)
            if rendering.isOverdue(todo) {
                style.colour = .red
            } else if rendering.startsLater(todo) {
                style.colour = .yellow
            }
            if isSelected { terminal.fill(row: row, from: 0, style: style) }
            terminal.put(
                marked.contains(todo.id) ? "*" : " ", row: row, column: 0,
                style: Style(bold: true, reverse: isSelected, colour: .cyan))
            if folded.contains(todo.uid) && !todo.subtasks.isEmpty {
                // its subtasks are folded
                terminal.put("+", row: row, column: 1, style: Style(bold: true, reverse: isSelected))
            }
            terminal.put(TerminalText.truncate(line, to: width - 2), row: row, column: 2, style: style)
        }
        if detailsHeight > 0, let todo = selected {
            let first = terminal.rows - 1 - detailsHeight
            terminal.put(String(repeating: "─", count: width), row: first, column: 0, style: Style(dim: true))
            for (i, line) in rendering.details(todo).prefix(detailsHeight - 1).enumerated() {
                terminal.put(TerminalText.truncate(line, to: width - 2), row: first + 1 + i, column: 1)
            }
        }
        drawPane()
        drawStatus()
    }

    /// The category pane over the left of the list, when open: every category with its open
    /// count, "All" and "No category" first.
    private func drawPane() {
        guard let (categories, chosen) = pane else { return }
        let names = ["All", "No category"] + categories.map { ListRendering.safe($0.name) }
        let counts = [nil, nil] + categories.map { Optional($0.open) }
        let inner = min(terminal.columns - 4, max(16, names.map(TerminalText.width).max() ?? 0) + 7)
        let height = min(names.count, max(1, listHeight - 1))
        let first = max(0, min(chosen - height / 2, names.count - height))
        terminal.put("┌" + String(repeating: "─", count: inner) + "┐", row: 1, column: 0, style: Style(bold: true))
        for i in 0..<height {
            let n = first + i
            let count = counts[n].map { " \($0)" } ?? ""
            let text =
                TerminalText.pad(
                    TerminalText.truncate(names[n], to: inner - 2 - count.count), to: inner - 2 - count.count) + count
            terminal.put("│", row: 2 + i, column: 0, style: Style(bold: true))
            terminal.put(" " + text + " ", row: 2 + i, column: 1, style: Style(reverse: n == chosen))
            terminal.put("│", row: 2 + i, column: inner + 1, style: Style(bold: true))
        }
        terminal.put(
            "└" + String(repeating: "─", count: inner) + "┘", row: 2 + height, column: 0, style: Style(bold: true))
    }

    private func drawStatus() {
        let row = terminal.rows - 1
        let width = terminal.columns
        if let (kind, editor) = prompt {
            let label: String
            switch kind {
            case .add: label = "Add: "
            case .edit: label = "Edit: "
            case .category: label = "Category: "
            case .snooze: label = "Snooze until: "
            case .filter: label = "/"
            case .command: label = ":"
            }
            let room = max(1, width - TerminalText.width(label) - 1)
            // The part of the text around the cursor that fits.
            var shown = editor.text
            var column = editor.cursorColumn
            while column >= room, !shown.isEmpty {
                column -= TerminalText.width(String(shown.removeFirst()))
            }
            terminal.put(label, row: row, column: 0, style: Style(bold: true))
            terminal.put(
                TerminalText.truncate(ListRendering.safe(shown), to: room), row: row, column: TerminalText.width(label))
            terminal.cursor(at: (row, TerminalText.width(label) + column))
            terminal.refresh()
            return
        }
        terminal.cursor(at: nil)
        if let status {
            terminal.put(
                TerminalText.truncate(status.text, to: width - 1), row: row, column: 0,
                style: status.error ? Style(bold: true, colour: .red) : Style())
        }
        terminal.refresh()
    }

    private func drawHelp() {
        let width = terminal.columns
        var entries: [String] = []
        for action in Action.allCases {
            entries.append(TerminalText.pad(keys.keys(of: action).joined(separator: " "), to: 9) + " " + action.help)
        }
        // Two columns where they fit, else one that j and k scroll.
        let columnWidth = entries.map(TerminalText.width).max() ?? 0
        let twoColumns = width >= 2 * columnWidth + 4
        let perColumn = twoColumns ? (entries.count + 1) / 2 : entries.count
        var lines = (0..<perColumn).map { i in
            twoColumns && i + perColumn < entries.count
                ? TerminalText.pad(entries[i], to: columnWidth + 3) + entries[i + perColumn] : entries[i]
        }
        lines.append(TerminalText.pad("esc", to: 9) + " clear the marks, then the filter")
        if mouse {
            lines.append(TerminalText.pad("mouse", to: 9) + " a click selects, the wheel scrolls (ui.mouse = on)")
        }
        lines.append("Category pane: j k move, enter shows the category, esc closes.")
        lines.append("Prompts: ← → home end, C-u C-k C-w, enter runs, esc cancels.")
        let room = terminal.rows - 3
        helpTop = max(0, min(helpTop, lines.count - room))
        terminal.put("Keys (j k scroll, any other key closes):", row: 1, column: 1, style: Style(bold: true))
        for (i, line) in lines.dropFirst(helpTop).prefix(room).enumerated() {
            terminal.put(TerminalText.truncate(line, to: width - 2), row: 2 + i, column: 1)
        }
        terminal.cursor(at: nil)
        terminal.refresh()
    }
}
