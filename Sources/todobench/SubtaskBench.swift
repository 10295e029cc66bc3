import Foundation
import TodoCore
import TodoProtocol
import TodoStore

#if canImport(Glibc)
    import Glibc
#endif

/// Subtasks (issue 25): `todoctl list` of N todos of which one in ten is a subtask, as a tree (the
/// default) beside `--flat` — the first page and the whole listing, each a whole todoctl process —
/// and `todoctl import --from taskwarrior` of a real `task export` of 10,000 tasks (Taskwarrior's
/// own file, made by importing generated tasks into a private Taskwarrior and exporting them).
enum SubtaskBench {
    static func run(count: Int, tasks: Int, runs: Int) throws {
        let label = sizeLabel(count)
        print(
            "== subtasks: \(formatCount(count)) todos, \(formatCount(count / 10)) of them subtasks; "
                + "import of \(formatCount(tasks)) Taskwarrior tasks")
        let dir = try TempDir("subtasks")
        let database = dir.file("tree.db")
        let seeded = try seedTree(path: database, count: count)
        print("  generated \(formatCount(count)) todos in \(formatSeconds(seeded))")
        let daemon = try DaemonRun(dir: dir, database: database, notify: true)
        defer { daemon.stop() }
        let todoctl = try Products.path("todoctl")
        let env = daemon.clientEnvironment
        let out = dir.file("list.out")
        func listing(_ arguments: [String], samples: Int) throws -> [Double] {
            try Measure.samples(samples) { try Spawn.run(todoctl, ["list"] + arguments, environment: env, stdout: out) }
        }
        let treePage = try listing(["--limit", "50"], samples: runs)
        report("todoctl list --limit 50 (tree), \(label)", treePage)
        let flatPage = try listing(["--flat", "--limit", "50"], samples: runs)
        report("todoctl list --flat --limit 50, \(label)", flatPage)
        let wholeRuns = max(3, runs / 3)
        let treeWhole = try listing([], samples: wholeRuns)
        let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").count
        guard lines == count + 1 else { throw BenchError("the tree listing printed \(lines) lines, not \(count + 1)") }
        report("todoctl list (tree, all \(label)) to a file", treeWhole)
        let flatWhole = try listing(["--flat"], samples: wholeRuns)
        report("todoctl list --flat (all \(label)) to a file", flatWhole)
        print("  todod RSS after the listings: \(formatMiB(daemon.rss))")
        Summary.add(
            "subtasks: todoctl list --limit 50 as a tree, \(label) (10% subtasks)",
            value: formatSeconds(Stats(treePage).median), peer: "--flat " + formatSeconds(Stats(flatPage).median),
            ratio: String(format: "%.2f×", Stats(treePage).median / Stats(flatPage).median))
        Summary.add(
            "subtasks: todoctl list, all \(label) as a tree (whole process)",
            value: formatSeconds(Stats(treeWhole).median), peer: "--flat " + formatSeconds(Stats(flatWhole).median),
            ratio: String(format: "%.2f×", Stats(treeWhole).median / Stats(flatWhole).median))
        try importFigures(dir: dir, tasks: tasks, runs: max(3, runs / 3))
    }

    /// A store of `count` open todos in which todo i ≡ 5 (mod 10) is a subtask of todo i - 1.
    static func seedTree(path: String, count: Int, batch: Int = 20_000) throws -> Double {
        let start = Measure.now()
        let base = Instant.now()
        let store = try TodoStore(path: path)
        defer { store.close() }
        let uid = { (i: Int) in String(format: "00000000-0000-4000-8000-%012d", i) }
        for first in stride(from: 0, to: count, by: batch) {
            var entries: [ExportDocument.Entry] = []
            for i in first..<min(first + batch, count) {
                let created = base.adding(usec: Int64(i - count) * 1000)
                var e = ExportDocument.Entry(
                    title: Seed.title(i), category: Seed.category(i), due: Seed.due(i, base: base),
                    created: created, updated: created, uid: uid(i))
                if i % 10 == 5 { e.parent = uid(i - 1) }
                entries.append(e)
            }
            let document = ExportDocument(categories: first == 0 ? Seed.categories : [], todos: entries, exported: base)
            _ = try store.write { try $0.importDocument(document) }
        }
        return Measure.now() - start
    }

