import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoRPC
import TodoTime

@testable import TodoCLI

/// `agenda`: one `todo.list` request, overdue todos first, then each day with its due todos and
/// the occurrences of recurring ones in their own zones, aligned with Japanese text.
@Suite struct AgendaTests {
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo")!
    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    static func todo(
        _ id: Int64, _ title: String, due: String, category: String? = nil, zone: String? = nil,
        allDay: Bool = false, rule: String? = nil, from: RecurrenceBase = .due
    ) -> JSON {
        Fixtures.json(
            Todo(
                id: id, title: title, category: category, due: at(due), remind: at(due), position: Int(id),
                created: Fixtures.now, updated: Fixtures.now, zone: zone, allDay: allDay,
                recurrence: rule.map { TodoRecurrence(rule: $0, from: from) }))
    }

    /// Now is Monday 2026-06-01 21:00 in Tokyo.
    static let todos: [JSON] = [
        todo(1, "牛乳を買う", due: "2026-05-30T00:00:00Z", category: "家計"),
        todo(2, "standup", due: "2026-06-01T07:00:00Z", zone: "Europe/Berlin", rule: "FREQ=DAILY"),
        todo(3, "週次レビュー", due: "2026-06-02T00:00:00Z", zone: "Asia/Tokyo", rule: "FREQ=WEEKLY;BYDAY=TU,FR"),
        todo(4, "ゴミ出し", due: "2026-06-01T15:00:00Z", zone: "Asia/Tokyo", allDay: true, rule: "FREQ=DAILY;INTERVAL=2"),
        todo(5, "plain", due: "2026-06-03T03:30:00Z"),
        todo(6, "water plants", due: "2026-06-02T01:00:00Z", zone: "Asia/Tokyo", rule: "FREQ=DAILY", from: .completion)
    ]

    static func transport() -> FakeTransport {
        FakeTransport { method, _ throws(ClientError) in
            method == "todo.list"
                ? ["todos": .array(todos), "total": .int(Int64(todos.count))] : try FakeTransport.canned(method, [:])
        }
    }

    @Test func humanOutput() {
        let transport = Self.transport()
        let result = Fixtures.run(["agenda", "--days", "3"], transport: transport, timeZone: Self.tokyo)
        #expect(result.status == 0)
        // The todos due in the window, then the ones that start in it.
        #expect(transport.methods == ["todo.list", "todo.list"])
        let params = transport.calls.first?.params ?? [:]
        #expect(params["status"] == "open" && params["dueBefore"] == "2026-06-03T15:00:00Z")
        let starts = transport.calls.last?.params ?? [:]
        #expect(
            starts["startAfter"] == "2026-05-31T15:00:00Z" && starts["startBefore"] == "2026-06-03T15:00:00Z",
            "\(starts)")
        #expect(
            result.stdoutLines == [
                "ID  TIME                            CATEGORY  TITLE",
                "Overdue",
                " 1  2026-05-30 09:00  3d overdue    家計      牛乳を買う",
                " 2  2026-06-01 16:00  ↻ 5h overdue            standup",
                "",
                "Mon 2026-06-01 today",
                "  nothing due",
                "",
                "Tue 2026-06-02 tomorrow",
                " 4  all day           ↻                       ゴミ出し",
                " 3  09:00             ↻                       週次レビュー",
                " 6  10:00             ↻                       water plants",
                " 2  16:00             ↻                       standup",
                "",
                "Wed 2026-06-03",
                " 5  12:30                                     plain",
                " 2  16:00             ↻                       standup"
            ])
    }

    @Test func jsonOutput() throws {
        let result = Fixtures.run(
            ["agenda", "--days", "2", "--json"], transport: Self.transport(), timeZone: Self.tokyo)
        let document = try JSON.parse(result.stdout)
        #expect(document["from"] == "2026-05-31T15:00:00Z" && document["through"] == "2026-06-02T15:00:00Z")
        #expect(document["overdue"]?.arrayValue?.map { $0["id"] } == [1, 2])
        let days = try #require(document["days"]?.arrayValue)
        #expect(days.map { $0["date"] } == ["2026-06-01", "2026-06-02"])
        #expect(days[0]["items"] == [])
        let items = try #require(days[1]["items"]?.arrayValue)
        #expect(items.map { $0["todo"]?["id"] } == [4, 3, 6, 2])
        #expect(
            items.map { $0["at"] } == [
                "2026-06-01T15:00:00Z", "2026-06-02T00:00:00Z", "2026-06-02T01:00:00Z", "2026-06-02T07:00:00Z"
            ])
        #expect(items.map { $0["current"] } == [true, true, true, false])
    }

    @Test(arguments: ["0", "367", "week", "-1"])
    func badDays(value: String) {
        let result = Fixtures.run(["agenda", "--days", value], timeZone: Self.tokyo)
        #expect(result.status == 2)
        #expect(
            result.stderrLines.first
                == "todoctl: invalid value \"\(value)\" for --days: expected a number of days from 1 to 366")
    }
}
