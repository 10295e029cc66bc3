import Foundation
import Testing
import TodoCore
import TodoTime

@testable import TodoICal

/// Files nobody here wrote, read and written again: the test calendars shipped inside the
/// `icalendar` and `recurring-ical-events` packages (in the test venv scripts/test makes, whose
/// python `TODOD_RRULE_PYTHON` names), and the client files of tasks.org's test resources
/// (Apple Reminders, Nextcloud Tasks, Thunderbird, Synology, eM Client), read from a mirror of
/// github.com/tasks/tasks when one is on this machine (`TODOD_TASKS_MIRROR`, default
/// /work/.mirror/tasks+tasks/repo; never copied here). Each file is read or refused with its line;
/// each one read is written again, the export reads again, and the icalendar library compares it
/// with the original property by property (scripts/lib/ical-compare.py): no property is lost.
@Suite struct ForeignCorpusRoundTripTests {
    static let env = ProcessInfo.processInfo.environment
    static let python = env["TODOD_RRULE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    static let mirror = env["TODOD_TASKS_MIRROR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/work/.mirror/tasks+tasks/repo"
    static let hasMirror = FileManager.default.fileExists(atPath: mirror + "/HEAD")
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/lib").path
    static let reader = ICalReader(
        zone: ZoneInfo(identifier: "Europe/Berlin")!, zoneName: "Europe/Berlin",
        now: Instant(rfc3339: "2026-12-01T09:00:00Z")!)

    /// Values an export says differently on purpose, by file and property (and why).
    static let explained: [String: String] = [
        // The master's DUE was an instance completed elsewhere: due at the next one, DTSTART with it.
        "eMclient/completed_recurring_task.txt VTODO DUE": "advanced past the instance completed elsewhere",
        "eMclient/completed_recurring_task.txt VTODO DTSTART": "moves with DUE",
        "thunderbird/completed_repeating_task.txt VTODO DUE": "advanced past the instance completed elsewhere",
        "thunderbird/completed_repeating_task.txt VTODO DTSTART": "moves with DUE",
        // Synology writes PERCENT_COMPLETE:0 beside STATUS:COMPLETED; a done todo is written 100.
        "synology/complete_no_due_date.txt VTODO PERCENT-COMPLETE": "100 for a done todo",
        "synology/complete_with_date.txt VTODO PERCENT-COMPLETE": "100 for a done todo",
        "synology/complete_with_date_time.txt VTODO PERCENT-COMPLETE": "100 for a done todo",
        // A trigger relative to DTSTART of a todo without (timed) DUE is written as its instant.
        "thunderbird/reminder_50_days.txt VALARM 1 TRIGGER": "the same instant, absolute",
        "thunderbird/reminder_at_start.txt VALARM 1 TRIGGER": "the same instant, absolute",
        "alarm_removed_and_moved.ics VALARM 1 TRIGGER": "the same instant, absolute"
    ]

    static func run(_ executable: String, _ args: [String]) throws -> (status: Int32, out: Data, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(["ICAL_COMPARE_ZONE": "Europe/Berlin"]) { $1 }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, data, String(decoding: errors, as: UTF8.self))
    }

