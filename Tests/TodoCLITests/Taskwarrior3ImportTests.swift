import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoTime

@testable import TodoCLI

/// `import --from taskwarrior` of a Taskwarrior 3.x `task export`. No Taskwarrior 3 can be run
/// here (Debian 12 ships 2.6.2; 3.x is Rust and C++ built with cargo from crates.io, out of reach,
/// and PyPI's taskchampion-py has no wheel for this machine while its source build needs
/// crates.io too), so the fixture is written byte for byte as Taskwarrior v3.1.0 writes an export,
/// from its source (GothenburgBitFactory/taskwarrior at v3.1.0):
///
/// - `src/commands/CmdExport.cpp`: `json.array` on by default: `[`, a newline, the tasks joined
///   by `,` and a newline, a newline, `]` and a newline (`[\n]\n` when there are none);
/// - `src/Task.cpp`, `Task::composeJSON(true)`: `"id"` first (0 for a completed or deleted task),
///   then the stored attributes in key order (a `std::map`), dates as `20261223T150000Z`, numeric
///   ones (`imask`, a numeric UDA) unquoted, strings through libshared's `json::encode` (which
///   writes `/` as `\/`), empty ones left out; then `annotations` (`entry`, `description`),
///   `tags` (not encoded) and `depends` (an array of uuids, as since 2.6.0), then `urgency`;
/// - `src/recur.cpp`: an instance of a recurring template has `parent` (the template's uuid),
///   `imask` and the template's `recur`, `rtype`, `until`; the template has `mask` and status
///   `recurring`.
@Suite struct Taskwarrior3ImportTests {
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo") ?? .utc
    static let now = Instant(rfc3339: "2026-12-01T00:00:00Z") ?? Instant(usec: 0)
    static let context = ForeignImport.Context(zone: tokyo, zoneName: "Asia/Tokyo", now: now)
    static func at(_ text: String) -> Instant? { Instant(rfc3339: text) }

    /// A 3.1.0 export (`task export` with the UDAs `estimate` numeric and `reviewed` date).
    static let export = """
        [
        {"id":1,"description":"牛乳を買う \\/ 卵","due":"20261223T150000Z","entry":"20261201T225107Z",\
        "estimate":3,"modified":"20261202T080000Z","priority":"H","project":"Home\\/Kitchen",\
        "reviewed":"20261130T000000Z","scheduled":"20261219T150000Z","status":"pending",\
        "uuid":"ddac364d-4e31-4373-ac54-d18874f9d186","wait":"20261218T150000Z",\
        "annotations":[{"entry":"20261201T225107Z","description":"call \\"ahead\\"\\nthen go"}],\
        "tags":["shop","今日"],"urgency":16.1},
        {"id":2,"description":"Weekly review","due":"20261207T000000Z","entry":"20261201T225107Z","mask":"-+",\
        "modified":"20261207T010000Z","recur":"weekly","rtype":"periodic","status":"recurring",\
        "until":"20270201T000000Z","uuid":"9eaf35af-c1bc-4ad2-a540-25b494617a1e","urgency":6.3},
        {"id":3,"description":"Weekly review","due":"20261214T000000Z","entry":"20261207T010000Z","imask":1,\
        "modified":"20261207T010000Z","parent":"9eaf35af-c1bc-4ad2-a540-25b494617a1e","recur":"weekly",\
        "rtype":"periodic","status":"pending","until":"20270201T000000Z",\
        "uuid":"5a2f0395-aa97-4c2c-9242-84c285a3b199","urgency":6.3},
        {"id":4,"description":"dep","entry":"20261201T225107Z","modified":"20261201T225107Z","priority":"L",\
        "status":"pending","uuid":"f91968a2-158e-4d37-a6e4-13cb5801788a",\
        "depends":["ddac364d-4e31-4373-ac54-d18874f9d186","0f7c1b2e-0000-4000-8000-000000000000"],"urgency":-3.2},
        {"id":0,"description":"Weekly review","due":"20261207T000000Z","end":"20261207T010000Z",\
        "entry":"20261201T225107Z","imask":0,"modified":"20261207T010000Z",\
        "parent":"9eaf35af-c1bc-4ad2-a540-25b494617a1e","recur":"weekly","rtype":"periodic","status":"completed",\
        "until":"20270201T000000Z","uuid":"6a2f0395-aa97-4c2c-9242-84c285a3b199","urgency":0},
        {"id":0,"description":"done one","end":"20261201T230000Z","entry":"20261201T225107Z",\
        "modified":"20261201T230000Z","status":"completed","uuid":"85dccacc-3353-44f0-9179-b7a95b468064","urgency":0},
        {"id":0,"description":"gone","end":"20261201T225107Z","entry":"20261201T225107Z",\
        "modified":"20261201T225107Z","status":"deleted","uuid":"ec2b26c3-9da7-4e83-906d-c632f04cfd33","urgency":0}
        ]

        """

