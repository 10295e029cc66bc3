import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

/// Several alarms per todo and nagging (issue 35 item 1) against the built daemon and `todoctl`,
/// the real database and the real journal.
@Suite(.serialized) struct AlarmEndToEndTests {
    static let berlin = ["TZ": "Europe/Berlin", "NO_COLOR": "1"]

    private func json(_ d: DaemonProcess, _ arguments: [String]) throws -> JSON {
        let result = try d.todoctl(["--json"] + arguments, environment: Self.berlin)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    /// Each firing of each alarm is its own journal entry naming the alarm's uid, its place and
    /// which repeat it is; the nagging one repeats its count, then `reminded` is set.
    @Test(
        .enabled(if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"), "needs a running systemd-journald"))
    func eachFiringOfEachAlarmIsItsOwnJournalEntry() throws {
        let dir = TemporaryDirectory("alarm-fire")
        let daemon = try DaemonProcess(directory: dir)
        let title = unique("alarms")
        let due = rfc3339(in: 3)
        let first = rfc3339(in: 1)
        let todo = try daemon.client().result(
            "todo.add",
            [
                "title": .string(title), "due": .string(due),
                "alarms": [
                    ["uid": "first", "at": .string(first)],
                    ["uid": "nag", "related": "due", "offset": 0, "repeat": 2, "interval": 1]
                ]
            ])
        #expect(todo["alarms"]?.arrayValue?.count == 2 && todo["remind"] == .string(first))
        #expect(todo["alarms"]?[1]?["next"] == .string(due))
        let entries = try Journalctl.reminders(title: title, atLeast: 4)
        #expect(entries.count == 4)
        #expect(entries.map { $0["TODO_ALARM_UID"]?.stringValue ?? "-" } == ["first", "nag", "nag", "nag"])
        #expect(entries.map { $0["TODO_ALARM_INDEX"]?.stringValue ?? "-" } == ["0", "1", "1", "1"])
        #expect(entries.map { $0["TODO_ALARM_REPEAT"]?.stringValue ?? "-" } == ["0", "0", "1", "2"])
        #expect(entries.allSatisfy { $0["TODO_ALARM_COUNT"] == "2" && $0["TODO_REMIND_USEC"] != nil })
        let read = try daemon.client().result("todo.get", ["id": todo["id"] ?? 0])
        #expect(read["reminded"] != .null)
        // Nothing more fires.
        #expect(try Journalctl.reminders(title: title, atLeast: 5, timeout: 1.5).count == 4)
    }

    /// `todo.alarm.ack` acknowledges the one alarm named by its uid, the others stay pending;
    /// an unknown todo, an unknown alarm uid or a bad field is a one-line error that changes nothing.
    @Test func alarmAckAcknowledgesOneAlarmOnly() throws {
        let d = try DaemonProcess()
        let client = try d.client()
        let todo = try client.result(
            "todo.add",
            [
                "title": "歯医者に行く", "due": "2099-03-23T08:00:00Z",
                "alarms": [
                    ["uid": "day-before", "related": "due", "offset": -86_400],
                    ["uid": "at-time", "related": "due", "offset": 0]
                ]
            ])
        let id = todo["id"] ?? 0
        let acked = try client.result("todo.alarm.ack", ["id": id, "alarm": "day-before"])
        #expect(acked["alarms"]?[0]?["acknowledged"]?.stringValue != nil)
        #expect(acked["alarms"]?[1]?["acknowledged"] == .null)
        // Acknowledged now, before it fired: RFC 9074 acknowledges firings up to now only.
        #expect(acked["remind"] == "2099-03-22T08:00:00Z")
        #expect(acked["revision"] != todo["revision"])
        let before = try client.result("todo.get", ["id": id])
        for (params, code, text): (JSONObject, Int64, String) in [
            (["id": 9_999, "alarm": "day-before"], -32001, "9999"),
            (["id": id, "alarm": "no-such-alarm"], -32001, "no-such-alarm"),
            (["id": id, "alarm": ""], -32602, "alarm"),
            (["id": id, "alarm": 3], -32602, "alarm"),
            (["id": id, "alarm": "at-time", "extra": 1], -32602, "extra")
        ] {
            let answer = try client.call("todo.alarm.ack", params)
            #expect(answer["error"]?["code"] == .int(code), "\(params): \(answer.serialized())")
            let message = answer["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains(text) && !message.contains("\n"), "\(message)")
        }
        #expect(try client.result("todo.get", ["id": id]) == before)
        // Without an alarm: those that fired, here none (both are in 2099): nothing changes.
        #expect(try client.result("todo.alarm.ack", ["id": id]) == before)
        #expect(try client.result("todo.get", ["id": id]) == before)
    }

    /// `todoctl dismiss` stops a nagging alarm while it nags: no further repeat reaches the
    /// journal, and the todo's other alarm still fires at its time.
    @Test(
        .enabled(if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"), "needs a running systemd-journald"))
    func dismissStopsTheNaggingAlarmAndLeavesTheOther() throws {
        let dir = TemporaryDirectory("alarm-dismiss")
        let daemon = try DaemonProcess(directory: dir)
        let title = unique("薬を飲む")
        let todo = try daemon.client().result(
            "todo.add",
            [
                "title": .string(title), "due": .string(rfc3339(in: 1)),
                "alarms": [
                    ["uid": "nag", "related": "due", "offset": 0, "repeat": 60, "interval": 1],
                    ["uid": "later", "at": .string(rfc3339(in: 7))]
                ]
            ])
        let id = todo["id"]?.intValue ?? 0
        // It nags: the alarm and a repeat.
        #expect(try Journalctl.reminders(title: title, atLeast: 2).count >= 2)
        let dismissed = try daemon.todoctl(["dismiss", "\(id)"], environment: Self.berlin)
        #expect(dismissed.status == 0, "\(dismissed.stderr)")
        #expect(dismissed.stdout == "Dismissed alarm 1 of \(id): \(title)\n", "\(dismissed.stdout)")
        func uids() throws -> [String] {
            try Journalctl.reminders(title: title, atLeast: 0).map { $0["TODO_ALARM_UID"]?.stringValue ?? "-" }
        }
        let atDismiss = try uids().filter { $0 == "nag" }.count
        // The other alarm fires at its time; by then the nag would have repeated 4 times or more.
        let entries = try Journalctl.reminders(title: title, atLeast: atDismiss + 1, timeout: 20)
        _ = try eventually(timeout: 20, every: 0.1) { try uids().contains("later") }
        let nags = try uids().filter { $0 == "nag" }.count
        // A repeat already handed to the journal when the dismissal committed may still land.
        #expect(nags <= atDismiss + 1, "\(entries.count) entries, \(nags) nags, \(atDismiss) at the dismissal")
        let all = try uids()
        #expect(all.filter { $0 == "later" }.count == 1, "\(all)")
        let shown = try json(daemon, ["show", "\(id)"])
        #expect(shown["alarms"]?[0]?["acknowledged"]?.stringValue != nil)
        #expect(shown["alarms"]?[1]?["acknowledged"] == .null)
        // Nothing nags afterwards either.
        let after = try Journalctl.reminders(title: title, atLeast: nags + 2, timeout: 1.5)
        #expect(after.count == nags + 1, "\(after.map { $0["TODO_ALARM_UID"]?.stringValue ?? "-" })")
    }

    /// `todoctl snooze` delays the alarm that fired only: the todo's next alarm, due before the
    /// snooze ends, still fires at its time, then the snoozed one fires again, named by its uid.
    @Test(
        .enabled(if: UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket"), "needs a running systemd-journald"))
    func aSnoozePastTheNextAlarmDoesNotSkipIt() throws {
        let dir = TemporaryDirectory("alarm-snooze")
        let daemon = try DaemonProcess(directory: dir)
        let title = unique("会議の準備")
        let todo = try daemon.client().result(
            "todo.add",
            [
                "title": .string(title),
                "alarms": [
                    ["uid": "first", "at": .string(rfc3339(in: 1))], ["uid": "second", "at": .string(rfc3339(in: 5))]
                ]
            ])
        let id = todo["id"]?.intValue ?? 0
        #expect(try Journalctl.reminders(title: title, atLeast: 1).count == 1)
        let snoozed = try daemon.todoctl(["snooze", "\(id)", "9s"], environment: Self.berlin)
        #expect(
            snoozed.status == 0 && snoozed.stdout.contains("; its next alarm still fires at ")
                && snoozed.stdout.hasSuffix(": \(title)\n"), "\(snoozed.stdout)\(snoozed.stderr)")
        let entries = try Journalctl.reminders(title: title, atLeast: 3, timeout: 20)
        #expect(entries.map { $0["TODO_ALARM_UID"]?.stringValue ?? "-" } == ["first", "second", "first"], "\(entries)")
        #expect(try json(daemon, ["show", "\(id)"])["reminded"] != .null)
    }

    /// `todoctl dismiss`: ids, `--alarm N|UID`, a filter (the todos with an alarm to dismiss),
    /// one undo step, and one-line errors that change nothing; Japanese titles as they are.
    @Test func todoctlDismissAcknowledgesWhatFiredAndSaysSo() throws {
        let d = try DaemonProcess()
        let client = try d.client()
        func add(_ title: String, _ alarms: [JSON]) throws -> JSON {
            try client.result(
                "todo.add", ["title": .string(title), "due": "2099-03-23T08:00:00Z", "alarms": .array(alarms)])
        }
        // Alarms in 2020 have fired (as far as the store knows: todod fires them at once).
        let medicine = try add(
            "薬を飲む", [["uid": "past", "at": "2020-01-01T00:00:00Z"], ["uid": "future", "at": "2099-01-01T00:00:00Z"]])
        let dentist = try add("歯医者", [["uid": "old", "at": "2020-02-01T00:00:00Z", "repeat": 3, "interval": 60]])
        let meeting = try add("会議", [["uid": "soon", "at": "2099-02-01T00:00:00Z"]])
        let (a, b, c) = (medicine["id"]?.intValue ?? 0, dentist["id"]?.intValue ?? 0, meeting["id"]?.intValue ?? 0)
        // The alarms of 2020 fire at once; wait for that to be recorded before reading "before".
        _ = try eventually(timeout: 15, every: 0.05) {
            try client.result("todo.get", ["id": .int(a)])["remind"] == "2099-01-01T00:00:00Z"
                && client.result("todo.get", ["id": .int(b)])["reminded"] != .null
        }
        func run(_ arguments: [String]) throws -> ChildProcess.Result {
            try d.todoctl(arguments, environment: Self.berlin)
        }
        // Bad input: one line, exit 1, nothing changes.
        func alarms() throws -> [JSON] {
            try client.result("todo.list", ["status": "all"]).arrayValue?.map { $0["alarms"] ?? .null } ?? []
        }
        let before = try alarms()
        let initial = try client.result("todo.get", ["id": .int(a)])
        for (arguments, text) in [
            (["dismiss", "\(a)", "--alarm", "3"], "todo \(a) has no alarm 3 (it has 2 alarms)"),
            (["dismiss", "\(a)", "--alarm", "nope"], "todo \(a) has no alarm nope"),
            (["dismiss", "\(a)", "\(b)", "--alarm", "2"], "todo \(b) has no alarm 2"),
            (["dismiss", "9999"], "9999")
        ] {
            let r = try run(arguments)
            #expect(r.status == 1 && r.stdout.isEmpty, "\(arguments): \(r.stdout)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(text), "\(arguments): \(r.stderr)")
        }
        let usage = try run(["dismiss", "\(a)", "--alarm", "0"])
        #expect(usage.status == 2 && usage.stderr.contains("invalid --alarm \"0\""), "\(usage.stderr)")
        let unconfirmed = try run(["dismiss", "--all"])
        #expect(unconfirmed.status == 2 && unconfirmed.stderr.contains("--yes"), "\(unconfirmed.stderr)")
        #expect(try alarms() == before)
        // One todo: what fired; then nothing left to dismiss; an alarm not fired yet is left.
        let one = try run(["dismiss", "\(a)"])
        #expect(one.status == 0 && one.stdout == "Dismissed alarm 1 of \(a): 薬を飲む\n", "\(one.stdout)\(one.stderr)")
        let read = try client.result("todo.get", ["id": .int(a)])
        #expect(read["alarms"]?[0]?["acknowledged"]?.stringValue != nil && read["alarms"]?[1]?["acknowledged"] == .null)
        let again = try run(["dismiss", "\(a)"])
        #expect(
            again.status == 0
                && again.stdout
                    == "Nothing to dismiss: todo \(a) (no alarm of it has fired since it was dismissed): 薬を飲む\n",
            "\(again.stdout)")
        let notYet = try run(["dismiss", "\(c)", "--alarm", "soon"])
        #expect(notYet.stdout == "Nothing to dismiss: todo \(c) (alarm 1 has not fired yet): 会議\n", "\(notYet.stdout)")
        #expect(try client.result("todo.get", ["id": .int(a)]) == read)
        // Undo gives the alarm back as it was.
        #expect(try run(["undo"]).status == 0)
        #expect(try client.result("todo.get", ["id": .int(a)])["alarms"] == initial["alarms"])
        // Several ids: one request, one undo step; the one with nothing is reported.
        let several = try run(["dismiss", "\(a)", "\(b)", "\(c)"])
        // A line for each todo dismissed (which alarms), then the count.
        let lines = several.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.count == 3 && lines[0] == "Dismissed alarm 1 of \(a): 薬を飲む"
                && lines[1].hasPrefix("Dismissed alarm") && lines[1].contains(" of \(b): ")
                && lines[2] == "Dismissed the alarms of 2 todos; 1 had nothing to dismiss.", "\(several.stdout)")
        let history = try client.result("store.history", ["limit": 1])
        #expect(history[0]?["description"]?.stringValue?.hasPrefix("dismiss \(a), \(b)") == true, "\(history)")
        #expect(try run(["undo"]).status == 0)
        #expect(try alarms() == before)
        // A filter takes the todos with an alarm to dismiss (not 会議); --alarm by number.
        let filtered = try run(["--json", "dismiss", "--all", "--yes", "--alarm", "1"])
        let changed = try JSON.parse(filtered.stdout).arrayValue?.map { $0["id"]?.intValue ?? 0 }
        #expect(filtered.status == 0 && changed == [a, b], "\(filtered.stdout)\(filtered.stderr)")
        let dentistRead = try client.result("todo.get", ["id": .int(b)])
        #expect(dentistRead["alarms"]?[0]?["acknowledged"]?.stringValue != nil)
        let none = try run(["dismiss", "--all", "--yes"])
        #expect(none.stdout == "No open todos with an alarm to dismiss match; nothing changed.\n", "\(none.stdout)")
    }

    /// `--remind` repeatable, durations before the due time, a WHEN (in Japanese too), `--nag`,
    /// `--remind-clear`; `show` lists each alarm; export and import carry the list; undo gives
    /// back what an edit replaced.
    @Test func todoctlGivesSeveralAlarmsNagsAndClearsThem() throws {
        let d = try DaemonProcess()
        let added = try json(
            d,
            [
                "add", "歯医者", "--due", "2099-03-23 09:00", "--remind", "1d", "--remind", "15m",
                "--remind", "2099-03-20 18:00"
            ])
        let alarms = try #require(added["alarms"]?.arrayValue)
        #expect(alarms.count == 3)
        #expect(alarms[0]["related"] == "due" && alarms[0]["offset"] == -86_400)
        #expect(alarms[1]["related"] == "due" && alarms[1]["offset"] == -900)
        #expect(alarms[2]["at"] == "2099-03-20T17:00:00Z")
        #expect(added["remind"] == "2099-03-20T17:00:00Z")
        let human = try d.todoctl(["show", "1"], environment: Self.berlin)
        #expect(
            human.stdout.contains("1. 1d before due: 2099-03-22 09:00") && human.stdout.contains("2. 15m before due"),
            "\(human.stdout)")
        // Moving the due moves the relative alarms with it.
        let moved = try json(d, ["edit", "1", "--due", "2099-03-24 09:00"])
        #expect(moved["alarms"]?[0]?["next"] == "2099-03-23T08:00:00Z")
        // Nagging: every 10 minutes, 6 times by default; a count of its own.
        let nag = try json(d, ["add", "薬を飲む", "--due", "2099-03-23 21:00", "--nag", "10m"])
        #expect(
            nag["alarms"]?[0]?["repeat"] == 6 && nag["alarms"]?[0]?["interval"] == 600
                && nag["alarms"]?[0]?["offset"] == 0)
        let counted = try json(
            d, ["add", "水", "--due", "2099-03-23 21:00", "--remind", "5m", "--nag", "1h", "--nag-count", "3"])
        #expect(
            counted["alarms"]?[0]?["repeat"] == 3 && counted["alarms"]?[0]?["interval"] == 3600
                && counted["alarms"]?[0]?["offset"] == -300)
        // A WHEN in Japanese.
        let japanese = try json(
            d, ["add", "会議", "--due", "2099-03-23 10:00", "--remind", "30m", "--remind", "2099年3月22日 9時"])
        #expect(japanese["alarms"]?.arrayValue?.count == 2 && japanese["alarms"]?[1]?["at"] == "2099-03-22T08:00:00Z")
        // Bad values: one clear line, nothing changes.
        let bad = try d.todoctl(["add", "x", "--due", "2099-03-23 09:00", "--nag", "10s"], environment: Self.berlin)
        #expect(
            bad.status != 0 && bad.stderr.split(separator: "\n").first?.contains("--nag \"10s\"") == true,
            "\(bad.stderr)")
        let noCount = try d.todoctl(["add", "x", "--nag-count", "3"], environment: Self.berlin)
        #expect(noCount.status != 0 && noCount.stderr.contains("--nag-count goes with --nag"))
        #expect(try json(d, ["list"]).arrayValue?.count == 4)
        // Export carries the list; an import into another store gives it back, uids included.
        let exported = try d.todoctl(["export"], environment: Self.berlin)
        #expect(exported.status == 0)
        let document = try JSON.parse(exported.stdout)
        #expect(document["todos"]?[0]?["alarms"]?.arrayValue?.count == 3)
        let other = try DaemonProcess()
        let exportDir = TemporaryDirectory("alarm-export")
        let file = exportDir.file("export.json")
        try exported.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try other.todoctl(["import", file], environment: Self.berlin).status == 0)
        let imported = try json(other, ["show", "1"])
        #expect(imported["alarms"]?.arrayValue?.map { $0["uid"] } == moved["alarms"]?.arrayValue?.map { $0["uid"] })
        // --remind-clear removes them all; undo brings them back exactly.
        let cleared = try json(d, ["edit", "1", "--remind-clear"])
        #expect(cleared["alarms"] == [] && cleared["remind"] == .null)
        #expect(try d.todoctl(["undo"], environment: Self.berlin).status == 0)
        #expect(try json(d, ["show", "1"])["alarms"] == moved["alarms"])
    }
}
