import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct DescriptorExhaustionTests {
    /// Under `prlimit --nofile=64`, 80 connections run the daemon out of descriptors (accept fails
    /// with EMFILE). Once they are closed, new clients are served at once: the daemon sheds the
    /// connections it cannot hold through a reserve descriptor and never stops accepting. It used
    /// to take the listener out of its poll set and never put it back.
    @Test func newClientsAreServedAsSoonAsDescriptorsAreFreeAgain() throws {
        let dir = TemporaryDirectory("emfile")
        let stderr = Pipe()
        let process = try startTodod(
            dir, launcher: ["/usr/bin/prlimit", "--nofile=64:64"], stderr: stderr.fileHandleForWriting)
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
        }
        let idle = try RawClient(path: dir.file("todod.sock"), timeoutSeconds: 5)
        _ = try idle.result("daemon.status")
        let baseline = openDescriptors(process.processIdentifier)
        var crowd = try (0..<80).map { _ in try RawClient(path: dir.file("todod.sock"), timeoutSeconds: 5) }
        // The last of them was shed or is waiting: either way the daemon is at its limit now.
        for client in crowd { try? client.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"daemon.status\"}\n") }
        #expect(try crowd[0].receive()["result"] != nil)
        let atLimit = openDescriptors(process.processIdentifier)
        crowd = []
        let started = now()
        // The daemon frees its descriptors as it reads the crowd's end of input (the wait is
        // bounded; the clients below prove it serves again, each within its 5 s receive timeout).
        #expect(
            eventually(timeout: 10, every: 0.001) { openDescriptors(process.processIdentifier) <= baseline },
            "the crowd's descriptors are all freed")
        for i in 0..<3 {
            let client = try RawClient(path: dir.file("todod.sock"), timeoutSeconds: 5)
            #expect(try client.result("daemon.status")["pid"] == .int(Int64(process.processIdentifier)), "client \(i)")
        }
        let elapsed = now() - started
        print(
            "3 new clients served \(String(format: "%.1f", elapsed * 1000)) ms after the EMFILE crowd left (\(baseline) descriptors idle, \(atLimit) at the limit)"
        )
    }
}
