import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct LongWorkTests {
    /// A 100,000-todo import runs as one transaction on the store queue (atomic for every reader),
    /// and WATCHDOG=1 keeps coming while it applies: the import tells the watchdog it moves every
    /// 100 todos. Before, the messages stopped for the whole import and a long one got the
    /// daemon killed. Prints the longest silence and other clients' worst latency.
    @Test func theWatchdogHearsFromALongImport() throws {
        let dir = TemporaryDirectory("longwork")
        let notifyPath = dir.file("notify.sock")
        let notify = try UnixDatagram.bind(path: notifyPath)
        defer { Posix.close(notify) }
        let daemon = try DaemonProcess(
            directory: dir, environment: ["NOTIFY_SOCKET": notifyPath, "WATCHDOG_USEC": "2000000"])
        let beats = LockedBox<[Double]>([])
        let worst = LockedBox(0.0)
        let done = LockedBox(false)
        let listener = Thread {
            while !done.value {
                if let bytes = UnixDatagram.receive(notify, timeoutMilliseconds: 50), bytes == Array("WATCHDOG=1".utf8)
                {
                    let t = now()
                    beats.mutate { $0.append(t) }
                }
            }
        }
        listener.start()
        nonisolated(unsafe) let otherClient = try daemon.client() // used by that thread alone
        let other = Thread {
            while !done.value {
                let t = now()
                _ = try? otherClient.result("daemon.status")
                let took = now() - t
                worst.mutate { $0 = max($0, took) }
                usleep(20_000) // the pace of the other client's requests, not a wait
            }
        }
        other.start()
        let importer = try RawClient(path: daemon.socket, timeoutSeconds: 120)
        #expect(eventually(timeout: 5) { !beats.value.isEmpty }) // the watchdog beats before the import
        let started = now()
        try importer.send(
            lines(
                20, "store.import",
                { part in
                    [
                        "format": "todod-export", "version": 1, "more": .bool(part < 19), "categories": [],
                        "todos": .array(
                            (0..<5000).map { i in
                                ["title": .string("取り込み \(part)-\(i)"), "created": "2026-01-01T00:00:00Z"]
                            })
                    ]
                }))
        var last: JSON = .null
        for _ in 0..<20 { last = try importer.receive() }
        let took = now() - started
        #expect(eventually(timeout: 5) { (beats.value.last ?? 0) > started + took }) // and once after it
        done.value = true
        #expect(eventually(timeout: 5, every: 0.01) { !listener.isExecuting && !other.isExecuting })
        #expect(last["result"]?["todos"] == 100_000)
        let during = beats.value.filter { $0 > started - 0.5 }
        let silence = zip(during, during.dropFirst()).map { $1 - $0 }.max() ?? .infinity
        print(
            "100,000-todo import: \(String(format: "%.2f", took)) s; longest watchdog silence \(String(format: "%.2f", silence)) s "
                + "(interval 2 s); other clients' worst latency \(String(format: "%.0f", worst.value * 1000)) ms")
        // The manager kills a service silent for the whole interval. Messages are due every second;
        // the margin up to 2 s absorbs a loaded machine (the import itself takes 5 s or more).
        #expect(silence < 2.0, "WATCHDOG=1 stopped for \(silence) s")
    }
}
