import Foundation
import Testing
import TodoCalDAV
import TodoTestSupport

/// The servers of this test process (CalDAVServer.shared): Radicale, xandikos, Cyrus IMAP and
/// DAViCal, each started on first use and ended with the process (it watches its standard input).
/// Each test makes its own calendar on them, so tests do not see each other's items.
enum Servers {
    /// The shared server of `kind`; where it does not run on this machine (Cyrus or DAViCal not
    /// installed), the reason is printed and the test (that argument) is skipped.
    static func server(_ kind: CalDAVServer.Kind) throws -> CalDAVServer {
        if let reason = CalDAVTestSupport.unavailable(kind) {
            print(reason)
            try Test.cancel(Comment(rawValue: reason))
        }
        return try CalDAVServer.shared(kind)
    }

    static func account(
        _ server: CalDAVServer, url: String? = nil, timeouts: CalDAVTimeouts = CalDAVTimeouts(connect: 5, stall: 10)
    ) -> CalDAVAccount {
        CalDAVAccount(url: url ?? server.rootURL, user: server.user, password: server.password, timeouts: timeouts)
    }

    /// A new, empty VTODO calendar named `name` on `server`, and its collection.
    static func freshCalendar(_ server: CalDAVServer, name: String = "Tasks タスク") throws -> (
        url: String, collection: CalDAVCollection
    ) {
        let account = account(server)
        if server.kind != .xandikos {
            _ = try? account.calendars() // Radicale and Cyrus make the user's collections on first access
        }
        let url = server.homeURL + "t-" + UUID().uuidString.lowercased() + "/"
        try account.makeCalendar(at: url, name: name)
        return (url, account.collection(url: url))
    }
}

/// A VTODO calendar object with `uid` and `summary`.
func vtodo(_ uid: String, _ summary: String, description: String? = nil) -> [UInt8] {
    var lines = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//todod//tests//EN", "BEGIN:VTODO", "UID:\(uid)",
        "DTSTAMP:20261201T090000Z", "SUMMARY:\(summary)"
    ]
    if let description { lines.append("DESCRIPTION:\(description)") }
    lines += ["STATUS:NEEDS-ACTION", "END:VTODO", "END:VCALENDAR"]
    return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
}

/// A VEVENT calendar object (which versions() must leave out).
func vevent(_ uid: String) -> [UInt8] {
    Array(
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//todod//tests//EN", "BEGIN:VEVENT", "UID:\(uid)",
            "DTSTAMP:20261201T090000Z", "DTSTART:20261202T090000Z", "DTEND:20261202T100000Z", "SUMMARY:An event",
            "END:VEVENT", "END:VCALENDAR"
        ].joined(separator: "\r\n") + "\r\n").utf8)
}

/// The value of the first `name:` line of an iCalendar object (unfolded), as bytes.
func propertyBytes(_ data: [UInt8], _ name: String) -> [UInt8]? {
    let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n ", with: "")
    for line in text.components(separatedBy: "\r\n") where line.hasPrefix(name + ":") || line.hasPrefix(name + ";") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        return Array(line[line.index(after: colon)...].utf8)
    }
    return nil
}

/// The CalDAVError `body` throws, or nil (another error is recorded as `.malformed` with its text).
func caldavError(_ body: () throws -> Void) -> CalDAVError? {
    do { try body() } catch let error as CalDAVError { return error } catch {
        return .malformed("not a CalDAVError: \(error)")
    }
    return nil
}
