import Foundation
import Testing
import TodoCore
import TodoProtocol
import TodoTestSupport

@testable import TodoSync

/// The manual order converges: after quiet rounds two todods and the server show the same open
/// todos in the same order, whatever the history (an edit that beat a delete, a lost state
/// file, a renumbering cut off by the network). Real todods, a collection in memory.
@Suite(.serialized) struct OrderConvergenceTests {
    /// Both machines and the server show the same order, and a round on each is quiet.
    static func expectConverged(
        _ one: Machine, _ two: Machine, _ cal: InMemoryCollection, _ expected: [String]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let order = try one.openUIDs()
        #expect(try two.openUIDs() == order, sourceLocation: sourceLocation)
        #expect(cal.openUIDsBySortOrder() == order, sourceLocation: sourceLocation)
        if let expected { #expect(order == expected, sourceLocation: sourceLocation) }
        for m in [one, two] {
            let quiet = try m.sync(cal)
            #expect(quiet.sent == 0 && quiet.received == 0, sourceLocation: sourceLocation)
        }
        #expect(try two.openUIDs() == one.openUIDs(), sourceLocation: sourceLocation)
    }

    func move(_ m: Machine, _ uid: String, to position: Int64) throws {
        _ = try m.client.result(
            "todo.move", ["id": try #require(try m.todo(uid: uid)?["id"]), "position": .int(position)])
    }

    /// Deleted on one todod while edited on the other: the edit wins, and the todo comes back to
    /// the deleting todod in its place (third), not at the bottom.
    @Test func anEditThatBeatsADeleteComesBackInItsPlace() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        var uids: [String] = []
        for t in ["一", "二", "三", "四", "五"] { uids.append(try #require(try one.add(t).result_uid)) }
        try one.sync(cal)
        try two.sync(cal)
        try two.delete(uid: uids[2])
        try one.update(uid: uids[2], ["notes": "まだ要る"])
        try two.sync(cal)
        try one.sync(cal)
        try two.sync(cal)
        #expect(try two.todo(uid: uids[2])?["notes"] == "まだ要る")
        try Self.expectConverged(one, two, cal, uids)
    }

    /// After a renumbering, one todod loses its state file and edits four todos: the resync by
    /// UID keeps the server's sort orders (never the store's positions beside them), so the other
    /// todod moves nothing and both keep the order they had.
    @Test func aResyncAfterALostStateKeepsTheServersOrder() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        for (name, order) in [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5), ("f", 6)] {
            cal.put("\(name).ics", vtodo(uid: "phone-\(name)", summary: name, extra: ["X-APPLE-SORT-ORDER:\(order)"]))
        }
        try one.sync(cal)
        try two.sync(cal)
        try move(one, "phone-f", to: 2) // no room between 1 and 2: renumbered
        try one.sync(cal)
        try two.sync(cal)
        let expected = ["phone-a", "phone-f", "phone-b", "phone-c", "phone-d", "phone-e"]
        #expect(try two.openUIDs() == expected)
        #expect(cal.items()["phone-d"]?.sortOrder == 5120)
        for suffix in ["", "-wal", "-shm"] { unlink(one.statePath + suffix) }
        for uid in ["phone-a", "phone-b", "phone-c", "phone-e"] { try one.update(uid: uid, ["notes": "状態なしで編集"]) }
        try one.sync(cal)
        try two.sync(cal)
        #expect(try two.todo(uid: "phone-e")?["notes"] == "状態なしで編集")
        #expect(cal.items()["phone-e"]?.sortOrder == 6144)
        try Self.expectConverged(one, two, cal, expected)
    }

    /// A renumbering the network cuts off after two of its updates is finished by the next round:
    /// the server's order is the local one again, and the other todod follows.
    @Test func aRenumberingCutOffIsFinishedNextRound() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        for (name, order) in [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5)] {
            cal.put("\(name).ics", vtodo(uid: "phone-\(name)", summary: name, extra: ["X-APPLE-SORT-ORDER:\(order)"]))
        }
        try one.sync(cal)
        try two.sync(cal)
        try move(one, "phone-e", to: 2)
        cal.writesBeforeCut = 2
        #expect(throws: (any Error).self) { try one.sync(cal) }
        #expect(cal.updates == 2)
        cal.writesBeforeCut = nil
        try one.sync(cal)
        try two.sync(cal)
        try Self.expectConverged(one, two, cal, ["phone-a", "phone-e", "phone-b", "phone-c", "phone-d"])
        #expect(
            ["phone-a", "phone-e", "phone-b", "phone-c", "phone-d"].map { cal.items()[$0]?.sortOrder } == [
                1024, 2048, 3072, 4096, 5120
            ])
    }

    /// The planner alone: a store out of step with the server follows it for the todos in step,
    /// and the others keep their places; a renumbering asked for sends every open todo whose sort
    /// order changes.
    @Test func theStoreFollowsTheServersOrderWhereItIsInStep() {
        #expect(
            SyncPlanner.followingServer(open: ["a", "b", "c", "d"], known: ["a": 30, "b": 20, "d": 10]) == [
                "d", "b", "c", "a"
            ])
        #expect(SyncPlanner.followingServer(open: ["y", "x"], known: ["x": 5, "y": 5]) == ["x", "y"])
        let renumbered = SyncPlanner.place(
            moved: [], open: ["a", "b", "c"], known: ["a": 1024, "b": 7, "c": 3072], renumber: true)
        #expect(renumbered.renumbered && renumbered.orders == ["b": 2048])
    }
}

/// A todo another client writes without a sort order (no `X-APPLE-SORT-ORDER`) gets its place
/// from the first todod that takes it, and that place goes to the server: the other todod and
/// the server show the same order (issue 32, item 5).
@Suite(.serialized) struct UnorderedForeignTodoTests {
    @Test func aTodoWithoutASortOrderIsPlacedAndItsPlaceUploaded() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        let first = try #require(try one.add("前から").result_uid)
        try one.sync(cal)
        try two.sync(cal)
        let local = try #require(try one.add("LOCAL ここで").result_uid)
        cal.put("phone.ics", vtodo(uid: "phone-1", summary: "PHONE 電話で"))
        try one.sync(cal)
        try two.sync(cal)
        try one.sync(cal)
        #expect(cal.items()["phone-1"]?.sortOrder != nil)
        let order = try one.openUIDs()
        #expect(Set(order) == [first, local, "phone-1"])
        try OrderConvergenceTests.expectConverged(one, two, cal, order)
    }

    /// The same with the todo already in both stores when the other client wrote it: the
    /// first todod that syncs places it.
    @Test func aTodoWithoutASortOrderArrivingAloneIsPlaced() throws {
        let (one, two) = (try Machine(), try Machine())
        let cal = InMemoryCollection()
        let first = try #require(try one.add("LOCAL ここで").result_uid)
        try one.sync(cal)
        try two.sync(cal)
        cal.put("phone.ics", vtodo(uid: "phone-1", summary: "PHONE 電話で"))
        try two.sync(cal)
        try one.sync(cal)
        #expect(cal.items()["phone-1"]?.sortOrder != nil)
        let order = try two.openUIDs()
        #expect(Set(order) == [first, "phone-1"])
        try OrderConvergenceTests.expectConverged(one, two, cal, order)
    }
}
