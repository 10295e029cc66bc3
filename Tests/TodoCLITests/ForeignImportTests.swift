import Testing
import TodoCore
import TodoProtocol
import TodoTime

@testable import TodoCLI

/// The mapping of `import --from taskwarrior|todotxt` and `export --format todotxt`, on fixtures
/// written after Taskwarrior's documented export format (2.6: an array, `id` 0 on completed and
/// deleted tasks, `depends` an array; `rc.json.array=off`, in 2.6 as in 3.x: one object per line;
/// 2.5's `depends` as a comma-separated string; 3.x's own export in Taskwarrior3ImportTests) and
/// the todo.txt format.
@Suite struct ForeignImportTests {
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo") ?? .utc
    static let now = Instant(rfc3339: "2026-12-01T00:00:00Z")!
    static let context = ForeignImport.Context(zone: tokyo, zoneName: "Asia/Tokyo", now: now)
    static func at(_ text: String) -> Instant { Instant(rfc3339: text)! }

    static let taskwarrior26 = #"""
        [
        {"id":1,"description":"牛乳を買う","due":"20261223T150000Z","entry":"20261201T225107Z","modified":"20261202T080000Z","priority":"H","project":"Home.Kitchen","status":"pending","uuid":"ddac364d-4e31-4373-ac54-d18874f9d186","wait":"20261219T150000Z","annotations":[{"entry":"20261201T225107Z","description":"call ahead"}],"tags":["shop","今日"],"urgency":16.1},
        {"id":2,"description":"Weekly review","due":"20261207T000000Z","entry":"20261201T225107Z","mask":"-+","modified":"20261201T225107Z","recur":"weekly","rtype":"periodic","status":"recurring","until":"20270201T000000Z","uuid":"9eaf35af-c1bc-4ad2-a540-25b494617a1e","urgency":6.3},
        {"id":3,"description":"dep","entry":"20261201T225107Z","modified":"20261201T225107Z","priority":"L","scheduled":"20261210T000000Z","status":"pending","uuid":"f91968a2-158e-4d37-a6e4-13cb5801788a","depends":["ddac364d-4e31-4373-ac54-d18874f9d186"],"estimate":"3h","urgency":-3.2},
        {"id":4,"description":"Weekly review","due":"20261214T000000Z","entry":"20261201T225107Z","imask":1,"modified":"20261201T225107Z","parent":"9eaf35af-c1bc-4ad2-a540-25b494617a1e","recur":"weekly","rtype":"periodic","status":"pending","until":"20270201T000000Z","uuid":"5a2f0395-aa97-4c2c-9242-84c285a3b199","urgency":6.3},
        {"id":0,"description":"Weekly review","due":"20261207T000000Z","end":"20261207T010000Z","entry":"20261201T225107Z","imask":0,"modified":"20261207T010000Z","parent":"9eaf35af-c1bc-4ad2-a540-25b494617a1e","recur":"weekly","status":"completed","uuid":"6a2f0395-aa97-4c2c-9242-84c285a3b199","urgency":0},
        {"id":0,"description":"done one","end":"20261201T230000Z","entry":"20261201T225107Z","modified":"20261201T230000Z","status":"completed","uuid":"85dccacc-3353-44f0-9179-b7a95b468064","urgency":0},
        {"id":0,"description":"gone","end":"20261201T225107Z","entry":"20261201T225107Z","modified":"20261201T225107Z","status":"deleted","uuid":"ec2b26c3-9da7-4e83-906d-c632f04cfd33","urgency":0}
        ]
        """#

    static func convert(_ text: String) throws -> ForeignImport {
        try TaskwarriorImport(context: context).convert(Array(text.utf8))
    }

    @Test func taskwarrior26ExportMapsFieldByField() throws {
        let result = try Self.convert(Self.taskwarrior26)
        let todos = result.document.todos
        #expect(todos.map(\.title) == ["牛乳を買う", "Weekly review", "dep", "done one"])
        #expect(result.document.categories == ["Home.Kitchen"])
        let milk = todos[0]
        #expect(milk.uid == "ddac364d-4e31-4373-ac54-d18874f9d186")
        #expect(milk.category == "Home.Kitchen" && milk.priority == .high && milk.tags == ["shop", "今日"])
        // Midnight in Tokyo: an all-day due.
        #expect(milk.due == Self.at("2026-12-23T15:00:00Z") && milk.allDay && milk.zone == "Asia/Tokyo")
        #expect(milk.created == Self.at("2026-12-01T22:51:07Z") && milk.updated == Self.at("2026-12-02T08:00:00Z"))
        #expect(milk.notes == "2026-12-02 07:51 call ahead")
        #expect(milk.start == Self.at("2026-12-19T15:00:00Z") && milk.ical == nil)
        #expect(!milk.done && milk.remind == nil)
        // The template with its instances: one recurring todo at the next pending instance.
        let review = todos[1]
        #expect(review.uid == "9eaf35af-c1bc-4ad2-a540-25b494617a1e")
        #expect(review.recurrence == TodoRecurrence(rule: "FREQ=WEEKLY;UNTIL=20270201T000000Z", from: .due))
        #expect(review.due == Self.at("2026-12-14T00:00:00Z") && !review.allDay)
        #expect(todos[2].priority == .low && todos[2].start == Self.at("2026-12-10T00:00:00Z"))
        #expect(todos[2].notes == "Depends on: 牛乳を買う (ddac364d-4e31-4373-ac54-d18874f9d186)")
        #expect(todos[3].done && todos[3].completed == Self.at("2026-12-01T23:00:00Z"))
        #expect(result.unmapped.contains("not imported: 1 deleted task (gone)"))
        #expect(
            result.unmapped.contains(
                "2 instances of recurring tasks folded into their recurring todo (due at the next pending one)"))
        #expect(result.unmapped.contains("attribute estimate (1 task) has no counterpart and was not imported"))
        #expect(!result.unmapped.contains { $0.contains("start date") })
    }

    /// `rc.json.array=off` (2.6 and 3.x): one object per line; a file without `id`s (made by hand
    /// or by a script: Taskwarrior writes `"id":0` on closed tasks); 2.5's `depends`.
    @Test func oneObjectPerLineAndOldDepends() throws {
        let text = #"""
            {"description":"closed","end":"20261201T230000Z","entry":"20261201T225107Z","status":"completed","uuid":"a1"}
            {"id":1,"description":"open","entry":"20261201T225107Z","status":"pending","uuid":"a2","depends":"a1,zz"}
            """#
        let todos = try Self.convert(text).document.todos
        #expect(todos.map(\.title) == ["closed", "open"] && todos[0].done)
        #expect(todos[1].notes == "Depends on: closed (a1), zz")
    }

    /// A bad entry is refused with its line (and its place in an array); the others are read.
    @Test func aMalformedEntryIsRefusedByItsPlaceAndTheRestRead() throws {
        func refused(_ text: String) throws -> [String] { try Self.convert(text).refused }
        #expect(
            try refused(#"[{"uuid":"a","description":"x","status":"pending"},{"uuid":"b","status":"pending"}]"#) == [
                "line 1 (entry 2): has no description"
            ])
        #expect(
            try refused(
                "{\"uuid\":\"a\",\"description\":\"x\"}\n{\"uuid\":\"b\",\"description\":\"y\",\"due\":\"tomorrow\"}")
                == ["line 2: due \"tomorrow\" is not a Taskwarrior date (20261224T090000Z)"])
        #expect(
            try refused("{\"uuid\":\"a\",\"description\":\"x\"}\n{oops").first?.hasPrefix("line 2: not valid JSON")
                == true)
        #expect(
            try refused(#"[{"uuid":"a","description":"x","status":"lost"}]"#) == [
                "line 1 (entry 1): unknown status \"lost\""
            ])
        #expect(
            try refused(
                #"[{"uuid":"a","description":"x"},{"uuid":"b","description":"y"},{"uuid":"a","description":"z"}]"#)
                == ["line 1 (entry 3): uuid a is also the uuid of line 1 (entry 1)"])
        #expect(
            try refused(#"[{"uuid":"a","description":"x","tags":["two words"]}]"#).first?.hasPrefix(
                "line 1 (entry 1): ") == true)
        // An array over lines: a number past Double, an annotation past 64 KiB; the rest imports.
        let long = String(repeating: "長", count: 22_000)
        let r = try Self.convert(
            "[\n{\"uuid\":\"a\",\"description\":\"ok, [fine] \\\" }\",\"urgency\":1},\n{\"uuid\":\"b\",\"description\":\"big\",\"urgency\":1e400},\n"
                + "{\"uuid\":\"c\",\"description\":\"long\",\"annotations\":[{\"description\":\"\(long)\"}]},\n{\"uuid\":\"d\",\"description\":\"last\"}\n]\n"
        )
        #expect(r.document.todos.map(\.title) == ["ok, [fine] \" }", "last"])
        #expect(
            r.refused.count == 2 && r.refused[0].hasPrefix("line 3 (entry 2): not valid JSON")
                && r.refused[1] == "line 4 (entry 3): invalid notes: longer than 65536 bytes", "\(r.refused)")
        // CR-only line ends, one object per line.
        let mac = try Self.convert("{\"uuid\":\"a\",\"description\":\"x\"}\r{\"uuid\":\"b\",\"description\":\"y\"}\r")
        #expect(mac.document.todos.map(\.title) == ["x", "y"] && mac.refused.isEmpty)
        // A file cut short: its last entry is refused.
        let cut = try Self.convert(#"[{"uuid":"a","description":"x"}, {"uuid":"b","desc"#)
        #expect(
            cut.document.todos.map(\.title) == ["x"]
                && cut.refused.first?.hasPrefix("line 1 (entry 2): not valid JSON") == true)
    }

    /// `until` on a task that does not repeat: kept as a notes line, and said.
    @Test func untilOnAOneOffTaskIsKeptAndSaid() throws {
        let r = try Self.convert(#"[{"uuid":"a","description":"期限つき","until":"20261231T000000Z"}]"#)
        #expect(r.document.todos.first?.notes == "Until (Taskwarrior deletes it then): 2026-12-31 09:00")
        #expect(
            r.unmapped.contains(
                "until (the date Taskwarrior deletes a task) has no counterpart: kept as a notes line on 1 task (期限つき)"),
            "\(r.unmapped)")
    }

    @Test func recurValues() {
        #expect(TaskwarriorImport.rule("weekly") == "FREQ=WEEKLY")
        #expect(TaskwarriorImport.rule("3d") == "FREQ=DAILY;INTERVAL=3")
        #expect(TaskwarriorImport.rule("2wks") == "FREQ=WEEKLY;INTERVAL=2")
        #expect(TaskwarriorImport.rule("quarterly") == "FREQ=MONTHLY;INTERVAL=3")
        #expect(TaskwarriorImport.rule("P1Y") == "FREQ=YEARLY")
        #expect(TaskwarriorImport.rule("weekdays") == "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
        #expect(TaskwarriorImport.rule("4h") == nil)
    }

    static func todotxt(_ text: String, stored: [ExportDocument.Entry] = []) -> ForeignImport {
        TodotxtImport.convert(Array(text.utf8), context: context, stored: stored)
    }

    @Test func todotxtLinesMap() throws {
        let result = Self.todotxt(
            """
            (A) 2026-11-30 電話する +仕事 @電話 due:2026-12-24 t:2026-12-20
            x 2026-12-01 2026-11-29 Pay rent +home pri:B
            (D) someday maybe http://example.com/x

