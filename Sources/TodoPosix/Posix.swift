import CTodoLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: the function's name and errno.
package struct PosixError: Error, Sendable, Equatable, CustomStringConvertible {
    package let function: String
    package let errno: Int32

    package init(_ function: String, errno: Int32) {
        self.function = function
        self.errno = errno
    }

    /// The C library's text for errno ("No such file or directory").
    package var reason: String { String(cString: strerror(errno)) }
    package var description: String { "\(function): \(reason)" }
}

/// The one wrapper every system call goes through: retries on EINTR and turns -1 into a
/// `PosixError` carrying errno and the function's name.
@discardableResult
package func syscall<T: BinaryInteger>(_ function: String, _ body: () -> T) throws(PosixError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let error = errno
        if error == EINTR { continue }
        throw PosixError(function, errno: error)
    }
}

package enum Posix {
    /// The process environment (`environ`) as a dictionary.
    package static func environment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }

    /// Writes to a closed peer return EPIPE instead of killing the process.
    package static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Serves every allocation of at least `bytes` from its own mapping, given back to the
    /// system when freed (glibc otherwise raises that threshold as the process runs, and large
    /// buffers freed later stay in the heap).
    package static func mapAllocations(from bytes: Int) {
        _ = todod_map_allocations_from(Int32(bytes))
    }

    /// Restricts thread `tid` (0: the calling thread) to the CPUs in `cpus`. For benchmarks that
    /// must not depend on where the scheduler places threads; not for the product
    /// (`@_spi(Benchmark) import TodoPosix`).
    @_spi(Benchmark) public static func setAffinity(thread tid: Int32, cpus: [Int]) throws(PosixError) {
        let mask = cpus.reduce(UInt64(0)) { $0 | (UInt64(1) << UInt64($1)) }
        try syscall("sched_setaffinity") { todod_set_affinity(tid, mask) }
    }

    /// The calling thread's id, for `setAffinity`.
    @_spi(Benchmark) public static var threadID: Int32 { todod_thread_id() }

    /// Closes `fd`. EINTR is not retried: on Linux the descriptor is gone either way.
    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    package static func setNonBlocking(_ fd: Int32) throws(PosixError) {
        let flags = try syscall("fcntl") { fcntl(fd, F_GETFL) }
        try syscall("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Everything `fd` delivers until end of file (blocking reads); EFBIG past `maxBytes`.
    package static func readToEnd(_ fd: Int32, maxBytes: Int = .max) throws(PosixError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while let n = try read(fd, into: &buffer), n > 0 {
            bytes.append(contentsOf: buffer[0..<n])
            if bytes.count > maxBytes { throw PosixError("read", errno: EFBIG) }
        }
        return bytes
    }

    /// Reads into `buffer`; returns the byte count (0 at end of file) or nil when it would block.
    package static func read(_ fd: Int32, into buffer: inout [UInt8]) throws(PosixError) -> Int? {
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { return nil }
            throw PosixError("read", errno: error)
        }
    }

    /// Waits until `fd` can be read (or is at end of file or in error): false when `seconds` pass
    /// first. nil waits forever.
    package static func waitReadable(_ fd: Int32, seconds: Double?) throws(PosixError) -> Bool {
        guard let seconds, seconds > 0 else { return true }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        return try EventWait.wait(&fds, until: monotonicSeconds() + seconds) > 0
    }

    /// Seconds on the monotonic clock (`MonotonicClock.seconds`).
    package static func monotonicSeconds() -> Double { MonotonicClock.seconds() }

    /// Writes `bytes[offset...]`; returns the byte count written or nil when it would block.
    package static func write(_ fd: Int32, _ bytes: [UInt8], from offset: Int) throws(PosixError) -> Int? {
        while true {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if n >= 0 { return n }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { return nil }
            throw PosixError("write", errno: error)
        }
    }

    /// Sends all of `bytes` on a blocking socket. A peer that went away gives EPIPE, never SIGPIPE
    /// (`MSG_NOSIGNAL`), so a client is not killed by a daemon that died.
    package static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(PosixError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw PosixError("send", errno: errno)
            }
            offset += n
        }
    }

    /// Writes all of `bytes` to a blocking descriptor.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(PosixError) {
        var offset = 0
        while offset < bytes.count {
            guard let n = try write(fd, bytes, from: offset) else { throw PosixError("write", errno: EAGAIN) }
            offset += n
        }
    }

    /// Writes as much of `bytes` to `fd` as it takes without blocking and reports whether all of
    /// it went out. Never raises a signal, never waits. A socket is sent to with
    /// `MSG_DONTWAIT | MSG_NOSIGNAL`; a pipe or terminal is written `PIPE_BUF` bytes at a time,
    /// each only when `poll` says it takes them (at least `PIPE_BUF` bytes free). For log lines:
    /// losing one is better than a process stuck on, or killed by, a full or closed log.
    package static func writeWithoutBlocking(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        let socket = st.st_mode & S_IFMT == S_IFSOCK
        var offset = 0
        while offset < bytes.count {
            let n: Int
            if socket {
                n = bytes.withUnsafeBytes {
                    send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
                }
            } else {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard poll(&pfd, 1, 0) == 1, pfd.revents & Int16(POLLOUT) != 0, pfd.revents & Int16(POLLERR) == 0 else {
                    return false
                }
                n = bytes.withUnsafeBytes {
                    Glibc.write(fd, $0.baseAddress! + offset, min($0.count - offset, Int(PIPE_BUF)))
                }
            }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// The terminal width of `fd` in columns, or nil when it is not a terminal.
    package static func terminalColumns(_ fd: Int32) -> Int? {
        let columns = todod_terminal_columns(fd)
        return columns > 0 ? Int(columns) : nil
    }

    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Whether `path` names a file or directory (a symbolic link by what it points to).
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
