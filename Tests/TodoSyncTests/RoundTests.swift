import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoSync
import TodoTestSupport
import TodoUserFiles

/// The sync round against a real todod (the built binary, its database file) and a collection in
/// memory: both directions, echo suppression, 412s, deletes against edits, lost state, recurring
/// completion, servers without sync tokens.
@Suite(.serialized) struct RoundTests {
    @Test func theFirstRoundSyncsBothWaysAndTheSecondSendsNothing() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let a = try m.add("牛乳を買う", ["tags": ["家"], "priority": "high"])
        try m.add("Call mom", ["due": "2026-12-24T09:00:00Z"])
        cal.put("phone-1.ics", vtodo(uid: "phone-1", summary: "Buy stamps"))
        let first = try m.sync(cal)
        #expect(first.sent == 3) // two created, and the phone's todo (no sort order) given its place
        #expect(first.received == 1)
        #expect(cal.items()["phone-1"]?.sortOrder != nil)
        #expect(cal.resources.count == 3)
        #expect(try m.todos().count == 3)
        let uid = try #require(a["uid"]?.stringValue)
        let href = try #require(cal.href(uid: uid))
        #expect(!href.contains(uid)) // hrefs are never derived from UIDs
        #expect(href.hasPrefix(cal.path) && href.hasSuffix(".ics"))

