import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// Sync rounds (a real todod, a collection in memory) against what servers and other clients do
/// to a resource: rewrite it without changing it, add instances of a recurring todo, keep lines
/// todod does not model.
@Suite(.serialized) struct ForeignResourceTests {
    /// A server's rewrite (RRULE parts reordered, CATEGORIES one line per value, CLASS:PUBLIC
    /// added, an empty property dropped, a new DTSTAMP, other folds) is no change: no upload, no
    /// store write, no conflict. And no line todod writes has an empty value.
    @Test func aServerRewriteIsNoChange() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(
            try m.add(
                "A title long enough that a server folds it at another place than todod does",
                [
                    "tags": ["home", "急ぎ"], "due": "2026-12-07T09:00:00Z", "zone": "UTC",
                    "recurrence": ["rule": "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", "from": "due"]
                ])["uid"]?.stringValue)
        try m.sync(cal)
        let href = try #require(cal.href(uid: uid))
        let written = String(decoding: cal.resources[href]!.data, as: UTF8.self)
        for line in written.components(separatedBy: "\r\n") where !line.isEmpty {
            #expect(!line.hasSuffix(":"), "an empty value: \(line)")
        }
        cal.edit(href) { text in
            var t = text.replacingOccurrences(of: "\r\n ", with: "") // unfolded, then folded elsewhere below
            t = t.replacingOccurrences(
                of: "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", with: "RRULE:BYDAY=MO,TH;INTERVAL=2;FREQ=WEEKLY")
            // CATEGORIES one line per value (as Cyrus stores them), CLASS:PUBLIC and an empty property added.
            t = t.components(separatedBy: "\r\n").map { line in
                guard line.hasPrefix("CATEGORIES:") else { return line }
                return line.dropFirst(11).split(separator: ",").map { "CATEGORIES:" + $0 }.joined(separator: "\r\n")
                    + "\r\nCLASS:PUBLIC\r\nLOCATION:"
            }.joined(separator: "\r\n")
            #expect(t.contains("CATEGORIES:急ぎ\r\n"))
            t = t.replacingOccurrences(
                of: #"DTSTAMP:\d+T\d+Z"#, with: "DTSTAMP:20270101T000000Z", options: .regularExpression)
            t = t.replacingOccurrences(of: "SUMMARY:A title long", with: "SUMMARY:A title\r\n  long")
            return t
        }
        var conflicts: [SyncStatus.Conflict] = []
        let round = try m.sync(cal, conflicts: { conflicts.append($0) })
        #expect(round.sent == 0 && round.received == 0 && conflicts.isEmpty, "\(round)")
        #expect(try m.sync(cal).sent == 0)
    }

    /// A resource with an instance completed elsewhere (Thunderbird: a second VTODO with
    /// RECURRENCE-ID): one todo here, not due at the completed instance; an edit here goes back
    /// with both components, so the instance is not deleted from the server.
    @Test func anInstanceCompletedElsewhereIsKeptThroughSync() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let href = cal.put(
            "tb.ics",
            """
            BEGIN:VCALENDAR\r
            PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN\r
            VERSION:2.0\r
            BEGIN:VTODO\r
            UID:weekly@thunderbird\r
            DTSTAMP:20261207T100000Z\r
            LAST-MODIFIED:20261207T100000Z\r
            SUMMARY:Weekly report\r
            DUE:20261207T090000Z\r
            RRULE:FREQ=WEEKLY\r
            END:VTODO\r
            BEGIN:VTODO\r
            UID:weekly@thunderbird\r
            DTSTAMP:20261207T100000Z\r
            RECURRENCE-ID:20261207T090000Z\r
            SUMMARY:Weekly report\r
            DUE:20261207T090000Z\r
            STATUS:COMPLETED\r
            COMPLETED:20261207T100000Z\r
            END:VTODO\r
            END:VCALENDAR\r

            """)
        try m.sync(cal)
        let todos = try m.todos()
        #expect(todos.count == 1)
        let todo = try #require(todos.first)
        #expect(todo["due"] == "2026-12-14T09:00:00Z" && todo["done"] == false)
        try m.update(uid: "weekly@thunderbird", ["title": "Weekly report (team)"])
        #expect(try m.sync(cal).sent == 1)
        let text = String(decoding: try #require(cal.resources[href]).data, as: UTF8.self)
        #expect(text.components(separatedBy: "BEGIN:VTODO").count == 3, "\(text)")
        #expect(text.contains("SUMMARY:Weekly report (team)") && text.contains("RECURRENCE-ID:20261207T090000Z"))
        #expect(try m.sync(cal).sent == 0)
    }

