import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct BackpressureTests {
    /// A client that writes 60,000 adds before it reads a single answer gets all 60,000 answers,
    /// in order: the daemon stops taking its requests while the answers are not read, instead of
    /// running them and cutting the client off at the output bound (33,969 ran, none answered).
    @Test func sixtyThousandAddsWrittenBeforeReadingAreAllAnswered() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        try client.send(lines(60_000, "todo.add", { ["title": .string("todo \($0) を書く")] }))
        for i in 1...60_000 {
            let answer = try client.receive()
            guard answer["id"] == .int(Int64(i)), answer["result"]?["id"] == .int(Int64(i)) else {
                Issue.record("answer \(i): \(answer.serialized().prefix(200))")
                return
            }
        }
        #expect(try daemon.client().result("todo.list", ["limit": 0])["total"] == 60_000)
    }

    /// A client that pipelines listings and never reads: the daemon's memory stays bounded (the
    /// streamed answers count against the connection's output bound, and no new request is taken
    /// while output waits), and other clients are served meanwhile. It grew to 949 MB before.
    @Test func aNeverReadingClientOfListingsKeepsTheDaemonSmall() throws {
        let daemon = try DaemonProcess()
        let setup = try daemon.client()
        try setup.send(
            lines(
                20, "store.import",
                { part in
                    [
                        "format": "todod-export", "version": 1, "more": .bool(part < 19), "categories": [],
                        "todos": .array(
                            (0..<1000).map { i in
                                [
                                    "title": .string("一覧 \(part)-\(i) " + String(repeating: "x", count: 100)),
                                    "created": "2026-01-01T00:00:00Z"
                                ]
                            })
                    ]
                }))
        for _ in 0..<20 { #expect(try setup.receive()["result"] != nil) }
        let rssBefore = residentKiB(daemon.pid)
        let silent = try daemon.client()
        var sent = 0
        // As many listings as the daemon takes: a write that waits a second ends the sending.
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(silent.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = lines(100, "todo.list", { _ in ["status": "all"] })
        while sent < 20_000 {
            guard let n = try? Posix.write(silent.fd, request, from: 0), n == request.count else { break }
            sent += 100
        }
        // Another client is served while the silent one holds its answers.
        let other = try daemon.client()
        var peak = 0
        for _ in 0..<20 {
            #expect(try other.result("todo.list", ["limit": 1])["total"] == 20_000)
            peak = max(peak, residentKiB(daemon.pid))
            usleep(50_000) // samples a second of the silent client holding its answers: the watching is what is tested
        }
        print(
            "never-reading client: \(sent) listings of 20,000 todos (~2.7 MB each) sent; daemon RSS \(rssBefore) KiB before, at most \(peak) KiB"
        )
        #expect(peak < rssBefore + 120 * 1024, "RSS \(peak) KiB")
    }

    /// An import held in parts is bounded in bytes, not only in todos: past 256 MiB held the part
    /// is refused with -32602 naming `todos`, and everything held is dropped.
    @Test func anImportHeldInPartsIsBoundedInBytes() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.client()
        let notes = String(repeating: "n", count: 60_000)
        let part: JSONObject = [
            "format": "todod-export", "version": 1, "more": true, "categories": [],
            "todos": .array(
                (0..<16).map { _ in ["title": "重い", "notes": .string(notes), "created": "2026-01-01T00:00:00Z"] })
        ]
        var refused: JSON?
        for _ in 0..<400 { // 16 todos of 60 kB a part: about 1 MB a part, so the bound is hit near part 270
            let answer = try client.call("store.import", part)
            if answer["error"] != nil {
                refused = answer
                break
            }
        }
        #expect(refused?["error"]?["code"] == -32602)
        #expect(refused?["error"]?["data"]?["field"] == "todos")
        // Nothing was held any more: a last part imports only itself.
        var last = part
        last["more"] = false
        #expect(try client.result("store.import", last)["todos"] == 16)
    }
}
