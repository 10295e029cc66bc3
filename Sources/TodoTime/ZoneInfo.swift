import TodoCore
import TodoPosix

/// A time zone from the system's tz database (TZif files, tzfile(5) / RFC 8536) or a POSIX TZ
/// string, read without Foundation: how todoctl and todod show and read local times.
package struct ZoneInfo: Sendable {
    /// Transition instants (seconds since the Unix epoch), strictly ascending.
    let transitions: [Int64]
    /// `offsets[i]` is the UTC offset (seconds east) that starts at `transitions[i]`.
    let offsets: [Int64]
    /// Whether the offset that starts at `transitions[i]` is daylight-saving time.
    let daylight: [Bool]
    /// The UTC offset before the first transition (RFC 8536 §3.2: time type 0).
    let initialOffset: Int64
    /// The rule for instants at or after the last transition, or for all instants without transitions.
    let rule: PosixRule?

    /// Coordinated Universal Time.
    package static let utc = ZoneInfo(transitions: [], offsets: [], daylight: [], initialOffset: 0, rule: nil)

    /// The zone `TZ` names, with glibc's rules: nil (unset) → /etc/localtime; "" → UTC;
    /// ":file" or "file" → a TZif file (absolute, or relative to $TZDIR or /usr/share/zoneinfo);
    /// otherwise a POSIX TZ string ("JST-9", "EST5EDT,M3.2.0,M11.1.0", "<+0530>-5:30"); anything unreadable → UTC.
    ///
    /// `tzdir` is the value of `TZDIR`; nil or empty means /usr/share/zoneinfo.
    package static func named(byTZ tz: String?, tzdir: String? = nil) -> ZoneInfo {
        guard let tz else { return ZoneInfo(path: "/etc/localtime") ?? .utc }
        if tz.isEmpty { return .utc }
        let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if !name.isEmpty {
            let path = name.hasPrefix("/") ? name : directory(tzdir) + "/" + name
            if let zone = ZoneInfo(path: path) { return zone }
        }
        return ZoneInfo(posixRule: name) ?? .utc
    }

    /// A zone of the tz database by identifier ("Asia/Tokyo"), nil when there is no such readable TZif file.
    ///
    /// `tzdir` is the database directory; nil or empty means /usr/share/zoneinfo. Identifiers that
    /// are absolute or contain a ".." component are refused.
    package init?(identifier: String, tzdir: String? = nil) {
        let components = identifier.split(separator: "/", omittingEmptySubsequences: false)
        guard !identifier.isEmpty, !identifier.hasPrefix("/"), !components.contains("..") else { return nil }
        self.init(path: ZoneInfo.directory(tzdir) + "/" + identifier)
    }

    /// A zone from the bytes of a TZif file (versions 1–4), nil when they are not one.
    package init?(tzif bytes: [UInt8]) {
        var reader = ByteReader(bytes: bytes)
        guard let header = TZifHeader(&reader) else { return nil }
        let version = header.version
        if version >= 2 {
            // Skip the version 1 data block: the 64-bit block after the second header supersedes it.
            guard reader.skip(header.dataLength(timeSize: 4)),
                let header64 = TZifHeader(&reader), header64.version == version
            else { return nil }
            guard let block = TZifBlock(&reader, header: header64, timeSize: 8) else { return nil }
            // The footer: a POSIX TZ string between two newlines, possibly empty.
            guard reader.byte() == UInt8(ascii: "\n"), let footer = reader.line() else { return nil }
            let rule = footer.isEmpty ? nil : PosixRule(footer)
            guard footer.isEmpty || rule != nil else { return nil }
            self.init(block: block, rule: rule)
        } else {
            guard let block = TZifBlock(&reader, header: header, timeSize: 4) else { return nil }
            self.init(block: block, rule: nil)
        }
    }

    /// A zone from a POSIX TZ rule string, nil when it does not parse.
    package init?(posixRule: String) {
        guard let rule = PosixRule(Array(posixRule.utf8)) else { return nil }
        self.init(transitions: [], offsets: [], daylight: [], initialOffset: rule.standardOffset, rule: rule)
    }

    /// Seconds east of UTC in effect at `utcSeconds` (seconds since the Unix epoch, any Int64 value
    /// — never traps, also far in the past or future).
    package func secondsFromUTC(at utcSeconds: Int64) -> Int64 {
        if let rule, transitions.last.map({ utcSeconds >= $0 }) ?? true {
            return rule.secondsFromUTC(at: utcSeconds)
        }
        // Binary search: `low` becomes the number of transitions at or before `utcSeconds`.
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = low + (high - low) / 2
            if transitions[middle] <= utcSeconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }

    private init(transitions: [Int64], offsets: [Int64], daylight: [Bool], initialOffset: Int64, rule: PosixRule?) {
        self.transitions = transitions
        self.offsets = offsets
        self.daylight = daylight
        self.initialOffset = initialOffset
        self.rule = rule
    }

    private init(block: TZifBlock, rule: PosixRule?) {
        self.init(
            transitions: block.transitions, offsets: block.transitionTypes.map { block.typeOffsets[$0] },
            daylight: block.transitionTypes.map { block.typeDaylight[$0] }, initialOffset: block.typeOffsets[0],
            rule: rule)
    }

    /// A zone from the TZif file at `path`, nil when it cannot be read or is not one.
    init?(path: String) {
        // A TZif file is a few KiB; the bound keeps TZ=/dev/zero from reading forever.
        guard let bytes = try? Files.contents(of: path, maxBytes: 1 << 20) else { return nil }
        self.init(tzif: bytes)
    }

    /// The tz database directory `TZDIR` names: /usr/share/zoneinfo when nil or empty.
    static func directory(_ tzdir: String?) -> String {
        guard let tzdir, !tzdir.isEmpty else { return "/usr/share/zoneinfo" }
        return tzdir
    }
}

