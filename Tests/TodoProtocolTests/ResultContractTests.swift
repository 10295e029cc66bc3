import Testing
import TodoCore
import TodoProtocol

/// Each method's result type: what todod encodes, a client decodes to the same value, and the
/// bytes are the ones the daemon wrote before results had types (the wire stays as it was).
@Suite struct ResultContractTests {
    static let at = Instant(rfc3339: "2026-12-01T09:00:00.5Z") ?? Instant(usec: 0)
    static let todo = Todo(
        id: 3, uid: "u-3", title: "牛乳を買う \"2 L\"", notes: "メモ", category: "買い物", due: at, remind: at,
        done: false, position: 1, created: at, updated: at, tags: ["家"], revision: 2)
    static let category = Category(id: 1, name: "仕事", position: 1, open: 2, done: 1)

    /// Encodes `value`, reads it back through JSON text, and returns the text.
    @discardableResult
    func roundTrip<R: WireCodable & Equatable>(_ value: R) throws -> String {
        let text = String(decoding: value.wireBytes, as: UTF8.self)
        #expect(try R(wire: try JSON.parse(value.wireBytes)) == value, "\(R.self): \(text)")
        return text
    }

    @Test func everyResultTypeRoundTrips() throws {
        let t = Self.todo
        let c = Self.category
        try roundTrip(t)
        try roundTrip([t, t])
        try roundTrip([c])
        try roundTrip(TodoPage(todos: [t], total: 9))
        try roundTrip(
            ReminderRecord(
                id: 3, uid: "u-3", title: "電話", category: nil, due: "2026-12-01T09:00:00Z", remind: Self.at,
                fired: Self.at, lateUsec: 2_000_000, allDay: true, zone: "Asia/Tokyo"))
        try roundTrip(
            DaemonStatus(
                version: "1.0", storeID: "s", pid: 7, uptime: 12, database: "/d/todos.db", open: 2, done: 1,
                nextReminder: Self.at, seq: 5, databaseProblem: nil))
        try roundTrip(WatchAnswer())
        try roundTrip(ImportResult(heldTodos: 4, categories: 1))
        var counts = ImportCounts(todos: 3, categories: 1, added: 1, updated: 1, unchanged: 1)
        try roundTrip(ImportResult(counts))
        counts.conditional = true
        counts.deleted = 1
        counts.stale = ["u-9"]
        try roundTrip(ImportResult(counts))
        try roundTrip(
            ReversalResult(
                seq: 8, description: "add 牛乳", changes: [7], categories: [c], deletedCategories: [],
                todos: [t], deletedTodos: [t]))
        try roundTrip(
            ReversalResult(
                seq: nil, description: "", changes: [], categories: [], deletedCategories: [c], todos: [],
                deletedTodos: []))
        try roundTrip([
            HistoryEntry(
                seq: 4, at: Self.at, kind: .categoryRename, description: "rename", canUndo: true, canRedo: false)
        ])
        try roundTrip(
            ChangesPage(
                seq: 9,
                changes: [
                    .init(seq: 8, kind: .move, uid: "u-3", todo: t, ical: "X-A:1"),
                    .init(seq: 9, kind: .delete, uid: "u-4", todo: nil, ical: nil)
                ], more: true))
        let document = ExportDocument(categories: ["仕事"], todos: [ExportDocument.Entry(t)], exported: Self.at)
        try roundTrip(document)
    }

    /// The hand-written forms `store.changes` and `store.undo` had, byte for byte, and the tree
    /// form the others had.
    @Test func resultsKeepTheirBytes() throws {
        let t = Self.todo
        let todoText = String(decoding: t.encodedJSON, as: UTF8.self)
        let page = ChangesPage(
            seq: 9,
            changes: [
                .init(seq: 8, kind: .categoryRename, uid: "u-3", todo: t, ical: "X-A:1"),
                .init(seq: 9, kind: .delete, uid: "u-4", todo: nil, ical: nil)
            ], more: false)
        #expect(
            try roundTrip(page) == #"{"seq":9,"changes":[{"seq":8,"kind":"category.rename","uid":"u-3","todo":"#
                + todoText
                + #","ical":"X-A:1"},{"seq":9,"kind":"delete","uid":"u-4","todo":null}],"more":false}"#)
        let reversal = ReversalResult(
            seq: nil, description: "a", changes: [1, 2], categories: [Self.category], deletedCategories: [],
            todos: [t], deletedTodos: [])
        #expect(
            try roundTrip(reversal)
                == #"{"seq":null,"description":"a","changes":[1,2],"categories":[{"id":1,"name":"仕事","position":1,"open":2,"done":1}],"deletedCategories":[],"todos":["#
                + todoText + #"],"deletedTodos":[]}"#)
        var counts = ImportCounts(todos: 2, categories: 0, added: 1, updated: 0, unchanged: 1)
        #expect(
            try roundTrip(ImportResult(counts)) == #"{"todos":2,"categories":0,"added":1,"updated":0,"unchanged":1}"#)
        counts.conditional = true
        counts.stale = ["u"]
        #expect(
            try roundTrip(ImportResult(counts))
                == #"{"todos":2,"categories":0,"added":1,"updated":0,"unchanged":1,"deleted":0,"stale":["u"]}"#)
        #expect(try roundTrip(ImportResult(heldTodos: 5, categories: 2)) == #"{"todos":5,"categories":2,"more":true}"#)
        #expect(try roundTrip(WatchAnswer()) == #"{"subscribed":true}"#)
        let status = DaemonStatus(
            version: "1.0", storeID: "s", pid: 7, uptime: 12, database: "d", open: 2, done: 1,
            nextReminder: nil, seq: 5, databaseProblem: nil)
        var tree: [UInt8] = []
        JSON.object([
            "version": "1.0", "storeId": "s", "pid": 7, "uptime": .double(12), "database": "d", "open": 2, "done": 1,
            "nextReminder": .null, "seq": 5, "databaseProblem": .null
        ]).write(to: &tree)
        #expect(status.wireBytes == tree)
    }

