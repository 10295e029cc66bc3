import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One row of the final table: a figure, what it is compared with, and the goal it is held to.
/// `met` is informational: the bench reports, it never fails on a timing.
struct Row {
    var figure: String
    var value: String
    var peer: String
    var ratio: String
    var goal: String
    var met: Bool?
}

/// The rows every section contributes, printed once at the end.
final class Summary {
    nonisolated(unsafe) static var rows: [Row] = []
    nonisolated(unsafe) static var notes: [String] = []

    static func add(
        _ figure: String, value: String, peer: String = "—", ratio: String = "—", goal: String = "—", met: Bool? = nil
    ) {
        rows.append(Row(figure: figure, value: value, peer: peer, ratio: ratio, goal: goal, met: met))
    }

    /// A ratio row: `value ÷ peer`, held to `goal` by `check`.
    static func ratio(_ figure: String, value: String, peer: String, ratio: Double, goal: String, met: Bool) {
        add(
            figure, value: value, peer: peer, ratio: ratio.isFinite ? String(format: "%.2f×", ratio) : "?", goal: goal,
            met: met)
    }

    static func note(_ text: String) {
        notes.append(text)
        print("  note: \(text)")
    }

    /// The table as Markdown, so it can be pasted into docs/PERFORMANCE.md as it is.
    static func markdown() -> String {
        var out = "| figure | value | floor or peer | ratio | goal | met/short |\n|---|---|---|---|---|---|\n"
        for row in rows {
            let met = row.met.map { $0 ? "met" : "**short**" } ?? "—"
            out += "| \(row.figure) | \(row.value) | \(row.peer) | \(row.ratio) | \(row.goal) | \(met) |\n"
        }
        return out
    }
}

/// Formats a rate.
func formatRate(_ perSecond: Double, _ unit: String) -> String {
    perSecond >= 100 ? String(format: "%.0f %@/s", perSecond, unit) : String(format: "%.1f %@/s", perSecond, unit)
}

/// Formats a count with thousands separators, e.g. 1,000,000.
func formatCount(_ n: Int) -> String {
    let digits = Array(String(n))
    var out = ""
    for (i, d) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
        out.append(d)
    }
    return out
}

/// A short size label: 1k, 10k, 100k, 1M.
func sizeLabel(_ n: Int) -> String {
    if n >= 1_000_000 && n % 1_000_000 == 0 { return "\(n / 1_000_000)M" }
    if n >= 1000 && n % 1000 == 0 { return "\(n / 1000)k" }
    return "\(n)"
}

/// Writes straight to standard output, unbuffered, so progress shows line by line through a pipe
/// or `tee` (shadows `Swift.print` in this module).
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator) + terminator
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < raw.count {
            let n = write(1, raw.baseAddress! + offset, raw.count - offset)
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}
