import Foundation
import Testing
import TodoCalendar
import TodoCore
import TodoTestSupport
import TodoTime

/// The independent check: TodoCalendar's occurrences, `next(after:)` and windows against
/// python-dateutil's `rrule` (scripts/lib/rrule-oracle.py) on thousands of random rules and start
/// times in four zones, DST changes of both hemispheres included. scripts/test makes a private
/// venv with python-dateutil and names its python in `TODOD_RRULE_PYTHON`; there (and whenever
/// `CI` is set) a missing oracle fails the test, while a plain `swift test` without it skips.
/// Replay a failure with `TODOD_RRULE_SEED=<seed>`.
@Suite struct DateutilOracleTests {
    static let python = ProcessInfo.processInfo.environment["TODOD_RRULE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = python != nil || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
    static let zones = ["Europe/Berlin", "Australia/Sydney", "Asia/Tokyo", "America/New_York"]
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/lib/rrule-oracle.py").path

    struct Case {
        var zone: String
        var rule: RecurrenceRule
        var start: Instant
        var after: Instant
        var windowEnd: Instant
    }

    @Test(
        .enabled(
            if: required,
            "python-dateutil oracle not configured: set TODOD_RRULE_PYTHON (scripts/test does) to compare with dateutil's rrule"
        ))
    func agreesWithDateutil() throws {
        let python = try #require(
            Self.python, "TODOD_RRULE_PYTHON is not set but CI is: scripts/test must create the oracle venv")
        #expect(FileManager.default.isExecutableFile(atPath: python), "no python at \(python)")
        let seed = SeededRandom.seed(from: "TODOD_RRULE_SEED")
        var random = SeededRandom(seed: seed)
        var zones: [String: ZoneInfo] = [:]
        for name in Self.zones { zones[name] = ZoneInfo(identifier: name) }
        var cases: [Case] = []
        var lines = ""
        while cases.count < 2000 {
            let zoneName = Self.zones.randomElement(using: &random)!
            let zone = zones[zoneName]!
            guard let rule = try? RecurrenceRule(parsing: Self.randomRule(&random)) else { continue }
            let day = Instant.days(year: 1995, month: 1, day: 1)! + Int64.random(in: 0..<(40 * 365), using: &random)
            let hour: Int64 =
                Bool.random(using: &random)
                ? Int64.random(in: 0...3, using: &random) : Int64.random(in: 0...23, using: &random)
            let minute: Int64 = [0, 30, 45].randomElement(using: &random)!
            let start = LocalTime.instant(days: day, secondOfDay: hour * 3600 + minute * 60, in: zone)!
            let after = start.adding(usec: Int64.random(in: -86_400...(120 * 86_400), using: &random) * 1_000_000)
            let windowEnd = after.adding(usec: Int64.random(in: 0...(30 * 86_400), using: &random) * 1_000_000)
            var withoutUntil = rule
            withoutUntil.until = nil
            let local = LocalTime(start, in: zone)
            let (y, m, d) = Instant.civil(days: local.days)
            let startText =
                "\(Self.pad(y, 4))-\(Self.pad(m, 2))-\(Self.pad(d, 2))T\(Self.pad(local.secondOfDay / 3600, 2)):\(Self.pad(local.secondOfDay / 60 % 60, 2)):00"
            let untilText: String =
                switch rule.until {
                case .instant(let t)?: "u\(t.seconds)"
                case .date(let days)?:
                    {
                        let (uy, um, ud) = Instant.civil(days: days)
                        return "d\(Self.pad(uy, 4))-\(Self.pad(um, 2))-\(Self.pad(ud, 2))"
                    }()
                case .local?, nil: "-" // randomRule writes no floating UNTIL
                }
            lines +=
                "\(zoneName)\t\(withoutUntil.text)\t\(startText)\t\(untilText)\t\(after.seconds)\t\(windowEnd.seconds)\n"
            cases.append(Case(zone: zoneName, rule: rule, start: start, after: after, windowEnd: windowEnd))
        }
        let directory = TemporaryDirectory("rrule")
        try lines.write(toFile: directory.file("cases.tsv"), atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(python, [Self.script, directory.file("cases.tsv")])
        try #require(result.status == 0, "rrule-oracle.py failed: \(result.stderr)")
        let answers = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        try #require(answers.count == cases.count)
        var failures = 0
        for (c, answer) in zip(cases, answers) {
            let parts = answer.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.split(separator: " ").map { Int64($0) }
            }
            let expectedFirst = parts[0].map { $0! }
            let expectedWindow = parts[2].map { $0! }
            let expectedNext = parts[1].first ?? nil
            let zone = zones[c.zone]!
            let first = c.rule.occurrences(start: c.start, zone: zone, from: c.start, through: Self.horizon, limit: 15)
                .map(\.seconds)
            // The oracle looks no further than its horizon; a later next occurrence is "none" there.
            let next = c.rule.next(after: c.after, start: c.start, zone: zone).flatMap {
                $0 <= Self.horizon ? $0.seconds : nil
            }
            let window = c.rule.occurrences(start: c.start, zone: zone, from: c.after, through: c.windowEnd, limit: 100)
                .map(\.seconds)
            if first != expectedFirst || next != expectedNext || window != expectedWindow {
                failures += 1
                if failures <= 5 {
                    Issue.record(
                        """
                        seed \(seed): \(c.zone) \(c.rule.text) from \(c.start) (after \(c.after), window to \(c.windowEnd)):
                          first  \(first.map { Instant(seconds: $0).description }) vs dateutil \(expectedFirst.map { Instant(seconds: $0).description })
                          next   \(next.map { Instant(seconds: $0).description } ?? "none") vs \(expectedNext.map { Instant(seconds: $0).description } ?? "none")
                          window \(window.count) vs \(expectedWindow.count)
                        """)
                }
            }
        }
        #expect(failures == 0, "seed \(seed): \(failures) of \(cases.count) rules disagree with dateutil")
    }