// MARK: - TZif parsing

/// The fixed 44-byte header that starts each TZif data block.
private struct TZifHeader {
    /// 1 for a NUL version byte, otherwise 2, 3 or 4.
    let version: Int
    let isutCount: Int, isstdCount: Int, leapCount: Int, timeCount: Int, typeCount: Int, charCount: Int

    init?(_ reader: inout ByteReader) {
        guard reader.take(4) == Array("TZif".utf8), let versionByte = reader.byte() else { return nil }
        switch versionByte {
        case 0: version = 1
        case UInt8(ascii: "2")...UInt8(ascii: "4"): version = Int(versionByte - UInt8(ascii: "0"))
        default: return nil
        }
        guard reader.skip(15),
            let isut = reader.uint32(), let isstd = reader.uint32(), let leap = reader.uint32(),
            let time = reader.uint32(), let type = reader.uint32(), let char = reader.uint32()
        else { return nil }
        (isutCount, isstdCount, leapCount) = (Int(isut), Int(isstd), Int(leap))
        (timeCount, typeCount, charCount) = (Int(time), Int(type), Int(char))
    }

    /// The byte length of the data block that follows, with `timeSize`-byte times (4 or 8).
    func dataLength(timeSize: Int) -> Int {
        timeCount * (timeSize + 1) + typeCount * 6 + charCount + leapCount * (timeSize + 4) + isstdCount + isutCount
    }
}

/// The parts of a TZif data block the lookup needs; leap-second and indicator records are skipped.
private struct TZifBlock {
    var transitions: [Int64] = []
    /// Index into `typeOffsets` for each transition.
    var transitionTypes: [Int] = []
    /// The UT offset of each local time type.
    var typeOffsets: [Int64] = []
    /// Whether each local time type is daylight-saving time.
    var typeDaylight: [Bool] = []

    init?(_ reader: inout ByteReader, header: TZifHeader, timeSize: Int) {
        let typeCount = header.typeCount
        guard typeCount > 0, header.charCount > 0,
            header.isstdCount == 0 || header.isstdCount == typeCount,
            header.isutCount == 0 || header.isutCount == typeCount,
            reader.remaining >= header.dataLength(timeSize: timeSize)
        else { return nil }
        for _ in 0..<header.timeCount {
            guard let time = timeSize == 8 ? reader.int64() : reader.uint32().map({ Int64(Int32(bitPattern: $0)) }),
                transitions.last.map({ $0 < time }) ?? true
            else { return nil }
            transitions.append(time)
        }
        for _ in 0..<header.timeCount {
            guard let type = reader.byte(), Int(type) < typeCount else { return nil }
            transitionTypes.append(Int(type))
        }
        for _ in 0..<typeCount {
            // utoff (int32), isdst and desigidx (one byte each).
            guard let offset = reader.uint32().map({ Int32(bitPattern: $0) }), offset != Int32.min,
                let isdst = reader.byte(), reader.skip(1)
            else { return nil }
            typeOffsets.append(Int64(offset))
            typeDaylight.append(isdst != 0)
        }
        guard reader.skip(header.charCount + header.leapCount * (timeSize + 4) + header.isstdCount + header.isutCount)
        else { return nil }
    }
}

