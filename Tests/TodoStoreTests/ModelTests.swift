import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

/// A plain in-memory reference of the store's semantics, to compare the real store against.
private struct Reference {
    var todos: [Int64: Todo] = [:]
    var order: [Int64] = []
    var categories: [(id: Int64, name: String)] = []
    var nextTodoID: Int64 = 1
    var nextCategoryID: Int64 = 1

    func categoryIndex(_ name: String) -> Int? {
        let key = TextKey.identity(Validation.trimmed(name))
        return categories.firstIndex { TextKey.identity($0.name) == key }
    }

    mutating func categoryName(creating name: String) -> String {
        if let i = categoryIndex(name) { return categories[i].name }
        let name = Validation.trimmed(name)
        categories.append((nextCategoryID, name))
        nextCategoryID += 1
        return name
    }

    /// Expected todos in manual order with positions: 1...n over the open ones, none for a done
    /// one (which keeps its place in `order` for when it is reopened).
    var expectedTodos: [Todo] {
        var open = 0
        return order.map { id in
            var todo = todos[id]!
            if todo.done {
                todo.position = nil
            } else {
                open += 1
                todo.position = open
            }
            return todo
        }
    }

    /// Moves `id` to be the `position`-th open todo: directly before the open todo now there,
    /// else directly after the last open one; done todos keep their places. Nil when the
    /// position is out of range, else whether the order changed.
    mutating func move(_ id: Int64, toOpenPosition position: Int) -> Bool? {
        var rest = order.filter { $0 != id }
        let open = rest.filter { !todos[$0]!.done }
        guard order.contains(id), position >= 1, position <= open.count + 1 else { return nil }
        if position - 1 < open.count {
            rest.insert(id, at: rest.firstIndex(of: open[position - 1])!)
        } else if let last = open.last {
            rest.insert(id, at: rest.firstIndex(of: last)! + 1)
        } else {
            return false // no other open todo: position 1 wherever it is
        }
        if rest == order { return false }
        order = rest
        return true
    }

    var expectedCategories: [Category] {
        categories.enumerated().map { i, c in
            let mine = todos.values.filter { $0.category == c.name }
            return Category(
                id: c.id, name: c.name, position: i + 1,
                open: mine.filter { !$0.done }.count, done: mine.filter(\.done).count)
        }
    }

    /// `tags` as the store keeps them: unique case-insensitively (the first spelling wins), sorted
    /// case-insensitively.
    static func tagSet(_ tags: [String]) -> [String] {
        var seen: Set<String> = []
        return tags.filter { seen.insert($0.lowercased()).inserted }.sorted {
            ($0.lowercased(), $0) < ($1.lowercased(), $1)
        }
    }

    /// Completes todo `id` at `now` as the store should: a recurring open todo (a simple DAILY or
    /// WEEKLY rule in UTC, `from: due`) moves to the first occurrence after both its due date and
    /// now, its reminder keeping its lead time, unless `stop` or COUNT ends it.
    mutating func complete(_ id: Int64, stop: Bool, now: Instant) {
        guard var todo = todos[id], !todo.done else { return }
        defer { todos[id] = todo }
        todo.updated = now
        todo.completed = now
        if !stop, let recurrence = todo.recurrence, let due = todo.due, let rule = SimpleRule(recurrence.rule) {
            let period = Int64(rule.interval * (rule.weekly ? 7 : 1)) * 86_400_000_000
            let after = max(due, now)
            let steps = (after.usec - due.usec) / period + 1 // the first occurrence after `after`
            if rule.count.map({ steps < $0 }) ?? true {
                let next = due.adding(usec: steps * period)
                todo.remind = todo.remind.map { next.adding(usec: $0.usec - due.usec) }
                todo.due = next
                todo.reminded = nil
                todo.recurrence = TodoRecurrence(
                    rule: SimpleRule(
                        weekly: rule.weekly, interval: rule.interval, count: rule.count.map { $0 - Int(steps) }
                    ).text)
                return
            }
        }
        todo.done = true
    }
}

/// The rules the model uses, in the canonical text the store keeps (TodoCalendar's order).
private struct SimpleRule {
    var weekly: Bool
    var interval: Int
    var count: Int?

    init(weekly: Bool, interval: Int, count: Int?) {
        self.weekly = weekly
        self.interval = interval
        self.count = count
    }

