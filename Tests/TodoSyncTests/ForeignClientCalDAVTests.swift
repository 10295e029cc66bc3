import Foundation
import Testing
import TodoCalDAV
import TodoCore
import TodoProtocol
import TodoTestSupport
import TodoUserFiles

@testable import TodoSync

/// The built `todod-sync`, two todod stores and a real server, with a third client writing as
/// phones do: a todo without a sort order, and a title edit of a todo full of lines todod does
/// not model (issue 32, items 5 and 6).
@Suite(.serialized, .enabled(if: CalDAVTestSupport.serversRequired, Comment(rawValue: CalDAVTestSupport.skipMessage)))
struct ForeignClientCalDAVTests {
    /// The open todos of the calendar in X-APPLE-SORT-ORDER order (nil: one has none).
    static func serverOrder(_ collection: CalDAVCollection) throws -> [String]? {
        let items = try collection.fetch(try collection.versions().map(\.href)).compactMap {
            try? VTodoCodec().item($0.data).get()
        }
        var ordered: [(uid: String, order: Int64)] = []
        for item in items where !item.entry.done {
            guard let uid = item.entry.uid, let order = item.sortOrder else { return nil }
            ordered.append((uid, order))
        }
        return ordered.sorted { $0.order != $1.order ? $0.order < $1.order : $0.uid < $1.uid }.map(\.uid)
    }

    /// A todo another client adds without X-APPLE-SORT-ORDER while a store adds one: the first
    /// store to take it places it and sends that place; both stores and the server end in one
    /// order, and the rounds after are quiet.
    @Test(arguments: [CalDAVServer.Kind.radicale, .cyrus])
    func aTodoWithoutASortOrderConverges(_ kind: CalDAVServer.Kind) throws {
        let server = try CalDAVSyncTests.server(kind)
        let calendar = try CalDAVSyncTests.calendar(server)
        let (a, b) = (try CalDAVSyncTests.host(server, calendar), try CalDAVSyncTests.host(server, calendar))
        _ = try a.machine.add("前から ある")
        #expect(try a.once().status == 0)
        #expect(try b.once().status == 0)
        _ = try a.machine.add("LOCAL ここで")
        let collection = CalDAVCollection(url: calendar, user: server.user, password: server.password)
        _ = try collection.create(name: "phone-1.ics", data: Array(vtodo(uid: "phone-1", summary: "PHONE 電話で").utf8))
        for host in [a, b, a] {
            let round = try host.once()
            #expect(round.status == 0, "\(round.stdout)\(round.stderr)")
        }
        let order = try a.machine.openUIDs()
        #expect(order.count == 3 && order.contains("phone-1"))
        #expect(try b.machine.openUIDs() == order)
        #expect(try Self.serverOrder(collection) == order)
        for host in [a, b] {
            let quiet = try host.once()
            #expect(quiet.stdout.contains(": 0 sent, 0 received"), "\(quiet.stdout)\(quiet.stderr)")
        }
        #expect(try b.machine.openUIDs() == a.machine.openUIDs())
    }

    /// Another client changes only the title of a todo carrying properties, X- lines and alarms
    /// todod does not model: each store takes the title with no conflict and no PUT.
    @Test(arguments: [CalDAVServer.Kind.radicale, .cyrus])
    func aTitleEditedElsewhereIsNoConflict(_ kind: CalDAVServer.Kind) throws {
        let server = try CalDAVSyncTests.server(kind)
        let calendar = try CalDAVSyncTests.calendar(server)
        let (a, b) = (try CalDAVSyncTests.host(server, calendar), try CalDAVSyncTests.host(server, calendar))
        let collection = CalDAVCollection(url: calendar, user: server.user, password: server.password)
        let made = try collection.create(
            name: "rich.ics",
            data: Array(
                ForeignTitleEditTests.richResource(
                    title: "Buy milk", modified: "20261201T090000Z", sequence: 1
                ).utf8))
        for host in [a, b, a, b] { #expect(try host.once().status == 0) }
        let before = try #require(try collection.versions().first { $0.href == made.href })
        for host in [a, b] {
            let quiet = try host.once()
            #expect(quiet.stdout.contains(": 0 sent, 0 received"), "\(quiet.stdout)\(quiet.stderr)")
        }
        _ = try collection.update(
            href: made.href,
            data: Array(
                ForeignTitleEditTests.richResource(
                    title: "牛乳を買う", modified: icalStamp(fromNow: 60), sequence: 2
                ).utf8), ifMatch: before.etag)
        let edited = try #require(try collection.versions().first { $0.href == made.href })
        for host in [a, b] {
            let round = try host.once()
            #expect(
                round.status == 0 && round.stdout.contains(": 0 sent, 1 received, 0 conflicts"),
                "\(round.stdout)\(round.stderr)")
            #expect(try host.machine.todo(uid: "rich-1@apple")?["title"] == "牛乳を買う")
            #expect(host.status?.conflicts.isEmpty == true)
        }
        #expect(try collection.versions().first { $0.href == made.href }?.etag == edited.etag)
    }
}
