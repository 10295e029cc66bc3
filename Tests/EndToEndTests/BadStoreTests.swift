import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct BadStoreTests {
    private func refuses(_ path: String, mentioning words: String) throws {
        let dir = TemporaryDirectory("bad")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try ChildProcess.run(BuiltProducts.path("todod"), ["--socket", dir.file("s"), "--db", path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(words), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func corruptNonDatabaseAndFutureStoresAreRefusedUntouched() throws {
        let dir = TemporaryDirectory("stores")
        // A real store, then one with its first page (the schema) overwritten.
        let daemon = try DaemonProcess(directory: dir, database: dir.file("good.db"))
        _ = try daemon.client().result("todo.add", ["title": "x"])
        #expect(daemon.stop() == 0)
        var corrupt = try Data(contentsOf: URL(fileURLWithPath: dir.file("good.db")))
        for i in 100..<min(4000, corrupt.count) { corrupt[i] = UInt8(truncatingIfNeeded: i * 7) }
        try corrupt.write(to: URL(fileURLWithPath: dir.file("corrupt.db")))
        try refuses(dir.file("corrupt.db"), mentioning: "corrupt.db")

        try Data("# notes\nnot a database\n".utf8).write(to: URL(fileURLWithPath: dir.file("notes.db")))
        try refuses(dir.file("notes.db"), mentioning: "not a database")

        _ = try ChildProcess.sqlite3(dir.file("good.db"), "INSERT INTO todod_migrations VALUES (999, 'future', 0);")
        try refuses(dir.file("good.db"), mentioning: "newer todod")
    }
}
