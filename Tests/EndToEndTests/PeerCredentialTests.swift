import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Only the daemon's own uid and root may talk to it, even when the socket's mode lets anyone
/// connect: the SO_PEERCRED check is what refuses. Needs root, to run a client as `nobody`.
@Suite struct PeerCredentialTests {
    @Test(.enabled(if: getuid() == 0, "switching to the nobody user needs root"))
    func anotherUserIsRefusedEvenWithAnOpenSocket() throws {
        let dir = TemporaryDirectory("peer")
        try Files.chmod(dir.path, 0o755)
        let daemon = try DaemonProcess(directory: dir)
        try Files.chmod(daemon.socket, 0o666)
        let script = """
            import socket
            s = socket.socket(socket.AF_UNIX)
            s.connect("\(daemon.socket)")
            try:
                s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"todo.add","params":{"title":"intruder"}}\\n')
            except BrokenPipeError:
                pass  # the daemon may already have answered and hung up
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            print(data.decode().strip())
            """
        let result = try ChildProcess.run(
            "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try JSON.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(answer["error"]?["code"] == -32003)
        #expect(answer["id"] == .null)
        #expect(try daemon.client().result("todo.list")["total"] == 0)
    }
}
