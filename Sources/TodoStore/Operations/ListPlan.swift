import TodoCore
import TodoSQLite

// Planning a listing: the SQL that answers a query, chosen before anything is read. `list` in
// ListOperations.swift runs the plan.

extension StoreTransaction {
    /// Plans `query`: checks its values, looks its category up, and chooses the statements that
    /// answer it (`ListPlan`). Nothing of the todos is read yet.
    func plan(_ query: TodoQuery) throws(TodoError) -> ListPlan {
        var categoryID: Int64?
        var conditions: [String] = []
        var values: [SQLValue] = []
        switch query.status {
        case .open: conditions.append("t.done = 0")
        case .done: conditions.append("t.done = 1")
        case .all: break
        }
        if let name = query.category {
            guard !query.uncategorized else {
                throw TodoError.invalid("uncategorized", "cannot be combined with category")
            }
            let ids =
                query.subcategories
                ? try categoryTree(named: name, field: "category") : [try category(named: name, field: "category").id]
            if ids.count == 1 {
                categoryID = ids[0]
                conditions.append("t.category_id = ?")
            } else {
                conditions.append("t.category_id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))")
            }
            values += ids.map { .integer($0) }
        } else if query.uncategorized {
            conditions.append("t.category_id IS NULL")
        }
        if query.overdue {
            // `due_end` is `due`, or for an all-day todo the end of its day: never earlier, so the
            // `due` term still seeks the range in `todos_done_due`.
            conditions.append("t.done = 0 AND t.due < ? AND t.due_end < ?")
            values += [.integer(now.usec), .integer(now.usec)]
        }
        if let before = query.dueBefore {
            conditions.append("t.due < ?")
            values.append(.integer(before.usec))
        }
        if let after = query.dueAfter {
            conditions.append("t.due >= ?")
            values.append(.integer(after.usec))
        }
        // A text search: a term that checks each todo, and (when the index finds few enough
        // candidates) the index's todos to check instead of all of them.
        var searchDriver: SearchIndex.Driver?
        if let search = query.search {
            let text = Validation.trimmed(search)
            switch query.searchMode {
            case .folded:
                let needle = TextKey.search(text)
                guard !needle.isEmpty else { throw TodoError.invalid("search", "must not be empty") }
                conditions.append("instr(t.search_key, ?) > 0")
                values.append(.text(needle))
                searchDriver = try SearchIndex.driver(folded: needle, connection)
            case .exact:
                guard !text.isEmpty else { throw TodoError.invalid("search", "must not be empty") }
                conditions.append("(instr(t.title, ?) > 0 OR instr(coalesce(t.notes, ''), ?) > 0)")
                values += [.text(text), .text(text)]
                searchDriver = try SearchIndex.driver(exact: text, connection)
            }
        }
        let dueRange = query.overdue || query.dueBefore != nil || query.dueAfter != nil
        // The recurring todos are few, and the partial index `todos_recurring` holds exactly them:
        // every statement reads them through it (without statistics SQLite would rather walk the
        // status's todos in order).
        let recurringOnly = query.recurring == true
        var tagKeys: [String] = []
        for (i, tag) in query.tags.enumerated() {
            let key = Validation.tagKey(try Validation.tag(tag, field: "tags[\(i)]"))
            if !tagKeys.contains(key) { tagKeys.append(key) }
        }
        // The first tag drives the listing: its todos are sought in `todo_tags_key` and looked up
        // by id (a CROSS JOIN keeps that loop; left to itself SQLite walks the whole status in
        // order and tests each todo), so a tag filter reads only the tagged todos. Each further
        // tag is one lookup in `todo_tags`' primary key per such todo.
        let tagDriven = !tagKeys.isEmpty && !recurringOnly && searchDriver == nil
        for (i, key) in tagKeys.enumerated() where !(tagDriven && i == 0) {
            conditions.append("EXISTS (SELECT 1 FROM todo_tags x WHERE x.todo_id = t.id AND x.tag_key = ?)")
            values.append(.text(key))
        }
        if let priority = query.priority {
            // `todos_done_priority` (done, coalesce(priority, 4), rank) is sought by this very
            // expression (`t.priority = ?` would not be: SQLite would use it to drop the term).
            conditions.append("coalesce(t.priority, 4) = ?")
            values.append(.integer(Int64(priority.rank)))
        }
        if let recurring = query.recurring {
            conditions.append(recurring ? "t.recur_rule IS NOT NULL" : "t.recur_rule IS NULL")
        }
        // `todos_done_priority` starts with the status: with any status, naming both values lets
        // SQLite seek it.
        if query.status == .all && (query.priority != nil || recurringOnly) && !dueRange {
            conditions.append("t.done IN (0, 1)")
        }
        if let parent = query.parent {
            conditions.append("t.parent_id = ?")
            values.append(.integer(parent))
        }
        if let before = query.startBefore {
            conditions.append("t.start < ?")
            values.append(.integer(before.usec))
        }
        if let after = query.startAfter {
            conditions.append("t.start >= ?")
            values.append(.integer(after.usec))
        }
        if query.ready {
            conditions.append("(t.start IS NULL OR t.start <= ?)")
            values.append(.integer(now.usec))
        }
        if let limit = query.limit, limit < 0 || limit > TodoQuery.maxLimit {
            throw TodoError.invalid("limit", "must be between 0 and \(TodoQuery.maxLimit)")
        }
        guard query.offset >= 0 else { throw TodoError.invalid("offset", "must not be negative") }

        // Filters beyond status and category? Then the total must be counted.
        let simple = conditions.count == (query.status == .all ? 0 : 1) + (categoryID == nil ? 0 : 1) && tagKeys.isEmpty
        let keptCounts: KeptCounts? = simple ? categoryID.map(KeptCounts.category) ?? .all : nil
        let filter = Self.whereClause(conditions)
        // With a due-date range, terms that change no result let SQLite seek the range in
        // `todos_done_due` (status, due IS NULL, due, rank) instead of walking every todo of the
        // status: a todo in the range has a due date, and every todo's status is 0 or 1.
        let throughDue =
            !dueRange
            ? filter
            : Self.whereClause(
                conditions + (query.status == .all && !query.overdue ? ["t.done IN (0, 1)"] : []) + [
                    "(t.due IS NULL) = 0"
                ])
        // A text search with no other filter than the status tests every todo of the status:
        // reading the table once in its own order beats looking each todo up in the order of
        // some index (a category's todos, by position, are close to table order already).
        let scansTable =
            query.search != nil && searchDriver == nil && !dueRange && categoryID == nil && !query.uncategorized
            && !recurringOnly && tagKeys.isEmpty
        let todos =
            searchDriver.map { "\($0.table) s CROSS JOIN todos t ON t.id = s.todo_id" }
            ?? (tagDriven
                ? "todo_tags g CROSS JOIN todos t ON t.id = g.todo_id AND g.tag_key = ?"
                : recurringOnly ? "todos t INDEXED BY todos_recurring" : "todos t")
        // Whether one todo `t` matches, every tag a term (a tree listing tests the todos around
        // its matches with it).
        let tagTerm = "EXISTS (SELECT 1 FROM todo_tags x WHERE x.todo_id = t.id AND x.tag_key = ?)"
        let matchTerms = conditions + (tagDriven ? [tagTerm] : [])
        let matchValues = values + (tagDriven ? [.text(tagKeys[0])] : [])
        // The driving tag's `?` comes first in every statement.
        if tagDriven { values.insert(.text(tagKeys[0]), at: 0) }
        // The search index's `?`s come first when it drives.
        if let searchDriver { values.insert(contentsOf: searchDriver.values, at: 0) }
        let table = scansTable ? "todos t NOT INDEXED" : todos
        // Ties break by position, unless a unique key (id) already decided.
        let unique = query.sort.contains { $0.field == .id || $0.field == .position }
        let page = { (table: String, filter: String, dated: Bool) in
            let order = query.sort.flatMap { Self.orderTerms($0, dated: dated) } + (unique ? [] : ["t.rank"])
            return
                "SELECT \(todoFields) FROM \(table) \(categoryJoin) \(filter) ORDER BY \(order.joined(separator: ", ")) LIMIT ? OFFSET ?"
        }
        let statusOnly = if case .all? = keptCounts { query.status != .all } else { false }
        // A first page that one statement would sort — over every status (the indexes start with
        // it), or by title, created, updated, start or priority descending (ties by position
        // ascending, against the index; "none last" descending against it too) — with no filter
        // but the status: read as a window from the start, each part a walk. (With a category,
        // sorting its todos may read fewer than walking the order for them.)
        // With sections (the category, then another key), every first page: one category at a time.
        let sortsFirstPage =
            query.sort.count == 1 && ![.id, .position].contains(query.sort[0].field)
            && (query.status == .all
                || (query.sort[0].descending
                    && [.title, .created, .updated, .start, .priority].contains(query.sort[0].field)))
            || (query.sort.count == 2 && query.sort[0].field == .category && query.sort[1].field != .category)
        let unfiltered = if case .all? = keptCounts { true } else { false }
        // One category (and the status): by any key but the position, read as its one section
        // (`Sections`), walked when it is large.
        let oneCategory = if case .category? = keptCounts { true } else { false }
        let sortsCategory =
            query.sort.count == 1 && query.sort[0].field != .position
            || (query.sort.count == 2 && query.sort[0].field == .category && query.sort[1].field != .category)
        let firstWindow =
            query.seek == nil && query.offset == 0 && query.limit != nil && !query.tree
            && (unfiltered && sortsFirstPage || oneCategory && sortsCategory)
        let seek = try (query.seek ?? (firstWindow ? .start : nil)).map { (seek) throws(TodoError) in
            var plan = try seekPlan(
                seek, query, from: todos, conditions: conditions, values: values, sectioned: keptCounts)
            // With the search index driving: past `narrowLimit` matches, walking the order from
            // the anchor meets a match often enough (as the walking page does).
            if let searchDriver {
                plan.walkingParts = try seekPlan(
                    seek, query, from: recurringOnly ? "todos t INDEXED BY todos_recurring" : "todos t",
                    conditions: conditions, values: Array(values.dropFirst(searchDriver.values.count))
                ).parts
            }
            return plan
        }
        // A search by an exact index (its candidates are the matches) with no filter but the
        // status counts them through `todos_done` (status, id) alone, never reading the todos;
        // `? IS NOT NULL` takes the search term's value in its place.
        var count = "SELECT COUNT(*) FROM \(table) \(throughDue)"
        if let searchDriver, searchDriver.exact, query.status != .all, conditions.count == 2, !dueRange {
            count =
                "SELECT COUNT(*) FROM \(searchDriver.table) s CROSS JOIN todos t INDEXED BY todos_done ON t.id = s.todo_id "
                + "WHERE \(conditions[0]) AND (? IS NOT NULL)"
        }
        return ListPlan(
            seek: seek,
            status: query.status,
            count: count,
            // Walking the sort order meets a match often enough without the index (a page
            // walked is chosen only past `narrowLimit` matches).
            walkingPage: page(
                searchDriver == nil ? todos : recurringOnly ? "todos t INDEXED BY todos_recurring" : "todos t", filter,
                false),
            walkingSkips: searchDriver?.values.count ?? 0,
            narrowPage: dueRange || scansTable || searchDriver != nil ? page(table, throughDue, dueRange) : nil,
            narrowIsSorted: dueRange && query.sort.first.map { $0.field == .due && !$0.descending } ?? false,
            parts: statusOnly ? Self.pageParts(query.sort, status: query.status, conditions: conditions) : nil,
            values: values,
            matchTerms: matchTerms,
            matchValues: matchValues,
            keptCounts: keptCounts,
            limit: query.limit ?? -1,
            offset: query.offset)
    }

