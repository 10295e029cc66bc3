import TodoProtocol

/// What `todod` was asked to do by its command line.
package enum DaemonCommand: Equatable, Sendable {
    case run(DaemonOptions)
    case help
    case version
}

/// Where the daemon keeps its database and listens.
package struct DaemonOptions: Equatable, Sendable {
    package var socket: String
    package var database: String

    package init(socket: String, database: String) {
        self.socket = socket
        self.database = database
    }

    package static let usage = """
        Usage: todod [--socket PATH | --system] [--db PATH]

        The todod daemon: owns the todo store, fires reminders into the journal, and serves
        todoctl over a Unix socket. It runs in the foreground; stop it with Ctrl-C or SIGTERM.

        Options:
          --socket PATH   listen on PATH (default: $TODOD_SOCKET, else $XDG_RUNTIME_DIR/todod/todod.sock,
                          else /run/todod/todod.sock for root)
          --system        listen on the system socket /run/todod/todod.sock
          --db PATH       use the database at PATH (default: $TODOD_DB, else $STATE_DIRECTORY/todos.db,
                          else /var/lib/todod/todos.db for root, else ~/.local/state/todod/todos.db)
          --version       print the version and exit
          --help          print this help and exit

        Under systemd, sockets passed by socket activation are used instead of --socket.
        """

    /// Parses `arguments` (without the program name). Throws a one-line message for a usage error.
    package static func parse(_ arguments: [String], environment: [String: String], uid: UInt32, home: String) throws(DaemonUsageError) -> DaemonCommand {
        var socket: String?
        var database: String?
        var system = false
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            func value() throws(DaemonUsageError) -> String {
                if let inline { return inline }
                i += 1
                guard i < arguments.count else { throw DaemonUsageError("option '\(name)' needs a value") }
                return arguments[i]
            }
            switch name {
            case "--help", "-h": return .help
            case "--version": return .version
            case "--socket": socket = try value()
            case "--db": database = try value()
            case "--system":
                guard inline == nil else { throw DaemonUsageError("option '--system' takes no value") }
                system = true
            default:
                throw DaemonUsageError(argument.hasPrefix("-") ? "unknown option '\(argument)'" : "unexpected argument '\(argument)'")
            }
            i += 1
        }
        if system && socket != nil { throw DaemonUsageError("--system and --socket cannot be used together") }
        return .run(DaemonOptions(
            socket: SocketPaths.socket(flag: socket, system: system, environment: environment, uid: uid),
            database: SocketPaths.database(flag: database, environment: environment, uid: uid, home: home)))
    }
}

/// A command-line mistake, described in one line.
package struct DaemonUsageError: Error, Equatable, Sendable {
    package let message: String
    package init(_ message: String) { self.message = message }
}
