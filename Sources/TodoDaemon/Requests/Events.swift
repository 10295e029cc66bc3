import TodoCore
import TodoProtocol
import TodoStore

/// A `watch` event (see docs/PROTOCOL.md): the values it reports, turned into JSON text only
/// when a subscriber asked for its type. Each is the `params` of an `event` notification.
enum Event: Sendable {
    /// `{"type": ..., "todos": [...]}`.
    case todos(EventType, [Todo])
    /// `{"type": ..., "category": {...}}`, with `oldName` for a rename.
    case category(EventType, Category, oldName: String? = nil)
    /// `{"type": "store.imported", "todos": n, "categories": n}`.
    case imported(todos: Int, categories: Int)
    /// `{"type": "reminder", "todos": [{...}], "todo": {...}, "fired": ..., "lateUsec": n}`
    /// (`todo` is the same todo, kept for clients written before `todos`).
    case reminder(FiredReminder)
    /// What fell due while the machine was suspended, more than a few: one `reminder` event with
    /// every todo in `todos`, `summary` ("12 reminders while suspended") and `count`; `todo`,
    /// `fired` and `lateUsec` are the first one's.
    case reminderSummary([FiredReminder])
    /// A category event replayed from the log: `{"type": ..., "category": {"id", "name"}}`, with
    /// `oldName` for a rename (the log keeps no counts, and positions moved on since).
    case loggedCategory(EventType, id: Int64, name: String, oldName: String?)

    var type: EventType {
        switch self {
        case .todos(let type, _), .category(let type, _, _), .loggedCategory(let type, _, _, _): type
        case .imported: .storeImported
        case .reminder, .reminderSummary: .reminder
        }
    }