    /// `task export` of `tasks` tasks (projects, tags, priorities, due and scheduled dates,
    /// annotations) read by `todoctl import --from taskwarrior` into an empty store, and the same
    /// file again into that store (nothing changes).
    static func importFigures(dir: TempDir, tasks: Int, runs: Int) throws {
        guard let task = ClientBench.findTaskwarrior() else {
            print("  no Taskwarrior (task): the import figures need a real export")
            Summary.add(
                "subtasks: import --from taskwarrior, \(formatCount(tasks)) tasks", value: "—", peer: "no Taskwarrior")
            return
        }
        let twDir = try TempDir("tw-export")
        let twEnv = try Taskwarrior.environment(in: twDir)
        let input = twDir.file("input.json")
        try taskwarriorInput(path: input, count: tasks)
        let imported = try Spawn.run(task, ["import", input], environment: twEnv, stderr: twDir.file("import.log"))
        print("  made \(formatCount(tasks)) tasks in Taskwarrior in \(formatSeconds(imported))")
        let export = dir.file("export.json")
        try Spawn.run(task, ["export"], environment: twEnv, stdout: export, stderr: twDir.file("export.log"))
        let size = (try? FileManager.default.attributesOfItem(atPath: export)[.size] as? Int) ?? nil
        print("  task export: \(formatMiB(size))")
        let todoctl = try Products.path("todoctl")
        var first: [Double] = []
        var again: [Double] = []
        for i in 0..<runs {
            let runDir = try TempDir("tw-import-\(i)")
            let daemon = try DaemonRun(dir: runDir, notify: true)
            defer { daemon.stop() }
            let log = runDir.file("import.out")
            first.append(
                try Spawn.run(
                    todoctl, ["import", "--from", "taskwarrior", export], environment: daemon.clientEnvironment,
                    stdout: log, stderr: runDir.file("import.err")))
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            guard text.contains("Imported \(tasks) todos") else {
                throw BenchError("todoctl import printed: \(text.prefix(300))")
            }
            again.append(
                try Spawn.run(
                    todoctl, ["import", "--from", "taskwarrior", export], environment: daemon.clientEnvironment,
                    stdout: log, stderr: runDir.file("import.err")))
        }
        report("todoctl import --from taskwarrior, \(formatCount(tasks)) tasks", first)
        report("the same file again (nothing changes)", again)
        Summary.add(
            "subtasks: todoctl import --from taskwarrior, \(formatCount(tasks)) tasks (task export)",
            value: formatSeconds(Stats(first).median), peer: "again " + formatSeconds(Stats(again).median),
            ratio: "task import " + formatSeconds(imported))
    }

    /// `count` tasks for `task import`: a project for three in four, a tag for one in two, a
    /// priority for one in three, a due date for two in three, scheduled for one in five and an
    /// annotation for one in ten.
    static func taskwarriorInput(path: String, count: Int) throws {
        let base = Instant.now()
        var out = "["
        for i in 0..<count {
            let created = base.adding(usec: Int64(i - count) * 1_000_000)
            var t: JSONObject = [
                "uuid": .string(String(format: "10000000-0000-4000-8000-%012d", i)),
                "description": .string(Seed.title(i)), "status": "pending",
                "entry": .string(Seed.taskwarriorDate(created))
            ]
            if let category = Seed.category(i) { t["project"] = .string(category + ".sub") }
            if i % 2 == 0 { t["tags"] = .array([i % 4 == 0 ? "家" : "work", "bench"]) }
            if i % 3 == 0 { t["priority"] = .string(["H", "M", "L"][i / 3 % 3]) }
            let due = Seed.due(i, base: base)
            if let due { t["due"] = .string(Seed.taskwarriorDate(due)) }
            if i % 5 == 0, let due { t["scheduled"] = .string(Seed.taskwarriorDate(due.adding(usec: -86_400_000_000))) }
            if i % 10 == 0 {
                t["annotations"] = [["entry": .string(Seed.taskwarriorDate(created)), "description": "メモ: call ahead"]]
            }
            out += (i > 0 ? ",\n" : "") + JSON.object(t).serialized()
        }
        try (out + "]\n").write(toFile: path, atomically: false, encoding: .utf8)
    }
}
