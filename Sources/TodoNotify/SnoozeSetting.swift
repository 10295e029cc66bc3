import TodoPosix

/// The `snooze` key of the config file todoctl reads (`${XDG_CONFIG_HOME:-~/.config}/todod/config`,
/// `key = value` lines): how long the Snooze button puts a reminder off. Only this key is read
/// here; the others belong to todoctl.
enum SnoozeSetting {
    /// Ten minutes, as todoctl's `snooze` without a duration.
    static let defaultUsec: Int64 = 10 * 60 * 1_000_000

    /// The config file's path, or nil when neither XDG_CONFIG_HOME nor HOME says where it is.
    static func path(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/todod/config" }
        if let home = environment["HOME"], !home.isEmpty { return (home.hasSuffix("/") ? home : home + "/") + ".config/todod/config" }
        return nil
    }

    /// The snooze length in microseconds: the file's `snooze`, else the default. A value it
    /// cannot read is reported through `warn` (one line) and the default is used.
    static func load(environment: [String: String], warn: (String) -> Void) -> Int64 {
        guard let path = path(environment: environment),
              let bytes = try? Files.contents(of: path, maxBytes: 1 << 20) else { return defaultUsec }
        let text = String(decoding: bytes, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingSpaces
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            guard trimmed[..<equals].trimmingSpaces == "snooze" else { continue }
            let value = trimmed[trimmed.index(after: equals)...].trimmingSpaces
            if let usec = duration(value) { return usec }
            warn("\(path):\(index + 1): snooze: not a duration such as 10m, 1h or 90s: \(value); using 10 minutes")
            return defaultUsec
        }
        return defaultUsec
    }

    /// "10m", "10 min", "1h30m", "90s", "2d", "1w" in microseconds (positive, at most a year).
    static func duration<S: StringProtocol>(_ text: S) -> Int64? {
        let units: [(String, Int64)] = [("weeks", 604_800), ("week", 604_800), ("w", 604_800), ("days", 86_400), ("day", 86_400), ("d", 86_400),
                                        ("hours", 3600), ("hour", 3600), ("h", 3600), ("minutes", 60), ("minute", 60), ("mins", 60), ("min", 60), ("m", 60),
                                        ("seconds", 1), ("second", 1), ("secs", 1), ("sec", 1), ("s", 1)]
        var rest = Substring(text.lowercased().filter { $0 != " " })
        guard !rest.isEmpty else { return nil }
        var total: Int64 = 0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let number = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let (name, seconds) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(name.count)
            total += number * seconds
        }
        guard total > 0, total <= 366 * 86_400 else { return nil }
        return total * 1_000_000
    }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { $0 != " " && $0 != "\t" && $0 != "\r" }) else { return "" }
        let last = s.lastIndex(where: { $0 != " " && $0 != "\t" && $0 != "\r" })!
        return s[first...last]
    }
}
