#if canImport(Glibc)
    import Glibc
#endif

extension Spawn {
    /// How `run` ended: the child's exit, and whether it was killed for taking too long.
    package struct Finished: Sendable, Equatable {
        package var exit: Exit
        package var timedOut: Bool
    }

    /// Runs `program` (as `start` does) to its end, reading its standard output and error through
    /// pipes and handing each chunk to `onOutput` as it arrives (1: stdout, 2: stderr). After
    /// `timeout` seconds (nil: never) its whole process group is killed.
    package static func run(
        _ program: String, _ arguments: [String], environment: [String: String], timeout: Double?,
        onOutput: (Int32, [UInt8]) -> Void
    ) throws(PosixError) -> Finished {
        let out = try pipe()
        let err: (read: Int32, write: Int32)
        do { err = try pipe() } catch {
            [out.read, out.write].forEach(Posix.close)
            throw error
        }
        let pid: pid_t
        do {
            pid = try start(
                program, arguments, environment: environment,
                streams: StandardStreams(input: nil, output: out.write, error: err.write))
        } catch {
            [out.read, out.write, err.read, err.write].forEach(Posix.close)
            throw error
        }
        Posix.close(out.write)
        Posix.close(err.write)
        var open: [(fd: Int32, stream: Int32)] = [(out.read, 1), (err.read, 2)]
        let deadline = timeout.map { Posix.monotonicSeconds() + $0 }
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            if let deadline, Posix.monotonicSeconds() >= deadline {
                timedOut = true
                break
            }
            guard let n = try? EventWait.wait(&fds, until: deadline), n > 0 else { continue }
            var closed: [Int32] = []
            for (i, p) in fds.enumerated() where p.revents != 0 {
                let count = (try? Posix.read(p.fd, into: &buffer)).flatMap { $0 } ?? 0
                if count > 0 { onOutput(open[i].stream, Array(buffer[0..<count])) } else { closed.append(p.fd) }
            }
            for fd in closed { Posix.close(fd) }
            open.removeAll { closed.contains($0.fd) }
        }
        if timedOut {
            killGroup(pid, SIGKILL)
            open.forEach { Posix.close($0.fd) }
        }
        let exit = reap(pid)
        return Finished(exit: exit, timedOut: timedOut)
    }
}
