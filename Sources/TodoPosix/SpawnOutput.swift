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
    package static func run(_ program: String, _ arguments: [String], environment: [String: String], timeout: Double?,
                            onOutput: (Int32, [UInt8]) -> Void) throws(PosixError) -> Finished {
        // Close-on-exec, so only the child's standard output and error hold the write ends.
        func pipePair() throws(PosixError) -> [Int32] {
            var fds: [Int32] = [-1, -1]
            try syscall("pipe") { pipe(&fds) }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return fds
        }
        let out = try pipePair()
        let err: [Int32]
        do { err = try pipePair() } catch {
            out.forEach(Posix.close)
            throw error
        }
        let pid: pid_t
        do { pid = try start(program, arguments, environment: environment, output: (out[1], err[1])) } catch {
            [out[0], out[1], err[0], err[1]].forEach(Posix.close)
            throw error
        }
        Posix.close(out[1])
        Posix.close(err[1])
        var open: [(fd: Int32, stream: Int32)] = [(out[0], 1), (err[0], 2)]
        let deadline = timeout.map { Posix.monotonicSeconds() + $0 }
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            var wait: Int32 = -1
            if let deadline {
                let left = deadline - Posix.monotonicSeconds()
                if left <= 0 { timedOut = true; break }
                wait = Int32(min((left * 1000).rounded(.up), Double(Int32.max)))
            }
            let n = poll(&fds, nfds_t(fds.count), wait)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { continue }
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
