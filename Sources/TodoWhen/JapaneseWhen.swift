import TodoCore
import TodoTime

/// WHEN in Japanese, as people type it (todoctl(1), WHEN AND DURATION): a date, a time or both
/// (`明日の朝`, `明日15時`, `来週金曜の午後3時`), a relative phrase (`3日後`, `1時間半後`, `2日前`) or
/// the end of a period (`月末`, `週末`, `年末`). Digits may be full-width (already made ASCII by
/// `halfWidth`) or kanji numerals (`三日後`, `十二月二十四日`). Each form means what its English
/// counterpart means (`明日` is `tomorrow`, `金曜` is `friday`, `来週` is `next week`, `3日後` is
/// `in 3 days`, `月末` is `eom`, `今夜` is `tonight`): the day and time rules are the English
/// grammar's own (`resolve`), only the words differ. Weeks start on Monday: `来週金曜` is the
/// Friday of the Monday-to-Sunday week after this one.
extension TimeExpression {
    /// `text` (lowercased, ASCII digits) read as Japanese WHEN; nil when it is not one.
    package static func japanese(_ text: String, now: Instant, timeZone: ZoneInfo, remindTime: Int64) -> When? {
        var scanner = JapaneseScanner(text.filter { !$0.isWhitespace })
        guard let phrase = scanner.phrase(), scanner.atEnd, checked(now.usec) != nil else { return nil }
        let today = LocalTime(now, in: timeZone).days
        let time = phrase.time.flatMap { $0.secondOfDay(remindTime: remindTime) }
        if phrase.time != nil && time == nil { return nil }
        switch phrase.date {
        case .relative(let parts, let sign):
            guard let time else { return shifted(now, by: parts, sign: sign, calendarDays: true, timeZone: timeZone) }
            // `3日後の朝`: the day a calendar shift reaches, at that time.
            guard parts.isCalendarOnly,
                let moved = shifted(now, by: parts, sign: sign, calendarDays: true, timeZone: timeZone)
            else { return nil }
            return resolve(
                .day(LocalTime(moved.instant, in: timeZone).days), secondOfDay: time, now: now, today: today,
                timeZone: timeZone)
        case .end(let word):
            guard let day = endOf(word, today: today) else { return nil }
            return LocalTime.instant(days: day, secondOfDay: time ?? 86_399, in: timeZone).map { When(instant: $0) }
        case .day(let day):
            guard let phrase = day.dayPhrase(today: today) else { return nil }
            return resolve(phrase, secondOfDay: time, now: now, today: today, timeZone: timeZone)
        case nil:
            guard let time else { return nil }
            return resolve(.comingTime, secondOfDay: time, now: now, today: today, timeZone: timeZone)
        }
    }

    /// A reminder's lead in Japanese, `15分前`, `1時間前`, `1日前`, `1時間半前` ("that long before"):
    /// microseconds (a day is 24 hours, as in a DURATION); nil for anything else, months and years
    /// included.
    package static func japaneseLead(_ text: String) -> Int64? {
        var scanner = JapaneseScanner(normalize(text).filter { !$0.isWhitespace })
        guard case .relative(let parts, -1)? = scanner.relative(), scanner.atEnd, parts.years == 0, parts.months == 0
        else { return nil }
        var total = parts.fractionUsec
        for (count, size) in [
            (parts.weeks, Int64(604_800_000_000)), (parts.days, 86_400_000_000), (parts.hours, 3_600_000_000),
            (parts.minutes, 60_000_000), (parts.seconds, 1_000_000)
        ] {
            let (product, o1) = count.multipliedReportingOverflow(by: size)
            let (sum, o2) = total.addingReportingOverflow(product)
            guard !o1, !o2 else { return nil }
            total = sum
        }
        return total > 0 ? total : nil
    }

    /// A clock time alone, in English (`7:30`, `7:30am`) or Japanese (`7時半`, `午前7時`): seconds
    /// after midnight; nil for anything else, parts of the day (`朝`, `morning`) included.
    package static func clockTime(_ text: String) -> Int64? {
        let normalized = normalize(text)
        if let seconds = time(Substring(normalized)) { return seconds }
        var scanner = JapaneseScanner(normalized.filter { !$0.isWhitespace })
        guard let time = scanner.time(), scanner.atEnd, time.hour != nil || time.named == .noon else { return nil }
        return time.secondOfDay(remindTime: defaultRemindTime)
    }

