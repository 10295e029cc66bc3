import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A long `todo.list` is streamed: its line arrives whole and in order, and a reader that hangs
/// up halfway leaves the daemon serving.
@Suite struct StreamedListingTests {
    @Test func aLongListingIsOneWholeLineAndAHangUpMidwayHurtsNothing() throws {
        let daemon = try DaemonProcess()
        let c = try daemon.client()
        let todos: [JSON] = (1...3_000).map { ["title": .string("長い一覧 \($0)"), "created": "2026-11-01T00:00:00Z"] }
        _ = try c.result(
            "store.import", ["format": "todod-export", "version": 1, "categories": [], "todos": .array(todos)])
        for _ in 0..<3 { // hang up after the first bytes, several times
            let quitter = try UnixSocket.connect(path: daemon.socket)
            try Posix.sendAll(
                quitter,
                Array(#"{"jsonrpc":"2.0","id":1,"method":"todo.list","params":{"status":"all"}}"#.utf8) + [0x0A])
            var some = [UInt8](repeating: 0, count: 100)
            _ = try Posix.read(quitter, into: &some)
            Posix.close(quitter)
        }
        let answer = try c.call("todo.list", ["status": "all"])
        #expect(answer["result"]?["total"] == 3000)
        #expect(
            answer["result"]?["todos"]?.arrayValue?.compactMap { $0["position"]?.intValue }
                == (1...3000).map(Int64.init))
        #expect(try c.result("daemon.status")["open"] == 3000)
    }
}
