import TodoCore
import TodoTime

/// How `TZID`s are turned into instants: an IANA name this machine knows (also inside a prefixed
/// name such as `/mozilla.org/20050126_1/Europe/Berlin`), else the file's own `VTIMEZONE`.
struct TimeZones {
    var tzdir: String?
    var vtimezones: [String: VTimeZone] = [:]

    init(_ calendars: [Component], tzdir: String?) throws(ICalError) {
        self.tzdir = tzdir
        for cal in calendars {
            for c in cal.components where c.name == "VTIMEZONE" {
                guard let id = c.property("TZID")?.value, !id.isEmpty else {
                    throw ICalError(line: c.number, "VTIMEZONE without TZID")
                }
                vtimezones[id] = try VTimeZone(c)
            }
        }
    }

    /// The IANA name `tzid` stands for, when this machine has such a zone.
    func ianaName(_ tzid: String) -> String? {
        if ZoneInfo(identifier: tzid, tzdir: tzdir) != nil, !tzid.hasPrefix("/") { return tzid }
        let parts = tzid.split(separator: "/")
        for n in [3, 2, 1] where parts.count > n {
            let name = parts.suffix(n).joined(separator: "/")
            if ZoneInfo(identifier: name, tzdir: tzdir) != nil { return name }
        }
        return nil
    }

    /// The instant of a local time in zone `tzid`.
    func instant(days: Int64, second: Int64, tzid: String, line: Int) throws(ICalError) -> Instant {
        if let name = ianaName(tzid), let zone = ZoneInfo(identifier: name, tzdir: tzdir),
           let i = LocalTime.instant(days: days, secondOfDay: second, in: zone) {
            return i
        }
        if let vtz = vtimezones[tzid] {
            return Instant(seconds: vtz.utcSeconds(local: days * 86_400 + second))
        }
        throw ICalError(line: line, "TZID \(ContentLine.quote(tzid)) is neither a time zone known here nor given by a VTIMEZONE")
    }
}

/// A VTIMEZONE's observances (STANDARD and DAYLIGHT): their onsets from DTSTART, RDATE and a
/// yearly RRULE (BYMONTH with BYDAY, optionally BYMONTHDAY), enough for the zones calendar
/// programs write.
struct VTimeZone {
    struct Observance {
        var start: Int64  // local seconds (in the offset before it)
        var from: Int64
        var to: Int64
        var month: Int64?
        var weekday: Int64?  // 0 = Sunday
        var ordinal: Int64?
        var monthDays: [Int64]
        var until: Int64?
        var rdates: [Int64]
    }
    var observances: [Observance] = []

    init(_ c: Component) throws(ICalError) {
        for o in c.components where o.name == "STANDARD" || o.name == "DAYLIGHT" {
            guard let s = o.property("DTSTART"), let f = o.property("TZOFFSETFROM"), let t = o.property("TZOFFSETTO") else {
                throw ICalError(line: o.number, "\(o.name) needs DTSTART, TZOFFSETFROM and TZOFFSETTO")
            }
            let from = try Self.offset(f), to = try Self.offset(t)
            var ob = Observance(start: try Self.localSeconds(s), from: from, to: to, month: nil, weekday: nil, ordinal: nil,
                                monthDays: [], until: nil, rdates: [])
            for r in o.properties where r.name == "RDATE" {
                for v in r.value.split(separator: ",") {
                    var l = r
                    l.value = String(v)
                    ob.rdates.append(try Self.localSeconds(l))
                }
            }
            if let rule = o.property("RRULE") {
                for part in rule.value.uppercased().split(separator: ";") {
                    let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
                    guard kv.count == 2 else { continue }
                    switch kv[0] {
                    case "BYMONTH": ob.month = Int64(kv[1])
                    case "BYMONTHDAY": ob.monthDays = kv[1].split(separator: ",").compactMap { Int64($0) }
                    case "BYDAY":
                        let v = kv[1]
                        guard v.count >= 2 else { break }
                        let wd = String(v.suffix(2))
                        ob.weekday = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"].firstIndex(of: wd).map(Int64.init)
                        ob.ordinal = Int64(v.dropLast(2))
                    case "UNTIL":
                        var l = rule
                        l.value = kv[1]
                        ob.until = try? Self.localSeconds(l)
                    default: break
                    }
                }
            }
            observances.append(ob)
        }
        guard !observances.isEmpty else { throw ICalError(line: c.number, "VTIMEZONE without STANDARD or DAYLIGHT") }
    }

    static func offset(_ l: ContentLine) throws(ICalError) -> Int64 {
        let v = Array(l.value.trimmingSpaces.utf8)
        guard v.count == 5 || v.count == 7, v[0] == UInt8(ascii: "+") || v[0] == UInt8(ascii: "-"),
              v.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw ICalError(line: l.number, "\(l.name): \(ContentLine.quote(l.value)) is not a UTC offset (+HHMM)")
        }
        let n = v.dropFirst().map { Int64($0 - 0x30) }
        let secs = (n[0] * 10 + n[1]) * 3600 + (n[2] * 10 + n[3]) * 60 + (n.count == 6 ? n[4] * 10 + n[5] : 0)
        return v[0] == UInt8(ascii: "-") ? -secs : secs
    }

    static func localSeconds(_ l: ContentLine) throws(ICalError) -> Int64 {
        switch try ICalDate.parse(l) {
        case .date(let days): return days * 86_400
        case .utc(let i): return i.seconds
        case .local(let days, let second, _): return days * 86_400 + second
        }
    }

    /// Onsets (UTC seconds) of `o` in `year`.
    func onsets(_ o: Observance, year: Int64) -> [(utc: Int64, to: Int64)] {
        var locals = o.rdates.filter { Instant.civil(days: $0 / 86_400).year == year }
        let startYear = Instant.civil(days: o.start / 86_400).year
        if startYear == year { locals.append(o.start) }
        if let month = o.month, year > startYear, let first = Instant.days(year: year, month: month, day: 1) {
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
            for day in days {
                let l = day * 86_400 + time
                if let until = o.until, l > until + 86_400 { continue }
                locals.append(l)
            }
        }
        return locals.map { ($0 - o.from, o.to) }
    }

    /// UTC seconds of local seconds `local`: in an overlap the earlier instant, in a gap the local
    /// time read with the offset before it (as `LocalTime.instant` does for IANA zones).
    func utcSeconds(local: Int64) -> Int64 {
        let year = Instant.civil(days: local / 86_400).year
        var all: [(utc: Int64, to: Int64)] = []
        for o in observances { for y in (year - 1)...(year + 1) { all += onsets(o, year: y) } }
        all.sort { $0.utc < $1.utc }
        func offset(at utc: Int64) -> Int64 {
            if let last = all.last(where: { $0.utc <= utc }) { return last.to }
            let earliest = observances.min { $0.start < $1.start }!
            return earliest.from
        }
        for candidate in Set(all.map(\.to) + observances.map(\.from)).sorted(by: >) {
            if offset(at: local - candidate) == candidate { return local - candidate }
        }
        return local - offset(at: local - 86_400)
    }
}
