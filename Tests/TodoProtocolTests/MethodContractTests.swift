import Testing
import TodoCore
import TodoProtocol

/// The method table and each method's params codec.
@Suite struct MethodContractTests {
    @Test func everyMethodIsFoundByItsNameAndNothingElseIs() {
        for method in TodoProtocol.Method.allCases {
            #expect(TodoProtocol.Method(name: method.name) == method)
        }
        #expect(TodoProtocol.Method(name: "todo.Get") == nil && TodoProtocol.Method(name: "") == nil && TodoProtocol.Method(name: "todo.get ") == nil)
        let reads = TodoProtocol.Method.allCases.filter { $0.kind == .read }.map(\.name).sorted()
        #expect(reads == ["category.list", "daemon.status", "reminder.list", "store.export", "store.history", "todo.get", "todo.list", "watch"])
        #expect(TodoProtocol.Method.allCases.filter(\.readsJournal) == [.reminderList])
        #expect(RPCRequest(id: nil, method: "todo.get").known == .todoGet && RPCRequest(id: nil, method: "todo.gte").known == nil)
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
        for target in [MoveTarget.position(2), .before(4), .after(5)] { try check(TodoMoveParams(id: 1, target: target)) }
        try check(TodoSnoozeParams(id: 1, until: at))
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
        try check(StoreExportParams())
        try check(StoreImportParams(document: ["format": "todod-export", "version": 1, "categories": [], "todos": []], more: true))
    }
}
