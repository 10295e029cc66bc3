import Foundation
import Testing
import TodoTestSupport
@testable import TodoTime

/// Seconds since the Unix epoch of a UTC date and time, computed by Foundation.
private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return Int64(calendar.date(from: components)!.timeIntervalSince1970)
}

/// The bytes of the file at `path`.
private func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

private let zoneDirectory = "/usr/share/zoneinfo"
private let year1900 = utc(1900, 1, 1), year1970: Int64 = 0, year2040 = utc(2040, 1, 1), year2100 = utc(2100, 1, 1)

/// `ZoneInfo` against Foundation's `TimeZone` (ICU data) for real zones. No exclusions are needed:
/// the two agreed on every instant tried, also well outside 1900–2100.
@Suite struct ZoneInfoFoundationTests {
    @Test(arguments: [
        "America/New_York", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney", "Australia/Lord_Howe",
        "America/Sao_Paulo", "Asia/Kolkata", "Pacific/Chatham", "Europe/Dublin", "America/St_Johns",
        "Pacific/Apia", "Africa/Casablanca", "UTC",
    ])
    func matchesFoundation(identifier: String) throws {
        let zone = try #require(ZoneInfo(identifier: identifier))
        let reference = try #require(TimeZone(identifier: identifier))

        var random = SeededRandom(seed: 20_260_308)
        var instants = (0..<3000).map { _ in Int64.random(in: year1900..<year2100, using: &random) }
        // Beyond the last stored transition (2037 in "fat" files) the TZif footer rule decides.
        instants += (0..<500).map { _ in Int64.random(in: year2040..<year2100, using: &random) }
        // Every transition ±1 s: those stored in the file, and those Foundation reports up to 2100.
        var transitions = zone.transitions.filter { (year1970..<year2040).contains($0) }
        var date = Date(timeIntervalSince1970: Double(year1970))
        while let next = reference.nextDaylightSavingTimeTransition(after: date), next.timeIntervalSince1970 < Double(year2100) {
            transitions.append(Int64(next.timeIntervalSince1970))
            date = next
        }
        instants += transitions.flatMap { [$0 - 1, $0, $0 + 1] }

        let mismatches = instants.compactMap { instant -> String? in
            let expected = Int64(reference.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))))
            let actual = zone.secondsFromUTC(at: instant)
            return actual == expected ? nil : "at \(instant): \(actual), Foundation \(expected)"
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
        let hasTransitionsSince1970 = !["Asia/Tokyo", "Asia/Kolkata", "UTC"].contains(identifier)
        #expect(transitions.isEmpty != hasTransitionsSince1970)
    }
}

/// POSIX TZ rule strings with hand-computed expectations.
@Suite struct ZoneInfoPosixRuleTests {
    /// Asserts `rule` gives `offset` at each of `instants`.
    private func expect(_ rule: String, _ offset: Int64, at instants: [Int64],
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let zone = try #require(ZoneInfo(posixRule: rule), sourceLocation: sourceLocation)
        for instant in instants {
            #expect(zone.secondsFromUTC(at: instant) == offset, "\(rule) at \(instant)", sourceLocation: sourceLocation)
        }
    }

    private let everywhere: [Int64] = [.min, utc(1900, 1, 1), -1, 0, utc(2026, 7, 1), utc(2100, 12, 31), .max]

    @Test func fixedOffsets() throws {
        try expect("JST-9", 9 * 3600, at: everywhere)
        try expect("UTC0", 0, at: everywhere)
        try expect("<+0530>-5:30", 5 * 3600 + 30 * 60, at: everywhere)
        try expect("<-03>3", -3 * 3600, at: everywhere)
        try expect("ABC+1:02:03", -3723, at: everywhere)
    }

