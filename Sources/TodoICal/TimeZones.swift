import TodoCore
import TodoTime

/// How `TZID`s are turned into instants: an IANA name this machine knows (also inside a prefixed
/// name such as `/mozilla.org/20050126_1/Europe/Berlin`), else the file's own `VTIMEZONE`. What a
/// TZID stands for is looked up once per file, so a file's cost grows with its size, not with
/// its size times its number of dates.
final class TimeZones {
    let tzdir: String?
    var vtimezones: [String: VTimeZone] = [:]
    /// Each VTIMEZONE's lines, by TZID.
    private var definitions: [String: [String]] = [:]
    /// The IANA name and zone of each TZID looked up so far (nil: none known here).
    private var known: [String: (name: String, zone: ZoneInfo)?] = [:]

    init(_ calendars: [Component], tzdir: String?) throws(ICalError) {
        self.tzdir = tzdir
        for cal in calendars {
            for c in cal.components where c.name == "VTIMEZONE" {
                guard let id = c.property("TZID")?.value, !id.isEmpty else {
                    throw ICalError(line: c.number, "VTIMEZONE without TZID")
                }
                vtimezones[id] = try VTimeZone(c)
                definitions[id] = c.rawLines
            }
        }
    }

    /// The IANA name `tzid` stands for, when this machine has such a zone.
    func ianaName(_ tzid: String) -> String? { iana(tzid)?.name }

    private func iana(_ tzid: String) -> (name: String, zone: ZoneInfo)? {
        if let found = known[tzid] { return found }
        let found = Self.resolve(tzid, tzdir: tzdir)
        known[tzid] = .some(found)
        return found
    }

    /// The IANA zone a TZID names on this machine: itself, the IANA name at the end of a
    /// prefixed one (`/mozilla.org/20050126_1/Europe/Berlin`), or the zone of a Windows name
    /// (`W. Europe Standard Time`); nil when none.
    static func resolve(_ tzid: String, tzdir: String?) -> (name: String, zone: ZoneInfo)? {
        if !tzid.hasPrefix("/"), let zone = ZoneInfo(identifier: tzid, tzdir: tzdir) { return (tzid, zone) }
        if let name = WindowsZones.iana[tzid.trimmingSpaces], let zone = ZoneInfo(identifier: name, tzdir: tzdir) {
            return (name, zone)
        }
        let parts = tzid.split(separator: "/")
        for n in [3, 2, 1] where parts.count > n {
            let name = parts.suffix(n).joined(separator: "/")
            if let zone = ZoneInfo(identifier: name, tzdir: tzdir) { return (name, zone) }
        }
        return nil
    }

    /// The offset in seconds a TZID such as `UTC+09:00`, `UTC-0500` or `GMT+9` names without a
    /// VTIMEZONE (Radicale's vobject writes a fixed-offset Python time so: python-caldav's
    /// `complete(completion_timestamp=...)` with a local time); nil for any other name.
    static func fixedOffset(_ tzid: String) -> Int64? {
        let name = tzid.trimmingSpaces.uppercased()
        guard name.hasPrefix("UTC") || name.hasPrefix("GMT") else { return nil }
        let rest = name.dropFirst(3)
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let digits = rest.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        let hours: Substring
        let minutes: Substring
        switch digits.count {
        case 1 where digits[0].count == 4: (hours, minutes) = (digits[0].prefix(2), digits[0].suffix(2))
        case 1 where (1...2).contains(digits[0].count): (hours, minutes) = (digits[0], "0")
        case 2 where (1...2).contains(digits[0].count) && digits[1].count == 2:
            (hours, minutes) = (digits[0], digits[1])
        default: return nil
        }
        guard hours.allSatisfy(\.isASCII), minutes.allSatisfy(\.isASCII), let h = Int64(hours), let m = Int64(minutes),
            h <= 18, m < 60
        else { return nil }
        return (sign == "-" ? -1 : 1) * (h * 3600 + m * 60)
    }

    /// The file's VTIMEZONE of `tzid` as it came, when the TZID names no zone known here (so
    /// that the lines using it stay valid where they are written back).
    func keptDefinition(_ tzid: String) -> [String]? {
        iana(tzid) == nil ? definitions[tzid] : nil
    }

