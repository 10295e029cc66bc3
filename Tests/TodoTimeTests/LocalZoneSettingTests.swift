import Foundation
import Testing
import TodoTestSupport

@testable import TodoTime

#if canImport(Glibc)
    import Glibc
#endif

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
        #expect(tokyo == LocalZoneSetting.read(tz: nil, tzdir: nil, localtime: link)) // read twice: no change
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
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

    /// The zone file replaced over and over while it is read (a tz database update renames a new
    /// file over it): every setting read holds one file's zone, name and bytes. Before, the zone
    /// and the bytes compared were two reads, so a rename between them gave the old rules with the
    /// new bytes; the next read, all new, compared equal, and todod kept the old offset although
    /// it had logged the change.
    @Test func aFileReplacedWhileItIsReadGivesOneFilesZone() throws {
        let dir = TemporaryDirectory("lzs-race")
        try FileManager.default.createDirectory(atPath: dir.file("Test"), withIntermediateDirectories: true)
        for (name, zone) in [("tokyo", "Asia/Tokyo"), ("kolkata", "Asia/Kolkata")] {
            try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/" + zone, toPath: dir.file("Test/" + name))
        }
        #expect(link(dir.file("Test/tokyo"), dir.file("Test/Home")) == 0)
        let stop = LockedBox(false)
        let replacements = LockedBox(0)
        let replacer = Thread {
            var i = 0
            while !stop.value {
                i += 1
                _ = link(dir.file(i % 2 == 0 ? "Test/tokyo" : "Test/kolkata"), dir.file("Test/Home.new"))
                _ = rename(dir.file("Test/Home.new"), dir.file("Test/Home"))
                replacements.mutate { $0 += 1 }
            }
        }
        replacer.start()
        defer { stop.value = true }
        #expect(eventually(timeout: 5) { replacements.value > 0 })
        var seen: Set<Int64> = []
        var torn = 0
        for _ in 0..<3000 {
            let setting = LocalZoneSetting.read(tz: "Test/Home", tzdir: dir.path, localtime: "/nonexistent")
            let offset = setting.zone.secondsFromUTC(at: 0)
            seen.insert(offset)
            if ZoneInfo(tzif: setting.contents)?.secondsFromUTC(at: 0) != offset { torn += 1 }
            #expect(setting.name == "Test/Home")
        }
        stop.value = true
        #expect(torn == 0, "\(torn) of 3000 reads had one file's zone and another's bytes")
        #expect(seen.sorted() == [19_800, 9 * 3600], "both files were read")
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
