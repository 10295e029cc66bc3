import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

@Suite struct ReminderQueryTests {
    @Test func nextBatchMarkAndSnooze() throws {
        let dir = TemporaryDirectory("rq")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let t0 = clock.now
        let at = { (seconds: Int64) in t0.adding(usec: seconds * 1_000_000) }
        #expect(try store.read { try $0.nextPendingReminder() } == nil)
        _ = try store.write { try $0.add(NewTodo(title: "late", due: at(30))) } // 1
        _ = try store.write { try $0.add(NewTodo(title: "soon", due: at(10))) } // 2
        _ = try store.write { try $0.add(NewTodo(title: "done", due: at(5))) } // 3
        _ = try store.write { try $0.add(NewTodo(title: "none")) } // 4
        _ = try store.write { try $0.add(NewTodo(title: "gone", due: at(1))) } // 5
        _ = try store.write { try $0.complete([3]) }
        _ = try store.write { try $0.delete([5]) }
        #expect(try store.read { try $0.nextPendingReminder() } == at(10))
        #expect(try store.read { try $0.dueReminders(at: at(9)) }.isEmpty)
        #expect(try store.read { try $0.dueReminders(at: at(60)) }.map(\.id) == [2, 1])
        _ = try store.write { try $0.markReminded(2, scheduled: at(9), at: at(10)) } // moved since: not recorded
        #expect(try store.read { try $0.nextPendingReminder() } == at(10))
        _ = try store.write { try $0.markReminded(5, scheduled: at(1), at: at(10)) } // deleted since: nothing to record
        _ = try store.write { try $0.markReminded(2, scheduled: at(10), at: at(10)) }
        #expect(try store.read { try $0.nextPendingReminder() } == at(30))
        let snoozed = try store.write { try $0.snooze(2, until: at(100)) }
        #expect(snoozed.remind == at(100) && snoozed.reminded == nil)
        #expect(try store.read { try $0.dueReminders(at: at(100)) }.map(\.id) == [1, 2])
        #expect(throws: TodoError.self) { try store.write { try $0.snooze(3, until: at(100)) } }
    }
}