    /// The oracle stops at the end of the year 2060.
    static let horizon = Instant(seconds: Instant.days(year: 2061, month: 1, day: 1)! * 86_400 - 1)

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// A random rule of the supported subset. Left out: BYDAY lists mixing ordinals and plain days
    /// and WEEKLY with BYSETPOS, where dateutil departs from RFC 5545 (it intersects the two
    /// kinds of BYDAY; it applies BYSETPOS to the first week cut at DTSTART).
    static func randomRule(_ r: inout SeededRandom) -> String {
        func pick<T>(_ items: [T]) -> T { items.randomElement(using: &r)! }
        func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &r) < p }
        let days = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
        func plainDays() -> String {
            Array(Set((0..<Int.random(in: 1...3, using: &r)).map { _ in pick(days) })).sorted().joined(separator: ",")
        }
        func months(_ n: Int) -> String {
            Array(Set((0..<n).map { _ in Int.random(in: 1...12, using: &r) })).sorted().map(String.init).joined(
                separator: ",")
        }
        func monthDays() -> String {
            Array(
                Set(
                    (0..<Int.random(in: 1...3, using: &r)).map { _ in
                        chance(0.7) ? Int.random(in: 1...31, using: &r) : -Int.random(in: 1...31, using: &r)
                    })
            )
            .sorted().map(String.init).joined(separator: ",")
        }
        func ordinals(_ limit: Int) -> String {
            Array(
                Set(
                    (0..<Int.random(in: 1...2, using: &r)).map { _ -> String in
                        let n = Int.random(in: 1...limit, using: &r)
                        return "\(chance(0.6) ? n : -n)\(pick(days))"
                    })
            ).sorted().joined(separator: ",")
        }
        let freq = pick(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"])
        var parts = ["FREQ=\(freq)"]
        if chance(0.5) {
            parts.append(
                "INTERVAL=\(chance(0.8) ? Int.random(in: 2...4, using: &r) : Int.random(in: 5...12, using: &r))")
        }
        switch freq {
        case "DAILY":
            if chance(0.2) { parts.append("BYMONTH=" + months(Int.random(in: 1...3, using: &r))) }
            if chance(0.25) { parts.append("BYDAY=" + plainDays()) }
            if chance(0.1) { parts.append("BYMONTHDAY=" + monthDays()) }
        case "WEEKLY":
            if chance(0.6) { parts.append("BYDAY=" + plainDays()) }
            if chance(0.1) { parts.append("BYMONTH=" + months(Int.random(in: 2...6, using: &r))) }
            if chance(0.3) { parts.append("WKST=" + pick(days)) }
        case "MONTHLY":
            switch Int.random(in: 0...6, using: &r) {
            case 0: break
            case 1: parts.append("BYMONTHDAY=" + monthDays())
            case 2: parts.append("BYDAY=" + plainDays())
            case 3: parts.append("BYDAY=" + ordinals(5))
            case 4:
                parts.append("BYMONTHDAY=\(Int.random(in: 1...31, using: &r))")
                parts.append("BYDAY=" + plainDays())
            case 5:
                parts.append("BYDAY=MO,TU,WE,TH,FR")
                parts.append("BYSETPOS=\(pick([1, 2, -1, -2]))")
            default:
                parts.append("BYMONTHDAY=28,29,30,31")
                parts.append("BYSETPOS=-1")
            }
            if chance(0.15) { parts.append("BYMONTH=" + months(Int.random(in: 2...6, using: &r))) }
        default:
            switch Int.random(in: 0...6, using: &r) {
            case 0: break
            case 1: parts.append("BYMONTH=" + months(Int.random(in: 1...3, using: &r)))
            case 2:
                parts.append("BYMONTH=" + months(Int.random(in: 1...3, using: &r)))
                parts.append("BYMONTHDAY=" + monthDays())
            case 3:
                parts.append("BYMONTH=" + months(Int.random(in: 1...2, using: &r)))
                parts.append("BYDAY=" + ordinals(5))
            case 4: parts.append("BYDAY=" + ordinals(53))
            case 5: parts.append("BYMONTHDAY=" + monthDays())
            default:
                parts.append("BYMONTH=2")
                parts.append("BYMONTHDAY=28,29")
                parts.append("BYSETPOS=-1")
            }
        }
        if chance(0.2) {
            parts.append("COUNT=\(Int.random(in: 1...30, using: &r))")
        } else if chance(0.25) {
            let until = Instant(seconds: Int64.random(in: 800_000_000...2_100_000_000, using: &r))
            parts.append(
                "UNTIL="
                    + (chance(0.8)
                        ? String(
                            RecurrenceRule(frequency: .daily).withUntil(until).text.dropFirst("FREQ=DAILY;UNTIL=".count)
                        )
                        : String(
                            RecurrenceRule(frequency: .daily).withUntil(until).text.dropFirst("FREQ=DAILY;UNTIL=".count)
                                .prefix(8))))
        }
        return parts.joined(separator: ";")
    }
}

extension RecurrenceRule {
    func withUntil(_ t: Instant) -> RecurrenceRule {
        var r = self
        r.until = .instant(t)
        return r
    }
}
