/// todod-notify's command line:
/// `todod-notify [--socket PATH | --system] [--name NAME] [--notify] [--print] [--exec-timeout SECONDS] [--exec PROGRAM [ARG...]]`.
/// With no output flag it notifies on the desktop (D-Bus).
package struct NotifyOptions: Equatable, Sendable {
    package var socket: String?
    package var system = false
    /// Desktop notifications over D-Bus.
    package var notify = false
    /// One line per reminder on standard output.
    package var print = false
    /// The program (and its arguments) run per reminder; everything after `--exec` belongs to it.
    package var exec: [String]?
    /// Seconds an `--exec` program may run before it (and its process group) is killed.
    package var execTimeout = 30.0
    /// Tells this notifier's cursor apart from others' with the same outputs (`--name`).
    package var name: String?
    package var help = false
    package var version = false

    /// What the notifier hands reminders to, as its cursor file names it: `desktop`, `print`,
    /// `exec`, or several joined by `+` (`desktop+print`).
    package var mode: String {
        [notify ? "desktop" : nil, print ? "print" : nil, exec != nil ? "exec" : nil].compactMap { $0 }.joined(separator: "+")
    }

    package static let usage = """
        usage: todod-notify [--socket PATH | --system] [--name NAME] [--notify] [--print]
                            [--exec-timeout SECONDS] [--exec PROGRAM [ARG...]]
        Shows todod's reminders as desktop notifications with Done and Snooze (the default),
        prints them (--print) or runs a program per reminder (--exec). See todod-notify(1).
        """

    package struct UsageError: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    package init() {}

    package static func parse(_ arguments: [String]) throws(UsageError) -> NotifyOptions {
        var options = NotifyOptions()
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(description: "\(flag) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            let argument = arguments[i]
            switch argument {
            case "--socket":
                let path = try value(argument)
                guard !path.isEmpty else { throw UsageError(description: "--socket needs a path") }
                options.socket = path
            case "--system": options.system = true
            case "--name":
                let name = try value(argument)
                guard Self.isName(name) else {
                    throw UsageError(description: "--name: not a name (1 to 64 bytes of letters, digits, '-', '_' or '.', not starting with '.'): \(name)")
                }
                options.name = name
            case "--notify": options.notify = true
            case "--print": options.print = true
            case "--exec-timeout":
                let text = try value(argument)
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                    throw UsageError(description: "--exec-timeout: not a number of seconds between 0 and 86400: \(text)")
                }
                options.execTimeout = seconds
            case "--exec":
                let rest = Array(arguments[(i + 1)...])
                guard let program = rest.first, !program.isEmpty else { throw UsageError(description: "--exec needs a program") }
                options.exec = rest
                i = arguments.count
                continue
            case "-h", "--help": options.help = true
            case "--version": options.version = true
            default:
                if argument.hasPrefix("--socket=") {
                    let path = String(argument.dropFirst("--socket=".count))
                    guard !path.isEmpty else { throw UsageError(description: "--socket needs a path") }
                    options.socket = path
                } else {
                    throw UsageError(description: "unknown argument: \(argument)")
                }
            }
            i += 1
        }
        if options.socket != nil && options.system { throw UsageError(description: "--socket and --system exclude each other") }
        if !options.print && options.exec == nil { options.notify = true }
        return options
    }

    /// A `--name`: letters (any script), digits, `-`, `_` and `.`, at most 64 bytes, not starting
    /// with `.` — it becomes part of a file name.
    static func isName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0) }
    }
}
