/// One command-line argument after tokenizing: an option (with a value written inline as
/// `--name=value`) or a positional argument.
package struct Token: Equatable, Sendable {
    /// What the argument is.
    package enum Kind: Equatable, Sendable {
        /// `--name` or `--name=value`; `name` keeps its dashes (`--due`). `-h` becomes `--help`;
        /// any other single-dash option keeps its spelling (`-x`) and is always unknown.
        case option(name: String, value: String?)
        /// A positional argument (anything after `--`, `-` on its own, or text without a leading dash).
        case positional(String)
    }

    /// What the argument is.
    package var kind: Kind
    /// The argument exactly as given, for options that take the next argument as their value.
    package var raw: String
    /// True for arguments after `--`, which are always positional and never an option's value.
    package var afterTerminator: Bool

    /// A token of `kind` read from `raw`.
    package init(_ kind: Kind, raw: String, afterTerminator: Bool = false) {
        self.kind = kind
        self.raw = raw
        self.afterTerminator = afterTerminator
    }
}

/// Stage 1 of todoctl: splits argv into tokens without knowing which options take values;
/// the parser decides that and takes the next token's `raw` text as the value.
package enum Tokenizer {
    /// Tokenizes `arguments` (without the program name). `--` itself produces no token.
    package static func tokenize(_ arguments: [String]) -> [Token] {
        var tokens: [Token] = []
        var terminated = false
        for argument in arguments {
            if terminated {
                tokens.append(Token(.positional(argument), raw: argument, afterTerminator: true))
            } else if argument == "--" {
                terminated = true
            } else if argument.hasPrefix("--") {
                if let equals = argument.firstIndex(of: "=") {
                    let name = String(argument[..<equals])
                    let value = String(argument[argument.index(after: equals)...])
                    tokens.append(Token(.option(name: name, value: value), raw: argument))
                } else {
                    tokens.append(Token(.option(name: argument, value: nil), raw: argument))
                }
            } else if argument == "-h" {
                tokens.append(Token(.option(name: "--help", value: nil), raw: argument))
            } else if argument.hasPrefix("-") && argument.count > 1 {
                tokens.append(Token(.option(name: argument, value: nil), raw: argument))
            } else {
                tokens.append(Token(.positional(argument), raw: argument))
            }
        }
        return tokens
    }
}
