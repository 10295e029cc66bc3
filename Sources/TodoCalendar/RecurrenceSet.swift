import TodoCore
import TodoTime

/// The occurrences of a todo's recurrence set after its current one, in order (RFC 5545 §3.8.5):
/// the rule's occurrences, the RDATEs, less the EXDATEs, each once. An occurrence is a start (the
/// iCalendar DTSTART of that instance); the todo's due is that plus the todo's due − start.
///
/// The rule's DTSTART is the todo's current occurrence (`start`, or `due` when it has none),
/// counted for COUNT even when off the schedule, or `TodoRecurrence.ruleStart` while the current
/// occurrence is an RDATE before it. An EXDATE date excludes every occurrence on that local day;
/// an EXDATE time the occurrence at that instant (for an all-day todo: on that instant's day).
/// An excluded occurrence still counts for COUNT; an RDATE never does.
package struct RecurrenceSetWalk: Sendable {
    /// One occurrence: its start, and whether the rule gave it (else an RDATE did).
    package struct Occurrence: Sendable, Equatable {
        package let at: Instant
        package let fromRule: Bool
    }

    let zone: ZoneInfo
    let allDay: Bool
    /// The todo's current occurrence: occurrences returned are after it.
    let current: Instant
    var ruleWalk: OccurrenceIterator
    /// The rule's next occurrence not yet returned (nil: none left).
    var pendingRule: Instant?
    /// The rule occurrences the walk has passed, the current one included when it counts.
    package var ruleProduced: Int { ruleWalk.produced - (pendingRule == nil ? 0 : 1) }
    let rdates: [Instant]
    var rdateIndex = 0
    let excludedInstants: Set<Int64>
    let excludedDays: Set<Int64>

    /// - `current`: the todo's current occurrence (`start ?? due`).
    package init(rule: RecurrenceRule, recurrence: TodoRecurrence, current: Instant, zone: ZoneInfo, allDay: Bool) {
        self.zone = zone
        self.allDay = allDay
        self.current = current
        let currentLocal = LocalTime(current, in: zone)
        if let ruleStart = recurrence.ruleStart, ruleStart > current {
            ruleWalk = OccurrenceIterator(rule: rule, start: ruleStart, zone: zone, allDay: allDay)
        } else {
            ruleWalk = OccurrenceIterator(rule: rule, start: current, zone: zone, allDay: allDay, countingStart: true)
        }
        func instant(_ d: RecurrenceDate) -> Instant? {
            switch d {
            case .instant(let t):
                guard allDay else { return t }
                return LocalTime.instant(days: LocalTime(t, in: zone).days, secondOfDay: 0, in: zone)
            case .date(let days):
                // A date for a timed todo: that day at the current occurrence's time of day.
                return LocalTime.instant(days: days, secondOfDay: allDay ? 0 : currentLocal.secondOfDay, in: zone)
            }
        }
        rdates = Array(Set(recurrence.rdates.compactMap(instant))).filter { $0 > current }.sorted()
        var days: Set<Int64> = []
        var instants: Set<Int64> = []
        for d in recurrence.exdates {
            switch d {
            case .date(let day): days.insert(day)
            case .instant(let t):
                if allDay { days.insert(LocalTime(t, in: zone).days) } else { instants.insert(t.usec) }
            }
        }
        excludedDays = days
        excludedInstants = instants
        pendingRule = nil
        pendingRule = nextRule()
    }

    /// Whether an EXDATE removes the occurrence starting at `t`.
    package func isExcluded(_ t: Instant) -> Bool {
        excludedInstants.contains(t.usec)
            || (!excludedDays.isEmpty && excludedDays.contains(LocalTime(t, in: zone).days))
    }

    private mutating func nextRule() -> Instant? {
        while let t = ruleWalk.next() {
            if t > current { return t }
        }
        return nil
    }

    /// Lets the rule's walk count, without making instants, the dates before the local day `days`
    /// (what `OccurrenceIterator.skip(toward:)` does): for a search far after the current occurrence.
    package mutating func skip(toward days: Int64) {
        guard let pending = pendingRule, LocalTime(pending, in: zone).days < days - 1 else { return }
        ruleWalk.skip(toward: days)
        pendingRule = nextRule()
    }

    /// The next occurrence, EXDATEs included (`isExcluded` tells them): what COUNT sees.
    package mutating func nextIncludingExcluded() -> Occurrence? {
        let rdate = rdateIndex < rdates.count ? rdates[rdateIndex] : nil
        switch (pendingRule, rdate) {
        case (nil, nil): return nil
        case (let r?, let d?) where d < r:
            rdateIndex += 1
            return Occurrence(at: d, fromRule: false)
        case (let r?, let d):
            if d == r { rdateIndex += 1 } // an RDATE on a rule occurrence is that occurrence
            pendingRule = nextRule()
            return Occurrence(at: r, fromRule: true)
        case (nil, let d?):
            rdateIndex += 1
            return Occurrence(at: d, fromRule: false)
        }
    }

    /// The next occurrence that is due (not excluded).
    package mutating func next() -> Occurrence? {
        while let o = nextIncludingExcluded() {
            if !isExcluded(o.at) { return o }
        }
        return nil
    }

    /// The rule's next occurrence not yet returned, excluded or not.
    package var nextRuleOccurrence: Instant? { pendingRule }
}

