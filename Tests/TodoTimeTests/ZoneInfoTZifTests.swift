import Foundation
import Testing
import TodoTestSupport

@testable import TodoTime

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
