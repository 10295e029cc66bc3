import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// A recurring parent's subtasks when `done` advances it, through the built `todoctl` against a
/// real daemon and database: the subtasks are done with this occurrence and open again for the
/// next one, their own dates moved as the parent's moved; a recurring subtask follows its own
/// rule; all of it one change (one undo, one `watch` change). See docs/RECURRENCE.md.
@Suite struct RecurringSubtaskTests {
    static let env = ["TZ": "Asia/Tokyo", "NO_COLOR": "1", "COLUMNS": "120"]

    private func run(_ d: DaemonProcess, _ arguments: [String]) throws -> ChildProcess.Result {
        try d.todoctl(arguments, environment: Self.env)
    }

    private func json(_ d: DaemonProcess, _ arguments: [String]) throws -> JSON {
        let result = try run(d, ["--json"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSON.parse(result.stdout)
    }

    /// Every todo as the daemon reads it from its database, by id: done, due, start, remind,
    /// reminded, allDay, revision.
    private func rows(_ d: DaemonProcess) throws -> [Int64: [String: String]] {
        let all = try json(d, ["list", "--all", "--flat", "--sort", "id"]).arrayValue ?? []
        var out: [Int64: [String: String]] = [:]
        for t in all {
            guard let id = t["id"]?.intValue else { continue }
            var fields: [String: String] = [:]
            for key in ["done", "due", "start", "remind", "reminded", "allDay", "recurrence", "revision"] {
                fields[key] = t[key]?.serialized() ?? "-"
            }
            out[id] = fields
        }
        return out
    }

    /// 1 週報 (weekly, Mondays 09:00 from 2099-01-05, starts the day before) with
    /// 2 下書き (due Sunday 18:00, starts Saturday 09:00, reminded 17:00) > 4 確認 (no dates);
    /// 3 送る (done already); 5 点検 (daily at 08:00, its occurrence on the parent's day);
    /// 6 先の予定 (weekly, its occurrence two weeks on); 7 買い出し (all day on Sunday).
    private func makeTree(_ d: DaemonProcess) throws {
        let steps: [[String]] = [
            ["add", "週報", "--due", "2099-01-05 09:00", "--every", "week", "--start", "2099-01-04 09:00"],
            [
                "add", "下書き", "--parent", "1", "--due", "2099-01-04 18:00", "--start", "2099-01-03 09:00",
                "--remind", "2099-01-04 17:00"
            ],
            ["add", "送る", "--parent", "1"],
            ["add", "確認", "--parent", "2"],
            ["add", "点検", "--parent", "1", "--due", "2099-01-05 08:00", "--every", "day"],
            ["add", "先の予定", "--parent", "1", "--due", "2099-01-19 08:00", "--every", "week"],
            ["add", "買い出し", "--parent", "1", "--due", "2099-01-04"],
            ["done", "3"]
        ]
        for step in steps {
            let result = try run(d, step)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
    }

    @Test func doneOfARecurringParentOpensItsSubtasksForTheNextOccurrence() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        let before = try rows(d)
        #expect(before[7]?["allDay"] == "true" && before[3]?["done"] == "true", "\(before)")
        let done = try json(d, ["done", "1"]).arrayValue ?? []
        // The parent first, then every subtask the change touched (4 had nothing to change; 6 is not due yet).
        #expect(done.compactMap { $0["id"]?.intValue } == [1, 2, 3, 5, 7], "\(done)")
        let after = try rows(d)
        // The parent moved one week on, its start with it.
        #expect(
            after[1]?["due"] == #""2099-01-12T00:00:00Z""# && after[1]?["start"] == #""2099-01-11T00:00:00Z""#,
            "\(after[1] ?? [:])")
        // Every subtask is open again: the one done before too.
        #expect((1...7).allSatisfy { after[Int64($0)]?["done"] == "false" }, "\(after)")
        // A subtask's own dates move as far as the parent's did, its reminder re-armed.
        #expect(
            after[2]?["due"] == #""2099-01-11T09:00:00Z""# && after[2]?["start"] == #""2099-01-10T00:00:00Z""#
                && after[2]?["remind"] == #""2099-01-11T08:00:00Z""#, "\(after[2] ?? [:])")
        // An all-day subtask stays on a date: the Sunday a week on, at local midnight.
        #expect(after[7]?["due"] == #""2099-01-10T15:00:00Z""# && after[7]?["allDay"] == "true", "\(after[7] ?? [:])")
        // A recurring subtask whose occurrence was this one's follows its own rule (one day on);
        // one whose occurrence is still to come is left alone.
        #expect(after[5]?["due"] == #""2099-01-05T23:00:00Z""#, "\(after[5] ?? [:])")
        #expect(after[6] == before[6] && after[4] == before[4], "\(after[6] ?? [:]) \(after[4] ?? [:])")
        // One undo restores all of it (each todo's revision grows again); redo makes it again.
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try contents(rows(d)) == contents(before))
        #expect(try run(d, ["redo"]).status == 0)
        #expect(try contents(rows(d)) == contents(after))
    }