    private static func whereClause(_ terms: [String]) -> String {
        terms.isEmpty ? "" : "WHERE " + terms.joined(separator: " AND ")
    }

    /// Three orders put one group of todos first, in both directions, and no index keeps them
    /// whole: by category (categorised todos first), by due date descending (dated todos first)
    /// and by priority descending (todos with a priority first). With
    /// no filter but the status (`conditions`), such a page is read in two parts, each through an
    /// index in its order, so nothing is sorted but todos due at the same instant. With another
    /// filter, walking would look up every todo in that order to test it, so the single sorted
    /// statement reads fewer.
    private static func pageParts(_ sort: [TodoQuery.SortKey], status: TodoQuery.Status, conditions: [String])
        -> PageParts?
    {
        guard let first = sort.first, sort.dropFirst().allSatisfy({ $0.field == .position && !$0.descending }) else {
            return nil
        }
        switch (first.field, first.descending) {
        case (.priority, true):
            // Low, medium, high, then none: the todos with a priority, sought in
            // `todos_done_priority` and sorted (only they are), then those without, in position
            // order straight from that index.
            let ranked = whereClause(conditions + ["coalesce(t.priority, 4) < 4"])
            return PageParts(
                first: "SELECT \(todoColumns) \(ranked) ORDER BY t.priority DESC, t.rank LIMIT ? OFFSET ?",
                second:
                    "SELECT \(todoColumns) \(whereClause(conditions + ["coalesce(t.priority, 4) = 4"])) ORDER BY t.rank LIMIT ? OFFSET ?",
                firstCount: "SELECT COUNT(*) FROM todos t \(ranked)")
        case (.category, let descending):
            // The categories in order (CROSS JOIN keeps that loop; `c.id` makes each step one
            // category), each one's todos through `todos(category_id, done, rank)`; then the
            // uncategorised ones. The kept per-category counts say how many come first.
            let direction = descending ? " DESC" : ""
            return PageParts(
                first:
                    "SELECT \(todoFields) FROM categories c CROSS JOIN todos t ON t.category_id = c.id \(whereClause(conditions)) "
                    + "ORDER BY c.rank\(direction), c.id\(direction), t.rank LIMIT ? OFFSET ?",
                second:
                    "SELECT \(todoColumns) \(whereClause(conditions + ["t.category_id IS NULL"])) ORDER BY t.rank LIMIT ? OFFSET ?",
                firstCount: "SELECT COALESCE(SUM(\(status == .open ? "open_count" : "done_count")), 0) FROM categories")
        case (.due, true):
            // `todos_done_due` walked backwards over the dated todos (todos due at the same instant
            // sorted by position), then forwards over the undated ones: their `due` is null
            // throughout, so ordering by it as well is the index's own order.
            let dated = whereClause(conditions + ["(t.due IS NULL) = 0"])
            return PageParts(
                first: "SELECT \(todoColumns) \(dated) ORDER BY t.due DESC, t.rank LIMIT ? OFFSET ?",
                second: "SELECT \(todoFields) FROM todos t INDEXED BY todos_done_due \(categoryJoin) "
                    + "\(whereClause(conditions + ["(t.due IS NULL) = 1"])) ORDER BY t.due, t.rank LIMIT ? OFFSET ?",
                firstCount: "SELECT COUNT(*) FROM todos t \(dated)")
        default:
            return nil
        }
    }

