/// The fields of a todo, declared once: one case per member of `Todo`, in the order the todo
/// object lists them on the wire (docs/PROTOCOL.md). What each field is in the other places a
/// todo lives (its wire key, `todoctl` option, iCalendar property, how the sync merge takes it)
/// is said here by exhaustive switches, and every layer that maps a todo maps it by switching
/// over these cases: adding a case makes the compiler name each place that must say what the new
/// field is there (the store's columns and writes, the JSON writer and reader, `todo.add`'s and
/// `todo.update`'s params, `todoctl`'s option, the sync merge's field, the VTODO properties). docs/ARCHITECTURE.md, "Adding a field", lists those places.
package enum TodoField: Int, CaseIterable, Sendable {
    case id, uid, title, notes, category, due, remind, reminded, done, completed, position, created, updated
    case priority, tags, zone, allDay, recurrence, revision, parent, subtasks, parentUid, start, alarms

    /// The member of the todo object (and, where it is one, of an export entry).
    package var wireKey: String {
        switch self {
        case .id: "id"
        case .uid: "uid"
        case .title: "title"
        case .notes: "notes"
        case .category: "category"
        case .due: "due"
        case .remind: "remind"
        case .reminded: "reminded"
        case .done: "done"
        case .completed: "completed"
        case .position: "position"
        case .created: "created"
        case .updated: "updated"
        case .priority: "priority"
        case .tags: "tags"
        case .zone: "zone"
        case .allDay: "allDay"
        case .recurrence: "recurrence"
        case .revision: "revision"
        case .parent: "parent"
        case .subtasks: "subtasks"
        case .parentUid: "parentUid"
        case .start: "start"
        case .alarms: "alarms"
        }
    }

    /// The `todoctl add`/`edit` option that sets it, nil when none does (the store sets it, or
    /// another command does: `done`, `move`, `snooze`).
    package var cliOption: String? {
        switch self {
        case .title: "--title"
        case .notes: "--notes"
        case .category: "--category"
        case .due: "--due"
        case .alarms: "--remind"
        case .priority: "--priority"
        case .tags: "--tag"
        case .recurrence: "--every"
        case .parent: "--parent"
        case .start: "--start"
        // `zone` and `allDay` come with the due date's words (`--due 'tomorrow'` is all-day).
        // `remind` is the next firing of the alarms `--remind` gives.
        case .id, .uid, .remind, .reminded, .done, .completed, .position, .created, .updated, .zone, .allDay, .revision,
            .subtasks, .parentUid:
            nil
        }
    }

    /// The VTODO property (or parameter) that carries it (docs/ICALENDAR.md), nil when none does.
    package var icalProperty: String? {
        switch self {
        case .uid: "UID"
        case .title: "SUMMARY"
        case .notes: "DESCRIPTION"
        case .category: "X-TODOD-CATEGORY"
        case .due: "DUE"
        case .remind: "VALARM TRIGGER"
        case .alarms: "VALARM"
        case .reminded: "VALARM ACKNOWLEDGED"
        case .done: "STATUS"
        case .completed: "COMPLETED"
        case .position: "X-APPLE-SORT-ORDER"
        case .created: "CREATED"
        case .updated: "LAST-MODIFIED"
        case .priority: "PRIORITY"
        case .tags: "CATEGORIES"
        case .zone: "TZID"
        case .allDay: "VALUE=DATE"
        case .recurrence: "RRULE"
        case .parent, .parentUid: "RELATED-TO"
        case .start: "DTSTART"
        case .id, .revision, .subtasks: nil
        }
    }

    /// How the sync merge (docs/SYNC.md) takes a field both sides may have changed.
    package enum MergeRule: Sendable, Equatable {
        /// Compared and taken whole, as a field of its own.
        case whole
        /// Merged as a set: what either side added is added, what either side removed is removed.
        case set
        /// Merged element by element, by uid (the alarms): one added on either side is kept, one
        /// removed on either side is removed, one changed on both goes to the later side, and of
        /// two acknowledgements (or snoozes) the later one is kept.
        case byUID
        /// Compared and taken together with another field (`zone` and `allDay` with `due`).
        case with(TodoField)
        /// Not merged: the store's own (`id`, `revision`), kept by the merge itself (`created`,
        /// `updated`, `uid`), or following from other todos (`subtasks`).
        case none
    }

    package var mergeRule: MergeRule {
        switch self {
        case .title, .notes, .category, .due, .reminded, .done, .priority, .recurrence, .position, .parent, .start:
            .whole
        // Each VALARM maps to one alarm, by its UID.
        case .alarms: .byUID
        // The next pending firing of the alarms: derived from the merged list, not merged on its
        // own (a todo without alarms, a default reminder, takes it with them whole).
        case .remind: .with(.alarms)
        case .tags: .set
        case .zone, .allDay: .with(.due)
        case .completed: .with(.done)
        case .parentUid: .with(.parent)
        case .id, .uid, .created, .updated, .revision, .subtasks: .none
        }
    }

    /// Whether an undo or redo gives the field back from the change log's row images (every
    /// field stored in a column of `todos`, `position` as its order key); false for `subtasks`,
    /// the inverse of the other todos' `parent`.
    package var inChangeLogImage: Bool {
        switch self {
        case .subtasks: false
        case .id, .uid, .title, .notes, .category, .due, .remind, .reminded, .done, .completed, .position, .created,
            .updated, .priority, .tags, .zone, .allDay, .recurrence, .revision, .parent, .parentUid, .start, .alarms:
            true
        }
    }
}
