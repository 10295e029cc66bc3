import Foundation
import Testing
import TodoCore
import TodoTestSupport

@testable import TodoStore

@Suite struct ExportImportTests {
    @Test func exportThenImportIntoAnEmptyStoreReproducesIt() throws {
        let a = TemporaryDirectory("exp")
        let clock = ManualClock()
        let source = try makeStore(a, clock: clock)
        _ = try source.write { try $0.addCategory("空") }
        _ = try source.write { try $0.add(NewTodo(title: "一", category: "仕事", due: clock.now)) }
        clock.advance(seconds: 9)
        _ = try source.write { try $0.add(NewTodo(title: "two", notes: "n", top: true)) }
        _ = try source.write { try $0.complete([1]) }
        let document = try source.read { try $0.export() }
        #expect(document.todos.map(\.title) == ["two", "一"])
        #expect(document.categories == ["空", "仕事"])

        let b = TemporaryDirectory("imp")
        let target = try makeStore(b, clock: clock)
        let counts = try target.write { try $0.importDocument(document) }
        #expect(counts == ImportCounts(todos: 2, categories: 2))
        // Everything but the ids and revisions, which the target counts afresh.
        let withoutIDs = { (state: ([Todo], [Category])) in
            (
                state.0.map {
                    var t = $0
                    t.id = 0
                    t.revision = 0
                    return t
                },
                state.1.map {
                    var c = $0
                    c.id = 0
                    return c
                }
            )
        }
        let (expected, actual) = (withoutIDs(try everything(source)), withoutIDs(try everything(target)))
        #expect(actual.0 == expected.0 && actual.1 == expected.1)
    }

    /// An import keeps each todo's uid, makes one for an entry without, never duplicates a uid
    /// the store already has, and refuses (importing nothing) one the document repeats.
    @Test func uidsSurviveAndAreNeverDuplicated() throws {
        let dir = TemporaryDirectory("impuid")
        let store = try makeStore(dir)
        let now = Instant.now()
        let foreign = "040000008200E00074C5B7101A82E008@example.com"
        let document = ExportDocument(
            categories: [],
            todos: [
                .init(title: "kept", created: now, updated: now, uid: "0f8fad5b-d9cb-469f-a165-70867728950e"),
                .init(title: "foreign", created: now, updated: now, uid: foreign),
                .init(title: "none", created: now, updated: now)
            ], exported: now)
        _ = try store.write { try $0.importDocument(document) }
        let todos = try everything(store).0
        #expect(todos.map(\.uid).prefix(2) == ["0f8fad5b-d9cb-469f-a165-70867728950e", foreign])
        #expect(RandomUUID.isWellFormed(todos[2].uid))
        #expect(try store.read { try $0.export() }.todos.map(\.uid) == todos.map(\.uid))
        // The same document again: the known uids are left as they are; only the entry without
        // a uid is new again.
        let again = try store.write { try $0.importDocument(document) }
        #expect(again.added == 1 && again.updated == 0 && again.unchanged == 2)
        let twice = ExportDocument(
            categories: [],
            todos: [
                .init(title: "x", created: now, updated: now, uid: "u-1"),
                .init(title: "y", created: now, updated: now, uid: "u-1")
            ], exported: now)
        do {
            _ = try store.write { try $0.importDocument(twice) }
            Issue.record("a repeated uid was imported")
        } catch {
            #expect((error as? TodoError)?.message.contains("todos[1].uid") == true)
        }
        for bad in ["", "has space", "tab\t"] {
            let doc = ExportDocument(
                categories: [], todos: [.init(title: "z", created: now, updated: now, uid: bad)], exported: now)
            #expect(throws: TodoError.self) { try store.write { try $0.importDocument(doc) } }
        }
        #expect(try everything(store).0.count == 4)
        // An edit never changes the uid.
        let edited = try store.write { try $0.update(1, TodoPatch(title: .set("renamed"))) }
        #expect(edited.uid == todos[0].uid)
    }

    @Test func anInvalidEntryImportsNothing() throws {
        let dir = TemporaryDirectory("impbad")
        let store = try makeStore(dir)
        let now = Instant.now()
        let document = ExportDocument(
            categories: ["新しい"],
            todos: [.init(title: "fine", created: now, updated: now), .init(title: "  ", created: now, updated: now)],
            exported: now)
        #expect(throws: TodoError.invalid("todos[1].title", "must not be empty")) {
            try store.write { try $0.importDocument(document) }
        }
        #expect(try everything(store) == ([], []))
    }

    /// Importing an export twice changes nothing the second time (no todo, no log entry); an
    /// entry with a known uid updates that todo (same id and place) only when it is newer.
    @Test func importMatchesByUID() throws {
        let sourceDir = TemporaryDirectory("imp-src")
        let source = try makeStore(sourceDir)
        let a = try source.write { try $0.add(NewTodo(title: "牛乳を買う", category: "家", tags: ["x"])) }
        _ = try source.write { try $0.add(NewTodo(title: "b")) }
        let export = try source.read { try $0.export() }
        let clock = ManualClock(Instant.now().adding(usec: 60_000_000))
        let dir = TemporaryDirectory("imp-dst")
        let store = try makeStore(dir, clock: clock)
        _ = try store.write { try $0.add(NewTodo(title: "local")) }
        let first = try store.write { try $0.importDocument(export) }
        #expect(first.added == 2 && first.updated == 0 && first.unchanged == 0)
        let state = try everything(store)
        let seq = try store.read { try $0.currentSeq() }
        let second = try store.write { try $0.importDocument(export) }
        #expect(second.added == 0 && second.updated == 0 && second.unchanged == 2)
        #expect(try everything(store) == state)
        #expect(try store.read { try $0.currentSeq() } == seq)

        // Newer in the document: updated in place. Older: left.
        var newer = export
        newer.todos[0].title = "牛乳を2本買う"
        newer.todos[0].updated = export.todos[0].updated.adding(usec: 1_000_000)
        newer.todos[1].title = "older"
        newer.todos[1].updated = export.todos[1].updated.adding(usec: -1_000_000)
        let third = try store.write { try $0.importDocument(newer) }
        #expect(third.added == 0 && third.updated == 1 && third.unchanged == 1)
        let todos = try everything(store).0
        let updated = todos.first { $0.uid == a.uid }
        #expect(
            updated?.title == "牛乳を2本買う" && updated?.position == 2 && updated?.category == "家" && updated?.tags == ["x"])
        #expect(todos.contains { $0.title == "b" } && !todos.contains { $0.title == "older" })
        // Undoing that import restores what it updated.
        _ = try store.write { try $0.undo() }
        #expect(try everything(store).0.first { $0.uid == a.uid }?.title == "牛乳を買う")
    }
}
