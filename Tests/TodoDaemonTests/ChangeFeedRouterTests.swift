import Testing
import TodoCore
import TodoProtocol
import TodoStore
import TodoTestSupport

@testable import TodoDaemon

/// `store.changes`, `watch` `since` and `seq` through `Router`, against a real store file whose
/// change log keeps only a few changes (so -32005 is reachable).
@Suite struct ChangeFeedRouterTests {
    let dir = TemporaryDirectory("feed")
    let clock = ManualClock()
    let store: TodoStore
    let router = Router(
        status: StatusSource(
            storeID: "s", pid: 1, database: "todos.db", started: 0, monotonic: { 0 }, databaseProblem: { nil }),
        reminders: NoHistory())

    init() throws {
        store = try TodoStore(
            path: dir.file("todos.db"), clock: clock.source,
            retention: LogRetention(changes: 5, ageUsec: 60_000_000, rowsPerCommit: 1000))
    }

    func perform(_ method: String, _ params: JSONObject = JSONObject()) throws -> Router.Outcome {
        var held: HeldImport?
        clock.advance(seconds: 61) // every change older than the kept age by the next one
        return try store.write { tx in
            try router.perform(RPCRequest(id: .int(1), method: method, params: params), in: tx, heldImport: &held)
        }
    }

    func result(_ method: String, _ params: JSONObject = JSONObject()) throws -> JSON {
        try JSON.parse(try #require(try perform(method, params).encodedResult))
    }

    func code(_ method: String, _ params: JSONObject) -> Int? {
        do {
            _ = try perform(method, params)
            return nil
        } catch { return (error as? RPCError)?.code }
    }

    @Test func eachChangesEventsCarryItsSeqAndStatusTheNewest() throws {
        #expect(try result("daemon.status")["seq"] == 0)
        let add = try perform("todo.add", ["title": "牛乳", "category": "買い物"])
        #expect(add.seq == 1 && add.events.map(\.type) == [.categoryAdded, .todoAdded])
        #expect(try JSON.parse(add.events[1].line(seq: add.seq))["params"]?["seq"] == 1)
        let noChange = try perform("todo.update", ["id": 1, "title": "牛乳"])
        #expect(noChange.events.isEmpty && noChange.seq == nil)
        #expect(try perform("todo.complete", ["ids": [1]]).seq == 2)
        #expect(try result("daemon.status")["seq"] == 2)
    }

    @Test func aPageEndsAtAChangesEndAndEveryTodoComesOnceAtItsLatestChange() throws {
        for title in ["a", "b", "c"] { _ = try perform("todo.add", ["title": .string(title)]) } // seq 1-3
        _ = try perform("todo.complete", ["ids": [1, 2, 3]]) // seq 4: three todos in one change
        _ = try perform("todo.delete", ["ids": [2]]) // seq 5
        let all = try result("store.changes", ["since": 0])
        #expect(all["seq"] == 5 && all["more"] == false)
        let items = try #require(all["changes"]?.arrayValue)
        #expect(items.map { $0["seq"]?.intValue ?? 0 } == [4, 4, 5])
        #expect(items.map { $0["kind"]?.stringValue ?? "" } == ["complete", "complete", "delete"])
        #expect(items[2]["todo"] == .null && items[2]["uid"]?.stringValue?.count == 36)
        #expect(items[0]["todo"]?["done"] == true)
        // A limit of 1 would split change 4: the page holds it whole and says where to go on.
        let first = try result("store.changes", ["since": 0, "limit": 1])
        #expect(first["changes"]?.arrayValue?.count == 2 && first["more"] == true && first["seq"] == 4)
        let second = try result("store.changes", ["since": 4, "limit": 1])
        #expect(second["changes"]?.arrayValue?.count == 1 && second["more"] == false && second["seq"] == 5)
        let none = try result("store.changes", ["since": 5])
        #expect(none["changes"] == [] && none["more"] == false && none["seq"] == 5)
    }

    @Test func aSinceTheLogNoLongerReachesIsHistoryGoneAndOneAfterTheNewestIsRefused() throws {
        for i in 1...9 { _ = try perform("todo.add", ["title": .string("t\(i)")]) }
        // Kept: the last 5 changes (5...9) once each is older than the kept age.
        #expect(code("store.changes", ["since": 3]) == RPCError.historyGoneCode)
        #expect(code("watch", ["since": 0]) == RPCError.historyGoneCode)
        #expect(code("watch", ["since": .int(Int64.max)]) == RPCError.invalidParamsCode) // read in pages: no overflow
        #expect(code("store.changes", ["since": 5]) == nil)
        #expect(code("store.changes", ["since": 10]) == RPCError.invalidParamsCode)
        let replay = try perform("watch", ["since": 6])
        #expect(try (replay.replay?.lines ?? []).map { try JSON.parse($0)["params"]?["seq"] } == [7, 8, 9])
    }

    @Test func theReplayIsWhatTheLiveSubscriberWasSentAsTheLogRecordedIt() throws {
        var live: [(Int64?, EventType, String)] = []
        func run(_ method: String, _ params: JSONObject) throws {
            let outcome = try perform(method, params)
            for event in outcome.events { live.append((outcome.seq, event.type, Self.name(event))) }
        }
        try run("todo.add", ["title": "一", "category": "仕事"])
        try run("todo.add", ["title": "two"])
        try run("todo.update", ["id": 1, "title": "one"])
        try run("category.rename", ["name": "仕事", "newName": "Work"])
        try run("category.delete", ["name": "Work", "force": true])
        let replay = try (perform("watch", ["since": 0]).replay?.lines ?? []).map {
            try JSON.parse($0)["params"] ?? .null
        }
        #expect(replay.map { $0["seq"]?.intValue } == live.map(\.0))
        #expect(replay.map { $0["type"]?.stringValue } == live.map(\.1.name))
        func first(_ event: JSON) -> JSON? { event["todos"]?.arrayValue?.first }
        #expect(
            replay.map { first($0)?["title"]?.stringValue ?? $0["category"]?["name"]?.stringValue } == live.map(\.2))
        // The title as it was then, not as it is now; positions are not replayed.
        #expect(first(replay[1])?["title"] == "一" && first(replay[1])?["position"] == .null)
        #expect(replay[4]["oldName"] == "仕事")
        // Filtered as the live events are.
        let only = try perform("watch", ["since": 0, "events": ["category.deleted"]]).replay?.lines
        #expect(only?.count == 1)
    }

    static func name(_ event: Event) -> String {
        switch event {
        case .todos(_, let todos): todos[0].title
        case .category(_, let category, _): category.name
        default: ""
        }
    }
}

private struct NoHistory: ReminderHistoryReading {
    func list(since: Instant?, limit: Int) throws(TodoError) -> [ReminderRecord] { [] }
}
