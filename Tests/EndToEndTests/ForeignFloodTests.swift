import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Needs root, to run the flood as `nobody`.
@Suite struct ForeignFloodTests {
    /// 10,000 connections from another uid, kept open, while the owner works: the daemon holds
    /// few descriptors for them (at most 64 refused peers linger), logs a handful of lines, not
    /// one per connection, and the owner is served throughout.
    @Test(.enabled(if: getuid() == 0, "switching to the nobody user needs root"))
    func aFloodFromAnotherUserIsRefusedCheaply() throws {
        let dir = TemporaryDirectory("flood")
        try Files.chmod(dir.path, 0o755)
        let logPath = dir.file("todod.log") // a file: read whole after the daemon exits
        #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
        let daemon = try startTodod(dir, stderr: try #require(FileHandle(forWritingAtPath: logPath)))
        var exited = false
        defer {
            if !exited {
                kill(daemon.processIdentifier, SIGKILL)
                daemon.waitForExit()
            }
        }
        let socket = dir.file("todod.sock")
        try Files.chmod(socket, 0o666)
        let script = """
            import resource, socket
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 12000), hard))
            kept = []
            for i in range(10000):
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect("\(socket)")
                except OSError:
                    s.close()
                    continue
                kept.append(s)
            print(len(kept))
            """
        let flood = Process()
        flood.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        flood.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script]
        let floodOutput = Pipe()
        flood.standardOutput = floodOutput
        try flood.run()
        let owner = try RawClient(path: socket)
        var worst = 0.0
        var mostDescriptors = 0
        var requests = 0
        while flood.isRunning || requests < 20 {
            let t = now()
            #expect(try owner.result("todo.add", ["title": .string("owner \(requests)")])["id"] != nil)
            worst = max(worst, now() - t)
            mostDescriptors = max(mostDescriptors, openDescriptors(daemon.processIdentifier))
            requests += 1
        }
        #expect(flood.waitForExit() == 0)
        let connected =
            Int(
                String(decoding: floodOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(try owner.result("todo.list", ["limit": 0])["total"] == .int(Int64(requests)))
        kill(daemon.processIdentifier, SIGTERM)
        #expect(daemon.waitForExit() == 0)
        exited = true
        let refusals = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").filter {
            $0.contains("refused a connection")
        }
        print(
            "flood of \(connected) connections: owner's worst latency \(String(format: "%.1f", worst * 1000)) ms over \(requests) adds, "
                + "at most \(mostDescriptors) descriptors, \(refusals.count) log lines")
        #expect(mostDescriptors < 300, "the daemon held \(mostDescriptors) descriptors")
        #expect(connected > 9000)
        #expect((1...5).contains(refusals.count), "\(refusals.count) log lines for the refusals")
    }
}
