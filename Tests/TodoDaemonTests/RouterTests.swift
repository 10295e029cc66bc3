import Testing
import TodoCore
import TodoProtocol
import TodoStore
import TodoTestSupport

@testable import TodoDaemon

/// A reminder history with canned rows that records what it was asked.
private final class CannedHistory: ReminderHistoryReading, @unchecked Sendable {
    // @unchecked: the tests call `list` from one thread at a time.
    var asked: [(since: Instant?, limit: Int)] = []
    func list(since: Instant?, limit: Int) throws(TodoError) -> [ReminderRecord] {
        asked.append((since, limit))
        return [
            ReminderRecord(
                id: 1, uid: nil, title: nil, category: nil, due: nil, remind: nil, fired: nil, lateUsec: nil,
                allDay: false, zone: nil)
        ]
    }
}

/// `Router` on its own, against a real store file: params decoded, the store called, the result
/// and the events it returns, and the errors it maps.
@Suite struct RouterTests {
    let dir = TemporaryDirectory("router")
    let store: TodoStore
    fileprivate let history = CannedHistory()
    let router: Router

    init() throws {
        store = try TodoStore(path: dir.file("todos.db"))
        router = Router(
            status: StatusSource(
                storeID: "store-1", pid: 42, database: "todos.db", started: 0,
                monotonic: { 90.5 }, databaseProblem: { nil }),
            reminders: history)
    }

    /// Performs one request in a write transaction, as the executor does for a write.
    func perform(_ method: String, _ params: JSONObject = JSONObject(), held: inout HeldImport?) throws
        -> Router.Outcome
    {
        let request = RPCRequest(id: .int(1), method: method, params: params)
        return try store.write { tx in try router.perform(request, in: tx, heldImport: &held) }
    }

    func perform(_ method: String, _ params: JSONObject = JSONObject()) throws -> Router.Outcome {
        var held: HeldImport?
        return try perform(method, params, held: &held)
    }

    /// The error `method` fails with.
    func refusal(_ method: String, _ params: JSONObject = JSONObject()) -> RPCError? {
        do {
            _ = try perform(method, params)
            return nil
        } catch {
            return error as? RPCError
        }
    }

    static func result(_ outcome: Router.Outcome) throws -> JSON {
        try JSON.parse(try #require(outcome.encodedResult))
    }

    static func types(_ outcome: Router.Outcome) -> [EventType] { outcome.events.map(\.type) }

    @Test func addThenGetReturnTheTodoAndAnnounceIt() throws {
        let added = try perform("todo.add", ["title": "牛乳を買う", "category": "買い物"])
        let todo = try Self.result(added)
        #expect(todo["title"] == "牛乳を買う" && todo["category"] == "買い物")
        // The category did not exist: it is created, and announced before the todo.
        #expect(Self.types(added) == [.categoryAdded, .todoAdded])
        let id = try #require(todo["id"]?.intValue)
        let got = try perform("todo.get", ["id": .int(id)])
        #expect(try Self.result(got) == todo)
        #expect(got.events.isEmpty && got.subscription == nil)
        // A second todo in the same category creates nothing.
        #expect(Self.types(try perform("todo.add", ["title": "卵", "category": "買い物"])) == [.todoAdded])
    }

    @Test func badParamsAreRefusedNamingTheField() {
        let cases: [(String, JSONObject, String)] = [
            ("todo.get", [:], "id"),
            ("todo.get", ["id": 0], "id"),
            ("todo.get", ["id": "1"], "id"),
            ("todo.get", ["id": 1, "extra": true], "extra"),
            ("todo.add", ["title": 5], "title"),
            ("todo.add", ["title": "x", "due": "tomorrow"], "due"),
            ("todo.list", ["sort": [["key": "nope"]]], "sort[0].key"),
            ("todo.update", ["id": 1, "notes": 3], "notes"),
            ("todo.complete", ["ids": []], "ids"),
            ("todo.delete", ["ids": [1, "x"]], "ids[1]"),
            ("todo.move", ["id": 1], "position"),
            ("todo.move", ["id": 1, "before": 2, "after": 3], "after"),
            ("todo.snooze", ["id": 1], "until"),
            ("category.list", ["x": 1], "x"),
            ("category.move", ["name": "a", "position": 0], "position"),
            ("watch", ["events": ["todo.added", "nope"]], "events[1]"),
            ("daemon.status", ["verbose": true], "verbose"),
            (
                "store.import", ["format": "todod-export", "version": 1, "categories": [], "todos": [], "more": "yes"],
                "more"
            ),
            (
                "store.import",
                [
                    "format": "todod-export", "version": 1, "categories": [],
                    "todos": [["title": "t", "created": "yesterday"]]
                ], "todos[0].created"
            )
        ]
        for (method, params, field) in cases {
            let error = refusal(method, params)
            #expect(error?.code == RPCError.invalidParamsCode && error?.field == field, "\(method) \(params)")
        }
    }

    @Test func storeErrorsKeepTheirCodes() throws {
        #expect(refusal("todo.get", ["id": 99])?.code == RPCError.notFoundCode)
        _ = try perform("category.add", ["name": "Work"])
        #expect(refusal("category.add", ["name": "work"])?.code == RPCError.conflictCode)
    }

    @Test func anUnknownMethodIsNotFound() {
        let error = refusal("todo.frobnicate")
        #expect(error?.code == RPCError.methodNotFoundCode)
        #expect(error?.message.contains("todo.frobnicate") == true)
    }

    /// Completing reports every todo asked for, but announces only those it changed.
    @Test func completeAndReopenAnnounceOnlyWhatChanged() throws {
        let a = try #require(try Self.result(try perform("todo.add", ["title": "a"]))["id"]?.intValue)
        let b = try #require(try Self.result(try perform("todo.add", ["title": "b"]))["id"]?.intValue)
        _ = try perform("todo.complete", ["ids": [.int(a)]])
        let both = try perform("todo.complete", ["ids": [.int(a), .int(b)]])
        #expect(try Self.result(both).arrayValue?.count == 2)
        guard case .todos(.todoCompleted, let changed)? = both.events.first, both.events.count == 1 else {
            Issue.record("expected one todo.completed event, got \(Self.types(both))")
            return
        }
        #expect(changed.map(\.id) == [b])
        #expect(try perform("todo.complete", ["ids": [.int(b)]]).events.isEmpty)
        #expect(Self.types(try perform("todo.reopen", ["ids": [.int(a)]])) == [.todoReopened])
        #expect(Self.types(try perform("todo.delete", ["ids": [.int(a)]])) == [.todoDeleted])
        #expect(refusal("todo.get", ["id": .int(a)])?.code == RPCError.notFoundCode)
    }

    @Test func aMoveThatChangesNothingIsNotAnnounced() throws {
        let a = try #require(try Self.result(try perform("todo.add", ["title": "a"]))["id"]?.intValue)
        _ = try perform("todo.add", ["title": "b"])
        #expect(try perform("todo.move", ["id": .int(a), "position": 1]).events.isEmpty)
        let moved = try perform("todo.move", ["id": .int(a), "position": 2])
        #expect(try Self.result(moved)["position"] == 2 && Self.types(moved) == [.todoMoved])
    }

    @Test func categoryChangesAreAnnounced() throws {
        _ = try perform("category.add", ["name": "Work"])
        _ = try perform("todo.add", ["title": "t", "category": "Work"])
        let renamed = try perform("category.rename", ["name": "Work", "newName": "Job"])
        guard case .category(.categoryRenamed, let category, let oldName)? = renamed.events.first else {
            Issue.record("expected category.renamed, got \(Self.types(renamed))")
            return
        }
        #expect(category.name == "Job" && oldName == "Work")
        #expect(refusal("category.delete", ["name": "Job"])?.code == RPCError.conflictCode)
        // Forced: the todo it held is announced as updated, now uncategorised.
        let deleted = try perform("category.delete", ["name": "Job", "force": true])
        #expect(Self.types(deleted) == [.categoryDeleted, .todoUpdated])
        #expect(try Self.result(try perform("category.list")) == .array([]))
    }

    @Test func watchSubscribes() throws {
        #expect(try perform("watch").subscription == .all)
        #expect(try perform("watch", ["events": .null]).subscription == .all)
        let some = try perform("watch", ["events": ["todo.added", "reminder"]])
        #expect(some.subscription == .only([.todoAdded, .reminder]))
        #expect(try Self.result(some) == ["subscribed": true])
        #expect(
            Subscription.only([.todoAdded]).includes(.todoAdded)
                && !Subscription.only([.todoAdded]).includes(.todoMoved))
        #expect(!Subscription.unsubscribed.includes(.reminder) && Subscription.all.includes(.reminder))
    }

