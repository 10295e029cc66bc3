import Testing
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTime

@testable import TodoCLI

/// `list`'s START columns: the start as DUE shows a due and, while it has not come, how far off
/// it is; there only when a listed todo has a start.
@Suite struct StartColumnTests {
    /// A todo as the daemon sends it, with a start (`allDay` for both dates).
    static func todo(
        _ id: Int64, _ title: String, due: String? = nil, start: String? = nil, allDay: Bool = false,
        done: Bool = false, category: String? = nil
    ) -> JSON {
        var todo = Todo(
            id: id, title: title, category: category, due: due.flatMap(Instant.init(rfc3339:)), done: done,
            completed: done ? Fixtures.now : nil, position: Int(id), created: Fixtures.now,
            updated: Fixtures.now, allDay: allDay)
        todo.start = start.flatMap(Instant.init(rfc3339:))
        return Fixtures.json(todo)
    }

    /// Now is Monday 2026-06-01 12:00 UTC. A start that has come has no distance; one still to
    /// come has it (`tomorrow` for an all-day start, `in 3h`); a done todo's has none. Columns
    /// stay aligned by display width with Japanese titles.
    @Test func startsAreShownAsDueIs() {
        let transport = FieldOptionsTests.listing([
            Self.todo(1, "牛乳を買う", due: "2026-06-02T09:00:00Z", start: "2026-06-01T09:00:00Z", category: "家"),
            Self.todo(2, "準備", start: "2026-06-02T00:00:00Z", allDay: true),
            Self.todo(3, "Pay rent", start: "2026-06-01T15:00:00Z"),
            Self.todo(4, "plain", start: "2026-07-01T00:00:00Z", done: true),
            Self.todo(5, "報告書")
        ])
        let result = FieldOptionsTests.run(["list", "--all"], transport: transport)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdoutLines == [
                "ID  POS  ✓  DUE                       START                       CATEGORY  TITLE",
                " 1    1     2026-06-02 09:00  in 21h  2026-06-01 09:00            家        牛乳を買う",
                " 2    2                               2026-06-02        tomorrow            準備",
                " 3    3                               2026-06-01 15:00  in 3h               Pay rent",
                " 4    4  ✓                            2026-07-01                            plain",
                " 5    5                                                                     報告書"
            ])
        for line in result.stdoutLines.dropFirst() {
            let head = line.prefix { !"牛準P報p".contains($0) }
            #expect(TerminalText.width(String(head)) == 76, "\(line)")
        }
    }

    /// Without a start in the listing there are no START columns: the table is as before.
    @Test func noStartNoColumns() {
        let transport = FieldOptionsTests.listing([Self.todo(1, "牛乳を買う", due: "2026-06-02T09:00:00Z")])
        #expect(
            FieldOptionsTests.run(["list"], transport: transport).stdoutLines == [
                "ID  POS  ✓  DUE                       CATEGORY  TITLE",
                " 1    1     2026-06-02 09:00  in 21h            牛乳を買う"
            ])
    }

    /// A table printed in parts keeps the first part's columns: a later part with a start but
    /// a first without one prints no START cells (its rows stay aligned under the header).
    @Test func thePartsOfAListingShareTheFirstPartsColumns() {
        let human = HumanOutput(now: Fixtures.now, timeZone: .utc, colour: false, maxWidth: nil)
        let decode = { (json: JSON) in
            (try? Todo.decoded(json))
                ?? Todo(id: 0, title: "", position: nil, created: Fixtures.now, updated: Fixtures.now)
        }
        var layout: HumanOutput.ListLayout?
        let first = human.todoTable([decode(Self.todo(1, "a", start: "2026-06-03T00:00:00Z"))], layout: &layout)
        let second = human.todoTable([decode(Self.todo(2, "b"))], layout: &layout)
        #expect(
            first == [
                "ID  POS  ✓  DUE    START              CATEGORY  TITLE",
                " 1    1            2026-06-03  in 2d            a"
            ])
        #expect(second == [" 2    2                                         b"])
        var plain: HumanOutput.ListLayout?
        _ = human.todoTable([decode(Self.todo(1, "a"))], layout: &plain)
        #expect(
            human.todoTable([decode(Self.todo(2, "b", start: "2026-06-03T00:00:00Z"))], layout: &plain)
                == [" 2    2                      b"])
    }
}
