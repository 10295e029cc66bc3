import TodoCore
import TodoPosix
import TodoProtocol
import TodoTerminal
import TodoTime
import TodoUserFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The `todoctl-ui` program (`todoctl ui` runs it): reads its few options, takes over the
/// terminal, runs the list, and gives the terminal back on every way out.
package enum UIMain {
    package static let usage = """
        Usage: todoctl ui [--socket PATH | --system]

        The todo list in the terminal, live: move with j/k or the arrows, act on the selected todo
        with one key (space done, d delete, a add, e edit, J/K move, u undo), / filters, : runs
        any todoctl command, ? lists every key, q quits. Changes from any client show at once.
        Keys can be changed in the config file: ui.key.ACTION = KEY (docs/UI.md).
        """

    /// Returns the exit status: 0 after `q`, 2 for a usage error, 1 when there is no terminal.
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        var socketFlag: String?
        var system = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                try? Posix.writeAll(1, Array((usage + "\n").utf8))
                return 0
            case "--system": system = true
            case "--socket":
                guard let value = rest.popFirst(), !value.isEmpty else { return usageError("--socket needs a PATH") }
                socketFlag = value
            default:
                if argument.hasPrefix("--socket=") {
                    socketFlag = String(argument.dropFirst("--socket=".count))
                } else {
                    return usageError("unknown option '\(argument)'")
                }
            }
        }
        let socket = SocketPaths.socket(flag: socketFlag, system: system, environment: environment, uid: getuid())
        let config = Config.load(environment: environment, commands: nil)
        var problems = config.problems.map(\.message)
        let keys = KeyBindings(config: config.uiKeys, problems: &problems)
        let noColour = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let terminal: Terminal
        do {
            terminal = try Terminal.start(colour: !noColour, mouse: config.uiMouse)
        } catch {
            try? Posix.writeAll(2, Array("todoctl ui: \(error)\n".utf8))
            return 1
        }
        let app = ListApp(
            environment: ListApp.Environment(
                socket: socket, variables: environment,
                timeZone: ZoneInfo.named(byTZ: environment["TZ"], tzdir: environment["TZDIR"]),
                zoneName: ZoneInfo.identifier(byTZ: environment["TZ"], tzdir: environment["TZDIR"])),
            config: config, terminal: terminal, keys: keys, problems: problems)
        let status = app.run()
        terminal.stop()
        return status
    }

    private static func usageError(_ message: String) -> Int32 {
        try? Posix.writeAll(2, Array("todoctl ui: \(message); see 'todoctl ui --help'\n".utf8))
        return 2
    }
}
