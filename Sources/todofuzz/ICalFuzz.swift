import Foundation
import TodoCalendar
import TodoCore
import TodoICal
import TodoTime

// `todofuzz --ical`: hostile iCalendar files and RRULEs through the reader, the writer and the
// recurrence code, in this process (no daemon). Batches run in forked children, so a trap ends
// only its batch; the batch is then halved until the one input that traps is found. See
// docs/FUZZING.md.
#if canImport(Glibc)
    import Glibc
#endif

enum ICalFuzz {
    struct Options {
        var inputs = 1_000_000
        var seed = UInt64.random(in: 0...UInt64.max)
        var batch = 20_000
        var dump: Int?
        var quiet = false
        /// An input slower than this (seconds) is a hang.
        var hangSeconds = 2.0
    }

    static let usage = """
        Usage: todofuzz --ical [--inputs N] [--seed S] [--batch B] [--quiet]
               todofuzz --ical --seed S --dump INPUT

        Runs N (default 1000000) generated iCalendar files and RRULEs (hostile values, mutated
        lines and bytes) through the iCalendar reader and writer and the recurrence code, from a
        generator seeded with S (random by default, always printed). Batches of B (default 20000)
        inputs run in forked children: a trap ends its batch, which is then halved until the one
        input is found. An input that takes over 2 s of CPU is a hang. Exits 0 only with no crash and
        no hang. --dump writes input INPUT (counting from 0) to standard output.
        """

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        func fail(_ message: String) -> Never {
            warn("todofuzz: \(message)\n\(usage)\n")
            exit(2)
        }
        func value() -> String {
            i += 1
            guard i < args.count else { fail("option '\(args[i - 1])' needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--ical": break
            case "--inputs":
                guard let n = Int(value()), n > 0 else { fail("--inputs needs a positive number") }
                o.inputs = n
            case "--seed":
                guard let s = UInt64(value()) else { fail("--seed needs a number from 0 to 2^64-1") }
                o.seed = s
            case "--batch":
                guard let n = Int(value()), n > 0 else { fail("--batch needs a positive number") }
                o.batch = n
            case "--dump":
                guard let n = Int(value()), n >= 0 else { fail("--dump needs an input number") }
                o.dump = n
            case "--quiet": o.quiet = true
            case "--help", "-h":
                say(usage)
                exit(0)
            default: fail("unknown argument '\(args[i])'")
            }
            i += 1
        }
        return o
    }

    /// What one batch found, sent from the child to the parent through a pipe.
    struct BatchResult {
        var files = 0, rules = 0, readOK = 0, rulesOK = 0, reread = 0, rereadFailed = 0
        var slowest = 0.0, slowestInput = -1
        /// The slowest RRULE input (parse, occurrences, advance): what a rule can cost.
        var slowestRule = 0.0, slowestRuleInput = -1
        var rereadSample = ""

        var encoded: String {
            "\(files) \(rules) \(readOK) \(rulesOK) \(reread) \(rereadFailed) \(slowest) \(slowestInput) \(slowestRule) \(slowestRuleInput)\n\(rereadSample)"
        }
        init() {}
        init?(_ text: String) {
            let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            let f = lines.first?.split(separator: " ") ?? []
            guard f.count == 10, let a = Int(f[0]), let b = Int(f[1]), let c = Int(f[2]), let d = Int(f[3]),
                let e = Int(f[4]),
                let g = Int(f[5]), let h = Double(f[6]), let k = Int(f[7]), let l = Double(f[8]), let m = Int(f[9])
            else { return nil }
            (files, rules, readOK, rulesOK, reread, rereadFailed, slowest, slowestInput) = (a, b, c, d, e, g, h, k)
            (slowestRule, slowestRuleInput) = (l, m)
            rereadSample = lines.count > 1 ? String(lines[1]) : ""
        }
        mutating func add(_ o: BatchResult) {
            files += o.files
            rules += o.rules
            readOK += o.readOK
            rulesOK += o.rulesOK
            reread += o.reread
            rereadFailed += o.rereadFailed
            if o.slowest > slowest {
                slowest = o.slowest
                slowestInput = o.slowestInput
            }
            if o.slowestRule > slowestRule {
                slowestRule = o.slowestRule
                slowestRuleInput = o.slowestRuleInput
            }
            if rereadSample.isEmpty { rereadSample = o.rereadSample }
        }
    }

