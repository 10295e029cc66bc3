import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

/// A todo's alarms (issue 35 item 1): stored as a list, `remind` the next pending firing over
/// them, each firing moving it on, nagging repeats until acknowledged or counted out, and undo,
/// delete and migration giving them back exactly.
@Suite struct AlarmStoreTests {
    let minute: Int64 = 60_000_000

    @Test func theStoredTextRoundTripsEveryKindOfAlarm() {
        let alarms = [
            Alarm(uid: "a-1", trigger: .due(-86_400_000_000)),
            Alarm(
                uid: "a-2", trigger: .start(900_000_000), repeatCount: 3, intervalUsec: 600_000_000,
                acknowledged: Instant(usec: 5), snoozedUntil: Instant(usec: 7)),
            Alarm(uid: "a-3", trigger: .at(Instant(usec: 4_102_444_800_000_000))),
            Alarm(
                uid: "メール", trigger: .due(0),
                ical: "BEGIN:VALARM\r\nACTION:EMAIL\r\nDESCRIPTION:牛乳 \\n back\\slash\r\nEND:VALARM")
        ]
        let text = Alarm.storedText(alarms)
        #expect(Alarm.alarms(storedText: text) == alarms)
        #expect(Alarm.storedText([]) == nil && Alarm.alarms(storedText: nil).isEmpty)
    }

    @Test func severalAlarmsFireOneAfterAnotherAndNameWhichFired() throws {
        let dir = TemporaryDirectory("alarms")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let t0 = clock.now
        let due = t0.adding(usec: 24 * 60 * minute)
        let absolute = t0.adding(usec: 30 * minute)
        let todo = try store.write {
            try $0.add(
                NewTodo(
                    title: "牛乳を買う", due: due,
                    alarms: [
                        Alarm(uid: "", trigger: .due(-15 * minute)), Alarm(uid: "", trigger: .due(-60 * minute)),
                        Alarm(uid: "abs", trigger: .at(absolute))
                    ]))
        }
        #expect(todo.alarms.count == 3 && Set(todo.alarms.map(\.uid)).count == 3 && todo.alarms[2].uid == "abs")
        #expect(todo.remind == absolute)
        #expect(try store.read { try $0.todo(todo.id) }.alarms == todo.alarms)
        #expect(try store.read { try $0.nextPendingReminder() } == absolute)
        // Each firing moves `remind` on and names its alarm; the last sets `reminded`.
        let first = try store.write { try $0.markReminded(todo.id, scheduled: absolute, at: absolute) }
        #expect(first?.uid == "abs" && first?.index == 2)
        #expect(try store.read { try $0.todo(todo.id) }.remind == due.adding(usec: -60 * minute))
        let second = try store.write {
            try $0.markReminded(todo.id, scheduled: due.adding(usec: -60 * minute), at: due.adding(usec: -60 * minute))
        }
        #expect(second?.index == 1)
        _ = try store.write {
            try $0.markReminded(todo.id, scheduled: due.adding(usec: -15 * minute), at: due.adding(usec: -15 * minute))
        }
        let fired = try store.read { try $0.todo(todo.id) }
        #expect(fired.remind == due.adding(usec: -15 * minute) && fired.reminded == due.adding(usec: -15 * minute))
        #expect(try store.read { try $0.nextPendingReminder() } == nil)
        // Firing is no change: nothing to undo but the add.
        #expect(try store.read { try $0.history(limit: 10) }.count == 1)
    }

    @Test func aNaggingAlarmRepeatsUntilAcknowledgedOrCountedOut() throws {
        let dir = TemporaryDirectory("nag")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let due = clock.now.adding(usec: 60 * minute)
        let todo = try store.write {
            try $0.add(
                NewTodo(
                    title: "薬", due: due,
                    alarms: [Alarm(uid: "nag", trigger: .due(0), repeatCount: 3, intervalUsec: 10 * minute)]))
        }
        #expect(todo.remind == due)
        var at = due
        for n in 1...2 {
            let fired = try store.write { try $0.markReminded(todo.id, scheduled: at, at: at) }
            #expect(fired?.uid == "nag")
            at = due.adding(usec: Int64(n) * 10 * minute)
            #expect(try store.read { try $0.todo(todo.id) }.remind == at)
        }
        // Dismissed: no more repeats.
        let acked = try store.write { try $0.acknowledgeAlarm(todo.id, uid: "nag", at: at) }
        #expect(acked.alarms[0].acknowledged == at && acked.reminded != nil)
        #expect(try store.read { try $0.nextPendingReminder() } == nil)
        #expect(throws: TodoError.self) { try store.write { try $0.acknowledgeAlarm(todo.id, uid: "nope", at: at) } }
        // Counted out: four firings, then none.
        let other = try store.write {
            try $0.add(
                NewTodo(
                    title: "二", due: due,
                    alarms: [Alarm(uid: "n2", trigger: .due(0), repeatCount: 3, intervalUsec: 10 * minute)]))
        }
        at = due
        for n in 0...3 {
            #expect(try store.read { try $0.todo(other.id) }.remind == due.adding(usec: Int64(n) * 10 * minute))
            _ = try store.write { try $0.markReminded(other.id, scheduled: at, at: at) }
            at = due.adding(usec: Int64(n + 1) * 10 * minute)
        }
        #expect(try store.read { try $0.todo(other.id) }.reminded != nil)
    }

