import CTodoLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the other end of a Unix socket.
package struct PeerCredentials: Sendable, Equatable {
    package var uid: UInt32
    package var gid: UInt32
    package var pid: Int32
}

/// Unix domain stream sockets: listen, accept, connect, and peer credentials.
package enum UnixSocket {
    /// `sun_path` holds 108 bytes including the terminating NUL.
    package static let maxPathLength = 107

    /// A socket bound to `path` and listening. With `mode`, the socket file is created with that
    /// mode (less the umask): it is set on the socket before `bind` (`fchmod`), never by path
    /// afterwards, where a racer could have put another file.
    package static func listen(path: String, backlog: Int32 = 512, mode: mode_t? = nil) throws(PosixError) -> Int32 {
        let fd = try attachedSocket(SOCK_STREAM, to: path, "bind", Glibc.bind) { fd throws(PosixError) in
            if let mode { try syscall("fchmod") { fchmod(fd, mode) } }
        }
        do {
            try syscall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            Posix.close(fd)
            throw error
        }
        return fd
    }

    /// Accepts one pending connection as a non-blocking descriptor, or nil when none is waiting.
    package static func accept(_ listener: Int32) throws(PosixError) -> Int32? {
        do {
            return try syscall("accept4") { todod_accept_nonblocking(listener) }
        } catch  where error.errno == EAGAIN || error.errno == EWOULDBLOCK || error.errno == ECONNABORTED {
            return nil
        }
    }

    /// A blocking socket connected to `path`.
    package static func connect(path: String) throws(PosixError) -> Int32 {
        try attachedSocket(SOCK_STREAM, to: path, "connect", Glibc.connect)
    }

    /// A blocking socket connected to `path`, giving up with ETIMEDOUT after `seconds` when the
    /// listener's backlog stays full (a stopped daemon). Sends on it wait at most as long
    /// (`setSendTimeout`). nil waits forever.
    package static func connect(path: String, timeout seconds: Double?) throws(PosixError) -> Int32 {
        do {
            return try attachedSocket(SOCK_STREAM, to: path, "connect", Glibc.connect) { fd throws(PosixError) in
                try setSendTimeout(fd, seconds)
            }
        } catch  where error.errno == EAGAIN { // the send timeout ran out while connecting
            throw PosixError("connect", errno: ETIMEDOUT)
        }
    }

    /// Makes a blocking send on `fd` fail with EAGAIN after `seconds` without progress (nil: never).
    package static func setSendTimeout(_ fd: Int32, _ seconds: Double?) throws(PosixError) {
        var limit = timeval()
        if let seconds, seconds > 0 {
            let micro = Int((seconds * 1_000_000).rounded(.up))
            limit.tv_sec = micro / 1_000_000
            limit.tv_usec = micro % 1_000_000
        }
        try syscall("setsockopt(SO_SNDTIMEO)") {
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// The peer's uid, gid and pid (SO_PEERCRED), as the kernel recorded them at connect time.
    package static func peerCredentials(_ fd: Int32) throws(PosixError) -> PeerCredentials {
        var credentials = PeerCredentials(uid: 0, gid: 0, pid: 0)
        try syscall("getsockopt(SO_PEERCRED)") {
            todod_peer_credentials(fd, &credentials.uid, &credentials.gid, &credentials.pid)
        }
        return credentials
    }

    /// Whether the descriptor is a listening stream socket (for descriptors passed by systemd).
    package static func isListeningStream(_ fd: Int32) -> Bool {
        var type: Int32 = 0
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 else { return false }
        return type == Int32(SOCK_STREAM.rawValue) && accepting == 1
    }

    /// The file-system path a Unix socket is bound to (nil for unnamed or abstract sockets).
    package static func localPath(_ fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }
}

/// Unix datagram sockets: what a test uses to stand in for systemd's NOTIFY_SOCKET.
package enum UnixDatagram {
    /// A datagram socket bound to `path`.
    package static func bind(path: String) throws(PosixError) -> Int32 {
        try attachedSocket(SOCK_DGRAM, to: path, "bind", Glibc.bind)
    }

    /// Whether something receives datagrams at `path`: false when nothing is there, or when the
    /// socket file is stale (its owner died and left it behind, as on a /run that outlives boots).
    package static func hasReceiver(path: String) -> Bool {
        guard let fd = try? attachedSocket(SOCK_DGRAM, to: path, "connect", Glibc.connect) else { return false }
        Posix.close(fd)
        return true
    }

    /// Sends one-byte datagrams to `path` until its receiver's queue is full (a journald that
    /// stopped reading, for tests). Returns how many were queued.
    package static func fill(path: String) throws(PosixError) -> Int {
        let fd = try attachedSocket(SOCK_DGRAM, to: path, "connect", Glibc.connect)
        defer { Posix.close(fd) }
        var byte: UInt8 = 0x2E
        var sent = 0
        while true {
            let n = Glibc.send(fd, &byte, 1, Int32(MSG_DONTWAIT))
            if n == 1 {
                sent += 1
                continue
            }
            if errno == EINTR { continue }
            if errno == EAGAIN { return sent }
            throw PosixError("send", errno: errno)
        }
    }

    /// The next datagram, or nil when none arrives within `timeoutMilliseconds`.
    package static func receive(_ fd: Int32, timeoutMilliseconds: Int32) -> [UInt8]? {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        let deadline = timeoutMilliseconds < 0 ? nil : MonotonicClock.seconds() + Double(timeoutMilliseconds) / 1000
        guard (try? EventWait.wait(&fds, until: deadline)) ?? 0 > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n >= 0 ? Array(buffer[0..<n]) : nil
    }
}

/// A new close-on-exec socket of `type`, bound or connected (`attach`, named `name` in errors) to `path`.
private func attachedSocket(
    _ type: __socket_type, to path: String, _ name: String,
    _ attach: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32,
    prepare: (Int32) throws(PosixError) -> Void = { _ in }
) throws(PosixError) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count <= UnixSocket.maxPathLength else {
        throw PosixError("socket path", errno: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let fd = try syscall("socket") { socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
    do {
        try prepare(fd)
        try withUnsafePointer(to: &address) { (pointer) throws(PosixError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(PosixError) in
                _ = try syscall(name) { attach(fd, sa, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
    } catch {
        Posix.close(fd)
        throw error
    }
    return fd
}