    @Test func northernRule() throws {
        let rule = "EST5EDT,M3.2.0,M11.1.0"
        try expect(rule, -4 * 3600, at: [utc(2026, 7, 15, 12), utc(1850, 7, 1), utc(2300, 7, 1)])
        try expect(rule, -5 * 3600, at: [utc(2026, 1, 15, 12), utc(2026, 12, 31, 23, 59, 59), utc(2027, 1, 1, 4, 59, 59)])
        // 2026-03-08 02:00 EST starts DST; 2026-11-01 02:00 EDT ends it.
        try expect(rule, -5 * 3600, at: [utc(2026, 3, 8, 6, 59, 59), utc(2026, 11, 1, 6)])
        try expect(rule, -4 * 3600, at: [utc(2026, 3, 8, 7), utc(2026, 11, 1, 5, 59, 59)])
        // Without dates the same default applies; "EST5EDT4" spells out the default DST offset.
        try expect("EST5EDT", -5 * 3600, at: [utc(2026, 3, 8, 6, 59, 59), utc(2026, 11, 1, 6)])
        try expect("EST5EDT4", -4 * 3600, at: [utc(2026, 3, 8, 7), utc(2026, 11, 1, 5, 59, 59)])
    }

    @Test func southernRule() throws {
        let rule = "AEST-10AEDT,M10.1.0,M4.1.0/3"
        // DST ends 2026-04-05 03:00 AEDT (04-04 16:00Z), starts 2026-10-04 02:00 AEST (10-03 16:00Z).
        try expect(rule, 11 * 3600, at: [utc(2026, 1, 15), utc(2026, 4, 4, 15, 59, 59), utc(2026, 10, 3, 16),
                                         utc(2026, 12, 31, 13, 59, 59), utc(2026, 12, 31, 14), utc(2027, 1, 1, 12)])
        try expect(rule, 10 * 3600, at: [utc(2026, 4, 4, 16), utc(2026, 7, 1), utc(2026, 10, 3, 15, 59, 59)])
    }

    @Test func negativeDaylightSaving() throws {
        // Ireland: IST (+1) is standard time, GMT the "daylight" time in winter.
        let rule = "IST-1GMT0,M10.5.0,M3.5.0/1"
        try expect(rule, 3600, at: [utc(2026, 7, 1), utc(2026, 3, 29, 1), utc(2026, 10, 25, 0, 59, 59)])
        try expect(rule, 0, at: [utc(2026, 1, 1), utc(2026, 3, 29, 0, 59, 59), utc(2026, 10, 25, 1)])
    }

    @Test func daylightSavingAllYear() throws {
        // tzcode's form for permanent DST: starts Jan 1 00:00 EST, ends Dec 31 25:00 EDT (= Jan 1 00:00 EST).
        let rule = "EST5EDT,0/0,J365/25"
        var random = SeededRandom(seed: 365)
        let instants = (0..<2000).map { _ in Int64.random(in: year1900..<year2100, using: &random) }
        let newYears = (2023...2029).flatMap { year in [utc(year, 1, 1, 5) - 1, utc(year, 1, 1, 5), utc(year, 12, 31, 12)] }
        try expect(rule, -4 * 3600, at: instants + newYears + [.min, .max])
    }

    @Test func julianAndZeroBasedDates() throws {
        // J60 is March 1 in every year; zero-based day 59 is February 29 in leap years, else March 1.
        try expect("UTC0DST,J60/0,J300/0", 0, at: [utc(2024, 2, 29, 23, 59, 59), utc(2025, 2, 28, 23, 59, 59)])
        try expect("UTC0DST,J60/0,J300/0", 3600, at: [utc(2024, 3, 1), utc(2025, 3, 1)])
        try expect("UTC0DST,59/0,300/0", 0, at: [utc(2024, 2, 28, 23, 59, 59), utc(2025, 2, 28, 23, 59, 59)])
        try expect("UTC0DST,59/0,300/0", 3600, at: [utc(2024, 2, 29), utc(2025, 3, 1)])
        // End J300 = October 27 (00:00 DST = 10-26 23:00Z); zero-based 300 = October 27 (leap) or 28.
        try expect("UTC0DST,J60/0,J300/0", 3600, at: [utc(2024, 10, 26, 22, 59, 59), utc(2025, 10, 26, 22, 59, 59)])
        try expect("UTC0DST,J60/0,J300/0", 0, at: [utc(2024, 10, 26, 23), utc(2025, 10, 26, 23)])
        try expect("UTC0DST,59/0,300/0", 0, at: [utc(2024, 10, 26, 23), utc(2025, 10, 27, 23)])
        try expect("UTC0DST,59/0,300/0", 3600, at: [utc(2024, 10, 26, 22, 59, 59), utc(2025, 10, 27, 22, 59, 59)])
    }