    /// A todo another client wrote with a due date and no alarm is reminded at its due here;
    /// nothing goes back for it (no VALARM, no upload, quiet rounds) until the user changes the
    /// reminder, which then travels as an alarm.
    @Test func aTodoWithoutAlarmIsRemindedAndNothingIsWrittenBack() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let href = cal.put("phone.ics", vtodo(uid: "no-alarm@phone", summary: "薬を飲む", extra: ["DUE:20990401T010000Z"]))
        // Sent once: its place in the manual order (it came without one), never an alarm.
        let first = try m.sync(cal)
        #expect(first.received == 1 && first.sent == 1, "\(first)")
        let todo = try #require(try m.todo(uid: "no-alarm@phone"))
        #expect(todo["remind"]?.stringValue == "2099-04-01T01:00:00Z", "\(todo)")
        let quiet = try m.sync(cal)
        #expect(quiet.sent == 0 && quiet.received == 0 && quiet.conflicts.isEmpty, "\(quiet)")
        #expect(!String(decoding: cal.resources[href]!.data, as: UTF8.self).contains("VALARM"))
        // The phone moves the due date: the default reminder follows it, still nothing sent.
        cal.edit(href) {
            $0.replacingOccurrences(of: "DUE:20990401T010000Z", with: "DUE:20990402T010000Z")
                .replacingOccurrences(of: "LAST-MODIFIED:20261201T090000Z", with: "LAST-MODIFIED:20261202T090000Z")
        }
        let moved = try m.sync(cal)
        #expect(moved.sent == 0 && moved.received == 1, "\(moved)")
        #expect(try m.todo(uid: "no-alarm@phone")?["remind"]?.stringValue == "2099-04-02T01:00:00Z")
        // The user sets a reminder: it is theirs, and goes to the server.
        try m.update(uid: "no-alarm@phone", ["remind": "2099-04-02T00:30:00Z"])
        let sent = try m.sync(cal)
        #expect(sent.sent == 1, "\(sent)")
        let written = String(decoding: cal.resources[href]!.data, as: UTF8.self)
        #expect(written.contains("BEGIN:VALARM") && written.contains("TRIGGER;RELATED=END:-PT30M"), "\(written)")
        #expect(try m.sync(cal).sent == 0)
    }
}

