import TodoCore
import TodoTime

/// The VTIMEZONE components a calendar needs: one for each TZID its lines use, generated from
/// the tz database for a zone known here (the offset at the start of the span, each change of
/// the zone's table within it, and from where the zone's yearly rule holds, a DAYLIGHT and a
/// STANDARD observance with that rule as RRULE, so a reader without the tz database expands
/// recurrences right in every later year), else the VTIMEZONE the TZID came with (kept with the
/// todo as `~` lines).
struct ZoneDefinitions {
    let tzdir: String?
    /// The earliest and latest local times (seconds) written with each TZID; nil when no line
    /// with it has a date todod reads.
    private var spans: [String: (low: Int64, high: Int64)?] = [:]
    /// Kept VTIMEZONEs by TZID.
    private var kept: [String: [String]] = [:]

    init(tzdir: String?) { self.tzdir = tzdir }

    /// Notes the TZID of unfolded line `raw` and the local time it names, when it has a TZID.
    mutating func note(_ raw: String) {
        // Only a line with parameters (a `;` before its first `:`) can name a TZID.
        let utf8 = raw.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
            let semicolon = utf8[..<colon].firstIndex(of: UInt8(ascii: ";"))
        else { return }
        // The lines todod writes itself (`DUE;TZID=Europe/Berlin:20261201T090000`) without a full parse.
        let parameter = utf8[utf8.index(after: semicolon)..<colon]
        if parameter.starts(with: "TZID=".utf8),
            !parameter.contains(where: { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "\"") }),
            let local = Self.localSeconds(utf8[utf8.index(after: colon)...])
        {
            let tzid = String(decoding: parameter.dropFirst(5), as: UTF8.self)
            let old = spans[tzid] ?? nil
            spans[tzid] = (min(old?.low ?? local, local), max(old?.high ?? local, local))
            return
        }
        guard
            let line = try? ContentLine(parsing: raw, number: 0), let tzid = line.parameter("TZID"), !tzid.isEmpty
        else { return }
        var first = line
        first.value = String(line.value.split(separator: ",").first ?? "")
        guard case .local(let days, let second, _)? = try? ICalDate.parse(first) else {
            if spans[tzid] == nil { spans[tzid] = .some(nil) }
            return
        }
        let local = days * 86_400 + second
        let old = spans[tzid] ?? nil
        spans[tzid] = (min(old?.low ?? local, local), max(old?.high ?? local, local))
    }

    /// Local seconds of a `YYYYMMDDTHHMMSS` value, nil for anything else.
    static func localSeconds(_ v: Substring.UTF8View) -> Int64? {
        guard v.count == 15 else { return nil }
        var n: [Int64] = []
        n.reserveCapacity(14)
        for (i, b) in v.enumerated() {
            if i == 8 {
                guard b == UInt8(ascii: "T") else { return nil }
                continue
            }
            guard b >= 0x30, b <= 0x39 else { return nil }
            n.append(Int64(b - 0x30))
        }
        let y = n[0] * 1000 + n[1] * 100 + n[2] * 10 + n[3]
        let m = n[4] * 10 + n[5]
        let d = n[6] * 10 + n[7]
        let h = n[8] * 10 + n[9]
        let mi = n[10] * 10 + n[11]
        let sec = n[12] * 10 + n[13]
        guard y >= 1, (1...12).contains(m), d >= 1, d <= Instant.monthLength(year: y, month: m), h < 24, mi < 60,
            sec < 61,
            let days = Instant.days(year: y, month: m, day: d)
        else { return nil }
        return days * 86_400 + h * 3600 + mi * 60 + sec
    }

    /// Notes the VTIMEZONEs among the kept lines of a todo (`~` lines, prefix removed).
    mutating func keep(_ lines: [String]) {
        var block: [String] = []
        var tzid: String?
        var depth = 0
        for raw in lines {
            let upper = raw.uppercased()
            if upper.hasPrefix("BEGIN:") { depth += 1 } else if upper.hasPrefix("END:") { depth -= 1 }
            if depth == 1, upper.hasPrefix("TZID:") || upper.hasPrefix("TZID;") {
                tzid = (try? ContentLine(parsing: raw, number: 0))?.value
            }
            block.append(raw)
            if depth <= 0 {
                if let tzid, kept[tzid] == nil, block.first?.uppercased() == "BEGIN:VTIMEZONE" { kept[tzid] = block }
                block = []
                tzid = nil
                depth = 0
            }
        }
    }

    /// The VTIMEZONE lines (unfolded) of every TZID noted, by TZID.
    func components() -> [String] {
        let known = spans.values.compactMap { $0 }
        let all = known.isEmpty ? nil : (known.map(\.low).min()!, known.map(\.high).max()!)
        var out: [String] = []
        for (tzid, span) in spans.sorted(by: { $0.key < $1.key }) {
            if let zone = TimeZones.resolve(tzid, tzdir: tzdir)?.zone, let span = span ?? all {
                out += Self.generated(tzid, zone, low: span.low, high: span.high)
            } else if let k = kept[tzid] {
                out += ICalWriter.wellFormed(k)
            }
        }
        return out
    }

    /// A VTIMEZONE for `zone`, right for local times from the year before `low` to the year after `high`.
    static func generated(_ tzid: String, _ zone: ZoneInfo, low: Int64, high: Int64) -> [String] {
        let firstYear = max(1, VTimeZone.year(low) - 1)
        let lastYear = min(9999, VTimeZone.year(high) + 1)
        guard let firstDay = Instant.days(year: firstYear, month: 1, day: 1),
            let lastDay = Instant.days(year: lastYear, month: 12, day: 31)
        else { return [] }
        let start = firstDay * 86_400 - zone.secondsFromUTC(at: firstDay * 86_400)
        let end = lastDay * 86_400 + 86_399 - zone.secondsFromUTC(at: lastDay * 86_400)
        var lines = ["BEGIN:VTIMEZONE", ContentLine(name: "TZID", parameters: [], value: tzid).text]
        func observance(_ daylight: Bool, local: Int64, from: Int64, to: Int64, rule: String? = nil) {
            let days = VTimeZone.floorDays(local)
            lines += [
                daylight ? "BEGIN:DAYLIGHT" : "BEGIN:STANDARD",
                "DTSTART:" + ICalDate.dateText(days: days) + "T" + ICalDate.timeText(local - days * 86_400),
                "TZOFFSETFROM:" + offsetText(from), "TZOFFSETTO:" + offsetText(to)
            ]
            if let rule { lines.append("RRULE:" + rule) }
            lines.append(daylight ? "END:DAYLIGHT" : "END:STANDARD")
        }
        let initial = zone.secondsFromUTC(at: start)
        observance(zone.isDaylight(at: start), local: start + initial, from: initial, to: initial)
        let rule = zone.yearlyRule
        let ruleFrom = rule.map { max(start, $0.since ?? start) } ?? end + 1
        for c in zone.changes(from: start + 1, through: min(end, ruleFrom - 1)) {
            observance(c.isDaylight, local: c.utc + c.from, from: c.from, to: c.to)
        }
        if let rule {
            let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
            for (onset, daylight, from, to) in [
                (rule.daylightStart, true, rule.standardOffset, rule.daylightOffset),
                (rule.standardStart, false, rule.daylightOffset, rule.standardOffset)
            ] {
                // The first onset at or after the instant the rule holds from.
                var year = VTimeZone.year(ruleFrom + from)
                var local = onset.day(in: year) * 86_400 + onset.time
                if local - from < ruleFrom {
                    year += 1
                    local = onset.day(in: year) * 86_400 + onset.time
                }
                guard year <= 9999 else { continue }
                let ordinal = onset.week == 5 ? "-1" : String(onset.week)
                observance(
                    daylight, local: local, from: from, to: to,
                    rule: "FREQ=YEARLY;BYMONTH=\(onset.month);BYDAY=\(ordinal)\(weekdays[Int(onset.weekday)])")
            }
        }
        lines.append("END:VTIMEZONE")
        return lines
    }

    /// `+HHMM`, or `+HHMMSS` when the offset has seconds.
    static func offsetText(_ seconds: Int64) -> String {
        let v = seconds.magnitude
        let text =
            ICalDate.pad(Int64(v / 3600), 2) + ICalDate.pad(Int64(v / 60 % 60), 2)
            + (v % 60 == 0 ? "" : ICalDate.pad(Int64(v % 60), 2))
        return (seconds < 0 ? "-" : "+") + text
    }
}
