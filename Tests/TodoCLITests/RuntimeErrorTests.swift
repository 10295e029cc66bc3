import Foundation
import Testing
import TodoProtocol
import TodoRPC

@testable import TodoCLI

/// Runtime errors: one `todoctl:` line on stderr, exit 1 or 69.
@Suite struct RuntimeErrorTests {
    @Test func unreachableUserSocket() {
        let result = Fixtures.run(
            ["list"],
            connectError: .unreachable(socket: "/run/user/1000/todod/todod.sock", reason: "No such file or directory"))
        #expect(result.status == 69)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "todoctl: cannot reach todod at /run/user/1000/todod/todod.sock (No such file or directory); "
                + "start it with 'systemctl --user start todod.socket' or run 'todod'\n")
    }

    @Test func unreachableSystemSocket() {
        let result = Fixtures.run(
            ["--system", "status"],
            connectError: .unreachable(socket: "/run/todod/todod.sock", reason: "Connection refused"))
        #expect(result.status == 69)
        #expect(result.stderr.contains("/run/todod/todod.sock"))
        #expect(result.stderr.contains("'systemctl start todod.socket'"))
        #expect(result.stderrLines == [result.stderrLines[0], ""])
    }

    @Test func unreachableDuringCall() {
        let transport = FakeTransport { (_, _) throws(ClientError) in
            throw .unreachable(socket: "/x.sock", reason: "Broken pipe")
        }
        let result = Fixtures.run(["--socket", "/x.sock", "list"], transport: transport)
        #expect(result.status == 69)
        #expect(
            result.stderr.hasPrefix(
                "todoctl: cannot reach todod at /x.sock (Broken pipe); start it with 'todod --socket /x.sock'"))
    }

    @Test func badAnswerAndUntrusted() {
        let bad = FakeTransport { (_, _) throws(ClientError) in ["not": "a todo"] }
        let r1 = Fixtures.run(["show", "3"], transport: bad)
        #expect(r1.status == 69)
        #expect(r1.stderr.hasPrefix("todoctl: unexpected answer from todod"))
        let r2 = Fixtures.run(["status"], connectError: .untrustedDaemon(socket: "/s", uid: 4))
        #expect(r2.status == 69)
        #expect(r2.stderr.contains("uid 4"))
    }

    @Test func refusedShowsTheDaemonsMessage() {
        let transport = FakeTransport { (_, _) throws(ClientError) in
            throw .refused(RPCError(code: RPCError.notFoundCode, message: "no todo with id 99"))
        }
        let result = Fixtures.run(["done", "99"], transport: transport)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "todoctl: no todo with id 99\n")
    }

    @Test func refusedMessageStaysOnOneLine() {
        let transport = FakeTransport { (_, _) throws(ClientError) in
            throw .refused(RPCError(code: -32602, message: "bad\nthing"))
        }
        #expect(Fixtures.run(["show", "1"], transport: transport).stderr == "todoctl: bad thing\n")
    }

    @Test func importFileProblems() throws {
        let missing = Fixtures.run(["import", "/nonexistent/backup.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "todoctl: cannot read /nonexistent/backup.json: No such file or directory\n")
        #expect(missing.connectedTo.isEmpty)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todoctl-\(UUID().uuidString).json")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{\"format\": ".utf8).write(to: URL(fileURLWithPath: path))
        let invalid = Fixtures.run(["import", path])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.hasPrefix("todoctl: \(path) is not valid JSON: "))
        #expect(invalid.connectedTo.isEmpty)

        try Data(Fixtures.export.serialized().utf8).write(to: URL(fileURLWithPath: path))
        let transport = FakeTransport()
        let ok = Fixtures.run(["import", path], transport: transport)
        #expect(ok.status == 0)
        #expect(ok.stdout == "Imported 2 todos and 1 category.\n")
        #expect(transport.calls.first?.params == Fixtures.export.objectValue)

        let array = Fixtures.run(["import", "-"], stdin: Array("[]".utf8))
        #expect(array.status == 1)
        #expect(array.stderr.contains("standard input"))
    }
}