    init?(_ text: String) {
        var weekly = false
        var interval = 1
        var count: Int? = nil
        for part in text.split(separator: ";") {
            let kv = part.split(separator: "=")
            switch (kv[0], kv[1]) {
            case ("FREQ", "DAILY"): weekly = false
            case ("FREQ", "WEEKLY"): weekly = true
            case ("INTERVAL", let n): interval = Int(n)!
            case ("COUNT", let n): count = Int(n)!
            default: return nil
            }
        }
        self.init(weekly: weekly, interval: interval, count: count)
    }

    var text: String {
        "FREQ=\(weekly ? "WEEKLY" : "DAILY")" + (interval == 1 ? "" : ";INTERVAL=\(interval)")
            + (count.map { ";COUNT=\($0)" } ?? "")
    }

    static func random(using rng: inout SeededRandom) -> SimpleRule {
        SimpleRule(
            weekly: Bool.random(using: &rng), interval: Int.random(in: 1...2, using: &rng),
            count: Bool.random(using: &rng) ? Int.random(in: 1...4, using: &rng) : nil)
    }
}

/// `todos` with the revision the reference does not follow set to 1.
private func stripped(_ todos: [Todo]) -> [Todo] {
    // Alarms carry uids of their own; the reference follows them through `remind`.
    todos.map {
        var t = $0
        t.revision = 1
        t.alarms = []
        return t
    }
}

