import TodoCore

/// Rows of text cells printed in aligned columns, measured by display width so that East Asian
/// wide characters and emoji stay aligned.
package struct Table: Sendable {
    /// Where a cell's text sits inside its column.
    package enum Alignment: Sendable { case left, right }

    /// One column: its header title, alignment and whether it may shrink.
    package struct Column: Sendable {
        /// The header text.
        package var title: String
        /// Left or right alignment of the header and the cells.
        package var alignment: Alignment
        /// May shrink (truncate with …) when the table is wider than the terminal.
        package var flexible: Bool

        /// A column titled `title`.
        package init(_ title: String, alignment: Alignment = .left, flexible: Bool = false) {
            self.title = title
            self.alignment = alignment
            self.flexible = flexible
        }
    }

    /// The columns, in display order.
    package private(set) var columns: [Column]
    /// The rows appended so far, each with exactly one cell per column.
    package private(set) var rows: [[String]] = []
    /// The display width of each cell of `rows`, measured once.
    private var cellWidths: [[Int]] = []

    /// A flexible column never shrinks below this many columns (or its natural width if smaller).
    static let minimumFlexibleWidth = 5

    /// An empty table with these columns.
    package init(columns: [Column]) {
        self.columns = columns
    }

    /// Adds a row. Missing cells are empty and extra cells are ignored; control characters
    /// (newlines, tabs) become spaces so that every row stays on one line.
    package mutating func append(_ cells: [String]) {
        var row = cells.prefix(columns.count).map(Table.oneLine)
        while row.count < columns.count { row.append("") }
        rows.append(row)
        cellWidths.append(row.map(TerminalText.width))
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
    ///
    /// A table printed in parts (a streamed listing) passes the first part's `columnWidths` as
    /// `widths` for the later parts, with `header` false. A later cell wider than its column is cut
    /// only where the first part was cut to fit `maxWidth` — a flexible column, or the last column
    /// beyond the space left — and otherwise pushes the rest of its line out of alignment.
    package func render(
        maxWidth: Int? = nil, widths fixed: [Int]? = nil, header: Bool = true,
        style: ((Int?, Int, String) -> String)? = nil
    ) -> [String] {
        guard !columns.isEmpty else { return [] }
        let widths = fixed ?? columnWidths(maxWidth: maxWidth)
        var limits = widths
        if fixed != nil {
            let last = widths.count - 1
            for i in widths.indices {
                guard let maxWidth else {
                    limits[i] = .max
                    continue
                }
                if i == last {
                    limits[i] = max(widths[i], maxWidth - widths[..<i].reduce(2 * i, +))
                } else if !columns[i].flexible {
                    limits[i] = .max
                }
            }
        }
        var lines: [String] = []
        let titles = columns.map { Table.oneLine($0.title) }
        if header {
            lines.append(
                line(
                    titles, cellWidths: titles.map(TerminalText.width), widths: widths, limits: widths, row: nil,
                    style: style))
        }
        for (index, row) in rows.enumerated() {
            lines.append(
                line(row, cellWidths: cellWidths[index], widths: widths, limits: limits, row: index, style: style))
        }
        return lines
    }

    // MARK: - Layout

    /// The width of each column after shrinking flexible columns to fit `maxWidth`.
    package func columnWidths(maxWidth: Int?) -> [Int] {
        var widths = columns.map { TerminalText.width(Table.oneLine($0.title)) }
        for row in cellWidths {
            for (i, width) in row.enumerated() {
                widths[i] = max(widths[i], width)
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

    /// One printed line: cells cut to `limits` and padded to `widths`, joined by two spaces.
    /// `cellWidths` are the cells' display widths.
    func line(
        _ cells: [String], cellWidths: [Int], widths: [Int], limits: [Int], row: Int?,
        style: ((Int?, Int, String) -> String)?
    ) -> String {
        var fitted = cells
        var fittedWidths = cellWidths
        for i in cells.indices where cellWidths[i] > limits[i] {
            fitted[i] = TerminalText.truncate(cells[i], to: limits[i])
            fittedWidths[i] = TerminalText.width(fitted[i])
        }
        guard let last = fitted.lastIndex(where: { !$0.allSatisfy(\.isWhitespace) }) else { return "" }
        var out = ""
        for i in 0...last {
            let padding = String(repeating: " ", count: max(0, widths[i] - fittedWidths[i]))
            var text: String
            if columns[i].alignment == .right {
                text = padding + fitted[i]
            } else if i == last {
                text = fitted[i]
            } else {
                text = fitted[i] + padding
            }
            if i == last {
                while let c = text.last, c.isWhitespace { text.removeLast() }
            }
            if i > 0 { out += "  " }
            out += style?(row, i, text) ?? text
        }
        return out
    }

    /// `text` with control characters (general category Cc: U+0000–001F, U+007F–009F) replaced by
    /// spaces, and bidi controls, zero-width and other invisible characters written as `<U+XXXX>`
    /// (`DisplayText.escaped`), so stored text can neither break the line nor disguise itself.
    static func oneLine(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) }
        // Printable ASCII, the common case, needs nothing.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: isControl) else { return DisplayText.escaped(text) }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(isControl(scalar) ? " " : scalar)
        }
        return DisplayText.escaped(String(out))
    }
}
