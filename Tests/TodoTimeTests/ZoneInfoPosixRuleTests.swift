import Foundation
import Testing
import TodoTestSupport

@testable import TodoTime

/// POSIX TZ rule strings with hand-computed expectations.
@Suite struct ZoneInfoPosixRuleTests {
    /// Asserts `rule` gives `offset` at each of `instants`.
    private func expect(
        _ rule: String, _ offset: Int64, at instants: [Int64],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
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
        try expect(
            rule, -5 * 3600, at: [utc(2026, 1, 15, 12), utc(2026, 12, 31, 23, 59, 59), utc(2027, 1, 1, 4, 59, 59)])
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
        try expect(
            rule, 11 * 3600,
            at: [
                utc(2026, 1, 15), utc(2026, 4, 4, 15, 59, 59), utc(2026, 10, 3, 16),
                utc(2026, 12, 31, 13, 59, 59), utc(2026, 12, 31, 14), utc(2027, 1, 1, 12)
            ])
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
        let newYears = (2023...2029).flatMap { year in
            [utc(year, 1, 1, 5) - 1, utc(year, 1, 1, 5), utc(year, 12, 31, 12)]
        }
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
        "EST5EDT,M3.2.0", "EST5EDT,M3.2.0,", "EST5EDT,M3.2.0,M11.1.0,", "EST5EDT,M3.2.0,M11.1.0x",
        "EST5EDT,M0.1.0,M11.1.0",
        "EST5EDT,J0,J365", "EST5EDT,366,0", "EST5EDT,M3.2.0/168,M11.1.0", "EST25", "EST5:60", "EST5:00:60", "ES5",
        "<AB>5", "<ABC5", "<A_B>5", "5", "EST+", "EST5ED", "EST5EDT,", "EST 5", "JST-9 ", "EST5EDT,M3.2.0/,M11.1.0"
    ])
    func rejectsMalformedRule(rule: String) {
        #expect(ZoneInfo(posixRule: rule) == nil)
    }
}
