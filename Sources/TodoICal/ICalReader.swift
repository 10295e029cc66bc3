import TodoCalendar
import TodoCore
import TodoTime

// The todo <-> VTODO mapping of SPEC §9 (docs/ICALENDAR.md has the table).

/// Reads VTODOs into export-document entries.
package struct ICalReader: Sendable {
    /// The zone floating times and dates are read in (the user's), and its IANA name (the
    /// `zone` of todos that name none).
    package var zone: ZoneInfo
    package var zoneName: String?
    package var tzdir: String?
    /// `created` of a VTODO that says nothing about when it was made.
    package var now: Instant
    /// Every `CATEGORIES` value is a tag (a calendar that is a list is the category): without
    /// `X-TODOD-CATEGORY` no value becomes the category.
    package var categoriesAreTags = false
    /// The reminder of a VTODO from elsewhere that has a due date and no alarm (`remind-default`):
    /// at its due, or for an all-day due at this many seconds after that day's midnight
    /// (`remind-time`); nil (`remind-default = none`): none. No VALARM is written for it
    /// (`!REMIND-DEFAULT`) while it stays so far from the due date. A VTODO with
    /// `X-TODOD-NO-REMIND` (todod writes it for a due date without a reminder) gets none.
    package var defaultRemindTime: Int64? = 9 * 3600

    /// The title of a VTODO without SUMMARY (what todod shows; no SUMMARY is written back for it
    /// until the title changes).
    package static let untitled = "(no title)"

    package init(zone: ZoneInfo, zoneName: String?, tzdir: String? = nil, now: Instant) {
        self.zone = zone
        self.zoneName = zoneName
        self.tzdir = tzdir
        self.now = now
    }

    /// One VTODO read, with its place in the manual order (`X-APPLE-SORT-ORDER`) when it has one.
    package struct Item: Sendable {
        package var entry: ExportDocument.Entry
        package var sortOrder: Int64?
        /// The BEGIN:VTODO line.
        package var line: Int
        /// Whether `remind` was read from a trigger relative to the due date (else an instant).
        package var relativeReminder = false
        /// The uids this VTODO names as its subtasks (`RELATED-TO;RELTYPE=CHILD`).
        package var children: [String] = []
    }

    /// Every VTODO of an iCalendar file (VEVENTs, VJOURNALs and others are not todos and are skipped).
    /// - Throws: `ICalError` with the line number: the first problem in the file, so that nothing
    ///   of a bad file is imported.
    package func items(_ bytes: [UInt8]) throws(ICalError) -> [Item] { try file(bytes).items }

    /// The todos of an iCalendar file and how many components of each other kind (`VEVENT`,
    /// `VJOURNAL`, ...) it holds beside them. VTODOs sharing a UID are one todo: the one without
    /// RECURRENCE-ID (or else the first) is the todo, the others (instances edited or completed
    /// elsewhere) are kept with it, and an instance completed elsewhere is not due here.
    package func file(_ bytes: [UInt8]) throws(ICalError) -> (items: [Item], skipped: [String: Int]) {
        let calendars = try Component.parse(bytes)
        let zones = try TimeZones(calendars, tzdir: tzdir)
        var skipped: [String: Int] = [:]
        var groups: [[Component]] = []
        var byUID: [String: Int] = [:]
        for cal in calendars {
            for c in cal.components {
                guard c.name == "VTODO" else {
                    if c.name != "VTIMEZONE" { skipped[c.name, default: 0] += 1 }
                    continue
                }
                let uid = c.property("UID").map { ContentLines.unescape($0.value)[0].trimmingSpaces } ?? ""
                if !uid.isEmpty, let i = byUID[uid] {
                    groups[i].append(c)
                } else {
                    if !uid.isEmpty { byUID[uid] = groups.count }
                    groups.append([c])
                }
            }
        }
        var items: [Item] = []
        items.reserveCapacity(groups.count)
        for group in groups {
            let master = group.firstIndex { $0.property("RECURRENCE-ID") == nil } ?? 0
            var others = group
            others.remove(at: master)
            items.append(try item(group[master], zones, instances: others))
        }
        // A parent that names its subtasks (RELTYPE=CHILD): each such subtask of this file
        // that names no parent of its own is its subtask.
        let index = Dictionary(
            items.enumerated().compactMap { i, item in item.entry.uid.map { ($0, i) } }, uniquingKeysWith: { a, _ in a }
        )
        for item in items {
            guard let uid = item.entry.uid else { continue }
            for child in item.children {
                if let c = index[child], items[c].entry.parent == nil, child != uid { items[c].entry.parent = uid }
            }
        }
        return (items, skipped)
    }

    /// The export document of one or more files' items: sorted by `X-APPLE-SORT-ORDER` (items
    /// without one after, in file order), categories in the order they first appear.
    package static func document(_ items: [Item], exported: Instant) -> ExportDocument {
        let sorted = items.enumerated().sorted { a, b in
            switch (a.element.sortOrder, b.element.sortOrder) {
            case (let x?, let y?): return x != y ? x < y : a.offset < b.offset
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element.entry)
        var seen: Set<String> = []
        var categories: [String] = []
        for e in sorted {
            if let c = e.category, seen.insert(c.lowercased()).inserted { categories.append(c) }
        }
        return ExportDocument(categories: categories, todos: sorted, exported: exported)
    }

    func instant(_ line: ContentLine, _ zones: TimeZones) throws(ICalError) -> (Instant, allDay: Bool, tzid: String?) {
        switch try ICalDate.parse(line) {
        case .utc(let i): return (i, false, nil)
        case .date(let days):
            // The first and last days of the years 0001 to 9999 may start outside them in a zone
            // far from UTC: such a day starts at its UTC midnight.
            let utcStart = Instant(seconds: days * 86_400)
            guard
                let i = LocalTime.instant(days: days, secondOfDay: 0, in: zone) ?? (utcStart.isInRange ? utcStart : nil)
            else {
                throw ICalError(line: line.number, "\(line.name) out of range")
            }
            return (i, true, nil)
        case .local(let days, let second, let tzid):
            if let tzid {
                return (
                    try zones.instant(days: days, second: second, tzid: tzid, line: line.number), false,
                    zones.ianaName(tzid)
                )
            }
            guard let i = LocalTime.instant(days: days, secondOfDay: second, in: zone) else {
                throw ICalError(line: line.number, "\(line.name) out of range")
            }
            return (i, false, nil)
        }
    }

    /// The dates of an EXDATE or RDATE line, several per line (a PERIOD's start; values that are
    /// not dates are left out: the line is kept as it came anyway).
    func recurrenceDates(_ line: ContentLine, _ zones: TimeZones) -> [RecurrenceDate] {
        line.value.split(separator: ",").compactMap { part in
            var one = line
            one.value = String(part.split(separator: "/").first ?? part)
            guard let parsed = try? ICalDate.parse(one) else { return nil }
            if case .date(let days) = parsed { return .date(days) }
            return (try? instant(one, zones)).map { .instant($0.0) }
        }
    }

    /// The end of a DURATION from DTSTART `start`: its weeks and days nominal (the same time of
    /// day that many dates on, in DTSTART's zone), its hours, minutes and seconds exact. Nil when
    /// the value is not a positive duration, or, for a date start, is not whole days.
    func dueEnd(start: Instant, tzid: String?, isDate: Bool, utc: Bool, duration text: String) -> Instant? {
        let value = text.trimmingSpaces.uppercased()
        guard !value.hasPrefix("-"), let total = ICalDuration.parse(value), total > 0 else { return nil }
        let datePart = value.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let days = ICalDuration.parse(String(datePart)).map { $0 / 86_400 } ?? 0
        let exact = total - days * 86_400
        if isDate && exact != 0 { return nil }
        let zone = utc ? ZoneInfo.utc : tzid.flatMap { TimeZones.resolve($0, tzdir: tzdir)?.zone } ?? self.zone
        let local = LocalTime(start, in: zone)
        guard let day = LocalTime.instant(days: local.days + days, secondOfDay: local.secondOfDay, in: zone) else {
            return nil
        }
        return day.checkedAdding(usec: exact * 1_000_000)
    }

    /// Category values as tags: white space inside becomes `-`, commas are dropped, at most 64
    /// characters, unique case-insensitively, at most 32.
    static func tags(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for v in values {
            let words = v.split(whereSeparator: { $0.isWhitespace || $0 == "," })
            let tag = String(words.joined(separator: "-").prefix(64))
            guard !tag.isEmpty, out.count < 32, seen.insert(tag.lowercased()).inserted else { continue }
            out.append(tag)
        }
        return out
    }

    /// A TEXT value unescaped (its first value).
    static func text(_ l: ContentLine) -> String { ContentLines.unescape(l.value)[0] }
}
