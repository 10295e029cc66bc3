import Foundation
import Testing
import TodoCore
import TodoTime
import TodoWhen

@testable import TodoCLI

/// The Japanese WHEN forms and the English additions, in the five zones of `WhenGrammarTests`,
/// checked as local wall-clock times through Foundation's time zones; and that a form written in
/// both languages means the same in each.
@Suite struct JapaneseWhenTests {
    typealias G = WhenGrammarTests

    /// From Tuesday 2026-12-01 10:00 local.
    static let forms: [(String, String)] = [
        // as people write them (the morning of Tuesday 2026-12-01)
        ("来月末", "2027-01-31 23:59:59"),
        ("来週末", "2026-12-13 23:59:59"),
        ("再来週", "2026-12-14 00:00:00 all-day"),
        ("2026/12/24", "2026-12-24 00:00:00 all-day"),
        ("12/24 15:00", "2026-12-24 15:00:00"),
        ("11/30", "2027-11-30 00:00:00 all-day"),
        // days
        ("今日", "2026-12-01 00:00:00 all-day"),
        ("明日", "2026-12-02 00:00:00 all-day"),
        ("あした", "2026-12-02 00:00:00 all-day"),
        ("明後日", "2026-12-03 00:00:00 all-day"),
        ("昨日", "2026-11-30 00:00:00 all-day"),
        ("一昨日", "2026-11-29 00:00:00 all-day"),
        ("今夜", "2026-12-01 20:00:00"),
        ("今朝", "2026-12-01 09:00:00"),
        // parts of the day and times: today while still ahead, else tomorrow
        ("朝", "2026-12-02 09:00:00"),
        ("昼", "2026-12-01 12:00:00"),
        ("夕方", "2026-12-01 18:00:00"),
        ("夜", "2026-12-01 20:00:00"),
        ("正午", "2026-12-01 12:00:00"),
        ("午後", "2026-12-01 15:00:00"),
        ("15時", "2026-12-01 15:00:00"),
        ("9時", "2026-12-02 09:00:00"),
        ("3時半", "2026-12-02 03:30:00"),
        ("15時45分", "2026-12-01 15:45:00"),
        ("10時0分1秒", "2026-12-01 10:00:01"),
        ("午前11時", "2026-12-01 11:00:00"),
        ("午後3時", "2026-12-01 15:00:00"),
        ("午後3時半", "2026-12-01 15:30:00"),
        ("午前0時", "2026-12-02 00:00:00"),
        ("午前12時", "2026-12-02 00:00:00"),
        ("午後0時", "2026-12-01 12:00:00"),
        ("午後12時", "2026-12-01 12:00:00"),
        ("夜9時", "2026-12-01 21:00:00"),
        ("朝7時", "2026-12-02 07:00:00"),
        ("17:30", "2026-12-01 17:30:00"),
        // weekdays (today is Tuesday; weeks run Monday to Sunday)
        ("金曜", "2026-12-04 00:00:00 all-day"),
        ("金曜日", "2026-12-04 00:00:00 all-day"),
        ("火曜", "2026-12-08 00:00:00 all-day"),
        ("火曜17時", "2026-12-01 17:00:00"),
        ("来週の月曜", "2026-12-07 00:00:00 all-day"),
        ("来週月曜日", "2026-12-07 00:00:00 all-day"),
        ("来週金曜", "2026-12-11 00:00:00 all-day"),
        ("今週金曜", "2026-12-04 00:00:00 all-day"),
        ("今週の月曜", "2026-11-30 00:00:00 all-day"),
        ("先週金曜", "2026-11-27 00:00:00 all-day"),
        ("再来週の水曜", "2026-12-16 00:00:00 all-day"),
        ("来週", "2026-12-07 00:00:00 all-day"),
        // relative
        ("3日後", "2026-12-04 10:00:00"),
        ("2週間後", "2026-12-15 10:00:00"),
        ("1か月後", "2027-01-01 10:00:00"),
        ("1ヶ月後", "2027-01-01 10:00:00"),
        ("2カ月後", "2027-02-01 10:00:00"),
        ("1年後", "2027-12-01 10:00:00"),
        ("2時間後", "2026-12-01 12:00:00"),
        ("30分後", "2026-12-01 10:30:00"),
        ("1時間半後", "2026-12-01 11:30:00"),
        ("1.5時間後", "2026-12-01 11:30:00"),
        ("1時間30分後", "2026-12-01 11:30:00"),
        ("3日前", "2026-11-28 10:00:00"),
        ("2時間前", "2026-12-01 08:00:00"),
        // ends of periods
        ("月末", "2026-12-31 23:59:59"),
        ("週末", "2026-12-06 23:59:59"),
        ("年末", "2026-12-31 23:59:59"),
        // dates: the coming one without a year
        ("12月24日", "2026-12-24 00:00:00 all-day"),
        ("12月1日", "2026-12-01 00:00:00 all-day"),
        ("11月30日", "2027-11-30 00:00:00 all-day"),
        ("2027年1月5日", "2027-01-05 00:00:00 all-day"),
        ("来月1日", "2027-01-01 00:00:00 all-day"),
        ("来月15日", "2027-01-15 00:00:00 all-day"),
        ("来月", "2027-01-01 00:00:00 all-day"),
        ("再来月", "2027-02-01 00:00:00 all-day"),
        ("15時30", "2026-12-01 15:30:00"),
        ("明日の正午", "2026-12-02 12:00:00"),
        ("来週の金曜日の夜8時", "2026-12-11 20:00:00"),
        ("来年", "2027-01-01 00:00:00 all-day"),
        ("25日", "2026-12-25 00:00:00 all-day"),
        // combinations
        ("明日の朝", "2026-12-02 09:00:00"),
        ("明日15時", "2026-12-02 15:00:00"),
        ("明日の15時", "2026-12-02 15:00:00"),
        ("明日の午後", "2026-12-02 15:00:00"),
        ("明日の夕方", "2026-12-02 18:00:00"),
        ("来週金曜の午後3時", "2026-12-11 15:00:00"),
        ("金曜の夜", "2026-12-04 20:00:00"),
        ("今夜9時", "2026-12-01 21:00:00"),
        ("明日 9:30", "2026-12-02 09:30:00"),
        ("12月24日の午後5時", "2026-12-24 17:00:00"),
        ("2026年12月24日 15時", "2026-12-24 15:00:00"),
        ("3日後の朝", "2026-12-04 09:00:00"),
        ("月末の17時", "2026-12-31 17:00:00"),
        // full-width digits and kanji numerals
        ("１５時", "2026-12-01 15:00:00"),
        ("明日１５時３０分", "2026-12-02 15:30:00"),
        ("１２月２４日", "2026-12-24 00:00:00 all-day"),
        ("三日後", "2026-12-04 10:00:00"),
        ("二時間後", "2026-12-01 12:00:00"),
        ("十二月二十四日", "2026-12-24 00:00:00 all-day"),
        ("三十一日", "2026-12-31 00:00:00 all-day"),
        ("来月三日", "2027-01-03 00:00:00 all-day"),
        ("午後三時", "2026-12-01 15:00:00"),
        // the English additions
        ("on friday", "2026-12-04 00:00:00 all-day"),
        ("on Dec 24 at 5pm", "2026-12-24 17:00:00"),
        ("tomorrow morning", "2026-12-02 09:00:00"),
        ("tomorrow afternoon", "2026-12-02 15:00:00"),
        ("tomorrow evening", "2026-12-02 18:00:00"),
        ("friday night", "2026-12-04 20:00:00"),
        ("in 1.5 hours", "2026-12-01 11:30:00"),
        ("in 1.5h", "2026-12-01 11:30:00"),
        ("in 2.25 minutes", "2026-12-01 10:02:15"),
        ("2027-1-5", "2027-01-05 00:00:00 all-day"),
        ("2027-1-5 9am", "2027-01-05 09:00:00"),
        ("2027-01-5T09:30", "2027-01-05 09:30:00"),
        ("１５:００", "2026-12-01 15:00:00")
    ]

