import TodoCore

/// What a todo keeps of its VTODO (`Entry.ical`, docs/ICALENDAR.md "What is kept"), read for
/// writing it again. `Entry.ical` holds one unfolded content line per line:
///
/// - a plain line is a property or component todod does not map, written back as it came; a
///   mapped property among them (one with parameters todod does not decide, or a value it would
///   write otherwise) is a template: it lends its parameters, and where it still fits its value,
///   to the line written;
/// - `>` lines after `!ALARM <uid>` belong to that alarm (its properties todod does not map, its
///   DESCRIPTION unless it is the title, and its form: `>!AUDIO`, `>!NO-RELATED`; `>!ABSOLUTE` of
///   an older release is left out) and are written back inside its VALARM (`>` lines before any
///   `!ALARM`, from an older release, belong to the first alarm);
/// - `+` lines belong to another component of the same resource (an instance of a recurring todo
///   edited or completed elsewhere: a VTODO with RECURRENCE-ID), written back after the todo's own;
/// - `~` lines are a VTIMEZONE the kept lines' TZID needs that names no zone known here (written
///   back by `ICalWriter.calendar` when a line of the calendar uses that TZID);
/// - `^<usec> DTSTART...` is the line the start was read from and the start it said: written as it
///   came while the start is that;
/// - `!` lines are notes of the mapping itself, never written: `!NO-SUMMARY` (the VTODO had no
///   SUMMARY; its title is `(no title)` until it gets one), `!CATEGORIES:...` (the CATEGORIES values
///   as they came, so tags made of them are written back as they were), `!START-DATE` (the start
///   was a date on a todo with a time), `!ALARM-ABSOLUTE`, `!ALARM-START`, `!ALARM-RELATED-START`,
///   `!ALARM-AUDIO` (the form of the one alarm of an older export without `alarms`),
///   `!REMIND-DEFAULT <usec>` (the VTODO had no alarm; its reminder is the default, this far after
///   the due date, and no VALARM is written while it is).
struct KeptLines {
    /// Mapped properties kept for their parameters or value, by name (the first of each).
    var templates: [String: ContentLine] = [:]
    /// The lines written back as they came, in their order.
    var rest: [String] = []
    /// `>` lines before any `!ALARM`: the first alarm's.
    var firstAlarm: [String] = []
    /// Each alarm's `>` lines, by its uid.
    var alarms: [String: [String]] = [:]
    /// The resource's other VTODOs (`+`).
    var instances: [String] = []
    /// The mapping's notes (`!...`) other than those below.
    var notes: Set<String> = []
    /// The CATEGORIES values tags were made from (`!CATEGORIES:`).
    var categoryValues: [String] = []
    /// How far after the due date the default reminder of a todo from elsewhere was (`!REMIND-DEFAULT`).
    var defaultLead: Int64?
    /// A kept DTSTART line (kept by a release that did not read starts).
    var startTemplate: ContentLine?
    /// The DTSTART the start was read from (its form: date, TZID, floating or UTC) and the start it said.
    var startForm: (line: ContentLine, usec: Int64)?

    init(_ ical: String?) {
        // The kept components open at this line (an e-mail VALARM's SUMMARY is its own, not the
        // VTODO's; a kept VTODO's lines are its own too, though `wellFormed` leaves it out).
        var openComponents: [String] = []
        var alarmOf: String?
        for raw in (ical ?? "").split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if raw.hasPrefix(">") {
                if let uid = alarmOf {
                    alarms[uid, default: []].append(String(raw.dropFirst()))
                } else {
                    firstAlarm.append(String(raw.dropFirst()))
                }
                continue
            }
            if raw.hasPrefix("!ALARM ") {
                alarmOf = String(raw.dropFirst(7))
                continue
            }
            alarmOf = nil
            if raw.hasPrefix("+") {
                instances.append(String(raw.dropFirst()))
                continue
            }
            if raw.hasPrefix("~") { continue } // a VTIMEZONE: `calendar` writes it
            if raw.hasPrefix("^") {
                // `^<usec> DTSTART...`: the line the start was read from, and the start it said.
                let said = Int64(raw.dropFirst().prefix { $0 != " " })
                startForm = (try? ContentLine(parsing: String(raw.drop { $0 != " " }.dropFirst()), number: 0)).flatMap {
                    l in said.map { (l, $0) }
                }
                continue
            }
            if raw.hasPrefix("!") {
                if raw.hasPrefix("!REMIND-DEFAULT ") {
                    defaultLead = Int64(raw.dropFirst("!REMIND-DEFAULT ".count))
                } else if raw.hasPrefix("!CATEGORIES:") {
                    categoryValues = ContentLines.unescape(String(raw.dropFirst(12)), separator: ",")
                } else {
                    notes.insert(raw)
                }
                continue
            }
            let line = try? ContentLine(parsing: raw, number: 0)
            if openComponents.isEmpty, let line, line.name == "DTSTART", startTemplate == nil {
                startTemplate = line
                continue
            }
            if openComponents.isEmpty, let line, mappedNames.contains(line.name), templates[line.name] == nil {
                templates[line.name] = line
                continue
            }
            if let line, line.name == "BEGIN" {
                openComponents.append(line.value.uppercased())
            } else if let line, line.name == "END", openComponents.last == line.value.uppercased() {
                openComponents.removeLast()
            }
            rest.append(raw)
        }
    }

    /// The content line of a mapped property: `value` with `parameters`, plus the parameters of
    /// the kept template that todod does not decide, and the template's value instead when
    /// `keepValue` says it still fits. Nil for an empty value (servers refuse `X-FOO:`).
    func line(
        _ name: String, _ value: String, parameters: [(name: String, values: [String])] = [],
        keepValue: (String) -> Bool = { _ in false }
    ) -> String? {
        var params = parameters
        var v = value
        if let t = templates[name] {
            params += t.parameters.filter { p in
                !mappedParameters.contains(p.name) && !params.contains { $0.name == p.name }
            }
            if keepValue(t.value.trimmingSpaces.uppercased()) { v = t.value }
        }
        guard !v.trimmingSpaces.isEmpty else { return nil }
        return ContentLine(name: name, parameters: params, value: v).text
    }
}