@Suite struct ModelTests {
    @Test func randomOperationsMatchReference() throws {
        let seed = SeededRandom.seed(from: "TODOD_MODEL_SEED")
        let steps = Int(ProcessInfo.processInfo.environment["TODOD_MODEL_STEPS"] ?? "") ?? 5000
        var rng = SeededRandom(seed: seed)
        let dir = TemporaryDirectory("model")
        let clock = ManualClock()
        let store = try TodoStore(path: dir.file("todos.db"), clock: clock.source)
        var ref = Reference()

        let titles = [
            "Buy milk", "buy MILK", "牛乳を買う", "レポートを書く", "会議 📅", "🍣 sushi", "Ärger",
            "x'); DROP TABLE todos;--", "zebra", "Apple", "apple", "日本語のタイトル", "かな", "カナ"
        ]
        let categoryNames = ["Home", "home", "仕事", "買い物", "Work", "WORK", "🏠", "Straße", "STRASSE"]
        let tagPool = ["home", "Home", "HOME", "仕事", "urgent", "Ｗｏｒｋ", "ｗｏｒｋ", "a", "b-c", "🍣"]
        let randomTags = { (rng: inout SeededRandom) -> [String] in
            (0..<Int.random(in: 0...3, using: &rng)).map { _ in tagPool.randomElement(using: &rng)! }
        }
        let randomPriority = { (rng: inout SeededRandom) -> TodoPriority? in
            [nil, TodoPriority.high, .medium, .low].randomElement(using: &rng)!
        }
        var failure: String?
        // The reference before each change still in the store's undo stack, and after each undone one.
        var undoStack: [Reference] = []
        var redoStack: [Reference] = []
        // Ids are never reused, not even after the add that took them was undone.
        func restore(_ snapshot: Reference) {
            let (todoID, categoryID) = (ref.nextTodoID, ref.nextCategoryID)
            ref = snapshot
            ref.nextTodoID = todoID
            ref.nextCategoryID = categoryID
        }

        for step in 0..<steps {
            clock.advance(seconds: 1)
            let now = clock.now
            let ids = ref.order
            let pick = { (rng: inout SeededRandom) -> Int64 in
                ids.isEmpty ? 999_999 : ids.randomElement(using: &rng)!
            }
            var description = ""
            let op = Int.random(in: 0..<100, using: &rng)
            let undoRoll = Int.random(in: 0..<16, using: &rng)
            let seqBefore = try store.read { try $0.currentSeq() }
            let refBefore = ref
            if undoRoll < 2 {
                // k undos give the state after the first n−k changes; k redos bring them back.
                let redo = undoRoll == 1
                let k = Int.random(in: 1...3, using: &rng)
                description = "\(redo ? "redo" : "undo") \(k)"
                let available = redo ? redoStack.count : undoStack.count
                do {
                    let reversal = try store.write { redo ? try $0.redo(steps: k) : try $0.undo(steps: k) }
                    #expect(reversal.changes.count == min(k, available), "\(description)")
                    for _ in 0..<min(k, available) {
                        if redo {
                            undoStack.append(ref)
                            restore(redoStack.removeLast())
                        } else {
                            redoStack.append(ref)
                            restore(undoStack.removeLast())
                        }
                    }
                } catch let error as TodoError {
                    if !(error.code == .conflict && available == 0) {
                        failure = failure ?? "step \(step) (\(description)): unexpected \(error)"
                    }
                }
            } else {
                do {
                    switch op {
                    case 0..<22: // add at bottom or top
                        let top = Bool.random(using: &rng)
                        let title = titles.randomElement(using: &rng)!
                        let category =
                            Int.random(in: 0..<3, using: &rng) == 0 ? categoryNames.randomElement(using: &rng)! : nil
                        let due =
                            Bool.random(using: &rng)
                            ? now.adding(usec: Int64.random(in: -86_400...86_400, using: &rng) * 1_000_000) : nil
                        let priority = randomPriority(&rng)
                        let tags = randomTags(&rng)
                        let rule =
                            due != nil && Int.random(in: 0..<3, using: &rng) == 0 ? SimpleRule.random(using: &rng) : nil
                        let recurrence = rule.map { TodoRecurrence(rule: $0.text) }
                        description =
                            "add \(title) top=\(top) category=\(category ?? "-") due=\(due?.description ?? "-") \(String(describing: priority)) \(tags) \(rule?.text ?? "-")"
                        let added = try store.write {
                            try $0.add(
                                NewTodo(
                                    title: title, category: category, due: due, top: top, priority: priority,
                                    tags: tags, recurrence: recurrence))
                        }
                        let categoryName = category.map { ref.categoryName(creating: $0) }
                        #expect(RandomUUID.isWellFormed(added.uid))
                        let todo = Todo(
                            id: ref.nextTodoID, uid: added.uid, title: title, category: categoryName, due: due,
                            remind: due,
                            position: 0, created: now, updated: now, priority: priority, tags: Reference.tagSet(tags),
                            recurrence: recurrence)
                        ref.nextTodoID += 1
                        ref.todos[todo.id] = todo
                        if top { ref.order.insert(todo.id, at: 0) } else { ref.order.append(todo.id) }
                        #expect(added.id == todo.id)
                        #expect(added == (try store.read { try $0.todo(added.id) }), "add returns the todo as stored")
                    case 22..<40: // move in one of three forms
                        let id = pick(&rng)
                        let form = Int.random(in: 0..<3, using: &rng)
                        if form == 0 {
                            // Positions count open todos only, for open and done todos alike.
                            let openCount = ids.filter { !ref.todos[$0]!.done }.count
                            let position = Int.random(in: 0...(openCount + 2), using: &rng)
                            description = "move \(id) to \(position)"
                            var expected = ref
                            let outcome = expected.move(id, toOpenPosition: position)
                            do {
                                let moved = try store.write { try $0.move(id, to: .position(position)) }
                                #expect(outcome != nil, "move should have failed")
                                if outcome == true { expected.todos[id]!.updated = now }
                                ref = expected
                                #expect(
                                    moved.position
                                        == (moved.done ? nil : ref.expectedTodos.first { $0.id == id }?.position))
                            } catch {
                                #expect(outcome == nil, "move failed: \(error)")
                            }
                        } else {
                            let anchor = pick(&rng)
                            let before = form == 1
                            description = "move \(id) \(before ? "before" : "after") \(anchor)"
                            _ = try store.write { try $0.move(id, to: before ? .before(anchor) : .after(anchor)) }
                            if id != anchor {
                                var rest = ref.order.filter { $0 != id }
                                let a = rest.firstIndex(of: anchor)!
                                rest.insert(id, at: before ? a : a + 1)
                                if rest != ref.order {
                                    ref.order = rest
                                    ref.todos[id]!.updated = now
                                }
                            }
                        }
                    case 40..<55: // edit one field
                        let id = pick(&rng)
                        var patch = TodoPatch()
                        switch Int.random(in: 0..<9, using: &rng) {
                        case 0: patch.title = .set(titles.randomElement(using: &rng)!)
                        case 1: patch.notes = Bool.random(using: &rng) ? .set("メモ \(step)") : .clear
                        case 2:
                            patch.category =
                                Bool.random(using: &rng) ? .set(categoryNames.randomElement(using: &rng)!) : .clear
                        case 3: patch.due = Bool.random(using: &rng) ? .set(now.adding(usec: 3_600_000_000)) : .clear
                        case 4: patch.priority = randomPriority(&rng).map { .set($0) } ?? .clear
                        case 5: // replace, add, remove in one change
                            if Bool.random(using: &rng) {
                                patch.tags = Bool.random(using: &rng) ? .set(randomTags(&rng)) : .clear
                            }
                            patch.addTags = randomTags(&rng)
                            patch.removeTags = randomTags(&rng)
                        case 6:
                            patch.recurrence =
                                Bool.random(using: &rng)
                                ? .set(TodoRecurrence(rule: SimpleRule.random(using: &rng).text)) : .clear
                        case 7: patch.addTags = ["two words"] // invalid: must change nothing
                        default: patch.title = .set("") // invalid: must change nothing
                        }
                        description = "edit \(id) \(patch)"
                        let updated = try store.write { try $0.update(id, patch) }
                        var todo = ref.todos[id]!
                        let old = todo
                        if case .set(let t) = patch.title { todo.title = t }
                        if case .set(let n) = patch.notes { todo.notes = n }
                        if case .clear = patch.notes { todo.notes = nil }
                        if case .set(let c) = patch.category { todo.category = ref.categoryName(creating: c) }
                        if case .clear = patch.category { todo.category = nil }
                        if case .set(let d) = patch.due {
                            todo.due = d
                            todo.remind =
                                old.due == nil
                                ? (old.remind ?? d) : old.remind.map { d.adding(usec: $0.usec - old.due!.usec) }
                        }
                        if case .clear = patch.due {
                            todo.due = nil
                            todo.remind = nil
                        }
                        if case .set(let p) = patch.priority { todo.priority = p }
                        if case .clear = patch.priority { todo.priority = nil }
                        if case .set(let t) = patch.tags { todo.tags = Reference.tagSet(t) }
                        if case .clear = patch.tags { todo.tags = [] }
                        todo.tags = Reference.tagSet(todo.tags + patch.addTags)
                        let removed = Set(patch.removeTags.map { $0.lowercased() })
                        todo.tags.removeAll { removed.contains($0.lowercased()) }
                        if case .set(let r) = patch.recurrence { todo.recurrence = r }
                        if case .clear = patch.recurrence { todo.recurrence = nil }
                        // A recurrence needs a due date: refused, so the store must not have changed.
                        #expect(
                            todo.recurrence == nil || todo.due != nil, "a recurrence without a due date was accepted")
                        if todo.due != old.due || todo.remind != old.remind { todo.reminded = nil }
                        if todo != old { todo.updated = now }
                        ref.todos[id] = todo
                        #expect(updated.updated == todo.updated)
                    case 55..<63, 63..<68: // complete or reopen several
                        let complete = op < 63
                        var chosen = (0..<Int.random(in: 1...3, using: &rng)).map { _ in pick(&rng) }
                        if Int.random(in: 0..<10, using: &rng) == 0 { chosen.append(888_888) }
                        let stop = complete && Int.random(in: 0..<4, using: &rng) == 0
                        description = "\(complete ? "complete" : "reopen") \(chosen) stop=\(stop)"
                        _ = try store.write { complete ? try $0.complete(chosen, stop: stop) : try $0.reopen(chosen) }
                        for id in Set(chosen) {
                            if complete {
                                ref.complete(id, stop: stop, now: now)
                            } else if ref.todos[id]!.done {
                                ref.todos[id]!.done = false
                                ref.todos[id]!.completed = nil
                                ref.todos[id]!.updated = now
                            }
                        }
                    case 68..<78: // delete several
                        let chosen = (0..<Int.random(in: 1...2, using: &rng)).map { _ in pick(&rng) }
                        description = "delete \(chosen)"
                        _ = try store.write { try $0.delete(chosen) }
                        for id in Set(chosen) {
                            ref.todos[id] = nil
                            ref.order.removeAll { $0 == id }
                        }
                    case 78..<84: // category add
                        let name =
                            categoryNames.randomElement(using: &rng)! + (Bool.random(using: &rng) ? "" : " \(step % 7)")
                        description = "category add \(name)"
                        let exists = ref.categoryIndex(name) != nil
                        do {
                            _ = try store.write { try $0.addCategory(name) }
                            #expect(!exists)
                            _ = ref.categoryName(creating: name)
                        } catch let error as TodoError where error.code == .conflict {
                            #expect(exists)
                        }
                    case 84..<89: // category rename
                        guard let from = ref.categories.randomElement(using: &rng) else { continue }
                        let to = categoryNames.randomElement(using: &rng)! + " \(step % 5)"
                        description = "category rename \(from.name) -> \(to)"
                        let clash = ref.categoryIndex(to).map { ref.categories[$0].id != from.id } ?? false
                        do {
                            _ = try store.write { try $0.renameCategory(from.name, to: to) }
                            #expect(!clash)
                            let i = ref.categoryIndex(from.name)!
                            ref.categories[i].name = to
                            for (id, todo) in ref.todos where todo.category == from.name {
                                ref.todos[id]!.category = to
                                if to != from.name { ref.todos[id]!.updated = now } // its todos change with it
                            }
                        } catch let error as TodoError where error.code == .conflict {
                            #expect(clash)
                        }
                    case 89..<95: // category delete, forced or not
                        guard let victim = ref.categories.randomElement(using: &rng) else { continue }
                        let force = Bool.random(using: &rng)
                        description = "category rm \(victim.name) force=\(force)"
                        let used = ref.todos.values.contains { $0.category == victim.name }
                        do {
                            _ = try store.write { try $0.deleteCategory(victim.name, force: force) }
                            #expect(force || !used)
                            for (id, todo) in ref.todos where todo.category == victim.name {
                                ref.todos[id]!.category = nil
                                ref.todos[id]!.updated = now
                            }
                            ref.categories.removeAll { $0.id == victim.id }
                        } catch let error as TodoError where error.code == .conflict {
                            #expect(used && !force)
                        }
                    default: // category move
                        guard let c = ref.categories.randomElement(using: &rng) else { continue }
                        let position = Int.random(in: 1...ref.categories.count, using: &rng)
                        description = "category move \(c.name) to \(position)"
                        _ = try store.write { try $0.moveCategory(c.name, to: position) }
                        let i = ref.categories.firstIndex { $0.id == c.id }!
                        let moved = ref.categories.remove(at: i)
                        ref.categories.insert(moved, at: position - 1)
                    }
                } catch let error as TodoError {
                    // Expected refusals: unknown ids, invalid values. The reference is unchanged, and so
                    // must the store be; the comparison below checks it.
                    let expected = error.code == .notFound || error.code == .invalidField
                    if !expected { failure = "step \(step) (\(description)): unexpected \(error)" }
                }
                // A change the store logged can be undone and makes what was undone final.
                if try store.read({ try $0.currentSeq() }) > seqBefore {
                    undoStack.append(refBefore)
                    redoStack.removeAll()
                }
            }

