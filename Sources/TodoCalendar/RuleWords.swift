import TodoCore
import TodoTime

extension RecurrenceRule {
    /// The rule in English words for `show` and `list --recurring`: `every 2 weeks on Monday and
    /// Thursday, 5 more times`, `every month on the last Friday`, `after done: every 2 weeks`.
    /// COUNT reads as "N more times" (the current `due` included, docs/RECURRENCE.md); UNTIL as
    /// the local date (and time, unless it is the end of a day) in `zone`. Parts without plain
    /// words are shown as RRULE text in parentheses.
    package func words(fromCompletion: Bool = false, zone: ZoneInfo = .utc) -> String {
        var text = "every " + (interval == 1 ? Self.unit(frequency) : "\(interval) \(Self.unit(frequency))s")
        var leftover: [String] = []
        let plainDays = byDay.filter { $0.ordinal == 0 }.map(\.weekday)
        let weekdaySet = Set(plainDays) == Set((0..<5).map { Weekday(rawValue: $0)! }) && plainDays.count == 5
        var setPosUsed = false
        let months = byMonth.map { Self.monthNames[$0 - 1] }

        if frequency == .weekly, interval == 1, weekdaySet, byMonth.isEmpty, bySetPos.isEmpty {
            text = "every weekday"
        } else if frequency == .yearly, byMonth == [2], byMonthDay == [28, 29], bySetPos == [-1], byDay.isEmpty {
            text += " on 29 February (28 February in other years)"
            setPosUsed = true
        } else if frequency == .yearly, byMonth.count == 1, byMonthDay.count == 1, byMonthDay[0] > 0, byDay.isEmpty {
            text += " on \(byMonthDay[0]) \(months[0])"
        } else {
            if !byMonthDay.isEmpty {
                if bySetPos == [-1], byMonthDay.first == 28, byMonthDay == Array(28...(byMonthDay.last ?? 28)),
                    byMonthDay.count > 1
                {
                    text += " on the \(Self.dayOrdinal(byMonthDay.last!)) (or the last day of shorter months)"
                    setPosUsed = true
                } else {
                    text +=
                        " on the "
                        + Self.list(
                            byMonthDay.map {
                                $0 > 0 ? Self.dayOrdinal($0) : ($0 == -1 ? "last day" : Self.countWord($0) + " day")
                            })
                }
                if !byDay.isEmpty { text += " if it is a " + Self.list(byDay.map(Self.weekdayWords), "or") }
            } else if !byDay.isEmpty {
                if weekdaySet, bySetPos.count == 1, frequency == .monthly || frequency == .yearly {
                    text += " on the \(Self.countWord(bySetPos[0])) weekday"
                    setPosUsed = true
                } else {
                    let anyOrdinal = byDay.contains { $0.ordinal != 0 }
                    text += (anyOrdinal ? " on the " : " on ") + Self.list(byDay.map(Self.weekdayWords))
                }
            }
            if !byMonth.isEmpty {
                text +=
                    (frequency == .yearly && !byDay.isEmpty && byDay.contains { $0.ordinal != 0 } ? " of " : " in ")
                    + Self.list(months)
            }
        }
        if !bySetPos.isEmpty && !setPosUsed {
            leftover.append("BYSETPOS=" + bySetPos.map(String.init).joined(separator: ","))
        }
        if !leftover.isEmpty { text += " (" + leftover.joined(separator: ";") + ")" }
        if let count { text += count == 1 ? ", 1 more time" : ", \(count) more times" }
        switch until {
        case .date(let days)?:
            text +=
                ", until "
                + String(
                    LocalTime.instant(days: days, secondOfDay: 0, in: zone).map {
                        LocalTime($0, in: zone).text.prefix(10)
                    } ?? "?")
        case .instant(let t)?:
            let local = LocalTime(t, in: zone)
            text += ", until " + (local.secondOfDay == 86_399 ? String(local.text.prefix(10)) : local.text)
        case .local(let seconds)?:
            let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
            let second = seconds - days * 86_400
            func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
            text += ", until " + LocalTime.dateText(days: days) + " " + two(second / 3600) + ":" + two(second / 60 % 60)
        case nil: break
        }
        return fromCompletion ? "after done: " + text : text
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December"
    ]

    static func unit(_ f: Frequency) -> String {
        switch f {
        case .daily: "day"
        case .weekly: "week"
        case .monthly: "month"
        case .yearly: "year"
        }
    }

    static func weekdayWords(_ d: WeekdayNumber) -> String {
        d.ordinal == 0 ? d.weekday.name : countWord(d.ordinal) + " " + d.weekday.name
    }

    /// 1 → first, 2 → second, -1 → last, -2 → second-to-last, 20 → 20th.
    static func countWord(_ n: Int) -> String {
        let names = ["first", "second", "third", "fourth", "fifth"]
        if n > 0 { return n <= 5 ? names[n - 1] : dayOrdinal(n) }
        if n == -1 { return "last" }
        return (-n <= 5 ? names[-n - 1] : dayOrdinal(-n)) + "-to-last"
    }

    /// 1 → 1st, 2 → 2nd, 13 → 13th, 22 → 22nd.
    static func dayOrdinal(_ n: Int) -> String {
        let suffix =
            (n % 100 >= 11 && n % 100 <= 13)
            ? "th" : ["th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"][n % 10]
        return "\(n)\(suffix)"
    }

    static func list(_ items: [String], _ conjunction: String = "and") -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
    }
}

extension Recurrence {
    /// A todo's `recurrence` in words, in its zone.
    package static func words(_ recurrence: TodoRecurrence, zone: ZoneInfo) -> String {
        words(rule: recurrence.rule, fromCompletion: recurrence.from == .completion, zone: zone)
    }

    /// The stored rule in words (see `RecurrenceRule.words`); the RRULE text itself when it does
    /// not parse (a rule from an older or foreign client is shown, never hidden).
    package static func words(rule: String, fromCompletion: Bool, zone: ZoneInfo) -> String {
        guard let parsed = try? RecurrenceRule(parsing: rule) else {
            return (fromCompletion ? "after done: " : "") + rule
        }
        return parsed.words(fromCompletion: fromCompletion, zone: zone)
    }
}
