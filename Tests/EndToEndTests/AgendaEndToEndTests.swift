import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// `todoctl agenda` against a real daemon: overdue open todos first, then the days of the window
/// with what is due on them; done todos and todos after the window are left out.
@Suite struct AgendaEndToEndTests {
    @Test func overdueFirstThenTheDays() throws {
        let d = try DaemonProcess()
        let env = ["TZ": "Asia/Tokyo", "NO_COLOR": "1"]
        for (title, due) in [
            ("期限切れの請求書", "2020-01-01 09:00"), ("明日の会議", "tomorrow 10:00"), ("far away", "+30d"),
            ("finished", "tomorrow 11:00")
        ] {
            let added = try d.todoctl(["add", title, "--due", due], environment: env)
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try d.todoctl(["done", "4"], environment: env).status == 0)
        let result = try d.todoctl(["--json", "agenda", "--days", "3"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSON.parse(result.stdout)
        #expect(document["overdue"]?.arrayValue?.map { $0["id"] } == [1])
        let days = try #require(document["days"]?.arrayValue)
        #expect(days.count == 3)
        #expect(days[0]["items"] == [])
        #expect(days[1]["items"]?.arrayValue?.map { $0["todo"]?["id"] } == [2])
        #expect(days[2]["items"] == [])

        let human = try d.todoctl(["agenda", "--days", "2"], environment: env)
        #expect(human.status == 0, "\(human.stderr)")
        let lines = human.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count > 3 && lines[1] == "Overdue" && lines[2].hasPrefix(" 1  2020-01-01 09:00"))
        #expect(lines.contains { $0.hasSuffix(" today") } && lines.contains { $0.hasSuffix(" tomorrow") })
        // The TITLE column starts at the same terminal column in every row, wide characters included.
        let header = try #require(lines.first)
        let titleColumn = header.distance(
            from: header.startIndex, to: try #require(header.range(of: "TITLE")).lowerBound)
        for title in ["期限切れの請求書", "明日の会議"] {
            let row = try #require(lines.first { $0.hasSuffix(title) })
            #expect(Self.width(String(row.dropLast(title.count))) == titleColumn, "\(row)")
        }
        #expect(!human.stdout.contains("far away") && !human.stdout.contains("finished"))
    }

    /// Terminal columns of ASCII and CJK text (2 for each CJK character).
    static func width(_ s: String) -> Int { s.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 ? 2 : 1) } }
}
