import Foundation
import Testing
import TodoTestSupport

@testable import TodoTime

/// `ZoneInfo` against Foundation's `TimeZone` (ICU data) for real zones. No exclusions are needed:
/// the two agreed on every instant tried, also well outside 1900–2100.
@Suite struct ZoneInfoFoundationTests {
    @Test(arguments: [
        "America/New_York", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney", "Australia/Lord_Howe",
        "America/Sao_Paulo", "Asia/Kolkata", "Pacific/Chatham", "Europe/Dublin", "America/St_Johns",
        "Pacific/Apia", "Africa/Casablanca", "UTC"
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
        while let next = reference.nextDaylightSavingTimeTransition(after: date),
            next.timeIntervalSince1970 < Double(year2100)
        {
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
