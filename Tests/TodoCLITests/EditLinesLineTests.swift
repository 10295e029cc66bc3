import Testing
import TodoCore
import TodoTime

@testable import TodoCLI

/// The lines of `edit` on many todos read back as they were written: titles that look like
/// fields or tags are quoted, values with spaces too, and a changed line becomes exactly the
/// `edit` options of what changed.
@Suite struct EditLinesLineTests {
    func todo(
        _ title: String, category: String? = nil, due: Instant? = nil, allDay: Bool = false, tags: [String] = [],
        priority: TodoPriority? = nil
    ) -> Todo {
        var todo = Todo(
            id: 12, title: title, category: category, due: due, remind: nil, done: false, completed: nil,
            position: 1, created: Fixtures.now, updated: Fixtures.now)
        todo.allDay = allDay
        todo.tags = tags
        todo.priority = priority
        return todo
    }

    @Test func aLineReadsBackAsWritten() throws {
        let due = try #require(Instant(rfc3339: "2026-12-24T15:00:00Z"))
        for t in [
            todo("牛乳を買う", category: "買い物", due: due, tags: ["急ぎ", "shop"], priority: .high),
            todo("Fix the sink", category: "Home Office", due: due, allDay: true),
            todo("\"quoted\" due:x +y"), todo("two  spaces"), todo("+1 は数字"), todo("back\\slash")
        ] {
            let text = EditLines.line(t, timeZone: Fixtures.utc)
            let line = try EditLines.read(text)
            #expect(line.id == 12 && line.title == t.title, "\(text)")
            #expect(line.tags == t.tags, "\(text)")
            #expect(line.values["category"] == t.category, "\(text)")
            #expect(EditLines.options(from: line, to: line).isEmpty)
        }
        let text = EditLines.line(
            todo("牛乳", category: "Home Office", due: due, allDay: true, tags: ["a"]), timeZone: Fixtures.utc)
        #expect(text == "12 牛乳 due:2026-12-24 category:\"Home Office\" +a")
    }

    @Test func aChangedLineIsTheOptionsOfWhatChanged() throws {
        let before = try EditLines.read("12 牛乳 due:2026-12-24 category:買い物 priority:low +a +b")
        let after = try EditLines.read("12 牛乳を2本 due:\"12/25 10:00\" pri:H +b +c")
        #expect(
            EditLines.options(from: before, to: after)
                == [
                    "--title", "牛乳を2本", "--due", "12/25 10:00", "--no-category", "--priority", "H", "--tag", "c",
                    "--untag", "a"
                ])
    }

    @Test func wrongLinesSayWhy() {
        for (line, message) in [
            ("牛乳", "a line starts with the todo's id"), ("12 \"open", "a quote is not closed"),
            ("12 due:today", "todo 12 has no title")
        ] {
            do {
                _ = try EditLines.read(line)
                Issue.record("\(line) was read")
            } catch {
                #expect(error.message == message)
            }
        }
    }
}
