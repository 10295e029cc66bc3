import Foundation
import TodoCore
import TodoPosix
@_spi(Benchmark) import TodoStore

/// `todobench --write-cost`: the pages (WAL frames) a durable add writes, on a store that
/// already holds `seed` todos, with the adds grouped `batch` to a transaction, each in its own
/// savepoint, as the daemon's group commit runs them (about 8 per commit with 16 clients, 1 with
/// one client). Titles as P2's clients send them. Deterministic: the same code gives the same
/// count on any machine, so it compares commits where timings on a shared machine cannot. Run it
/// under callgrind with two `--adds` values for the instructions of one add.
enum WriteCostBench {
    static func run(seed: Int, adds: Int, batch: Int, changeLog: Bool) throws {
        let dir = try TempDir("write-cost")
        let store = try TodoStore(path: dir.file("cost.db"), changeLog: changeLog)
        defer { store.close() }
        var made = 0
        while made < seed {
            let n = min(500, seed - made)
            try store.write { tx in
                for i in made..<(made + n) { _ = try tx.add(NewTodo(title: "bench add \(i % 16)-\(i / 16)")) }
            }
            made += n
        }
        var done = 0
        let start = Measure.now()
        let frames = try store.walFrames {
            while done < adds {
                let n = min(batch, adds - done)
                try store.write { tx in
                    for i in done..<(done + n) {
                        let j = seed + i
                        _ = try tx.savepoint { () throws(TodoError) in
                            // As the daemon: the add, then the seq its event carries.
                            (try tx.add(NewTodo(title: "bench add \(j % 16)-\(j / 16)")), try tx.currentSeq())
                        }
                    }
                }
                done += n
            }
        }
        let elapsed = Measure.now() - start
        let commits = (adds + batch - 1) / batch
        print(
            String(
                format:
                    "write cost: %d adds on %d todos, %d per commit, change log %@: %d WAL pages, %.2f per add, %.1f per commit (%.0f adds/s)",
                adds, seed, batch, changeLog ? "on" : "off", frames, Double(frames) / Double(adds),
                Double(frames) / Double(commits), Double(adds) / elapsed))
    }
}
