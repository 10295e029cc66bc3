import TodoCore
import TodoICal
import TodoTime

/// One todo as the sync sees it: the export entry (what `store.import` takes and a VTODO holds)
/// and its place in the manual order (`X-APPLE-SORT-ORDER`).
package struct SyncItem: Sendable, Equatable {
    package var entry: ExportDocument.Entry
    package var sortOrder: Int64?

    package init(entry: ExportDocument.Entry, sortOrder: Int64? = nil) {
        self.entry = entry
        self.sortOrder = sortOrder
    }

    /// A todo of the store (`store.changes`, `todo.list`): its position is its sort order, and
    /// what iCalendar kept of it (`ical`, not part of a todo object) comes from `kept`.
    package init(todo: Todo, kept ical: String?) {
        var entry = ExportDocument.Entry(todo)
        entry.ical = ical
        self.init(entry: entry, sortOrder: todo.position.map(Int64.init))
    }
}

/// Todo ↔ VTODO bytes for one calendar object resource, through TodoICal. Stable: the bytes of
/// an item read back from bytes are those bytes again, so a todo that did not change is never
/// sent again (no echo loops).
package struct VTodoCodec: Sendable {
    package var reader: ICalReader
    package var writer: ICalWriter
    /// Of a calendar that is a list, one that is not the default: its todos' category is the
    /// calendar's, never a property of theirs (read as none).
    package var categoryIsCalendar = false

    /// The codec of a list: `CATEGORIES` are tags; in the default list (`isDefault`) a todo's
    /// `X-TODOD-CATEGORY` is still read (what a one-calendar account wrote), elsewhere the
    /// calendar is the category.
    package func list(isDefault: Bool) -> VTodoCodec {
        var codec = self
        codec.reader.categoriesAreTags = true
        codec.categoryIsCalendar = !isDefault
        return codec
    }

    /// `zone` reads floating times of foreign VTODOs (the user's zone, from `TZ`).
    package init(zone: ZoneInfo = .utc, zoneName: String? = nil, tzdir: String? = nil) {
        reader = ICalReader(zone: zone, zoneName: zoneName, tzdir: tzdir, now: Instant(usec: 0))
        writer = ICalWriter(tzdir: tzdir)
    }

    /// The resource's bytes: one VCALENDAR holding one VTODO.
    package func bytes(_ item: SyncItem) -> [UInt8] {
        let order = Int(clamping: item.sortOrder ?? 0)
        var text = writer.calendar([item.entry], firstSortOrder: order)
        if item.sortOrder == nil {
            // No place in the order to tell: leave X-APPLE-SORT-ORDER out.
            text = text.replacingLines(withPrefix: "X-APPLE-SORT-ORDER:")
        }
        return Array(text.utf8)
    }

    /// The item of a resource: its first VTODO. Nil (with the reason) when the resource holds
    /// no VTODO or cannot be read.
    package func item(_ bytes: [UInt8]) -> Result<SyncItem, SyncError> {
        do {
            guard let first = try reader.items(bytes).first else {
                return .failure(.unreadableItem("the resource holds no VTODO"))
            }
            var entry = inOwnZone(first.entry, relativeReminder: first.relativeReminder)
            if categoryIsCalendar { entry.category = nil }
            return .success(SyncItem(entry: entry, sortOrder: first.sortOrder))
        } catch {
            return .failure(.unreadableItem("\(error)"))
        }
    }

    /// An all-day todo's day is read (`DUE;VALUE=DATE`) in the reader's zone; a todo with a zone
    /// of its own (`X-TODOD-ZONE`) is due at the start of that day in its zone, as the store
    /// keeps it, so a todo of another machine's zone does not move by the difference. A reminder
    /// given relative to the due date keeps its distance from `due`; one given as an instant (as
    /// todod writes an all-day todo's) stays where it is.
    func inOwnZone(_ entry: ExportDocument.Entry, relativeReminder: Bool = true) -> ExportDocument.Entry {
        guard entry.allDay, let due = entry.due, let name = entry.zone,
            let zone = ZoneInfo(identifier: name, tzdir: reader.tzdir),
            let start = LocalTime.instant(days: LocalTime(due, in: reader.zone).days, secondOfDay: 0, in: zone),
            start != due
        else { return entry }
        var e = entry
        e.due = start
        if relativeReminder { e.remind = entry.remind.map { Instant(usec: $0.usec + start.usec - due.usec) } }
        return e
    }

    /// The item as a VTODO would bring it back: instants to the second, `completed` of an open
    /// todo dropped, and so on. Two items with the same canonical form write the same bytes.
    package func canonical(_ item: SyncItem) -> SyncItem {
        (try? self.item(bytes(item)).get()) ?? item
    }

    /// The last synced version of a todo (its resource's bytes as the server had them), in
    /// canonical form: what todod would write of it. The store's side and the server's are
    /// compared in that form, so lines todod writes otherwise than another client did (alarms of
    /// kinds it does not map, properties in another order) are no change on either side.
    package func base(_ bytes: [UInt8]) -> SyncItem? {
        guard !bytes.isEmpty, let item = try? item(bytes).get() else { return nil }
        return canonical(item)
    }
}