    @Test func unusualTransitionTimes() throws {
        // Start 2026-03-08 at -1:00 EST (03-08 04:00Z); end 2026-11-01 at -1:30 EDT (11-01 02:30Z).
        let negative = "EST5EDT,M3.2.0/-1,M11.1.0/-1:30"
        try expect(negative, -5 * 3600, at: [utc(2026, 3, 8, 3, 59, 59), utc(2026, 11, 1, 2, 30)])
        try expect(negative, -4 * 3600, at: [utc(2026, 3, 8, 4), utc(2026, 11, 1, 2, 29, 59)])
        // Start 167 h after 2026-03-08 00:00 EST, i.e. 03-14 23:00 EST (03-15 04:00Z).
        let late = "EST5EDT,M3.2.0/167,M11.1.0"
        try expect(late, -5 * 3600, at: [utc(2026, 3, 15, 3, 59, 59)])
        try expect(late, -4 * 3600, at: [utc(2026, 3, 15, 4)])
        // Week 5 is the last: March 2026 has five Sundays (the 29th), October only four (the 25th).
        try expect("CET-1CEST,M3.5.0,M10.5.0/3", 3600, at: [utc(2026, 3, 29, 0, 59, 59), utc(2026, 10, 25, 1)])
        try expect("CET-1CEST,M3.5.0,M10.5.0/3", 7200, at: [utc(2026, 3, 29, 1), utc(2026, 10, 25, 0, 59, 59)])
    }

    @Test(arguments: [
        "", "J", "EST", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0",
        "EST5EDT,M3.2.0", "EST5EDT,M3.2.0,", "EST5EDT,M3.2.0,M11.1.0,", "EST5EDT,M3.2.0,M11.1.0x", "EST5EDT,M0.1.0,M11.1.0",
        "EST5EDT,J0,J365", "EST5EDT,366,0", "EST5EDT,M3.2.0/168,M11.1.0", "EST25", "EST5:60", "EST5:00:60", "ES5",
        "<AB>5", "<ABC5", "<A_B>5", "5", "EST+", "EST5ED", "EST5EDT,", "EST 5", "JST-9 ", "EST5EDT,M3.2.0/,M11.1.0",
    ])
    func rejectsMalformedRule(rule: String) {
        #expect(ZoneInfo(posixRule: rule) == nil)
    }
}

/// `ZoneInfo.named(byTZ:tzdir:)` and `init(identifier:tzdir:)`.
@Suite struct ZoneInfoNamedTests {
    private let instants: [Int64] = [.min, utc(1850, 1, 1), utc(1950, 6, 1), 0, utc(2026, 1, 1), utc(2026, 7, 1), utc(2090, 7, 1), .max]

    private func offsets(_ zone: ZoneInfo) -> [Int64] { instants.map { zone.secondsFromUTC(at: $0) } }

    @Test func unsetReadsLocaltime() throws {
        let local = try #require(ZoneInfo(tzif: bytes("/etc/localtime")))
        #expect(offsets(ZoneInfo.named(byTZ: nil)) == offsets(local))
        #expect(ZoneInfo.named(byTZ: nil).transitions == local.transitions)
    }

    @Test(arguments: ["", "%%%", ":", ":%%%", "Nowhere/Nothing", "XYZ"])
    func unreadableIsUTC(tz: String) {
        #expect(offsets(ZoneInfo.named(byTZ: tz)) == offsets(.utc))
        #expect(offsets(.utc) == instants.map { _ in 0 })
    }

    @Test(arguments: [":Asia/Tokyo", "Asia/Tokyo", "/usr/share/zoneinfo/Asia/Tokyo", ":/usr/share/zoneinfo/Asia/Tokyo", "JST-9", ":JST-9"])
    func tokyo(tz: String) {
        let zone = ZoneInfo.named(byTZ: tz)
        #expect(zone.secondsFromUTC(at: utc(2026, 7, 1)) == 32400)
        #expect(zone.secondsFromUTC(at: utc(2026, 1, 1)) == 32400)
    }

