import TodoPosix

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
        [notify ? "desktop" : nil, print ? "print" : nil, exec != nil ? "exec" : nil].compactMap { $0 }.joined(
            separator: "+")
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
        var reader = ArgumentReader(arguments)
        do throws(ArgumentError) {
            while let argument = try reader.next() {
                switch argument {
                case .option("--socket"):
                    let path = try reader.value()
                    guard !path.isEmpty else { throw ArgumentError.needsValue("--socket") }
                    options.socket = path
                case .option("--system"):
                    try reader.noValue()
                    options.system = true
                case .option("--name"):
                    let name = try reader.value()
                    guard Self.isName(name) else {
                        throw ArgumentError.invalid(
                            "--name: not a name (1 to 64 bytes of letters, digits, '-', '_' or '.', not starting with '.'): \(name)"
                        )
                    }
                    options.name = name
                case .option("--notify"):
                    try reader.noValue()
                    options.notify = true
                case .option("--print"):
                    try reader.noValue()
                    options.print = true
                case .option("--exec-timeout"):
                    let text = try reader.value()
                    guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                        throw ArgumentError.invalid(
                            "--exec-timeout: not a number of seconds between 0 and 86400: \(text)")
                    }
                    options.execTimeout = seconds
                case .option("--exec"):
                    // Everything after the program belongs to it.
                    let program = try reader.value()
                    guard !program.isEmpty else { throw ArgumentError.needsValue("--exec") }
                    options.exec = [program] + reader.rest()
                case .option("--help"): options.help = true
                case .option("--version"): options.version = true
                case .option(let name): throw ArgumentError.unknownOption(name)
                case .operand(let word): throw ArgumentError.unexpected(word)
                }
            }
        } catch {
            throw UsageError(description: error.message)
        }
        if options.socket != nil && options.system {
            throw UsageError(description: "--socket and --system exclude each other")
        }
        if !options.print && options.exec == nil { options.notify = true }
        return options
    }

    /// A `--name`: letters (any script), digits, `-`, `_` and `.`, at most 64 bytes, not starting
    /// with `.` — it becomes part of a file name.
    static func isName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0)
        }
    }
}
