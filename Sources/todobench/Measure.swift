import Foundation
import TodoPosix

/// Timing helpers: one warm-up, several samples, median and spread.
enum Measure {
    /// Monotonic time in seconds.
    static func now() -> Double { Posix.monotonicSeconds() }

    /// Seconds taken by each of `samples` runs of `body`, after one unmeasured warm-up run.
    static func samples(_ samples: Int, warmUp: Bool = true, _ body: () throws -> Void) rethrows -> [Double] {
        if warmUp { try body() }
        var times: [Double] = []
        for _ in 0..<samples {
            let start = now()
            try body()
            times.append(now() - start)
        }
        return times
    }
}

/// A summary of samples: median, min and max, and percentiles when asked.
struct Stats {
    let sorted: [Double]
    init(_ values: [Double]) { sorted = values.sorted() }
    var median: Double { percentile(50) }
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let index = Swift.min(sorted.count - 1, Swift.max(0, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[index]
    }
    var min: Double { sorted.first ?? .nan }
    var max: Double { sorted.last ?? .nan }
}

/// Formats seconds with a unit that keeps three significant digits.
func formatSeconds(_ s: Double) -> String {
    if s < 1e-3 { return String(format: "%.1f µs", s * 1e6) }
    if s < 1 { return String(format: "%.2f ms", s * 1e3) }
    return String(format: "%.2f s", s)
}

/// Prints one result line: name, median, spread (min–max) and the sample count.
func report(_ name: String, _ times: [Double], extra: String = "") {
    let stats = Stats(times)
    let line =
        name.padding(toLength: 44, withPad: " ", startingAt: 0)
        + "median " + formatSeconds(stats.median).padding(toLength: 10, withPad: " ", startingAt: 0)
        + "  min " + formatSeconds(stats.min).padding(toLength: 10, withPad: " ", startingAt: 0)
        + "  max " + formatSeconds(stats.max).padding(toLength: 10, withPad: " ", startingAt: 0)
        + "  n=\(times.count)" + (extra.isEmpty ? "" : "  " + extra)
    print(line)
}
