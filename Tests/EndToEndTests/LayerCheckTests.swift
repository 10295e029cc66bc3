import Foundation
import Testing
import TodoTestSupport

/// scripts/check-layers against a small package of the same shape as ours (a saved description
/// and sources in a temporary directory): the clean package passes, and each way around a rule
/// (a link through another target, every form of import, `public` or `open` in any position, a
/// C library behind two modules, the store reaching the protocol, an SPI in a shipped program)
/// fails with its line.
@Suite struct LayerCheckTests {
    struct Target {
        var name: String
        var type = "library"
        var dependencies: [String] = []
        var source = ""
    }

    static let base: [Target] = [
        Target(name: "CSQLite", type: "system-target"),
        Target(name: "TodoCore", source: "package struct Todo {}\n"),
        Target(name: "TodoProtocol", dependencies: ["TodoCore"], source: "import TodoCore\n"),
        Target(name: "TodoSQLite", dependencies: ["CSQLite"], source: "import CSQLite\n"),
        Target(
            name: "TodoStore", dependencies: ["TodoCore", "TodoSQLite"],
            source: "import TodoSQLite\n@_spi(Benchmark) public func measure() {}\n"),
        Target(name: "TodoDaemon", dependencies: ["TodoStore", "TodoProtocol"], source: "import TodoStore\n"),
        Target(name: "TodoCLI", dependencies: ["TodoProtocol"], source: "import TodoProtocol\n"),
        Target(
            name: "TodoSync", dependencies: ["TodoProtocol", "TodoSQLite"],
            source: """
                import TodoProtocol
                import TodoSQLite
                // public and open in a comment; `open` as a name:
                let text = "public \\(open("public")) open class"
                func open(_ s: String) -> String { s }
                package final class Round { let open = 1 }

                """),
        Target(name: "todod", type: "executable", dependencies: ["TodoDaemon"], source: "import TodoDaemon\n"),
        Target(name: "todod-sync", type: "executable", dependencies: ["TodoSync"], source: "import TodoSync\n"),
        Target(name: "todoctl", type: "executable", dependencies: ["TodoCLI"], source: "import TodoCLI\n"),
        Target(
            name: "todobench", type: "executable", dependencies: ["TodoStore"],
            source: "@_spi(Benchmark) import TodoStore\n"),
        Target(
            name: "TodoSyncTests", type: "test", dependencies: ["TodoSync"],
            source: "@testable import TodoSync\npublic func helper() {}\n")
    ]

    /// Runs the checker on `targets`; returns its exit status and standard error.
    static func check(_ targets: [Target]) throws -> (status: Int32, stderr: String) {
        let dir = TemporaryDirectory("layers")
        var described: [[String: Any]] = []
        for target in targets {
            let path = dir.file(target.name)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            var sources: [String] = []
            if target.type != "system-target" {
                try target.source.write(toFile: path + "/main.swift", atomically: true, encoding: .utf8)
                sources = ["main.swift"]
            }
            described.append([
                "name": target.name, "type": target.type, "path": path, "sources": sources,
                "target_dependencies": target.dependencies
            ])
        }
        let description = dir.file("describe.json")
        try JSONSerialization.data(withJSONObject: ["targets": described]).write(to: URL(fileURLWithPath: description))
        let result = try ChildProcess.run(
            "/usr/bin/python3", [NotifyTestSupport.repository + "/scripts/check-layers", description])
        return (result.status, result.stderr)
    }

    static func with(_ name: String, _ change: (inout Target) -> Void) -> [Target] {
        base.map { target in
            var target = target
            if target.name == name { change(&target) }
            return target
        }
    }

    @Test func theCleanPackagePasses() throws {
        let result = try Self.check(Self.base)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(arguments: [
        // A link through another target: Sync -> Daemon -> Store.
        ("TodoSync", "deps TodoDaemon", "TodoSync depends on TodoStore (the daemon's store) through TodoDaemon"),
        ("TodoSync", "deps TodoCLI", "TodoSync depends on TodoCLI"),
        ("TodoStore", "deps TodoProtocol", "TodoStore depends on TodoProtocol"),
        ("TodoSync", "deps CSQLite", "CSQLite is used by TodoSQLite, TodoSync"),
        // Every form of import of a module not declared.
        ("TodoSync", "@_implementationOnly import TodoStore", "imports TodoStore, which TodoSync does not declare"),
        ("TodoSync", "import struct TodoStore.Database", "imports TodoStore, which TodoSync does not declare"),
        (
            "TodoSync", "@_spi(Testing) @preconcurrency import TodoDaemon",
            "imports TodoDaemon, which TodoSync does not declare"
        ),
        ("TodoSync", "  public import TodoCore.Sub", "imports TodoCore, which TodoSync does not declare"),
        (
            "TodoSync", "#if canImport(Glibc)\n    import TodoCore\n#endif",
            "imports TodoCore, which TodoSync does not declare"
        ),
        // An SPI in a module a shipped program links.
        (
            "TodoSync", "@_spi(Testing) import TodoSQLite",
            "imports an SPI of TodoSQLite into a module a shipped program links"
        ),
        // public and open in any position.
        ("TodoSync", "final public class Leak {}", "main.swift:7: public declaration"),
        ("TodoSync", "public extension String {}", "main.swift:7: public declaration"),
        ("TodoSync", "package struct S { static public func f() {} }", "main.swift:7: public declaration"),
        ("TodoSync", "package struct S { public private(set) var x = 1 }", "main.swift:7: public declaration"),
        ("TodoSync", "@available(*, deprecated)\nopen class Base {}", "main.swift:8: open declaration"),
        ("TodoSync", "package class Base { static open func f() {} }", "main.swift:7: open declaration"),
        ("TodoSync", "@_spi(Testing) public func fine() {}\npublic func leak() {}", "main.swift:8: public declaration")
    ])
    func eachBypassFails(target: String, change: String, failure: String) throws {
        let targets = Self.with(target) { t in
            if change.hasPrefix("deps ") {
                t.dependencies.append(String(change.dropFirst(5)))
            } else {
                t.source += change + "\n"
            }
        }
        let result = try Self.check(targets)
        #expect(result.status == 1, "\(change): passed")
        #expect(result.stderr.contains(failure), "\(change): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("FAIL: ") }, "\(result.stderr)")
    }
}
