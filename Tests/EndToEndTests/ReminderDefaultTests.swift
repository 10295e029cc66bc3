import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Reminders the user did not set, through the built todoctl and todod: a todo from elsewhere
/// with a due date and no alarm is reminded (`remind-default`), and `snooze` never moves a
/// reminder earlier. See docs/REMINDERS.md.
@Suite struct ReminderDefaultTests {
    func file(_ d: DaemonProcess, _ name: String, _ lines: [String]) throws -> String {
        let path = d.directory.file(name)
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The todos by uid as `list --json` gives them.
    func todos(_ d: DaemonProcess, _ env: [String: String]) throws -> [String: JSON] {
        let r = try d.todoctl(["--json", "list", "--all", "--flat"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        var out: [String: JSON] = [:]
        for t in try JSON.parse(r.stdout).arrayValue ?? [] { if let uid = t["uid"]?.stringValue { out[uid] = t } }
        return out
    }

    static func calendar(_ dueSoon: String, soonTitle: String = "すぐ") -> [String] {
        [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Apple Inc.//iOS 18//EN",
            "BEGIN:VTODO", "UID:timed", "SUMMARY:歯医者", "DUE:20990401T010000Z", "END:VTODO",
            "BEGIN:VTODO", "UID:day", "SUMMARY:ゴミの日", "DUE;VALUE=DATE:20990402", "END:VTODO",
            "BEGIN:VTODO", "UID:alarm", "SUMMARY:会議", "DUE:20990401T010000Z",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:会議", "TRIGGER;RELATED=END:-PT15M", "END:VALARM", "END:VTODO",
            "BEGIN:VTODO", "UID:done", "SUMMARY:済み", "DUE:20990401T010000Z", "STATUS:COMPLETED", "END:VTODO",
            "BEGIN:VTODO", "UID:soon", "SUMMARY:\(soonTitle)", "DUE:\(dueSoon)", "END:VTODO",
            "END:VCALENDAR"
        ]
    }

    /// Imported from another client's file: the timed todo is reminded at its due, the all-day
    /// one at `remind-time` that day, one with an alarm by its alarm, a done one not at all; the
    /// one due now fires into the journal. The export writes no alarm for the defaults until the
    /// user changes one. With `remind-default = none` none of them gets a reminder.
    @Test func aTodoFromElsewhereWithoutAlarmIsRemindedAtItsDue() throws {
        let config = TemporaryDirectory("config")
        try FileManager.default.createDirectory(atPath: config.file("todod"), withIntermediateDirectories: true)
        try "remind-time = 8:30\n".write(toFile: config.file("todod/config"), atomically: true, encoding: .utf8)
        let env = ["TZ": "Asia/Tokyo", "XDG_CONFIG_HOME": config.path]
        let d = try DaemonProcess()
        let soon = rfc3339(in: 1).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        let title = unique("すぐ")
        let ics = try file(d, "phone.ics", Self.calendar(soon, soonTitle: title))
        let imported = try d.todoctl(["import", ics], environment: env)
        try #require(imported.status == 0, "\(imported.stderr)")
        let t = try todos(d, env)
        #expect(t["timed"]?["remind"]?.stringValue == "2099-04-01T01:00:00Z", "\(t["timed"] ?? .null)")
        // 08:30 in Tokyo on 2 April.
        #expect(t["day"]?["remind"]?.stringValue == "2099-04-01T23:30:00Z", "\(t["day"] ?? .null)")
        #expect(t["alarm"]?["remind"]?.stringValue == "2099-04-01T00:45:00Z")
        #expect(t["done"]?["remind"] == .null)
        #expect(try Journalctl.reminders(title: title, atLeast: 1).count >= 1, "the todo due now was not reminded")
        // Nothing written back for the defaults: one VALARM, the one that came.
        var export = try d.todoctl(["export", "--format", "ics"], environment: env).stdout
        #expect(export.components(separatedBy: "BEGIN:VALARM").count == 2, "\(export)")
        // A reminder the user sets is the user's: written, relative to the due (it follows the due, as here).
        let id = try #require(t["timed"]?["id"]?.intValue)
        #expect(try d.todoctl(["edit", String(id), "--remind", "10m"], environment: env).status == 0)
        export = try d.todoctl(["export", "--format", "ics"], environment: env).stdout
        #expect(
            export.components(separatedBy: "BEGIN:VALARM").count == 3 && export.contains("TRIGGER;RELATED=END:-PT10M"),
            "\(export)")

        try "remind-default = none\n".write(toFile: config.file("todod/config"), atomically: true, encoding: .utf8)
        let other = try DaemonProcess()
        let again = try other.todoctl(
            ["import", try file(other, "phone.ics", Self.calendar("20990401T000000Z"))], environment: env)
        try #require(again.status == 0, "\(again.stderr)")
        let none = try todos(other, env)
        #expect(
            none["timed"]?["remind"] == .null && none["day"]?["remind"] == .null && none["soon"]?["remind"] == .null,
            "\(none)")
        #expect(none["alarm"]?["remind"]?.stringValue == "2099-04-01T00:45:00Z")
        // A bad value is one clear line, and the import changes nothing.
        try "remind-default = sometimes\n".write(toFile: config.file("todod/config"), atomically: true, encoding: .utf8)
        let bad = try other.todoctl(
            ["import", try file(other, "more.ics", Self.calendar("20990401T000000Z"))], environment: env)
        #expect(
            bad.status != 0 && bad.stderr.contains("remind-default") && bad.stderr.split(separator: "\n").count == 1,
            "\(bad.stderr)")
        #expect(try todos(other, env).count == 5)
    }