    static func main(_ args: [String]) -> Int32 {
        let o = parse(args)
        if let n = o.dump {
            let input = ICalInput.make(seed: o.seed, index: n)
            _ = try? TodoPosix_writeAll(input.bytes)
            // On standard error: what the reader says, and a written copy it cannot read again.
            let reader = ICalReader(zone: zones[n % zones.count], zoneName: nil, now: Instant(seconds: 1_796_000_000))
            do {
                for item in try reader.items(input.bytes) {
                    let text = ICalWriter().calendar([item.entry])
                    do { _ = try reader.items(Array(text.utf8)) } catch {
                        warn("todofuzz: written back, not readable again: \(error)\n\(text)\n")
                    }
                }
            } catch {
                warn("todofuzz: refused: \(error)\n")
            }
            return 0
        }
        say(
            "todofuzz --ical: seed \(o.seed), \(o.inputs) inputs (replay: todofuzz --ical --seed \(o.seed) --inputs \(o.inputs))"
        )
        let started = now()
        var total = BatchResult()
        var crashes: [String] = []
        var start = 0
        while start < o.inputs {
            let end = min(start + o.batch, o.inputs)
            switch runBatch(o, start..<end) {
            case .success(let r): total.add(r)
            case .failure(let why):
                // Halve the batch until the one input is found, then go on after it.
                var range = start..<end
                var reason = why
                while range.count > 1 {
                    let mid = range.lowerBound + range.count / 2
                    if case .failure(let w) = runBatch(o, range.lowerBound..<mid) {
                        range = range.lowerBound..<mid
                        reason = w
                    } else {
                        range = mid..<range.upperBound
                    }
                }
                let bad = range.lowerBound
                if case .failure(let w) = runBatch(o, bad..<(bad + 1)) { reason = w }
                crashes.append("input \(bad): \(reason) (todofuzz --ical --seed \(o.seed) --dump \(bad) > input.ics)")
                if case .success(let r) = runBatch(o, start..<bad) { total.add(r) }
                if bad + 1 < end, case .success(let r) = runBatch(o, (bad + 1)..<end) { total.add(r) }
            }
            if !o.quiet {
                say(String(format: "  %d inputs, %d crashes, %.0f s", end, crashes.count, now() - started))
            }
            start = end
        }
        let elapsed = now() - started
        say("todofuzz --ical: seed \(o.seed)")
        say(
            "  inputs          \(o.inputs) in \(String(format: "%.1f", elapsed)) s: \(total.files) files (\(total.readOK) read, the rest refused with a line error), \(total.rules) rules (\(total.rulesOK) accepted)"
        )
        say(
            "  written back    \(total.reread) todos written and read again, \(total.rereadFailed) not readable again\(total.rereadSample.isEmpty ? "" : ": " + total.rereadSample)"
        )
        say(
            String(
                format:
                    "  slowest input   %.3f ms of CPU (input %d); slowest rule %.3f ms (input %d: parse, words, next, 10 occurrences, upcoming, 2 advances)",
                total.slowest * 1000, total.slowestInput, total.slowestRule * 1000, total.slowestRuleInput))
        say("  crashes         \(crashes.count)\(crashes.isEmpty ? "" : ": " + crashes.joined(separator: "; "))")
        let ok = crashes.isEmpty && total.rereadFailed == 0
        say("todofuzz --ical: \(ok ? "PASS" : "FAIL")")
        return ok ? 0 : 1
    }

    enum Outcome {
        case success(BatchResult)
        case failure(String)
    }