    /// The instant of a local time in zone `tzid`.
    func instant(days: Int64, second: Int64, tzid: String, line: Int) throws(ICalError) -> Instant {
        if let zone = iana(tzid)?.zone, let i = LocalTime.instant(days: days, secondOfDay: second, in: zone) {
            return i
        }
        if let vtz = vtimezones[tzid] {
            return Instant(seconds: vtz.utcSeconds(local: days * 86_400 + second))
        }
        if let offset = Self.fixedOffset(tzid) {
            return Instant(seconds: days * 86_400 + second - offset)
        }
        throw ICalError(
            line: line, "TZID \(ContentLine.quote(tzid)) is neither a time zone known here nor given by a VTIMEZONE")
    }
}

/// A VTIMEZONE's observances (STANDARD and DAYLIGHT): their onsets from DTSTART, RDATE and a
/// yearly RRULE (BYMONTH with BYDAY, optionally BYMONTHDAY), enough for the zones calendar
/// programs write. The onsets of DTSTART and RDATE are sorted once; those of the rules are
/// computed once per year asked for.
final class VTimeZone {
    struct Observance {
        var start: Int64 // local seconds (in the offset before it)
        var from: Int64
        var to: Int64
        var month: Int64?
        var weekday: Int64? // 0 = Sunday
        var ordinal: Int64?
        var monthDays: [Int64]
        var until: Int64?
    }
    typealias Onset = (utc: Int64, to: Int64)
    /// The observances with a yearly rule.
    private var ruled: [Observance] = []
    /// Every DTSTART and RDATE onset, by UTC.
    private let fixed: [Onset]
    /// The offset before the first onset: the earliest observance's TZOFFSETFROM.
    private let initialOffset: Int64
    /// The rules' onsets of the years around a year (the year before to the year after), by UTC.
    private var ruledByYear: [Int64: [Onset]] = [:]

    init(_ c: Component) throws(ICalError) {
        var fixed: [Onset] = []
        var earliest: (start: Int64, from: Int64)?
        for o in c.components where o.name == "STANDARD" || o.name == "DAYLIGHT" {
            guard let s = o.property("DTSTART"), let f = o.property("TZOFFSETFROM"), let t = o.property("TZOFFSETTO")
            else {
                throw ICalError(line: o.number, "\(o.name) needs DTSTART, TZOFFSETFROM and TZOFFSETTO")
            }
            let from = try Self.offset(f)
            let to = try Self.offset(t)
            var ob = Observance(
                start: try Self.localSeconds(s), from: from, to: to, month: nil, weekday: nil, ordinal: nil,
                monthDays: [], until: nil)
            if earliest == nil || ob.start < earliest!.start { earliest = (ob.start, from) }
            fixed.append((ob.start - from, to))
            for r in o.properties where r.name == "RDATE" {
                for v in r.value.split(separator: ",") {
                    var l = r
                    l.value = String(v)
                    fixed.append((try Self.localSeconds(l) - from, to))
                }
            }
            if let rule = o.property("RRULE") {
                for part in rule.value.uppercased().split(separator: ";") {
                    let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
                    guard kv.count == 2 else { continue }
                    switch kv[0] {
                    case "BYMONTH": ob.month = Int64(kv[1]).flatMap { (1...12).contains($0) ? $0 : nil }
                    case "BYMONTHDAY": ob.monthDays = kv[1].split(separator: ",").compactMap { Int64($0) }
                    case "BYDAY":
                        let v = kv[1]
                        guard v.count >= 2 else { break }
                        let wd = String(v.suffix(2))
                        ob.weekday = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"].firstIndex(of: wd).map(Int64.init)
                        ob.ordinal = Int64(v.dropLast(2)).flatMap { (-5...5).contains($0) ? $0 : nil }
                    case "UNTIL":
                        var l = rule
                        l.value = kv[1]
                        ob.until = try? Self.localSeconds(l)
                    default: break
                    }
                }
                if ob.month != nil { ruled.append(ob) }
            }
        }
        guard let earliest else { throw ICalError(line: c.number, "VTIMEZONE without STANDARD or DAYLIGHT") }
        self.fixed = fixed.sorted { $0.utc < $1.utc }
        initialOffset = earliest.from
    }

