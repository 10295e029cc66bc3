/// Rows of text cells printed in aligned columns, measured by display width so that East Asian
/// wide characters and emoji stay aligned.
public struct Table: Sendable {
    /// Where a cell's text sits inside its column.
    public enum Alignment: Sendable { case left, right }

    /// One column: its header title, alignment and whether it may shrink.
    public struct Column: Sendable {
        /// The header text.
        public var title: String
        /// Left or right alignment of the header and the cells.
        public var alignment: Alignment
        /// May shrink (truncate with …) when the table is wider than the terminal.
        public var flexible: Bool

        /// A column titled `title`.
        public init(_ title: String, alignment: Alignment = .left, flexible: Bool = false) {
            self.title = title
            self.alignment = alignment
            self.flexible = flexible
        }
    }

    /// The columns, in display order.
    public private(set) var columns: [Column]
    /// The rows appended so far, each with exactly one cell per column.
    public private(set) var rows: [[String]] = []

    /// A flexible column never shrinks below this many columns (or its natural width if smaller).
    static let minimumFlexibleWidth = 5

    /// An empty table with these columns.
    public init(columns: [Column]) {
        self.columns = columns
    }

    /// Adds a row. Missing cells are empty and extra cells are ignored; control characters
    /// (newlines, tabs) become spaces so that every row stays on one line.
    public mutating func append(_ cells: [String]) {
        var row = cells.prefix(columns.count).map(Table.oneLine)
        while row.count < columns.count { row.append("") }
        rows.append(row)
    }

    /// Lines of the table: a header line then one line per row, columns separated by two spaces,
    /// every column aligned by display width (TerminalText.width) so Japanese titles and emoji stay
    /// aligned; no trailing spaces; if `maxWidth` is given and the table is wider, flexible columns
    /// are truncated (with …) until it fits. `style` wraps a header or cell in terminal escapes when
    /// colour is on: it receives (rowIndex or nil for header, columnIndex, paddedText) and returns
    /// the text to print — padding is computed on the raw text, before styling.
    ///
    /// Flexible columns shrink one column at a time, always the widest one first, but not below
    /// five columns (or their natural width); if the table still does not fit it is printed wider
    /// than `maxWidth`. Empty cells at the end of a line are left out and the last printed cell is
    /// not padded on the right, so `style` is not called for them.
    public func render(maxWidth: Int? = nil, style: ((Int?, Int, String) -> String)? = nil) -> [String] {
        guard !columns.isEmpty else { return [] }
        let widths = columnWidths(maxWidth: maxWidth)
        var lines: [String] = []
        lines.append(line(columns.map { Table.oneLine($0.title) }, row: nil, widths: widths, style: style))
        for (index, row) in rows.enumerated() {
            lines.append(line(row, row: index, widths: widths, style: style))
        }
        return lines
    }

    // MARK: - Layout

    /// The width of each column after shrinking flexible columns to fit `maxWidth`.
    func columnWidths(maxWidth: Int?) -> [Int] {
        var widths = columns.map { TerminalText.width(Table.oneLine($0.title)) }
        for row in rows {
            for (i, cell) in row.enumerated() {
                widths[i] = max(widths[i], TerminalText.width(cell))
            }
        }
        guard let maxWidth else { return widths }
        let floors = widths.map { min($0, Table.minimumFlexibleWidth) }
        var total = widths.reduce(0, +) + 2 * (widths.count - 1)
        while total > maxWidth {
            var widest: Int?
            for i in widths.indices where columns[i].flexible && widths[i] > floors[i] {
                if widest.map({ widths[i] > widths[$0] }) ?? true { widest = i }
            }
            guard let i = widest else { break }
            widths[i] -= 1
            total -= 1
        }
        return widths
    }

    /// One printed line: cells truncated and padded to `widths`, joined by two spaces.
    func line(_ cells: [String], row: Int?, widths: [Int], style: ((Int?, Int, String) -> String)?) -> String {
        let fitted = cells.enumerated().map { TerminalText.truncate($0.element, to: widths[$0.offset]) }
        guard let last = fitted.lastIndex(where: { !$0.allSatisfy(\.isWhitespace) }) else { return "" }
        var out = ""
        for i in 0...last {
            var text: String
            if columns[i].alignment == .right {
                text = TerminalText.pad(fitted[i], to: widths[i], alignRight: true)
            } else if i == last {
                text = fitted[i]
            } else {
                text = TerminalText.pad(fitted[i], to: widths[i])
            }
            if i == last {
                while let c = text.last, c.isWhitespace { text.removeLast() }
            }
            if i > 0 { out += "  " }
            out += style?(row, i, text) ?? text
        }
        return out
    }

    /// `text` with control characters replaced by spaces.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(scalar.properties.generalCategory == .control ? " " : scalar)
        }
        return String(out)
    }
}
