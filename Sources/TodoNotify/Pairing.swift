import TodoCore
import TodoPosix
import TodoProtocol
import TodoRPC

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon the notifier follows: what its reminder entries carry and what journald records
/// about their sender. Entries are matched on all of it, so neither another daemon's store nor an
/// entry another program forged with the same MESSAGE_ID (`systemd-cat`, `logger`) becomes a
/// notification: `_UID` and `_COMM` are written by journald itself, not by the sender.
struct Pairing: Equatable {
    /// `daemon.status` `storeId`: the entries' TODO_STORE.
    var storeID: String
    /// The uid the daemon runs as (SO_PEERCRED of its socket): the entries' `_UID`.
    var uid: UInt32
    /// The daemon's command name (`/proc/PID/comm` of the peer): the entries' `_COMM`.
    var command: String?

    /// The MESSAGE_ID of every reminder entry (SPEC §6, systemd/todod.catalog).
    static let messageID = "160974618077448c97edd5576474d5b8"

    var matches: [(String, String)] {
        var m = [
            ("MESSAGE_ID", Self.messageID), ("SYSLOG_IDENTIFIER", "todod"), ("TODO_STORE", storeID),
            ("_UID", String(uid))
        ]
        if let command { m.append(("_COMM", command)) }
        return m
    }

    static func == (a: Pairing, b: Pairing) -> Bool {
        a.storeID == b.storeID && a.uid == b.uid && a.command == b.command
    }

    /// Asks the daemon at `socket` for its store id and pid, then reads who that process is from
    /// /proc (the socket's own credentials name systemd when the socket was passed by it). Where
    /// /proc does not show the process, the socket's peer uid is used and `_COMM` is not matched.
    static func ask(socket: String) throws(ClientError) -> Pairing {
        let peer: PeerCredentials
        do {
            let fd = try UnixSocket.connect(path: socket, timeout: UnixSocketTransport.defaultTimeout)
            defer { Posix.close(fd) }
            peer = try UnixSocket.peerCredentials(fd)
        } catch {
            throw ClientError.unreachable(socket: socket, reason: error.reason)
        }
        let transport = try UnixSocketTransport(path: socket)
        let status = try transport.call(DaemonStatusParams())
        guard let storeID = status.storeID, !storeID.isEmpty else {
            throw ClientError.badAnswer("daemon.status has no storeId (a todod older than contract v2?)")
        }
        if let pid = status.pid, pid > 0, let owner = try? Files.mode("/proc/\(pid)").uid,
            let bytes = try? Files.contents(of: "/proc/\(pid)/comm", maxBytes: 64)
        {
            let comm = Validation.trimmed(String(decoding: bytes, as: UTF8.self))
            return Pairing(storeID: storeID, uid: owner, command: comm.isEmpty ? nil : comm)
        }
        return Pairing(storeID: storeID, uid: peer.uid, command: nil)
    }
}
