import Foundation
import Testing
import TodoCore
import TodoTestSupport
import TodoTime
import TodoWhen

@testable import TodoCLI

/// Random strings built from the grammar's own pieces: parsing must return or throw, never trap,
/// and every accepted value must lie in the years 0001…9999.
@Suite struct TimeExpressionFuzzTests {
    static let pieces = [
        "+", "-", "@", "in", " ", "  ", "t", ":", "am", "pm", "now", "today", "tomorrow", "mon", "sunday",
        "0", "1", "9", "12", "24", "59", "60", "2026", "-02-", "-12-", "29", "30", "31", "s", "m", "h", "d", "w",
        "hours", "min", "day", "weeks", "99999999", "9999999999999999", "z", "+09:00", ".5", "牛", "🍣", "\u{301}",
        "mo", "y", "months", "years", "ago", "next", "last", "week", "month", "at", "on", "noon", "midnight", "tonight",
        "eod", "eow", "eom", "eoy", "dec", "feb", "st", "th", ",", "a", "and", "yesterday",
        // Japanese
        "明日", "今夜", "の", "朝", "夜", "午前", "午後", "正午", "時", "半", "分", "秒", "日", "日後", "週間", "か月", "年", "後", "前",
        "来週", "今週", "来月", "来年", "金曜", "曜日", "月", "月末", "週末", "十", "三", "二十", "九九九九九九九九九", "〇", "１", "９",
        "１５", "：", "　", "999999999999999"
    ]

    @Test func neverTraps() throws {
        let seed = SeededRandom.seed(from: "TODOD_FUZZ_SEED")
        var random = SeededRandom(seed: seed)
        let zones = try ["America/New_York", "Europe/Berlin", "Asia/Tokyo", "UTC"].map {
            try #require(ZoneInfo(identifier: $0))
        }
        let nows = [
            Instant(usec: 1_796_115_600_000_000), Instant(usec: 0), Instant(usec: .max), Instant(usec: .min),
            Instant(usec: 253_402_300_799_000_000)
        ]
        let bounds = TimeExpression.minUsec...TimeExpression.maxUsec
        for _ in 0..<3000 {
            let count = Int.random(in: 1...5, using: &random)
            let text = (0..<count).map { _ in Self.pieces.randomElement(using: &random) ?? "" }.joined()
            let now = nows.randomElement(using: &random) ?? nows[0]
            let zone = zones.randomElement(using: &random) ?? zones[0]
            if let value = try? TimeExpression.instant(text, now: now, timeZone: zone) {
                #expect(bounds.contains(value.usec), "seed \(seed): \(text.debugDescription)")
            }
            if let usec = try? TimeExpression.duration(text) {
                #expect(usec > 0, "seed \(seed): \(text.debugDescription)")
            }
            _ = try? TimeExpression.remind(text, due: now, now: now, timeZone: zone)
            _ = TerminalText.truncate(text, to: Int.random(in: -1...12, using: &random))
        }
    }
}
