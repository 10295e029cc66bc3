import Foundation
import TodoCore
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// P5: a store of N todos, each with a pending reminder far in the future: start to READY=1,
/// resident memory, and first pages — beside the same start and memory with only 10 reminders.
enum ScaleBench {
    static func run(count: Int, runs: Int) throws {
        let label = sizeLabel(count)
        print("== scale (P5): \(formatCount(count)) todos, each with a pending reminder")
        let dir = try TempDir("p5")
        let farFuture = Instant.now().adding(usec: 365 * 86_400 * 1_000_000)
        let big = dir.file("big.db")
        let seeded = try Seed.store(path: big, count: count, batch: 20_000) { i, _ in
            farFuture.adding(usec: Int64(i) * 1_000_000)
        }
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: big)[.size] as? Int) ?? nil
        print(
            "  generated \(formatCount(count)) todos in \(formatSeconds(seeded)) (\(formatRate(Double(count) / seeded, "todos"))), database \(formatMiB(fileSize))"
        )
        let small = dir.file("small.db")
        _ = try Seed.store(path: small, count: 10) { i, _ in farFuture.adding(usec: Int64(i) * 1_000_000) }

        let smallStart = try starts(dir: dir, database: small, label: "10 reminders")
        smallStart.daemon.stop()
        let bigStart = try starts(dir: dir, database: big, label: "\(label) reminders")
        let daemon = bigStart.daemon
        defer { daemon.stop() }

        let todoctl = try Products.path("todoctl")
        let env = daemon.clientEnvironment
        let list = try Measure.samples(runs) { try Spawn.run(todoctl, ["list", "--limit", "50"], environment: env) }
        report("todoctl list --limit 50, \(label)", list)
        let category = Seed.categories[1]
        let listCategory = try Measure.samples(runs) {
            try Spawn.run(todoctl, ["list", "--category", category, "--limit", "50"], environment: env)
        }
        report("todoctl list --category \(category) --limit 50", listCategory)
        // Diagnostics: a first page by due date, and the overdue todos (none here), both read
        // through the status and due index.
        let byDue = try Measure.samples(runs) {
            try Spawn.run(todoctl, ["list", "--sort", "due", "--limit", "50"], environment: env)
        }
        report("todoctl list --sort due --limit 50", byDue)
        let overdue = try Measure.samples(runs) {
            try Spawn.run(todoctl, ["list", "--overdue", "--limit", "50"], environment: env)
        }
        report("todoctl list --overdue --limit 50", overdue)

        let connection = try daemon.connect()
        func roundTrip(_ params: JSONObject) throws -> [Double] {
            let request = requestLine(id: 3, Method.todoList.name, params)
            let check = try connection.call(request)
            guard try parse(check, what: Method.todoList.name)["result"] != nil else {
                throw BenchError("todo.list failed: \(String(decoding: check.prefix(300), as: UTF8.self))")
            }
            return try Measure.samples(runs * 10) { _ = try connection.call(request) }
        }
        let page = try roundTrip(["limit": 50])
        report("todo.list limit 50 round trip", page)
        let categoryPage = try roundTrip(["category": .string(category), "limit": 50])
        report("todo.list category limit 50 round trip", categoryPage)
        // Diagnostics: where the time of a page goes (the total alone, and a page without a filter).
        let categoryTotal = try roundTrip(["category": .string(category), "limit": 0])
        report("todo.list category limit 0 (total only)", categoryTotal)
        let openTotal = try roundTrip(["limit": 0])
        report("todo.list limit 0 (total only)", openTotal)
        let statusRequest = requestLine(id: 4, Method.daemonStatus.name)
        let status = try Measure.samples(runs * 10) { _ = try connection.call(statusRequest) }
        report("daemon.status round trip", status)
        let rssAfter = daemon.rss
        print("  todod RSS after the queries: \(formatMiB(rssAfter))")

        let readyGoal = 1.0
        let rssGoal = 64 * 1_048_576
        Summary.add(
            "P5 start → READY=1, \(label) reminders", value: formatSeconds(bigStart.median),
            peer: "10 reminders " + formatSeconds(smallStart.median),
            ratio: String(format: "%.2f×", bigStart.median / smallStart.median), goal: "≤ 1 s",
            met: bigStart.median <= readyGoal)
        let rssMax = max(bigStart.rss ?? Int.max, rssAfter ?? Int.max)
        Summary.add(
            "P5 todod RSS, \(label) reminders (start / after queries)",
            value: "\(formatMiB(bigStart.rss)) / \(formatMiB(rssAfter))",
            peer: "10 reminders " + formatMiB(smallStart.rss), goal: "≤ 64 MiB", met: rssMax <= rssGoal)
        Summary.add(
            "P5 todoctl list --limit 50, \(label)", value: formatSeconds(Stats(list).median),
            peer: "round trip " + formatSeconds(Stats(page).median), goal: "≤ 10 ms", met: Stats(list).median <= 0.010)
        Summary.add(
            "P5 first page of one category, \(label)", value: formatSeconds(Stats(listCategory).median),
            peer: "round trip " + formatSeconds(Stats(categoryPage).median), goal: "≤ 10 ms",
            met: Stats(listCategory).median <= 0.010)
        Summary.add(
            "P5 (diagnostic) todoctl list --sort due --limit 50, \(label)", value: formatSeconds(Stats(byDue).median))
        Summary.add(
            "P5 (diagnostic) todoctl list --overdue --limit 50, \(label)", value: formatSeconds(Stats(overdue).median))
    }

    struct Starts {
        var median: Double
        var rss: Int?
        var daemon: DaemonRun
    }

    /// Starts todod three times on `database`, each timed from spawn to READY=1; the last one is
    /// left running and returned.
    static func starts(dir: TempDir, database: String, label: String) throws -> Starts {
        var times: [Double] = []
        var rss: [Int] = []
        var daemon: DaemonRun? = nil
        for i in 0..<3 {
            daemon?.stop()
            let d = try DaemonRun(dir: dir, database: database, notify: true)
            times.append(d.startSeconds)
            usleep(200_000) // let start-up work that follows READY settle before reading RSS
            if let r = d.rss { rss.append(r) }
            daemon = d
            _ = i
        }
        let medianRSS = Stats(rss.map(Double.init)).median
        report("start → READY=1, \(label)", times, extra: "RSS \(formatMiB(Int(medianRSS)))")
        return Starts(median: Stats(times).median, rss: Int(medianRSS), daemon: daemon!)
    }
}
