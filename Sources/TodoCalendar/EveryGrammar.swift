import TodoCore
import TodoTime

/// The end a person gives a rule with ` until WHEN`, as the caller's WHEN parser read it.
package enum EveryUntil: Sendable, Equatable {
    /// A date and time: occurrences up to and including it.
    case instant(Instant)
    /// A date without a time (days since 1970-01-01, local): occurrences through the end of that day.
    case day(Int64)
}

/// What `--every RULE` means: an RRULE in canonical text, and whether the next occurrence counts
/// from the completion (` after done`) rather than from `due`.
package struct EveryRule: Sendable, Equatable {
    package var rule: String
    package var fromCompletion: Bool
    package init(rule: String, fromCompletion: Bool) {
        self.rule = rule
        self.fromCompletion = fromCompletion
    }
    /// The todo's `recurrence` field.
    package var recurrence: TodoRecurrence { TodoRecurrence(rule: rule, from: fromCompletion ? .completion : .due) }
}

/// The RULE grammar of SPEC §4.1 (`--every`): `day`, `weekday`, `week`, `2 weeks`, `month`,
/// `year`, `mon,thu`, `month on the last friday`, `month on the 15th`, each optionally followed
/// by ` after done`, ` until WHEN` or ` for N times`; or a raw RRULE. Month-end rules do what a
/// person means (docs/RECURRENCE.md): `month on the 31st` is the month's last day in shorter
/// months (`BYMONTHDAY=28,29,30,31;BYSETPOS=-1`, which other CalDAV clients read the same way).
package enum EveryGrammar {
    /// The accepted forms, for error messages.
    package static let forms =
        "day, weekday, week, 2 weeks, month, year, mon,thu, month on the last friday, month on the 15th, "
        + "each optionally followed by \"after done\", \"until WHEN\" or \"for N times\"; 毎日, 平日, 毎週水曜, 隔週金曜, 毎月25日, "
        + "毎月最終金曜, 毎年12月24日 (完了後, 10回, 12月31日まで); or an RRULE such as FREQ=MONTHLY;BYDAY=-1FR"

    /// Reads a RULE. `anchor` is the local date (days since 1970-01-01) of the first `due`, when
    /// known: `month` from the 29th–31st and `year` from 29 February keep to the month's end.
    /// `zone` ends a date-only ` until` at the end of that local day; `until` reads the WHEN text
    /// (the caller's WHEN grammar) and may throw its own error.
    package static func parse(
        _ text: String, anchor: Int64? = nil, zone: ZoneInfo,
        until resolve: (String) throws -> EveryUntil
    ) throws -> EveryRule {
        func bad(_ why: String) -> RecurrenceError {
            RecurrenceError("bad recurrence \"\(text)\": \(why); use \(forms)")
        }
        // Japanese (`毎週水曜`, `毎月最終金曜 完了後`) is read as the English rule it means.
        var words = (JapaneseEvery.english(text) ?? text).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(
            String.init)
        func lower(_ i: Int) -> String { words[i].lowercased() }
        if words.first?.lowercased() == "every" { words.removeFirst() }
        var fromCompletion = false
        var count: Int?
        var untilText: String?
        // Suffixes, from the end: "after done", "for N times", "until WHEN".
        while words.count >= 2 {
            let n = words.count
            if lower(n - 2) == "after", lower(n - 1) == "done" {
                guard !fromCompletion else { throw bad("\"after done\" appears twice") }
                fromCompletion = true
                words.removeLast(2)
            } else if n >= 3, lower(n - 3) == "for", ["times", "time"].contains(lower(n - 1)) {
                guard count == nil else { throw bad("\"for N times\" appears twice") }
                guard let c = Int(words[n - 2]), c >= 1, c <= RecurrenceRule.maximumCount else {
                    throw bad("\"\(words[n - 2])\" is not a number of times (1…\(RecurrenceRule.maximumCount))")
                }
                count = c
                words.removeLast(3)
            } else if let i = words.lastIndex(where: { $0.lowercased() == "until" }), i > 0 {
                guard untilText == nil else { throw bad("\"until\" appears twice") }
                guard i + 1 < n else { throw bad("\"until\" needs a date") }
                untilText = words[(i + 1)...].joined(separator: " ")
                words.removeSubrange(i...)
            } else {
                break
            }
        }
        guard !words.isEmpty else { throw bad("no rule") }
        if count != nil && untilText != nil { throw bad("give either \"until\" or \"for N times\", not both") }

        var rule: RecurrenceRule
        let base = words.joined(separator: " ")
        if base.contains("=") {
            do { rule = try RecurrenceRule(parsing: base) } catch { throw bad(error.message) }
            if count != nil && (rule.count != nil || rule.until != nil)
                || untilText != nil && (rule.count != nil || rule.until != nil)
            {
                throw bad("the RRULE already has COUNT or UNTIL")
            }
        } else {
            rule = try phrase(words.map { $0.lowercased() }, anchor: anchor, bad: bad)
        }
        if let count { rule.count = count }
        if let untilText {
            switch try resolve(untilText) {
            case .instant(let t): rule.until = .instant(Instant(seconds: t.seconds))
            case .day(let days):
                guard let next = LocalTime.instant(days: days + 1, secondOfDay: 0, in: zone) else {
                    throw bad("\"\(untilText)\" is out of range")
                }
                rule.until = .instant(Instant(seconds: next.seconds - 1))
            }
        }
        do { try rule.validate() } catch { throw bad(error.message) }
        return EveryRule(rule: rule.text, fromCompletion: fromCompletion)
    }

    /// The words of a rule without its suffixes, lowercased.
    static func phrase(_ words: [String], anchor: Int64?, bad: (String) -> RecurrenceError) throws -> RecurrenceRule {
        var w = words[...]
        var interval = 1
        if let first = w.first, let n = Int(first) {
            guard n >= 1, n <= RecurrenceRule.maximumInterval else {
                throw bad("\(first) is not an interval (1…\(RecurrenceRule.maximumInterval))")
            }
            interval = n
            w = w.dropFirst()
        } else if w.first == "other" {
            interval = 2
            w = w.dropFirst()
        }
        guard let unit = w.first else { throw bad("no unit after the number") }
        let plural = interval > 1
        func unitIs(_ singular: String, _ adverb: String?) -> Bool {
            unit == singular || unit == singular + "s" && plural || unit == adverb && interval == 1 && !plural
        }
        var rule: RecurrenceRule
        let rest = Array(w.dropFirst())
        if unitIs("day", "daily") {
            rule = RecurrenceRule(frequency: .daily)
            guard rest.isEmpty else { throw bad("unexpected \"\(rest.joined(separator: " "))\"") }
        } else if (unit == "weekday" || unit == "weekdays") && interval == 1 {
            rule = RecurrenceRule(frequency: .weekly)
            rule.byDay = (0..<5).map { WeekdayNumber(Weekday(rawValue: $0)!) }
            guard rest.isEmpty else { throw bad("unexpected \"\(rest.joined(separator: " "))\"") }
        } else if unitIs("week", "weekly") {
            rule = RecurrenceRule(frequency: .weekly)
            if !rest.isEmpty {
                guard rest.first == "on", rest.count > 1 else {
                    throw bad("expected \"on\" and weekdays after \"\(unit)\"")
                }
                rule.byDay = try weekdays(Array(rest.dropFirst()), bad: bad).map { WeekdayNumber($0) }
            }
        } else if unitIs("month", "monthly") {
            rule = RecurrenceRule(frequency: .monthly)
            if !rest.isEmpty {
                guard rest.first == "on", rest.count > 1 else { throw bad("expected \"on the ...\" after \"\(unit)\"") }
                try monthDay(Array(rest.dropFirst()), into: &rule, bad: bad)
            } else if let anchor, case let day = Instant.civil(days: anchor).day, day > 28 {
                rule.byMonthDay = Array(28...Int(day))
                rule.bySetPos = [-1]
            }
        } else if unitIs("year", "yearly") || unit == "annually" && interval == 1 {
            rule = RecurrenceRule(frequency: .yearly)
            guard rest.isEmpty else { throw bad("unexpected \"\(rest.joined(separator: " "))\"") }
            if let anchor, case (_, let m, let d) = Instant.civil(days: anchor), m == 2, d == 29 {
                rule.byMonth = [2]
                rule.byMonthDay = [28, 29]
                rule.bySetPos = [-1]
            }
        } else if interval == 1, let days = try? weekdays(Array(w), bad: bad) {
            rule = RecurrenceRule(frequency: .weekly)
            rule.byDay = days.map { WeekdayNumber($0) }
        } else {
            throw bad("\"\(words.joined(separator: " "))\" is not a rule")
        }
        rule.interval = interval
        return rule
    }

    /// `mon,thu`, `monday and thursday`, `tue thu`: distinct weekdays in week order.
    static func weekdays(_ words: [String], bad: (String) -> RecurrenceError) throws -> [Weekday] {
        var days: [Weekday] = []
        let items = words.flatMap { $0.split(separator: ",").map(String.init) }.filter { $0 != "and" && !$0.isEmpty }
        guard !items.isEmpty else { throw bad("no weekday") }
        for item in items {
            guard let day = weekday(item) else { throw bad("\"\(item)\" is not a weekday") }
            if !days.contains(day) { days.append(day) }
        }
        return days.sorted()
    }

    /// A weekday's English name or abbreviation (`mon`, `tues`, `thursday`), plural allowed.
    static func weekday(_ word: String) -> Weekday? {
        let w =
            word.hasSuffix("s") && word.count > 3 && !word.hasSuffix("tues") && !word.hasSuffix("thurs")
            ? String(word.dropLast()) : word
        let names: [(Weekday, [String])] = [
            (.monday, ["mo", "mon", "monday"]), (.tuesday, ["tu", "tue", "tues", "tuesday"]),
            (.wednesday, ["we", "wed", "wednesday"]),
            (.thursday, ["th", "thu", "thur", "thurs", "thursday"]), (.friday, ["fr", "fri", "friday"]),
            (.saturday, ["sa", "sat", "saturday"]), (.sunday, ["su", "sun", "sunday"])
        ]
        return names.first { $0.1.contains(w) }?.0
    }

    /// After `month on`: `the 15th`, `the 31st`, `the last day`, `the last friday`, `the 2nd monday`.
    static func monthDay(_ words: [String], into rule: inout RecurrenceRule, bad: (String) -> RecurrenceError) throws {
        var w = words[...]
        if w.first == "the" { w = w.dropFirst() }
        guard let first = w.first else { throw bad("expected a day after \"on the\"") }
        let rest = Array(w.dropFirst())
        let ordinalWords = [
            "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1,
            "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5
        ]
        if rest.isEmpty, let day = dayOfMonth(first) {
            if day > 28 {
                // The 29th–31st, or the month's last day when it is shorter.
                rule.byMonthDay = Array(28...day)
                rule.bySetPos = [-1]
            } else {
                rule.byMonthDay = [day]
            }
        } else if first == "last", rest == ["day"] {
            rule.byMonthDay = [-1]
        } else if let ordinal = ordinalWords[first], rest.count == 1, let day = weekday(rest[0]) {
            rule.byDay = [WeekdayNumber(day, ordinal: ordinal)]
        } else if first == "last", rest == ["weekday"] {
            rule.byDay = (0..<5).map { WeekdayNumber(Weekday(rawValue: $0)!) }
            rule.bySetPos = [-1]
        } else if let ordinal = ordinalWords[first], ordinal > 0, rest == ["weekday"] {
            rule.byDay = (0..<5).map { WeekdayNumber(Weekday(rawValue: $0)!) }
            rule.bySetPos = [ordinal]
        } else {
            throw bad(
                "\"on \(words.joined(separator: " "))\" is not a day of the month (the 15th, the last day, the last friday)"
            )
        }
    }

    /// `15th`, `1st`, `22nd`, `3rd`, `15`: 1…31.
    static func dayOfMonth(_ word: String) -> Int? {
        var digits = Substring(word)
        for suffix in ["st", "nd", "rd", "th"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(2)
            break
        }
        guard !digits.isEmpty, digits.count <= 2, let n = Int(digits), n >= 1, n <= 31 else { return nil }
        return n
    }
}
