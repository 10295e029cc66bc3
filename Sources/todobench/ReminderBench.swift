import Foundation
import TodoCore
import TodoPosix
import TodoProtocol
import TodoSystemd

#if canImport(Glibc)
    import Glibc
#endif

/// P4: how late reminders reach a `watch` subscriber, for a burst due in the same second and for
/// the same number spread over a span, and whether each fires exactly once.
enum ReminderBench {
    static func run(count: Int, spreadSeconds: Int, leadSeconds: Int) throws {
        print("== reminder lateness (P4): \(count) due in the same second, \(count) spread over \(spreadSeconds) s")
        let journal = UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket")
        if !journal {
            Summary.note(
                "no journald socket: reminders went to todod's stderr, not the journal (run scripts/bench, which starts one)"
            )
        }
        let dir = try TempDir("p4")
        let daemon = try DaemonRun(dir: dir)
        defer { daemon.stop() }
        let control = try daemon.connect()

        let burst = try round(daemon, control, label: "same second", count: count, lead: leadSeconds) { _ in 0 }
        let step = Int64(spreadSeconds) * 1_000_000 / Int64(count)
        let spread = try round(
            daemon, control, label: "spread over \(spreadSeconds) s", count: count, lead: leadSeconds
        ) { i in Int64(i) * step }
        let floor = journal ? journalFloor(count: count) : nil // last, so its entries disturb neither round

        for (name, r) in [
            ("\(formatCount(count)) due in the same second", burst),
            ("\(formatCount(count)) spread over \(spreadSeconds) s", spread)
        ] {
            let s = Stats(r.lateness)
            let once = r.missing == 0 && r.duplicates == 0
            var peer = "daemon's own p99 " + formatSeconds(Stats(r.reported).percentile(99))
            var ratio = "—"
            if let floor, r.spread == 0 {
                peer = "journal floor p99 \(formatSeconds(floor.percentile(99))); " + peer
                ratio = String(format: "%.2f×", s.percentile(99) / floor.percentile(99))
            }
            Summary.add(
                "P4 lateness p50/p99/max, \(name)",
                value: "\(formatSeconds(s.median)) / \(formatSeconds(s.percentile(99))) / \(formatSeconds(s.max))",
                peer: peer, ratio: ratio, goal: "p99 ≤ 5 ms, each once", met: s.percentile(99) <= 0.005 && once)
            if !once { Summary.note("P4 \(name): \(r.missing) missing, \(r.duplicates) duplicated") }
        }
    }

    /// The journal's own pace: `count` entries shaped like reminders (the same eleven fields and
    /// sizes, but no reminder MESSAGE_ID, so `todoctl reminders` never lists them) sent in a row
    /// through the daemon's `Journal.send`. Entry k's figure is when its send returned, counted
    /// from the start: what the k-th reminder of a same-second burst would be late if the daemon
    /// did nothing but send.
    static func journalFloor(count: Int) -> Stats {
        let run = "\(getpid())-\(Instant.now().usec)"
        var done: [Double] = []
        done.reserveCapacity(count)
        let start = Measure.now()
        for i in 0..<count {
            let id = String(1_000_000 + i)
            let title = "bench floor \(run) 牛乳を買う \(i)"
            let due = Instant.now()
            _ = Journal.send([
                ("MESSAGE", "Todo \(id) “\(title)” is due at 2026-12-01 18:00 +09:00."),
                ("TODOBENCH_FLOOR", run),
                ("PRIORITY", "5"),
                ("SYSLOG_IDENTIFIER", "todobench"),
                ("TODO_ID", id),
                ("TODO_TITLE", title),
                ("TODO_CATEGORY", "Home"),
                ("TODO_DUE", due.rfc3339(fractional: true)),
                ("TODO_DUE_USEC", String(due.usec)),
                ("TODO_REMIND_USEC", String(due.usec)),
                ("TODO_LATE_USEC", String(i))
            ])
            done.append(Measure.now() - start)
        }
        let s = Stats(done)
        print(
            "  journal floor: \(formatCount(count)) reminder-shaped entries sent in a row: p50 \(formatSeconds(s.median))  p99 \(formatSeconds(s.percentile(99)))  (\(formatSeconds(s.max / Double(count))) per entry)"
        )
        return s
    }