/// Bounds-checked big-endian reads from a byte array.
private struct ByteReader {
    let bytes: [UInt8]
    var position = 0

    var remaining: Int { bytes.count - position }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }

    mutating func take(_ count: Int) -> [UInt8]? {
        let start = position
        guard skip(count) else { return nil }
        return Array(bytes[start..<position])
    }

    mutating func byte() -> UInt8? { take(1)?.first }

    mutating func uint32() -> UInt32? {
        take(4)?.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func int64() -> Int64? {
        take(8).map { Int64(bitPattern: $0.reduce(0) { $0 << 8 | UInt64($1) }) }
    }

    /// The bytes up to the next newline, which is consumed; nil when there is none.
    mutating func line() -> [UInt8]? {
        guard let end = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        defer { position = end + 1 }
        return Array(bytes[position..<end])
    }
}

// MARK: - POSIX TZ rules

/// A POSIX TZ rule (POSIX.1 `TZ`, with the RFC 8536 §3.3.1 extension of transition times from
/// -167 to 167 hours): a standard offset and optionally a daylight-saving offset with its yearly dates.
struct PosixRule: Sendable {
    /// Seconds east of UTC in standard time.
    let standardOffset: Int64
    let daylight: Daylight?

    /// Daylight-saving time: its offset and when it starts and ends each year.
    struct Daylight: Sendable {
        /// Seconds east of UTC in daylight-saving time.
        let offset: Int64
        let start: RuleDate
        /// Seconds after midnight local standard time on the start date.
        let startTime: Int64
        let end: RuleDate
        /// Seconds after midnight local daylight-saving time on the end date.
        let endTime: Int64
    }

    /// A day of the year in one of the three POSIX forms.
    enum RuleDate: Sendable {
        /// `Jn`: day 1…365, February 29 never counted.
        case julian(Int64)
        /// `n`: day 0…365, February 29 counted in leap years.
        case zeroBased(Int64)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1…5, 5 = last) of month `m`.
        case monthWeekDay(month: Int64, week: Int64, weekday: Int64)
    }

    init?(_ text: [UInt8]) {
        var scanner = RuleScanner(bytes: text)
        guard scanner.name(), let standardWest = scanner.time(maxHours: 24) else { return nil }
        standardOffset = -standardWest
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var daylightWest = standardWest - 3600
        if !scanner.atEnd && !scanner.isAt(",") {
            guard let west = scanner.time(maxHours: 24) else { return nil }
            daylightWest = west
        }
        // Without dates, glibc's default: second Sunday of March to first Sunday of November.
        let twoAM: Int64 = 7200
        var (start, startTime) = (RuleDate.monthWeekDay(month: 3, week: 2, weekday: 0), twoAM)
        var (end, endTime) = (RuleDate.monthWeekDay(month: 11, week: 1, weekday: 0), twoAM)
        if scanner.consume(",") {
            guard let startDate = scanner.date(), let startAt = scanner.optionalTime(default: twoAM),
                scanner.consume(","), let endDate = scanner.date(), let endAt = scanner.optionalTime(default: twoAM)
            else { return nil }
            (start, startTime, end, endTime) = (startDate, startAt, endDate, endAt)
        }
        guard scanner.atEnd else { return nil }
        daylight = Daylight(offset: -daylightWest, start: start, startTime: startTime, end: end, endTime: endTime)
    }

    /// Seconds east of UTC in effect at `utcSeconds`.
    func secondsFromUTC(at utcSeconds: Int64) -> Int64 {
        guard let daylight else { return standardOffset }
        // The Gregorian calendar, weekdays included, repeats every 400 years; reducing the instant
        // into one such cycle after the epoch keeps all arithmetic far from overflow.
        let cycle: Int64 = 146_097 * 86_400
        var instant = utcSeconds % cycle
        if instant < 0 { instant += cycle }
        let year = Instant.civil(days: floorDivide(instant + standardOffset, 86_400)).year
        // The latest start or end at or before the instant decides; transition times may reach up
        // to a week into the neighbouring years, so look two years back and one ahead. On a tie
        // the start wins, which makes rules like "EST5EDT,0/0,J365/25" daylight time all year.
        var latest: (time: Int64, isDaylight: Bool)?
        for ruleYear in (year - 2)...(year + 1) {
            let events = [
                (daylight.end.day(in: ruleYear) * 86_400 + daylight.endTime - daylight.offset, false),
                (daylight.start.day(in: ruleYear) * 86_400 + daylight.startTime - standardOffset, true)
            ]
            for (time, isDaylight) in events where time <= instant {
                if let current = latest, time < current.time || (time == current.time && !isDaylight) { continue }
                latest = (time, isDaylight)
            }
        }
        return latest?.isDaylight == true ? daylight.offset : standardOffset
    }
}

