import Foundation
import Testing
import TodoTestSupport
@testable import TodoTime

/// `LocalZoneSetting`: what todod reads again when the zone may have changed, and what it watches.
@Suite struct LocalZoneSettingTests {
    @Test func aLinkAndWhatItWatches() throws {
        let dir = TemporaryDirectory("lzs")
        let link = dir.file("localtime")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Asia/Tokyo")
        let tokyo = LocalZoneSetting.read(tz: nil, tzdir: nil, localtime: link)
        #expect(tokyo.name == "Asia/Tokyo")
        #expect(tokyo.zone.secondsFromUTC(at: 0) == 9 * 3600)
        #expect(tokyo.directories.contains(dir.path))
        #expect(tokyo.directories.contains { $0.hasSuffix("zoneinfo/Asia") })
        #expect(tokyo == LocalZoneSetting.read(tz: nil, tzdir: nil, localtime: link))  // read twice: no change
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        let berlin = LocalZoneSetting.read(tz: nil, tzdir: nil, localtime: link)
        #expect(berlin.name == "Europe/Berlin")
        #expect(berlin != tokyo)
    }

    /// The same name with other bytes (a tz database update) is a change.
    @Test func theSameNameWithNewRulesIsAChange() throws {
        let dir = TemporaryDirectory("lzs2")
        try FileManager.default.createDirectory(atPath: dir.file("Test"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: dir.file("Test/Home"))
        let before = LocalZoneSetting.read(tz: "Test/Home", tzdir: dir.path, localtime: "/nonexistent")
        #expect(before.name == "Test/Home")
        #expect(!before.directories.isEmpty && before.directories.allSatisfy { $0.hasSuffix("/Test") })
        try FileManager.default.removeItem(atPath: dir.file("Test/Home"))
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Kolkata", toPath: dir.file("Test/Home"))
        let after = LocalZoneSetting.read(tz: "Test/Home", tzdir: dir.path, localtime: "/nonexistent")
        #expect(after.name == "Test/Home")
        #expect(after != before)
        #expect(after.zone.secondsFromUTC(at: 0) == 19_800)
    }

    /// A POSIX rule names no file: nothing to watch.
    @Test func aPosixRuleWatchesNothing() {
        let rule = LocalZoneSetting.read(tz: "JST-9", tzdir: nil)
        #expect(rule.name == "JST-9")
        #expect(rule.directories.isEmpty)
        #expect(rule.zone.secondsFromUTC(at: 0) == 9 * 3600)
        #expect(LocalZoneSetting.read(tz: "", tzdir: nil).name == "UTC")
    }
}