    /// How a listing is answered, decided from the query before any todo is read: the SQL
    /// `list` runs and its values (`plan` makes it, `run` runs it; query-plan tests read it).
    struct ListPlan {
        /// A keyset window (`after` or `before` a todo): the statements that read it instead.
        var seek: SeekPlan?
        /// The status filter, for a total from the kept counts.
        var status: TodoQuery.Status
        var count: String
        /// The page, read by walking the sort order (or sorting what the filters leave).
        var walkingPage: String
        /// How many of the first `values` the walking page does not take (the search index's).
        var walkingSkips: Int
        /// With a due-date or text filter: the page read by finding the matches first — seeking
        /// the due-date range in `todos_done_due`, or reading the table once for a text search —
        /// and sorting only them.
        var narrowPage: String?
        /// Whether the narrow page comes out in order: a due-date range sorted by due date
        /// ascending, the order `todos_done_due` keeps.
        var narrowIsSorted: Bool
        /// For a sort by category or by due date descending with only a status filter: the page
        /// in two parts.
        var parts: PageParts?
        var values: [SQLValue]
        /// The filters as terms on one todo `t` (no join), and their values in order.
        var matchTerms: [String]
        var matchValues: [SQLValue]
        /// When only the status and category filters apply: the kept counts that give the total.
        var keptCounts: KeptCounts?
        /// The page's size (-1: all) and start.
        var limit: Int
        var offset: Int
        var pageValues: [SQLValue] { values + [.integer(Int64(limit)), .integer(Int64(offset))] }

