import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoStore
import TodoTestSupport
import TodoTime

@testable import TodoDaemon

@Suite struct ReminderSchedulerTests {
    @Test func rearmsOnEveryKindOfChange() throws {
        let h = try Harness()
        #expect(h.timer.armed == nil)
        let a = try h.write { try $0.add(NewTodo(title: "a", due: h.at(60))) }
        #expect(h.timer.armed == h.at(60))
        _ = try h.write { try $0.add(NewTodo(title: "b", due: h.at(30))) }
        #expect(h.timer.armed == h.at(30))
        _ = try h.write { try $0.update(2, TodoPatch(due: .set(h.at(90)))) }
        #expect(h.timer.armed == h.at(60))
        _ = try h.write { try $0.update(a.id, TodoPatch(remind: .set(h.at(10)))) }
        #expect(h.timer.armed == h.at(10))
        _ = try h.write { try $0.complete([a.id]) }
        #expect(h.timer.armed == h.at(90))
        _ = try h.write { try $0.reopen([a.id]) }
        #expect(h.timer.armed == h.at(10))
        _ = try h.write { try $0.delete([a.id]) }
        #expect(h.timer.armed == h.at(90))
        _ = try h.write { try $0.update(2, TodoPatch(due: .clear)) }
        #expect(h.timer.armed == nil)
        _ = try h.write { try $0.snooze(2, until: h.at(45)) }
        #expect(h.timer.armed == h.at(45))
        #expect(h.sink.delivered.isEmpty)
    }

