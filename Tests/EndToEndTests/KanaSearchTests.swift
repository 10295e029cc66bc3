import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// Search as Japanese users expect, through the real daemon and database: hiragana and katakana
/// alike on top of width and case, `--search-exact` and `searchMode: "exact"`, an alias of the
/// config file, and the index kept right through edit, undo, redo, import and delete.
@Suite struct KanaSearchTests {
    final class Setup {
        let daemon: DaemonProcess
        let config = TemporaryDirectory("config")
        init() throws {
            daemon = try DaemonProcess()
            try FileManager.default.createDirectory(atPath: config.file("todod"), withIntermediateDirectories: true)
        }
        func run(_ arguments: [String]) throws -> ChildProcess.Result {
            try daemon.todoctl(arguments, environment: ["XDG_CONFIG_HOME": config.path])
        }
        func ids(_ arguments: [String]) throws -> [Int64] {
            let result = try run(["--json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try JSON.parse(result.stdout).arrayValue?.compactMap { $0["id"]?.intValue } ?? []
        }
        func search(_ text: String) throws -> [Int64] { try ids(["list", "--all", "--sort", "id", "--search", text]) }
        func exact(_ text: String) throws -> [Int64] {
            try ids(["list", "--all", "--sort", "id", "--search-exact", text])
        }
    }

    @Test func kanaWidthAndCaseAlikeAndExactAsWritten() throws {
        let s = try Setup()
        for arguments in [
            ["クリーニングを出す"], ["くりーにんぐ 受け取り"], ["ｸﾘｰﾆﾝｸﾞ代"], ["Dry CLEANING", "--notes", "ｽｰﾂ 2着"], ["グラス"],
            ["100% done_ok"]
        ] {
            #expect(try s.run(["add"] + arguments).status == 0)
        }
        #expect(try s.search("くりーにんぐ") == [1, 2, 3])
        #expect(try s.search("クリーニング") == [1, 2, 3])
        #expect(try s.search("ｸﾘｰﾆﾝｸﾞ") == [1, 2, 3])
        #expect(try s.search("スーツ") == [4]) // notes, half-width katakana
        #expect(try s.search("ｃｌｅａｎｉｎｇ") == [4]) // full-width, lower case
        #expect(try s.search("%") == [6])
        #expect(try s.exact("クリーニング") == [1])
        #expect(try s.exact("くりーにんぐ") == [2])
        #expect(try s.exact("CLEANING") == [4])
        #expect(try s.exact("cleaning") == [])
        let both = try s.run(["list", "--search", "a", "--search-exact", "a"])
        #expect(both.status == 2 && both.stderr.contains("--search and --search-exact cannot be used together"))
        let empty = try s.run(["list", "--search-exact", "　"])
        #expect(
            empty.status != 0 && empty.stderr.split(separator: "\n").count == 1 && empty.stderr.contains("search"),
            "\(empty.stderr)")
        // The wire: searchMode, and a clear error for a bad one.
        let client = try s.daemon.client()
        let exact = try client.result("todo.list", ["search": "ｸﾘｰﾆﾝｸﾞ", "searchMode": "exact", "status": "all"])
        #expect(exact["todos"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [3])
        let folded = try client.result("todo.list", ["search": "ｸﾘｰﾆﾝｸﾞ", "searchMode": "folded", "status": "all"])
        #expect(folded["total"] == .int(3))
        let bad = try client.call("todo.list", ["search": "x", "searchMode": "kana"])
        #expect(
            bad["error"]?["code"] == .int(-32602) && bad["error"]?["data"]?["field"] == .string("searchMode"), "\(bad)")
        let alone = try client.call("todo.list", ["searchMode": "exact"])
        #expect(alone["error"]?["code"] == .int(-32602), "\(alone)")
        // An alias of the config file searches the same way.
        try
            "alias.laundry = list --all --sort id --search くりーにんぐ\nalias.exactly = list --all --sort id --search-exact クリーニング\n"
            .write(toFile: s.config.file("todod/config"), atomically: true, encoding: .utf8)
        #expect(try s.ids(["laundry"]) == [1, 2, 3])
        #expect(try s.ids(["exactly"]) == [1])
    }

    @Test func theIndexFollowsEditUndoRedoImportAndDelete() throws {
        let s = try Setup()
        #expect(try s.run(["add", "ワイシャツをクリーニング"]).status == 0)
        #expect(try s.run(["add", "牛乳を買う"]).status == 0)
        #expect(try s.run(["edit", "1", "--title", "スーツを取りに行く"]).status == 0)
        #expect(try s.search("くりーにんぐ") == [] && s.search("すーつ") == [1])
        #expect(try s.run(["undo"]).status == 0)
        #expect(try s.search("くりーにんぐ") == [1] && s.search("すーつ") == [])
        #expect(try s.run(["redo"]).status == 0)
        #expect(try s.search("すーつ") == [1])
        let export = try s.run(["export"])
        #expect(export.status == 0)
        #expect(try s.run(["rm", "1", "2"]).status == 0)
        #expect(try s.search("すーつ") == [] && s.search("牛乳") == [])
        let file = s.config.file("export.json")
        try export.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try s.run(["import", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try s.search("すーつ").count == 1 && s.search("牛乳").count == 1)
        #expect(try s.run(["undo"]).status == 0)
        #expect(try s.search("すーつ") == [] && s.search("牛乳") == [])
    }
}
