import Foundation
import Testing
import TodoTestSupport

@testable import TodoTime

/// Seconds since the Unix epoch of a UTC date and time, computed by Foundation.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return Int64(calendar.date(from: components)!.timeIntervalSince1970)
}

/// The bytes of the file at `path`.
func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

let zoneDirectory = "/usr/share/zoneinfo"

let year1900 = utc(1900, 1, 1)
let year1970: Int64 = 0
let year2040 = utc(2040, 1, 1)
let year2100 = utc(2100, 1, 1)
