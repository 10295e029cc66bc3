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
            (["id": id], -32602, "alarm"),
            (["id": id, "alarm": 3], -32602, "alarm"),
            (["id": id, "alarm": "at-time", "extra": 1], -32602, "extra")
        ] {
            let answer = try client.call("todo.alarm.ack", params)
            #expect(answer["error"]?["code"] == .int(code), "\(params): \(answer.serialized())")
            let message = answer["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains(text) && !message.contains("\n"), "\(message)")
        }
        #expect(try client.result("todo.get", ["id": id]) == before)
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
