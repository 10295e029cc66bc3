import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// The v2 todo fields through the real daemon: priority, tags, zone, allDay and recurrence round
/// trip through add, get, update, list, export and import; list filters and sorts by them; and
/// completing a recurring todo advances it and re-arms its reminder.
@Suite struct TodoFieldTests {
    @Test func everyFieldRoundTripsAndIsKeptByExportAndImport() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let added = try c.result(
            "todo.add",
            [
                "title": "年末の大掃除", "due": "2026-12-27T15:00:00Z", "priority": "high",
                "tags": ["家", "Cleaning", "cleaning"],
                "zone": "Asia/Tokyo", "allDay": true, "recurrence": ["rule": "RRULE:freq=yearly", "from": "due"]
            ])
        #expect(added["priority"] == "high" && added["tags"] == ["Cleaning", "家"] && added["zone"] == "Asia/Tokyo")
        #expect(added["allDay"] == true && added["recurrence"] == ["rule": "FREQ=YEARLY", "from": "due"])
        let id = added["id"] ?? .null
        #expect(try c.result("todo.get", ["id": id]) == added)
        let plain = try c.result("todo.add", ["title": "plain"])
        #expect(
            plain["priority"] == .null && plain["tags"] == [] && plain["zone"] == .null && plain["allDay"] == false
                && plain["recurrence"] == .null)

        // Update: `tags` replaces, then `addTags` and `removeTags` apply; null clears.
        let updated = try c.result(
            "todo.update", ["id": id, "tags": ["a", "b"], "addTags": ["C"], "removeTags": ["A"], "priority": "low"])
        #expect(updated["tags"] == ["b", "C"] && updated["priority"] == "low")
        let same = try c.result("todo.update", ["id": id, "addTags": ["c"]]) // already there: no change
        #expect(same["updated"] == updated["updated"])
        let cleared = try c.result("todo.update", ["id": id, "priority": .null, "zone": .null, "recurrence": .null])
        #expect(
            cleared["priority"] == .null && cleared["zone"] == .null && cleared["recurrence"] == .null
                && cleared["tags"] == ["b", "C"])
        // Setting due without allDay makes it a time of day.
        #expect(try c.result("todo.update", ["id": id, "due": "2026-12-28T09:00:00Z"])["allDay"] == false)
        _ = try c.result(
            "todo.update",
            [
                "id": id, "zone": "America/Argentina/Buenos_Aires", "allDay": true,
                "recurrence": ["rule": "FREQ=MONTHLY;BYDAY=-1FR", "from": "completion"]
            ])

        // Export, import into another store: the same fields.
        let document = try c.result("store.export")
        let other = try DaemonProcess()
        let o = try other.client()
        _ = try o.result("store.import", document.objectValue ?? [:])
        let strip = { (d: JSON) -> JSON in
            guard case .object(var x) = d else { return d }
            x["exported"] = nil
            return .object(x)
        }
        #expect(strip(try o.result("store.export")) == strip(document))
        let moved = try o.result("todo.get", ["id": 1])
        #expect(
            moved["zone"] == "America/Argentina/Buenos_Aires" && moved["allDay"] == true && moved["tags"] == ["b", "C"]
                && moved["recurrence"] == ["rule": "FREQ=MONTHLY;BYDAY=-1FR", "from": "completion"])
    }

    @Test func listFiltersAndSortsByTheNewFields() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let due = "2099-01-01T09:00:00Z"
        _ = try c.result("todo.add", ["title": "one", "priority": "low", "tags": ["仕事", "x"]])
        _ = try c.result("todo.add", ["title": "two", "tags": ["仕事"]])
        _ = try c.result(
            "todo.add",
            ["title": "three", "priority": "high", "due": .string(due), "recurrence": ["rule": "FREQ=WEEKLY"]])
        _ = try c.result("todo.add", ["title": "four", "priority": "medium", "tags": ["X"]])
        let titles = { (params: JSONObject) throws -> [String] in
            let page = try c.result("todo.list", params)
            guard case .array(let todos)? = page["todos"] else { return [] }
            #expect(page["total"]?.intValue == Int64(todos.count))
            return todos.compactMap { $0["title"]?.stringValue }
        }
        #expect(try titles(["tags": ["x"]]) == ["one", "four"])
        #expect(try titles(["tags": ["X", "仕事"]]) == ["one"])
        #expect(try titles(["tags": ["none"]]) == [])
        #expect(try titles(["priority": "high"]) == ["three"])
        #expect(try titles(["recurring": true]) == ["three"])
        #expect(try titles(["recurring": false]) == ["one", "two", "four"])
        #expect(try titles(["sort": [["key": "priority"]]]) == ["three", "four", "one", "two"])
        #expect(try titles(["sort": [["key": "priority", "descending": true]]]) == ["one", "four", "three", "two"])
    }

    /// An all-day todo is overdue only once its day has ended in its zone: today in Pago Pago
    /// (UTC-11) has begun but not ended, yesterday there has; `dueBefore` still goes by `due`.
    @Test func anAllDayTodoIsOverdueOnlyAfterItsDay() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Pacific/Pago_Pago"))
        let today = calendar.startOfDay(for: Date())
        let yesterday = try #require(calendar.date(byAdding: .day, value: -1, to: today))
        let text = { (d: Date) in ISO8601DateFormatter().string(from: d) }
        for (title, day) in [("today", today), ("yesterday", yesterday)] {
            _ = try c.result(
                "todo.add",
                ["title": .string(title), "due": .string(text(day)), "zone": "Pacific/Pago_Pago", "allDay": true])
        }
        _ = try c.result(
            "todo.add", ["title": "at the start of today", "due": .string(text(today)), "zone": "Pacific/Pago_Pago"])
        let titles = { (params: JSONObject) throws -> [String] in
            guard case .array(let todos)? = try c.result("todo.list", params)["todos"] else { return [] }
            return todos.compactMap { $0["title"]?.stringValue }
        }
        #expect(try titles(["overdue": true]) == ["yesterday", "at the start of today"])
        #expect(try titles(["dueBefore": .string(text(Date()))]) == ["today", "yesterday", "at the start of today"])
    }

    /// Completing a recurring todo answers with it at its next occurrence, still open; its
    /// reminder, at the same lead time, is armed again and fires (a reminder that fired a day
    /// before is due again in a few seconds); `stop` ends it.
    @Test func completingARecurringTodoAdvancesItAndReArmsItsReminder() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let title = unique("recurring")
        let day: Double = 86_400
        // Due in an hour, reminded a day earlier less 4 seconds: that reminder fires at once.
        let due = rfc3339(in: 3600)
        let dueDate = try #require(ISO8601DateFormatter().date(from: due))
        let remind = ISO8601DateFormatter().string(from: dueDate.addingTimeInterval(-day + 4 - 3600))
        let todo = try c.result(
            "todo.add",
            [
                "title": .string(title), "due": .string(due), "remind": .string(remind),
                "recurrence": ["rule": "FREQ=DAILY;COUNT=5"]
            ])
        let id = todo["id"] ?? .null
        #expect(try Journalctl.reminders(title: title, atLeast: 1).count == 1)
        #expect(try eventually(timeout: 5) { try c.result("todo.get", ["id": id])["reminded"] != .null })

        let completed = try c.result("todo.complete", ["ids": [id]])
        let next = try #require(completed[0])
        let nextDue = ISO8601DateFormatter().string(from: dueDate.addingTimeInterval(day))
        let nextRemind = ISO8601DateFormatter().string(from: dueDate.addingTimeInterval(4 - 3600))
        #expect(next["done"] == false && next["due"] == .string(nextDue) && next["remind"] == .string(nextRemind))
        #expect(
            next["reminded"] == .null && next["completed"] != .null
                && next["recurrence"]?["rule"] == "FREQ=DAILY;COUNT=4")
        #expect(next["id"] == id && next["uid"] == todo["uid"])
        let status = try c.result("daemon.status")
        #expect(status["nextReminder"] == .string(nextRemind) || status["nextReminder"] == .null, "\(status)")
        // The re-armed reminder fires, for the next occurrence.
        let entries = try Journalctl.reminders(title: title, atLeast: 2)
        #expect(entries.count == 2)
        #expect(entries.last?["TODO_DUE"] == .string(nextDue))

        // `stop` ends it for good, a plain todo beside it completes as ever.
        let plain = try c.result("todo.add", ["title": "plain"])
        let stopped = try c.result("todo.complete", ["ids": [id, plain["id"] ?? .null], "stop": true])
        #expect(stopped[0]?["done"] == true && stopped[0]?["due"] == .string(nextDue) && stopped[1]?["done"] == true)
    }
}
