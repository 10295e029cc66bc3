import Testing
import TodoCore
import TodoProtocol

@testable import TodoDaemon

/// Every event is written as one valid notification line that reads back to what it reports.
@Suite struct EventsTests {
    static let now = Instant(rfc3339: "2026-12-01T09:00:00Z")!
    static let todo = Todo(
        id: 12, uid: "0f8fad5b-d9cb-469f-a165-70867728950e", title: "牛乳を買う \"2\"", category: "買い物",
        due: now, remind: now, position: 1, created: now, updated: now)

    @Test(
        arguments: [
            Event.todos(.todoAdded, [todo]),
            Event.category(
                .categoryRenamed, Category(id: 1, name: "仕事", position: 1, open: 1, done: 0), oldName: "work"),
            Event.imported(todos: 3, categories: 1),
            Event.reminder(FiredReminder(todo: todo, fired: now, lateUsec: 1500)),
            Event.reminderSummary(Array(repeating: FiredReminder(todo: todo, fired: now, lateUsec: 1500), count: 12)),
            Event.loggedCategory(.categoryRenamed, id: 1, name: "仕事", oldName: "work")
        ], [nil, 7] as [Int64?])
    func eachEventIsOneValidNotification(event: Event, seq: Int64?) throws {
        let line = event.line(seq: seq)
        #expect(line.last == 0x0A)
        let message = try JSON.parse(line.dropLast())
        #expect(message["jsonrpc"] == "2.0")
        #expect(message["method"] == "event")
        #expect(message["params"]?["type"] == .string(event.type.name))
        #expect(message["params"]?["seq"] == seq.map(JSON.int))
        switch event {
        case .todos, .reminder, .reminderSummary:
            let todo: JSON? =
                if case .array(let todos)? = message["params"]?["todos"] { todos.first } else {
                    message["params"]?["todo"]
                }
            #expect(todo?["title"] == .string(Self.todo.title))
            #expect(todo?["uid"] == .string(Self.todo.uid))
        case .category, .loggedCategory:
            #expect(message["params"]?["oldName"] == "work")
            #expect(message["params"]?["category"]?["name"] == "仕事")
        case .imported:
            #expect(message["params"]?["todos"] == 3)
        }
        if case .reminder = event { #expect(message["params"]?["lateUsec"] == 1500) }
        if case .reminderSummary = event {
            #expect(message["params"]?["summary"] == "12 reminders while suspended")
            #expect(message["params"]?["count"] == 12)
            #expect(message["params"]?["lateUsec"] == 1500)
        }
    }
}