        /// The values of `walkingPage`.
        var walkingValues: [SQLValue] { Array(pageValues.dropFirst(walkingSkips)) }

        /// The values of `page(forTotal:)`.
        func pageValues(forTotal total: Int) -> [SQLValue] {
            page(forTotal: total) == walkingPage ? walkingValues : pageValues
        }

        /// The page statement to run once the total is known.
        func page(forTotal total: Int) -> String {
            guard let narrowPage, narrowIsSorted || total <= StoreTransaction.narrowLimit else { return walkingPage }
            return narrowPage
        }
    }

    /// A page read in two parts, each in its own order: the first group of todos, then the rest.
    struct PageParts {
        /// The first group, in order; takes the listing's values, then LIMIT and OFFSET.
        var first: String
        /// The rest, in order; takes the listing's values, then LIMIT and OFFSET.
        var second: String
        /// How many todos the first group holds; takes the listing's values.
        var firstCount: String
    }

    /// Up to this many matches, a filtered page finds its matches first and sorts them;
    /// beyond, walking the sort order meets a match often enough to fill a page sooner.
    static let narrowLimit = 4096

    /// Which kept counts answer a listing's total.
    enum KeptCounts {
        case all
        case category(Int64)
    }

    /// ORDER BY terms for one sort key. Missing due dates and categories go last either way.
    /// `dated`: every todo listed has a due date (a due-date range applies).
    private static func orderTerms(_ key: TodoQuery.SortKey, dated: Bool) -> [String] {
        let direction = key.descending ? " DESC" : ""
        switch key.field {
        case .id: return ["t.id" + direction]
        case .title: return ["t.title_key" + direction]
        case .created: return ["t.created" + direction]
        case .updated: return ["t.updated" + direction]
        // Ascending, the terms are `todos_done_due`'s own expressions, so a listing walks it in
        // order (within a due-date range the first term is constant, and SQLite would sort for it).
        // Descending, that index would be walked in an order that still needs sorting, with a
        // table lookup per todo in due order; the other spelling of "dated first" keeps SQLite
        // from choosing it.
        case .due where dated: return ["t.due" + direction]
        case .due: return key.descending ? ["t.due IS NOT NULL DESC", "t.due DESC"] : ["t.due IS NULL", "t.due"]
        case .position: return ["t.rank" + direction]
        case .start: return ["t.start IS NULL", "t.start" + direction]
        case .category: return ["c.rank IS NULL", "c.rank" + direction]
        // `priority` holds TodoPriority.rank (1 high … 3 low): ascending lists high first, in the
        // order of `todos_done_priority` (none as 4, last).
        case .priority: return key.descending ? ["t.priority IS NULL", "t.priority DESC"] : ["coalesce(t.priority, 4)"]
        }
    }
}
