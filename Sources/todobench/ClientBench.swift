import Foundation
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// P3: whole-process time of todoctl against a daemon holding N todos, beside Taskwarrior 2.6
/// holding the same N tasks, measured in the same run.
enum ClientBench {
    static func run(sizes: [Int], runs: Int, peerRuns: Int, quick: Bool) throws {
        print("== client process time (P3): todoctl vs Taskwarrior, whole process, stdout to /dev/null")
        let todoctl = try Products.path("todoctl")
        print("  todoctl: \(Products.linkage(todoctl))")
        let task = findTaskwarrior()
        if let task {
            let version = (try? capture(task, ["--version"])) ?? "?"
            print("  peer: Taskwarrior \(version.trimmingCharacters(in: .whitespacesAndNewlines)) at \(task)")
        } else {
            Summary.note(
                "Taskwarrior (`task`) is not installed: P3 peer figures skipped (scripts/bench installs it in full mode)"
            )
        }

        for (index, size) in sizes.enumerated() {
            let label = sizeLabel(size)
            let dir = try TempDir("p3")
            let seeded = try Seed.store(path: dir.file("todos.db"), count: size)
            print("  \(label): seeded \(formatCount(size)) todos into todod's store in " + formatSeconds(seeded))
            let daemon = try DaemonRun(dir: dir)
            let env = daemon.clientEnvironment
            // The floor of any client: starting the same executable to do nothing but print its version.
            let version = try Measure.samples(runs) { try Spawn.run(todoctl, ["--version"], environment: env) }
            report("todoctl --version (process start)", version)
            let add = try Measure.samples(runs) {
                try Spawn.run(todoctl, ["add", "bench add", "--category", "Home"], environment: env)
            }
            report("todoctl add, \(label) todos", add)
            let limited = try Measure.samples(runs) {
                try Spawn.run(todoctl, ["list", "--limit", "50"], environment: env)
            }
            report("todoctl list --limit 50, \(label) todos", limited)
            var full: [Double]? = nil
            if index == 0 {
                full = try Measure.samples(runs) { try Spawn.run(todoctl, ["list"], environment: env) }
                report("todoctl list (all \(label) open), \(label) todos", full!)
                // Diagnostics: where the time of a long listing goes.
                let json = try Measure.samples(max(3, runs / 3)) {
                    try Spawn.run(todoctl, ["list", "--json"], environment: env)
                }
                report("  todoctl list --json (no table formatting)", json)
                let connection = try daemon.connect()
                let request = requestLine(id: 1, Method.todoList.name, ["status": "open"])
                var bytes = 0
                let trip = try Measure.samples(max(3, runs / 3)) { bytes = try connection.call(request).count + 1 }
                report("  todo.list all open, raw round trip", trip, extra: "\(bytes / 1024) KiB response")
            }
            daemon.stop()

            var taskAdd: [Double]? = nil
            var taskList: [Double]? = nil
            if let task {
                let twDir = try TempDir("tw")
                let twEnv = try Taskwarrior.environment(in: twDir)
                let file = twDir.file("import.json")
                try Seed.taskwarriorFile(path: file, count: size)
                let imported = try Spawn.run(
                    task, ["import", file], environment: twEnv, stderr: twDir.file("import.log"))
                print("  \(label): imported \(formatCount(size)) tasks into Taskwarrior in " + formatSeconds(imported))
                let addRuns = size >= 100_000 ? max(3, peerRuns - 2) : peerRuns
                let listRuns = size >= 100_000 ? 3 : peerRuns
                taskAdd = try Measure.samples(addRuns) {
                    try Spawn.run(task, ["add", "bench add", "project:Home"], environment: twEnv)
                }
                report("task add, \(label) tasks", taskAdd!)
                taskList = try Measure.samples(listRuns, warmUp: size < 100_000) {
                    try Spawn.run(task, ["list"], environment: twEnv)
                }
                report("task list, \(label) tasks", taskList!)
            }

            let ours = Stats(add).median
            let goal = size >= 100_000 ? 200.0 : 20.0
            if let taskAdd {
                let theirs = Stats(taskAdd).median
                Summary.ratio(
                    "P3 task add ÷ todoctl add, \(label)", value: formatSeconds(ours),
                    peer: "task " + formatSeconds(theirs),
                    ratio: theirs / ours,
                    goal: "≥ \(Int(goal))×" + (size == 10_000 || size == 100_000 ? "" : " (at 10k/100k)"),
                    met: theirs / ours >= goal)
            } else {
                Summary.add("P3 todoctl add, \(label)", value: formatSeconds(ours), peer: "no Taskwarrior")
            }
            if let full {
                let theirs = taskList.map { Stats($0).median }
                Summary.add(
                    "P3 todoctl list (all open), \(label)", value: formatSeconds(Stats(full).median),
                    peer: theirs.map { "task list " + formatSeconds($0) } ?? "—",
                    ratio: theirs.map { String(format: "%.1f×", $0 / Stats(full).median) } ?? "—")
            } else if let taskList {
                Summary.add(
                    "P3 task list, \(label)", value: "—", peer: "task list " + formatSeconds(Stats(taskList).median))
            }
            Summary.add(
                "P3 todoctl list --limit 50, \(label)", value: formatSeconds(Stats(limited).median),
                peer: "process start " + formatSeconds(Stats(version).median),
                ratio: String(format: "%.2f×", Stats(limited).median / Stats(version).median))
        }
    }

    static func findTaskwarrior() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where access("\(dir)/task", X_OK) == 0 { return "\(dir)/task" }
        return nil
    }

    /// Runs a command and returns its standard output.
    static func capture(_ path: String, _ arguments: [String]) throws -> String {
        let dir = try TempDir("cap")
        try Spawn.run(path, arguments, environment: Spawn.baseEnvironment(), stdout: dir.file("out"))
        return (try? String(contentsOfFile: dir.file("out"), encoding: .utf8)) ?? ""
    }
}

/// The Taskwarrior configuration the bench uses: stock defaults except what a script needs.
enum Taskwarrior {
    /// The environment `task` runs in with a private configuration and data directory in `dir`
    /// (written here).
    static func environment(in dir: TempDir) throws -> [String: String] {
        let rc = dir.file("taskrc")
        try rcText(data: dir.file("data")).write(toFile: rc, atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.file("data"), withIntermediateDirectories: true)
        var environment = Spawn.baseEnvironment()
        environment["TASKRC"] = rc
        environment["TASKDATA"] = dir.file("data")
        environment["NO_COLOR"] = "1"
        return environment
    }

    static func rcText(data: String) -> String {
        """
        # todobench: a private Taskwarrior. Defaults otherwise (gc stays on, hooks none installed).
        data.location=\(data)
        # never ask on a terminal (there is none)
        confirmation=off
        # no chatter such as "Created task 12." (output goes to /dev/null anyway)
        verbose=nothing
        # no "please run task news" reminder
        news.version=2.6.0

        """
    }
}