    struct Result {
        /// Microseconds between the first and the last reminder of the round.
        var spread: Int64 = 0
        var lateness: [Double] = [] // seconds: arrival at the bench − remind
        var reported: [Double] = [] // seconds: the event's lateUsec
        var missing = 0
        var duplicates = 0
    }

    /// Imports `count` todos whose reminders fall at T + offset(i) (T a whole second, `lead` s away)
    /// and collects their reminder events from a separate `watch` connection.
    static func round(
        _ daemon: DaemonRun, _ control: LineConnection, label: String, count: Int, lead: Int,
        offset: (Int) -> Int64
    ) throws -> Result {
        let watcher = try daemon.connect()
        try watcher.rpc(Method.watch.name, ["events": [.string(EventType.reminder.name)]])
        let now = Instant.now()
        let t = Instant(seconds: now.seconds + Int64(lead) + 1)
        var remindByTitle: [String: Int64] = [:]
        var entries: [JSON] = []
        let tag = "r\(getpid())-\(now.usec % 1_000_000)"
        var last = t
        for i in 0..<count {
            let remind = t.adding(usec: offset(i))
            last = max(last, remind)
            let title = "reminder \(tag) \(i)"
            remindByTitle[title] = remind.usec
            let instant = remind.rfc3339(fractional: true)
            entries.append([
                "title": .string(title), "created": .string(now.rfc3339(fractional: true)), "due": .string(instant),
                "remind": .string(instant)
            ])
        }
        try control.rpc(
            Method.storeImport.name,
            ["format": "todod-export", "version": 1, "categories": [], "todos": .array(entries)])
        guard Instant.now() < t else { throw BenchError("importing took longer than the lead time of \(lead) s") }

        // Read events until every reminder came or 10 s after the last was due.
        var arrivals: [(Int64, [UInt8])] = []
        arrivals.reserveCapacity(count)
        let deadline = last.adding(usec: 10_000_000)
        while Instant.now() < deadline {
            do {
                let line = try watcher.readLine(waitMilliseconds: 200)
                arrivals.append((Instant.now().usec, line))
                if arrivals.count >= count {
                    // Give duplicates a moment to show up.
                    if let extra = try? watcher.readLine(waitMilliseconds: 300) {
                        arrivals.append((Instant.now().usec, extra))
                    }
                    break
                }
            } catch let error as BenchError where error.isTimeout {
                continue
            }
        }

        var result = Result()
        result.spread = last.usec - t.usec
        var seen: [String: Int] = [:]
        for (arrival, line) in arrivals {
            guard let params = try parse(line, what: Method.watch.name)["params"],
                params["type"]?.stringValue == EventType.reminder.name,
                let title = params["todo"]?["title"]?.stringValue, let remind = remindByTitle[title]
            else { continue }
            seen[title, default: 0] += 1
            if seen[title]! > 1 {
                result.duplicates += 1
                continue
            }
            result.lateness.append(Double(arrival - remind) / 1e6)
            if let late = params["lateUsec"]?.intValue { result.reported.append(Double(late) / 1e6) }
        }
        result.missing = count - seen.count
        let s = Stats(result.lateness)
        let r = Stats(result.reported)
        print(
            "  \(label): \(seen.count) of \(count) arrived, \(result.duplicates) duplicates, \(result.missing) missing")
        print(
            "    at the bench (arrival − remind): min \(formatSeconds(s.min))  p50 \(formatSeconds(s.median))  p99 \(formatSeconds(s.percentile(99)))  max \(formatSeconds(s.max))"
        )
        print(
            "    daemon's lateUsec:               min \(formatSeconds(r.min))  p50 \(formatSeconds(r.median))  p99 \(formatSeconds(r.percentile(99)))  max \(formatSeconds(r.max))"
        )
        return result
    }
}
