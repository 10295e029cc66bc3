import Foundation
import Testing
import TodoCalendar
import TodoCore
import TodoTime

@testable import TodoICal

/// Recurrence sets nobody here computed: every VEVENT/VTODO of the calendars shipped inside the
/// `icalendar` and `recurring-ical-events` packages that has EXDATE or RDATE, and the fixtures in
/// RecurrenceSets/ (written after what the clients write: Thunderbird's one EXDATE line per date
/// with TZID and X-MOZ-GENERATION, as in tasks.org's app/src/test/resources/thunderbird files;
/// Nextcloud Tasks' several values per line with its PRODID, as in .../nextcloud; Apple
/// Reminders' all-day DTSTART/DUE VALUE=DATE with X-APPLE-SORT-ORDER, as in .../apple; and a
/// DTSTART Monday / DUE Wednesday anchor, the case of issue 23), each made into a VTODO by
/// scripts/lib/recurrence-set-oracle.py and expanded by recurring-ical-events over a year from its
/// DTSTART (the fixtures in 2026, across both DST changes, in four zones). todod imports the same
/// text (ICalReader) and lists the todo's dues (`Recurrence.laterDues`): equal due for due.
@Suite struct RecurrenceSetOracleTests {
    static let env = ProcessInfo.processInfo.environment
    static let python = env["TODOD_RRULE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = python != nil || !(env["CI"] ?? "").isEmpty
    static let zones = ["Europe/Berlin", "Australia/Sydney", "Asia/Tokyo", "America/New_York"]
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let script = here.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/lib/recurrence-set-oracle.py").path

    static func sitePackages(_ python: String) throws -> [String] {
        let lib = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib")
        let version = try #require(
            try FileManager.default.contentsOfDirectory(atPath: lib.path).filter { $0.hasPrefix("python3") }.max())
        let site = lib.appendingPathComponent(version).appendingPathComponent("site-packages")
        return ["icalendar", "recurring_ical_events"].map { site.appendingPathComponent($0).path }
    }

    /// Why todod and recurring-ical-events differ on a set, when the reason is one of these, none
    /// of them a recurrence set's rule:
    /// - a UTC DTSTART/DUE: ICalReader gives such a todo the importing user's zone (SPEC §11.1
    ///   Zones), so its rule follows that zone's wall clock across DST, where RFC readers stay in UTC;
    /// - an RDATE;VALUE=PERIOD: recurring-ical-events gives that instance the period's own end as
    ///   DUE; todod keeps the todo's own due − start for every occurrence;
    /// - floating DTSTART with UTC EXDATEs (RFC 5545 wants the same value type):
    ///   recurring-ical-events matches them by wall clock, todod as instants;
    /// - an oracle with no occurrence (all excluded or outside its window): a recurring todo keeps its
    ///   due when every other occurrence is excluded.
    static func explanation(_ text: String, oracleEmpty: Bool) -> String? {
        let todo = text.components(separatedBy: "BEGIN:VTODO").last ?? text
        let lines = todo.components(separatedBy: "\r\n")
        let start = lines.first { $0.hasPrefix("DTSTART") } ?? ""
        if start.hasSuffix("Z") { return "UTC start in the importing zone" }
        if lines.contains(where: { $0.hasPrefix("RDATE") && $0.contains("PERIOD") }) { return "PERIOD RDATE length" }
        if !start.contains("TZID"), lines.contains(where: { $0.hasPrefix("EXDATE") && $0.hasSuffix("Z") }) {
            return "floating start, UTC EXDATE"
        }
        return oracleEmpty ? "no occurrence in the oracle" : nil
    }

    @Test(
        .enabled(
            if: required, "recurring-ical-events oracle not configured: set TODOD_RRULE_PYTHON (scripts/test does)"))
    func recurrenceSetsAgreeWithRecurringICalEvents() throws {
        let python = try #require(Self.python)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments =
            [Self.script, Self.zones.joined(separator: ",")] + (try Self.sitePackages(python))
            + [Self.here.appendingPathComponent("RecurrenceSets").path]
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(errors)")
        var cases = 0
        var fixtureCases = 0
        var occurrences = 0
        var notComputed: [String] = []
        var disagreements: [String] = []
        var explained: [String: Int] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let name = o["case"] as? String ?? "?"
            guard let text = o["ics"] as? String, let zoneName = o["zone"] as? String, let theirs = o["dues"] as? [Int],
                let zone = ZoneInfo(identifier: zoneName)
            else {
                notComputed.append("\(name): oracle \(o["error"] ?? "?")")
                continue
            }
            let reader = ICalReader(zone: zone, zoneName: zoneName, now: Instant(rfc3339: "2026-12-01T09:00:00Z")!)
            let entry: ExportDocument.Entry
            do {
                guard let item = try reader.items(Array(text.utf8)).first else { throw ICalError(line: 0, "no todo") }
                entry = item.entry
            } catch {
                disagreements.append("\(name): todod refused it: \(error)")
                continue
            }
            guard let recurrence = entry.recurrence, let due = entry.due,
                (try? RecurrenceRule(parsing: recurrence.rule)) != nil
            else {
                notComputed.append("\(name): rule todod does not compute") // HOURLY, BYHOUR ...: kept, said on import
                continue
            }
            cases += 1
            if !(name.split(separator: "#").first ?? "").contains("/") { fixtureCases += 1 }
            let last = theirs.last.map { Instant(seconds: Int64($0)) } ?? due
            let laterDues = Recurrence.laterDues(
                recurrence, due: due, start: entry.start, zone: entry.zone.flatMap { ZoneInfo(identifier: $0) } ?? zone,
                allDay: entry.allDay, through: last, limit: 500)
            let ours = ([due] + laterDues).map { Int($0.seconds) }
            // The oracle counts a year from the first DTSTART; todod's first due is the first not excluded.
            let theirsFromDue = theirs.filter { $0 >= Int(due.seconds) }
            occurrences += theirsFromDue.count
            if ours != theirsFromDue, let why = Self.explanation(text, oracleEmpty: theirsFromDue.isEmpty) {
                explained[why, default: 0] += 1
            } else if ours != theirsFromDue {
                let first =
                    zip(ours, theirsFromDue).first { $0 != $1 }
                    .map { "\(Instant(seconds: Int64($0.0))) vs \(Instant(seconds: Int64($0.1)))" } ?? "lengths differ"
                disagreements.append("\(name): todod \(ours.count), oracle \(theirsFromDue.count): \(first)")
            }
        }
        print(
            "recurrence set oracle: \(cases) sets (\(fixtureCases) from fixtures × zones), \(occurrences) occurrences, "
                + "\(disagreements.count) disagreements, explained: \(explained); not compared: \(notComputed.count) \(notComputed.prefix(5))"
        )
        #expect(cases >= 20, "too few sets compared: \(cases)")
        #expect(fixtureCases >= 5 * 4 - 3, "fixtures missing: \(fixtureCases)")
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
    }
}