    @Test func statusReportsTheStoreAndTheDaemon() throws {
        _ = try perform("todo.add", ["title": "a"])
        let status = try Self.result(try perform("daemon.status"))
        #expect(status["storeId"] == "store-1" && status["pid"] == 42)
        // Whole seconds since the start: 90.5 s rounded down.
        #expect(status["uptime"] == .double(90) || status["uptime"] == 90)
        #expect(status["open"] == 1 && status["done"] == 0 && status["databaseProblem"] == .null)
    }

    /// An import in parts holds the parts, writes nothing until the last, then applies them all.
    @Test func importInPartsIsAppliedWithTheLastPart() throws {
        func part(_ title: String, more: Bool) -> JSONObject {
            var p: JSONObject = [
                "format": "todod-export", "version": 1, "categories": ["C"],
                "todos": [["title": .string(title), "created": "2026-11-01T00:00:00Z"]]
            ]
            if more { p["more"] = true }
            return p
        }
        var held: HeldImport?
        let first = try perform("store.import", part("one", more: true), held: &held)
        #expect(try Self.result(first) == ["todos": 1, "categories": 1, "more": true] && first.events.isEmpty)
        #expect(held?.document.todos.count == 1)
        #expect(try Self.result(try perform("todo.list", ["status": "all"]))["total"] == 0)
        let last = try perform("store.import", part("two", more: false), held: &held)
        #expect(held == nil)
        #expect(try Self.result(last)["todos"] == 2)
        #expect(Self.types(last) == [.storeImported])
        let titles = try Self.result(try perform("todo.list", ["status": "all"]))["todos"]?.arrayValue?.compactMap {
            $0["title"]?.stringValue
        }
        #expect(titles == ["one", "two"])
    }

    @Test func reminderListReadsTheHistoryWithTheDefaultLimit() throws {
        let listed = try router.listReminders(RPCRequest(id: .int(1), method: "reminder.list", params: [:]))
        #expect(try Self.result(listed).arrayValue?.map { $0["id"] } == [.int(1)])
        #expect(history.asked.last?.limit == ReminderListParams.defaultLimit && history.asked.last?.since == nil)
        _ = try router.listReminders(
            RPCRequest(id: .int(2), method: "reminder.list", params: ["since": "2026-01-01T00:00:00Z", "limit": 5]))
        #expect(history.asked.last?.limit == 5 && history.asked.last?.since == Instant(rfc3339: "2026-01-01T00:00:00Z"))
        #expect(throws: RPCError.self) {
            try router.listReminders(RPCRequest(id: .int(3), method: "reminder.list", params: ["limit": 0]))
        }
    }
}
