import TodoCalDAV
import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoUserFiles

/// The rounds of an account whose lists are calendars (`lists = yes`): every calendar of the
/// account that holds todos (or those sync.conf names) is one category, by its display name;
/// the default one (`ListChoice`) holds the todos without a category.
/// Before the rounds, renames go across (a category renamed here renames its calendar, a
/// calendar renamed there its category) and a category without a calendar gets one
/// (`MKCALENDAR`). Then one `SyncRound` per calendar, each with its own state, sees the store
/// through a `ListView` of its category: a todo moved to another category leaves one list (its
/// resource is deleted there) and comes to the other (a new resource, the same UID). The other
/// lists go first, the default list last, so a todo that moves out of the default list (the
/// first round of an account that was one calendar) is on its new calendar before it leaves the
/// old one; a round cut off in between leaves it on both until the next round, never on none.
/// Several accounts of one store each have lists of their own (`ListClaims`): a calendar whose
/// name another account's list has is the category `NAME (ACCOUNT)`, the first account with
/// lists holds the todos without a category and makes the calendars of new categories, and
/// another account's default calendar is a list like the others.
struct ListSync {
    let account: SyncAccount
    let environment: [String: String]
    let dav: CalDAVAccount
    let store: LocalStore
    var log: (String) -> Void
    var onConflict: (SyncStatus.Conflict) -> Void

