import Foundation
import Testing
import TodoCore
import TodoSQLite
import TodoTestSupport

@testable import TodoStore

/// The v2 fields in the store: priority, tags, zone, allDay and recurrence are kept, checked on
/// every write (a refusal names the field and changes nothing), follow the update rules, and a
/// recurring todo advances when completed.
@Suite struct TodoFieldsTests {
    private static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    private func refused(_ field: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation)
    {
        do {
            try body()
            Issue.record("not refused: \(field)", sourceLocation: sourceLocation)
        } catch let error as TodoError {
            #expect(error.code == .invalidField && error.field == field, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func fieldsRoundTripThroughAddGetListAndUpdate() throws {
        let dir = TemporaryDirectory("fields")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let due = Self.at("2026-12-24T00:00:00Z")
        let added = try store.write {
            try $0.add(
                NewTodo(
                    title: "年賀状", due: due, priority: .high, tags: ["仕事", "Home", "home", "errand"],
                    zone: "Asia/Tokyo", allDay: true,
                    recurrence: TodoRecurrence(rule: "rrule:freq=yearly;interval=1", from: .completion)))
        }
        #expect(added.tags == ["errand", "Home", "仕事"]) // the first spelling wins; sorted case-insensitively
        #expect(added.priority == .high && added.zone == "Asia/Tokyo" && added.allDay)
        #expect(added.recurrence == TodoRecurrence(rule: "FREQ=YEARLY", from: .completion)) // canonical text
        let read = try store.read { try $0.todo(added.id) }
        #expect(read == added)
        var q = TodoQuery()
        q.tags = ["HOME"]
        #expect(try store.read { try $0.list(q) }.todos == [added])

        clock.advance(seconds: 60)
        let changed = try store.write {
            try $0.update(
                added.id,
                TodoPatch(
                    priority: .set(.low), tags: .set(["a", "b"]), addTags: ["c", "B"], removeTags: ["A"],
                    zone: .set("Europe/Berlin"), recurrence: .clear))
        }
        #expect(changed.priority == .low && changed.tags == ["b", "c"] && changed.zone == "Europe/Berlin")
        #expect(changed.recurrence == nil && changed.allDay && changed.updated == clock.now)
        q.tags = ["a"]
        #expect(try store.read { try $0.list(q) }.todos.isEmpty)
        q.tags = ["C"]
        #expect(try store.read { try $0.list(q) }.todos.map(\.id) == [added.id])

        // Nothing really changes: `updated` stays.
        clock.advance(seconds: 60)
        let same = try store.write {
            try $0.update(
                added.id,
                TodoPatch(
                    priority: .set(.low), addTags: ["C"], removeTags: ["nothere"], zone: .set("Europe/Berlin"),
                    allDay: true))
        }
        #expect(same == changed)
        // Clearing.
        let cleared = try store.write {
            try $0.update(added.id, TodoPatch(priority: .clear, tags: .clear, zone: .clear))
        }
        #expect(cleared.priority == nil && cleared.tags.isEmpty && cleared.zone == nil)
        #expect(try store.read { try $0.connection.scalar("SELECT COUNT(*) FROM todo_tags") } == 0)
    }

    @Test func badValuesAreRefusedNamingTheFieldAndChangeNothing() throws {
        let dir = TemporaryDirectory("fieldsbad")
        let store = try makeStore(dir)
        let due = Self.at("2026-12-24T09:00:00Z")
        let todo = try store.write { try $0.add(NewTodo(title: "a", due: due, tags: ["keep"])) }
        refused("tags[1]") { _ = try store.write { try $0.add(NewTodo(title: "b", tags: ["ok", "two words"])) } }
        refused("tags[0]") { _ = try store.write { try $0.add(NewTodo(title: "b", tags: ["a,b"])) } }
        refused("tags") { _ = try store.write { try $0.add(NewTodo(title: "b", tags: (0...32).map { "t\($0)" })) } }
        refused("zone") { _ = try store.write { try $0.add(NewTodo(title: "b", zone: "Mars/Olympus_Mons")) } }
        refused("zone") { _ = try store.write { try $0.add(NewTodo(title: "b", zone: "../etc/passwd")) } }
        refused("recurrence.rule") {
            _ = try store.write {
                try $0.add(NewTodo(title: "b", due: due, recurrence: TodoRecurrence(rule: "FREQ=MINUTELY")))
            }
        }
        refused("recurrence.rule") {
            _ = try store.write {
                try $0.add(NewTodo(title: "b", due: due, recurrence: TodoRecurrence(rule: "FREQ=DAILY;BYHOUR=9 ")))
            }
        }
        refused("recurrence") {
            _ = try store.write { try $0.add(NewTodo(title: "b", recurrence: TodoRecurrence(rule: "FREQ=DAILY"))) }
        }
        refused("allDay") { _ = try store.write { try $0.add(NewTodo(title: "b", allDay: true)) } }
        refused("addTags[0]") { _ = try store.write { try $0.update(todo.id, TodoPatch(addTags: [" "])) } }
        refused("removeTags[0]") { _ = try store.write { try $0.update(todo.id, TodoPatch(removeTags: ["a b"])) } }
        refused("addTags") {
            _ = try store.write { try $0.update(todo.id, TodoPatch(addTags: (0..<32).map { "t\($0)" })) }
        }
        refused("zone") { _ = try store.write { try $0.update(todo.id, TodoPatch(zone: .set("Nowhere/City"))) } }
        refused("recurrence.rule") {
            _ = try store.write {
                try $0.update(todo.id, TodoPatch(recurrence: .set(TodoRecurrence(rule: "FREQ=WEEKLY;BYDAY=XX"))))
            }
        }
        refused("allDay") { _ = try store.write { try $0.update(todo.id, TodoPatch(due: .clear, allDay: true)) } }
        let recurring = try store.write {
            try $0.add(NewTodo(title: "r", due: due, recurrence: TodoRecurrence(rule: "FREQ=DAILY")))
        }
        refused("due") { _ = try store.write { try $0.update(recurring.id, TodoPatch(due: .clear)) } }
        let (todos, _) = try everything(store)
        let stored = try store.read { try $0.todo(todo.id) }
        #expect(todos.map(\.title) == ["a", "r"] && todos[0] == stored)
        #expect(todos[0].tags == ["keep"])
        // Clearing both is fine; clearing `due` clears `allDay`, setting it without `allDay` makes it a time.
        let plain = try store.write { try $0.update(recurring.id, TodoPatch(due: .clear, recurrence: .clear)) }
        #expect(plain.due == nil && plain.recurrence == nil)
        let day = try store.write { try $0.update(todo.id, TodoPatch(allDay: true)) }
        #expect(day.allDay)
        #expect(try store.write { try $0.update(todo.id, TodoPatch(due: .set(due.adding(usec: 1)))) }.allDay == false)
        _ = try store.write { try $0.update(todo.id, TodoPatch(allDay: true)) }
        #expect(try store.write { try $0.update(todo.id, TodoPatch(due: .clear)) }.allDay == false)
    }

    /// An all-day todo is overdue only once its day has ended in its zone; `dueBefore` stays on `due`.
    @Test func anAllDayTodoIsOverdueAfterItsDayEnds() throws {
        let dir = TemporaryDirectory("allday")
        let clock = ManualClock(Self.at("2026-12-01T03:00:00Z")) // 12:00 in Tokyo
        let store = try makeStore(dir, clock: clock)
        let tokyoDay = Self.at("2026-11-30T15:00:00Z") // 2026-12-01 00:00 in Tokyo
        let allDay = try store.write {
            try $0.add(NewTodo(title: "today", due: tokyoDay, zone: "Asia/Tokyo", allDay: true))
        }
        let timed = try store.write {
            try $0.add(NewTodo(title: "this morning", due: tokyoDay.adding(usec: 3_600_000_000), zone: "Asia/Tokyo"))
        }
        let utcDay = try store.write {
            try $0.add(NewTodo(title: "utc day", due: Self.at("2026-12-01T00:00:00Z"), allDay: true))
        }
        let overdue = { () throws -> [Int64] in
            var q = TodoQuery()
            q.overdue = true
            return try store.read { try $0.list(q) }.todos.map(\.id)
        }
        #expect(try overdue() == [timed.id])
        var before = TodoQuery()
        before.dueBefore = clock.now
        #expect(try store.read { try $0.list(before) }.todos.map(\.id) == [allDay.id, timed.id, utcDay.id])
        clock.set(Self.at("2026-12-01T15:00:01Z")) // just after midnight in Tokyo: that day is over
        #expect(try overdue() == [allDay.id, timed.id])
        clock.set(Self.at("2026-12-02T00:00:01Z"))
        #expect(try overdue() == [allDay.id, timed.id, utcDay.id])
        // Moving it to the next day moves where its day ends.
        _ = try store.write {
            try $0.update(allDay.id, TodoPatch(due: .set(Self.at("2026-12-01T15:00:00Z")), allDay: true))
        }
        #expect(try overdue() == [timed.id, utcDay.id])
    }

    /// Completing a recurring todo moves `due` to the next occurrence in its zone (09:00 Berlin
    /// stays 09:00 across the March change), keeps the reminder's lead time, clears `reminded`,
    /// records the completion and leaves it open; COUNT runs out, and `stop` ends it now.
    @Test func completingARecurringTodoAdvancesIt() throws {
        let dir = TemporaryDirectory("recur")
        let clock = ManualClock(Self.at("2027-03-27T10:00:00Z"))
        let store = try makeStore(dir, clock: clock)
        let due = Self.at("2027-03-27T08:00:00Z") // Saturday 09:00 in Berlin (UTC+1)
        let lead: Int64 = 15 * 60_000_000
        let todo = try store.write {
            try $0.add(
                NewTodo(
                    title: "Blumen gießen", due: due, remind: due.adding(usec: -lead), zone: "Europe/Berlin",
                    recurrence: TodoRecurrence(rule: "FREQ=DAILY;COUNT=3")))
        }
        _ = try store.write { try $0.markReminded(todo.id, scheduled: todo.remind, at: clock.now) }
        let first = try store.write { try $0.complete([todo.id]) }
        #expect(first.count == 1)
        let next = first[0]
        #expect(next.due == Self.at("2027-03-28T07:00:00Z")) // Sunday 09:00 in Berlin, now UTC+2
        #expect(next.remind == next.due!.adding(usec: -lead) && next.reminded == nil)
        #expect(!next.done && next.completed == clock.now && next.updated == clock.now)
        #expect(next.recurrence?.rule == "FREQ=DAILY;COUNT=2" && next.id == todo.id && next.uid == todo.uid)
        #expect(try store.read { try $0.nextPendingReminder() } == next.remind)
        clock.advance(seconds: 86_400)
        let second = try store.write { try $0.complete([todo.id]) }[0]
        #expect(second.due == Self.at("2027-03-29T07:00:00Z") && !second.done)
        // The last occurrence: completing it ends the todo.
        clock.advance(seconds: 86_400)
        let last = try store.write { try $0.complete([todo.id]) }[0]
        #expect(last.done && last.due == second.due && last.completed == clock.now)
        #expect(try store.read { try $0.nextPendingReminder() } == nil)

        // UNTIL ends it too: the last occurrence on or before it, then closed.
        let until = try store.write {
            try $0.add(
                NewTodo(
                    title: "until", due: Self.at("2027-03-30T07:00:00Z"), zone: "Europe/Berlin",
                    recurrence: TodoRecurrence(rule: "FREQ=DAILY;UNTIL=20270331")))
        }
        let untilNext = try store.write { try $0.complete([until.id]) }[0]
        #expect(!untilNext.done && untilNext.due == Self.at("2027-03-31T07:00:00Z"))
        #expect(try store.write { try $0.complete([until.id]) }[0].done)

        // `stop` ends a recurring todo at once; a plain todo completes as ever beside it.
        let weekly = try store.write {
            try $0.add(NewTodo(title: "weekly", due: due, recurrence: TodoRecurrence(rule: "FREQ=WEEKLY")))
        }
        let plain = try store.write { try $0.add(NewTodo(title: "plain", due: due)) }
        let stopped = try store.write { try $0.complete([weekly.id, plain.id], stop: true) }
        #expect(stopped.allSatisfy(\.done) && stopped[0].due == due && stopped[0].recurrence != nil)
        // Reopened, it recurs again from where it stood.
        _ = try store.write { try $0.reopen([weekly.id]) }
        let advanced = try store.write { try $0.complete([weekly.id, plain.id]) }
        #expect(!advanced[0].done && advanced[0].due! > clock.now && advanced[1].done)
    }

    /// `from: completion` counts the next occurrence from the day it was done, at the due time.
    @Test func aRuleFromCompletionCountsFromTheDayItWasDone() throws {
        let dir = TemporaryDirectory("recurdone")
        let clock = ManualClock(Self.at("2026-12-10T20:00:00Z")) // 11 December 05:00 in Tokyo
        let store = try makeStore(dir, clock: clock)
        let due = Self.at("2026-12-01T00:00:00Z") // 09:00 in Tokyo
        let todo = try store.write {
            try $0.add(
                NewTodo(
                    title: "散髪", due: due, zone: "Asia/Tokyo",
                    recurrence: TodoRecurrence(rule: "FREQ=WEEKLY;INTERVAL=2", from: .completion)))
        }
        let next = try store.write { try $0.complete([todo.id]) }[0]
        #expect(next.due == Self.at("2026-12-25T00:00:00Z")) // 11 December + 2 weeks, 09:00 in Tokyo
    }

    @Test func exportAndImportKeepTheFields() throws {
        let dir = TemporaryDirectory("fieldsexport")
        let store = try makeStore(dir)
        let due = Self.at("2026-12-24T00:00:00Z")
        _ = try store.write {
            try $0.add(
                NewTodo(
                    title: "a", due: due, priority: .medium, tags: ["x", "Ｙ"], zone: "Asia/Kolkata", allDay: true,
                    recurrence: TodoRecurrence(rule: "FREQ=MONTHLY;BYDAY=-1FR")))
        }
        _ = try store.write { try $0.add(NewTodo(title: "b")) }
        let document = try store.read { try $0.export() }
        #expect(
            document.todos[0].priority == .medium && document.todos[0].tags == ["x", "Ｙ"] && document.todos[0].allDay)
        #expect(
            document.todos[0].zone == "Asia/Kolkata" && document.todos[0].recurrence?.rule == "FREQ=MONTHLY;BYDAY=-1FR")
        let other = try TodoStore(path: dir.file("other.db"))
        _ = try other.write { try $0.importDocument(document) }
        #expect(try other.read { try $0.export() }.todos == document.todos)
        var q = TodoQuery()
        q.tags = ["ｙ"]
        #expect(try other.read { try $0.list(q) }.total == 1)
        // A bad entry is refused naming it; nothing is imported.
        var bad = document
        bad.todos[1].tags = ["two words"]
        bad.todos[0].uid = nil
        bad.todos[1].uid = nil
        let third = try TodoStore(path: dir.file("third.db"))
        refused("todos[1].tags[0]") { _ = try third.write { try $0.importDocument(bad) } }
        bad.todos[1].tags = []
        bad.todos[1].recurrence = TodoRecurrence(rule: "FREQ=DAILY")
        refused("todos[1].recurrence") { _ = try third.write { try $0.importDocument(bad) } }
        #expect(try everything(third).0.isEmpty)
    }
}