    @Test func fileWinsOverRule() {
        // "Asia/Tokyo" is a file; its history (LMT +9:18:59 before 1888) shows it was read as one.
        #expect(ZoneInfo.named(byTZ: "Asia/Tokyo").secondsFromUTC(at: utc(1880, 1, 1)) == 33539)
        #expect(ZoneInfo.named(byTZ: "JST-9").secondsFromUTC(at: utc(1880, 1, 1)) == 32400)
    }

    @Test func honoursTZDIR() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zoneinfo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Test"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(zoneDirectory)/Asia/Kolkata",
                                         toPath: directory.appendingPathComponent("Test/Zone").path)
        let july = utc(2026, 7, 1)
        #expect(ZoneInfo.named(byTZ: "Test/Zone", tzdir: directory.path).secondsFromUTC(at: july) == 19800)
        #expect(ZoneInfo.named(byTZ: ":Test/Zone", tzdir: directory.path).secondsFromUTC(at: july) == 19800)
        #expect(ZoneInfo(identifier: "Test/Zone", tzdir: directory.path)?.secondsFromUTC(at: july) == 19800)
        // The default directory has no such zone; the temporary one has no Asia/Tokyo.
        #expect(ZoneInfo.named(byTZ: "Test/Zone").secondsFromUTC(at: july) == 0)
        #expect(ZoneInfo(identifier: "Test/Zone") == nil)
        #expect(ZoneInfo(identifier: "Asia/Tokyo", tzdir: directory.path) == nil)
    }

    @Test(arguments: ["", "Nowhere/Nothing", "/usr/share/zoneinfo/UTC", "../zoneinfo/UTC", "Asia", "Asia/Tokyo/"])
    func rejectsIdentifier(identifier: String) {
        #expect(ZoneInfo(identifier: identifier) == nil)
    }
}