        let writes = (cal.creates, cal.updates, cal.deletes)
        let second = try m.sync(cal)
        #expect(second.sent == 0 && second.received == 0)
        #expect((cal.creates, cal.updates, cal.deletes) == writes)
        #expect(try m.todos().count == 3)
    }

    @Test func editsTravelBothWaysAndDifferentFieldsMerge() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(try m.add("Plan trip").result_uid)
        try m.sync(cal)
        let href = try #require(cal.href(uid: uid))

        // Remote changes the notes (a later LAST-MODIFIED), local the title: both kept.
        cal.edit(href) { $0.replacingOccurrences(of: "LAST-MODIFIED:", with: "DESCRIPTION:旅館を予約\r\nX-OLD-LM:") }
        try m.update(uid: uid, ["title": "Plan the trip to 京都"])
        var conflicts: [SyncStatus.Conflict] = []
        let report = try m.sync(cal, conflicts: { conflicts.append($0) })
        #expect(conflicts.isEmpty)
        #expect(report.sent == 1 && report.received == 1)
        let local = try #require(try m.todo(uid: uid))
        #expect(local["title"] == "Plan the trip to 京都")
        #expect(local["notes"] == "旅館を予約")
        let remote = try #require(cal.items()[uid])
        #expect(remote.entry.title == "Plan the trip to 京都")
        #expect(remote.entry.notes == "旅館を予約")
        // unknown lines survive the push
        #expect(String(decoding: cal.resources[href]!.data, as: UTF8.self).contains("X-OLD-LM:"))
        #expect(try m.sync(cal).sent == 0)
    }

    @Test func aConflictGoesToTheLaterSideAndIsReported() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(try m.add("Title").result_uid)
        try m.sync(cal)
        let href = try #require(cal.href(uid: uid))
        try m.update(uid: uid, ["title": "local title"])
        // The phone's edit is later (LAST-MODIFIED in 2030).
        cal.edit(href) { text in
            text.replacingOccurrences(of: "SUMMARY:Title", with: "SUMMARY:phone title")
                .replacingOccurrences(
                    of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:20300101T000000Z", options: .regularExpression)
        }
        var conflicts: [SyncStatus.Conflict] = []
        try m.sync(cal, conflicts: { conflicts.append($0) })
        #expect(try m.todo(uid: uid)?["title"] == "phone title")
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.fields == ["title"])
        #expect(conflicts.first?.kept == "remote")
        #expect(cal.items()[uid]?.entry.title == "phone title")
    }

    /// The manual order: a move here goes out as X-APPLE-SORT-ORDER; todos new from the server
    /// go to the end of the order here, in their X-APPLE-SORT-ORDER.
    @Test func theManualOrderTravelsAsAppleSortOrder() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let first = try #require(try m.add("first").result_uid)
        let second = try #require(try m.add("second").result_uid)
        try m.sync(cal)
        func order(_ uid: String) -> Int64? { cal.items()[uid]?.sortOrder }
        #expect(order(first) == 1024 && order(second) == 2048)
        let id = try #require(try m.todo(uid: second)?["id"])
        _ = try m.client.result("todo.move", ["id": id, "position": 1])
        try m.sync(cal)
        #expect(try #require(order(second)) < #require(order(first))) // above the todo now below it
        for (name, n) in [("c", 30000), ("a", 10000), ("b", 20000)] {
            cal.put("\(name).ics", vtodo(uid: "phone-\(name)", summary: name, extra: ["X-APPLE-SORT-ORDER:\(n)"]))
        }
        try m.sync(cal)
        let titles = try m.client.result("todo.list", [:])["todos"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(titles == ["second", "first", "a", "b", "c"])
    }

    /// Another client reorders existing todos (their X-APPLE-SORT-ORDER changes): the local
    /// order follows with todo.move (same ids and uids, nothing else changed), and the next
    /// round sends and receives nothing.
    @Test func aRemoteReorderOfExistingTodosReachesTheLocalOrder() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (a, b, c) = (try m.add("A 牛乳").result_uid!, try m.add("B").result_uid!, try m.add("C").result_uid!)
        try m.sync(cal)
        let before = try m.todos()
        try cal.setSortOrder(uid: c, 0)
        let report = try m.sync(cal)
        #expect(report.received == 1 && report.sent == 0 && report.conflicts.isEmpty)
        #expect(try m.openUIDs() == [c, a, b])
        let after = try m.todos()
        for (old, new) in zip(
            before.sorted { $0["id"]!.intValue! < $1["id"]!.intValue! },
            after.sorted { $0["id"]!.intValue! < $1["id"]!.intValue! })
        {
            #expect(old["uid"] == new["uid"] && old["title"] == new["title"] && old["created"] == new["created"])
        }
        #expect(try m.todo(uid: a)?["title"] == "A 牛乳")
        let writes = (cal.creates, cal.updates, cal.deletes)
        let second = try m.sync(cal)
        #expect(second.sent == 0 && second.received == 0)
        #expect((cal.creates, cal.updates, cal.deletes) == writes)
        #expect(try m.openUIDs() == [c, a, b])
        #expect(cal.items()[c]?.sortOrder == 0)
    }

    /// Several todos reordered in one round end in the order their sort orders give them.
    @Test func severalRemoteReordersInOneRoundEndInTheirOrder() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        var uids: [String] = []
        for t in ["A", "B", "C", "D"] { uids.append(try #require(try m.add(t).result_uid)) }
        try m.sync(cal)
        try cal.setSortOrder(uid: uids[3], 0) // D to the top
        try cal.setSortOrder(uid: uids[0], 5000) // A to the bottom
        #expect(try m.sync(cal).received == 2)
        #expect(try m.openUIDs() == [uids[3], uids[1], uids[2], uids[0]])
        let second = try m.sync(cal)
        #expect(second.sent == 0 && second.received == 0)
        // Applied in ascending sort order: C and B swapped to the top as C, B.
        try cal.setSortOrder(uid: uids[2], -2)
        try cal.setSortOrder(uid: uids[1], -1)
        try m.sync(cal)
        #expect(try m.openUIDs() == [uids[2], uids[1], uids[3], uids[0]])
        #expect(try m.sync(cal).sent == 0)
    }

    /// Two todods on one calendar: a move to the top or the bottom on one (sent with a sort order
    /// beyond its new neighbour's) gives the same order on the other, and then both are quiet.
    @Test func aMoveOnAnotherTodoGivesTheSameOrderHere() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        var uids: [String] = []
        for t in ["A", "B", "C", "D"] { uids.append(try #require(try one.add(t).result_uid)) }
        try one.sync(cal)
        try two.sync(cal)
        #expect(try two.openUIDs() == uids)
        for (uid, position) in [(uids[2], 1), (uids[1], 4), (uids[3], 1)] {
            _ = try one.client.result(
                "todo.move", ["id": try #require(try one.todo(uid: uid)?["id"]), "position": .int(Int64(position))])
            try one.sync(cal)
            try two.sync(cal)
            #expect(try two.openUIDs() == one.openUIDs())
            for m in [one, two] {
                let quiet = try m.sync(cal)
                #expect(quiet.sent == 0 && quiet.received == 0)
            }
        }
        #expect(try one.openUIDs() == [uids[3], uids[2], uids[0], uids[1]])
    }

    /// Two todods on one calendar, five todos: moves here (to the 2nd place, to the middle after
    /// earlier moves, to the top, to the bottom) go out as sort orders between the new
    /// neighbours', so the other todod puts them in the same place; then both are quiet.
    @Test func aMoveHereLandsInTheSamePlaceOnAnotherTodod() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        var uids: [String] = []
        for t in ["A1", "A2", "A3", "A4", "A5"] { uids.append(try #require(try one.add(t).result_uid)) }
        try one.sync(cal)
        try two.sync(cal)
        #expect(try two.openUIDs() == uids)
        for (uid, position) in [(uids[3], 2), (uids[4], 3), (uids[0], 4), (uids[2], 1), (uids[1], 5), (uids[3], 3)] {
            _ = try one.client.result(
                "todo.move", ["id": try #require(try one.todo(uid: uid)?["id"]), "position": .int(Int64(position))])
            try one.sync(cal)
            try two.sync(cal)
            let order = try one.openUIDs()
            #expect(try two.openUIDs() == order)
            #expect(cal.openUIDsBySortOrder() == order)
            for m in [one, two] {
                let quiet = try m.sync(cal)
                #expect(quiet.sent == 0 && quiet.received == 0)
            }
        }
    }

    /// Sort orders like Apple Reminders' (large, negative): a todo moved here gets one strictly
    /// between its new neighbours'; the others are not rewritten.
    @Test func aMoveAmongAppleSortOrdersGoesBetweenItsNeighbours() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let orders = InMemoryCollection.appleSortOrders
        cal.putAppleTodos()
        try m.sync(cal)
        #expect(try m.openUIDs() == ["apple-0", "apple-1", "apple-2", "apple-3"])
        _ = try m.client.result("todo.move", ["id": try #require(try m.todo(uid: "apple-3")?["id"]), "position": 2])
        let before = cal.items()
        let report = try m.sync(cal)
        #expect(report.sent == 1 && cal.updates == 1)
        let sent = try #require(cal.items()["apple-3"]?.sortOrder)
        #expect(sent > orders[0] && sent < orders[1])
        for uid in ["apple-0", "apple-1", "apple-2"] { #expect(cal.items()[uid] == before[uid]) }
        // To the top and to the bottom: beyond the first and the last.
        _ = try m.client.result("todo.move", ["id": try #require(try m.todo(uid: "apple-2")?["id"]), "position": 1])
        try m.sync(cal)
        #expect(try #require(cal.items()["apple-2"]?.sortOrder) < orders[0])
        _ = try m.client.result("todo.move", ["id": try #require(try m.todo(uid: "apple-0")?["id"]), "position": 4])
        try m.sync(cal)
        #expect(try #require(cal.items()["apple-0"]?.sortOrder) > orders[2])
        #expect(cal.openUIDsBySortOrder() == (try m.openUIDs()))
        let quiet = try m.sync(cal)
        #expect(quiet.sent == 0 && quiet.received == 0)
    }

    /// A todo moved here whose update meets a 412 (the phone edited it at that moment) is merged
    /// again and still goes out moved: the phone's edit and the new place both reach the server.
    @Test func aMoveWhoseUpdateMeetsA412IsSentAgainWithTheMove() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let orders = InMemoryCollection.appleSortOrders
        cal.putAppleTodos()
        try m.sync(cal)
        _ = try m.client.result("todo.move", ["id": try #require(try m.todo(uid: "apple-3")?["id"]), "position": 2])
        let href = try #require(cal.href(uid: "apple-3"))
        var fired = false
        cal.beforeWrite = { h in
            guard h == href, !fired else { return }
            fired = true
            cal.edit(h) {
                $0.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:NEEDS-ACTION\r\nDESCRIPTION:電話から")
            }
        }
        let report = try m.sync(cal)
        #expect(fired)
        #expect(report.pending == 0)
        #expect(try m.openUIDs() == ["apple-0", "apple-3", "apple-1", "apple-2"])
        let moved = try #require(cal.items()["apple-3"])
        #expect(moved.entry.notes == "電話から")
        #expect(try #require(moved.sortOrder) > orders[0] && moved.sortOrder! < orders[1])
        #expect(cal.openUIDsBySortOrder() == (try m.openUIDs()))
        #expect(try m.todo(uid: "apple-3")?["notes"] == "電話から")
        let quiet = try m.sync(cal)
        #expect(quiet.sent == 0 && quiet.received == 0)
    }

    /// No room between the new neighbours (sort orders 5 and 6): the open todos are renumbered
    /// (1024, 2048, ...) in the local order with conditional updates; a done todo keeps its sort
    /// order; the server's order then equals the local one and the next round is quiet.
    @Test func aMoveWithoutRoomRenumbersTheOpenTodos() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        for (name, order) in [("a", 5), ("b", 6), ("c", 7)] {
            cal.put("\(name).ics", vtodo(uid: "phone-\(name)", summary: name, extra: ["X-APPLE-SORT-ORDER:\(order)"]))
        }
        cal.put(
            "done.ics",
            vtodo(
                uid: "phone-done", summary: "done",
                extra: ["X-APPLE-SORT-ORDER:6", "STATUS:COMPLETED", "COMPLETED:20261130T090000Z"]
            ).replacingOccurrences(of: "STATUS:NEEDS-ACTION\r\n", with: ""))
        try m.sync(cal)
        #expect(try m.openUIDs() == ["phone-a", "phone-b", "phone-c"])
        _ = try m.client.result("todo.move", ["id": try #require(try m.todo(uid: "phone-c")?["id"]), "position": 2])
        let creates = cal.creates
        try m.sync(cal)
        #expect(cal.creates == creates && cal.updates == 3)
        let items = cal.items()
        #expect(["phone-a", "phone-c", "phone-b"].map { items[$0]?.sortOrder } == [1024, 2048, 3072])
        #expect(items["phone-done"]?.sortOrder == 6)
        #expect(try cal.openUIDsBySortOrder() == m.openUIDs())
        let quiet = try m.sync(cal)
        #expect(quiet.sent == 0 && quiet.received == 0)
    }

    /// A done todo has no place in the order: its remote reorder changes nothing here.
    @Test func aRemoteReorderOfADoneTodoChangesNothing() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        for t in ["A", "B", "C"] { try m.add(t) }
        let b = try #require(try m.todos()[1]["uid"]?.stringValue)
        _ = try m.client.result("todo.complete", ["ids": [try #require(try m.todo(uid: b)?["id"])]])
        try m.sync(cal)
        let before = try m.todos()
        try cal.setSortOrder(uid: b, 0)
        let report = try m.sync(cal)
        #expect(report.received == 0 && report.sent == 0)
        #expect(try m.todos() == before)
        #expect(try m.sync(cal).sent == 0)
    }

    /// Moved here and reordered on the server: the later change wins, as for any field, and the
    /// conflict is reported; afterwards both sides are quiet.
    @Test(arguments: [true, false]) func aTodoMovedHereAndReorderedThereKeepsTheLaterMove(_ remoteLater: Bool) throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (a, b, c) = (try m.add("A").result_uid!, try m.add("B").result_uid!, try m.add("C").result_uid!)
        try m.sync(cal)
        _ = try m.client.result("todo.move", ["id": try #require(try m.todo(uid: c)?["id"]), "position": 2])
        try cal.setSortOrder(uid: c, 0, modified: remoteLater ? "20300101T000000Z" : "20200101T000000Z")
        var conflicts: [SyncStatus.Conflict] = []
        try m.sync(cal, conflicts: { conflicts.append($0) })
        #expect(conflicts.map(\.fields) == [["order"]])
        #expect(conflicts.first?.kept == (remoteLater ? "remote" : "local"))
        #expect(try m.openUIDs() == (remoteLater ? [c, a, b] : [a, c, b]))
        if remoteLater {
            #expect(cal.items()[c]?.sortOrder == 0)
        } else {
            #expect(cal.openUIDsBySortOrder() == [a, c, b])
        }
        let second = try m.sync(cal)
        #expect(second.sent == 0 && second.received == 0)
        #expect(try m.openUIDs() == (remoteLater ? [c, a, b] : [a, c, b]))
    }

    /// A todo edited here while the round runs is not moved over the edit: it is merged again,
    /// keeps the edit, and then follows the server's order.
    @Test func aTodoEditedDuringTheRoundIsMergedAgainBeforeItMoves() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let (a, b, c) = (try m.add("A").result_uid!, try m.add("B").result_uid!, try m.add("C").result_uid!)
        try m.sync(cal)
        try cal.setSortOrder(uid: c, 0)
        let other = try m.daemon.client()
        let id = try #require(try m.todo(uid: c)?["id"])
        var edited = false
        cal.beforeFetch = { _ in
            guard !edited else { return }
            edited = true
            _ = try? other.result("todo.update", ["id": id, "title": "C edited meanwhile"])
        }
        let report = try m.sync(cal)
        #expect(edited && report.pending == 0)
        #expect(try m.todo(uid: c)?["title"] == "C edited meanwhile")
        #expect(cal.items()[c]?.entry.title == "C edited meanwhile")
        #expect(try m.openUIDs() == [c, a, b])
        let second = try m.sync(cal)
        #expect(second.sent == 0 && second.received == 0)
    }

    /// A 412: the resource changed between the engine's fetch and its PUT; it is fetched, merged
    /// and written again, never overwritten.
    @Test func aPreconditionFailureIsFetchedAndMergedNotOverwritten() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(try m.add("Report").result_uid)
        try m.sync(cal)
        let href = try #require(cal.href(uid: uid))
        try m.update(uid: uid, ["title": "Report for Q4"])
        var fired = false
        cal.beforeWrite = { h in
            guard h == href, !fired else { return }
            fired = true
            cal.edit(h) {
                $0.replacingOccurrences(
                    of: "STATUS:NEEDS-ACTION", with: "STATUS:NEEDS-ACTION\r\nDESCRIPTION:from the phone")
            }
        }
        let report = try m.sync(cal)
        #expect(fired)
        #expect(report.pending == 0)
        let remote = try #require(cal.items()[uid])
        #expect(remote.entry.title == "Report for Q4")
        #expect(remote.entry.notes == "from the phone")
        #expect(try m.todo(uid: uid)?["notes"] == "from the phone")
        #expect(cal.resources.count == 1)
    }

    @Test func anEditBeatsADeleteOnEitherSide() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let kept = try #require(try m.add("Edited here, deleted there").result_uid)
        let back = try #require(try m.add("Deleted here, edited there").result_uid)
        try m.sync(cal)
        cal.remove(try #require(cal.href(uid: kept)))
        try m.update(uid: kept, ["notes": "still needed"])
        try m.delete(uid: back)
        cal.edit(try #require(cal.href(uid: back))) {
            $0.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:NEEDS-ACTION\r\nPRIORITY:1")
        }
        var conflicts: [SyncStatus.Conflict] = []
        try m.sync(cal, conflicts: { conflicts.append($0) })
        #expect(try m.todo(uid: kept)?["notes"] == "still needed")
        #expect(cal.items()[kept]?.entry.notes == "still needed")
        #expect(try m.todo(uid: back)?["priority"] == "high")
        #expect(cal.items()[back] != nil)
        #expect(Set(conflicts.map(\.kept)) == ["local", "remote"])
        #expect(try m.todos().count == 2 && cal.resources.count == 2)
    }

    @Test func unchangedTodosFollowADeleteFromTheOtherSide() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let goneThere = try #require(try m.add("deleted on the phone").result_uid)
        let goneHere = try #require(try m.add("deleted here").result_uid)
        try m.sync(cal)
        cal.remove(try #require(cal.href(uid: goneThere)))
        try m.delete(uid: goneHere)
        let report = try m.sync(cal)
        #expect(report.sent == 1 && report.received == 1)
        #expect(try m.todos().isEmpty)
        #expect(cal.resources.isEmpty)
        #expect(try m.sync(cal).sent == 0)
    }

    /// The state lost (deleted) or corrupt: the next round matches the two sides by UID; nothing
    /// is duplicated on either side and edits made meanwhile survive.
    @Test(arguments: ["lost", "corrupt"]) func lostStateResyncsByUIDWithoutDuplicates(_ how: String) throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        for i in 0..<5 { try m.add("todo \(i)") }
        cal.put("a.ics", vtodo(uid: "phone-a", summary: "from the phone"))
        try m.sync(cal)
        #expect(cal.resources.count == 6)
        if how == "lost" {
            for suffix in ["", "-wal", "-shm"] { unlink(m.statePath + suffix) }
        } else {
            for suffix in ["-wal", "-shm"] { unlink(m.statePath + suffix) }
            try Data("this is not a database, just garbage ".utf8 + [UInt8](repeating: 0x5A, count: 8192)).write(
                to: URL(fileURLWithPath: m.statePath))
        }
        let uid = try #require(try m.todos().first?["uid"]?.stringValue)
        try m.update(uid: uid, ["title": "edited while the state was gone"])
        let report = try m.sync(cal)
        #expect(report.received == 0)
        #expect(cal.resources.count == 6)
        #expect(try m.todos().count == 6)
        #expect(cal.items().count == 6)
        #expect(cal.items()[uid]?.entry.title == "edited while the state was gone")
        #expect(try m.sync(cal).sent == 0)
    }

    /// todoman completes a recurring todo by marking it COMPLETED: here it advances to its next
    /// occurrence (todo.complete) and the advanced todo goes back; one VTODO, no duplicate.
    @Test func aRecurringTodoCompletedOnTheServerAdvancesHere() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(
            try m.add(
                "Take out the trash",
                [
                    "due": "2026-12-07T08:00:00Z", "zone": "UTC", "recurrence": ["rule": "FREQ=WEEKLY", "from": "due"]
                ]
            ).result_uid)
        try m.sync(cal)
        let href = try #require(cal.href(uid: uid))
        cal.edit(href) { text in
            text.replacingOccurrences(
                of: "STATUS:NEEDS-ACTION",
                with: "STATUS:COMPLETED\r\nCOMPLETED:20261207T090000Z\r\nPERCENT-COMPLETE:100"
            )
            .replacingOccurrences(
                of: #"LAST-MODIFIED:\d+T\d+Z"#, with: "LAST-MODIFIED:\(icalStamp(fromNow: 3_600))",
                options: .regularExpression)
        }
        try m.sync(cal)
        let local = try #require(try m.todo(uid: uid))
        #expect(local["done"] == false)
        #expect(local["due"] == "2026-12-14T08:00:00Z")
        let remote = try #require(cal.items()[uid])
        #expect(!remote.entry.done)
        #expect(remote.entry.due == Instant(rfc3339: "2026-12-14T08:00:00Z"))
        #expect(try cal.resources.count == 1 && m.todos().count == 1)
        // And completing it here advances it there.
        _ = try m.client.result("todo.complete", ["ids": [try #require(local["id"])]])
        try m.sync(cal)
        #expect(cal.items()[uid]?.entry.due == Instant(rfc3339: "2026-12-21T08:00:00Z"))
        #expect(cal.resources.count == 1)
    }

    @Test(arguments: [true, false]) func aServerWithoutSyncTokensOrWithAForgottenOneIsComparedByETag(_ tokens: Bool)
        throws
    {
        let m = try Machine()
        let cal = InMemoryCollection()
        cal.tokens = tokens
        let uid = try #require(try m.add("etag").result_uid)
        cal.put("p.ics", vtodo(uid: "phone-p", summary: "phone"))
        try m.sync(cal)
        cal.oldestToken = Int.max // every token is forgotten
        cal.edit(try #require(cal.href(uid: "phone-p"))) {
            $0.replacingOccurrences(of: "SUMMARY:phone", with: "SUMMARY:phone edited")
        }
        cal.remove(try #require(cal.href(uid: uid)))
        cal.oldestToken = tokens ? Int.max : 0
        let report = try m.sync(cal)
        #expect(report.received == 2)
        #expect(try m.todos().map { $0["title"] } == ["phone edited"])
        cal.oldestToken = 0
        #expect(try m.sync(cal).received == 0)
    }

    /// A todo changed here between the engine's read and its import is not overwritten: the
    /// import skips it (ifRevision), and the next pass merges it again.
    @Test func aTodoChangedDuringTheRoundIsMergedAgainNotOverwritten() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(try m.add("Shared").result_uid)
        try m.sync(cal)
        let href = try #require(cal.href(uid: uid))
        cal.edit(href) {
            $0.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:NEEDS-ACTION\r\nDESCRIPTION:remote notes")
        }
        let other = try m.daemon.client()
        var edited = false
        let report = try m.sync(
            cal,
            beforeApply: {
                guard !edited else { return }
                edited = true
                _ = try? other.result("todo.update", ["id": .int(1), "title": "changed during the round"])
            })
        #expect(report.pending == 0)
        #expect(edited)
        let local = try #require(try m.todo(uid: uid))
        #expect(local["title"] == "changed during the round")
        #expect(local["notes"] == "remote notes")
        #expect(cal.items()[uid]?.entry.title == "changed during the round")
    }

    /// store.import's `ifRevision`: applied while the revision matches, else listed as stale;
    /// `deleted` deletes only while it matches.
    @Test func conditionalImportSkipsStaleEntries() throws {
        let m = try Machine()
        let t = try m.add("x")
        let uid = try #require(t.result_uid)
        let entry: (String, Int64, Bool) -> JSON = { title, rev, deleted in
            var o: JSONObject = [
                "uid": .string(uid), "title": .string(title), "created": "2026-01-01T00:00:00Z", "ifRevision": .int(rev)
            ]
            if deleted { o["deleted"] = true }
            return .object(o)
        }
        let stale = try m.client.result(
            "store.import",
            ["format": "todod-export", "version": 1, "categories": [], "todos": [entry("old", 7, false)]])
        #expect(stale["stale"] == [.string(uid)])
        #expect(try m.todo(uid: uid)?["title"] == "x")
        let ok = try m.client.result(
            "store.import",
            ["format": "todod-export", "version": 1, "categories": [], "todos": [entry("new", 1, false)]])
        #expect(ok["updated"] == 1 && ok["stale"] == [])
        #expect(try m.todo(uid: uid)?["title"] == "new")
        let del = try m.client.result(
            "store.import", ["format": "todod-export", "version": 1, "categories": [], "todos": [entry("new", 2, true)]]
        )
        #expect(del["deleted"] == 1)
        #expect(try m.todos().isEmpty)
        let bad = try m.client.call(
            "store.import",
            [
                "format": "todod-export", "version": 1, "categories": [],
                "todos": [.object(["uid": "x", "title": "t", "created": "2026-01-01T00:00:00Z", "deleted": true])]
            ])
        #expect(bad["error"]?["data"]?["field"] == "todos[0].deleted")
    }

    /// A new todo's PUT whose answer was lost: the state recorded its name first, so the next
    /// round finds it instead of making a second resource.
    @Test func aCreationCutOffIsFoundNotDuplicated() throws {
        let m = try Machine()
        let cal = FailingAfterCreate(InMemoryCollection())
        try m.add("once only")
        #expect(throws: SyncError.self) { try m.sync(cal) }
        #expect(cal.inner.resources.count == 1)
        cal.failing = false
        try m.sync(cal)
        #expect(cal.inner.resources.count == 1)
        #expect(try m.sync(cal).sent == 0)
    }

    /// A creation answered 412 that created nothing: the todo is created in a later pass, not
    /// forgotten (found by CalDAVSyncTests.faultsLoseAndDuplicateNothing).
    @Test func aCreationRefusedWith412IsRetriedNotForgotten() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let uid = try #require(try m.add("refused once").result_uid)
        cal.refuseCreates = 1
        let report = try m.sync(cal)
        #expect(report.pending == 0)
        #expect(cal.items()[uid] != nil)
        #expect(cal.resources.count == 1)
    }

    /// A pull larger than one request line (1 MiB) goes to the store in parts, applied whole.
    @Test func aLargePullIsImportedInParts() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        let notes = String(repeating: "メモ", count: 200)
        for i in 0..<3000 {
            cal.put("r\(i).ics", vtodo(uid: "bulk-\(i)", summary: "bulk \(i) 一括", extra: ["DESCRIPTION:\(notes)"]))
        }
        let report = try m.sync(cal)
        #expect(report.received == 3000)
        #expect(try m.client.result("todo.list", ["limit": 0])["total"] == 3000)
        #expect(try m.sync(cal).received == 0)
    }

    /// The state's seq is ahead of the store (the store was restored from an older copy): the
    /// round reads the store whole instead of failing for ever.
    @Test func aSeqAheadOfTheStoreReadsTheStoreWhole() throws {
        let m = try Machine()
        let cal = InMemoryCollection()
        try m.add("one")
        try m.sync(cal)
        let (state, _) = try SyncState.open(path: m.statePath)
        try state.setSeq(1_000_000)
        try m.add("two")
        let report = try m.sync(cal)
        #expect(report.sent == 1)
        #expect(cal.resources.count == 2)
    }

    @Test func stateFileHoldsOneRowPerTodoAndAChangeRewritesOne() throws {
        let dir = TemporaryDirectory("state")
        let (state, reset) = try SyncState.open(path: dir.file("a.state"))
        #expect(reset == nil)
        try state.transaction {
            for i in 0..<10_000 {
                try state.save(
                    SyncedItem(
                        uid: "u\(i)", href: "/c/\(i).ics", etag: "\"\(i)\"", base: Array("BEGIN:VCALENDAR \(i)".utf8)))
            }
        }
        #expect(state.count == 10_000)
        let start = Date()
        for i in 0..<100 {
            try state.save(SyncedItem(uid: "u\(i)", href: "/c/\(i).ics", etag: "\"x\(i)\"", base: [0x41]))
        }
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(try state.item(uid: "u5")?.etag == "\"x5\"")
        #expect(try state.item(href: "/c/9999.ics")?.uid == "u9999")
    }
}

/// A collection whose creations succeed on the server but whose answers are lost.
final class FailingAfterCreate: CalendarCollection, @unchecked Sendable {
    let inner: InMemoryCollection
    var failing = true
    init(_ inner: InMemoryCollection) { self.inner = inner }
    var url: String { inner.url }
    func changes(since token: String?) throws(CalDAVError) -> CollectionDelta { try inner.changes(since: token) }
    func versions() throws(CalDAVError) -> [RemoteVersion] { try inner.versions() }
    func fetch(_ hrefs: [String]) throws(CalDAVError) -> [RemoteObject] { try inner.fetch(hrefs) }
    func create(name: String, data: [UInt8]) throws(CalDAVError) -> (href: String, etag: String?) {
        let r = try inner.create(name: name, data: data)
        if failing { throw .timeout }
        return r
    }
    func update(href: String, data: [UInt8], ifMatch etag: String) throws(CalDAVError) -> String? {
        try inner.update(href: href, data: data, ifMatch: etag)
    }
    func delete(href: String, ifMatch etag: String) throws(CalDAVError) { try inner.delete(href: href, ifMatch: etag) }
}

extension JSON {
    var result_uid: String? { self["uid"]?.stringValue }
}