    /// A snooze delays the alarm that fired, not the todo's later ones: snoozed past the next
    /// alarm, that alarm still fires at its time, then the snoozed one at the snooze, named by
    /// its uid; snoozed before anything fired, the pending alarm is the one delayed. Undo gives
    /// the alarms back.
    @Test func aSnoozeDelaysOnlyTheAlarmThatFired() throws {
        let dir = TemporaryDirectory("snooze-alarm")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let due = clock.now.adding(usec: 60 * minute)
        let todo = try store.write {
            try $0.add(
                NewTodo(
                    title: "会議の準備", due: due,
                    alarms: [Alarm(uid: "early", trigger: .due(-30 * minute)), Alarm(uid: "at-due", trigger: .due(0))]
                ))
        }
        let early = due.adding(usec: -30 * minute)
        clock.set(early)
        #expect(try store.write { try $0.markReminded(todo.id, scheduled: early, at: early) }?.uid == "early")
        // Snoozed 45 minutes, past the alarm at the due time.
        clock.set(early.adding(usec: minute))
        let until = due.adding(usec: 15 * minute)
        let snoozed = try store.write { try $0.snooze(todo.id, until: until) }
        #expect(snoozed.remind == due && snoozed.reminded == nil)
        #expect(snoozed.alarms[0].snoozedUntil == until && snoozed.alarms[0].acknowledged == clock.now)
        #expect(snoozed.alarms[1].snoozedUntil == nil && snoozed.alarms[1].acknowledged == nil)
        clock.set(due)
        #expect(try store.write { try $0.markReminded(todo.id, scheduled: due, at: due) }?.uid == "at-due")
        #expect(try store.read { try $0.todo(todo.id) }.remind == until)
        clock.set(until)
        let again = try store.write { try $0.markReminded(todo.id, scheduled: until, at: until) }
        #expect(again?.uid == "early" && again?.index == 0)
        #expect(try store.read { try $0.todo(todo.id) }.reminded != nil)
        #expect(try store.read { try $0.nextPendingReminder() } == nil)

        // Before anything fired: the pending alarm is delayed, the later one keeps its time.
        clock.set(due.adding(usec: 2 * 60 * minute))
        let t = clock.now
        let other = try store.write {
            try $0.add(
                NewTodo(
                    title: "二つ目", due: t.adding(usec: 20 * minute),
                    alarms: [Alarm(uid: "a", trigger: .due(-10 * minute)), Alarm(uid: "b", trigger: .due(0))]))
        }
        let moved = try store.write { try $0.snooze(other.id, until: t.adding(usec: 30 * minute)) }
        #expect(moved.remind == t.adding(usec: 20 * minute))
        #expect(moved.alarms[0].snoozedUntil == t.adding(usec: 30 * minute) && moved.alarms[1].snoozedUntil == nil)
        // A snooze to a time before the pending reminder changes nothing.
        let kept = try store.write { try $0.snooze(other.id, until: t.adding(usec: 5 * minute)) }
        #expect(kept.alarms == moved.alarms && kept.revision == moved.revision && kept.remind == moved.remind)
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.todo(other.id) }.alarms == other.alarms)
    }

    @Test func editsMoveTheAlarmsAndUndoGivesThemBackExactly() throws {
        let dir = TemporaryDirectory("alarm-undo")
        let clock = ManualClock()
        let store = try makeStore(dir, clock: clock)
        let due = clock.now.adding(usec: 24 * 60 * minute)
        let at = clock.now.adding(usec: 60 * minute)
        let todo = try store.write {
            try $0.add(
                NewTodo(
                    title: "会議", due: due,
                    alarms: [Alarm(uid: "rel", trigger: .due(-15 * minute)), Alarm(uid: "abs", trigger: .at(at))]))
        }
        // Moving the due moves an alarm at an instant by as much; one relative to due follows.
        let moved = try store.write { try $0.update(todo.id, TodoPatch(due: .set(due.adding(usec: 120 * minute)))) }
        #expect(
            moved.alarms[1].trigger == .at(at.adding(usec: 120 * minute))
                && moved.alarms[0].trigger == .due(-15 * minute))
        #expect(moved.remind == at.adding(usec: 120 * minute))
        // Replacing them, then undo: the list as it was, uids included.
        let replaced = try store.write {
            try $0.update(todo.id, TodoPatch(alarms: .set([Alarm(uid: "", trigger: .due(-5 * minute))])))
        }
        #expect(replaced.alarms.count == 1 && replaced.remind == due.adding(usec: 115 * minute))
        _ = try store.write { try $0.undo() }
        #expect(try store.read { try $0.todo(todo.id) }.alarms == moved.alarms)
        _ = try store.write { try $0.redo() }
        #expect(try store.read { try $0.todo(todo.id) }.alarms == replaced.alarms)
        // An old client's `remind` is one alarm at that instant; clearing it clears them.
        let legacy = try store.write { try $0.update(todo.id, TodoPatch(remind: .set(at))) }
        #expect(legacy.alarms.count == 1 && legacy.alarms[0].trigger == .at(at) && legacy.remind == at)
        let cleared = try store.write { try $0.update(todo.id, TodoPatch(remind: .clear)) }
        #expect(cleared.alarms.isEmpty && cleared.remind == nil)
        #expect(throws: TodoError.self) {
            try store.write {
                try $0.update(todo.id, TodoPatch(remind: .set(at), alarms: .set([Alarm(uid: "", trigger: .at(at))])))
            }
        }
        // Delete, undo: back with its alarms.
        _ = try store.write { try $0.undo() }
        let before = try store.read { try $0.todo(todo.id) }
        _ = try store.write { try $0.delete([todo.id]) }
        _ = try store.write { try $0.undo() }
        let back = try store.read { try $0.todo(todo.id) }
        #expect(back.alarms == before.alarms && back.remind == before.remind)
    }

    @Test func badAlarmsAreRefusedAndChangeNothing() throws {
        let dir = TemporaryDirectory("alarm-bad")
        let store = try makeStore(dir, clock: ManualClock())
        let due = Instant(usec: 4_102_444_800_000_000)
        let todo = try store.write { try $0.add(NewTodo(title: "x", due: due)) }
        #expect(todo.alarms.count == 1 && todo.alarms[0].trigger == .due(0) && todo.remind == due)
        let bad: [[Alarm]] = [
            Array(repeating: Alarm(uid: "", trigger: .due(0)), count: Alarm.maxPerTodo + 1),
            [Alarm(uid: "same", trigger: .due(0)), Alarm(uid: "same", trigger: .due(-1))],
            [Alarm(uid: "", trigger: .due(0), repeatCount: 2, intervalUsec: 0)],
            [Alarm(uid: "", trigger: .due(0), repeatCount: Alarm.maxRepeats + 1, intervalUsec: minute)],
            [Alarm(uid: "has space", trigger: .due(0))]
        ]
        for alarms in bad {
            #expect(throws: TodoError.self) {
                try store.write { try $0.update(todo.id, TodoPatch(alarms: .set(alarms))) }
            }
        }
        #expect(try store.read { try $0.todo(todo.id) } == todo)
    }

    /// A store of the previous schema (migrations 1 to 18): a todo's one reminder becomes one
    /// alarm at that instant, still pending or fired as it was.
    @Test func aPreviousSchemaStoreGetsOneAlarmPerReminder() throws {
        let dir = TemporaryDirectory("migrate19")
        let path = dir.file("todos.db")
        let previous = migrations.filter { $0.id <= 18 }
        _ = try ChildProcess.sqlite3(
            path,
            """
            \(MigrationTests.schema(previous))
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid, due, remind)
                VALUES ('古い', '古い', '古い', 65536, 1, 1, 'old-1', 4102444800000000, 4102444000000000);
            INSERT INTO todos (title, title_key, search_key, rank, created, updated, uid)
                VALUES ('なし', 'なし', 'なし', 131072, 1, 1, 'old-2');
            """)
        let store = try TodoStore(path: path)
        let old = try store.read { try $0.todo(1) }
        #expect(old.alarms.count == 1 && old.alarms[0].trigger == .at(Instant(usec: 4_102_444_000_000_000)))
        #expect(old.alarms[0].uid.count == 36 && old.remind == Instant(usec: 4_102_444_000_000_000))
        #expect(try store.read { try $0.todo(2) }.alarms.isEmpty)
        // Moving the due keeps the lead time, as the one reminder did.
        let moved = try store.write {
            try $0.update(1, TodoPatch(due: .set(Instant(usec: 4_102_444_800_000_000 + 3_600_000_000))))
        }
        #expect(moved.remind == Instant(usec: 4_102_444_000_000_000 + 3_600_000_000))
        store.close()
        #expect(try ChildProcess.sqlite3(path, "SELECT max(id) FROM todod_migrations;") == String(migrations.count))
    }
}
