import TodoCore
import TodoProtocol
import TodoTime

/// `dismiss ID... [--alarm UID|N]`, `dismiss FILTER... | --all`: acknowledges the alarms of
/// todos that have fired and were not acknowledged since, so a nagging one stops repeating
/// (`todo.alarm.ack` without an alarm), or the one alarm `--alarm` names. One request: a
/// `todo.alarm.ack` for one todo, one `todo.batch` for several, so `undo` reverts it whole.
extension Runner {
    /// What `dismiss` does to one todo: the uid to acknowledge (nil: every alarm that fired),
    /// the alarm numbers (1-based) that will be, or why nothing is done to it.
    struct Dismissal {
        var todo: Todo
        var uid: String?
        var numbers: [Int]
        var nothing: String?
    }

    /// What `dismiss` would do to `todo`, as of `now`.
    /// - Throws: `.input` when `choice` names no alarm of it.
    static func dismissal(_ todo: Todo, _ choice: AlarmChoice?, now: Instant) throws(CLIFailure) -> Dismissal {
        func fired(_ a: Alarm) -> Bool { a.firedUnacknowledged(by: now, due: todo.due, start: todo.start) }
        guard let choice else {
            let numbers = todo.alarms.enumerated().filter { fired($0.element) }.map { $0.offset + 1 }
            let nothing =
                todo.alarms.isEmpty
                ? "it has no alarms"
                : todo.done ? "it is done" : numbers.isEmpty ? "no alarm of it has fired since it was dismissed" : nil
            return Dismissal(todo: todo, uid: nil, numbers: todo.done ? [] : numbers, nothing: nothing)
        }
        let index: Int
        switch choice {
        case .index(let n):
            guard n <= todo.alarms.count else {
                throw .input(
                    "todo \(todo.id) has no alarm \(n) (it has \(Runner.count(todo.alarms.count, "alarm"))); "
                        + "todoctl show \(todo.id) lists them")
            }
            index = n - 1
        case .uid(let uid):
            guard let i = todo.alarms.firstIndex(where: { $0.uid == uid }) else {
                throw .input("todo \(todo.id) has no alarm \(uid); todoctl show \(todo.id) lists them")
            }
            index = i
        }
        let alarm = todo.alarms[index]
        let nothing: String?
        if !alarm.acts {
            nothing = "alarm \(index + 1) is kept from iCalendar and never fires here"
        } else if todo.done {
            nothing = "it is done"
        } else if fired(alarm) {
            nothing = nil
        } else if alarm.acknowledged != nil {
            nothing = "alarm \(index + 1) was dismissed and has not fired since"
        } else {
            nothing = "alarm \(index + 1) has not fired yet"
        }
        return Dismissal(todo: todo, uid: alarm.uid, numbers: nothing == nil ? [index + 1] : [], nothing: nothing)
    }

    /// Whether `dismiss` would acknowledge an alarm of `todo` (a filter's todo without the alarm
    /// `choice` names has none).
    static func hasDismissible(_ todo: Todo, _ choice: AlarmChoice?, now: Instant) -> Bool {
        do { return try dismissal(todo, choice, now: now).nothing == nil } catch { return false }
    }

    /// Acknowledges what `choice` names of `todos` in one request and says what it did.
    func dismiss(_ todos: [Todo], _ choice: AlarmChoice?) throws(CLIFailure) {
        let all = try todos.map { (todo) throws(CLIFailure) in try Runner.dismissal(todo, choice, now: human.now) }
        let acting = all.filter { $0.nothing == nil }
        var raw: [JSON] = []
        switch acting.count {
        case 0: break
        case 1:
            let (json, _) = try answer(TodoAlarmAckParams(id: acting[0].todo.id, alarm: acting[0].uid))
            raw = [json]
        default:
            let ops: [TodoBatchParams.Op] = acting.map { .alarmAck(TodoAlarmAckParams(id: $0.todo.id, alarm: $0.uid)) }
            let (json, _) = try answer(TodoBatchParams(ops: ops))
            raw = json.arrayValue ?? []
        }
        if json {
            emit(.array(raw))
            return
        }
        print(Runner.dismissed(all))
    }

    /// "Dismissed alarm 2 of 3: 歯医者", "Nothing to dismiss: todo 3 …"; for several todos a line
    /// each of those that had something to dismiss, then "Dismissed the alarms of 2 todos; 1 had
    /// nothing to dismiss."
    static func dismissed(_ all: [Dismissal]) -> String {
        let acting = all.filter { $0.nothing == nil }
        func line(_ one: Dismissal) -> String {
            let alarms =
                one.numbers.count == 1
                ? "alarm \(one.numbers[0])" : "alarms \(one.numbers.map(String.init).joined(separator: ", "))"
            return "Dismissed \(alarms) of \(one.todo.id): \(Table.oneLine(one.todo.title))"
        }
        if all.count == 1, let one = all.first {
            guard let nothing = one.nothing else { return line(one) }
            return "Nothing to dismiss: todo \(one.todo.id) (\(nothing)): \(Table.oneLine(one.todo.title))"
        }
        if acting.isEmpty {
            return "Nothing to dismiss: no alarm of the \(all.count) todos has fired since it was dismissed."
        }
        let rest = all.count - acting.count
        return
            (acting.map(line) + [
                "Dismissed the alarms of \(Runner.count(acting.count, "todo"))"
                    + (rest > 0 ? "; \(rest) had nothing to dismiss." : ".")
            ]).joined(separator: "\n")
    }
}
