import Foundation
import Testing

@testable import TodoCLI

@Suite struct TableTests {
    static let family = "👨‍👩‍👧‍👦"

    /// ID (right), Title (flexible), Category (flexible only when asked), Due (right).
    static func sample(flexibleCategory: Bool = false) -> Table {
        var table = Table(columns: [
            Table.Column("ID", alignment: .right),
            Table.Column("Title", flexible: true),
            Table.Column("Category", flexible: flexibleCategory),
            Table.Column("Due", alignment: .right)
        ])
        table.append(["1", "Buy milk", "home", "in 2h"])
        table.append(["2", "牛乳を買う", "買い物", "3d overdue"])
        table.append(["10", "ｶﾀｶﾅ half-width", "", "in 5m"])
        table.append(["3", "🍣 sushi \(family) 🇯🇵", "食べ物", ""])
        table.append(["4", "cafe\u{301}", "x", "now"])
        return table
    }

    /// The display column at which each cell starts, found by marking cells with U+0001
    /// (which has width 0) through `style`.
    static func cellStarts(_ table: Table, maxWidth: Int? = nil) -> [[Int]] {
        table.render(maxWidth: maxWidth, style: { _, _, text in "\u{1}" + text }).map { line in
            var starts: [Int] = []
            var column = 0
            for c in line {
                if c == "\u{1}" { starts.append(column) } else { column += TerminalText.width(String(c)) }
            }
            return starts
        }
    }

    @Test func rendersExactLines() {
        let lines = Self.sample().render()
        #expect(
            lines == [
                "ID  Title            Category         Due",
                " 1  Buy milk         home           in 2h",
                " 2  牛乳を買う       買い物    3d overdue",
                "10  ｶﾀｶﾅ half-width                 in 5m",
                " 3  🍣 sushi \(Self.family) 🇯🇵   食べ物",
                " 4  cafe\u{301}             x                now"
            ])
    }

    @Test func everyColumnStartsAtTheSameDisplayColumn() {
        for maxWidth in [nil, 40, 36, 34, 30, 25] as [Int?] {
            for flexible in [false, true] {
                let starts = Self.cellStarts(Self.sample(flexibleCategory: flexible), maxWidth: maxWidth)
                let longest = starts.map(\.count).max() ?? 0
                #expect(longest == 4)
                for column in 0..<longest {
                    let seen = Set(starts.compactMap { $0.count > column ? $0[column] : nil })
                    #expect(seen.count == 1, "column \(column) with maxWidth \(String(describing: maxWidth)): \(seen)")
                }
            }
        }
        #expect(Self.cellStarts(Self.sample())[0] == [0, 4, 21, 31])
    }

    @Test func noTrailingSpaces() {
        for maxWidth in [nil, 30] as [Int?] {
            for line in Self.sample().render(maxWidth: maxWidth) {
                #expect(line.last.map { !$0.isWhitespace } ?? true, "\(line)")
            }
        }
    }

    @Test func truncatesFlexibleColumnsToFit() {
        let table = Self.sample()
        #expect(table.render(maxWidth: 41) == table.render())
        #expect(
            table.render(maxWidth: 36) == [
                "ID  Title       Category         Due",
                " 1  Buy milk    home           in 2h",
                " 2  牛乳を買う  買い物    3d overdue",
                "10  ｶﾀｶﾅ half…                 in 5m",
                " 3  🍣 sushi…   食べ物",
                " 4  cafe\u{301}        x                now"
            ])
        // 8 columns: "牛乳を買" would need 8 plus the ellipsis, so the cut is 7 wide and padded by one space.
        let narrow = table.render(maxWidth: 34)
        #expect(narrow[2] == " 2  牛乳を…   買い物    3d overdue")
        #expect(narrow[3] == "10  ｶﾀｶﾅ ha…                 in 5m")
    }

    @Test func widthStaysWithinTheLimitWhenItCan() {
        // Fixed columns: ID 2 + Due 10 + separators 6; flexible Title and Category shrink to 5 each.
        let smallest = 2 + 5 + 5 + 10 + 6
        let table = Self.sample(flexibleCategory: true)
        for maxWidth in 10...45 {
            let lines = table.render(maxWidth: maxWidth)
            #expect(lines.count == 6)
            for line in lines {
                #expect(TerminalText.width(line) <= max(maxWidth, smallest), "\(maxWidth): \(line)")
            }
        }
        // The widest flexible column shrinks first: Title (15) before Category (8).
        #expect(table.render(maxWidth: 38)[0] == "ID  Title         Category         Due")
        #expect(table.render(maxWidth: 30)[0] == "ID  Title   Categ…         Due")
    }

    @Test func styleSeesPaddedRawTextAndDoesNotAffectAlignment() {
        var calls: [String] = []
        let styled = Self.sample().render(style: { row, column, text in
            calls.append("\(row.map(String.init) ?? "h"):\(column):\(text)")
            return "\u{1B}[1m" + text + "\u{1B}[0m"
        })
        let plain = Self.sample().render()
        let stripped = styled.map {
            $0.replacingOccurrences(of: "\u{1B}[1m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        }
        #expect(stripped == plain)
        #expect(calls.contains("h:1:Title          "))
        #expect(calls.contains("h:3:       Due"))
        #expect(calls.contains("1:1:牛乳を買う     "))
        #expect(calls.contains("3:2:食べ物")) // last printed cell: not padded
        #expect(!calls.contains { $0.hasPrefix("3:3:") }) // empty trailing cell: left out
        #expect(calls.contains("2:2:        ")) // empty middle cell: padded
    }

    @Test func missingExtraAndMultiLineCells() {
        var table = Table(columns: [Table.Column("A"), Table.Column("B")])
        table.append(["x"])
        table.append(["1", "2", "ignored"])
        table.append(["line\none", "tab\there"])
        #expect(
            table.render() == [
                "A         B",
                "x",
                "1         2",
                "line one  tab here"
            ])
        #expect(Table(columns: []).render() == [])
        #expect(Table(columns: [Table.Column("Only")]).render() == ["Only"])
    }
}