    /// The year (when written), month and day of a Japanese date in `text` (`2026年2月30日`,
    /// `2月30日`), not checked: for the message about a date that does not exist.
    package static func japaneseDateFields(_ text: String) -> (Int64?, Int64, Int64)? {
        var scanner = JapaneseScanner(text.filter { !$0.isWhitespace })
        while !scanner.atEnd {
            let mark = scanner.index
            if let (year, month, day) = scanner.monthDayFields() { return (year, month, day) }
            scanner.index = mark + 1
        }
        return nil
    }
}

extension TimeExpression.RelativeParts {
    /// No counts yet.
    package init() {}

    /// Only years, months, weeks and days: a shift that lands on a calendar day.
    package var isCalendarOnly: Bool { hours == 0 && minutes == 0 && seconds == 0 && fractionUsec == 0 }
}

/// What a Japanese WHEN says: a date part, a time part, or both.
package struct JapanesePhrase {
    package enum DatePart {
        /// `3日後`, `2週間前`: counts and a direction (1 later, -1 earlier).
        case relative(TimeExpression.RelativeParts, sign: Int64)
        /// `月末`, `週末`, `年末`: `eom`, `eow`, `eoy`.
        case end(Substring)
        /// A day.
        case day(JapaneseDay)
    }

    package var date: DatePart?
    package var time: JapaneseTime?
}

/// A day in Japanese, resolved against today.
package enum JapaneseDay {
    /// Days from today (`今日` 0, `明日` 1, `明後日` 2, `昨日` -1, `一昨日` -2).
    case offset(Int64)
    /// A weekday (0 = Sunday) with no week named: the next such day, as `friday`.
    case weekday(Int64)
    /// A weekday (0 = Sunday) of the week `weeks` after this Monday-to-Sunday one (0 this week).
    case weekdayOfWeek(Int64, weeks: Int64)
    /// The Monday of the week `weeks` after this one (`来週`, as `next week`).
    case weekStart(weeks: Int64)
    /// Day `day` (nil: the 1st) of the month `months` after this one (`来月1日`, `来月`).
    case dayOfMonth(Int64?, months: Int64)
    /// Day `day` of the coming month that has it (`25日`).
    case comingDayOfMonth(Int64)
    /// `12月24日`: the coming one, as `Dec 24`; with a year, that year's (`2027年12月24日`).
    case monthDay(year: Int64?, month: Int64, day: Int64)
    /// 1 January of the year `years` after this one (`来年`); with a month and day, that date.
    case yearDate(years: Int64, month: Int64, day: Int64)

    /// The English grammar's phrase for this day.
    package func dayPhrase(today: Int64) -> TimeExpression.DayPhrase? {
        let (year, month, dayOfToday) = Instant.civil(days: today)
        switch self {
        case .offset(let n): return .day(today + n)
        case .weekday(let target): return .weekday(target)
        case .weekdayOfWeek(let target, let weeks):
            let monday = today - (TimeExpression.weekday(ofDays: today) + 6) % 7
            return .day(monday + weeks * 7 + (target + 6) % 7)
        case .weekStart(let weeks):
            let monday = today - (TimeExpression.weekday(ofDays: today) + 6) % 7
            return .day(monday + weeks * 7)
        case .dayOfMonth(let day, let months):
            let total = year * 12 + (month - 1) + months
            return Instant.days(year: total / 12, month: total % 12 + 1, day: day ?? 1).map { .day($0) }
        case .comingDayOfMonth(let day):
            // This month when the day is today or later, else the next month that has it.
            var total = year * 12 + (month - 1) + (day >= dayOfToday ? 0 : 1)
            for _ in 0..<3 {
                if let found = Instant.days(year: total / 12, month: total % 12 + 1, day: day) { return .day(found) }
                total += 1
            }
            return nil
        case .monthDay(let givenYear, let m, let d):
            if let givenYear { return Instant.days(year: givenYear, month: m, day: d).map { .day($0) } }
            let start = (m, d) >= (month, dayOfToday) ? year : year + 1
            for y in start..<(start + 8) {
                if let found = Instant.days(year: y, month: m, day: d) { return .day(found) }
            }
            return nil
        case .yearDate(let years, let m, let d):
            return Instant.days(year: year + years, month: m, day: d).map { .day($0) }
        }
    }
}

