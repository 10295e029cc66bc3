import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoStore
import TodoTestSupport
import TodoTime

@testable import TodoDaemon

@Suite struct ClockWalkTests {
    /// Random adds, edits, completions and clock moves — forward steps, backward steps and long
    /// suspends: every reminder fires exactly once, never before its instant, and none is lost.
    @Test func randomClockStepsLoseNothingAndFireNothingTwice() throws {
        let seed = SeededRandom.seed(from: "TODOD_CLOCK_SEED")
        var rng = SeededRandom(seed: seed)
        let h = try Harness()
        var latestClock = h.clock.now
        for step in 0..<600 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                let offset = Int64.random(in: -600...7200, using: &rng)
                _ = try h.write {
                    try $0.add(NewTodo(title: "t\(step)", due: h.clock.now.adding(usec: offset * 1_000_000)))
                }
            case 4:
                let ids = try h.store.read { try $0.list(TodoQuery()).todos.map(\.id) }
                if let id = ids.randomElement(using: &rng) { _ = try h.write { try $0.complete([id]) } }
            case 5:
                h.clock.advance(seconds: -Double.random(in: 1...3600, using: &rng)) // backward step
                h.store.queue.sync { h.timer.fire() } // a spurious wake-up must fire nothing early
            case 6:
                // suspend
                h.advance(to: h.clock.now.adding(usec: Int64.random(in: 3600...86_400, using: &rng) * 1_000_000))
            default:
                h.advance(to: h.clock.now.adding(usec: Int64.random(in: 1...900, using: &rng) * 1_000_000))
            }
            latestClock = max(latestClock, h.clock.now)
        }
        h.advance(to: latestClock.adding(usec: 10 * 86_400_000_000))
        let all = try h.store.read { tx -> [Todo] in
            var q = TodoQuery()
            q.status = .all
            return try tx.list(q).todos
        }
        let fired = Dictionary(grouping: h.sink.delivered, by: \.todo.id)
        #expect(fired.values.allSatisfy { $0.count == 1 }, "seed \(seed): a reminder fired twice")
        #expect(h.sink.delivered.allSatisfy { $0.fired >= $0.todo.remind! }, "seed \(seed): a reminder fired early")
        for todo in all {
            // Done todos may have fired before they were completed; open ones must all have fired.
            if !todo.done {
                #expect(fired[todo.id] != nil && todo.reminded != nil, "seed \(seed): todo \(todo.id) never fired")
            }
            if fired[todo.id] == nil { #expect(todo.reminded == nil) }
        }
    }
}