extension Recurrence {
    /// A recurring todo after it is completed (`from: due`), or nil when its set has no occurrence
    /// left: `start` (when it has one) is the next occurrence, `due` keeps its distance from it.
    package struct Advanced: Sendable, Equatable {
        package let due: Instant
        package let start: Instant?
        package let recurrence: TodoRecurrence
    }

    /// The todo after completing it at `completed`. A `from: due` rule takes the first occurrence
    /// of its set (see `RecurrenceSetWalk`) after the current one whose due is after `completed`;
    /// the stored rule then names the rest of the series from there: COUNT less the rule's
    /// occurrences passed (excluded ones included), `ruleStart` set while the todo sits on an RDATE
    /// before the rule's next occurrence. A `from: completion` rule advances `due` as
    /// `advance(rule:fromCompletion:...)` does and `start` by as much.
    package static func advance(
        _ recurrence: TodoRecurrence, due: Instant, start: Instant?, zone: ZoneInfo,
        completed: Instant, allDay: Bool = false
    ) throws(RecurrenceError) -> Advanced? {
        guard recurrence.from == .due else {
            guard
                let next = try advance(
                    rule: recurrence.rule, fromCompletion: true, due: due, zone: zone,
                    completed: completed, allDay: allDay)
            else { return nil }
            var moved = recurrence
            moved.rule = next.rule
            moved.ruleStart = nil
            let newStart = start.flatMap { next.due.checkedAdding(usec: $0.usec - due.usec) }
            return Advanced(due: next.due, start: newStart, recurrence: moved)
        }
        var rule = try RecurrenceRule(parsing: recurrence.rule)
        let current = start ?? due
        let lead = due.usec - current.usec
        let after = max(current, completed.adding(usec: -lead))
        var walk = RecurrenceSetWalk(rule: rule, recurrence: recurrence, current: current, zone: zone, allDay: allDay)
        walk.skip(toward: LocalTime(after, in: zone).days)
        while let o = walk.next() {
            guard o.at > after else { continue }
            guard let newDue = o.at.checkedAdding(usec: lead) else { return nil }
            var moved = recurrence
            if o.fromRule {
                // The rule from here: its DTSTART is this occurrence.
                if let count = rule.count { rule.count = count - (walk.ruleProduced - 1) }
                moved.ruleStart = nil
            } else if let ruleNext = walk.nextRuleOccurrence {
                // On an RDATE: the rule waits at its next occurrence (not passed yet).
                if let count = rule.count { rule.count = count - walk.ruleProduced }
                moved.ruleStart = ruleNext
            } else {
                // On an RDATE after the rule's last occurrence: a rule of this one date.
                rule.until = nil
                rule.count = 1
                moved.ruleStart = nil
            }
            moved.rule = rule.text
            return Advanced(due: newDue, start: start == nil ? nil : o.at, recurrence: moved)
        }
        return nil
    }

    /// The dues of a recurring todo's next occurrences after its current one (`from: due`; none for
    /// an `after done` rule, whose dates depend on when it is done), those whose start is after
    /// `from`, at most `limit`, through `through`. Empty when the rule does not parse.
    package static func laterDues(
        _ recurrence: TodoRecurrence, due: Instant, start: Instant?, zone: ZoneInfo,
        allDay: Bool = false, from: Instant? = nil, through: Instant = .latest,
        limit: Int
    ) -> [Instant] {
        guard limit > 0, recurrence.from == .due, let rule = try? RecurrenceRule(parsing: recurrence.rule) else {
            return []
        }
        let current = start ?? due
        let lead = due.usec - current.usec
        var walk = RecurrenceSetWalk(rule: rule, recurrence: recurrence, current: current, zone: zone, allDay: allDay)
        if let from, rule.count == nil { walk.skip(toward: LocalTime(from.adding(usec: -lead), in: zone).days) }
        var out: [Instant] = []
        while out.count < limit, let o = walk.next() {
            guard let d = o.at.checkedAdding(usec: lead), d <= through else { break }
            if let from, d < from { continue }
            out.append(d)
        }
        return out
    }
}
