import Foundation
import Testing
import TodoCalendar
import TodoCore
import TodoTestSupport
import TodoTime

/// Rules nobody here wrote: every distinct RRULE in the calendars shipped inside the
/// `icalendar` and `recurring-ical-events` packages (scripts/test installs both into its venv),
/// made into a VTODO in each of four zones (its DTSTART and DUE the rule's first date on or after
/// 2026-01-01 09:00 local) and expanded over 2026 by todod and by recurring-ical-events
/// (scripts/lib/corpus-rrule-oracle.py), across both DST changes of each zone: equal occurrence for
/// occurrence. UNTIL is left out (most of those rules ended decades ago); rules todod does not
/// compute (HOURLY, BYHOUR, BYWEEKNO ...) are counted, not compared.
@Suite struct CorpusRecurrenceOracleTests {
    static let python = ProcessInfo.processInfo.environment["TODOD_RRULE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = python != nil || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
    static let zones = ["Europe/Berlin", "Australia/Sydney", "Asia/Tokyo", "America/New_York"]
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/lib/corpus-rrule-oracle.py").path

    /// The package directories of `icalendar` and `recurring_ical_events` in the venv of `python`.
    static func packages(_ python: String) throws -> [String] {
        let lib = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib")
        let versions = try FileManager.default.contentsOfDirectory(atPath: lib.path).filter { $0.hasPrefix("python3") }
            .sorted()
        let site = lib.appendingPathComponent(try #require(versions.last)).appendingPathComponent("site-packages")
        return ["icalendar", "recurring_ical_events"].map { site.appendingPathComponent($0).path }
    }

    static func runPython(_ python: String, _ args: [String], input: String = "") throws -> String {
        let r = try ChildProcess.run(python, [script] + args, input: input)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test(
        .enabled(
            if: required, "recurring-ical-events oracle not configured: set TODOD_RRULE_PYTHON (scripts/test does)"))
    func corpusRulesAgreeWithRecurringICalEvents() throws {
        let python = try #require(Self.python)
        let packages = try Self.packages(python)
        for p in packages {
            #expect(FileManager.default.fileExists(atPath: p), "\(p) missing: scripts/test installs it")
        }
        var rules: [String] = []
        var seen: Set<String> = []
        var notComputed: [String: Int] = [:]
        var corpusRules = 0
        for line in try Self.runPython(python, ["rules"] + packages).split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2 else { continue }
            corpusRules += 1
            // Without UNTIL (floating in most of them), which the comparison leaves out.
            let text = fields[1].split(separator: ";").filter { !$0.uppercased().hasPrefix("UNTIL=") }.joined(
                separator: ";")
            do {
                let rule = try RecurrenceRule(parsing: text)
                if seen.insert(rule.text).inserted { rules.append(rule.text) }
            } catch {
                let reason = "\(error)".split(separator: ":").first.map(String.init) ?? "\(error)"
                notComputed[reason, default: 0] += 1
            }
        }
        #expect(corpusRules > 150, "the corpus shrank: \(corpusRules) rules")
        let input = Self.zones.flatMap { z in rules.map { "\(z)\t\($0)\n" } }.joined()
        var compared = 0
        var occurrences = 0
        var disagreements: [String] = []
        for line in try Self.runPython(python, ["expand"], input: input).split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 4, let zone = ZoneInfo(identifier: f[0]), let rule = try? RecurrenceRule(parsing: f[1])
            else {
                disagreements.append("unreadable oracle line: \(line)")
                continue
            }
            compared += 1
            let from = LocalTime.instant(days: Instant.days(year: 2026, month: 1, day: 1)!, secondOfDay: 0, in: zone)!
            let through = LocalTime.instant(
                days: Instant.days(year: 2027, month: 1, day: 1)!, secondOfDay: 0, in: zone)!.adding(usec: -1)
            guard let startSeconds = Int64(f[2]) else {
                // The oracle found no date (or could not read the rule): todod finds none from 2026 either.
                let anchor = LocalTime.instant(
                    days: Instant.days(year: 2026, month: 1, day: 1)!, secondOfDay: 9 * 3600, in: zone)!
                let ours = rule.occurrences(start: anchor, zone: zone, from: from, through: through, limit: 1)
                if f[2] == "!" || !ours.isEmpty {
                    disagreements.append("\(f[0]) \(f[1]): oracle \(f[2]) \(f[3]), todod \(ours)")
                }
                continue
            }
            let start = Instant(seconds: startSeconds)
            let theirs = f[3].split(separator: ",").compactMap { Int64($0) }
            let ours = rule.occurrences(start: start, zone: zone, from: from, through: through).map(\.seconds)
            occurrences += theirs.count
            if ours != theirs {
                let first = zip(ours, theirs).first { $0 != $1 }.map {
                    "\(Instant(seconds: $0.0)) vs \(Instant(seconds: $0.1))"
                }
                disagreements.append("\(f[0]) \(f[1]): todod \(ours.count), oracle \(theirs.count) \(first ?? "")")
            }
        }
        print(
            "corpus recurrence oracle: \(corpusRules) distinct rules in the corpus, \(rules.count) computed by todod (without UNTIL), "
                + "\(compared) rule×zone cases, \(occurrences) occurrences, \(disagreements.count) disagreements; not computed: \(notComputed)"
        )
        #expect(compared == rules.count * Self.zones.count)
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10).joined(separator: "\n"))")
    }
}
