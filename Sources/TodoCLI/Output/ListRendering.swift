import TodoCore
import TodoTime

/// What the interactive list (TodoUI, `todoctl ui`) draws with: the rows of `list`'s table and
/// the lines of `show`, without colour codes (the screen colours them), so both look as todoctl
/// prints them. Stored text is made safe here as in `list` (control characters and escape
/// sequences never reach the terminal).
package struct ListRendering {
    private let human: HumanOutput

    package init(now: Instant, timeZone: ZoneInfo, width: Int) {
        human = HumanOutput(now: now, timeZone: timeZone, colour: false, maxWidth: width)
    }

    /// The table's header line and one line per todo, at most `width` columns wide; `depths`
    /// indents a subtask's title under its parent's. Without `categoryColumn` (rows shown under
    /// a line per category) the CATEGORY column is left out, as `list --by-category` does.
    package func table(_ todos: [Todo], depths: [Int64: Int] = [:], categoryColumn: Bool = true) -> (
        header: String, rows: [String]
    ) {
        var layout: HumanOutput.ListLayout?
        guard !categoryColumn, !todos.isEmpty else {
            let lines = human.todoTable(todos, layout: &layout, depths: depths)
            return (lines.first ?? "", Array(lines.dropFirst()))
        }
        // One section without a title: the header, its empty title line, the rows.
        let lines = human.todoTable(todos, sections: [(title: "", todos: todos)], layout: &layout, depths: depths)
        return (lines.first ?? "", Array(lines.dropFirst(2)))
    }

    /// `show`'s lines for one todo.
    package func details(_ todo: Todo) -> [String] { human.todoDetails(todo) }

    /// Past due (red in `list`).
    package func isOverdue(_ todo: Todo) -> Bool { todo.due.map { !todo.done && human.isOverdue(todo, $0) } ?? false }

    /// Its start is still ahead (yellow in `list`).
    package func startsLater(_ todo: Todo) -> Bool { todo.start.map { human.isFutureStart(todo, $0) } ?? false }

    /// One line of stored text made safe for the terminal, as `list` prints it.
    package static func safe(_ text: String) -> String { Table.oneLine(text) }
}