/// A time of day in Japanese.
package struct JapaneseTime {
    /// `午前`, `朝` (and `今朝`): hours are a.m.; `午後`, `夕方`, `夜`, `昼` (and `今夜`): p.m.
    package enum Half { case am, pm }
    /// A named time alone: `朝`, `昼`, `夕方`, `夜`, `正午`, `午後`.
    package enum Named { case morning, noon, afternoon, evening, night }

    package var half: Half?
    /// What `half` came from, when it names a time by itself (`明日の朝`).
    package var named: Named?
    package var hour: Int64?
    package var minute: Int64 = 0
    package var second: Int64 = 0

    /// Seconds after local midnight, or nil for an hour the half does not have (`午後13時`).
    package func secondOfDay(remindTime: Int64) -> Int64? {
        guard let hour else {
            switch named {
            case .morning: return remindTime
            case .noon: return 12 * 3600
            case .afternoon: return 15 * 3600
            case .evening: return 18 * 3600
            case .night: return 20 * 3600
            case nil: return nil
            }
        }
        guard minute < 60, second < 60 else { return nil }
        let h: Int64
        switch half {
        case nil:
            guard hour < 24 else { return nil }
            h = hour
        case .am:
            // `午前12時` is 00:00, as `12am`; `朝12時` is refused as unclear.
            guard hour <= 12, !(hour == 12 && named == .morning) else { return nil }
            h = hour % 12
        case .pm:
            // `午後12時` is noon, as `12pm`; `夜12時` and `夕方12時` are refused as unclear.
            guard hour <= 12, !(hour == 12 && (named == .night || named == .evening)) else { return nil }
            h = hour % 12 + 12
        }
        return h * 3600 + minute * 60 + second
    }
}

