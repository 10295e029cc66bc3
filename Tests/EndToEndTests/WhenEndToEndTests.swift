import Foundation
import Testing
import TodoProtocol
import TodoTestSupport

/// The WHEN forms people type, through the built `todoctl` and a real daemon, in a zone with a
/// 30-minute offset (`TZ=Asia/Kolkata`). todoctl reads the real clock, so each expectation is
/// computed with Foundation's calendar at the instants just before and after the command.
@Suite struct WhenEndToEndTests {
    static let zone = "Asia/Kolkata"
    static let environment = ["TZ": zone]

    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone) ?? .gmt
        return calendar
    }

    /// Adds a todo due `when` and returns its JSON, with the instants just before and after.
    static func add(_ d: DaemonProcess, _ when: String, _ extra: [String] = []) throws -> (
        todo: JSON, before: Date, after: Date
    ) {
        let before = Date()
        let result = try d.todoctl(["--json", "add", "due \(when)", "--due", when] + extra, environment: environment)
        let after = Date()
        #expect(result.status == 0, "\(when): \(result.stderr)")
        return (try JSON.parse(result.stdout), before, after)
    }

    static func date(_ value: JSON?) -> Date? {
        guard let text = value?.stringValue else { return nil }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    /// The next `hour:minute` strictly after `now`, local.
    static func next(_ hour: Int, _ minute: Int, after now: Date) -> Date {
        let today = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: now) ?? now
        return today > now ? today : calendar.date(byAdding: .day, value: 1, to: today) ?? today
    }

    /// The start of the next `weekday` (1 = Sunday … 7 = Saturday), 1 to 7 days ahead.
    static func next(weekday: Int, after now: Date) -> Date {
        let today = calendar.startOfDay(for: now)
        for days in 1...7 {
            let day = calendar.date(byAdding: .day, value: days, to: today) ?? today
            if calendar.component(.weekday, from: day) == weekday { return day }
        }
        return today
    }

    /// The start of the coming 24 December (this year when it is today or later).
    static func comingChristmasEve(after now: Date) -> Date {
        let year = calendar.component(.year, from: now)
        let today = calendar.startOfDay(for: now)
        let thisYear = calendar.date(from: DateComponents(year: year, month: 12, day: 24)) ?? today
        return thisYear >= today
            ? thisYear : calendar.date(from: DateComponents(year: year + 1, month: 12, day: 24)) ?? today
    }

    /// The forms that failed with exit 2 before, and what each must mean.
    static let forms: [(String, @Sendable (Date) -> Date)] = [
        ("9am", { next(9, 0, after: $0) }),
        ("noon", { next(12, 0, after: $0) }),
        ("eod", { calendar.date(bySettingHour: 23, minute: 59, second: 59, of: $0) ?? $0 }),
        ("next friday", { next(weekday: 6, after: $0) }),
        ("Dec 24", { comingChristmasEve(after: $0) }),
        ("in 1 month", { calendar.date(byAdding: .month, value: 1, to: $0) ?? $0 }),
        (
            "tomorrow at 9am",
            {
                let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: $0)) ?? $0
                return calendar.date(bySettingHour: 9, minute: 0, second: 0, of: tomorrow) ?? tomorrow
            }
        )
    ]

    @Test func theFormsThatFailedAreUnderstood() throws {
        let d = try DaemonProcess()
        for (form, expected) in Self.forms {
            let (todo, before, after) = try Self.add(d, form)
            let due = try #require(Self.date(todo["due"]), "\(form): \(todo)")
            let low = expected(before).addingTimeInterval(-1)
            let high = expected(after).addingTimeInterval(1)
            #expect(due >= low && due <= high, "\(form): due \(due), expected \(expected(before)) … \(expected(after))")
        }
    }

    /// `--due friday` is the whole day: due at its start, reminded at 09:00 that day.
    @Test func aWeekdayIsAllDayAndRemindedThatMorning() throws {
        let d = try DaemonProcess()
        let (todo, before, after) = try Self.add(d, "friday")
        let due = try #require(Self.date(todo["due"]))
        let remind = try #require(Self.date(todo["remind"]))
        #expect([Self.next(weekday: 6, after: before), Self.next(weekday: 6, after: after)].contains(due))
        #expect(remind == Self.calendar.date(bySettingHour: 9, minute: 0, second: 0, of: due))
        #expect(todo["allDay"] == true, "\(todo)")
        #expect(todo["zone"] == .string(Self.zone), "\(todo)")
        let fifteen = try Self.add(d, "friday", ["--remind", "15m"]).todo
        #expect(Self.date(fifteen["remind"]) == Self.calendar.date(bySettingHour: 8, minute: 45, second: 0, of: due))
    }

    /// `--due today` is due all day: not overdue until the day ends, shown without a time.
    @Test func todayIsNotOverdueUntilTheDayEnds() throws {
        let d = try DaemonProcess()
        let (todo, before, _) = try Self.add(d, "today")
        #expect(Self.date(todo["due"]) == Self.calendar.startOfDay(for: before))
        #expect(todo["allDay"] == true, "\(todo)")
        let id = String(todo["id"]?.intValue ?? 0)
        let added = try d.todoctl(["add", "timed", "--due", "-1h"], environment: Self.environment)
        #expect(added.stdout.contains("(due 1h overdue)"), "\(added.stdout)")
        let list = try d.todoctl(["list"], environment: Self.environment)
        let row = list.stdout.split(separator: "\n").first { $0.hasSuffix("due today") }.map(String.init) ?? ""
        #expect(row.contains("today") && !row.contains("overdue"), "\(list.stdout)")
        #expect(!row.contains(":"), "no time of day: \(row)")
        // The due line (the reminder, at 09:00, is past from then on, and says so on its own line).
        let shown = try d.todoctl(["show", id], environment: Self.environment)
        let dueLine = shown.stdout.split(separator: "\n").first { $0.hasPrefix("Due:") }.map(String.init) ?? ""
        #expect(dueLine.contains("(today)") && !dueLine.contains("overdue"), "\(shown.stdout)")
    }

    /// Japanese WHEN through the built binaries: `add` stores what Foundation's calendar computes,
    /// `list --json` shows it, `edit`, `snooze` and the list filters read the same forms, and `朝`
    /// follows `remind-time` from the config file.
    @Test func japaneseWhenThroughTheBinaries() throws {
        let d = try DaemonProcess()
        let config = TemporaryDirectory("config")
        try FileManager.default.createDirectory(atPath: config.file("todod"), withIntermediateDirectories: true)
        try "remind-time = 07:30\n".write(toFile: config.file("todod/config"), atomically: true, encoding: .utf8)
        var env = Self.environment
        env["XDG_CONFIG_HOME"] = config.path
        let before = Date()
        let added = try d.todoctl(["add", "歯医者", "--due", "明日の朝"], environment: env)
        #expect(added.status == 0, "\(added.stderr)")
        let friday = try d.todoctl(["--json", "add", "会議", "--due", "来週金曜の午後3時"], environment: env)
        let third = try d.todoctl(["--json", "add", "請求書", "--due", "三日後"], environment: env)
        let allDay = try d.todoctl(["--json", "add", "買い物", "--due", "１２月２４日"], environment: env)
        let after = Date()
        let cal = Self.calendar
        let listed = try d.todoctl(["--json", "list"], environment: env)
        #expect(listed.status == 0, "\(listed.stderr)")
        let todos = try JSON.parse(listed.stdout).arrayValue ?? []
        func due(_ title: String) -> Date? { Self.date(todos.first { $0["title"] == .string(title) }?["due"]) }
        let tomorrow = cal.date(byAdding: .day, value: 1, to: cal.startOfDay(for: before)) ?? before
        #expect(due("歯医者") == cal.date(bySettingHour: 7, minute: 30, second: 0, of: tomorrow), "\(listed.stdout)")
        // 来週金曜: the Friday of next week (weeks start on Monday).
        let weekday = cal.component(.weekday, from: before) // 1 = Sunday
        let monday = cal.date(byAdding: .day, value: -((weekday + 5) % 7), to: cal.startOfDay(for: before)) ?? before
        let nextFriday = cal.date(byAdding: .day, value: 11, to: monday) ?? before
        #expect(
            Self.date(try JSON.parse(friday.stdout)["due"])
                == cal.date(bySettingHour: 15, minute: 0, second: 0, of: nextFriday), "\(friday.stdout)")
        let threeDays = try #require(Self.date(try JSON.parse(third.stdout)["due"]))
        let low = (cal.date(byAdding: .day, value: 3, to: before) ?? before).addingTimeInterval(-1)
        let high = (cal.date(byAdding: .day, value: 3, to: after) ?? after).addingTimeInterval(1)
        #expect(threeDays >= low && threeDays <= high, "\(third.stdout)")
        let christmasEve = try JSON.parse(allDay.stdout)
        #expect(Self.date(christmasEve["due"]) == Self.comingChristmasEve(after: before), "\(allDay.stdout)")
        #expect(christmasEve["allDay"] == true)
        // The list filters and edit read the same forms.
        let soon = try d.todoctl(["--json", "list", "--due-before", "明後日"], environment: env)
        let soonTitles = (try JSON.parse(soon.stdout).arrayValue ?? []).compactMap { $0["title"]?.stringValue }
        #expect(soonTitles == ["歯医者"], "\(soon.stdout) \(soon.stderr)")
        let id = String(try JSON.parse(third.stdout)["id"]?.intValue ?? 0)
        let edited = try d.todoctl(["--json", "edit", id, "--due", "月末"], environment: env)
        let eom = try #require(Self.date(try JSON.parse(edited.stdout)["due"]), "\(edited.stdout) \(edited.stderr)")
        #expect(
            cal.component(.day, from: cal.date(byAdding: .second, value: 1, to: eom) ?? eom) == 1, "\(edited.stdout)")
        // A snooze never moves a reminder earlier: to the evening of the 1st of next month, after
        // the end of this month.
        let snoozed = try d.todoctl(["snooze", id, "来月1日の夕方"], environment: env)
        #expect(snoozed.status == 0, "\(snoozed.stderr)")
        let shown = try JSON.parse(try d.todoctl(["--json", "show", id], environment: env).stdout)
        let nextFirst = cal.date(byAdding: .second, value: 1, to: eom) ?? eom
        #expect(
            Self.date(shown["remind"]) == cal.date(bySettingHour: 18, minute: 0, second: 0, of: nextFirst), "\(shown)")
        // A bad value: an English one-line error quoting it, exit 2, nothing added.
        let bad = try d.todoctl(["add", "x", "--due", "明日の午前"], environment: env)
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("todoctl: invalid time \"明日の午前\" for --due: expected a date ("), "\(bad.stderr)")
        #expect(
            (try JSON.parse(try d.todoctl(["--json", "list"], environment: env).stdout).arrayValue ?? []).count == 4)
    }

    /// `--due-before eod` keeps what is due at `eod` itself; an all-day todo counts by its local
    /// day, whatever zone it was made in (one made in Tokyo for Berlin's tomorrow is due tomorrow
    /// here, though its instant is this afternoon), in the filters and in `--sort due`.
    @Test func dueBeforeEodAndAllDayTodosByTheirLocalDay() throws {
        let d = try DaemonProcess()
        let berlin = ["TZ": "Europe/Berlin"]
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
        let tomorrow = cal.date(byAdding: .day, value: 1, to: Date()) ?? Date()
        let f = DateFormatter()
        f.calendar = cal
        f.timeZone = cal.timeZone
        f.dateFormat = "yyyy-MM-dd"
        func id(_ result: ChildProcess.Result) throws -> Int64 {
            #expect(result.status == 0, "\(result.stderr)")
            return try JSON.parse(result.stdout)["id"]?.intValue ?? 0
        }
        let eod = try id(try d.todoctl(["--json", "add", "at eod", "--due", "eod"], environment: berlin))
        let today = try id(try d.todoctl(["--json", "add", "today", "--due", "today"], environment: berlin))
        let tokyo = try id(
            try d.todoctl(
                ["--json", "add", "tokyo", "--due", f.string(from: tomorrow)], environment: ["TZ": "Asia/Tokyo"]))
        func ids(_ arguments: [String]) throws -> [Int64] {
            let result = try d.todoctl(["--json"] + arguments, environment: berlin)
            #expect(result.status == 0, "\(result.stderr)")
            return (try JSON.parse(result.stdout).arrayValue ?? []).compactMap { $0["id"]?.intValue }
        }
        #expect(Set(try ids(["list", "--due-before", "eod"])) == [eod, today])
        #expect(Set(try ids(["list", "--due-before", "tomorrow"])) == [eod, today])
        #expect(try ids(["list", "--due-after", "tomorrow"]) == [tokyo])
        #expect(try ids(["list", "--sort", "due"]) == [today, eod, tokyo])
        #expect(try ids(["list", "--sort", "-due"]) == [tokyo, eod, today])
        #expect(try ids(["list", "--sort", "due", "--limit", "2"]) == [today, eod])
        let table = try d.todoctl(["list", "--due-before", "eod", "--limit", "1", "--sort", "due"], environment: berlin)
        #expect(table.stdout.contains("Showing 1 of 2 todos."), "\(table.stdout)")
    }

    /// A page by due date is read in parts, only as far as an all-day todo could move by its
    /// local day: one made in Berlin for a day sorts before the 300 timed todos of that day's Tokyo
    /// morning (its Tokyo day starts eight hours before its instant), though the daemon lists it
    /// after them; the first part (256 rows) does not settle, the second reads on.
    @Test func aPageByDueDateReadsOnWhileAnAllDayTodoCouldMoveIntoIt() throws {
        let d = try DaemonProcess()
        // 2027-03-10 in Berlin starts at 2027-03-09T23:00Z; in Tokyo at 2027-03-09T15:00Z.
        var todos: [JSON] = (1...300).map { i in
            let minute = 15 * 60 + i
            return [
                "title": .string("timed \(i)"),
                "due": .string(String(format: "2027-03-09T%02d:%02d:00Z", minute / 60, minute % 60))
            ]
        }
        todos.append(["title": "ベルリンの終日", "due": "2027-03-09T23:00:00Z", "allDay": true, "zone": "Europe/Berlin"])
        let file = d.directory.file("day.json")
        try JSON.object(["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)]).serialized()
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try d.todoctl(["import", file]).status == 0)
        let tokyo = ["TZ": "Asia/Tokyo"]
        func titles(_ arguments: [String]) throws -> [String] {
            let result = try d.todoctl(["--json", "list"] + arguments, environment: tokyo)
            #expect(result.status == 0, "\(result.stderr)")
            return (try JSON.parse(result.stdout).arrayValue ?? []).compactMap { $0["title"]?.stringValue }
        }
        #expect(try titles(["--sort", "due", "--limit", "2"]) == ["ベルリンの終日", "timed 1"])
        #expect(try titles(["--sort", "-due", "--limit", "2"]) == ["timed 300", "timed 299"])
        // In Berlin its day starts at its instant: after every timed todo.
        let berlin = try d.todoctl(
            ["--json", "list", "--sort", "-due", "--limit", "1"], environment: ["TZ": "Europe/Berlin"])
        #expect(
            (try JSON.parse(berlin.stdout).arrayValue ?? []).first?["title"]?.stringValue == "ベルリンの終日",
            "\(berlin.stdout)")
        let table = try d.todoctl(["list", "--sort", "due", "--limit", "3"], environment: tokyo)
        #expect(table.stdout.contains("Showing 3 of 301 todos."), "\(table.stdout)")
    }

    /// Dates and rules as people write them, through the real todoctl: slashes, `tmrw`, the end of
    /// next month in Japanese, and `--every` in Japanese stored as the RRULE it means.
    @Test func datesAndRulesAsPeopleWriteThem() throws {
        let d = try DaemonProcess()
        let env = ["TZ": "UTC"]
        func due(_ when: String) throws -> String? {
            let result = try d.todoctl(["--json", "add", "x", "--due", when], environment: env)
            #expect(result.status == 0, "\(when): \(result.stderr)")
            return try JSON.parse(result.stdout)["due"]?.stringValue
        }
        #expect(try due("2027/03/05 15:00") == "2027-03-05T15:00:00Z")
        #expect(try due("2027/03/05") == "2027-03-05T00:00:00Z")
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let now = Date()
        let nextMonth = utc.date(
            byAdding: .month, value: 1, to: utc.date(from: utc.dateComponents([.year, .month], from: now))!)!
        let endOfNextMonth = utc.date(byAdding: DateComponents(month: 1, second: -1), to: nextMonth)!
        let formatter = ISO8601DateFormatter()
        #expect(try due("来月末") == formatter.string(from: endOfNextMonth))
        #expect(try due("tmrw 9am")?.hasSuffix("T09:00:00Z") == true)
        let every = try d.todoctl(["--json", "add", "月末の締め", "--every", "毎月最終金曜 完了後"], environment: env)
        #expect(every.status == 0, "\(every.stderr)")
        let recurrence = try JSON.parse(every.stdout)["recurrence"]
        #expect(
            recurrence?["rule"] == .string("FREQ=MONTHLY;BYDAY=-1FR") && recurrence?["from"] == .string("completion"),
            "\(every.stdout)")
        let bad = try d.todoctl(["add", "x", "--every", "毎秒"], environment: env)
        #expect(bad.status == 2 && bad.stderr.contains("毎秒") && bad.stderr.contains("毎月最終金曜"), "\(bad.stderr)")
    }
}
