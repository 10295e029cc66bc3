import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's resident memory in KiB (VmRSS).
func residentKiB(_ pid: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

@Suite struct OverloadTests {
    /// 1,000 idle connections and a `watch` subscriber that never reads, while another client does
    /// 10,000 operations: every operation succeeds, the non-reader is cut off at its output bound,
    /// and the daemon's memory stays bounded.
    @Test func idleConnectionsAndANonReaderDoNotStallOthers() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

        let daemon = try DaemonProcess()
        let idle = try (0..<1000).map { _ in try daemon.client() }
        let nonReader = try daemon.client()
        try nonReader.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"watch\"}\n")
        let rssIdle = residentKiB(daemon.pid)

        let worker = try daemon.client()
        let long = String(repeating: "長いタイトル", count: 150) // ~900 characters: events of about 3 KiB
        var ok = 0
        for batch in 0..<100 {
            var lines: [UInt8] = []
            for i in 0..<100 {
                let id = Int64(batch * 100 + i)
                let request =
                    id % 5 == 4
                    ? RPCRequest(id: .int(id), method: "todo.list", params: ["limit": 1])
                    : RPCRequest(id: .int(id), method: "todo.add", params: ["title": .string("\(id) \(long)")])
                request.json.write(to: &lines)
                lines.append(0x0A)
            }
            try worker.send(lines)
            for _ in 0..<100 where try worker.receive()["result"] != nil { ok += 1 }
        }
        #expect(ok == 10_000)
        let rssAfter = residentKiB(daemon.pid)
        print("daemon RSS: \(rssIdle) KiB with 1,000 idle connections; \(rssAfter) KiB after 10,000 operations")
        #expect(rssAfter < 200 * 1024, "RSS \(rssAfter) KiB")
        // The subscriber that never read was cut off: draining its socket ends in end-of-file.
        #expect(nonReader.isClosedByPeer())
        // Idle connections are still served.
        #expect(try idle[0].result("todo.list", ["limit": 0])["total"] == 8000)
        #expect(try idle[999].result("daemon.status")["open"] == 8000)
    }
}
