import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct LoggingFailureTests {
    /// Standard error on a full disk (/dev/full: ENOSPC) or a pipe nobody reads any more (EPIPE):
    /// the daemon logs its start, serves, logs its stop and exits 0, where a trap in Foundation's
    /// `FileHandle.write` used to end it with status 132 at the first line.
    @Test func aFullOrClosedStandardErrorNeitherKillsNorStopsTheDaemon() throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let closedPipe = Pipe()
        try closedPipe.fileHandleForReading.close()
        for (name, stderr) in [("/dev/full", full), ("a closed pipe", closedPipe.fileHandleForWriting)] {
            let dir = TemporaryDirectory("log")
            let process = try startTodod(dir, stderr: stderr)
            let client = try RawClient(path: dir.file("todod.sock"))
            #expect(try client.result("todo.add", ["title": "書く"])["id"] == 1, "\(name)")
            kill(process.processIdentifier, SIGTERM)
            #expect(process.waitForExit() == 0, "stderr on \(name)")
        }
    }
}