    /// A UTC offset, `+HHMM` or `+HHMMSS`, less than a day.
    static func offset(_ l: ContentLine) throws(ICalError) -> Int64 {
        let v = Array(l.value.trimmingSpaces.utf8)
        let bad = ICalError(line: l.number, "\(l.name): \(ContentLine.quote(l.value)) is not a UTC offset (+HHMM)")
        guard v.count == 5 || v.count == 7, v[0] == UInt8(ascii: "+") || v[0] == UInt8(ascii: "-"),
            v.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { throw bad }
        let n = v.dropFirst().map { Int64($0 - 0x30) }
        let h = n[0] * 10 + n[1]
        let m = n[2] * 10 + n[3]
        let s = n.count == 6 ? n[4] * 10 + n[5] : 0
        guard h < 24, m < 60, s < 60 else { throw bad }
        let secs = h * 3600 + m * 60 + s
        return v[0] == UInt8(ascii: "-") ? -secs : secs
    }

    static func localSeconds(_ l: ContentLine) throws(ICalError) -> Int64 {
        switch try ICalDate.parse(l) {
        case .date(let days): return days * 86_400
        case .utc(let i): return i.seconds
        case .local(let days, let second, _): return days * 86_400 + second
        }
    }

    static func year(_ local: Int64) -> Int64 { Instant.civil(days: floorDays(local)).year }

    /// The day (since 1970-01-01) of local seconds `local`.
    static func floorDays(_ local: Int64) -> Int64 { local >= 0 ? local / 86_400 : -((-local + 86_399) / 86_400) }

    /// The rule onsets of observance `o` in `year`, UTC.
    private func onsets(_ o: Observance, year: Int64) -> [Onset] {
        let startYear = Self.year(o.start)
        guard let month = o.month, year > startYear, let first = Instant.days(year: year, month: month, day: 1) else {
            return []
        }
        let length = Instant.monthLength(year: year, month: month)
        let time = ((o.start % 86_400) + 86_400) % 86_400
        var days: [Int64] = []
        for d in 0..<length {
            let day = first + d
            let weekday = ((day + 4) % 7 + 7) % 7
            if let wd = o.weekday, weekday != wd { continue }
            if !o.monthDays.isEmpty, !o.monthDays.contains(d + 1) { continue }
            days.append(day)
        }
        if let ord = o.ordinal, ord != 0 {
            let i = ord > 0 ? Int(ord - 1) : days.count + Int(ord)
            days = days.indices.contains(i) ? [days[i]] : []
        }
        var out: [Onset] = []
        for day in days {
            let l = day * 86_400 + time
            if let until = o.until, l > until + 86_400 { continue }
            out.append((l - o.from, o.to))
        }
        return out
    }

    /// The rules' onsets from the year before `year` to the year after, by UTC.
    private func ruledOnsets(around year: Int64) -> [Onset] {
        if let cached = ruledByYear[year] { return cached }
        var all: [Onset] = []
        for o in ruled { for y in (year - 1)...(year + 1) { all += onsets(o, year: y) } }
        all.sort { $0.utc < $1.utc }
        ruledByYear[year] = all
        return all
    }

    /// The index of the first onset after `utc` in `list` (sorted by UTC).
    private static func firstAfter(_ utc: Int64, in list: [Onset]) -> Int {
        var lo = 0
        var hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if list[mid].utc <= utc { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// UTC seconds of local seconds `local`: in an overlap the earlier instant, in a gap the local
    /// time read with the offset before it (as `LocalTime.instant` does for IANA zones).
    func utcSeconds(local: Int64) -> Int64 {
        let ruled = ruledOnsets(around: Self.year(local))
        func offset(at utc: Int64) -> Int64 {
            let f = Self.firstAfter(utc, in: fixed)
            let r = Self.firstAfter(utc, in: ruled)
            let lastFixed = f > 0 ? fixed[f - 1] : nil
            let lastRuled = r > 0 ? ruled[r - 1] : nil
            switch (lastFixed, lastRuled) {
            case (let a?, let b?): return a.utc > b.utc ? a.to : b.to
            case (let a?, nil): return a.to
            case (nil, let b?): return b.to
            case (nil, nil): return initialOffset
            }
        }
        // Offsets are less than a day, so the instant lies within a day of `local`: the offsets
        // that can apply are the one in force a day before and those of the onsets since.
        let low = local - 90_000
        let high = local + 90_000
        var candidates: Set<Int64> = [offset(at: low)]
        for list in [fixed, ruled] {
            var i = Self.firstAfter(low, in: list)
            while i < list.count, list[i].utc <= high {
                candidates.insert(list[i].to)
                i += 1
            }
        }
        for candidate in candidates.sorted(by: >) where offset(at: local - candidate) == candidate {
            return local - candidate
        }
        return local - offset(at: local - 86_400)
    }
}
