/// `--every` as Japanese people write it, read into the English RULE it means (or an RRULE):
/// `毎日`, `平日`, `毎週`, `毎週水曜`, `毎週月曜と木曜`, `隔週金曜`, `3日ごと`, `2週間ごと`, `毎月`,
/// `毎月25日`, `毎月末`, `毎月最終金曜`, `毎月第2月曜`, `毎年`, `毎年12月24日`; each optionally
/// followed, after a space, by `完了後` (after done), `N回` (for N times) or `WHENまで` (until WHEN).
/// Digits may be full-width. Nil when the text is not such a rule (English rules are read as they are).
enum JapaneseEvery {
    static func english(_ text: String) -> String? {
        var s = Substring(
            String(
                text.map { c -> Character in
                    // Full-width digits and spaces as ASCII.
                    guard let v = c.unicodeScalars.first?.value, c.unicodeScalars.count == 1 else { return c }
                    if (0xFF10...0xFF19).contains(v) { return Character(Unicode.Scalar(UInt8(v - 0xFF10 + 0x30))) }
                    return v == 0x3000 ? " " : c
                }
            ).trimmingSpaces)
        guard s.unicodeScalars.contains(where: { $0.value >= 0x3000 }) else { return nil }
        var suffixes: [String] = []
        // Suffixes, from the end.
        while true {
            if s.hasSuffix("完了後") || s.hasSuffix("完了してから") {
                s = s.dropLast(s.hasSuffix("完了後") ? 3 : 6)
                suffixes.append("after done")
            } else if s.hasSuffix("回"), let (n, rest) = trailingNumber(s.dropLast()) {
                s = rest
                suffixes.append("for \(n) times")
            } else if s.hasSuffix("まで"), let space = s.firstIndex(where: { $0 == " " || $0 == "、" }) {
                // The rule is written without spaces: the WHEN is all after the first one.
                suffixes.append("until " + s[s.index(after: space)...].dropLast(2))
                s = s[..<space]
            } else {
                break
            }
            s = Substring(String(s).trimmingSpaces)
        }
        guard let rule = rule(String(s)) else { return nil }
        return ([rule] + suffixes.reversed()).joined(separator: " ")
    }

    private static let weekdayNames: [Character: String] = [
        "月": "mon", "火": "tue", "水": "wed", "木": "thu", "金": "fri", "土": "sat", "日": "sun"
    ]

    /// The rule without suffixes.
    private static func rule(_ text: String) -> String? {
        var s = Substring(text)
        func take(_ word: String) -> Bool {
            guard s.hasPrefix(word) else { return false }
            s = s.dropFirst(word.count)
            return true
        }
        if take("毎日") { return s.isEmpty ? "day" : nil }
        if take("毎平日") || take("平日") { return s.isEmpty ? "weekday" : nil }
        if take("毎週") || take("隔週") {
            let every = text.hasPrefix("隔週") ? "2 weeks" : "week"
            if s.isEmpty { return every }
            guard let days = weekdays(s) else { return nil }
            return every + " on " + days
        }
        if let (n, rest) = leadingNumber(s) {
            s = rest
            for (unit, english) in [
                ("日ごと", "days"), ("日おき", "days"), ("週間ごと", "weeks"), ("週ごと", "weeks"), ("ヶ月ごと", "months"),
                ("か月ごと", "months"), ("カ月ごと", "months"), ("ヵ月ごと", "months"), ("年ごと", "years")
            ] where s == unit {
                // `2日おき` is every other day (a day between): every 2 days.
                return unit == "日おき" ? "\(n + 1) days" : "\(n) \(english)"
            }
            return nil
        }
        if take("毎月") {
            if s.isEmpty { return "month" }
            if s == "末" || s == "最終日" || s == "末日" { return "month on the last day" }
            if take("最終") {
                if s == "平日" { return "month on the last weekday" }
                return weekday(s).map { "month on the last \($0)" }
            }
            if take("第"), let (n, rest) = leadingNumber(s), (1...5).contains(n), let day = weekday(rest) {
                return "month on the \(ordinal(n)) \(day)"
            }
            if let (n, rest) = leadingNumber(s), rest == "日", (1...31).contains(n) {
                return "month on the \(ordinal(n))"
            }
            return nil
        }
        if take("毎年") {
            if s.isEmpty { return "year" }
            guard let (m, afterMonth) = leadingNumber(s), afterMonth.hasPrefix("月"), (1...12).contains(m),
                let (d, afterDay) = leadingNumber(afterMonth.dropFirst()), afterDay == "日", (1...31).contains(d)
            else { return nil }
            return "FREQ=YEARLY;BYMONTH=\(m);BYMONTHDAY=\(d)"
        }
        return nil
    }

    /// `水曜`, `水曜日`, `水`: the English abbreviation.
    private static func weekday(_ s: Substring) -> String? {
        guard let first = s.first, let name = weekdayNames[first] else { return nil }
        let rest = s.dropFirst()
        return rest.isEmpty || rest == "曜" || rest == "曜日" ? name : nil
    }

    /// `月曜と木曜`, `月・木`, `月曜、水曜、金曜`: `mon,thu`.
    private static func weekdays(_ s: Substring) -> String? {
        let parts = s.split(whereSeparator: { "と・、,".contains($0) || $0 == " " })
        guard !parts.isEmpty else { return nil }
        var names: [String] = []
        for part in parts {
            guard let name = weekday(part) else { return nil }
            names.append(name)
        }
        return names.joined(separator: ",")
    }

    private static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }

    private static func leadingNumber(_ s: Substring) -> (Int, Substring)? {
        let digits = s.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, digits.count <= 4, let n = Int(digits) else { return nil }
        return (n, s.dropFirst(digits.count))
    }

    private static func trailingNumber(_ s: Substring) -> (Int, Substring)? {
        let digits = s.reversed().prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, digits.count <= 4, let n = Int(String(digits.reversed())) else { return nil }
        return (n, Substring(String(s.dropLast(digits.count)).trimmingSpaces))
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else {
            return ""
        }
        return String(self[first...last])
    }
}