    /// A change kind todod does not know is a clear error, not a guess.
    @Test func anUnknownChangeKindIsRefused() throws {
        #expect(throws: DecodingError.self) { try ChangeKind(wire: "teleport") }
        #expect(throws: DecodingError.self) { try ChangeKind(wire: 3) }
        #expect(try ChangeKind(wire: "category.move") == .categoryMove)
        let item: JSON = ["seq": 1, "kind": "teleport", "uid": "u", "todo": .null]
        do {
            _ = try ChangesPage(wire: ["seq": 1, "changes": [item], "more": false])
            Issue.record("an unknown kind was accepted")
        } catch {
            #expect(error.description.contains("unknown change kind \"teleport\""), "\(error.description)")
        }
        for kind in ChangeKind.allCases { #expect(try ChangeKind(wire: .string(kind.rawValue)) == kind) }
    }

    /// Results a client cannot use are refused with the member named; absent counts of an older
    /// todod read as the defaults todoctl always assumed.
    @Test func malformedResultsNameWhatIsWrong() throws {
        do {
            _ = try TodoPage(wire: ["total": "many", "todos": []])
            Issue.record("a string total was accepted")
        } catch {
            #expect(error.description == "todo.list result.total is not an integer")
        }
        #expect(throws: DecodingError.self) { try [Todo](wire: ["todos": []]) }
        #expect(throws: DecodingError.self) { try ReversalResult(wire: ["seq": 1]) }
        let old = try ImportResult(wire: ["todos": 2, "categories": 1])
        #expect(old.added == 2 && old.updated == 0 && old.unchanged == 0 && !old.more && old.stale == nil)
    }

    /// Every method's params type names a result type, and each method has exactly one params
    /// type: the list below is checked against the method enum.
    @Test func everyMethodHasAResultType() {
        func name<P: MethodParams>(_: P.Type) -> String { "\(P.method.name) → \(P.Result.self)" }
        let all = [
            name(TodoGetParams.self), name(TodoAddParams.self), name(TodoListParams.self), name(TodoUpdateParams.self),
            name(TodoCompleteParams.self), name(TodoReopenParams.self), name(TodoDeleteParams.self),
            name(TodoMoveParams.self),
            name(TodoSnoozeParams.self), name(TodoAlarmAckParams.self), name(CategoryListParams.self),
            name(CategoryAddParams.self), name(CategoryRenameParams.self),
            name(CategoryDeleteParams.self), name(CategoryMoveParams.self), name(ReminderListParams.self),
            name(DaemonStatusParams.self),
            name(WatchParams.self), name(StoreExportParams.self), name(StoreImportParams.self),
            name(StoreUndoParams.self),
            name(StoreRedoParams.self), name(StoreHistoryParams.self), name(StoreChangesParams.self),
            name(TodoBatchParams.self)
        ]
        #expect(Set(all.map { String($0.prefix { $0 != " " }) }) == Set(TodoProtocol.Method.allCases.map(\.name)))
        #expect(all.contains("store.changes → ChangesPage") && all.contains("todo.complete → Array<Todo>"))
    }

    /// Watch events are read leniently: a type this client does not know is kept by name (a
    /// newer todod may send it), a reminder from a todod before `todos` still has its todo.
    @Test func watchEventsKeepUnknownTypesByName() throws {
        let todo = try JSON.parse(Self.todo.encodedJSON)
        let renamed = WatchEvent(params: [
            "seq": 4, "type": "category.renamed", "category": ["id": 1, "name": "仕事"], "oldName": "work"
        ])
        #expect(
            renamed.kind == .known(.categoryRenamed) && renamed.seq == 4 && renamed.category?.name == "仕事"
                && renamed.oldName == "work")
        let future = WatchEvent(params: ["seq": 5, "type": "todo.teleported", "todos": [todo]])
        #expect(
            future.kind == .unknown("todo.teleported") && future.kind?.name == "todo.teleported"
                && future.todos == [Self.todo])
        let old = WatchEvent(params: [
            "type": "reminder", "todo": todo, "lateUsec": 3, "fired": "2026-12-01T09:00:00.5Z"
        ])
        #expect(
            old.kind == .known(.reminder) && old.seq == nil && old.todos == [Self.todo] && old.lateUsec == 3
                && old.fired == Self.at)
        let broken = WatchEvent(params: ["type": 3, "todos": [1, todo]])
        #expect(broken.kind == nil && broken.hasTodos && broken.todos == [Self.todo])
    }
}