/// Another client changes only the title of a todo that carries much todod does not model:
/// the round takes the title quietly, without a conflict and without writing to the server
/// (issue 32, item 6).
@Suite(.serialized) struct ForeignTitleEditTests {
    /// An Apple-like resource: unknown properties, X- lines long enough to fold, alarms of kinds
    /// todod does not map (AUDIO, EMAIL, a second DISPLAY), a property in a zone todod does not know.
    static func richResource(title: String, modified: String, sequence: Int) -> String {
        let long = String(repeating: "長い値の拡張プロパティ ", count: 40)
        return
            ([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Apple Inc.//iOS 18.0//EN", "CALSCALE:GREGORIAN",
                "BEGIN:VTIMEZONE", "TZID:Custom/Office", "BEGIN:STANDARD", "DTSTART:19700101T000000",
                "TZOFFSETFROM:+0900",
                "TZOFFSETTO:+0900", "TZNAME:OFC", "END:STANDARD", "END:VTIMEZONE",
                "BEGIN:VTODO", "UID:rich-1@apple", "DTSTAMP:\(modified)", "CREATED:20261101T090000Z",
                "LAST-MODIFIED:\(modified)",
                "SEQUENCE:\(sequence)", "SUMMARY:\(title)", "STATUS:NEEDS-ACTION", "DUE:20261210T090000Z",
                "CLASS:PRIVATE",
                "GEO:35.6812;139.7671", "URL:https://example.org/tasks/rich-1", "X-APPLE-SORT-ORDER:1000",
                "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE=東京駅:geo:35.6812,139.7671",
                "X-OTHER-CLIENT-DATA:\(long)", "X-OTHER-REVIEW;TZID=Custom/Office:20261209T100000",
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-PT15M", "X-WR-ALARMUID:A1",
                "END:VALARM",
                "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER;VALUE=DATE-TIME:20261210T080000Z", "ATTACH;VALUE=URI:Chord",
                "X-WR-ALARMUID:A2", "END:VALARM",
                "BEGIN:VALARM", "ACTION:EMAIL", "SUMMARY:期限", "DESCRIPTION:\(long)",
                "ATTENDEE:mailto:alice@example.org",
                "TRIGGER:-P1D", "END:VALARM",
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Second", "TRIGGER:-PT1H", "X-WR-ALARMUID:A3",
                "END:VALARM",
                "END:VTODO", "END:VCALENDAR"
            ].map { ContentLinesForTests.fold($0) }).joined()
    }

    @Test func aTitleChangedElsewhereMergesQuietly() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        let href = cal.put("rich.ics", Self.richResource(title: "Buy milk", modified: "20261201T090000Z", sequence: 1))
        try one.sync(cal)
        try two.sync(cal)
        // Nothing changed: quiet on both (the lines todod writes otherwise are no change here).
        #expect(try one.sync(cal).sent == 0 && two.sync(cal).sent == 0)
        #expect(cal.updates == 0)
        let putsBefore = cal.updates
        cal.put(href, Self.richResource(title: "牛乳を買う", modified: icalStamp(fromNow: 60), sequence: 2))
        for m in [one, two] {
            var conflicts: [SyncStatus.Conflict] = []
            let round = try m.sync(cal, conflicts: { conflicts.append($0) })
            #expect(conflicts.isEmpty, "\(conflicts)")
            #expect(round.sent == 0 && round.received == 1, "\(round)")
            #expect(try m.todo(uid: "rich-1@apple")?["title"] == "牛乳を買う")
        }
        #expect(cal.updates == putsBefore)
        // A title changed here afterwards goes back with everything the other client wrote.
        try one.update(uid: "rich-1@apple", ["title": "牛乳を二本買う"])
        #expect(try one.sync(cal).sent == 1)
        let text = String(decoding: try #require(cal.resources[href]).data, as: UTF8.self).replacingOccurrences(
            of: "\r\n ", with: "")
        for part in [
            "X-WR-ALARMUID:A2", "ATTACH;VALUE=URI:Chord", "ACTION:EMAIL", "X-WR-ALARMUID:A3", "GEO:35.6812;139.7671",
            "X-OTHER-REVIEW;TZID=Custom/Office"
        ] {
            #expect(text.contains(part), "\(part) missing: \(text)")
        }
        var conflicts: [SyncStatus.Conflict] = []
        let round = try two.sync(cal, conflicts: { conflicts.append($0) })
        #expect(conflicts.isEmpty && round.sent == 0 && round.received == 1, "\(round) \(conflicts)")
        #expect(try one.sync(cal).sent == 0)
    }
}

/// Folds a content line at 75 octets as clients do (never inside a UTF-8 sequence), with CRLF.
enum ContentLinesForTests {
    static func fold(_ line: String) -> String {
        var out = ""
        var count = 0
        for ch in line {
            let n = String(ch).utf8.count
            if count + n > 75 {
                out += "\r\n "
                count = 1
            }
            out.append(ch)
            count += n
        }
        return out + "\r\n"
    }
}
