import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Positions users can use, through the built `todoctl` and a real daemon:
/// `list` numbers the open todos 1..n without gaps, `move --to N` makes a todo the N-th row of
/// that list, a done todo has position null and comes back at its place when reopened.
@Suite struct OpenPositionsTests {
    private func json(_ result: ChildProcess.Result) throws -> JSON {
        #expect(result.status == 0, "\(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    /// `id:position` of every todo in manual order (`-` for none).
    private func order(_ d: DaemonProcess) throws -> [String] {
        try json(d.todoctl(["--json", "list", "--all"])).arrayValue?.map {
            "\($0["id"]?.intValue ?? 0):\($0["position"]?.intValue.map(String.init) ?? ($0["position"] == .null ? "-" : "?"))"
        } ?? []
    }

    @Test func positionsCountTheOpenListAndMovesUseThem() throws {
        let d = try DaemonProcess()
        for i in 1...5 { #expect(try d.todoctl(["add", "タスク\(i)"]).status == 0) }
        #expect(try d.todoctl(["done", "2", "4"]).status == 0)
        #expect(try order(d) == ["1:1", "2:-", "3:2", "4:-", "5:3"])
        // The human list shows POS 1..3 on its three rows.
        let rows = try d.todoctl(["list"]).stdout.split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["1 1", "3 2", "5 3"])
        let shown = try json(d.todoctl(["--json", "show", "2"]))
        #expect(shown["position"] == .null && shown.objectValue?.keys.contains("position") == true)
        #expect(try d.todoctl(["show", "2"]).stdout.contains("Position"))

        let moved = try d.todoctl(["move", "5", "--to", "1"])
        #expect(moved.status == 0 && moved.stdout == "Moved 5 to position 1.\n")
        #expect(try order(d) == ["5:1", "1:2", "2:-", "3:3", "4:-"])
        // A done todo moved to the 2nd row of the open list is the 2nd row once reopened.
        let movedDone = try d.todoctl(["move", "4", "--to", "2"])
        #expect(movedDone.status == 0 && movedDone.stdout.contains("done"))
        #expect(try d.todoctl(["reopen", "4"]).status == 0)
        #expect(try order(d) == ["5:1", "4:2", "1:3", "2:-", "3:4"])
        // Reopening puts a todo back where it was.
        #expect(try d.todoctl(["reopen", "2"]).status == 0)
        #expect(try order(d) == ["5:1", "4:2", "1:3", "2:4", "3:5"])
        #expect(try d.todoctl(["done", "3"]).status == 0)
        // --bottom is after the last open todo; past the open list is refused, naming the range.
        #expect(try d.todoctl(["move", "5", "--bottom"]).stdout == "Moved 5 to position 4.\n")
        #expect(try order(d) == ["4:1", "1:2", "2:3", "5:4", "3:-"])
        let past = try d.todoctl(["move", "1", "--to", "5"])
        #expect(past.status == 1 && past.stderr.contains("between 1 and 4"))
        #expect(try d.todoctl(["move", "4", "--to", "4"]).status == 0)
        #expect(try order(d) == ["1:1", "2:2", "5:3", "4:4", "3:-"])
    }
}
