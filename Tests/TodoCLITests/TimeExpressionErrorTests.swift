import Testing
import TodoCore
import TodoTime
import TodoWhen

@testable import TodoCLI

/// A bad WHEN or DURATION names the option that gave it, right after the value, built from the
/// error's parts (never by matching its words).
@Suite struct TimeExpressionErrorTests {
    static let now = Instant(rfc3339: "2026-06-01T12:00:00Z") ?? Instant(usec: 0)

    /// The error `body` throws, or nil (recorded as an issue) when it throws none.
    private func failure(_ body: () throws(TimeExpressionError) -> Any) -> TimeExpressionError? {
        do throws(TimeExpressionError) {
            _ = try body()
            Issue.record("no error")
            return nil
        } catch {
            return error
        }
    }

    @Test func theOptionIsNamedAfterTheValue() {
        #expect(
            failure { () throws(TimeExpressionError) in
                try TimeExpression.instant("tomorow", now: Self.now, timeZone: .utc)
            }?
            .naming("--due") == "invalid time \"tomorow\" for --due: expected \(TimeExpression.whenForms)")
        #expect(
            failure { () throws(TimeExpressionError) in try TimeExpression.duration("5x") }?
                .naming("--remind") == "invalid duration \"5x\" for --remind: expected \(TimeExpression.durationForms)")
        let reminder = failure { () throws(TimeExpressionError) in
            try TimeExpression.remind("soon-ish", due: Self.now, now: Self.now, timeZone: .utc)
        }
        #expect(
            reminder?.naming("--remind").hasPrefix(
                "invalid reminder \"soon-ish\" for --remind: expected a duration before the due date") == true,
            "\(reminder?.message ?? "")")
    }

    @Test func aMessageAboutNoOneValueEndsWithTheOption() {
        #expect(
            failure { () throws(TimeExpressionError) in
                try TimeExpression.remind("15m", due: nil, now: Self.now, timeZone: .utc)
            }?
            .naming("--remind") == "a reminder given as a duration needs a due date (--remind)")
    }

    @Test func todoctlSaysItInOneLine() {
        let result = Fixtures.run(["add", "milk", "--due", "tomorow"])
        #expect(result.status == 2)
        #expect(
            result.stderrLines.first
                == "todoctl: invalid time \"tomorow\" for --due: expected \(TimeExpression.whenForms)")
    }
}