    @Test func firesOnceInRemindOrderAndRecordsIt() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "late", due: h.at(20))) }
        _ = try h.write { try $0.add(NewTodo(title: "early", due: h.at(10))) }
        _ = try h.write { try $0.add(NewTodo(title: "done", due: h.at(5))) }
        _ = try h.write { try $0.complete([3]) }
        h.advance(to: h.at(10))
        #expect(h.sink.delivered.map(\.todo.title) == ["early"])
        #expect(h.sink.delivered[0].lateUsec == 0)
        #expect(try h.reminded(2) == h.at(10))
        #expect(h.timer.armed == h.at(20))
        h.advance(to: h.at(25))
        #expect(h.sink.delivered.map(\.todo.title) == ["early", "late"])
        #expect(h.sink.delivered[1].lateUsec == 5_000_000)
        #expect(h.reported.map(\.todo.id) == [2, 1])
        // Nothing fires twice, however often the scheduler is asked.
        h.store.queue.sync {
            h.scheduler.rearm()
            h.scheduler.timerFired()
        }
        #expect(h.sink.delivered.count == 2)
        #expect(h.timer.armed == nil)
    }

    @Test func aForwardStepOrALongSuspendFiresEverythingDueAtOnce() throws {
        let h = try Harness()
        for i in 1...5 { _ = try h.write { try $0.add(NewTodo(title: "t\(i)", due: h.at(Int64(i) * 3600))) } }
        h.advance(to: h.at(3 * 3600 + 1)) // the wall clock jumps three hours (or the machine slept)
        #expect(h.sink.delivered.map(\.todo.id) == [1, 2, 3])
        let late: [Int64] = [7_201_000_000, 3_601_000_000, 1_000_000]
        #expect(h.sink.delivered.map(\.lateUsec) == late)
        #expect(h.timer.armed == h.at(4 * 3600))
    }

    @Test func aBackwardStepFiresNothingEarly() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(100))) }
        h.clock.set(h.at(-3600)) // the wall clock steps back an hour
        h.store.queue.sync { h.timer.fire() } // even if the timer went off spuriously
        #expect(h.sink.delivered.isEmpty)
        #expect(h.timer.armed == h.at(100))
        h.advance(to: h.at(99))
        #expect(h.sink.delivered.isEmpty)
        h.advance(to: h.at(100))
        #expect(h.sink.delivered.count == 1)
    }

    @Test func aFailedDeliveryIsRetriedNeverLost() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(10))) }
        h.sink.failNext = 1
        h.advance(to: h.at(10))
        #expect(h.sink.delivered.isEmpty)
        #expect(try h.reminded(1) == nil)
        #expect(h.timer.armed == h.at(10).adding(usec: ReminderScheduler.retryDelayUsec))
        h.advance(to: h.at(15))
        #expect(h.sink.delivered.count == 1)
        #expect(try h.reminded(1) == h.at(15))
    }

    @Test func aThousandDueInTheSameSecondEachFireOnce() throws {
        let h = try Harness()
        try h.store.write { tx in
            for i in 0..<1000 { _ = try tx.add(NewTodo(title: "t\(i)", due: h.at(60).adding(usec: Int64(i) * 997))) }
        }
        h.store.queue.sync { h.scheduler.rearm() }
        h.advance(to: h.at(61))
        #expect(h.sink.delivered.count == 1000)
        // In batches, each recorded and reported before the next, the store queue free in between.
        #expect(h.batches == 1000 / ReminderScheduler.batchSize)
        #expect(h.reported.map(\.todo.id) == h.sink.delivered.map(\.todo.id))
        #expect(Set(h.sink.delivered.map(\.todo.id)).count == 1000)
        #expect(h.sink.delivered.map(\.todo.remind!) == h.sink.delivered.map(\.todo.remind!).sorted())
        #expect(try h.store.read { try $0.nextPendingReminder() } == nil)
    }

    @Test func missedWhileDownFiresAtStart() throws {
        let h = try Harness()
        _ = try h.store.write { try $0.add(NewTodo(title: "t", due: h.at(10))) } // no re-arm: the daemon is down
        h.clock.set(h.at(600))
        h.store.queue.sync { h.scheduler.rearm() } // start-up
        #expect(h.timer.armed == h.at(10)) // in the past: the timer goes off at once
        h.advance(to: h.at(600))
        #expect(h.sink.delivered.count == 1)
        #expect(h.sink.delivered[0].lateUsec == 590_000_000)
    }

    /// Reminders long before 1970 are ordinary overdue ones: they fire at once, once, in order,
    /// and never hold up a later one.
    @Test func remindersBeforeTheEpochFireAtOnceAndHoldNothingUp() throws {
        let h = try Harness()
        let christmas26 = Instant(rfc3339: "0026-12-24T18:00:00Z")!
        _ = try h.write { try $0.add(NewTodo(title: "year 26", due: christmas26)) }
        _ = try h.write { try $0.add(NewTodo(title: "epoch", due: Instant(usec: 0))) }
        _ = try h.write { try $0.add(NewTodo(title: "real", due: h.at(3))) }
        #expect(h.timer.armed == christmas26)
        h.advance(to: h.at(0))
        #expect(h.sink.delivered.map(\.todo.title) == ["year 26", "epoch"])
        #expect(h.timer.armed == h.at(3))
        h.advance(to: h.at(3))
        #expect(h.sink.delivered.map(\.todo.title) == ["year 26", "epoch", "real"])
    }

    /// A sink that blocks (a stalled journal) holds up only the delivery queue: the store queue
    /// answers reads and writes meanwhile, and the reminder is recorded only once delivered.
    @Test func aStalledDeliveryHoldsUpNoStoreWork() throws {
        let h = try Harness()
        let gate = DispatchSemaphore(value: 0)
        h.sink.gate = gate
        _ = try h.write { try $0.add(NewTodo(title: "stalled", due: h.at(1))) }
        h.clock.set(h.at(1))
        h.timer.armed = nil
        h.store.queue.sync { h.timer.fire() } // hands the batch to the (now blocked) delivery queue
        #expect(h.store.queue.sync { h.scheduler.delivering })
        let added = try h.write { try $0.add(NewTodo(title: "meanwhile", due: h.at(2))) }
        #expect(try h.store.read { try $0.todo(added.id) }.title == "meanwhile")
        #expect(try h.reminded(1) == nil)
        h.sink.gate = nil
        gate.signal()
        h.advance(to: h.at(2))
        #expect(h.sink.delivered.map(\.todo.title) == ["stalled", "meanwhile"])
        #expect(try h.reminded(1) != nil && h.reminded(2) != nil)
    }

    /// A refused delivery stays pending and is sent again until it lands: once, not before the
    /// retry delay however many commits re-arm meanwhile.
    @Test func aRefusedDeliveryIsRetriedUntilItLandsOnce() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(10))) }
        h.sink.failNext = 3
        h.advance(to: h.at(10))
        let retry = h.at(10).adding(usec: ReminderScheduler.retryDelayUsec)
        #expect(h.timer.armed == retry)
        _ = try h.write { try $0.add(NewTodo(title: "other", due: h.at(11))) } // a commit re-arms
        #expect(h.timer.armed == retry)
        h.advance(to: h.at(15)) // both refused: each is offered, neither recorded
        #expect(h.sink.delivered.isEmpty && h.sink.failNext == 0)
        #expect(try h.reminded(1) == nil && h.reminded(2) == nil)
        #expect(h.timer.armed == h.at(20))
        h.advance(to: h.at(20))
        #expect(h.sink.delivered.map(\.todo.title) == ["t", "other"])
        #expect(try h.reminded(1) == h.at(20))
        h.advance(to: h.at(60))
        #expect(h.sink.delivered.count == 2)
    }

    /// A reminder snoozed while its delivery was under way keeps the new reminder pending.
    @Test func aSnoozeDuringDeliveryIsNotOverwritten() throws {
        let h = try Harness()
        let gate = DispatchSemaphore(value: 0)
        h.sink.gate = gate
        _ = try h.write { try $0.add(NewTodo(title: "t", due: h.at(1))) }
        h.clock.set(h.at(1))
        h.timer.armed = nil
        h.store.queue.sync { h.timer.fire() }
        _ = try h.write { try $0.snooze(1, until: h.at(100)) }
        h.sink.gate = nil
        gate.signal()
        h.settle()
        #expect(try h.reminded(1) == nil)
        #expect(h.timer.armed == h.at(100))
        h.advance(to: h.at(100))
        #expect(h.sink.delivered.count == 2)
        #expect(try h.reminded(1) == h.at(100))
    }

    /// Halted while a batch is with the journal (the daemon stops or runs its new program): the
    /// batch is recorded before `halt`'s body runs, so the next daemon does not send it again, and
    /// nothing fires afterwards, however it is asked.
    @Test func aHaltWaitsForTheBatchInFlightAndThenFiresNothing() throws {
        let h = try Harness()
        let gate = DispatchSemaphore(value: 0)
        h.sink.gate = gate
        _ = try h.write { try $0.add(NewTodo(title: "in flight", due: h.at(1))) }
        _ = try h.write { try $0.add(NewTodo(title: "next", due: h.at(2))) }
        h.clock.set(h.at(1))
        h.timer.armed = nil
        h.store.queue.sync { h.timer.fire() }
        final class Flag: @unchecked Sendable {
            var halted = false
            var recordedFirst = false
        }
        let flag = Flag()
        h.store.queue.sync {
            h.scheduler.halt(waitingAtMost: 30) { [h] in
                flag.halted = true
                flag.recordedFirst = (try? h.store.readOnQueue { try $0.todo(1) }.reminded) != nil
            }
        }
        #expect(!flag.halted) // the batch is still with the (blocked) journal
        #expect(h.timer.armed == nil)
        h.sink.gate = nil
        gate.signal()
        h.settle()
        #expect(flag.halted && flag.recordedFirst)
        h.clock.set(h.at(10))
        h.store.queue.sync {
            h.scheduler.rearm()
            h.scheduler.timerFired()
            h.scheduler.reevaluate()
        }
        h.settle()
        #expect(h.sink.delivered.map(\.todo.title) == ["in flight"])
        #expect(try h.reminded(2) == nil) // left for the next daemon, which fires it as it starts
        #expect(h.timer.armed == nil)
    }

    /// With nothing in flight, `halt`'s body runs at once.
    @Test func aHaltWithNothingInFlightIsImmediate() throws {
        let h = try Harness()
        _ = try h.write { try $0.add(NewTodo(title: "later", due: h.at(5))) }
        #expect(h.timer.armed == h.at(5))
        var ran = false
        h.store.queue.sync { h.scheduler.halt(waitingAtMost: 30) { ran = true } }
        #expect(ran && h.timer.armed == nil)
    }
}
