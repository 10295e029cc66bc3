import TodoCore

// Where each field of a todo lives in a VTODO (docs/ICALENDAR.md, "The mapping"). The reader
// dispatches each property to its field, and the writer writes each field, by exhaustive switches
// over `TodoField`: a new field is a compile error in `VTodoProperties.read`, `VTodoWriter.lines`
// and here until it says what it is in a VTODO.

extension TodoField {
    /// The VTODO properties the reader takes for this field; every other property (and these
    /// where the field's reader leaves them) is kept and travels as it came. Empty for a field
    /// that no property of its own carries.
    var vtodoProperties: [String] {
        switch self {
        case .uid: ["UID"]
        case .title: ["SUMMARY"]
        case .notes: ["DESCRIPTION"]
        case .category: ["X-TODOD-CATEGORY", "X-TODOD-NO-CATEGORY"]
        case .tags: ["CATEGORIES"]
        // DTSTART and DURATION without DUE give the due at their end.
        case .due: ["DUE", "DURATION"]
        case .start: ["DTSTART"]
        case .done: ["STATUS", "PERCENT-COMPLETE"]
        case .completed: ["COMPLETED"]
        case .priority: ["PRIORITY"]
        case .recurrence: ["RRULE", "EXDATE", "RDATE", "X-TODOD-RECUR-FROM"]
        case .parent: ["RELATED-TO"]
        case .zone: ["X-TODOD-ZONE"]
        case .position: ["X-APPLE-SORT-ORDER"]
        case .created: ["CREATED"]
        case .updated: ["LAST-MODIFIED", "DTSTAMP"]
        // A due date without a reminder (todod's own VTODOs say so).
        case .remind: ["X-TODOD-NO-REMIND"]
        // Each VALARM component (AlarmReading.swift, AlarmWriting.swift); `reminded` is an
        // alarm's ACKNOWLEDGED.
        case .alarms, .reminded: []
        // `VALUE=DATE` of DUE and DTSTART; the parent's uid is `parent`'s RELATED-TO.
        case .allDay, .parentUid: []
        // The store's own, or following from other todos.
        case .id, .revision, .subtasks: []
        }
    }

    /// The field each VTODO property is read into.
    static let byVTodoProperty: [String: TodoField] = Dictionary(
        uniqueKeysWithValues: allCases.flatMap { field in field.vtodoProperties.map { ($0, field) } })
}

/// Properties a field reads that are also kept as they came (their dates, durations and
/// relations travel byte for byte), so never templates of a written line.
let keptWhenRead: Set<String> = ["EXDATE", "RDATE", "DURATION", "RELATED-TO"]

/// The properties the mapping writes itself. A VTODO's other properties, and these when they carry
/// parameters todod does not model (or a value it would write differently, for STATUS, PRIORITY
/// and PERCENT-COMPLETE), are kept in `Entry.ical`.
let mappedNames: Set<String> = Set(TodoField.allCases.flatMap(\.vtodoProperties)).subtracting(keptWhenRead)

/// Parameters the mapping itself decides; others on a mapped property are kept.
let mappedParameters: Set<String> = ["VALUE", "TZID"]
