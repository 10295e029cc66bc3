import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

@Suite struct UpdateTests {
    @Test func updatedChangesOnlyOnRealChange() throws {
        let dir = TemporaryDirectory("upd")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let todo = try store.write { try $0.add(NewTodo(title: "same", category: "Home")) }
        clock.advance(seconds: 60)
        let same = try store.write { try $0.update(todo.id, TodoPatch(title: .set("same"), category: .set("HOME"))) }
        #expect(same.updated == todo.updated)
        let done = try store.write { try $0.complete([todo.id, todo.id]) }
        #expect(done.count == 1 && done[0].done && done[0].completed == clock.now && done[0].updated == clock.now)
        clock.advance(seconds: 60)
        let again = try store.write { try $0.complete([todo.id]) }
        #expect(again[0].updated == done[0].updated)
        let reopened = try store.write { try $0.reopen([todo.id]) }
        #expect(!reopened[0].done && reopened[0].completed == nil && reopened[0].updated == clock.now)
    }

    @Test func dueAndRemindFollowTheRules() throws {
        let dir = TemporaryDirectory("remind")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let due = clock.now.adding(usec: 3_600_000_000)
        let lead: Int64 = 15 * 60_000_000
        var todo = try store.write { try $0.add(NewTodo(title: "a", due: due)) }
        #expect(todo.remind == due) // defaults to due
        todo = try store.write { try $0.update(todo.id, TodoPatch(remind: .set(due.adding(usec: -lead)))) }
        #expect(todo.remind == due.adding(usec: -lead))
        let later = due.adding(usec: 86_400_000_000)
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .set(later))) }
        #expect(todo.remind == later.adding(usec: -lead)) // keeps its lead time
        _ = try store.write { try $0.markReminded(todo.id, scheduled: todo.remind, at: clock.now) }
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .set(due))) }
        #expect(todo.reminded == nil) // re-armed
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .clear)) }
        #expect(todo.due == nil && todo.remind == nil)
        todo = try store.write { try $0.update(todo.id, TodoPatch(due: .set(due))) }
        #expect(todo.remind == due)
        let silent = try store.write { try $0.add(NewTodo(title: "b", due: due, noReminder: true)) }
        #expect(silent.remind == nil)
    }
}
