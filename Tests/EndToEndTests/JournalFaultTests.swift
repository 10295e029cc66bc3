import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The `TODO_TITLE`s of the journal entries a fake journald received (native protocol:
/// `NAME=value` lines).
private func titles(in datagram: [UInt8]) -> [String] {
    String(decoding: datagram, as: UTF8.self).split(separator: "\n")
        .filter { $0.hasPrefix("TODO_TITLE=") }.map { String($0.dropFirst("TODO_TITLE=".count)) }
}

/// Delivery faults, with the test standing in for journald in a private mount namespace (needs
/// root and unshare(1)).
@Suite(.serialized, .enabled(if: getuid() == 0, "a private mount namespace needs root"))
struct JournalFaultTests {
    /// journald is down while reminders fall due: each goes to stderr once and stays pending
    /// (not `reminded`); once a journal listens again every one lands there exactly once, and
    /// only then is it recorded. `TODOD_TEST_JOURNAL_DOWN` sets the outage in seconds (default 6;
    /// 60 for the figure in docs/RELIABILITY.md).
    @Test func remindersRefusedWhileJournaldIsDownLandOnceWhenItIsBack() throws {
        let down = Double(ProcessInfo.processInfo.environment["TODOD_TEST_JOURNAL_DOWN"] ?? "") ?? 6
        let count = 20
        let dir = TemporaryDirectory("jdown")
        let journal = dir.file("journal")
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: false)
        let daemon = try LaunchedDaemon.withJournal(at: journal, in: dir)
        let client = try daemon.client()
        let wentDown = Date()
        let title = unique("down")
        // Due one after another across the outage.
        for i in 0..<count {
            _ = try client.result(
                "todo.add",
                [
                    "title": .string("\(title) #\(i)"),
                    "due": .string(instant(in: 1 + Double(i) * (down - 2) / Double(count)))
                ])
        }
        // Each is written to stderr once as it falls due, and stays pending.
        #expect(
            eventually(timeout: down + 10) {
                daemon.stderr.split(separator: "\n").filter { $0.contains(title) }.count >= count
            })
        for id in 1...count { #expect(try client.result("todo.get", ["id": .int(Int64(id))])["reminded"] == .null) }
        #expect(try client.result("daemon.status")["nextReminder"] != .null)
        // the outage lasts `down` seconds: its length is what is tested
        waitUntilPast(wentDown.addingTimeInterval(down))

        // journald is back.
        let receiver = try UnixDatagram.bind(path: journal + "/socket")
        defer { Posix.close(receiver) }
        let cameBack = Date()
        var received: [String: Int] = [:]
        var lastArrival = cameBack
        while received.count < count, Date().timeIntervalSince(cameBack) < 20 {
            guard let datagram = UnixDatagram.receive(receiver, timeoutMilliseconds: 500) else { continue }
            for t in titles(in: datagram) { received[t, default: 0] += 1 }
            lastArrival = Date()
        }
        #expect(received.count == count)
        #expect(
            try eventually(timeout: 10) {
                try (1...count).allSatisfy {
                    try client.result("todo.get", ["id": .int(Int64($0))])["reminded"] != .null
                }
            })
        // A reminder added now lands after anything still to be sent: none of the others again.
        _ = try client.result("todo.add", ["title": .string(title + " sentinel"), "due": .string(instant(in: 0))])
        var sentinel = false
        while !sentinel, Date().timeIntervalSince(cameBack) < 40 {
            guard let datagram = UnixDatagram.receive(receiver, timeoutMilliseconds: 500) else { continue }
            for t in titles(in: datagram) {
                if t == title + " sentinel" { sentinel = true } else { received[t, default: 0] += 1 }
            }
        }
        #expect(sentinel)
        #expect(received.count == count && received.values.allSatisfy { $0 == 1 }, "\(received)")
        let onStderr = daemon.stderr.split(separator: "\n").filter { $0.contains(title) }
        #expect(onStderr.count == count) // once each, however often retried
        print(
            "journald down \(String(format: "%.0f", cameBack.timeIntervalSince(wentDown))) s: \(received.count) of \(count) reminders delivered once each, the last \(String(format: "%.1f", lastArrival.timeIntervalSince(cameBack))) s after it came back"
        )
    }

    /// A journald that stops reading blocks the journal send, but only the delivery queue: reads,
    /// writes and status are answered meanwhile, the reminder stays pending until it is
    /// delivered, and it lands once the journal reads again.
    @Test func aStalledJournalHoldsUpNoRequest() throws {
        let dir = TemporaryDirectory("jstall")
        let journal = dir.file("journal")
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: false)
        let receiver = try UnixDatagram.bind(path: journal + "/socket")
        defer { Posix.close(receiver) }
        let daemon = try LaunchedDaemon.withJournal(at: journal, in: dir)
        let filled = try UnixDatagram.fill(path: journal + "/socket")
        #expect(filled > 0)
        let client = try daemon.client()
        let title = unique("stalled")
        _ = try client.result("todo.add", ["title": .string(title), "due": .string(instant(in: 0))])
        #expect(eventually(timeout: 10) { daemon.blockedOnJournal })

        // Every kind of request is answered promptly while the send is blocked.
        let started = Date()
        for i in 0..<20 {
            _ = try client.result("todo.add", ["title": .string("meanwhile \(i)")])
            #expect(try client.result("todo.get", ["id": 1])["reminded"] == .null)
            #expect(try client.result("todo.list", ["limit": 5])["total"]?.intValue == Int64(i + 2))
            _ = try client.result("daemon.status")
        }
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(daemon.blockedOnJournal)

        // The journal reads again: the entry lands, once, and only then is it recorded.
        var landed = 0
        let drained = Date()
        while landed == 0, Date().timeIntervalSince(drained) < 10 {
            guard let datagram = UnixDatagram.receive(receiver, timeoutMilliseconds: 200) else { continue }
            landed += titles(in: datagram).filter { $0 == title }.count
        }
        #expect(landed == 1)
        #expect(try eventually(timeout: 5) { try client.result("todo.get", ["id": 1])["reminded"] != .null })
    }
}
