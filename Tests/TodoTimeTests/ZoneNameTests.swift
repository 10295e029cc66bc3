import Foundation
import Testing
import TodoTestSupport

@testable import TodoTime

/// `ZoneInfo.identifier(byTZ:tzdir:localtime:)`: the IANA name todoctl sends as a todo's `zone`.
@Suite struct ZoneNameTests {
    @Test(arguments: [
        ("Asia/Tokyo", "Asia/Tokyo"),
        (":Asia/Tokyo", "Asia/Tokyo"),
        ("/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
        (":/usr/share/zoneinfo/Europe/Berlin", "Europe/Berlin"),
        ("/usr/share/zoneinfo/Asia/Calcutta", "Asia/Kolkata"),
        ("/usr/share/zoneinfo/posix/Australia/Adelaide", "Australia/Adelaide"),
        ("posix/Australia/Sydney", "Australia/Sydney"),
        ("right/Europe/Berlin", "Europe/Berlin"),
        ("US/Eastern", "US/Eastern"),
        ("UTC", "UTC"),
        ("", "UTC"),
        (":", "UTC")
    ])
    func named(tz: String, expected: String) {
        #expect(ZoneInfo.identifier(byTZ: tz) == expected)
    }

    /// A POSIX rule has no IANA name; nor has a zone that cannot be read.
    @Test(arguments: [
        "JST-9", ":JST-9", "EST5EDT,M3.2.0,M11.1.0", "<+0530>-5:30", "Nowhere/Nothing", "../etc/passwd",
        "/etc/passwd", "/usr/share/zoneinfo/zone.tab", "/nonexistent/zoneinfo/Asia/Tokyo", "%%%"
    ])
    func noName(tz: String) {
        #expect(ZoneInfo.identifier(byTZ: tz) == nil)
    }

    @Test func unsetReadsTheLocaltimeLink() throws {
        let directory = TemporaryDirectory("zone")
        let link = directory.file("localtime")
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: "/usr/share/zoneinfo/Australia/Adelaide")
        #expect(ZoneInfo.identifier(byTZ: nil, localtime: link) == "Australia/Adelaide")
        // A relative link, as `ln -sr` makes.
        let relative = directory.file("relative")
        try FileManager.default.createSymbolicLink(
            atPath: relative, withDestinationPath: "../../usr/share/zoneinfo/Asia/Tokyo")
        #expect(ZoneInfo.identifier(byTZ: nil, localtime: relative) == "Asia/Tokyo")
        // A copy of the file carries no name.
        let copy = directory.file("copy")
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: copy)
        #expect(ZoneInfo.identifier(byTZ: nil, localtime: copy) == nil)
        #expect(ZoneInfo.identifier(byTZ: nil, localtime: directory.file("missing")) == nil)
    }

    @Test func honoursTZDIR() throws {
        let directory = TemporaryDirectory("tzdir")
        try FileManager.default.createDirectory(atPath: directory.file("Test"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: directory.file("Test/Zone"))
        #expect(ZoneInfo.identifier(byTZ: "Test/Zone", tzdir: directory.path) == "Test/Zone")
        #expect(ZoneInfo.identifier(byTZ: directory.file("Test/Zone"), tzdir: directory.path) == "Test/Zone")
        #expect(ZoneInfo.identifier(byTZ: "Asia/Tokyo", tzdir: directory.path) == nil)
    }
}
