import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoPosix
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// A round that reaches its time limit (sync.conf's `round-limit`, 600 s by default) with writes
/// left ends as pending, not failed: what it sent is kept, what it had no time for is counted,
/// and the next rounds go on until everything is on the server, nothing sent twice. Before, the
/// round failed with "the server did not answer in time" and its PENDING said nothing of what
/// was left.
@Suite(.serialized) struct RoundTimeLimitTests {
    /// A server that takes `delay` seconds for every write. A write that would end after the
    /// round's deadline is carried out, but its answer is cut off at the deadline, as the HTTP
    /// client does (`.timeout`): the worst case, a resource the round does not know it made.
    final class SlowCollection: CalendarCollection, @unchecked Sendable {
        let inner = InMemoryCollection()
        let delay: Double
        /// How long before the deadline the cut-off arrives (the HTTP client's timer can fire a
        /// millisecond or two early).
        let early: Double
        private var deadline: Double?
        private(set) var cutOff = 0
        init(delay: Double, early: Double = 0) {
            self.delay = delay
            self.early = early
        }
        var url: String { inner.url }
        func setDeadline(_ deadline: Double?) { self.deadline = deadline }
        /// The server's slowness is what is tested: the round's time limit runs on the real
        /// monotonic clock (TodoSync's HTTP deadline), so the write takes real time, at most `delay`.
        private func slowly<T>(_ body: () throws(CalDAVError) -> T) throws(CalDAVError) -> T {
            let end = Posix.monotonicSeconds() + delay
            if let deadline, end > deadline {
                Thread.sleep(forTimeInterval: max(0, deadline - early - Posix.monotonicSeconds()))
                _ = try body()
                cutOff += 1
                throw .timeout
            }
            Thread.sleep(forTimeInterval: delay)
            return try body()
        }
        func changes(since token: String?) throws(CalDAVError) -> CollectionDelta { try inner.changes(since: token) }
        func versions() throws(CalDAVError) -> [RemoteVersion] { try inner.versions() }
        func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject] { try inner.fetch(hrefs) }
        func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?) {
            try slowly { () throws(CalDAVError) in try inner.create(name: name, data: data) }
        }
        func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String? {
            try slowly { () throws(CalDAVError) in try inner.update(href: href, data: data, ifMatch: etag) }
        }
        func delete(href: String, ifMatch etag: String) throws(CalDAVError) {
            try slowly { () throws(CalDAVError) in try inner.delete(href: href, ifMatch: etag) }
        }
    }

    static func addTodos(_ m: Machine, _ count: Int) throws {
        let todos = (0..<count).map { i -> JSON in ["title": .string("アップロード \(i)"), "created": "2026-11-01T00:00:00Z"]
        }
        _ = try m.client.result(
            "store.import", ["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)])
    }

    /// 60 todos, 50 ms a PUT, 0.6 s a round: each round sends part, says the rest is pending
    /// and unfinished; the rounds after it finish, every todo once on the server.
    @Test func aRoundOutOfTimeLeavesTheRestPendingForTheNext() throws {
        let m = try Machine()
        try Self.addTodos(m, 60)
        let cal = SlowCollection(delay: 0.05)
        var sent = 0
        var rounds = 0
        var cutBefore = 0
        var report = try m.sync(cal, timeLimit: 0.6)
        #expect(report.unfinished && report.sent > 0 && report.sent < 60, "\(report)")
        #expect(report.summary(account: "home").hasSuffix("pending (the round's time ran out; the next round goes on)"))
        while true {
            // Pending: what is not on the server, and what is but the round never heard of
            // (a creation whose answer the deadline cut off), until the next round finds it.
            sent += report.sent
            #expect(report.pending == 60 - cal.inner.creates + (cal.cutOff - cutBefore), "\(report)")
            guard report.unfinished, rounds < 20 else { break }
            rounds += 1
            cutBefore = cal.cutOff
            report = try m.sync(cal, timeLimit: 0.6)
        }
        #expect(!report.unfinished && report.pending == 0 && rounds >= 1)
        #expect(cal.inner.creates == 60 && sent + cal.cutOff == 60, "each todo sent once")
        #expect(Set(cal.inner.items().keys) == Set(try m.todos().compactMap { $0["uid"]?.stringValue }))
        let quiet = try m.sync(cal, timeLimit: 0.6)
        #expect(quiet.sent == 0 && quiet.received == 0 && quiet.pending == 0 && !quiet.unfinished)
    }

    /// A PUT whose answer the round's deadline cut off (the server made the resource, the round
    /// never heard) is pending like one not started: the round ends without an error, and the
    /// next one finds the resource instead of making a second.
    @Test func aWriteCutOffByTheDeadlineIsPendingNotAFailure() throws {
        let m = try Machine()
        try Self.addTodos(m, 5)
        let cal = SlowCollection(delay: 0.4)
        let first = try m.sync(cal, timeLimit: 1.5)
        #expect(first.unfinished && (1...3).contains(first.sent) && first.pending == 5 - first.sent, "\(first)")
        #expect(cal.cutOff == 1)
        var report = first
        for _ in 0..<10 where report.unfinished { report = try m.sync(cal, timeLimit: 1.5) }
        #expect(!report.unfinished && report.pending == 0, "\(report)")
        #expect(cal.inner.creates == 5 && cal.inner.items().count == 5 && cal.inner.resources.count == 5)
    }

    /// A cut-off that arrives a few milliseconds before the deadline (as curl's, which counts
    /// whole milliseconds) is the deadline's too: pending, not "the server did not answer in
    /// time". Seen in a fresh-clone run against Radicale, one round in a few.
    @Test func aCutOffJustBeforeTheDeadlineIsTheRounds() throws {
        let m = try Machine()
        try Self.addTodos(m, 5)
        let cal = SlowCollection(delay: 0.4, early: 0.003)
        let first = try m.sync(cal, timeLimit: 1.5)
        #expect(
            first.unfinished && cal.cutOff == 1 && first.pending == 5 - first.sent, "\(first), \(cal.cutOff) cut off")
        var report = first
        for _ in 0..<10 where report.unfinished { report = try m.sync(cal, timeLimit: 1.5) }
        #expect(!report.unfinished && report.pending == 0, "\(report)")
        #expect(cal.inner.creates == 5 && cal.inner.items().count == 5)
    }

    /// An account's status says the round was unfinished, with no error, and the next round
    /// (here a second `AccountSync.round`) clears it.
    @Test func theStatusFileSaysTheRoundWasUnfinished() throws {
        let m = try Machine()
        try Self.addTodos(m, 30)
        let cal = SlowCollection(delay: 0.05)
        let (sync, env, home) = try AccountSyncTests.account(m, cal, roundLimit: 1)
        defer { withExtendedLifetime(home) {} }
        let report = try sync.round().get()
        let (status, text) = try AccountSyncTests.status(env)
        #expect(
            report.unfinished && status.unfinished && status.error == nil && status.pending == report.pending, "\(text)"
        )
        #expect(text.contains("\"unfinished\":true"), "\(text)")
        var last = report
        for _ in 0..<10 where last.unfinished { last = try sync.round().get() }
        let (after, _) = try AccountSyncTests.status(env)
        #expect(!after.unfinished && after.pending == 0 && cal.inner.creates == 30)
    }
}