            """)
        let t = result.document.todos
        #expect(t.count == 3)
        #expect(t[0].title == "電話する" && t[0].priority == .high && t[0].tags == ["@電話", "仕事"])
        #expect(
            t[0].created == Self.at("2026-11-29T15:00:00Z") && t[0].due == Self.at("2026-12-23T15:00:00Z")
                && t[0].allDay)
        #expect(t[0].notes == "t:2026-12-20")
        #expect(
            t[1].done && t[1].completed == Self.at("2026-11-30T15:00:00Z")
                && t[1].created == Self.at("2026-11-28T15:00:00Z"))
        #expect(t[1].priority == .medium && t[1].title == "Pay rent")
        #expect(t[2].priority == .low && t[2].title == "someday maybe http://example.com/x")
        #expect(
            result.unmapped == [
                "priorities D imported as low (todod has high, medium and low)",
                "t: (1 line) has no counterpart: kept in the notes"
            ])
        // The same file gives the same uids (importing again changes nothing); twin lines differ.
        let first = Self.todotxt("a\na\n").document.todos.map(\.uid)
        let again = Self.todotxt("a\na\n").document.todos.map(\.uid)
        #expect(first[0] != first[1] && first == again)
    }

    /// A bad line is refused with its number and the others are read: a bad date, a line that is
    /// only `x`, invalid UTF-8, a line past 128 KiB; CR-only line ends (old Mac files) end lines.
    @Test func aMalformedTodotxtLineIsRefusedWithItsNumberAndTheRestRead() {
        let r = Self.todotxt(
            "fine\nx 2026-13-45 bad month\nx\n\na\n\nb due:soon\n" + String(repeating: "z", count: 200_000) + "\r\nlast"
        )
        #expect(r.document.todos.map(\.title) == ["fine", "a", "last"])
        #expect(
            r.refused == [
                "line 2: invalid completion date \"2026-13-45\"", "line 3: a completion mark with no task",
                "line 7: invalid due date \"soon\" (expected YYYY-MM-DD)", "line 8: longer than 128 KiB"
            ])
        let mac = Self.todotxt("(A) one\r(B) two\rx 2026-11-30 three\r")
        #expect(mac.document.todos.map(\.title) == ["one", "two", "three"] && mac.refused.isEmpty)
        let crlf = Self.todotxt("\u{FEFF}one\r\n\r\ntwo\r\n")
        #expect(crlf.document.todos.map(\.title) == ["one", "two"])
        var bytes = Array("one\r\nbad ".utf8)
        bytes.append(0xFF)
        #expect(TodotxtImport.convert(bytes, context: Self.context).refused == ["line 2: not valid UTF-8"])
    }

    /// `--from` names a source todoctl knows; a bad file is refused before the daemon is asked.
    @Test func importFromOnTheCommandLine() {
        let unknown = Fixtures.run(["import", "--from", "csv", "x.csv"])
        #expect(
            unknown.status == 2
                && unknown.stderr.contains(
                    "unsupported source \"csv\" for --from; the sources are taskwarrior and todotxt"),
            "\(unknown.stderr)")
        let transport = FakeTransport()
        let bad = Fixtures.run(
            ["import", "--from", "todotxt", "-"], transport: transport, stdin: Array("ok\nx 2026-02-30 nope\n".utf8))
        #expect(
            bad.status == 0
                && bad.stdout.hasSuffix("Not imported (1 line):\n  - line 2: invalid completion date \"2026-02-30\"\n"),
            "\(bad.stdout)")
        #expect(transport.methods == ["todo.list", "store.import"])
        #expect(transport.calls.last?.params["todos"]?.arrayValue?.map { $0["title"] } == ["ok"])
        let good = Fixtures.run(
            ["--json", "import", "--from", "todotxt", "-"], transport: transport, stdin: Array("(B) 電話する +仕事\n".utf8))
        #expect(good.status == 0, "\(good.stderr)")
        let sent = transport.calls.last
        #expect(
            sent?.method == "store.import" && sent?.params["todos"]?.arrayValue?.first?["title"] == "電話する",
            "\(String(describing: sent))")
    }

    @Test func todotxtExportLines() {
        let open = ExportDocument.Entry(
            title: "電話する", category: "Work stuff", due: Self.at("2026-12-23T15:00:00Z"),
            created: Self.at("2026-11-29T15:00:00Z"), updated: Self.now, priority: .high,
            tags: ["@電話", "urgent"], allDay: true)
        #expect(
            TodotxtExport.line(open, zone: Self.tokyo) == "(A) 2026-11-30 電話する +Work_stuff @電話 +urgent due:2026-12-24")
        let done = ExportDocument.Entry(
            title: "Pay rent", done: true, completed: Self.at("2026-11-30T15:00:00Z"),
            created: Self.at("2026-11-28T15:00:00Z"), updated: Self.now, priority: .low)
        #expect(TodotxtExport.line(done, zone: Self.tokyo) == "x 2026-12-01 2026-11-29 Pay rent")
        // What todod writes, todoctl reads back the same.
        let back = Optional(Self.todotxt(TodotxtExport.text([open, done], zone: Self.tokyo)).document.todos)
        #expect(
            back?.map(\.title) == ["電話する", "Pay rent"] && back?[0].tags == ["@電話", "urgent", "Work_stuff"]
                && back?[1].done == true)
    }

    /// Our own export read back against the store it came from is the store's todos as they are;
    /// an edited line changes what it says and keeps what todo.txt cannot say.
    @Test func todotxtRoundTripFindsEachTodoByItsUid() {
        var open = ExportDocument.Entry(
            title: "電話する +1 at 10:30", notes: "番号は手帳に", category: "Work stuff",
            due: Self.at("2026-12-24T06:30:00Z"), remind: Self.at("2026-12-24T06:00:00Z"),
            created: Self.at("2026-11-29T03:00:00Z"), updated: Self.now, uid: "u-1", priority: .high,
            tags: ["@電話", "urgent"])
        open.zone = "Asia/Tokyo"
        let done = ExportDocument.Entry(
            title: "Pay rent", done: true, completed: Self.at("2026-11-30T20:00:00Z"),
            created: Self.at("2026-11-28T15:00:00Z"), updated: Self.at("2026-11-30T20:00:00Z"), uid: "u-2",
            priority: .low)
        let text = TodotxtExport.text([open, done], zone: Self.tokyo)
        #expect(text.hasSuffix(" due:2026-12-24 uid:u-1\nx 2026-12-01 2026-11-29 Pay rent uid:u-2\n"), "\(text)")
        // Each line is the store's todo as it is: nothing to send.
        let same = Self.todotxt(text, stored: [open, done])
        #expect(same.document.todos.isEmpty && same.refused.isEmpty)
        // A file todo.sh wrote (no uid:, tags in its own order) read again: its todo as it is.
        let mine = "(A) 2026-11-30 買う +b @a due:2026-12-24\nx 2026-12-01 済み +家 @外\n"
        #expect(Self.todotxt(mine, stored: Self.todotxt(mine).document.todos).document.todos.isEmpty)
        // Edited as todo.sh would: a word appended, the priority changed; then completed.
        let edited = Self.todotxt(
            "(B) 2026-11-29 電話する +1 at 10:30 +Work_stuff @電話 +urgent due:2026-12-24 uid:u-1 soon\n",
            stored: [open, done])
        let e = edited.document.todos[0]
        #expect(
            e.title == "電話する at 10:30 soon" && e.priority == .medium && e.category == "Work stuff"
                && e.tags == ["1", "@電話", "urgent"])
        #expect(
            e.due == open.due && e.remind == open.remind && e.notes == open.notes && e.created == open.created
                && e.updated > open.updated)
        let completed = Self.todotxt(
            "x 2026-12-01 2026-11-29 電話する at 10:30 @電話 due:2026-12-25 uid:u-1\n", stored: [open]
        ).document.todos[0]
        #expect(
            completed.done && completed.completed == Self.now && completed.priority == .high
                && completed.category == nil)
        #expect(completed.due == Self.at("2026-12-24T15:00:00Z") && completed.allDay)
    }
}
