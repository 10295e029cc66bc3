import TodoPosix
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
    package static func parse(_ arguments: [String], environment: [String: String], uid: UInt32, home: String)
        throws(DaemonUsageError) -> DaemonCommand
    {
        var socket: String?
        var database: String?
        var system = false
        var reader = ArgumentReader(arguments)
        do throws(ArgumentError) {
            while let argument = try reader.next() {
                switch argument {
                case .option("--help"): return .help
                case .option("--version"): return .version
                case .option("--socket"): socket = try reader.value()
                case .option("--db"): database = try reader.value()
                case .option("--system"):
                    try reader.noValue()
                    system = true
                case .option(let name): throw ArgumentError.unknownOption(name)
                case .operand(let word): throw ArgumentError.unexpected(word)
                }
            }
        } catch {
            throw DaemonUsageError(error.message)
        }
        if system && socket != nil { throw DaemonUsageError("--system and --socket cannot be used together") }
        return .run(
            DaemonOptions(
                socket: SocketPaths.socket(flag: socket, system: system, environment: environment, uid: uid),
                database: SocketPaths.database(flag: database, environment: environment, uid: uid, home: home)))
    }
}

/// A command-line mistake, described in one line.
package struct DaemonUsageError: Error, Equatable, Sendable {
    package let message: String
    package init(_ message: String) { self.message = message }
}