/// A cursor over the characters of a Japanese WHEN.
package struct JapaneseScanner {
    package let chars: [Character]
    package var index = 0

    package init(_ text: String) { chars = Array(text) }

    package var atEnd: Bool { index >= chars.count }

    /// Takes `word` when the text continues with it.
    package mutating func take(_ word: String) -> Bool {
        var at = index
        for c in word {
            guard at < chars.count, chars[at] == c else { return false }
            at += 1
        }
        index = at
        return true
    }

    /// Takes the first of `words` the text continues with (list longer words first).
    package mutating func take<T>(_ words: [(String, T)]) -> T? {
        for (word, value) in words where take(word) { return value }
        return nil
    }

    // MARK: Numbers

    package static let kanjiDigits: [Character: Int64] = [
        "〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9
    ]

    /// ASCII digits (1 to 15) or kanji numerals (`三`, `十二`, `二十四`, `三十一`, and digit by digit
    /// as in years, `二〇二七`).
    package mutating func number() -> Int64? {
        let start = index
        var digits = ""
        while !atEnd, let c = chars[index].asciiValue, c >= 48, c <= 57 {
            digits.append(chars[index])
            index += 1
        }
        if !digits.isEmpty {
            guard let n = TimeExpression.number(Substring(digits)) else {
                index = start
                return nil
            }
            return n
        }
        var value: Int64 = 0
        var pending: Int64?
        var sawTen = false
        var count = 0
        while !atEnd {
            let c = chars[index]
            if let d = Self.kanjiDigits[c] {
                guard count < 8 else { break }
                if sawTen {
                    guard pending == nil else { break }
                    pending = d
                } else {
                    pending = (pending ?? 0) * 10 + d
                }
            } else if c == "十", !sawTen {
                value = (pending ?? 1) * 10
                pending = nil
                sawTen = true
            } else {
                break
            }
            index += 1
            count += 1
        }
        guard count > 0 else {
            index = start
            return nil
        }
        return value + (pending ?? 0)
    }

    /// A decimal number (`1.5`), for hours and minutes: the whole part and the text after the point.
    package mutating func decimal() -> (Int64, Substring)? {
        let start = index
        guard let whole = number() else { return nil }
        guard !atEnd, chars[index] == ".", index > start, chars[start].isASCII else { return (whole, "") }
        index += 1
        var fraction = ""
        while !atEnd, let c = chars[index].asciiValue, c >= 48, c <= 57 {
            fraction.append(chars[index])
            index += 1
        }
        guard !fraction.isEmpty else {
            index = start
            return nil
        }
        return (whole, Substring(fraction))
    }

    // MARK: The whole phrase

    /// A date part, a time part (after an optional `の`), or both; nil when neither is here.
    package mutating func phrase() -> JapanesePhrase? {
        var result = JapanesePhrase()
        if take("今夜") || take("今晩") {
            result.date = .day(.offset(0))
            result.time = time(after: JapaneseTime(half: .pm, named: .night)) ?? JapaneseTime(half: .pm, named: .night)
            return result
        }
        if take("今朝") {
            result.date = .day(.offset(0))
            result.time =
                time(after: JapaneseTime(half: .am, named: .morning)) ?? JapaneseTime(half: .am, named: .morning)
            return result
        }
        result.date = datePart()
        // `の` joins a date and a time; it ends nothing.
        let mark = index
        if result.date != nil, take("の") {
            result.time = time()
            if result.time == nil { index = mark }
            return result
        }
        result.time = time()
        guard result.date != nil || result.time != nil else { return nil }
        return result
    }

    // MARK: Dates

    package static let dayWords: [(String, Int64)] = [
        ("明明後日", 3), ("しあさって", 3), ("明後日", 2), ("あさって", 2), ("明日", 1), ("あした", 1), ("あす", 1),
        ("今日", 0), ("きょう", 0), ("本日", 0), ("一昨日", -2), ("おととい", -2), ("昨日", -1), ("きのう", -1)
    ]
    package static let weekWords: [(String, Int64)] = [("再来週", 2), ("来週", 1), ("今週", 0), ("先週", -1)]
    package static let weekdayKanji: [Character: Int64] = ["日": 0, "月": 1, "火": 2, "水": 3, "木": 4, "金": 5, "土": 6]
    package static let endWords: [(String, Substring)] = [
        ("来月末", "eonm"), ("来週末", "eonw"), ("来年末", "eony"),
        ("今月末", "eom"), ("月末", "eom"), ("今週末", "eow"), ("週末", "eow"), ("今年末", "eoy"), ("年末", "eoy"),
        ("今日中", "eod"), ("今週中", "eow"), ("今月中", "eom"), ("年内", "eoy")
    ]

    /// A date part, or nil with nothing taken.
    package mutating func datePart() -> JapanesePhrase.DatePart? {
        let start = index
        if let part = datePartTaking() { return part }
        index = start
        return nil
    }

    private mutating func datePartTaking() -> JapanesePhrase.DatePart? {
        if let end = take(Self.endWords) { return .end(end) }
        if let offset = take(Self.dayWords) { return .day(.offset(offset)) }
        if let weeks = take(Self.weekWords) {
            let mark = index
            _ = take("の")
            if let target = weekday() { return .day(.weekdayOfWeek(target, weeks: weeks)) }
            index = mark
            // `来週` alone is its Monday, as `next week`; `今週`/`先週` alone name no day.
            return weeks > 0 ? .day(.weekStart(weeks: weeks)) : nil
        }
        if let target = weekday() { return .day(.weekday(target)) }
        let mark = index
        if let months = take([("再来月", Int64(2)), ("来月", 1), ("今月", 0)]) {
            let dayMark = index
            if let day = number(), take("日") { return .day(.dayOfMonth(day, months: months)) }
            index = dayMark
            // `来月`, `再来月` alone: the 1st, as `next month`.
            return months >= 1 ? .day(.dayOfMonth(nil, months: months)) : nil
        }
        if let years = take([("再来年", Int64(2)), ("来年", 1), ("今年", 0)]) {
            let dayMark = index
            if let fields = monthDayFields(), fields.0 == nil {
                return .day(.yearDate(years: years, month: fields.1, day: fields.2))
            }
            index = dayMark
            return years > 0 ? .day(.yearDate(years: years, month: 1, day: 1)) : nil
        }
        if let relative = relative() { return relative }
        index = mark
        if let (year, month, day) = monthDayFields() { return .day(.monthDay(year: year, month: month, day: day)) }
        index = mark
        if let day = number(), take("日"), (1...31).contains(day) { return .day(.comingDayOfMonth(day)) }
        index = mark
        return nil
    }

    /// `金曜`, `金曜日`, `金`+`曜日`: 0 for Sunday … 6 for Saturday.
    package mutating func weekday() -> Int64? {
        guard index + 1 < chars.count, let target = Self.weekdayKanji[chars[index]], chars[index + 1] == "曜" else {
            return nil
        }
        index += 2
        _ = take("日")
        return target
    }

    /// `[YYYY年]M月D日` (the year of four digits), fields not checked beyond their shape.
    package mutating func monthDayFields() -> (Int64?, Int64, Int64)? {
        let start = index
        var year: Int64?
        if let n = number(), take("年") { year = n } else { index = start }
        guard let month = number(), take("月"), let day = number(), take("日") else {
            index = start
            return nil
        }
        // `3日後`: a relative phrase, not a date.
        if take("後") || take("前") || take("間") {
            index = start
            return nil
        }
        return (year, month, day)
    }

    package static let units: [(String, String)] = [
        ("ヶ月", "mo"), ("か月", "mo"), ("カ月", "mo"), ("ヵ月", "mo"), ("ケ月", "mo"), ("箇月", "mo"),
        ("年", "y"), ("週間", "w"), ("週", "w"), ("日", "d"), ("時間", "h"), ("分", "m"), ("秒", "s")
    ]

    /// `3日後`, `1時間半後`, `1時間30分後`, `2週間前`: counts with units, then `後` (later) or `前` (earlier).
    package mutating func relative() -> JapanesePhrase.DatePart? {
        let start = index
        var parts = TimeExpression.RelativeParts()
        var any = false
        while true {
            let mark = index
            guard let (whole, fraction) = decimal(), let unit = take(Self.units) else {
                index = mark
                break
            }
            _ = take("間") // `3日間後`, `3ヶ月間後`
            if fraction.isEmpty {
                guard parts.add(whole, unit) else {
                    index = start
                    return nil
                }
            } else {
                guard parts.addDecimal(Substring("\(whole).\(fraction)"), unit) else {
                    index = start
                    return nil
                }
            }
            if unit == "h", take("半") { parts.fractionUsec += 1_800_000_000 }
            any = true
        }
        guard any else {
            index = start
            return nil
        }
        if take("後") || take("先") { return .relative(parts, sign: 1) }
        if take("前") { return .relative(parts, sign: -1) }
        index = start
        return nil
    }

    // MARK: Times

    /// A time of day: `15時`, `3時半`, `3時15分`, `15:30`, with `午前`/`午後`/`朝`/`夜`/`夕方`/`昼`
    /// before it, or one of those alone, or `正午`; nil when none is here.
    package mutating func time() -> JapaneseTime? {
        if take("正午") { return JapaneseTime(named: .noon) }
        let named: [(String, JapaneseTime)] = [
            ("午前", JapaneseTime(half: .am)), ("午後", JapaneseTime(half: .pm, named: .afternoon)),
            ("朝", JapaneseTime(half: .am, named: .morning)), ("夕方", JapaneseTime(half: .pm, named: .evening)),
            ("夜", JapaneseTime(half: .pm, named: .night)), ("晩", JapaneseTime(half: .pm, named: .night)),
            ("昼", JapaneseTime(half: .pm, named: .noon))
        ]
        if let prefix = take(named) {
            _ = take("の")
            if let timed = time(after: prefix) { return timed }
            // `午前` alone names no time.
            return prefix.named == nil ? nil : prefix
        }
        return time(after: JapaneseTime())
    }

    /// An hour (and minutes) after `base`'s half: `3時`, `3時半`, `3時15分`, `3時15分30秒`, `15:30`.
    package mutating func time(after base: JapaneseTime) -> JapaneseTime? {
        let start = index
        var result = base
        guard let hour = number() else { return nil }
        result.hour = hour
        if take("時") {
            if take("半") {
                result.minute = 30
            } else {
                let mark = index
                // `15時30分`, or `15時30` with the 分 left out.
                if let minute = number(), take("分") || !nextIsUnit {
                    result.minute = minute
                    let secondMark = index
                    if let second = number(), take("秒") { result.second = second } else { index = secondMark }
                } else {
                    index = mark
                }
            }
            // `3時間後` is relative, read before; here a following `間` means no time.
            if take("間") {
                index = start
                return nil
            }
            return result
        }
        guard take(":") else {
            index = start
            return nil
        }
        let mark = index
        guard let minute = twoDigits() else {
            index = start
            return nil
        }
        result.minute = minute
        if take(":") {
            guard let second = twoDigits() else {
                index = mark
                return nil
            }
            result.second = second
        }
        return result
    }

    /// Whether a unit of a relative phrase or a date follows (`15時30日`, `3時30秒` are no times).
    package var nextIsUnit: Bool {
        guard index < chars.count else { return false }
        return "日年月週間秒後前".contains(chars[index]) || Self.units.contains { $0.0.first == chars[index] }
    }

    /// Exactly two ASCII digits.
    package mutating func twoDigits() -> Int64? {
        guard index + 1 < chars.count, let a = chars[index].asciiValue, let b = chars[index + 1].asciiValue,
            (48...57).contains(a), (48...57).contains(b)
        else { return nil }
        index += 2
        return Int64(a - 48) * 10 + Int64(b - 48)
    }
}