    /// Runs inputs `range` in a forked child; a signal, an exit other than 0 or a hang is a failure.
    static func runBatch(_ o: Options, _ range: Range<Int>) -> Outcome {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return .failure("pipe failed") }
        let pid = fork()
        if pid == 0 {
            close(fds[0])
            let result = runInputs(o, range)
            let bytes = Array(result.encoded.utf8)
            var off = 0
            while off < bytes.count {
                let n = bytes[off...].withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
                if n <= 0 { break }
                off += n
            }
            _exit(0)
        }
        close(fds[1])
        guard pid > 0 else {
            close(fds[0])
            return .failure("fork failed")
        }
        // Read the child's answer with a deadline: the batch's inputs each get the hang limit.
        let deadline = now() + o.hangSeconds * Double(max(1, range.count / 1000)) + 60
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var hung = false
        while true {
            var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            let left = deadline - now()
            if left <= 0 {
                hung = true
                break
            }
            let r = poll(&p, 1, Int32(min(left, 1) * 1000))
            if r == 0 { continue }
            if r < 0 {
                if errno == EINTR { continue }
                break
            }
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        close(fds[0])
        if hung { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if hung { return .failure("a hang (no answer within the time limit)") }
        let signal = status & 0x7F
        if signal != 0 {
            return .failure("signal \(signal)\(signal == SIGILL || signal == SIGTRAP ? " (a Swift trap)" : "")")
        }
        let code = (status >> 8) & 0xFF
        guard code == 0, let result = BatchResult(String(decoding: data, as: UTF8.self)) else {
            return .failure("exit \(code)")
        }
        if result.slowest > o.hangSeconds {
            return .failure(String(format: "a hang (input %d took %.1f s)", result.slowestInput, result.slowest))
        }
        return .success(result)
    }

    /// CPU time of this thread: what an input costs, whatever else the machine runs.
    static func cpuSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static let zones: [ZoneInfo] = [
        "UTC", "Asia/Tokyo", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
        "Pacific/Kiritimati", "Pacific/Apia", "America/St_Johns"
    ].compactMap { ZoneInfo(identifier: $0) }

    static func runInputs(_ o: Options, _ range: Range<Int>) -> BatchResult {
        var r = BatchResult()
        let writer = ICalWriter()
        for index in range {
            let input = ICalInput.make(seed: o.seed, index: index)
            let zone = zones[index % zones.count]
            let t0 = cpuSeconds()
            switch input.kind {
            case .file:
                r.files += 1
                let reader = ICalReader(zone: zone, zoneName: nil, now: Instant(seconds: 1_796_000_000))
                if let items = try? reader.items(input.bytes) {
                    r.readOK += 1
                    for item in items.prefix(8) {
                        // What an import and an export do with it: write it, read it back, advance it.
                        let text = writer.calendar([item.entry])
                        r.reread += 1
                        if (try? reader.items(Array(text.utf8))) == nil {
                            r.rereadFailed += 1
                            if r.rereadSample.isEmpty { r.rereadSample = "input \(index)" }
                        }
                        if let rec = item.entry.recurrence, let due = item.entry.due {
                            exercise(rule: rec.rule, due: due, zone: zone, index: index)
                        }
                    }
                }
            case .rule:
                r.rules += 1
                let text = String(decoding: input.bytes, as: UTF8.self)
                if (try? RecurrenceRule(parsing: text)) != nil { r.rulesOK += 1 }
                var rng = Rng(seed: o.seed ^ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
                let due = ICalInput.instant(&rng)
                exercise(rule: text, due: due, zone: zone, index: index)
            }
            let took = cpuSeconds() - t0
            if took > r.slowest {
                r.slowest = took
                r.slowestInput = index
            }
            if input.kind == .rule, took > r.slowestRule {
                r.slowestRule = took
                r.slowestRuleInput = index
            }
        }
        return r
    }

    /// Everything todod does with a rule: parse, words, the next occurrences, the agenda's
    /// window, completing it (from the due date and from completion, timed and all-day).
    static func exercise(rule text: String, due: Instant, zone: ZoneInfo, index: Int) {
        guard let rule = try? RecurrenceRule(parsing: text) else { return }
        _ = rule.text
        _ = rule.words(zone: zone)
        let after = Instant(usec: due.usec &+ Int64(index % 1000) * 86_400_000_000)
        _ = rule.next(after: after.isInRange ? after : due, start: due, zone: zone)
        _ = rule.occurrences(start: due, zone: zone, from: due, through: .latest, limit: 10, allDay: index % 2 == 0)
        _ = Recurrence.upcoming(
            TodoRecurrence(rule: text, from: .due), due: due, zone: zone, allDay: index % 3 == 0, count: 5)
        for fromCompletion in [false, true] {
            _ = try? Recurrence.advance(
                rule: text, fromCompletion: fromCompletion, due: due, zone: zone,
                completed: after.isInRange ? after : due, allDay: index % 2 == 1)
        }
        _ = try? Recurrence.firstDate(rule: text, onOrAfter: LocalTime(due, in: zone).days)
    }
}

/// Writes all of `bytes` to standard output.
func TodoPosix_writeAll(_ bytes: [UInt8]) throws {
    var off = 0
    while off < bytes.count {
        let n = bytes[off...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if n <= 0 { return }
        off += n
    }
}

/// One generated input: an iCalendar file or an RRULE text, from the run seed and its number alone.
struct ICalInput {
    /// Whether the file being generated uses only values the reader accepts (one thread makes inputs).
    nonisolated(unsafe) static var sane = false
    static var dates: [String] { sane ? saneDates : allDates }
    static var durations: [String] { sane ? saneDurations : allDurations }
    static var numbers: [String] { sane ? saneNumbers : allNumbers }
    enum Kind { case file, rule }
    var kind: Kind
    var bytes: [UInt8]

    static func make(seed: UInt64, index: Int) -> ICalInput {
        var rng = Rng(seed: seed, worker: index)
        if rng.chance(0.3) {
            sane = false
            return ICalInput(kind: .rule, bytes: Array(rrule(&rng).utf8))
        }
        var lines = file(&rng)
        if sane { return ICalInput(kind: .file, bytes: Array(lines.joined(separator: "\r\n").utf8)) }
        // Line mutations: drop, duplicate, swap, cut.
        for _ in 0..<rng.int(0...3) where !lines.isEmpty {
            let i = rng.below(lines.count)
            switch rng.below(5) {
            case 0: lines.remove(at: i)
            case 1: lines.insert(lines[i], at: i)
            case 2: lines.swapAt(i, rng.below(lines.count))
            case 3: lines[i] = String(lines[i].prefix(rng.below(lines[i].count + 1)))
            default: lines.insert(property(&rng), at: i)
            }
        }
        var bytes = Array(lines.joined(separator: rng.chance(0.8) ? "\r\n" : "\n").utf8)
        // Byte mutations, now and then.
        if rng.chance(0.15), !bytes.isEmpty {
            for _ in 0..<rng.int(1...4) {
                let i = rng.below(bytes.count)
                switch rng.below(4) {
                case 0: bytes[i] ^= UInt8(1 << rng.below(8))
                case 1: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
                case 2: bytes.remove(at: i)
                default: bytes.insert(contentsOf: [0x0D, 0x0A, 0x20], at: i)
                }
                if bytes.isEmpty { break }
            }
        }
        return ICalInput(kind: .file, bytes: bytes)
    }

    static let allDates = [
        "20261201", "20261201T090000", "20261201T090000Z", "00010101", "00010101T000000Z", "99991231",
        "99991231T235959Z", "99991231T235959", "00000000", "20260230", "2026121", "20261301", "20261201T246000",
        "20261201T235960Z", "20261201T235960", "19700101T000000Z", "16010101T000000", "20250329T023000",
        "20251026T023000", "2026-12-01", "20261201T0900", "", "T", "99999999999999999999", "20240229"
    ]
    static let allDurations = [
        "-P999999999D", "P999999999W", "-P999999999W999999999D", "-PT15M", "PT0S", "P", "PT", "P1DT",
        "+P1D", "P1.5D", "P-1D", "-PT999999999H999999999M999999999S", "P1W2D", "PT9H",
        String(repeating: "P999999999W", count: 1) + String(repeating: "999999999W", count: 40), "-P0D", "P2D"
    ]
    static let allNumbers = [
        "-1", "0", "1", "5", "9", "10", "100", "", "99999999999999999999", "-9223372036854775808",
        "9223372036854775807", "1e3", " 5 ", "+4", "-0", "４"
    ]
    static var tzids: [String] {
        sane ? ["Europe/Berlin", "Asia/Tokyo", "/mozilla.org/20050126_1/Europe/Berlin", "America/New_York"] : allTZIDs
    }
    static let allTZIDs = [
        "Europe/Berlin", "/mozilla.org/20050126_1/Europe/Berlin", "W. Europe Standard Time", "Custom", "Asia/Tokyo",
        "../../../etc/passwd", "Mars/Olympus", "America/New_York", String(repeating: "x/", count: 100)
    ]

    /// Values every reader takes, for the half of the files that should get past the reader.
    static let saneDates = [
        "20261201", "20261201T090000", "20261201T090000Z", "00010101", "99991231T235959Z", "20250329T023000",
        "20251026T023000", "20240229", "16010101T000000", "99991231"
    ]
    static let saneDurations = [
        "-P999999999D", "P999999999W", "-PT15M", "PT0S", "P1W2D", "PT9H", "-P0D", "P2D", "-PT999999999H"
    ]
    static let saneNumbers = ["0", "1", "5", "9", "", "4"]

    static func file(_ rng: inout Rng) -> [String] {
        sane = rng.chance(0.5)
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//todofuzz//EN"]
        if rng.chance(0.4), !sane { lines += vtimezone(&rng) }
        for t in 0..<rng.int(1...3) {
            if rng.chance(0.1) {
                lines += ["BEGIN:VEVENT", "UID:e\(t)", "SUMMARY:event", "DTSTART:\(rng.pick(dates))", "END:VEVENT"]
                continue
            }
            lines.append("BEGIN:VTODO")
            lines.append(
                "UID:"
                    + (rng.chance(0.9) || sane
                        ? "fuzz-\(t)@example.org" : rng.pick(["", " ", "a b", String(repeating: "u", count: 300)])))
            if rng.chance(0.9) {
                lines.append(
                    "SUMMARY:"
                        + rng.pick(["Todo", "タスク", "", "a\\,b\\;c\\n", "\u{200B}", String(repeating: "長", count: 1200)])
                )
            }
            if rng.chance(0.5) { lines.append("RECURRENCE-ID:" + rng.pick(dates)) }
            for _ in 0..<rng.int(0...10) { lines.append(property(&rng)) }
            if rng.chance(0.5) { lines += alarm(&rng) }
            lines.append("END:VTODO")
        }
        lines.append("END:VCALENDAR")
        return lines
    }

    static func property(_ rng: inout Rng) -> String {
        switch rng.below(sane ? 19 : 20) {
        case 0: return "DUE" + dateParameters(&rng) + ":" + rng.pick(dates)
        case 1: return "DTSTART" + dateParameters(&rng) + ":" + rng.pick(dates)
        case 2: return "COMPLETED:" + rng.pick(dates)
        case 3: return rng.pick(["PERCENT-COMPLETE", "PERCENT_COMPLETE", "PRIORITY"]) + ":" + rng.pick(numbers)
        case 4: return "STATUS:" + rng.pick(["COMPLETED", "NEEDS-ACTION", "CANCELLED", "IN-PROCESS", "", "x"])
        case 5: return "RRULE:" + rrule(&rng)
        case 6:
            return "CATEGORIES:"
                + rng.pick(["Home Office", "a\\,b", "仕事,家", "", ",,", String(repeating: "c,", count: 100)])
        case 7: return "X-TODOD-CATEGORY:" + rng.pick(["", "仕事", "Home Office"])
        case 8: return "X-APPLE-SORT-ORDER:" + rng.pick(numbers)
        case 9: return rng.pick(["CREATED", "LAST-MODIFIED", "DTSTAMP"]) + ":" + rng.pick(dates)
        case 10: return "X-TODOD-ZONE:" + rng.pick(tzids)
        case 11: return "DURATION:" + rng.pick(durations)
        case 12: return "EXDATE" + dateParameters(&rng) + ":" + rng.pick(dates) + "," + rng.pick(dates)
        case 13: return "RDATE" + dateParameters(&rng) + ":" + rng.pick(dates)
        case 14: return "X-TODOD-RECUR-FROM:" + rng.pick(["COMPLETION", "DUE", ""])
        case 15:
            return "DESCRIPTION;LANGUAGE=ja:"
                + (rng.chance(0.02) ? String(repeating: "d", count: 70_000) : rng.pick(["メモ", "", "\\n\\n", "長い説明"]))
        case 16: return "GEO:37.386013;-122.082932"
        case 17: return "ATTACH;FMTTYPE=text/plain;ENCODING=BASE64;VALUE=BINARY:" + rng.word(rng.int(0...200))
        case 18:
            return "X-" + rng.word(rng.int(1...10)).replacingOccurrences(of: " ", with: "-") + ":"
                + rng.word(rng.int(0...40))
        default:
            return rng.pick(["SUMMARY", "UID", "DUE", "TRIGGER", "BEGIN", "END", "X-A"])
                + rng.pick([";X=\"a:b\"", ";Y=", ";=", ";\"", ""]) + rng.pick([":", "", "::"])
                + rng.word(rng.int(0...10))
        }
    }

    static func dateParameters(_ rng: inout Rng) -> String {
        switch rng.below(5) {
        case 0: return ";VALUE=DATE"
        case 1, 2: return ";TZID=" + ContentLineValue.quoted(rng.pick(tzids))
        case 3: return ";VALUE=DATE-TIME"
        default: return ""
        }
    }

    static func alarm(_ rng: inout Rng) -> [String] {
        var lines = ["BEGIN:VALARM", "ACTION:" + rng.pick(["DISPLAY", "AUDIO", "EMAIL", ""])]
        switch rng.below(4) {
        case 0: lines.append("TRIGGER:" + rng.pick(durations))
        case 1: lines.append("TRIGGER;RELATED=" + rng.pick(["END", "START", "x"]) + ":" + rng.pick(durations))
        case 2: lines.append("TRIGGER;VALUE=DATE-TIME:" + rng.pick(dates))
        default: lines.append("TRIGGER:" + rng.pick(dates))
        }
        if rng.chance(0.5) { lines.append("ACKNOWLEDGED:" + rng.pick(dates)) }
        if rng.chance(0.3) { lines.append("REPEAT:" + rng.pick(numbers)) }
        if rng.chance(0.3) { lines.append("DURATION:" + rng.pick(durations)) }
        lines.append("END:VALARM")
        return lines
    }

    static func vtimezone(_ rng: inout Rng) -> [String] {
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + rng.pick(tzids)]
        for _ in 0..<rng.int(0...4) {
            let kind = rng.pick(["STANDARD", "DAYLIGHT"])
            lines.append("BEGIN:" + kind)
            if rng.chance(0.95) { lines.append("DTSTART:" + rng.pick(dates)) }
            let offsets = ["+0100", "+0200", "-0500", "+2359", "-2400", "+9999", "+01", "+010000", "+0545", "", "+0060"]
            if rng.chance(0.95) { lines.append("TZOFFSETFROM:" + rng.pick(offsets)) }
            if rng.chance(0.95) { lines.append("TZOFFSETTO:" + rng.pick(offsets)) }
            if rng.chance(0.6) {
                lines.append(
                    "RRULE:FREQ=YEARLY;BYMONTH=" + rng.pick(["3", "10", "0", "13", "99999999999999999999", "-1"])
                        + ";BYDAY="
                        + rng.pick(["-1SU", "2SU", "SU", "9223372036854775807SU", "-9223372036854775808SU", "0SU", "X"])
                        + (rng.chance(0.3) ? ";BYMONTHDAY=" + rng.pick(["8,9,10,11,12,13,14", "-1", "99"]) : "")
                        + (rng.chance(0.3) ? ";UNTIL=" + rng.pick(dates) : ""))
            }
            if rng.chance(0.3) {
                lines.append("RDATE:" + (0..<rng.int(1...20)).map { _ in rng.pick(dates) }.joined(separator: ","))
            }
            lines.append("END:" + kind)
        }
        lines.append("END:VTIMEZONE")
        return lines
    }

    static let frequencies = ["DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY", "SECONDLY", "", "daily", "X"]

    /// An RRULE value: plausible parts with hostile values, in any order, sometimes repeated.
    static func rrule(_ rng: inout Rng) -> String {
        var parts: [String] = []
        if rng.chance(0.95) { parts.append("FREQ=" + rng.pick(frequencies)) }
        let choices: [(inout Rng) -> String] = [
            { "INTERVAL=" + $0.pick(["1", "2", "7", "1000", "1001", "0", "-1", "99999999999999999999", "365", "400"]) },
            { "COUNT=" + $0.pick(["1", "3", "100000", "100001", "0", "-5", "99999999999999999999"]) },
            { "UNTIL=" + $0.pick(dates) },
            { r in
                "BYDAY="
                    + (0..<r.int(1...4)).map { _ in
                        r.pick(["", "1", "-1", "2", "5", "-5", "53", "-53", "54", "+3", "0"])
                            + r.pick(["MO", "TU", "WE", "TH", "FR", "SA", "SU", "XX"])
                    }.joined(separator: ",")
            },
            { r in
                "BYMONTHDAY="
                    + (0..<r.int(1...3)).map { _ in r.pick(["1", "15", "29", "30", "31", "-1", "-31", "0", "32"]) }
                    .joined(separator: ",")
            },
            { r in
                "BYMONTH="
                    + (0..<r.int(1...3)).map { _ in r.pick(["1", "2", "4", "12", "0", "13"]) }.joined(separator: ",")
            },
            { r in
                "BYSETPOS="
                    + (0..<r.int(1...3)).map { _ in r.pick(["1", "-1", "2", "5", "366", "367", "-366", "0"]) }.joined(
                        separator: ",")
            },
            { "WKST=" + $0.pick(["MO", "SU", "XX", ""]) },
            { "BYHOUR=" + $0.pick(["9", "25"]) },
            { "RSCALE=" + $0.pick(["GREGORIAN", "CHINESE"]) },
            { $0.word($0.int(0...8)) }
        ]
        for _ in 0..<rng.int(0...5) { parts.append(rng.pick(choices)(&rng)) }
        if rng.chance(0.2) { parts.shuffle(using: &rng) }
        return parts.joined(separator: rng.chance(0.97) ? ";" : ";;")
    }

    /// A start instant: ordinary dates, and the edges of the years 0001 and 9999.
    static func instant(_ rng: inout Rng) -> Instant {
        switch rng.below(4) {
        case 0: return Instant(usec: Instant.latest.usec - Int64(rng.below(400)) * 86_400_000_000)
        case 1: return Instant(usec: Instant.earliest.usec + Int64(rng.below(400)) * 86_400_000_000)
        default: return Instant(seconds: 1_700_000_000 + Int64(rng.below(400_000_000)))
        }
    }
}

/// A parameter value quoted where it must be (a `:` `;` or `,` inside).
enum ContentLineValue {
    static func quoted(_ v: String) -> String { v.contains(where: { ":;,".contains($0) }) ? "\"" + v + "\"" : v }
}

extension Rng: RandomNumberGenerator {}