extension String {
    /// The text without its lines (CRLF-ended) that start with `prefix`.
    fileprivate func replacingLines(withPrefix prefix: String) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var rest = Substring(self)
        while let end = rest.firstIndex(of: "\r\n") {
            let line = rest[...end]
            if !line.hasPrefix(prefix) { out += line }
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }
}

/// A sync failure: one line for the status file and the journal (never holding a password),
/// `message`.
package enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A mistake on todod-sync's command line.
    case usage(String)
    /// Neither `XDG_STATE_HOME` nor `HOME` is set, so there is no state directory.
    case noStateDirectory
    /// The state directory `path` cannot be made.
    case cannotMakeDirectory(path: String, reason: String)
    /// The account's lock cannot be taken.
    case cannotLock(account: String, reason: String)
    /// Another process's round of the account held its lock for all of `seconds`.
    case roundInProgress(account: String, seconds: Int)
    /// The sync state database at `path` can be neither opened nor made anew.
    case cannotCreateState(path: String, reason: String)
    /// The account's password cannot be read (its file or credential).
    case password(String)
    /// The server failed or refused (CalDAV's message, naming the host).
    case server(String)
    /// `calendar` (as given) is no calendar on the server at `server`.
    case notACalendar(String, server: String)
    /// The calendar at this URL holds no todos (VTODO).
    case calendarWithoutTodos(String)
    /// No calendar at the server holds todos.
    case noTodoCalendar(server: String)
    /// Several calendars hold todos and none was chosen: each one's URL and name.
    case severalTodoCalendars([String])
    /// A resource that holds no VTODO, or none that can be read: why.
    case unreadableItem(String)
    /// The round's time limit (`round-limit` in sync.conf, seconds) ran out before it was done.
    case outOfTime(seconds: Int)
    /// Anything else (todod's answers, the sync state), said in full.
    case failed(String)

    package init(_ message: String) { self = .failed(message) }

    package var message: String {
        switch self {
        case .usage(let text), .password(let text), .server(let text), .unreadableItem(let text), .failed(let text):
            text
        case .noStateDirectory: "cannot find the state directory: neither XDG_STATE_HOME nor HOME is set"
        case .cannotMakeDirectory(let path, let reason): "cannot make \(path): \(reason)"
        case .cannotLock(let account, let reason): "cannot lock \(account): \(reason)"
        case .roundInProgress(let account, let seconds):
            "another todod-sync round of \(account) has not finished in \(seconds) s"
        case .cannotCreateState(let path, let reason): "cannot create the sync state \(path): \(reason)"
        case .notACalendar(let calendar, let server): "\(calendar) is not a calendar on \(server)"
        case .calendarWithoutTodos(let url): "the calendar \(url) does not hold todos (VTODO)"
        case .noTodoCalendar(let server):
            "no calendar holding todos (VTODO) at \(server); make one, or name it with --calendar"
        case .outOfTime(let seconds):
            "the round's \(seconds) s ran out before the server had answered; the next round goes on"
        case .severalTodoCalendars(let names):
            "several calendars hold todos; sync each as a list with --lists, or choose one with --calendar: "
                + names.joined(separator: ", ")
        }
    }

    package var description: String { message }
}
