import TodoCore

/// A component (`VCALENDAR`, `VTODO`, `VALARM`, `VTIMEZONE`, ...): its BEGIN line, its
/// properties in order, its subcomponents in order, and its END line.
package struct Component: Sendable {
    package var name: String
    /// The line number of `BEGIN:` (1-based).
    package var number: Int
    package var properties: [ContentLine] = []
    package var components: [Component] = []
    /// Every line of the component, BEGIN and END included, in file order (unknown components
    /// are kept with these).
    package var rawLines: [String] = []

    package init(name: String, number: Int) {
        self.name = name
        self.number = number
    }

    /// The first property called `name`.
    package func property(_ name: String) -> ContentLine? { properties.first { $0.name == name } }

    /// Parses the components of a file: one or more VCALENDARs (a bare top-level component is
    /// given one).
    /// - Throws: `ICalError` with the line number when a line is malformed, BEGIN and END do not
    ///   match, a property lies outside every component, or the file ends inside a component.
    package static func parse(_ bytes: [UInt8]) throws(ICalError) -> [Component] {
        let lines = try ContentLines.unfold(bytes)
        var stack: [Component] = []
        var top: [Component] = []
        for (text, number) in lines {
            let line = try ContentLine(parsing: text, number: number)
            if line.name == "BEGIN" {
                let name = line.value.uppercased()
                guard !name.isEmpty,
                    name.unicodeScalars.allSatisfy({ ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-" }
                    )
                else {
                    throw ICalError(line: number, "BEGIN names no component")
                }
                guard stack.count < 16 else { throw ICalError(line: number, "components nested too deeply") }
                var c = Component(name: name, number: number)
                c.rawLines.append(text)
                stack.append(c)
            } else if line.name == "END" {
                let name = line.value.uppercased()
                guard var c = stack.popLast() else {
                    throw ICalError(line: number, "END:\(name) without a BEGIN")
                }
                guard c.name == name else {
                    throw ICalError(line: number, "END:\(name) closes BEGIN:\(c.name) of line \(c.number)")
                }
                c.rawLines.append(text)
                if stack.isEmpty {
                    top.append(c)
                } else {
                    stack[stack.count - 1].rawLines += c.rawLines
                    stack[stack.count - 1].components.append(c)
                }
            } else {
                guard !stack.isEmpty else {
                    throw ICalError(line: number, "\(line.name) outside BEGIN:VCALENDAR ... END:VCALENDAR")
                }
                stack[stack.count - 1].properties.append(line)
                stack[stack.count - 1].rawLines.append(text)
            }
        }
        if let open = stack.last {
            throw ICalError(
                line: (lines.last?.number ?? 0) + 1, "the file ends inside BEGIN:\(open.name) of line \(open.number)")
        }
        guard !top.isEmpty else { throw ICalError(line: 1, "no BEGIN:VCALENDAR: not an iCalendar file") }
        // A bare component (a VTODO or VEVENT without VCALENDAR, as some tools write) is read as
        // if a VCALENDAR held it.
        return top.map { c in
            guard c.name != "VCALENDAR" else { return c }
            var calendar = Component(name: "VCALENDAR", number: c.number)
            calendar.components = [c]
            calendar.rawLines = c.rawLines
            return calendar
        }
    }
}
