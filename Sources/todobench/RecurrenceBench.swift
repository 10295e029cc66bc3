import TodoCalendar
import TodoCore
import TodoTime

/// The next-occurrence function per call (TodoCalendar), for a few rule shapes in Europe/Berlin:
/// `RecurrenceRule.next(after:start:zone:)` on a parsed rule, and `Recurrence.advance` (parse,
/// next, canonical text: what the store runs when a recurring todo is completed).
enum RecurrenceBench {
    static let shapes = [
        ("daily", "FREQ=DAILY"),
        ("2 weeks on mon,thu", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH"),
        ("month on the last friday", "FREQ=MONTHLY;BYDAY=-1FR"),
        ("month on the 31st", "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1"),
        ("year from 29 February", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1"),
        ("daily for 5000 times", "FREQ=DAILY;COUNT=5000")
    ]

    static func run(calls: Int, samples: Int) throws {
        print("== recurrence: next occurrence per call (Europe/Berlin; `after` up to a year past DTSTART)")
        guard let zone = ZoneInfo(identifier: "Europe/Berlin") else { throw BenchError("no zone Europe/Berlin") }
        let start = Instant(rfc3339: "2026-01-31T08:00:00Z")!
        // Deterministic `after` instants spread over a year after the start.
        let afters = (0..<calls).map {
            start.adding(usec: Int64($0 % 365) * 86_400_000_000 + Int64($0 % 24) * 3_600_000_000)
        }
        var sink: Int64 = 0
        for (name, shape) in shapes {
            let rule = try RecurrenceRule(parsing: shape)
            let times = Measure.samples(samples) {
                for after in afters { sink &+= rule.next(after: after, start: start, zone: zone)?.usec ?? 0 }
            }
            report("next: \(name)", times.map { $0 / Double(calls) }, extra: "per call")
        }
        for (name, shape) in [shapes[1], shapes[5]] {
            let times = try Measure.samples(samples) {
                for after in afters.prefix(calls / 4) {
                    sink &+=
                        try Recurrence.advance(rule: shape, from: .due, due: start, zone: zone, completed: after)?.due
                        .usec ?? 0
                }
            }
            report("advance: \(name)", times.map { $0 / Double(calls / 4) }, extra: "per call")
        }
        // What completing runs in the store now (`Recurrence.advance` over the recurrence set):
        // the same shapes, and one with 10 EXDATEs and an RDATE.
        let week: Int64 = 7 * 86_400_000_000
        let set = TodoRecurrence(
            rule: shapes[1].1, exdates: (1...10).map { .instant(start.adding(usec: Int64($0) * week)) },
            rdates: [.instant(start.adding(usec: 3 * 86_400_000_000))])
        for (name, recurrence) in [
            ("2 weeks on mon,thu", TodoRecurrence(rule: shapes[1].1)),
            ("daily for 5000 times", TodoRecurrence(rule: shapes[5].1)),
            ("2 weeks on mon,thu, 10 EXDATEs, 1 RDATE", set)
        ] {
            let times = try Measure.samples(samples) {
                for after in afters.prefix(calls / 4) {
                    sink &+=
                        try Recurrence.advance(recurrence, due: start, start: nil, zone: zone, completed: after)?.due
                        .usec ?? 0
                }
            }
            report("advance (set): \(name)", times.map { $0 / Double(calls / 4) }, extra: "per call")
        }
        // What `agenda --days 7` adds locally: the occurrences of 1,000 recurring todos (the shapes
        // above in turn, dues spread over the last month) in a 7-day window, each rule parsed.
        let windowStart = Instant(rfc3339: "2026-12-01T00:00:00Z")!
        let windowEnd = windowStart.adding(usec: 7 * 86_400_000_000)
        let todos = (0..<1_000).map { i in
            (
                shapes[i % shapes.count].1,
                windowStart.adding(usec: -Int64(i % 30) * 86_400_000_000 + Int64(i % 13) * 3_600_000_000)
            )
        }
        let expansion = try Measure.samples(samples) {
            for (text, due) in todos {
                let rule = try RecurrenceRule(parsing: text)
                sink &+= Int64(
                    rule.occurrences(start: due, zone: zone, from: windowStart, through: windowEnd, limit: 9).count)
            }
        }
        report("agenda expansion: 1,000 todos x 7 days", expansion)
        // The same through the recurrence set (what `agenda` runs now).
        let setExpansion = Measure.samples(samples) {
            for (text, due) in todos {
                sink &+= Int64(
                    Recurrence.laterDues(
                        TodoRecurrence(rule: text), due: due, start: nil, zone: zone, from: windowStart,
                        through: windowEnd, limit: 9
                    ).count)
            }
        }
        report("agenda expansion (set): 1,000 todos x 7 days", setExpansion)
        if sink == 42 { print("") } // keeps the work from being optimized away
    }
}