    @Test(arguments: G.zones)
    func everyForm(zone: String) throws {
        let now = try G.instant(local: G.tuesdayMorning, zone: zone)
        for (text, expected) in Self.forms {
            #expect(try G.read(text, now: now, zone: zone) == expected, "\(text) in \(zone)")
        }
    }

    /// Pairs of the two languages that must name the same instant, all-day or not.
    static let pairs: [(String, String)] = [
        ("今日", "today"), ("明日", "tomorrow"), ("昨日", "yesterday"), ("今夜", "tonight"), ("正午", "noon"),
        ("朝", "morning"), ("午後", "afternoon"), ("夕方", "evening"), ("夜", "night"),
        ("明日の朝", "tomorrow morning"), ("明日の夕方", "tomorrow evening"), ("明日15時", "tomorrow 15:00"),
        ("午後3時", "3pm"), ("午前0時", "12am"), ("午後12時", "12pm"), ("15時", "15:00"), ("9時半", "9:30"),
        ("金曜", "friday"), ("日曜日", "sunday"), ("月曜の9時", "monday 9am"), ("来週", "next week"),
        ("3日後", "in 3 days"), ("2週間後", "in 2 weeks"), ("1か月後", "in 1 month"), ("1年後", "in 1 year"),
        ("2時間後", "in 2 hours"), ("90分後", "in 90 minutes"), ("1時間半後", "in 1.5 hours"),
        ("3日前", "3 days ago"), ("2時間前", "2 hours ago"),
        ("月末", "eom"), ("週末", "eow"), ("年末", "eoy"), ("来月", "next month"), ("来年", "next year"),
        ("12月24日", "Dec 24"), ("2月29日", "Feb 29"), ("2027年1月5日", "2027-01-05"), ("12月24日の午後5時", "Dec 24 at 5pm"),
        // As people write dates: slashes, the ends of next periods, short forms.
        ("来月末", "end of next month"), ("来週末", "end of next week"), ("来年末", "end of next year"), ("月末", "end of month"),
        ("週末", "end of this week"), ("2027/01/05", "2027-01-05"), ("12/24", "Dec 24"), ("12/24 15:00", "Dec 24 at 3pm"),
        ("2/29", "Feb 29"), ("明日", "tmrw"), ("明日の朝", "tmrw morning")
    ]

