import Testing
import TodoDaemon

@Suite struct DaemonOptionsTests {
    private func parse(_ arguments: [String], _ environment: [String: String] = [:], uid: UInt32 = 1000)
        throws(DaemonUsageError) -> DaemonCommand
    {
        try DaemonOptions.parse(arguments, environment: environment, uid: uid, home: "/home/u")
    }

    @Test func defaultsFollowTheSpec() throws {
        #expect(
            try parse([], ["XDG_RUNTIME_DIR": "/run/user/1000"])
                == .run(
                    DaemonOptions(
                        socket: "/run/user/1000/todod/todod.sock", database: "/home/u/.local/state/todod/todos.db")))
        #expect(
            try parse([], uid: 0)
                == .run(DaemonOptions(socket: "/run/todod/todod.sock", database: "/var/lib/todod/todos.db")))
        #expect(try parse(["--socket=/s", "--db", "/d"]) == .run(DaemonOptions(socket: "/s", database: "/d")))
        #expect(
            try parse(["--system"], ["XDG_RUNTIME_DIR": "/r"])
                == .run(DaemonOptions(socket: "/run/todod/todod.sock", database: "/home/u/.local/state/todod/todos.db"))
        )
        #expect(try parse(["--help"]) == .help)
        #expect(try parse(["--version"]) == .version)
    }

    @Test(arguments: [
        (["--db"], "option '--db' needs a value"),
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["extra"], "unexpected argument 'extra'"),
        (["--system", "--socket", "/s"], "--system and --socket cannot be used together"),
        (["--system=yes"], "option '--system' takes no value")
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: DaemonUsageError(message)) { try parse(arguments) }
    }
}
