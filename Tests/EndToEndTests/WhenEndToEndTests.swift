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
    static func add(_ d: DaemonProcess, _ when: String, _ extra: [String] = []) throws -> (todo: JSON, before: Date, after: Date) {
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
        return thisYear >= today ? thisYear : calendar.date(from: DateComponents(year: year + 1, month: 12, day: 24)) ?? today
    }

    /// The forms that failed with exit 2 before, and what each must mean.
    static let forms: [(String, @Sendable (Date) -> Date)] = [
        ("9am", { next(9, 0, after: $0) }),
        ("noon", { next(12, 0, after: $0) }),
        ("eod", { calendar.date(bySettingHour: 23, minute: 59, second: 59, of: $0) ?? $0 }),
        ("next friday", { next(weekday: 6, after: $0) }),
        ("Dec 24", { comingChristmasEve(after: $0) }),
        ("in 1 month", { calendar.date(byAdding: .month, value: 1, to: $0) ?? $0 }),
        ("tomorrow at 9am", {
            let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: $0)) ?? $0
            return calendar.date(bySettingHour: 9, minute: 0, second: 0, of: tomorrow) ?? tomorrow
        }),
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
        let shown = try d.todoctl(["show", id], environment: Self.environment)
        #expect(shown.stdout.contains("(today)") && !shown.stdout.contains("overdue"), "\(shown.stdout)")
    }
}