            var query = TodoQuery()
            query.status = .all
            let actual = try store.read { try $0.list(query) }
            let categories = try store.read { try $0.categories() }
            if stripped(actual.todos) != ref.expectedTodos || categories != ref.expectedCategories
                || actual.total != ref.order.count
            {
                failure = failure ?? "step \(step) (\(description)): store and reference differ"
            }
            // The v2 filters, as the reference filters its todos.
            var filtered = TodoQuery()
            filtered.status = [TodoQuery.Status.open, .done, .all].randomElement(using: &rng)!
            filtered.tags = Int.random(in: 0..<3, using: &rng) == 0 ? [] : Array(randomTags(&rng).prefix(2))
            filtered.priority = randomPriority(&rng)
            filtered.recurring = [nil, true, false].randomElement(using: &rng)!
            if Bool.random(using: &rng) {
                filtered.sort = [TodoQuery.SortKey(.priority, descending: Bool.random(using: &rng))]
            }
            let expected = ref.expectedTodos.filter { t in
                (filtered.status == .all || t.done == (filtered.status == .done))
                    && filtered.tags.allSatisfy { tag in t.tags.contains { $0.lowercased() == tag.lowercased() } }
                    && (filtered.priority == nil || t.priority == filtered.priority)
                    && (filtered.recurring == nil || (t.recurrence != nil) == filtered.recurring)
            }
            let rank = { (p: TodoPriority?) -> Int in
                guard let p else { return 4 }
                return filtered.sort.first?.descending == true ? 4 - p.rank : p.rank
            }
            let expectedOrder =
                filtered.sort.isEmpty
                ? expected
                : expected.enumerated().sorted {
                    (rank($0.element.priority), $0.offset) < (rank($1.element.priority), $1.offset)
                }.map(\.element)
            if stripped(try store.read({ try $0.list(filtered) }).todos) != expectedOrder {
                failure = failure ?? "step \(step) (\(description)): listing \(filtered) differs"
            }
            if let failure {
                Issue.record("\(failure) — reproduce with TODOD_MODEL_SEED=\(seed)")
                return
            }
        }
    }
}
