import Foundation
import Testing
import TodoCore
import TodoProtocol

/// The writers that skip the JSON tree produce exactly the bytes the tree would; a todo's tree
/// is its one encoder's text read back.
private func tree(_ page: TodoPage) -> JSON {
    .object(["total": .int(Int64(page.total)), "todos": .array(page.todos.map(tree))])
}

private func tree(_ todo: Todo) -> JSON { (try? JSON.parse(todo.encodedJSON)) ?? .null }

struct EncodingTests {
    static func page(_ count: Int) -> TodoPage {
        let now = Instant(rfc3339: "2026-11-30T06:00:00.25Z") ?? Instant(usec: 0)
        let todos = (0..<count).map { i in
            Todo(
                id: Int64(i + 1), title: i % 2 == 0 ? "牛乳を買う \"\(i)\"\n" : "task \(i)",
                notes: i % 3 == 0 ? "メモ\t\\" : nil,
                category: i % 4 == 0 ? nil : "仕事", due: i % 5 == 0 ? nil : now, remind: nil, done: i % 6 == 0,
                completed: i % 6 == 0 ? now : nil, position: i + 1, created: now, updated: now)
        }
        return TodoPage(todos: todos, total: count * 3)
    }

    @Test(arguments: [0, 1, 7, 1000])
    func aPageEncodesLikeItsTree(count: Int) {
        let page = Self.page(count)
        var bytes: [UInt8] = []
        tree(page).write(to: &bytes)
        #expect(page.encoded == bytes)
    }

