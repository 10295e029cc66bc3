import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Recurring todos and alarms as other clients write them, through the built todoctl and todod:
/// a rule anchored in UTC against python-dateutil (scripts/lib/rrule-oracle.py) across the DST
/// changes of the user's zone, DTSTART with DURATION, an AUDIO alarm. See docs/ICALENDAR.md.
@Suite struct RecurrenceInteropTests {
    static let python = ProcessInfo.processInfo.environment["TODOD_RRULE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let required = python != nil || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/lib/rrule-oracle.py").path

    func file(_ d: DaemonProcess, _ name: String, _ lines: [String]) throws -> String {
        let path = d.directory.file(name)
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The todos' dues by id, as epoch seconds (nil for none).
    func dues(_ d: DaemonProcess, _ env: [String: String]) throws -> [Int64: Int64?] {
        let r = try d.todoctl(["--json", "list", "--all", "--flat", "--sort", "id"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let formatter = ISO8601DateFormatter()
        var out: [Int64: Int64?] = [:]
        for t in try JSON.parse(r.stdout).arrayValue ?? [] {
            guard let id = t["id"]?.intValue else { continue }
            out[id] = t["due"]?.stringValue.flatMap { formatter.date(from: $0) }.map { Int64($0.timeIntervalSince1970) }
        }
        return out
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// Rules whose DTSTART and DUE are UTC times, imported by a user in Berlin and one in New York,
    /// each completed four times: every due is the rule's next UTC instant as dateutil reads it,
    /// the same UTC time of day across the spring and autumn changes (todod followed the local
    /// wall-clock time, an hour off after each change). The export writes them in UTC again.
    @Test(
        .enabled(if: required, "python-dateutil oracle not configured: set TODOD_RRULE_PYTHON (scripts/test does)"),
        arguments: ["Europe/Berlin", "America/New_York"])
    func rulesAnchoredInUTCKeepTheirInstantsAcrossDST(userZone: String) throws {
        let python = try #require(Self.python)
        let seed = SeededRandom.seed(from: "TODOD_RRULE_SEED")
        var random = SeededRandom(seed: seed)
        let d = try DaemonProcess()
        let env = ["TZ": userZone]
        var vtodos: [String] = []
        var cases = ""
        var starts: [Int64] = []
        let count = 40
        for i in 0..<count {
            // Up to four weeks before a DST change of either zone (March and October/November), in 2099.
            let month =
                Bool.random(using: &random)
                ? Int.random(in: 2...3, using: &random) : Int.random(in: 9...10, using: &random)
            let day = Int.random(in: 1...28, using: &random)
            let hour = Int.random(in: 0...23, using: &random)
            let minute = [0, 30, 45].randomElement(using: &random)!
            let rule = [
                "FREQ=DAILY;INTERVAL=\(Int.random(in: 3...9, using: &random))",
                "FREQ=WEEKLY", "FREQ=WEEKLY;INTERVAL=2", "FREQ=WEEKLY;BYDAY=MO,TH",
                "FREQ=MONTHLY", "FREQ=MONTHLY;BYDAY=-1SU", "FREQ=MONTHLY;BYMONTHDAY=1,15",
                "FREQ=YEARLY;BYMONTH=1,4,7,11"
            ].randomElement(using: &random)!
            let local = "2099-\(Self.pad(month, 2))-\(Self.pad(day, 2))T\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):00"
            let stamp = local.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "") + "Z"
            vtodos += [
                "BEGIN:VTODO", "UID:utc-\(i)", "SUMMARY:定例 \(i)", "DTSTART:\(stamp)", "DUE:\(stamp)", "RRULE:\(rule)",
                "END:VTODO"
            ]
            let start = Int64(ISO8601DateFormatter().date(from: local + "Z")!.timeIntervalSince1970)
            starts.append(start)
            cases += "UTC\t\(rule)\t\(local)\t-\t\(start)\t\(start)\n"
        }
        let ics = try file(
            d, "utc.ics", ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//other//EN"] + vtodos + ["END:VCALENDAR"])
        let imported = try d.todoctl(["import", ics], environment: env)
        try #require(imported.status == 0, "\(imported.stderr)")
        var seen: [[Int64]] = Array(repeating: [], count: count)
        for round in 0..<5 {
            let now = try dues(d, env)
            for i in 0..<count { if let due = now[Int64(i + 1)] ?? nil { seen[i].append(due) } }
            if round < 4 {
                let done = try d.todoctl(["done"] + (1...count).map(String.init), environment: env)
                #expect(done.status == 0, "\(done.stderr)")
            }
        }
        let casesFile = d.directory.file("cases.tsv")
        try cases.write(toFile: casesFile, atomically: true, encoding: .utf8)
        let oracle = try ChildProcess.run(python, [Self.script, casesFile, "2101"])
        try #require(oracle.status == 0, "rrule-oracle.py failed: \(oracle.stderr)")
        let answers = oracle.stdout.split(separator: "\n")
        try #require(answers.count == count)
        var failures = 0
        for i in 0..<count {
            let first = answers[i].split(separator: "|")[0].split(separator: " ").compactMap { Int64($0) }
            // todod's first due is DTSTART; then the rule's occurrences after it.
            let expected = [starts[i]] + first.filter { $0 > starts[i] }.prefix(4)
            if seen[i] != Array(expected) {
                failures += 1
                Issue.record("seed \(seed), \(userZone), utc-\(i): \(seen[i]) vs dateutil \(Array(expected))")
            }
        }
        #expect(failures == 0, "\(failures) of \(count) rules anchored in UTC disagree with dateutil in \(userZone)")
        // Written back in UTC, as they came: no TZID, no zone of the importing user.
        let export = try d.todoctl(["export", "--format", "ics"], environment: env).stdout
        #expect(!export.contains("TZID=") && !export.contains("X-TODOD-ZONE"), "\(export.prefix(2000))")
    }

    /// DTSTART with DURATION and no DUE (RFC 5545 §3.6.2) is due at DTSTART + DURATION, its days
    /// nominal in DTSTART's zone (P1DT2H across the spring change: the next day, two hours later
    /// on the clock); a date start with whole days is due on the date; exported with DUE.
    @Test func dtstartWithDurationIsDueAtItsEnd() throws {
        let d = try DaemonProcess()
        let env = ["TZ": "Asia/Tokyo"]
        let ics = try file(
            d, "duration.ics",
            [
                "BEGIN:VCALENDAR", "VERSION:2.0",
                "BEGIN:VTODO", "UID:d1", "SUMMARY:書類", "DTSTART;TZID=Europe/Berlin:20990328T090000", "DURATION:P1DT2H",
                "END:VTODO",
                "BEGIN:VTODO", "UID:d2", "SUMMARY:旅行", "DTSTART;VALUE=DATE:20990401", "DURATION:P2D", "END:VTODO",
                "BEGIN:VTODO", "UID:d3", "SUMMARY:電話", "DTSTART:20990401T100000Z", "DURATION:PT90M", "END:VTODO",
                "END:VCALENDAR"
            ])
        let r = try d.todoctl(["import", ics], environment: env)
        try #require(r.status == 0, "\(r.stderr)")
        let all =
            try JSON.parse(
                try d.todoctl(["--json", "list", "--all", "--flat", "--sort", "id"], environment: env).stdout
            ).arrayValue ?? []
        try #require(all.count == 3)
        // 2099-03-29 11:00 CEST (the change is that night) = 09:00Z.
        #expect(
            all[0]["due"]?.stringValue == "2099-03-29T09:00:00Z" && all[0]["zone"]?.stringValue == "Europe/Berlin",
            "\(all[0])")
        #expect(all[1]["due"] != nil && all[1]["allDay"]?.boolValue == true, "\(all[1])")
        #expect(try d.todoctl(["show", "2"], environment: env).stdout.contains("2099-04-03"))
        #expect(all[2]["due"]?.stringValue == "2099-04-01T11:30:00Z", "\(all[2])")
        let export = try d.todoctl(["export", "--format", "ics"], environment: env).stdout
        #expect(
            export.contains("DUE;TZID=Europe/Berlin:20990329T110000") && export.contains("DUE;VALUE=DATE:20990403")
                && export.contains("DUE;TZID=Asia/Tokyo:20990401T203000") && !export.contains("DURATION"), "\(export)")
    }

    /// An AUDIO alarm is the todo's reminder and is written back as AUDIO (it came back as
    /// DISPLAY), with its sound; a DISPLAY alarm stays DISPLAY.
    @Test func anAudioAlarmStaysAudio() throws {
        let d = try DaemonProcess()
        let env = ["TZ": "UTC"]
        let ics = try file(
            d, "audio.ics",
            [
                "BEGIN:VCALENDAR", "VERSION:2.0",
                "BEGIN:VTODO", "UID:a1", "SUMMARY:音", "DUE:20990401T100000Z",
                "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER;RELATED=END:-PT15M",
                "ATTACH;FMTTYPE=audio/basic:http://example.com/ding.wav", "END:VALARM",
                "END:VTODO",
                "BEGIN:VTODO", "UID:a2", "SUMMARY:表示", "DUE:20990401T100000Z",
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:見て", "TRIGGER;RELATED=END:-PT5M", "END:VALARM",
                "END:VTODO",
                "END:VCALENDAR"
            ])
        let r = try d.todoctl(["import", ics], environment: env)
        try #require(r.status == 0, "\(r.stderr)")
        let all =
            try JSON.parse(
                try d.todoctl(["--json", "list", "--all", "--flat", "--sort", "id"], environment: env).stdout
            ).arrayValue ?? []
        #expect(all.first?["remind"]?.stringValue == "2099-04-01T09:45:00Z", "\(all)")
        let export = try d.todoctl(["export", "--format", "ics"], environment: env).stdout.replacingOccurrences(
            of: "\r\n ", with: "")
        let alarms = export.components(separatedBy: "BEGIN:VALARM").dropFirst().map {
            $0.components(separatedBy: "END:VALARM")[0]
        }
        try #require(alarms.count == 2, "\(export)")
        #expect(
            alarms[0].contains("ACTION:AUDIO")
                && alarms[0].contains("ATTACH;FMTTYPE=audio/basic:http://example.com/ding.wav")
                && !alarms[0].contains("DESCRIPTION") && alarms[0].contains("TRIGGER;RELATED=END:-PT15M"),
            "\(alarms[0])")
        #expect(alarms[1].contains("ACTION:DISPLAY") && alarms[1].contains("DESCRIPTION:見て"), "\(alarms[1])")
        // And again: importing the export changes nothing.
        let again = try file(d, "again.ics", export.components(separatedBy: "\r\n").filter { !$0.isEmpty })
        #expect(try d.todoctl(["import", again], environment: env).status == 0)
        let export2 = try d.todoctl(["export", "--format", "ics"], environment: env).stdout.replacingOccurrences(
            of: "\r\n ", with: "")
        #expect(export2.components(separatedBy: "ACTION:AUDIO").count == 2, "\(export2)")
    }
}
