import TodoCore
import TodoTime
import TodoWhen

/// `list` with due-date filters or a due-date sort, where an all-day todo counts by its local day:
/// a todo due all day on 2 December is due at the start of 2 December here, whatever zone it was
/// made in (a Tokyo all-day todo for tomorrow is not due "today" in Berlin, and sorts after today's
/// rows). The daemon compares instants, so the client asks for a range wider by the largest
/// difference of two zones, then filters, sorts and limits itself: for listings of up to
/// `maxRows` todos (the caller counts first); a longer one keeps the daemon's order. A page sorted
/// by due date without a due-date filter is read in parts instead, only as far as its rows can
/// move (`settles`), flat: the rows of a tree cannot keep its order when they move by local day.
struct LocalDayListing {
    /// The most todos a listing is read whole for.
    static let maxRows = 5_000

    /// The query as the user gave it.
    let query: TodoQuery
    /// The zone of "here".
    let zone: ZoneInfo
    /// Finds a todo's own zone by name.
    let zones: (String) -> ZoneInfo?

    /// More than the largest difference between two zones' offsets (UTC-12 to UTC+14).
    static let widest: Int64 = 27 * 3_600_000_000

    /// A listing to adjust, or nil when the query neither filters nor sorts by due date first.
    init?(query: TodoQuery, zone: ZoneInfo, zones: @escaping (String) -> ZoneInfo?) {
        guard query.dueBefore != nil || query.dueAfter != nil || query.sort.first?.field == .due else { return nil }
        self.query = query
        self.zone = zone
        self.zones = zones
    }

    /// What the daemon is asked: the range widened, every match (no limit or offset).
    var serverQuery: TodoQuery { serverQuery(reading: nil) }

    /// `serverQuery`, or its first `rows` todos, flat (`readsInParts`).
    func serverQuery(reading rows: Int?) -> TodoQuery {
        var q = query
        q.dueBefore = query.dueBefore.map { TimeExpression.checkedAdd($0.usec, Self.widest) ?? Instant.latest }
        q.dueAfter = query.dueAfter.map { TimeExpression.checkedAdd($0.usec, -Self.widest) ?? Instant.earliest }
        q.limit = rows
        q.offset = 0
        if rows != nil { q.tree = false }
        return q
    }

    /// A page sorted by due date with no due-date filter: the daemon's first rows are read, a part
    /// at a time, until the page by local day is among them (`settles`), not the whole listing.
    var readsInParts: Bool { query.dueBefore == nil && query.dueAfter == nil && query.limit != nil }

    /// How many rows the first part reads (nil: the whole listing at once).
    var firstPart: Int? { readsInParts ? max(256, 2 * (query.offset + (query.limit ?? 0))) : nil }

    /// Whether `items`, the first rows of the daemon's order by due instant (flat), hold the page
    /// by local day: the rows not read are due at or after the last one read (before it, sorted
    /// descending), so by their local day no more than `widest` earlier (later), or are undated,
    /// after every dated one in both directions. True when the page's last local due date is
    /// beyond that bound, or when the last row read is undated.
    func settles<Item>(_ items: [Item], todo: (Item) -> Todo) -> Bool {
        guard let first = query.sort.first, first.field == .due, let limit = query.limit else { return true }
        guard let last = items.last, let lastDue = todo(last).due else { return true }
        let wanted = query.offset + limit
        let dated = items.compactMap { due(todo($0)) }.sorted(by: first.descending ? (>) : (<))
        guard wanted > 0 else { return true }
        guard dated.count >= wanted else { return false }
        let edge = dated[wanted - 1]
        return first.descending ? edge.usec > lastDue.usec + Self.widest : edge.usec < lastDue.usec - Self.widest
    }

    /// The page cut from the daemon's order as it is (a listing whose page did not settle in
    /// `maxRows` rows: its todos crowd within a day of each other).
    func daemonOrder<Item>(_ items: [Item]) -> [Item] {
        let start = min(query.offset, items.count)
        return Array(items[start..<min(start + (query.limit ?? items.count), items.count)])
    }

    /// When `todo` is due as seen here: its due instant, or for an all-day todo the start of its
    /// local day (read in its own zone) in this zone.
    func due(_ todo: Todo) -> Instant? {
        guard let due = todo.due else { return nil }
        guard todo.allDay, let name = todo.zone, let own = zones(name) else { return due }
        let day = LocalTime(due, in: own).days
        return LocalTime.instant(days: day, secondOfDay: 0, in: zone) ?? due
    }

    /// Whether `todo` is in the range the user asked for.
    func keeps(_ todo: Todo) -> Bool {
        guard query.dueBefore != nil || query.dueAfter != nil else { return true }
        guard let due = due(todo) else { return false }
        if let before = query.dueBefore, due >= before { return false }
        if let after = query.dueAfter, due < after { return false }
        return true
    }

    /// The daemon's answer (in its order) filtered, re-sorted by due date when that is the first
    /// key (stable, so later keys still decide ties; undated todos last), with the user's offset and
    /// limit; and how many matched in all.
    func apply<Item>(_ items: [Item], todo: (Item) -> Todo) -> (items: [Item], total: Int) {
        var kept = items.filter { keeps(todo($0)) }
        if let first = query.sort.first, first.field == .due {
            let keyed = kept.enumerated().map { (offset: $0.offset, due: due(todo($0.element)), item: $0.element) }
            kept = keyed.sorted { a, b in
                switch (a.due, b.due) {
                case (let x?, let y?) where x != y: return first.descending ? x > y : x < y
                case (_?, nil): return true
                case (nil, _?): return false
                default: return a.offset < b.offset
                }
            }.map(\.item)
        }
        let total = kept.count
        let start = min(query.offset, kept.count)
        let end = query.limit.map { min(start + $0, kept.count) } ?? kept.count
        return (Array(kept[start..<end]), total)
    }
}
