import Dispatch
import Foundation
import Testing
import TodoCore
import TodoPosix
import TodoStore
import TodoTestSupport
import TodoTime

@testable import TodoDaemon

@Suite struct JournalEntryTests {
    @Test func entryHasExactlyTheSpecFields() throws {
        let due = Instant(rfc3339: "2026-12-01T09:00:00Z")!
        let todo = Todo(
            id: 12, uid: "0f8fad5b-d9cb-469f-a165-70867728950e", title: "牛乳を買う", category: "買い物", due: due,
            remind: due.adding(usec: -900_000_000),
            position: 1, created: due, updated: due)
        let fields = JournalReminderSink.fields(
            FiredReminder(todo: todo, fired: due, lateUsec: 1234),
            storeID: "5f0c3a43-9d7e-4b6e-8f43-2f9b8f6f0a11", timeZone: ZoneInfo(identifier: "Asia/Tokyo")!)
        #expect(
            fields.map(\.name) == [
                "MESSAGE", "MESSAGE_ID", "PRIORITY", "SYSLOG_IDENTIFIER", "TODO_ID", "TODO_UID", "TODO_STORE",
                "TODO_TITLE",
                "TODO_CATEGORY", "TODO_DUE", "TODO_DUE_USEC", "TODO_REMIND_USEC", "TODO_LATE_USEC"
            ])
        #expect(fields[0].value == "Todo 12 “牛乳を買う” is due at 2026-12-01 18:00 +09:00.")
        #expect(fields.first { $0.name == "TODO_UID" }?.value == "0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(fields.first { $0.name == "TODO_STORE" }?.value == "5f0c3a43-9d7e-4b6e-8f43-2f9b8f6f0a11")
        #expect(fields.first { $0.name == "TODO_DUE" }?.value == "2026-12-01T09:00:00Z")
        #expect(fields.first { $0.name == "TODO_REMIND_USEC" }?.value == String(due.usec - 900_000_000))
        for (name, _) in fields {
            #expect(
                name.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" } && !name.hasPrefix("_")
                    && name.count <= 64)
        }
    }
}
