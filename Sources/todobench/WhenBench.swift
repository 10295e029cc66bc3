import TodoCore
import TodoTime
import TodoWhen

/// todoctl's WHEN parser per input (`TimeExpression.when`, what `--due` runs), in Asia/Tokyo:
/// English and Japanese forms side by side, each parsed `calls` times per sample.
enum WhenBench {
    static let inputs: [(String, String)] = [
        ("en: 2026-12-24", "2026-12-24"),
        ("en: tomorrow at 9am", "tomorrow at 9am"),
        ("en: tomorrow morning", "tomorrow morning"),
        ("en: next friday 5pm", "next friday 5pm"),
        ("en: on Dec 24 at 5pm", "on Dec 24 at 5pm"),
        ("en: in 1.5 hours", "in 1.5 hours"),
        ("en: eom", "eom"),
        ("ja: 明日の朝", "明日の朝"),
        ("ja: 来週金曜の午後3時", "来週金曜の午後3時"),
        ("ja: 12月24日", "12月24日"),
        ("ja: 三日後", "三日後"),
        ("ja: １５時", "１５時"),
        ("ja: 月末", "月末"),
        ("bad: 明日の午前 (error)", "明日の午前")
    ]

    static func run(calls: Int, samples: Int) throws {
        print("== when: todoctl's WHEN parse per input (Asia/Tokyo; `TimeExpression.when`)")
        guard let zone = ZoneInfo(identifier: "Asia/Tokyo") else { throw BenchError("no zone Asia/Tokyo") }
        let now = Instant(rfc3339: "2026-12-01T01:00:00Z")!
        var sink: Int64 = 0
        for (name, text) in inputs {
            let times = Measure.samples(samples) {
                for _ in 0..<calls {
                    sink &+= (try? TimeExpression.when(text, now: now, timeZone: zone))?.instant.usec ?? 1
                }
            }
            report(name, times.map { $0 / Double(calls) }, extra: "per call")
        }
        if sink == 42 { print("") } // keeps the work from being optimized away
    }
}