    /// One round of every list.
    func run() throws(SyncError) -> RoundReport {
        guard let statePath = SyncPaths.stateFile(account: account.name, environment: environment),
            let mapPath = SyncPaths.listsFile(account: account.name, environment: environment)
        else {
            throw SyncError("cannot find the state directory: neither XDG_STATE_HOME nor HOME is set")
        }
        let firstListsRound = !Posix.exists(mapPath)
        let (found, others) = try calendars(made: Set(ListMap.load(mapPath).lists.map(\.url)))
        // Naming takes turns with the store's other accounts with lists: their lists are theirs.
        let naming = try ListClaims.load(account: account.name, environment: environment).lock(environment: environment)
        defer { naming?.unlock() }
        let claims = ListClaims.load(account: account.name, environment: environment)
        var map = ListMap.load(mapPath)
        let before = map
        let defaultURL = try ListChoice.choose(
            found, named: account.calendars, previous: map.defaultURL, configured: account.defaultList,
            serverDefault: { [dav] in dav.scheduleDefaultCalendar() })
        map.defaultURL = defaultURL
        map.uncategorized = claims.holdsUncategorized(map: map, firstRound: firstListsRound)
        var categories = try categoryList()
        // The default calendar's name is a category that lives there (never a second calendar
        // of that name), unless another account's list has that name.
        let shownDefault = found.first { $0.url == defaultURL }.map { Self.displayName($0.displayName) } ?? ""
        map.defaultName =
            map.uncategorized && !shownDefault.isEmpty && !claims.takes(shownDefault, categories: categories)
            ? shownDefault : nil
        // Renames and new calendars, counted in the summary as what the rounds send and receive.
        var listsSent = 0
        var listsReceived = 0

        // Every other calendar (and the default one, when another account holds the todos
        // without a category), with its category's name.
        var lists: [ListMap.List] = []
        // Lists whose category was removed here and whose calendar stays (why), and lists whose
        // calendar is gone from the server (their categories, once empty, go too).
        var kept: [(list: ListMap.List, reason: String)] = []
        let vanished = before.lists.filter { list in
            list.category != nil && !found.contains { $0.url == list.url } && !others.contains { $0.url == list.url }
        }
        for cal in found where cal.url != defaultURL || !map.uncategorized {
            let shown = Self.displayName(cal.displayName)
            // A new name: the calendar's, with the account's where another account's list has it,
            // with its path where another calendar of this account has it.
            func newName() -> String {
                let name: String = shown.isEmpty ? "" : claims.name(for: shown, categories: categories)
                guard lists.contains(where: { $0.name == name }) || name == map.defaultName || name.isEmpty else {
                    return name
                }
                let path: String = cal.url.split(separator: "/").last.map(String.init) ?? cal.url
                return name + " (" + path + ")"
            }
            guard let known = map.lists.first(where: { $0.url == cal.url }) else {
                let name = newName()
                let id = categories.first { $0.name == name }?.id
                lists.append(ListMap.List(url: cal.url, name: name, displayName: shown, category: id))
                continue
            }
            // Its category removed here (`category rm`): its calendar goes from the server.
            let removedHere =
                known.removed
                ? !categories.contains { $0.name == known.name }
                : known.category.map { id in !categories.contains { $0.id == id || $0.name == known.name } } ?? false
            if removedHere {
                if let reason = removeCalendar(known, defaultURL: defaultURL) {
                    log(
                        "\(account.name): the list \(known.name) was removed here; its calendar \(cal.url) stays: \(reason)"
                    )
                    var stays = known
                    stays.removed = true
                    stays.category = nil
                    kept.append((stays, reason))
                } else {
                    log("\(account.name): the list \(known.name) was removed here: deleted its calendar \(cal.url)")
                    listsSent += 1
                }
                continue
            }
            // A list named before keeps its name until one side renames it (no flip-flop).
            var list = known
            list.removed = false
            let local = known.category.flatMap { id in categories.first { $0.id == id } }
            if let local, local.name != known.name {
                // Renamed here (and there too: here wins): the calendar follows.
                let display = claims.displayName(for: local.name, categories: categories)
                do {
                    try dav.renameCalendar(at: cal.url, to: display)
                    log("\(account.name): renamed the calendar \(cal.url) to \(display)")
                    listsSent += 1
                    list.name = local.name
                    list.displayName = display
                } catch {
                    log("\(account.name): cannot rename the calendar \(cal.url) to \(display): \(error.message)")
                }
            } else if shown != known.displayName {
                // Renamed there: the category follows (a name already a category here joins it).
                let name = newName()
                if let local, !categories.contains(where: { $0.name == name }) {
                    _ = try store.call(CategoryRenameParams(name: local.name, newName: name))
                    log("\(account.name): the calendar \(cal.url) is now called \(shown): the category is \(name)")
                    listsReceived += 1
                    categories = try categoryList()
                }
                list.name = name
                list.displayName = shown
            }
            list.category = categories.first { $0.name == list.name }?.id
            lists.append(list)
        }

        // A list named so before the default calendar's name was a category (a calendar todod
        // made for it): that list keeps it.
        if lists.contains(where: { $0.name == map.defaultName }) { map.defaultName = nil }

        // A category with todos and no calendar, no other account's list: a new calendar where
        // the server allows it, made by the account that holds the todos without a category.
        var localOnly: [(name: String, todos: Int, reason: String)] = []
        for category in categories
        where map.uncategorized && category.open + category.done > 0
            && !vanished.contains(where: { $0.category == category.id })
            && !lists.contains(where: { $0.name == category.name }) && !claims.claims(category)
            && category.name != map.defaultName
        {
            // A calendar of that name sync.conf did not name is that list's.
            if let there = others.first(where: {
                Self.displayName($0.displayName) == category.name && $0.url != defaultURL
            }) {
                lists.append(ListMap.List(url: there.url, name: category.name, category: category.id))
                continue
            }
            switch Result(catching: { () throws(CalDAVError) in try makeCalendar(for: category.name, near: defaultURL) }
            ) {
            case .success(let url):
                log("\(account.name): made the calendar \(url) for the list \(category.name)")
                listsSent += 1
                lists.append(ListMap.List(url: url, name: category.name, category: category.id))
            case .failure(let error):
                log("\(account.name): cannot make a calendar for the list \(category.name): \(error.message)")
                localOnly.append(
                    (
                        category.name, category.open + category.done,
                        "the server made no calendar for it (\(error.message))"
                    ))
            }
        }
        // A calendar with no todos yet (a list made on the phone) is a category from its first
        // round, so it can be chosen here before anything is in it.
        for i in lists.indices
        where lists[i].category == nil && !lists[i].name.isEmpty
            && !categories.contains(where: { $0.name == lists[i].name })
        {
            do {
                let made = try store.call(CategoryAddParams(name: lists[i].name))
                lists[i].category = made.id
                categories.append(made)
                log("\(account.name): the calendar \(lists[i].url) is the category \(made.name)")
            } catch {
                log("\(account.name): cannot make the category \(lists[i].name): \(error.message)")
            }
        }
        map.lists = lists + kept.map(\.list)
        map.alignedAt = try alignSubtasks(since: map.alignedAt)
        try map.save(mapPath)
        naming?.unlock()

        // The rounds: the other lists first, the default list last. A server that takes a UID
        // in one calendar of the account only (Cyrus) refuses a moved todo's new resource while
        // the old one is there: when a round refused something and another round sent, the
        // lists that refused go once more (their old resources are gone by then).
        let rounds =
            lists.map { (url: $0.url, category: Optional($0.name)) }
            + (map.uncategorized ? [(url: defaultURL, category: nil)] : [])
        func round(_ list: (url: String, category: String?)) throws(SyncError) -> RoundReport {
            let path =
                Self.statePath(
                    of: list, account: account.name, defaultURL: defaultURL,
                    environment: environment) ?? statePath
            let (state, reset) = try SyncState.open(path: path)
            if let reset { log(reset) }
            // A list whose category is not the one its last round saw (the account's first
            // round with lists, a rename that did not go through) holds todos the store's
            // changes would not name: this round reads the store whole.
            let seen =
                list.category == nil
                ? !firstListsRound && before.defaultName == map.defaultName
                : before.lists.contains { $0.url == list.url && $0.name == list.category }
            if !seen {
                do { try state.setSeq(nil) } catch { throw SyncError("sync state \(path): \(error.message)") }
            }
            let view = ListView(transport: store.transport, category: list.category, alias: map.defaultName)
            let codec = AccountSync.codec(environment).list(isDefault: list.category == nil)
            let options = SyncRound.Options(
                timeLimit: account.roundTimeLimit, initial: account.initial, log: log, onConflict: onConflict)
            let round = SyncRound(
                account: account.name, collection: dav.collection(url: list.url), store: view, state: state,
                codec: codec,
                options: options)
            return try round.run()
        }
        var reports: [RoundReport?] = Array(repeating: nil, count: rounds.count)
        var firstError: SyncError?
        for sweep in 0..<2 {
            let sent = reports.reduce(0) { $0 + ($1?.sent ?? 0) }
            for (i, list) in rounds.enumerated() {
                if sweep == 1 {
                    guard sent > 0, let r = reports[i], r.problems.contains(where: { $0.kind == .refused }) else {
                        continue
                    }
                }
                do {
                    var r = try round(list)
                    if let earlier = reports[i] {
                        r.sent += earlier.sent
                        r.received += earlier.received
                        r.conflicts = earlier.conflicts + r.conflicts
                    }
                    reports[i] = r
                } catch {
                    log("\(account.name): the list \(list.category ?? "(default)") at \(list.url): \(error.message)")
                    if firstError == nil {
                        firstError = SyncError("\(list.category ?? "default list"): \(error.message)")
                    }
                }
            }
        }
        var report = RoundReport()
        for r in reports.compactMap({ $0 }) { Self.add(r, to: &report) }
        report.sent += listsSent
        report.received += listsReceived
        if let firstError { throw firstError }

        // The ids of categories the rounds brought (a calendar that was new here).
        categories = try categoryList()
        for i in map.lists.indices where map.lists[i].category == nil {
            map.lists[i].category = categories.first { $0.name == map.lists[i].name }?.id
        }
        try map.save(mapPath)
        // A list whose calendar was deleted on the server (by another store's `category rm`, or
        // on the phone): its category goes too once the rounds left it empty (its todos, moved
        // to the default list there, came here in the default list's round).
        for list in vanished {
            guard let id = list.category, let category = categories.first(where: { $0.id == id }) else { continue }
            if category.open + category.done == 0 {
                do {
                    _ = try store.call(CategoryDeleteParams(name: category.name, force: false))
                    log(
                        "\(account.name): the calendar \(list.url) of the list \(category.name) is gone from the server: removed the category"
                    )
                    report.received += 1
                } catch {
                    log("\(account.name): cannot remove the category \(category.name): \(error.message)")
                }
            } else {
                log(
                    "\(account.name): the calendar \(list.url) of the list \(category.name) is gone from the server; "
                        + "its \(category.open + category.done) todos here get a calendar again in the next round")
            }
        }
        for (list, reason) in kept {
            report.problems.append(
                SyncProblem(
                    kind: .refused, uid: nil, href: list.url, title: list.name,
                    reason: "the list was removed here, but its calendar stays on the server: \(reason)"))
        }
        for list in localOnly {
            report.problems.append(
                SyncProblem(
                    kind: .refused, uid: nil, href: defaultURL, title: list.name,
                    reason: "the list stays in this store only: \(list.reason)"))
            report.pending += list.todos
        }
        return report
    }

