import Foundation
import Testing
import TodoTestSupport

@testable import TodoTime

/// `ZoneInfo.named(byTZ:tzdir:)` and `init(identifier:tzdir:)`.
@Suite struct ZoneInfoNamedTests {
    private let instants: [Int64] = [
        .min, utc(1850, 1, 1), utc(1950, 6, 1), 0, utc(2026, 1, 1), utc(2026, 7, 1), utc(2090, 7, 1), .max
    ]

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

    @Test(arguments: [
        ":Asia/Tokyo", "Asia/Tokyo", "/usr/share/zoneinfo/Asia/Tokyo", ":/usr/share/zoneinfo/Asia/Tokyo", "JST-9",
        ":JST-9"
    ])
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
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("Test"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "\(zoneDirectory)/Asia/Kolkata",
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
