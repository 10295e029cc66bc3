import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoTestSupport

/// Files nobody here wrote: the test calendars shipped inside the Python `icalendar` package
/// (installed into scripts/test's venv with todoman; events, todos, time zones, alarms, broken
/// files and fuzzer finds), each given to the built `todoctl import`. Every file is imported or
/// refused with its name and line; nothing crashes or hangs; importing them all again changes
/// nothing.
@Suite(
    .serialized,
    .enabled(
        if: !ICalendarPackageCorpus.files.isEmpty,
        "needs the icalendar package's test files: set TODOD_TODOMAN to the venv's todo (scripts/test does)"))
struct ICalendarCorpusTests {
    @Test func everyFileIsImportedOrRefusedWithItsLineAndAgainChangesNothing() throws {
        let d = try DaemonProcess()
        var imported: [String] = []
        var refused: [String] = []
        for file in ICalendarPackageCorpus.files {
            let r = try d.todoctl(["import", file], environment: ["TZ": "Europe/Berlin"])
            switch r.status {
            case 0:
                #expect(r.stdout.hasPrefix("Imported "), "\(file): \(r.stdout)")
                imported.append(file)
            case 1:
                let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
                #expect(first.hasPrefix("todoctl: \(file): line "), "\(file): \(r.stderr)")
                refused.append(first)
            default:
                Issue.record("\(file): exit \(r.status) (a crash or a hang?): \(r.stderr)")
            }
        }
        print(
            "ICalendarCorpusTests: \(ICalendarPackageCorpus.files.count) files, \(imported.count) imported, \(refused.count) refused:\n  "
                + refused.joined(separator: "\n  "))
        // Most of the corpus is good iCalendar: a reader refusing much of it is wrong.
        #expect(imported.count >= ICalendarPackageCorpus.files.count * 3 / 4)
        // Todos due in the past without an alarm are reminded at once (a default reminder): the
        // store is compared once those have fired, when the earliest reminder still pending
        // (daemon.status's nextReminder) is none or one after the imports.
        let importsEnded = Instant.now()
        let settled = try eventually(timeout: 30) {
            guard let next = try d.client().result("daemon.status")["nextReminder"]?.stringValue else { return true }
            return Instant(rfc3339: next).map { $0 > importsEnded } ?? false
        }
        #expect(settled, "reminders due before the imports still pending")
        let before = try d.client().result("store.export", [:])
        for file in imported {
            let r = try d.todoctl(["import", file], environment: ["TZ": "Europe/Berlin"])
            #expect(
                r.status == 0 && (r.stdout.contains("(0 added, 0 updated,") || r.stdout.hasPrefix("Imported 0 todos")),
                "\(file): \(r.stdout)")
        }
        let after = try d.client().result("store.export", [:])
        #expect(after["todos"] == before["todos"])
    }
}

/// Where the icalendar package keeps its test calendars.
enum ICalendarPackageCorpus {
    /// `<venv>/lib/python3.*/site-packages/icalendar/tests/**/*.ics`, sorted.
    static let files: [String] = {
        guard let todo = ProcessInfo.processInfo.environment["TODOD_TODOMAN"], !todo.isEmpty else { return [] }
        let lib = URL(fileURLWithPath: todo).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib")
        let fm = FileManager.default
        guard let pythons = try? fm.contentsOfDirectory(atPath: lib.path) else { return [] }
        var found: [String] = []
        for python in pythons where python.hasPrefix("python") {
            let root = lib.appendingPathComponent(python).appendingPathComponent("site-packages/icalendar/tests").path
            guard let walk = fm.enumerator(atPath: root) else { continue }
            while let relative = walk.nextObject() as? String {
                if relative.hasSuffix(".ics") { found.append(root + "/" + relative) }
            }
        }
        return found.sorted()
    }()
}
