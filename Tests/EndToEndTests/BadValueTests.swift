import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Every field of every method with invalid values: each gets its specific error, naming the
/// field where there is one, and changes nothing in the store.
@Suite struct BadValueTests {
    /// (method, params, expected code, expected field or nil)
    private static let cases: [(String, JSON, Int64, String?)] = {
        let long = String(repeating: "長", count: 1001)
        var c: [(String, JSON, Int64, String?)] = []
        // todo.add
        c += [
            ("todo.add", [:], -32602, "title"),
            ("todo.add", ["title": 1], -32602, "title"),
            ("todo.add", ["title": ""], -32602, "title"),
            ("todo.add", ["title": " \u{3000}\t"], -32602, "title"),
            ("todo.add", ["title": .string(long)], -32602, "title"),
            ("todo.add", ["title": "bell\u{7}"], -32602, "title"),
            ("todo.add", ["title": "ok", "notes": 5], -32602, "notes"),
            ("todo.add", ["title": "ok", "notes": .string(String(repeating: "n", count: 65537))], -32602, "notes"),
            ("todo.add", ["title": "ok", "notes": "esc\u{1B}[31m"], -32602, "notes"),
            ("todo.add", ["title": "ok", "category": ""], -32602, "category"),
            ("todo.add", ["title": "ok", "category": .string(String(repeating: "c", count: 201))], -32602, "category"),
            ("todo.add", ["title": "ok", "category": ["a"]], -32602, "category"),
            ("todo.add", ["title": "ok", "due": "tomorrow"], -32602, "due"),
            ("todo.add", ["title": "ok", "due": "2026-02-30T09:00:00Z"], -32602, "due"),
            ("todo.add", ["title": "ok", "due": "2026-12-01T25:00:00Z"], -32602, "due"),
            ("todo.add", ["title": "ok", "due": 1_796_115_600], -32602, "due"),
            ("todo.add", ["title": "ok", "remind": "2026-12-01"], -32602, "remind"),
            ("todo.add", ["title": "ok", "top": "yes"], -32602, "top"),
            ("todo.add", ["title": "ok", "colour": "red"], -32602, "colour"),
            // The v2 fields: each refusal names the field.
            ("todo.add", ["title": "ok", "priority": "urgent"], -32602, "priority"),
            ("todo.add", ["title": "ok", "tags": "a"], -32602, "tags"),
            ("todo.add", ["title": "ok", "tags": ["a", 1]], -32602, "tags[1]"),
            ("todo.add", ["title": "ok", "tags": ["two words"]], -32602, "tags[0]"),
            ("todo.add", ["title": "ok", "tags": ["a,b"]], -32602, "tags[0]"),
            ("todo.add", ["title": "ok", "tags": [.string(String(repeating: "t", count: 65))]], -32602, "tags[0]"),
            ("todo.add", ["title": "ok", "tags": .array((0...32).map { .string("t\($0)") })], -32602, "tags"),
            ("todo.add", ["title": "ok", "zone": "Mars/Olympus_Mons"], -32602, "zone"),
            ("todo.add", ["title": "ok", "zone": "../../etc/passwd"], -32602, "zone"),
            ("todo.add", ["title": "ok", "allDay": true], -32602, "allDay"),
            ("todo.add", ["title": "ok", "allDay": "yes"], -32602, "allDay"),
            ("todo.add", ["title": "ok", "recurrence": ["rule": "FREQ=DAILY"]], -32602, "recurrence"),
            (
                "todo.add", ["title": "ok", "due": "2030-01-01T00:00:00Z", "recurrence": ["rule": "FREQ=HOURLY"]],
                -32602, "recurrence.rule"
            ),
            (
                "todo.add",
                ["title": "ok", "due": "2030-01-01T00:00:00Z", "recurrence": ["rule": "FREQ=DAILY;BYDAY=XX"]], -32602,
                "recurrence.rule"
            ),
            (
                "todo.add", ["title": "ok", "due": "2030-01-01T00:00:00Z", "recurrence": ["rule": "every day"]], -32602,
                "recurrence.rule"
            ),
            (
                "todo.add",
                ["title": "ok", "due": "2030-01-01T00:00:00Z", "recurrence": ["rule": "FREQ=DAILY", "from": "later"]],
                -32602, "recurrence.from"
            ),
            (
                "todo.add", ["title": "ok", "due": "2030-01-01T00:00:00Z", "recurrence": "FREQ=DAILY"], -32602,
                "recurrence"
            ),
            ("todo.update", ["id": 1, "priority": 1], -32602, "priority"),
            ("todo.update", ["id": 1, "tags": ["ok", " "]], -32602, "tags[1]"),
            ("todo.update", ["id": 1, "addTags": ["a\tb"]], -32602, "addTags[0]"),
            ("todo.update", ["id": 1, "removeTags": [""]], -32602, "removeTags[0]"),
            ("todo.update", ["id": 1, "addTags": .array((0...32).map { .string("t\($0)") })], -32602, "addTags"),
            ("todo.update", ["id": 1, "zone": "Nowhere"], -32602, "zone"),
            ("todo.update", ["id": 2, "allDay": true], -32602, "allDay"),
            ("todo.update", ["id": 2, "recurrence": ["rule": "FREQ=WEEKLY"]], -32602, "recurrence"),
            ("todo.update", ["id": 1, "recurrence": ["rule": "FREQ=WEEKLY;COUNT=0"]], -32602, "recurrence.rule"),
            ("todo.update", ["id": 3, "due": .null], -32602, "due"),
            ("todo.complete", ["ids": [1], "stop": "yes"], -32602, "stop"),
            ("todo.list", ["tags": ["a b"]], -32602, "tags[0]"),
            ("todo.list", ["tags": "a"], -32602, "tags"),
            ("todo.list", ["priority": "none"], -32602, "priority"),
            ("todo.list", ["recurring": 1], -32602, "recurring")
        ]
        // todo.get / update / complete / reopen / delete / move / snooze
        c += [
            ("todo.get", [:], -32602, "id"),
            ("todo.get", ["id": "1"], -32602, "id"),
            ("todo.get", ["id": 0], -32602, "id"),
            ("todo.get", ["id": -5], -32602, "id"),
            ("todo.get", ["id": .double(1.5)], -32602, "id"),
            ("todo.get", ["id": 999], -32001, nil),
            ("todo.update", ["id": 1, "title": .null], -32602, "title"),
            ("todo.update", ["id": 1, "title": ""], -32602, "title"),
            ("todo.update", ["id": 1, "notes": true], -32602, "notes"),
            ("todo.update", ["id": 1, "category": "  "], -32602, "category"),
            ("todo.update", ["id": 1, "due": "soon"], -32602, "due"),
            ("todo.update", ["id": 1, "remind": "2026-13-01T00:00:00Z"], -32602, "remind"),
            ("todo.update", ["id": 999, "title": "x"], -32001, nil),
            ("todo.update", ["id": 1, "position": 3], -32602, "position"),
            ("todo.complete", [:], -32602, "ids"),
            ("todo.complete", ["ids": []], -32602, "ids"),
            ("todo.complete", ["ids": 1], -32602, "ids"),
            ("todo.complete", ["ids": ["1"]], -32602, "ids[0]"),
            ("todo.complete", ["ids": [1, 999]], -32001, nil),
            ("todo.reopen", ["ids": [1, 0]], -32602, "ids[1]"),
            ("todo.delete", ["ids": [999]], -32001, nil),
            ("todo.move", ["id": 1], -32602, "position"),
            ("todo.move", ["id": 1, "position": 1, "before": 2], -32602, "before"),
            ("todo.move", ["id": 1, "position": 0], -32602, "position"),
            ("todo.move", ["id": 1, "position": 99], -32602, "position"),
            ("todo.move", ["id": 1, "before": 999], -32001, nil),
            ("todo.move", ["id": 999, "position": 1], -32001, nil),
            ("todo.snooze", ["id": 1], -32602, "until"),
            ("todo.snooze", ["id": 1, "until": "later"], -32602, "until"),
            ("todo.snooze", ["id": 999, "until": "2030-01-01T00:00:00Z"], -32001, nil)
        ]
        // todo.list
        c += [
            ("todo.list", ["status": "pending"], -32602, "status"),
            ("todo.list", ["category": "Nowhere"], -32001, nil),
            ("todo.list", ["category": "Home", "uncategorized": true], -32602, "uncategorized"),
            ("todo.list", ["overdue": 1], -32602, "overdue"),
            ("todo.list", ["dueBefore": "yesterday"], -32602, "dueBefore"),
            ("todo.list", ["dueAfter": 5], -32602, "dueAfter"),
            ("todo.list", ["search": ""], -32602, "search"),
            ("todo.list", ["sort": "title"], -32602, "sort"),
            ("todo.list", ["sort": [["key": "colour"]]], -32602, "sort[0].key"),
            ("todo.list", ["sort": [["key": "title", "descending": "yes"]]], -32602, "sort[0].descending"),
            // Each of the 7 keys at most once: more keys, or one twice, is refused before any work
            // (2,001 keys used to cut a streamed answer mid-line; 500 repeats stalled every client).
            ("todo.list", ["sort": .array(Array(repeating: ["key": "title"], count: 2001))], -32602, "sort"),
            ("todo.list", ["sort": .array(Array(repeating: ["key": "id"], count: 500))], -32602, "sort"),
            (
                "todo.list", ["sort": [["key": "due"], ["key": "title"], ["key": "due", "descending": true]]], -32602,
                "sort"
            ),
            ("todo.list", ["limit": -1], -32602, "limit"),
            ("todo.list", ["limit": 100_001], -32602, "limit"),
            ("todo.list", ["offset": -1], -32602, "offset"),
            // Keyset windows: an anchor by id, one of after, before and fromEnd, not with offset or tree.
            ("todo.list", ["after": 0], -32602, "after"),
            ("todo.list", ["before": "1"], -32602, "before"),
            ("todo.list", ["after": 1, "before": 1], -32602, "before"),
            ("todo.list", ["after": 1, "offset": 3], -32602, "offset"),
            ("todo.list", ["before": 1, "tree": true], -32602, "tree"),
            ("todo.list", ["withOffset": true], -32602, "withOffset"),
            ("todo.list", ["fromEnd": true, "before": 1], -32602, "fromEnd"),
            ("todo.list", ["fromEnd": "yes"], -32602, "fromEnd"),
            ("todo.list", ["fromEnd": true, "offset": 2], -32602, "offset"),
            ("todo.list", ["fromEnd": true, "tree": true], -32602, "tree"),
            ("todo.list", ["after": 999_999], -32001, nil)
        ]
        // categories, import, reminders, watch
        c += [
            ("category.add", [:], -32602, "name"),
            ("category.add", ["name": ""], -32602, "name"),
            ("category.add", ["name": "home"], -32002, nil),
            ("category.rename", ["name": "Home"], -32602, "newName"),
            ("category.rename", ["name": "Home", "newName": ""], -32602, "newName"),
            ("category.rename", ["name": "Nowhere", "newName": "x"], -32001, nil),
            ("category.rename", ["name": "Home", "newName": "WORK"], -32002, nil),
            ("category.delete", ["name": "Home"], -32002, nil),
            ("category.delete", ["name": "Home", "force": "yes"], -32602, "force"),
            ("category.move", ["name": "Home", "position": 9], -32602, "position"),
            ("category.move", ["name": "Home"], -32602, "position"),
            ("store.import", [:], -32602, "format"),
            ("store.import", ["format": "other", "version": 1, "categories": [], "todos": []], -32602, "format"),
            (
                "store.import", ["format": "todod-export", "version": 2, "categories": [], "todos": []], -32602,
                "version"
            ),
            (
                "store.import", ["format": "todod-export", "version": 1, "categories": [""], "todos": []], -32602,
                "categories[0]"
            ),
            (
                "store.import",
                [
                    "format": "todod-export", "version": 1, "categories": [],
                    "todos": [["title": "ok", "created": "soon"]]
                ], -32602, "todos[0].created"
            ),
            (
                "store.import",
                [
                    "format": "todod-export", "version": 1, "categories": [],
                    "todos": [
                        ["title": "ok", "created": "2026-01-01T00:00:00Z"],
                        ["title": "", "created": "2026-01-01T00:00:00Z"]
                    ]
                ],
                -32602, "todos[1].title"
            ),
            ("reminder.list", ["limit": 0], -32602, "limit"),
            ("reminder.list", ["since": "recently"], -32602, "since"),
            ("watch", ["events": ["todo.exploded"]], -32602, "events[0]"),
            ("daemon.status", ["verbose": true], -32602, "verbose"),
            ("todo.teleport", [:], -32601, nil)
        ]
        return c
    }()

    @Test func everyBadValueGetsItsErrorAndChangesNothing() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        _ = try c.result("todo.add", ["title": "one", "category": "Home", "due": "2030-01-01T00:00:00Z"])
        _ = try c.result("todo.add", ["title": "two", "category": "Work"])
        _ = try c.result(
            "todo.add", ["title": "three", "due": "2030-01-01T00:00:00Z", "recurrence": ["rule": "FREQ=DAILY"]])
        let snapshot = { () throws -> JSON in
            var document = try c.result("store.export")
            if case .object(var o) = document {
                o["exported"] = nil
                document = .object(o)
            }
            return document
        }
        let before = try snapshot()
        for (method, params, code, field) in Self.cases {
            let answer = try c.call(method, params.objectValue ?? [:])
            let error = answer["error"]
            #expect(error?["code"]?.intValue == code, "\(method) \(params.serialized()): \(answer.serialized())")
            if let field {
                #expect(
                    error?["data"]?["field"]?.stringValue == field,
                    "\(method) \(params.serialized()): \(answer.serialized())")
                #expect(error?["message"]?.stringValue?.contains(field) == true)
            }
            #expect(error?["message"]?.stringValue?.contains("\n") == false)
        }
        #expect(try snapshot() == before)
    }
}