    /// At many instants over three years (every 37 hours and 11 minutes, so every weekday and hour
    /// comes up, DST changes included), in every zone: each pair agrees.
    @Test(arguments: G.zones)
    func formsInBothLanguagesMeanTheSame(zone: String) throws {
        let tz = try #require(ZoneInfo(identifier: zone))
        var now = try #require(Instant(rfc3339: "2026-01-01T00:00:00Z"))
        for _ in 0..<700 {
            for remindTime: Int64 in [TimeExpression.defaultRemindTime, 7 * 3600 + 1800] {
                for (japanese, english) in Self.pairs {
                    let a = try TimeExpression.when(japanese, now: now, timeZone: tz, remindTime: remindTime)
                    let b = try TimeExpression.when(english, now: now, timeZone: tz, remindTime: remindTime)
                    #expect(a == b, "\(japanese) / \(english) at \(now.rfc3339()) in \(zone)")
                }
            }
            now = now.adding(usec: (37 * 3600 + 11 * 60) * 1_000_000)
        }
    }

    /// `朝` and `morning` are the configured reminder time of all-day todos.
    @Test(arguments: G.zones)
    func morningFollowsTheRemindTime(zone: String) throws {
        let tz = try #require(ZoneInfo(identifier: zone))
        let now = try G.instant(local: G.tuesdayMorning, zone: zone)
        for text in ["明日の朝", "tomorrow morning"] {
            let when = try TimeExpression.when(text, now: now, timeZone: tz, remindTime: 7 * 3600 + 1800)
            #expect(try G.local(when.instant, zone: zone) == "2026-12-02 07:30:00", "\(text)")
        }
        let thisMorning = try TimeExpression.when("今朝", now: now, timeZone: tz, remindTime: 6 * 3600)
        #expect(try G.local(thisMorning.instant, zone: zone) == "2026-12-01 06:00:00")
    }