    static func convert(_ text: String) throws -> ForeignImport {
        try TaskwarriorImport(context: context).convert(Array(text.utf8))
    }

    @Test func aTaskwarrior3ExportMapsFieldByField() throws {
        let result = try Self.convert(Self.export)
        let todos = result.document.todos
        #expect(todos.map(\.title) == ["牛乳を買う / 卵", "Weekly review", "dep", "done one"])
        #expect(result.document.categories == ["Home/Kitchen"])
        let milk = todos[0]
        #expect(milk.uid == "ddac364d-4e31-4373-ac54-d18874f9d186" && milk.category == "Home/Kitchen")
        #expect(milk.priority == .high && milk.tags == ["shop", "今日"])
        #expect(milk.due == Self.at("2026-12-23T15:00:00Z") && milk.allDay && milk.zone == "Asia/Tokyo")
        #expect(milk.created == Self.at("2026-12-01T22:51:07Z") && milk.updated == Self.at("2026-12-02T08:00:00Z"))
        // The annotation keeps its quotes and its line break; scheduled is the start, wait is dropped.
        #expect(milk.notes == "2026-12-02 07:51 call \"ahead\"\nthen go", "\(milk.notes ?? "-")")
        #expect(milk.start == Self.at("2026-12-19T15:00:00Z") && !milk.done)
        // The template and its instances: one recurring todo due at the next pending instance.
        let review = todos[1]
        #expect(review.uid == "9eaf35af-c1bc-4ad2-a540-25b494617a1e" && !review.done)
        #expect(review.recurrence == TodoRecurrence(rule: "FREQ=WEEKLY;UNTIL=20270201T000000Z", from: .due))
        #expect(review.due == Self.at("2026-12-14T00:00:00Z"))
        // depends: the task in the file by title, the one that is not by its uuid.
        #expect(
            todos[2].notes == "Depends on: 牛乳を買う / 卵 (ddac364d-4e31-4373-ac54-d18874f9d186), "
                + "0f7c1b2e-0000-4000-8000-000000000000")
        #expect(todos[2].priority == .low && todos[3].done && todos[3].completed == Self.at("2026-12-01T23:00:00Z"))
        #expect(result.unmapped.contains("not imported: 1 deleted task (gone)"))
        #expect(
            result.unmapped.contains(
                "2 instances of recurring tasks folded into their recurring todo (due at the next pending one)"))
        #expect(
            result.unmapped.contains("wait dropped where scheduled was the start: 1 task (牛乳を買う / 卵)"),
            "\(result.unmapped)")
        // The UDAs, numeric (unquoted) and date, are named: nothing is silently lost.
        #expect(result.unmapped.contains("attribute estimate (1 task) has no counterpart and was not imported"))
        #expect(result.unmapped.contains("attribute reviewed (1 task) has no counterpart and was not imported"))
    }

    /// 3.x with nothing to export writes `[`, a newline, `]` and a newline: nothing to import, no error.
    @Test func anEmptyExport() throws {
        let result = try Self.convert("[\n]\n")
        #expect(result.document.todos.isEmpty && result.document.categories.isEmpty)
    }

    /// A file written as 3.x writes it and read as todoctl reads it: the same todos as the
    /// one-object-per-line form (`rc.json.array=off`) of the same tasks.
    @Test func theArrayAndTheLinesAreTheSameTasks() throws {
        let body = Self.export.dropFirst(2).dropLast(3) // "[\n" … "\n]\n"
        let lines = String(body).replacingOccurrences(of: "},\n{", with: "}\n{")
        let fromLines = try Self.convert(lines).document
        let fromArray = try Self.convert(Self.export).document
        #expect(fromLines.todos == fromArray.todos && fromLines.categories == fromArray.categories)
    }
}