/// Malformed and unusual TZif input: nil or a zone, never a trap.
@Suite struct ZoneInfoTZifTests {
    /// Byte length of the version 1 header and data block at the start of `file`.
    private func version1Length(_ file: [UInt8]) -> Int {
        let counts = (0..<6).map { index in file[20 + 4 * index..<24 + 4 * index].reduce(0) { $0 << 8 | Int($1) } }
        let (isut, isstd, leap, time, type, char) = (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
        return 44 + time * 5 + type * 6 + char + leap * 8 + isstd + isut
    }

    /// Calls every entry point of `zone` that could trap.
    private func exercise(_ zone: ZoneInfo?) {
        for instant: Int64 in [.min, -1 << 40, -1, 0, 1 << 31, 1 << 40, .max] {
            _ = zone?.secondsFromUTC(at: instant)
        }
    }

    @Test func rejectsNonTZif() {
        #expect(ZoneInfo(tzif: []) == nil)
        #expect(ZoneInfo(tzif: Array("TZif".utf8)) == nil)
        #expect(ZoneInfo(tzif: Array("TZif2".utf8) + [UInt8](repeating: 0, count: 39)) == nil)
        #expect(ZoneInfo(tzif: Array("TZjf2".utf8) + [UInt8](repeating: 0, count: 200)) == nil)
    }

    @Test func everyTruncationIsRejected() throws {
        let file = try bytes("\(zoneDirectory)/America/New_York")
        for length in 0..<file.count {
            let zone = ZoneInfo(tzif: Array(file.prefix(length)))
            // Every proper prefix lacks at least the footer's closing newline.
            #expect(zone == nil, "prefix of \(length) bytes")
            exercise(zone)
        }
        #expect(ZoneInfo(tzif: file) != nil)
    }

    @Test func randomBytesAfterHeader() {
        var random = SeededRandom(seed: 8536)
        for round in 0..<3000 {
            var data = Array("TZif".utf8) + [[0, 0x32, 0x33, 0x34][round % 4]] + [UInt8](repeating: 0, count: 15)
            // Small counts so that some inputs get past the length checks.
            for _ in 0..<6 { data += [0, 0, 0, UInt8.random(in: 0...(round % 2 == 0 ? 3 : 255), using: &random)] }
            data += (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            exercise(ZoneInfo(tzif: data))
        }
    }

    @Test func mutatedRealFiles() throws {
        var random = SeededRandom(seed: 2025)
        for name in ["Europe/Dublin", "Australia/Lord_Howe", "right/UTC", "UTC"] {
            let file = try bytes("\(zoneDirectory)/\(name)")
            for _ in 0..<500 {
                var data = file
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    data[Int.random(in: 0..<data.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                exercise(ZoneInfo(tzif: data))
            }
        }
    }

    @Test func hugeCountsAreRejected() throws {
        var file = try bytes("\(zoneDirectory)/Europe/Berlin")
        let version1 = version1Length(file)
        for field in 0..<6 {
            var data = file
            data.replaceSubrange(version1 + 20 + 4 * field..<version1 + 24 + 4 * field, with: [0xFF, 0xFF, 0xFF, 0xFF])
            #expect(ZoneInfo(tzif: data) == nil, "count field \(field)")
        }
        file[4] = UInt8(ascii: "5")
        #expect(ZoneInfo(tzif: file) == nil)
    }

    @Test func unsortedTransitionsAreRejected() throws {
        var file = try bytes("\(zoneDirectory)/Europe/Berlin")
        let start = version1Length(file) + 44
        // Swap the first two 64-bit transition times.
        let first = Array(file[start..<start + 8])
        file.replaceSubrange(start..<start + 8, with: file[start + 8..<start + 16])
        file.replaceSubrange(start + 8..<start + 16, with: first)
        #expect(ZoneInfo(tzif: file) == nil)
    }

    @Test func leapSecondRecordsAreSkipped() throws {
        // "right/" files carry leap-second records; misreading them would misplace the footer.
        let rightUTC = try #require(ZoneInfo(tzif: bytes("\(zoneDirectory)/right/UTC")))
        #expect(rightUTC.secondsFromUTC(at: utc(2026, 7, 1)) == 0)
        let rightBerlin = try #require(ZoneInfo(tzif: bytes("\(zoneDirectory)/right/Europe/Berlin")))
        #expect(rightBerlin.secondsFromUTC(at: utc(2026, 7, 1)) == 7200)
        #expect(rightBerlin.secondsFromUTC(at: utc(2026, 1, 1)) == 3600)
    }

    @Test func version1File() throws {
        // The version 1 part of a real file, marked as version 1: 32-bit times, no footer.
        let file = try bytes("\(zoneDirectory)/America/New_York")
        var data = Array(file.prefix(version1Length(file)))
        data[4] = 0
        let version1 = try #require(ZoneInfo(tzif: data))
        let version2 = try #require(ZoneInfo(tzif: file))
        #expect(version1.rule == nil)
        var random = SeededRandom(seed: 1)
        for _ in 0..<2000 {
            let instant = Int64.random(in: Int64(Int32.min)...utc(2037, 1, 1), using: &random)
            #expect(version1.secondsFromUTC(at: instant) == version2.secondsFromUTC(at: instant), "at \(instant)")
        }
        // After its last transition (2037) a version 1 file keeps the last offset.
        #expect(version1.secondsFromUTC(at: utc(2090, 7, 1)) == -18000)
    }

    @Test func timeTypeZeroBeforeFirstTransition() throws {
        // New York: local mean time -4:56:02 before 1883-11-18 17:00 UTC.
        let zone = try #require(ZoneInfo(identifier: "America/New_York"))
        #expect(zone.secondsFromUTC(at: .min) == -17762)
        #expect(zone.secondsFromUTC(at: utc(1883, 11, 18, 16, 59, 59)) == -17762)
        #expect(zone.secondsFromUTC(at: utc(1883, 11, 18, 17)) == -18000)
        // Int64.max is a December 4th (of year 292277026596): standard time under the footer rule.
        #expect(zone.secondsFromUTC(at: .max) == -18000)
    }
}