    @Test func aResultLineIsTheResponseLine() {
        let page = Self.page(3)
        for id: JSON in [7, "abc", .null] {
            #expect(
                RPCMessage.resultLine(id: id, encodedResult: page.encoded)
                    == RPCMessage.line(RPCMessage.result(id: id, tree(page))))
        }
    }

    @Test func aTodoEncodesEveryFieldInOrderAndReadsBack() throws {
        let instants: [Instant?] = [
            nil, Instant(usec: 0), Instant(usec: -1), Instant(usec: 1_796_115_600_000_000),
            Instant(usec: 253_402_300_799_999_999), Instant(usec: 1_796_115_600_000_001)
        ]
        var todos: [Todo] = []
        for (i, instant) in instants.enumerated() {
            todos.append(
                Todo(
                    id: Int64(i + 1) * 1_000_003, uid: "uid-\(i)", title: ["a", "😀 \u{1}", "x\"y"][i % 3],
                    notes: i % 2 == 0 ? nil : "",
                    category: i % 2 == 0 ? "Home" : nil, due: instant, remind: instants[(i + 1) % instants.count],
                    reminded: instants[(i + 2) % instants.count], done: i % 2 == 1, completed: instant,
                    position: i * 97,
                    created: instant ?? Instant(usec: 5), updated: Instant(usec: 1_796_115_600_123_456),
                    priority: [nil, .high, .medium, .low][i % 4], tags: i % 2 == 0 ? [] : ["a\"b", "家"],
                    zone: i % 3 == 0 ? nil : "Asia/Tokyo", allDay: i % 2 == 0,
                    recurrence: i % 3 == 1 ? TodoRecurrence(rule: "FREQ=MONTHLY;BYDAY=-1FR", from: .completion) : nil))
        }
        // Alarms of every kind (issue 35): relative, nagging, absolute and acknowledged, kept from iCalendar.
        todos[1].alarms = [
            Alarm(uid: "a1", trigger: .due(-900_000_000), repeatCount: 2, intervalUsec: 600_000_000),
            Alarm(
                uid: "a2", trigger: .at(Instant(usec: 1_796_115_600_000_000)),
                acknowledged: Instant(usec: 1_796_115_600_000_001),
                snoozedUntil: Instant(usec: 1_796_115_700_000_000)),
            Alarm(
                uid: "メール", trigger: .start(0), ical: "BEGIN:VALARM\r\nACTION:EMAIL\r\nDESCRIPTION:\"牛乳\"\r\nEND:VALARM"
            )
        ]
        for todo in todos {
            let json = try JSON.parse(todo.encodedJSON)
            #expect(
                json.objectValue?.keys == [
                    "id", "uid", "title", "notes", "category", "due", "remind", "reminded", "done",
                    "completed", "position", "created", "updated", "priority", "tags", "zone", "allDay", "recurrence",
                    "revision", "parent", "subtasks", "parentUid", "start", "alarms"
                ])
            #expect(try Todo(json: json) == todo)
            #expect(json["notes"] == (todo.notes.map(JSON.string) ?? .null))
            #expect(json["due"] == JSON(todo.due))
        }
        #expect(
            Todo.encodedJSON(todos)
                == Array(
                    ("[" + todos.map { String(decoding: $0.encodedJSON, as: UTF8.self) }.joined(separator: ",") + "]")
                        .utf8))
        #expect(Todo.encodedJSON([]) == Array("[]".utf8))
        let one = Todo(
            id: 7, uid: "u", title: "牛乳を買う \"1\"\n", notes: nil, category: "仕事",
            due: Instant(usec: 1_796_115_600_250_000),
            remind: nil, done: true, completed: Instant(usec: 0), position: 3, created: Instant(usec: -1),
            updated: Instant(usec: 0),
            priority: .high, tags: ["家"], zone: "Asia/Tokyo", allDay: true,
            recurrence: TodoRecurrence(rule: "FREQ=DAILY"))
        #expect(
            String(decoding: one.encodedJSON, as: UTF8.self)
                == #"{"id":7,"uid":"u","title":"牛乳を買う \"1\"\n","notes":null,"category":"仕事","due":"2026-12-01T09:00:00.250000Z","remind":null,"reminded":null,"done":true,"completed":"1970-01-01T00:00:00Z","position":3,"created":"1969-12-31T23:59:59.999999Z","updated":"1970-01-01T00:00:00Z","priority":"high","tags":["家"],"zone":"Asia/Tokyo","allDay":true,"recurrence":{"rule":"FREQ=DAILY","from":"due"},"revision":1,"parent":null,"subtasks":[],"parentUid":null,"start":null,"alarms":[]}"#
        )
    }

    /// A todo written through `ByteWriter` fits the room its bound gives even when every value
    /// takes the most it can: strings of bytes that each need a six-byte escape, the widest
    /// integers, instants with microseconds at the ends of the years accepted, many tags,
    /// subtasks and recurrence dates. Foundation's parser (not ours) reads the text back.
    @Test func aTodoWhoseEveryValueTakesTheMostRoomEncodesWhole() throws {
        let escapes = String(repeating: "\u{1}\u{1F}\u{7F}", count: 300)
        let first = Instant(usec: -62_135_596_800_000_000 + 1)
        let last = Instant(usec: 253_402_300_799_999_999)
        let exdates: [RecurrenceDate] = Array(repeating: .instant(last), count: 50)
        let rdates: [RecurrenceDate] = (0..<50).map { RecurrenceDate.date(Int64($0) - 719_162) }
        let recurrence = TodoRecurrence(
            rule: escapes, from: .completion, exdates: exdates, rdates: rdates,
            ruleStart: first)
        let tags: [String] = Array(repeating: escapes, count: 20)
        var todo = Todo(
            id: Int64.max, uid: escapes, title: escapes + "牛乳", notes: escapes, category: escapes,
            due: last, remind: first, reminded: last, done: true, completed: first, position: Int.max,
            created: first, updated: last, priority: .medium, tags: tags, zone: escapes, allDay: true,
            recurrence: recurrence, revision: Int64.min)
        todo.parent = Int64.min
        todo.subtasks = Array(repeating: Int64.min, count: 100)
        todo.parentUid = escapes
        todo.start = last
        var appended: [UInt8] = Array("[".utf8)
        todo.writeJSON(to: &appended)
        for encoded in [todo.encodedJSON, Array(appended.dropFirst())] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(encoded)) as? [String: Any])
            #expect(object["title"] as? String == todo.title)
            #expect((object["tags"] as? [String])?.count == 20)
            #expect(try Todo(json: JSON.parse(encoded)) == todo)
        }
        #expect(!todo.encodedJSON.contains { $0 < 0x20 || $0 == 0x7F })
    }

    /// A todo whose text outgrows its size hint (each byte escaped to six) is written again into
    /// more room, both as an answer (`encodedJSON`) and appended to a listing (`writeJSON`).
    @Test func aTodoLargerThanItsHintIsWrittenWhole() throws {
        for count in [100, 600, 3000] {
            let title = String(repeating: "\u{1}", count: count) + "牛乳"
            let todo = Todo(
                id: 1, uid: "u", title: title, notes: nil, category: nil, due: nil, remind: nil, done: false,
                completed: nil, position: 1, created: Instant(usec: 0), updated: Instant(usec: 0))
            var listing: [UInt8] = Array("[".utf8)
            todo.writeJSON(to: &listing)
            for encoded in [todo.encodedJSON, Array(listing.dropFirst())] {
                #expect(encoded.count > count * 6)
                #expect(try Todo(json: JSON.parse(encoded)) == todo)
            }
        }
    }

    @Test func anEventLineIsTheNotificationLine() {
        let params: JSON = ["type": "todo.added", "todos": .array(Self.page(2).todos.map(tree))]
        var encoded: [UInt8] = []
        params.write(to: &encoded)
        #expect(
            RPCMessage.eventLine(encodedParams: encoded)
                == RPCMessage.line(["jsonrpc": "2.0", "method": "event", "params": params]))
    }

    /// Strings are escaped exactly where they must be, whatever the position of the byte in the
    /// eight-byte words the writer scans: every string of up to 40 pieces, in many random mixes.
    @Test func stringsAreEscapedWhereverTheByteFalls() throws {
        let pieces = ["a", "é", "漢", "😀", "\"", "\\", "\n", "\u{1F}", "\u{7F}", "\u{0}", " ", "~", "\u{80}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            var out: [UInt8] = []
            JSON.string(text).write(to: &out)
            #expect(try JSON.parse(out) == .string(text))
            #expect(!out.contains { $0 < 0x20 || $0 == 0x7F }, "\(Array(text.utf8))")
            let plain = !text.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }
            if plain { #expect(out == [0x22] + Array(text.utf8) + [0x22]) }
        }
    }
}