extension PosixRule.RuleDate {
    /// The day this date falls on in `year`, as days since 1970-01-01.
    func day(in year: Int64) -> Int64 {
        let newYear = daysFromCivil(year: year, month: 1, day: 1)
        switch self {
        case .julian(let day):
            return newYear + day - 1 + (Instant.isLeapYear(year) && day >= 60 ? 1 : 0)
        case .zeroBased(let day):
            return newYear + day
        case .monthWeekDay(let month, let week, let weekday):
            let first = daysFromCivil(year: year, month: month, day: 1)
            let firstWeekday = floorModulo(first + 4, 7) // 1970-01-01 was a Thursday.
            var day = first + floorModulo(weekday - firstWeekday, 7) + (week - 1) * 7
            if day - first >= Instant.monthLength(year: year, month: month) { day -= 7 }
            return day
        }
    }
}

/// A cursor over the bytes of a POSIX TZ string.
private struct RuleScanner {
    let bytes: [UInt8]
    var position = 0
    var atEnd: Bool { position >= bytes.count }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    func isAt(_ character: Unicode.Scalar) -> Bool { current == UInt8(ascii: character) }

    mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard isAt(character) else { return false }
        position += 1
        return true
    }

    /// A zone abbreviation: three or more letters, or `<…>` around three or more letters, digits, '+' or '-'.
    mutating func name() -> Bool {
        if consume("<") {
            let start = position
            while let byte = current, isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                position += 1
            }
            return position - start >= 3 && consume(">")
        }
        let start = position
        while let byte = current, isLetter(byte) { position += 1 }
        return position - start >= 3
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds, hours at most `maxHours`, minutes and seconds at most 59.
    mutating func time(maxHours: Int64) -> Int64? {
        let sign: Int64 = consume("-") ? -1 : 1
        if sign == 1 { _ = consume("+") }
        guard let hours = number(maxDigits: 3), hours <= maxHours else { return nil }
        var seconds = hours * 3600
        for unit: Int64 in [60, 1] {
            guard consume(":") else { break }
            guard let value = number(maxDigits: 2), value <= 59 else { return nil }
            seconds += value * unit
        }
        return sign * seconds
    }

    /// A transition time after `/` (hours from -167 to 167), or `defaultTime` when there is no `/`.
    mutating func optionalTime(default defaultTime: Int64) -> Int64? {
        consume("/") ? time(maxHours: 167) : defaultTime
    }

    /// `Jn`, `n` or `Mm.w.d`.
    mutating func date() -> PosixRule.RuleDate? {
        if consume("J") {
            guard let day = number(maxDigits: 3), (1...365).contains(day) else { return nil }
            return .julian(day)
        }
        if consume("M") {
            guard let month = number(maxDigits: 2), (1...12).contains(month), consume("."),
                let week = number(maxDigits: 1), (1...5).contains(week), consume("."),
                let weekday = number(maxDigits: 1), (0...6).contains(weekday)
            else { return nil }
            return .monthWeekDay(month: month, week: week, weekday: weekday)
        }
        guard let day = number(maxDigits: 3), day <= 365 else { return nil }
        return .zeroBased(day)
    }

    /// A run of 1…`maxDigits` decimal digits.
    private mutating func number(maxDigits: Int) -> Int64? {
        let start = position
        var value: Int64 = 0
        while let byte = current, isDigit(byte) {
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            position += 1
            if position - start > maxDigits { return nil }
        }
        return position > start ? value : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
    private func isAlphanumeric(_ byte: UInt8) -> Bool { isDigit(byte) || isLetter(byte) }
}

// MARK: - Calendar arithmetic

/// Days since 1970-01-01 of a date in the years a rule is evaluated for (1968…2371, always valid).
private func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    Instant.days(year: year, month: month, day: day) ?? 0
}

private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
}

private func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
    value - floorDivide(value, divisor) * divisor
}
