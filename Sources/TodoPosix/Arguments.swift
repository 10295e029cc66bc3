/// Reads a command line of long options, the way todod, todod-sync and todod-notify take theirs:
/// `--name VALUE` and `--name=VALUE` alike, `-h` for `--help`, and one-line errors naming the
/// option. (todoctl's tokenizer, with its commands and short options, is its own.)
///
///     var reader = ArgumentReader(arguments)
///     while let argument = try reader.next() {
///         switch argument {
///         case .option("--socket"): socket = try reader.value()
///         case .option("--verbose"): try reader.noValue(); verbose = true
///         case .option(let name): throw ArgumentError.unknownOption(name)
///         case .operand(let word): throw ArgumentError.unexpected(word)
///         }
///     }
package struct ArgumentReader {
    /// One word of the command line.
    package enum Argument: Equatable, Sendable {
        /// `--name` (of `--name` or `--name=VALUE`); `-h` is read as `--help`.
        case option(String)
        /// A word that is no option.
        case operand(String)
    }

    private let arguments: [String]
    private var index = 0
    /// The option `next` returned last and its `=VALUE`, if it had one.
    private var current: (name: String, inline: String?)?

    package init(_ arguments: [String]) { self.arguments = arguments }

    /// The next word, or nil at the end. Throws when the last option's `=VALUE` was not taken.
    package mutating func next() throws(ArgumentError) -> Argument? {
        if let current, current.inline != nil { throw .takesNoValue(current.name) }
        current = nil
        guard index < arguments.count else { return nil }
        let word = arguments[index]
        index += 1
        if word == "-h" {
            current = ("--help", nil)
            return .option("--help")
        }
        guard word.hasPrefix("--"), word.count > 2 else { return .operand(word) }
        if let eq = word.firstIndex(of: "=") {
            let name = String(word[..<eq])
            current = (name, String(word[word.index(after: eq)...]))
            return .option(name)
        }
        current = (word, nil)
        return .option(word)
    }

    /// The value of the option `next` returned: its `=VALUE`, else the next word.
    package mutating func value() throws(ArgumentError) -> String {
        guard let option = current else { preconditionFailure("value() before an option") }
        if let inline = option.inline {
            current = (option.name, nil)
            return inline
        }
        guard index < arguments.count else { throw .needsValue(option.name) }
        index += 1
        return arguments[index - 1]
    }

    /// Says that the option `next` returned takes no value: an `=VALUE` is refused (also done by
    /// the next `next`).
    package func noValue() throws(ArgumentError) {
        if let current, current.inline != nil { throw .takesNoValue(current.name) }
    }

    /// Every word after the current one, taken: what belongs to a program the command runs.
    package mutating func rest() -> [String] {
        defer { index = arguments.count }
        return Array(arguments[index...])
    }
}

/// A command-line mistake, in one line (`message`).
package enum ArgumentError: Error, Equatable, Sendable {
    case needsValue(String)
    case takesNoValue(String)
    case unknownOption(String)
    case unexpected(String)
    /// Any other mistake (a value out of range, options that exclude each other), said in full.
    case invalid(String)

    package var message: String {
        switch self {
        case .needsValue(let name): "option '\(name)' needs a value"
        case .takesNoValue(let name): "option '\(name)' takes no value"
        case .unknownOption(let name): "unknown option '\(name)'"
        case .unexpected(let word): "unexpected argument '\(word)'"
        case .invalid(let message): message
        }
    }
}