    /// Across both DST changes, as the English forms: `明日の朝` stays 09:00, `1日後` is a calendar
    /// day, `24時間後` is 24 hours, a time in the gap moves forward, one in the overlap is the earlier.
    static let dstCases: [(zone: String, now: String, text: String, expected: String)] = [
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "明日の朝", "2026-03-29 09:00:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "1日後", "2026-03-29 09:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "24時間後", "2026-03-29 10:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "明日2時半", "2026-03-29 03:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "日曜の午前2時半", "2026-03-29 03:30:00"),
        ("Europe/Berlin", "2026-03-28T09:30:00+01:00", "週末", "2026-03-29 23:59:59"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "1日前", "2026-03-28 03:00:30"),
        ("Europe/Berlin", "2026-03-29T03:00:30+02:00", "今日", "2026-03-29 00:00:00 all-day"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "明日", "2026-10-25 00:00:00 all-day"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "24時間後", "2026-10-25 08:30:00"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "1日後", "2026-10-25 09:30:00"),
        ("Europe/Berlin", "2026-10-24T09:30:00+02:00", "1か月後", "2026-11-24 09:30:00"),
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "明日の朝", "2026-10-04 09:00:00"),
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "24時間後", "2026-10-04 10:30:00"),
        ("Australia/Sydney", "2026-10-03T09:30:00+10:00", "明日の午前2時半", "2026-10-04 03:30:00"),
        ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "1日後", "2026-04-05 09:30:00"),
        ("Australia/Sydney", "2026-04-04T09:30:00+11:00", "24時間後", "2026-04-05 08:30:00"),
        ("Australia/Adelaide", "2026-10-03T09:30:00+09:30", "明日2時半", "2026-10-04 03:30:00"),
        ("Australia/Adelaide", "2026-10-03T09:30:00+09:30", "1日後", "2026-10-04 09:30:00"),
        ("Australia/Adelaide", "2026-04-04T09:30:00+10:30", "明日の夜", "2026-04-05 20:00:00"),
        ("Asia/Tokyo", "2026-03-28T09:30:00+09:00", "24時間後", "2026-03-29 09:30:00"),
        ("Asia/Kolkata", "2026-10-24T09:30:00+05:30", "1日後", "2026-10-25 09:30:00")
    ]

    @Test func acrossDSTChanges() throws {
        for c in Self.dstCases {
            let now = try #require(Instant(rfc3339: c.now))
            #expect(try G.read(c.text, now: now, zone: c.zone) == c.expected, "\(c.text) at \(c.now) in \(c.zone)")
        }
        let tz = try #require(ZoneInfo(identifier: "Europe/Berlin"))
        let overlap = try TimeExpression.instant(
            "明日の午前2時半", now: #require(Instant(rfc3339: "2026-10-24T09:30:00+02:00")), timeZone: tz)
        #expect(overlap.rfc3339() == "2026-10-25T00:30:00Z")
    }

    /// What is not a WHEN gets the English message quoting it and listing the forms of both
    /// languages; a date that does not exist says so.
    @Test func badValuesAreNamed() throws {
        let tz = try #require(ZoneInfo(identifier: "Asia/Tokyo"))
        let now = try G.instant(local: G.tuesdayMorning, zone: "Asia/Tokyo")
        for text in ["明日の午前", "午後13時", "25時", "夜12時", "今週", "来週の", "金", "3日後の", "明日明日", "1.5日後", "1時60分", "朝の朝"] {
            do {
                let value = try TimeExpression.when(text, now: now, timeZone: tz)
                Issue.record("\(text) was read as \(value)")
            } catch {
                #expect(
                    error.message.hasPrefix("invalid time \(text.debugDescription): expected a date ("),
                    "\(error.message)")
                #expect(error.message.contains("明日の朝") && error.message.contains("tomorrow at 9am"), "\(error.message)")
            }
        }
        let dates: [(String, String)] = [
            ("2026-02-30", "invalid time \"2026-02-30\": February 2026 has 28 days"),
            ("2028-2-30 9am", "invalid time \"2028-2-30 9am\": February 2028 has 29 days"),
            ("2026-13-01", "invalid time \"2026-13-01\": there is no month 13; months are 1 to 12"),
            ("Feb 30", "invalid time \"Feb 30\": February has 29 days at most"),
            ("april 31st", "invalid time \"april 31st\": April has 30 days at most"),
            ("2月30日", "invalid time \"2月30日\": February has 29 days at most"),
            ("2026年4月31日の朝", "invalid time \"2026年4月31日の朝\": April 2026 has 30 days")
        ]
        for (text, message) in dates {
            #expect(throws: TimeExpressionError(message: message)) {
                try TimeExpression.when(text, now: now, timeZone: tz)
            }
        }
    }

    /// Full-width digits and signs, as Japanese input methods type them, are the ASCII ones in
    /// every WHEN and DURATION.
    @Test func fullWidthIsHalfWidth() throws {
        let tz = try #require(ZoneInfo(identifier: "Asia/Tokyo"))
        let now = try G.instant(local: G.tuesdayMorning, zone: "Asia/Tokyo")
        for (wide, narrow) in [
            ("２０２６-12-01", "2026-12-01"), ("＋１ｈ", "+1h"), ("ｉｎ　２　ｈｏｕｒｓ", "in 2 hours"), ("１５：３０", "15:30")
        ] {
            #expect(
                try TimeExpression.when(wide, now: now, timeZone: tz)
                    == TimeExpression.when(narrow, now: now, timeZone: tz), "\(wide)")
        }
        #expect(try TimeExpression.duration("１ｈ３０ｍ") == 90 * 60 * 1_000_000)
    }

    /// `--remind 15分前` is "15 minutes before the due time", as `--remind 15m`; `今日中` and the
    /// like are the ends of their periods.
    @Test func aJapaneseLeadIsADurationBeforeTheDueTime() throws {
        let tz = try #require(ZoneInfo(identifier: "Asia/Tokyo"))
        let now = try G.instant(local: G.tuesdayMorning, zone: "Asia/Tokyo")
        let due = try TimeExpression.instant("明日15時", now: now, timeZone: tz)
        for (text, minutes) in [("15分前", 15), ("1時間前", 60), ("1時間半前", 90), ("１日前", 1440), ("二時間前", 120)] {
            let remind = try TimeExpression.remind(text, due: due, now: now, timeZone: tz)
            #expect(remind.usec == due.usec - Int64(minutes) * 60_000_000, "\(text)")
        }
        #expect(throws: TimeExpressionError(message: "a reminder given as a duration needs a due date")) {
            try TimeExpression.remind("15分前", due: nil, now: now, timeZone: tz)
        }
        let parser = Parser(now: now, timeZone: tz)
        guard case .add(let added) = try parser.parse(["add", "x", "--due", "明日15時", "--remind", "15分前"]).command else {
            Issue.record("not an add")
            return
        }
        #expect(added.remind?.usec == due.usec - 15 * 60_000_000)
        #expect(throws: UsageError.self) { try parser.parse(["add", "x", "--remind", "15分前"]) }
        for (japanese, english) in [("今日中", "eod"), ("今週中", "eow"), ("今月中", "eom"), ("年内", "eoy")] {
            #expect(
                try TimeExpression.when(japanese, now: now, timeZone: tz)
                    == TimeExpression.when(english, now: now, timeZone: tz))
        }
    }
}