    /// `done` of a recurring parent says what happened: the parent and a recurring subtask
    /// advanced, the other subtasks open again for the next occurrence (none "Completed").
    @Test func doneOfARecurringParentSaysWhatHappened() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        let done = try run(d, ["done", "1"])
        let lines = done.stdout.split(separator: "\n").map(String.init)
        #expect(done.status == 0 && lines.count == 3 && !done.stdout.contains("Completed"), "\(done.stdout)")
        #expect(
            lines.first?.hasPrefix("Advanced 1 to 2099-01-12 09:00 ") == true && lines.first?.hasSuffix(": 週報") == true,
            "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("Advanced 5 to ") == true, "\(lines)")
        #expect(lines.last == "Reopened 3 subtasks for the next occurrence: 2, 3, 7.", "\(lines)")
        // One subtask: named with its title.
        let other = try DaemonProcess()
        #expect(try run(other, ["add", "日報", "--due", "2099-01-05 09:00", "--every", "day"]).status == 0)
        #expect(try run(other, ["add", "書く", "--parent", "1"]).status == 0)
        #expect(try run(other, ["done", "2"]).status == 0)
        #expect(try run(other, ["done", "1"]).stdout.hasSuffix("\nReopened subtask 2 for the next occurrence: 書く\n"))
    }

    /// `rows` without the revisions, which undo and redo raise as any change does.
    private func contents(_ rows: [Int64: [String: String]]) -> [Int64: [String: String]] {
        rows.mapValues { $0.filter { $0.key != "revision" } }
    }

    /// The advance is one change: a subscriber sees one seq for it and one for its undo.
    @Test func watchSeesTheAdvanceAsOneChange() throws {
        let d = try DaemonProcess()
        try makeTree(d)
        let watcher = try d.client()
        #expect(try watcher.result("watch") == ["subscribed": true])
        #expect(try run(d, ["done", "1"]).status == 0)
        #expect(try run(d, ["undo"]).status == 0)
        #expect(try run(d, ["add", "終わり"]).status == 0)
        var seqs: [Int64] = []
        var first: [Int64] = []
        while true {
            let message = try watcher.receive()
            guard message["method"] == "event", let params = message["params"], let seq = params["seq"]?.intValue else {
                continue
            }
            if params["todos"]?[0]?["title"]?.stringValue == "終わり" { break }
            if seqs.last != seq { seqs.append(seq) }
            if seqs.count == 1 {
                #expect(params["type"] == "todo.completed", "\(params)")
                first += params["todos"]?.arrayValue?.compactMap { $0["id"]?.intValue } ?? []
            }
        }
        #expect(seqs.count == 2, "the advance and its undo: \(seqs)")
        #expect(first == [1, 2, 3, 5, 7], "\(first)")
    }

    /// A subtask's dates keep their local time across a change of UTC offset: in New York the
    /// parent moves from before the switch to summer time to after it (09:00 to 09:00, 7 days less
    /// an hour), and a subtask due before the switch both times stays at 18:00, an all-day one at
    /// midnight (moving by the parent's 7 days less an hour would put them at 17:00 and 23:00).
    @Test func subtaskDatesKeepTheirLocalTimeAcrossSummerTime() throws {
        let d = try DaemonProcess()
        let ny = ["TZ": "America/New_York", "NO_COLOR": "1"]
        for step in [
            ["add", "週報", "--due", "2099-03-02 09:00", "--every", "week"],
            ["add", "下書き", "--parent", "1", "--due", "2099-02-28 18:00"],
            ["add", "買い出し", "--parent", "1", "--due", "2099-03-01"]
        ] {
            let result = try d.todoctl(step, environment: ny)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        // 2099-03-08 is the second Sunday of March: clocks go forward at 02:00.
        #expect(try d.todoctl(["done", "1"], environment: ny).status == 0)
        let listing = try d.todoctl(["--json", "list", "--flat", "--sort", "id"], environment: ny)
        let listed = try JSON.parse(listing.stdout).arrayValue ?? []
        #expect(
            listed.map { $0["due"] } == ["2099-03-09T13:00:00Z", "2099-03-07T23:00:00Z", "2099-03-08T05:00:00Z"],
            "\(listed)")
    }

    /// Completing a parent that does not recur: a recurring subtask advances as `done` of it
    /// would (it was marked done with its due where it was), its own subtask open for the next
    /// occurrence; a plain subtask is done; all one change (one undo).
    @Test func doneOfAParentAdvancesItsRecurringSubtasks() throws {
        let d = try DaemonProcess()
        let steps: [[String]] = [
            ["add", "引っ越し"],
            ["add", "郵便受けを見る", "--parent", "1", "--due", "2099-01-05 08:00", "--every", "day"],
            ["add", "箱を数える", "--parent", "2"],
            ["add", "鍵を返す", "--parent", "1", "--due", "2099-01-06 10:00"],
            // The same recurring todo on its own, completed directly: what the subtask must match.
            ["add", "郵便受け（単独）", "--due", "2099-01-05 08:00", "--every", "day"]
        ]
        for step in steps {
            let result = try run(d, step)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        #expect(try run(d, ["done", "5"]).status == 0)
        let done = try json(d, ["done", "1"]).arrayValue ?? []
        // 3 has no dates and was open: nothing to change for it.
        #expect(done.compactMap { $0["id"]?.intValue } == [1, 2, 4], "\(done)")
        let after = try rows(d)
        #expect(after[1]?["done"] == "true" && after[4]?["done"] == "true", "\(after)")
        // Advanced as `done 5` advanced the same todo: open, one day on.
        #expect(
            after[2]?["done"] == "false" && after[2]?["due"] == after[5]?["due"]
                && after[2]?["due"] == #""2099-01-05T23:00:00Z""#,
            "\(after[2] ?? [:]) vs \(after[5] ?? [:])")
        #expect(after[2]?["recurrence"] == after[5]?["recurrence"])
        // Its subtask is open for the next occurrence.
        #expect(after[3]?["done"] == "false", "\(after[3] ?? [:])")
        #expect(try run(d, ["undo"]).status == 0)
        let undone = try rows(d)
        #expect(
            (1...4).allSatisfy { undone[Int64($0)]?["done"] == "false" }
                && undone[2]?["due"] == #""2099-01-04T23:00:00Z""#, "\(undone)")
    }
}