    /// The files of a corpus, by name.
    static func packageFiles() throws -> [(String, [UInt8])] {
        let python = try #require(Self.python)
        let lib = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib")
        let version = try #require(
            try FileManager.default.contentsOfDirectory(atPath: lib.path).filter { $0.hasPrefix("python3") }.max())
        let site = lib.appendingPathComponent(version).appendingPathComponent("site-packages").path
        var files: [(String, [UInt8])] = []
        for package in ["icalendar", "recurring_ical_events"] {
            let root = site + "/" + package
            let found =
                FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter {
                    $0.hasSuffix(".ics")
                }.sorted() ?? []
            #expect(!found.isEmpty, "no calendars in \(root)")
            for name in found {
                files.append(
                    (package + "/" + name, Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + name)))))
            }
        }
        return files
    }

    static func mirrorFiles() throws -> [(String, [UInt8])] {
        let list = try run(
            "/usr/bin/git", ["--git-dir=" + mirror, "ls-tree", "-r", "--name-only", "HEAD", "app/src/test/resources"])
        let names = String(decoding: list.out, as: UTF8.self).split(separator: "\n").map(String.init).filter { name in
            ["apple", "eMclient", "nextcloud", "synology", "thunderbird"].contains {
                name.contains("/resources/\($0)/")
            }
        }
        #expect(names.count > 30, "tasks.org's client files: \(names.count)")
        return try names.map { name in
            (name, Array(try run("/usr/bin/git", ["--git-dir=" + mirror, "show", "HEAD:" + name]).out))
        }
    }

    @Test(.enabled(if: python != nil, "needs the test venv: set TODOD_RRULE_PYTHON (scripts/test does)"))
    func packageCalendars() throws {
        try roundTrip(try Self.packageFiles(), corpus: "icalendar + recurring-ical-events")
    }

    @Test(.enabled(if: python != nil && hasMirror, "needs the test venv and a mirror of github.com/tasks/tasks"))
    func tasksOrgClientFiles() throws { try roundTrip(try Self.mirrorFiles(), corpus: "tasks.org clients") }

    func roundTrip(_ files: [(String, [UInt8])], corpus: String) throws {
        let python = try #require(Self.python)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("todod-corpus-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var pairs: [String] = []
        var imported = 0
        var todos = 0
        var eventsOnly = 0
        var refused: [String] = []
        for (i, (name, bytes)) in files.enumerated() {
            let read: (items: [ICalReader.Item], skipped: [String: Int])
            do { read = try Self.reader.file(bytes) } catch {
                #expect("\(error)".hasPrefix("line "), "\(name): \(error)")
                refused.append("\(name): \(error)")
                continue
            }
            guard !read.items.isEmpty else {
                eventsOnly += 1
                continue
            }
            imported += 1
            todos += read.items.count
            let text = ICalWriter().calendar(read.items.map(\.entry))
            // todod's export of it reads again, to the same todos.
            // (Kept lines in any order: DTSTART goes out beside DUE.)
            func normal(_ e: ExportDocument.Entry) -> ExportDocument.Entry {
                var e = e
                e.ical = e.ical.map { $0.split(separator: "\n").sorted().joined(separator: "\n") }
                return e
            }
            let again = try Self.reader.file(Array(text.utf8)).items.map { normal($0.entry) }
            #expect(again == read.items.map { normal($0.entry) }, "\(name): the export reads as other todos")
            let original = dir + "/\(i).orig.ics"
            let exported = dir + "/\(i).todod.ics"
            try Data(bytes).write(to: URL(fileURLWithPath: original))
            try Data(text.utf8).write(to: URL(fileURLWithPath: exported))
            pairs += [original, exported]
        }
        let names = Dictionary(uniqueKeysWithValues: files.indices.map { (dir + "/\($0).orig.ics", files[$0].0) })
        let r = try Self.run(python, [Self.scripts + "/ical-compare.py"] + pairs)
        #expect(r.status == 0, "\(r.err)")
        var lost: [String] = []
        var changed: [String] = []
        var rewritten: [String: Int] = [:]
        for line in String(decoding: r.out, as: UTF8.self).split(separator: "\n") {
            var f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4 else { continue }
            f[1] = names[f[1]] ?? f[1]
            switch f[0] {
            case "lost": lost.append(f[1...].joined(separator: " "))
            case "changed": changed.append(f[1...].joined(separator: " "))
            default: rewritten[f[3], default: 0] += 1
            }
        }
        print(
            "\(corpus): \(files.count) files, \(imported) imported (\(todos) todos), \(eventsOnly) without todos, "
                + "\(refused.count) refused \(refused), \(lost.count) properties lost, \(changed.count) changed; rewritten semantically equal: "
                + rewritten.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        #expect(lost.isEmpty, "\(lost.prefix(20).joined(separator: "\n"))")
        let unexplained = changed.filter { c in !Self.explained.contains { c.contains($0.key) } }
        print("\(corpus): changed as explained: " + changed.joined(separator: "; "))
        #expect(unexplained.isEmpty, "\(unexplained.prefix(20).joined(separator: "\n"))")
    }
}