    /// The whole notification line, newline included; `seq` (the change the event belongs to)
    /// is written first in `params` when there is one.
    func line(seq: Int64?) -> [UInt8] {
        var params: [UInt8] = []
        if let seq {
            params.append(contentsOf: #"{"seq":"#.utf8)
            JSON.int(seq).write(to: &params)
            params.append(UInt8(ascii: ","))
        } else {
            params.append(UInt8(ascii: "{"))
        }
        switch self {
        case .todos(let type, let todos):
            params.append(contentsOf: #""type":"#.utf8)
            JSON.string(type.name).write(to: &params)
            params.append(contentsOf: #","todos":"#.utf8)
            params.append(contentsOf: Todo.encodedJSON(todos))
            params.append(UInt8(ascii: "}"))
        case .category(let type, let category, let oldName):
            params.append(contentsOf: #""type":"#.utf8)
            JSON.string(type.name).write(to: &params)
            params.append(contentsOf: #","category":"#.utf8)
            JSON(category).write(to: &params)
            if let oldName {
                params.append(contentsOf: #","oldName":"#.utf8)
                JSON.string(oldName).write(to: &params)
            }
            params.append(UInt8(ascii: "}"))
        case .loggedCategory(let type, let id, let name, let oldName):
            var o: JSONObject = [
                "type": .string(type.name), "category": .object(["id": .int(id), "name": .string(name)])
            ]
            if let oldName { o["oldName"] = .string(oldName) }
            var object: [UInt8] = []
            JSON.object(o).write(to: &object)
            params.append(contentsOf: object.dropFirst()) // after the "{" (and `seq`) written above
        case .imported(let todos, let categories):
            params.append(contentsOf: #""type":"#.utf8)
            JSON.string(type.name).write(to: &params)
            params.append(contentsOf: #","todos":"#.utf8)
            JSON.int(Int64(todos)).write(to: &params)
            params.append(contentsOf: #","categories":"#.utf8)
            JSON.int(Int64(categories)).write(to: &params)
            params.append(UInt8(ascii: "}"))
        case .reminder(let fired):
            // The todo as it fired: `remind` is the instant it was due at (an all-day todo's
            // reminder follows the local zone), as TODO_REMIND_USEC in the journal.
            let todo = fired.asScheduled
            params.append(contentsOf: #""type":"#.utf8)
            JSON.string(type.name).write(to: &params)
            params.append(contentsOf: #","todos":["#.utf8)
            todo.writeJSON(to: &params)
            params.append(contentsOf: #"],"todo":"#.utf8)
            todo.writeJSON(to: &params)
            params.append(contentsOf: #","fired":"#.utf8)
            JSON(fired.fired).write(to: &params)
            params.append(contentsOf: #","lateUsec":"#.utf8)
            JSON.int(fired.lateUsec).write(to: &params)
            // Which alarm fired (TODO_ALARM_UID and TODO_ALARM_INDEX in the journal), when one did.
            if let uid = fired.alarmUid, let index = fired.alarmIndex {
                params.append(contentsOf: #","alarm":{"uid":"#.utf8)
                JSON.string(uid).write(to: &params)
                params.append(contentsOf: #","index":"#.utf8)
                JSON.int(Int64(index)).write(to: &params)
                params.append(contentsOf: #","repeat":"#.utf8)
                JSON.int(Int64(fired.alarmRepeat ?? 0)).write(to: &params)
                params.append(UInt8(ascii: "}"))
            }
            params.append(UInt8(ascii: "}"))
        case .reminderSummary(let reminders):
            let todos = reminders.map(\.asScheduled)
            params.append(contentsOf: #""type":"#.utf8)
            JSON.string(type.name).write(to: &params)
            params.append(contentsOf: #","todos":"#.utf8)
            params.append(contentsOf: Todo.encodedJSON(todos))
            if let first = reminders.first {
                params.append(contentsOf: #","todo":"#.utf8)
                first.asScheduled.writeJSON(to: &params)
                params.append(contentsOf: #","fired":"#.utf8)
                JSON(first.fired).write(to: &params)
                params.append(contentsOf: #","lateUsec":"#.utf8)
                JSON.int(first.lateUsec).write(to: &params)
            }
            params.append(contentsOf: #","summary":"#.utf8)
            JSON.string(JournalReminderSink.summaryText(count: reminders.count)).write(to: &params)
            params.append(contentsOf: #","count":"#.utf8)
            JSON.int(Int64(reminders.count)).write(to: &params)
            params.append(UInt8(ascii: "}"))
        }
        return RPCMessage.eventLine(encodedParams: params)
    }
}

/// Which events a connection is sent.
enum Subscription: Sendable, Equatable {
    /// Not subscribed (no `watch` yet).
    case unsubscribed
    /// Every event.
    case all
    /// Only events of these types.
    case only(Set<EventType>)

    /// What a `watch` with `params` subscribes to.
    init(_ params: WatchParams) {
        self = params.events.map(Subscription.only) ?? .all
    }

    func includes(_ type: EventType) -> Bool {
        switch self {
        case .unsubscribed: false
        case .all: true
        case .only(let types): types.contains(type)
        }
    }
}

extension Event {
    /// The events `watch` replays for one change of the log, in the order a live subscriber got
    /// them: the categories it wrote first, then its todos (docs/PROTOCOL.md §6, "Replay").
    static func replayed(_ change: LoggedChange) -> [Event] {
        if change.kind == .import {
            return [
                .imported(
                    todos: change.todos.count, categories: change.categories.filter { $0.effect == .inserted }.count)
            ]
        }
        var events: [Event] = change.categories.map { c in
            switch c.effect {
            case .inserted: .loggedCategory(.categoryAdded, id: c.id, name: c.name, oldName: nil)
            case .deleted: .loggedCategory(.categoryDeleted, id: c.id, name: c.name, oldName: nil)
            case .updated:
                c.oldName.map { $0 != c.name } == true
                    ? .loggedCategory(.categoryRenamed, id: c.id, name: c.name, oldName: c.oldName)
                    : .loggedCategory(.categoryMoved, id: c.id, name: c.name, oldName: nil)
            }
        }
        let updated: EventType =
            switch change.kind {
            case .complete: .todoCompleted
            case .reopen: .todoReopened
            case .move: .todoMoved
            default: .todoUpdated
            }
        for (effect, type) in [
            (LoggedChange.Effect.inserted, EventType.todoAdded), (.updated, updated), (.deleted, .todoDeleted)
        ] {
            let todos = change.todos.filter { $0.effect == effect }.map(\.todo)
            if !todos.isEmpty { events.append(.todos(type, todos)) }
        }
        return events
    }
}
