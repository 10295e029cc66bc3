import Testing
import TodoCore
import TodoProtocol

/// The method table and each method's params codec.
@Suite struct MethodContractTests {
    @Test func everyMethodIsFoundByItsNameAndNothingElseIs() {
        for method in TodoProtocol.Method.allCases {
            #expect(TodoProtocol.Method(name: method.name) == method)
        }
        #expect(
            TodoProtocol.Method(name: "todo.Get") == nil && TodoProtocol.Method(name: "") == nil
                && TodoProtocol.Method(name: "todo.get ") == nil)
        let reads = TodoProtocol.Method.allCases.filter { $0.kind == .read }.map(\.name).sorted()
        #expect(
            reads == [
                "category.list", "daemon.status", "reminder.list", "store.changes", "store.export", "store.history",
                "todo.get", "todo.list", "watch"
            ])
        #expect(TodoProtocol.Method.allCases.filter(\.readsJournal) == [.reminderList])
        #expect(
            RPCRequest(id: nil, method: "todo.get").known == .todoGet
                && RPCRequest(id: nil, method: "todo.gte").known == nil)
    }

    /// What a client encodes, the daemon decodes to the same value.
    @Test func paramsRoundTrip() throws {
        let at = try #require(Instant(rfc3339: "2026-12-01T09:00:00Z"))
        func check<P: MethodParams & Equatable>(_ params: P) throws {
            let request = RPCRequest(id: .int(1), params)
            #expect(request.known == P.method)
            #expect(try P(decoding: request.params) == params, "\(P.method.name)")
        }
        try check(TodoGetParams(id: 3))
        try check(TodoAddParams(title: "牛乳", notes: "2 L", category: "買い物", due: at, remind: at, top: true))
        var query = TodoListParams()
        query.status = .done
        query.search = "x"
        query.sort = [TodoQuery.SortKey(.due, descending: true)]
        query.limit = 5
        try check(query)
        try check(TodoUpdateParams(id: 3, patch: TodoPatch(title: .set("t"), notes: .clear, due: .set(at))))
        try check(TodoCompleteParams(ids: [1, 2]))
        try check(TodoReopenParams(ids: [1]))
        try check(TodoDeleteParams(ids: [3]))
        for target in [MoveTarget.position(2), .before(4), .after(5)] {
            try check(TodoMoveParams(id: 1, target: target))
        }
        try check(TodoSnoozeParams(id: 1, until: at))
        try check(TodoAlarmAckParams(id: 1, alarm: "9b2c1f3e-0000-4000-8000-000000000001"))
        try check(
            TodoBatchParams(ops: [
                .update(TodoUpdateParams(id: 3, patch: TodoPatch(title: .set("t")))),
                .complete(TodoCompleteParams(ids: [1, 2], stop: true)),
                .reopen(TodoReopenParams(ids: [4])), .delete(TodoDeleteParams(ids: [5], recursive: true)),
                .move(TodoMoveParams(id: 1, target: .after(2))), .snooze(TodoSnoozeParams(id: 1, until: at))
            ]))
        try check(CategoryListParams())
        try check(CategoryAddParams(name: "Work"))
        try check(CategoryRenameParams(name: "Work", newName: "Job"))
        try check(CategoryDeleteParams(name: "Work", force: true))
        try check(CategoryMoveParams(name: "Work", position: 2))
        try check(ReminderListParams(since: at, limit: 10))
        try check(ReminderListParams())
        try check(DaemonStatusParams())
        try check(WatchParams(events: [.todoAdded, .reminder]))
        try check(WatchParams())
        try check(WatchParams(events: [.todoDeleted], since: 0))
        try check(WatchParams(since: 42))
        try check(StoreChangesParams(since: 0))
        try check(StoreChangesParams(since: 7, limit: 500))
        try check(StoreExportParams())
        try check(
            StoreImportParams(
                document: ["format": "todod-export", "version": 1, "categories": [], "todos": []], more: true))
    }

    /// `since` is a seq (0 or more) and names itself when it is wrong; `limit` is 1…10000.
    @Test func changeLogReadersRefuseBadSeqsByName() {
        func field<P: MethodParams>(_ type: P.Type, _ params: JSONObject) -> String? {
            do {
                _ = try P(decoding: params)
                return nil
            } catch { return error.field }
        }
        #expect(field(StoreChangesParams.self, [:]) == "since")
        #expect(field(StoreChangesParams.self, ["since": -1]) == "since")
        #expect(field(StoreChangesParams.self, ["since": "3"]) == "since")
        #expect(field(StoreChangesParams.self, ["since": 3, "limit": 0]) == "limit")
        #expect(field(StoreChangesParams.self, ["since": 3, "limit": 10_001]) == "limit")
        #expect(field(StoreChangesParams.self, ["since": 3, "until": 4]) == "until")
        #expect(field(WatchParams.self, ["since": -1]) == "since")
        #expect(field(WatchParams.self, ["since": .double(1.5)]) == "since")
        #expect(field(WatchParams.self, ["since": 0]) == nil)
        #expect(RPCError(TodoError.historyGone(since: 3, oldest: 9)).code == -32005)
    }
}