    /// `snooze 10m` of a reminder still two hours away leaves it there and says so in one line; a
    /// snooze past it moves it; a fired reminder is snoozed from now as before.
    @Test func snoozeNeverMovesAReminderEarlier() throws {
        let env = ["TZ": "UTC"]
        let d = try DaemonProcess()
        #expect(
            try d.todoctl(
                ["add", "書類を出す", "--due", rfc3339(in: 3 * 3600), "--remind", rfc3339(in: 2 * 3600)], environment: env
            ).status == 0)
        let before = try todos(d, env).values.first?["remind"]
        let r = try d.todoctl(["snooze", "1", "10m"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(
            lines.count == 1 && r.stdout.hasPrefix("Reminder of 1 stays at ")
                && r.stdout.contains("never moves it earlier")
                && r.stdout.hasSuffix(": 書類を出す\n"), "\(r.stdout)")
        let after = try todos(d, env).values.first
        #expect(after?["remind"] == before && after?["revision"]?.intValue == 1, "\(after ?? .null)")
        // Later than the reminder: moved there.
        let later = try d.todoctl(["snooze", "1", "150m"], environment: env)
        #expect(later.status == 0 && later.stdout.hasPrefix("Snoozed 1 until "), "\(later.stdout)")
        #expect(try todos(d, env).values.first?["remind"] != before)
        // Through the protocol too (what todod-notify's button calls): an earlier instant changes nothing.
        let client = try d.client()
        let kept = try client.result("todo.snooze", ["id": .int(1), "until": .string(rfc3339(in: 60))])
        #expect(
            kept["remind"] == (try todos(d, env).values.first?["remind"]) && kept["revision"]?.intValue == 2, "\(kept)")
        // A reminder that has fired is snoozed from now.
        let call = unique("電話")
        #expect(try d.todoctl(["add", call, "--due", rfc3339(in: 0)], environment: env).status == 0)
        #expect(try Journalctl.reminders(title: call, atLeast: 1).count >= 1)
        #expect(
            try eventually(timeout: 5) {
                try todos(d, env).values.first { $0["id"]?.intValue == 2 }?["reminded"] != .null
            })
        let fired = try d.todoctl(["snooze", "2", "10m"], environment: env)
        #expect(fired.status == 0 && fired.stdout.hasPrefix("Snoozed 2 until "), "\(fired.stdout)")
    }
}