    /// Subtasks live in their topmost parent's calendar: a subtask whose category is not its
    /// topmost parent's takes it (a parent moved to another list takes its subtasks along), so
    /// the list rounds that follow move its resource. Read whole only when the store changed
    /// since `since` (its id and newest change then); returns them now.
    func alignSubtasks(since: String?) throws(SyncError) -> String {
        let status = try store.status()
        let now = "\(status.storeID):\(status.seq)"
        guard now != since else { return now }
        let todos = try store.allTodos()
        guard todos.contains(where: { $0.parent != nil }) else { return now }
        let byID = Dictionary(todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var moved = 0
        for todo in todos where todo.parent != nil {
            var root = todo
            var seen: Set<Int64> = [todo.id]
            while let up = root.parent, let parent = byID[up], seen.insert(up).inserted { root = parent }
            guard root.category != todo.category else { continue }
            var patch = TodoPatch()
            patch.category = root.category.map { .set($0) } ?? .clear
            do {
                _ = try store.call(TodoUpdateParams(id: todo.id, patch: patch, ifRevision: todo.revision))
                moved += 1
            } catch {
                log("\(account.name): cannot put the subtask \(todo.id) in its parent's list: \(error.message)")
            }
        }
        guard moved > 0 else { return now }
        log("\(account.name): put \(moved) subtask\(moved == 1 ? "" : "s") in their topmost parent's list")
        let after = try store.status()
        return "\(after.storeID):\(after.seq)"

    }

    /// Empties the calendar of `list`, whose category was removed here, of the resources this
    /// account's rounds put there (each with its ETag: one another client changed meanwhile
    /// stays) and deletes it. Nil when it is gone; else why it stays, in a few words: it holds
    /// todos of other clients (unknown to its state, or changed since), or the server refused.
    func removeCalendar(_ list: ListMap.List, defaultURL: String) -> String? {
        if list.url == defaultURL { return "it is the account's default calendar" }
        if account.calendars.contains(where: {
            ListChoice.find(
                $0, in: [CalendarInfo(url: list.url, displayName: "", holdsTodos: true, supportsSyncToken: true)])
                != nil
        }) {
            return "sync.conf names it (a calendar line)"
        }
        guard
            let path = Self.statePath(
                of: (list.url, list.name), account: account.name, defaultURL: defaultURL, environment: environment)
        else {
            return "no state directory"
        }
        let collection = dav.collection(url: list.url)
        let there: [RemoteVersion]
        do { there = try collection.versions() } catch { return "cannot list it (\(error.message))" }
        let state: SyncState
        let known: [String: (uid: String, etag: String)]
        do { state = try SyncState.open(path: path).0 } catch { return "cannot read its sync state (\(error.message))" }
        do { known = try state.versions() } catch { return "cannot read its sync state (\(error))" }
        // This account's own resources go (their todos, without a category now, go to the
        // default list); those of other clients stay, and so does the calendar then.
        for version in there {
            guard let mine = known[version.href], mine.etag == version.etag else { continue }
            do {
                try collection.delete(href: version.href, ifMatch: version.etag)
                try? state.remove(uid: mine.uid)
            } catch {
                return "the server did not delete \(version.href) (\(error.message))"
            }
        }
        let foreign = there.filter { known[$0.href]?.etag != $0.etag }
        guard foreign.isEmpty else {
            return
                "it holds \(foreign.count) todo\(foreign.count == 1 ? "" : "s") of other clients; delete them there (or add the category again to sync them)"
        }
        do { try dav.deleteCalendar(at: list.url) } catch {
            return "the server refused to delete it (\(error.message))"
        }
        for file in [path, path + "-wal", path + "-shm"] { try? Files.unlink(file) }
        return nil
    }

    /// The state of one list's rounds: `NAME.state` for the default list, `NAME@HASH.state` for
    /// the others. The default calendar of an account that synced it alone (without lists) goes
    /// on with `NAME.state` where another account holds the todos without a category and the
    /// calendar is a list like the others: its state knows every todo the calendar holds, so
    /// those of other lists leave it (deleted there) rather than come into its category.
    static func statePath(
        of list: (url: String, category: String?), account: String, defaultURL: String,
        environment: [String: String]
    ) -> String? {
        let main = SyncPaths.stateFile(account: account, environment: environment)
        guard list.category != nil,
            let own = SyncPaths.listStateFile(account: account, calendar: list.url, environment: environment)
        else {
            return main
        }
        if list.url == defaultURL, !Posix.exists(own), let main, Posix.exists(main) { return main }
        return own
    }

    /// The account's calendars that hold todos, or the ones sync.conf names (in its order) and
    /// those todod made for its lists (`made`); and the calendars holding todos not synced.
    func calendars(made: Set<String>) throws(SyncError) -> (synced: [CalendarInfo], others: [CalendarInfo]) {
        try Self.calendars(of: account, dav, made: made)
    }

    static func calendars(of account: SyncAccount, _ dav: CalDAVAccount, made: Set<String> = []) throws(SyncError) -> (
        synced: [CalendarInfo], others: [CalendarInfo]
    ) {
        let all: [CalendarInfo]
        do { all = try dav.calendars() } catch { throw SyncError(error.message) }
        let todos = all.filter(\.holdsTodos)
        guard !account.calendars.isEmpty else {
            guard !todos.isEmpty else {
                throw SyncError("no calendar holding todos (VTODO) at \(dav.url); make one, or name it with --calendar")
            }
            return (todos, [])
        }
        var out: [CalendarInfo] = []
        for named in account.calendars {
            let url = try CalendarChoice.choose(dav, calendar: named)
            let info =
                all.first { $0.url == url }
                ?? CalendarInfo(
                    url: url,
                    displayName: CalendarChoice.path(of: url).split(separator: "/").last.map(String.init) ?? url,
                    holdsTodos: true, supportsSyncToken: true)
            if !out.contains(where: { $0.url == info.url }) { out.append(info) }
        }
        for info in todos where made.contains(info.url) && !out.contains(where: { $0.url == info.url }) {
            out.append(info)
        }
        return (out, todos.filter { info in !out.contains { $0.url == info.url } })
    }

    /// A display name as a category name: DAViCal escapes `&` twice (`&amp;amp;`), so a name
    /// that still holds an XML entity is unescaped once more.
    static func displayName(_ name: String) -> String {
        guard name.contains("&") else { return name }
        var out = name
        for (entity, text) in [
            ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&#39;", "'"), ("&amp;", "&")
        ] {
            out = out.replacingOccurrences(of: entity, with: text)
        }
        return out
    }

    /// `category.list`.
    func categoryList() throws(SyncError) -> [TodoCore.Category] {
        try store.call(CategoryListParams())
    }

    /// MKCALENDAR of a list named `name` beside the default calendar, at a path made from the
    /// name (so two stores that make the same list at once make one calendar); one already
    /// there (made by another store) is taken when it holds todos.
    func makeCalendar(for name: String, near defaultURL: String) throws(CalDAVError) -> String {
        var home = defaultURL.hasSuffix("/") ? String(defaultURL.dropLast()) : defaultURL
        if let slash = home.lastIndex(of: "/") { home = String(home[...slash]) }
        let url = home + "todod-" + StableHash.hex(name) + "/"
        do {
            try dav.makeCalendar(at: url, name: name)
        } catch {
            var there = dav
            there.url = url
            // Only a calendar at that very URL: discovery from a URL that is not there finds the
            // home's calendars (one of them when the home has one).
            guard let existing = try? there.calendars(), existing.count == 1, existing[0].holdsTodos,
                CalendarChoice.path(of: existing[0].url) == CalendarChoice.path(of: url)
            else { throw error }
        }
        return url
    }

    /// One list's round added to the account's report.
    static func add(_ r: RoundReport, to report: inout RoundReport) {
        report.sent += r.sent
        report.received += r.received
        report.conflicts += r.conflicts
        report.pending += r.pending
        report.unfinished = report.unfinished || r.unfinished
        report.items += r.items
        report.skipped += r.skipped
        report.problems += r.problems
        report.storeID = r.storeID
        report.storeSeq = r.storeSeq
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
