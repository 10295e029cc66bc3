import Testing
import TodoCalendar
import TodoCore
import TodoTime

/// The RULE grammar of `--every` (SPEC §4.1) and the rule in words.
@Suite struct EveryGrammarTests {
    static let tokyo = ZoneInfo(identifier: "Asia/Tokyo")!

    static func parse(_ text: String, anchor: (Int64, Int64, Int64)? = nil) throws -> EveryRule {
        try EveryGrammar.parse(
            text, anchor: anchor.flatMap { Instant.days(year: $0.0, month: $0.1, day: $0.2) }, zone: tokyo
        ) { when in
            switch when {
            case "Dec 24": return .day(Instant.days(year: 2026, month: 12, day: 24)!)
            case "2027-01-01T09:00:00Z": return .instant(Instant(rfc3339: when)!)
            default: throw RecurrenceError("bad WHEN \"\(when)\"")
            }
        }
    }

    @Test(arguments: [
        ("day", "FREQ=DAILY", false),
        ("every day", "FREQ=DAILY", false),
        ("daily", "FREQ=DAILY", false),
        ("3 days", "FREQ=DAILY;INTERVAL=3", false),
        ("weekday", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", false),
        ("week", "FREQ=WEEKLY", false),
        ("2 weeks", "FREQ=WEEKLY;INTERVAL=2", false),
        ("other week", "FREQ=WEEKLY;INTERVAL=2", false),
        ("2 weeks on mon,thu", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", false),
        ("month", "FREQ=MONTHLY", false),
        ("year", "FREQ=YEARLY", false),
        ("mon,thu", "FREQ=WEEKLY;BYDAY=MO,TH", false),
        ("Thursday and Monday", "FREQ=WEEKLY;BYDAY=MO,TH", false),
        ("month on the last friday", "FREQ=MONTHLY;BYDAY=-1FR", false),
        ("month on the 2nd Monday", "FREQ=MONTHLY;BYDAY=2MO", false),
        ("month on the 15th", "FREQ=MONTHLY;BYMONTHDAY=15", false),
        ("month on the 31st", "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", false),
        ("month on the 30th", "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1", false),
        ("month on the last day", "FREQ=MONTHLY;BYMONTHDAY=-1", false),
        ("month on the last weekday", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", false),
        ("2 weeks after done", "FREQ=WEEKLY;INTERVAL=2", true),
        ("day for 5 times", "FREQ=DAILY;COUNT=5", false),
        ("week until Dec 24", "FREQ=WEEKLY;UNTIL=20261224T145959Z", false),
        ("month until 2027-01-01T09:00:00Z after done", "FREQ=MONTHLY;UNTIL=20270101T090000Z", true),
        ("FREQ=MONTHLY;BYDAY=-1FR", "FREQ=MONTHLY;BYDAY=-1FR", false),
        ("freq=weekly;byday=mo after done for 3 times", "FREQ=WEEKLY;BYDAY=MO;COUNT=3", true),
        // In Japanese.
        ("毎日", "FREQ=DAILY", false),
        ("平日", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", false),
        ("毎週", "FREQ=WEEKLY", false),
        ("毎週水曜", "FREQ=WEEKLY;BYDAY=WE", false),
        ("毎週月曜と木曜", "FREQ=WEEKLY;BYDAY=MO,TH", false),
        ("毎週月・水・金", "FREQ=WEEKLY;BYDAY=MO,WE,FR", false),
        ("隔週金曜", "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", false),
        ("隔週", "FREQ=WEEKLY;INTERVAL=2", false),
        ("3日ごと", "FREQ=DAILY;INTERVAL=3", false),
        ("２週間ごと", "FREQ=WEEKLY;INTERVAL=2", false),
        ("毎月", "FREQ=MONTHLY", false),
        ("毎月25日", "FREQ=MONTHLY;BYMONTHDAY=25", false),
        ("毎月31日", "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", false),
        ("毎月末", "FREQ=MONTHLY;BYMONTHDAY=-1", false),
        ("毎月最終金曜", "FREQ=MONTHLY;BYDAY=-1FR", false),
        ("毎月第2月曜", "FREQ=MONTHLY;BYDAY=2MO", false),
        ("毎月最終平日", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", false),
        ("毎年", "FREQ=YEARLY", false),
        ("毎年12月24日", "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=24", false),
        ("毎週金曜 完了後", "FREQ=WEEKLY;BYDAY=FR", true),
        ("毎日 5回", "FREQ=DAILY;COUNT=5", false),
        ("毎週 Dec 24まで", "FREQ=WEEKLY;UNTIL=20261224T145959Z", false)
    ])
    func forms(text: String, rule: String, fromCompletion: Bool) throws {
        #expect(try Self.parse(text) == EveryRule(rule: rule, fromCompletion: fromCompletion))
    }

    /// `month` from the 31st and `year` from 29 February keep to the month's end.
    @Test func monthEndAnchors() throws {
        #expect(
            try Self.parse("month", anchor: (2027, 1, 31)).rule == "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1")
        #expect(
            try Self.parse("2 months", anchor: (2027, 1, 29)).rule
                == "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=28,29;BYSETPOS=-1")
        #expect(try Self.parse("month", anchor: (2027, 1, 28)).rule == "FREQ=MONTHLY")
        #expect(
            try Self.parse("year", anchor: (2028, 2, 29)).rule == "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1")
        #expect(try Self.parse("year", anchor: (2028, 3, 1)).rule == "FREQ=YEARLY")
    }

    @Test(arguments: [
        "毎週金星", "毎月32日", "毎年13月1日", "毎秒", "fortnightly", "week on", "weeks", "month on the 32nd", "mon,funday",
        "day for 0 times", "day until",
        "day for 2 times until Dec 24", "FREQ=HOURLY", "FREQ=DAILY;COUNT=2 for 3 times", "", "after done"
    ])
    func badRulesQuoteTheRuleAndListTheForms(text: String) {
        #expect {
            try Self.parse(text)
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("bad recurrence \"\(text)\": ") && message.contains("month on the last friday")
                && !message.contains("\n")
        }
    }

    @Test func aBadUntilIsTheWhenParsersError() {
        #expect(throws: RecurrenceError("bad WHEN \"someday\"")) { try Self.parse("week until someday") }
    }

    @Test(arguments: [
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH;COUNT=5", false, "every 2 weeks on Monday and Thursday, 5 more times"),
        ("FREQ=MONTHLY;BYDAY=-1FR", false, "every month on the last Friday"),
        ("FREQ=WEEKLY;INTERVAL=2", true, "after done: every 2 weeks"),
        ("FREQ=DAILY", false, "every day"),
        ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", false, "every weekday"),
        (
            "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", false,
            "every month on the 31st (or the last day of shorter months)"
        ),
        ("FREQ=MONTHLY;BYMONTHDAY=1,15", false, "every month on the 1st and 15th"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", false, "every month on the last day"),
        ("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", false, "every month on the last weekday"),
        (
            "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1", false,
            "every year on 29 February (28 February in other years)"
        ),
        ("FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", false, "every year on the fourth Thursday of November"),
        ("FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=15", false, "every year on 15 March"),
        ("FREQ=DAILY;COUNT=1", false, "every day, 1 more time"),
        ("FREQ=WEEKLY;UNTIL=20261224T145959Z", false, "every week, until 2026-12-24"),
        ("FREQ=WEEKLY;UNTIL=20261224T090000Z", false, "every week, until 2026-12-24 18:00"),
        ("FREQ=MONTHLY;BYMONTHDAY=1,2;BYSETPOS=2", false, "every month on the 1st and 2nd (BYSETPOS=2)"),
        ("FREQ=BOGUS", false, "FREQ=BOGUS")
    ])
    func words(rule: String, fromCompletion: Bool, expected: String) {
        #expect(Recurrence.words(rule: rule, fromCompletion: fromCompletion, zone: Self.tokyo) == expected)
    }
}
