import TodoCore
import TodoPosix
import TodoWhen

#if canImport(Glibc)
    import Glibc
#endif

/// todoctl's configuration file, `${XDG_CONFIG_HOME:-~/.config}/todod/config`: `key = value`
/// lines, `#` comment lines and blank lines. The file is optional; every key has a default.
///
/// Keys: `remind-time` (HH:MM, the reminder time of all-day todos), `remind-default` (`due` or
/// `none`: whether todos from elsewhere without an alarm are reminded at their due), `sort` (the default order of
/// `list` and bare `todoctl`, as `--sort`), `snooze` (the DURATION of `snooze ID` without one),
/// `alias.NAME` (a command line that `todoctl NAME ...` stands for), `quiet-hours` (HH:MM-HH:MM:
/// when todod-notify holds desktop reminders, docs/NOTIFY.md).
package struct Config: Equatable, Sendable {
    /// 10 minutes in microseconds.
    package static let defaultSnooze: Int64 = 10 * 60 * 1_000_000

    /// `remind-time`: when all-day todos are reminded, as seconds after local midnight.
    package var remindTime: Int64 = TimeExpression.defaultRemindTime
    /// `sort`: the keys `list` sorts by when no `--sort` is given (nil: manual order).
    package var sort: [TodoQuery.SortKey]?
    /// `snooze`: the DURATION of `snooze ID` without one, in microseconds.
    package var snooze = Config.defaultSnooze
    /// `alias.NAME`: the words NAME stands for; the first is always a built-in command.
    package var aliases: [String: [String]] = [:]
    /// `remind-default`: whether a todo from elsewhere (imported, synced) with a due date and no
    /// alarm is reminded at its due (`due`, the default; all-day ones at `remind-time`) or not (`none`).
    package var remindDefault = true
    /// `hide-future-starts = yes`: `list` shows only todos whose start has come, as `--ready`
    /// (`--all-starts` shows the others too).
    package var hideFutureStarts = false
    /// `ui.key.ACTION = KEY`: the keys of `todoctl ui`, by action (that program checks them).
    package var uiKeys: [String: String] = [:]
    package static let uiKeyPrefix = "ui.key."
    /// `quiet-hours = 22:00-07:00`: todod-notify holds desktop reminders in that span (local time)
    /// and shows them when it ends; nil: none.
    package var quietHours: QuietHours?
    /// `ui.mouse = on`: `todoctl ui` takes clicks and the wheel (off by default: it would take the
    /// terminal's own selection and copying away).
    package var uiMouse = false
    /// The lines that could not be read, each left out (its key keeps its default).
    package var problems: [ConfigProblem] = []

    /// The keys of the file.
    package static let keys = [
        "remind-time", "remind-default", "sort", "snooze", "hide-future-starts", "quiet-hours", "ui.mouse"
    ]

    /// The defaults: what todoctl does without a file.
    package init() {}

    /// The file todoctl reads: `$XDG_CONFIG_HOME/todod/config` when XDG_CONFIG_HOME is an
    /// absolute path, else `$HOME/.config/todod/config`; nil when neither is known.
    package static func path(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/todod/config" }
        if let home = environment["HOME"], !home.isEmpty {
            return (home.hasSuffix("/") ? home : home + "/") + ".config/todod/config"
        }
        return nil
    }

    /// `path` as messages show it: `~/...` under HOME.
    package static func display(_ path: String, environment: [String: String]) -> String {
        if let home = environment["HOME"], home.count > 1 {
            let prefix = home.hasSuffix("/") ? home : home + "/"
            if path.hasPrefix(prefix) { return "~/" + path.dropFirst(prefix.count) }
        }
        return path
    }

    /// Reads the file named by `environment`; a missing file means the defaults. An unreadable
    /// file is a problem of every key (`ConfigProblem.everyKey`), a bad line one of its key.
    /// `commands` are todoctl's command names, which an alias must start with and may not be
    /// (nil: aliases are not checked against them, for a reader that only wants other keys).
    package static func load(environment: [String: String], commands: [String]?) -> Config {
        load(environment: environment, commands: commands) { (path) throws(PosixError) in
            try Files.contents(of: path, maxBytes: 1 << 20)
        }
    }

    /// `load` reading files with `read`.
    package static func load(
        environment: [String: String], commands: [String]?, read: (String) throws(PosixError) -> [UInt8]
    ) -> Config {
        guard let path = path(environment: environment) else { return Config() }
        let name = display(path, environment: environment)
        var unreadable = Config()
        let bytes: [UInt8]
        do {
            bytes = try read(path)
        } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return Config() }
            unreadable.problems = [
                ConfigProblem(key: ConfigProblem.everyKey, message: "\(name): cannot read it: \(error.reason)")
            ]
            return unreadable
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            unreadable.problems = [ConfigProblem(key: ConfigProblem.everyKey, message: "\(name): not valid UTF-8 text")]
            return unreadable
        }
        return parse(text, file: name, commands: commands)
    }

    /// Reads the text of a config file; `file` names it in messages. A line that cannot be read is
    /// left out and recorded in `problems`. `commands` as for `load`.
    package static func parse(_ text: String, file: String, commands: [String]?) -> Config {
        var config = Config()
        // ("\r\n" is one Character in Swift: a CRLF line end is a line end too.)
        for (index, rawLine) in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }
        ).enumerated() {
            let line = trim(Substring(rawLine))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let at = "\(file):\(index + 1): "
            do throws(ConfigError) {
                try read(line, at: at, commands: commands, into: &config)
            } catch {
                let key = line.firstIndex(of: "=").map { String(trim(line[..<$0])) }
                config.problems.append(ConfigProblem(key: key.map(meant) ?? nil, message: error.message))
            }
        }
        return config
    }

    /// The key a line of `key` was meant for: itself when known, the closest known key for a
    /// misspelt one (`remnd-time`), nil when none is close.
    package static func meant(_ key: String) -> String? {
        if keys.contains(key) || key.hasPrefix("alias.") || key.hasPrefix(uiKeyPrefix) { return key }
        if let dot = key.firstIndex(of: "."), Suggestion.closest(to: String(key[..<dot]), in: ["alias"]) != nil {
            return "alias" + key[dot...]
        }
        return Suggestion.closest(to: key, in: keys)
    }

    /// Applies one `key = value` line (trimmed, not a comment); `at` starts its messages.
    private static func read(_ line: Substring, at: String, commands: [String]?, into config: inout Config)
        throws(ConfigError)
    {
        guard let equals = line.firstIndex(of: "=") else {
            throw ConfigError(at + "expected key = value, found \(quoted(String(line)))")
        }
        let key = String(trim(line[..<equals]))
        let value = String(trim(line[line.index(after: equals)...]))
        switch key {
        case "remind-time":
            guard let seconds = clockTime(value).map(Int64.init) ?? TimeExpression.clockTime(value) else {
                throw ConfigError(
                    at
                        + "bad value \(quoted(value)) for remind-time: expected HH:MM (00:00 to 23:59), or a time such as 7:30am or 7時半"
                )
            }
            config.remindTime = seconds
        case "remind-default":
            switch value.lowercased() {
            case "due": config.remindDefault = true
            case "none": config.remindDefault = false
            default: throw ConfigError(at + "bad value \(quoted(value)) for remind-default: expected due or none")
            }
        case "sort":
            switch TodoQuery.SortKey.list(value) {
            case .success(let keys): config.sort = keys.isEmpty ? nil : keys
            case .failure(let bad):
                throw ConfigError(
                    at
                        + "bad value \(quoted(value)) for sort: unknown key \(quoted(bad.key)); valid keys: \(TodoQuery.SortKey.names) (a leading - sorts descending)"
                )
            }
        case "snooze":
            do { config.snooze = try TimeExpression.duration(value) } catch {
                throw ConfigError(
                    at + "bad value \(quoted(value)) for snooze: expected a duration (\(TimeExpression.durationForms))")
            }
        case "hide-future-starts":
            switch value.lowercased() {
            case "yes", "true", "on", "1": config.hideFutureStarts = true
            case "no", "false", "off", "0": config.hideFutureStarts = false
            default: throw ConfigError(at + "bad value \(quoted(value)) for hide-future-starts: expected yes or no")
            }
        case "quiet-hours":
            guard let quiet = QuietHours(value) else {
                throw ConfigError(
                    at + "bad value \(quoted(value)) for quiet-hours: expected HH:MM-HH:MM, such as 22:00-07:00")
            }
            config.quietHours = quiet
        case "ui.mouse":
            switch value.lowercased() {
            case "yes", "true", "on", "1": config.uiMouse = true
            case "no", "false", "off", "0": config.uiMouse = false
            default: throw ConfigError(at + "bad value \(quoted(value)) for ui.mouse: expected on or off")
            }
        case _ where key.hasPrefix(Config.uiKeyPrefix):
            config.uiKeys[String(key.dropFirst(Config.uiKeyPrefix.count))] = value // todoctl ui checks them
        default:
            guard key.hasPrefix("alias.") else {
                let hint =
                    Config.meant(key).map { "; did you mean \(Config.quoted($0))?" }
                    ?? "; the keys are remind-time, remind-default, sort, snooze, hide-future-starts, quiet-hours, alias.NAME, ui.key.ACTION and ui.mouse"
                throw ConfigError(at + "unknown key \(Config.quoted(key))" + hint)
            }
            let name = String(key.dropFirst("alias.".count))
            guard !name.isEmpty, !name.hasPrefix("-"),
                name.unicodeScalars.allSatisfy({ !$0.properties.isWhitespace && $0.value >= 0x20 && $0.value != 0x7F })
            else {
                throw ConfigError(at + "bad alias name \(quoted(name)): a word without spaces, not starting with -")
            }
            if let commands, commands.contains(name) {
                throw ConfigError(at + "alias \(quoted(name)) would hide the built-in command \(quoted(name))")
            }
            var words: [String]
            switch ShellWords.split(value) {
            case .success(let split): words = split
            case .failure(let problem): throw ConfigError(at + "bad value for alias.\(name): \(problem.message)")
            }
            // `alias.work = "list -c 仕事"`, quoted whole as in git's config: the command line
            // inside the quotes.
            if words.count == 1, let quote = value.first, quote == "\"" || quote == "'", value.last == quote,
                words[0].contains(where: { $0 == " " || $0 == "\t" }),
                case .success(let inner) = ShellWords.split(words[0])
            {
                words = inner
            }
            guard let first = words.first else {
                throw ConfigError(
                    at + "bad value for alias.\(name): expected a command line such as \"list --sort due\"")
            }
            guard commands?.contains(first) ?? true else {
                throw ConfigError(
                    at
                        + "bad value for alias.\(name): \(quoted(first)) is not a todoctl command (an alias starts with a built-in command, never another alias)"
                )
            }
            config.aliases[name] = words
        }
    }

    /// `HH:MM` (or `H:MM`) as seconds after midnight.
    package static func clockTime(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        return hour * 3600 + minute * 60
    }

    /// `arguments` with an alias in the command's place replaced by its words. The command is
    /// the first argument that is neither an option nor the value of `--socket`; nothing after
    /// `--` is a command. Expanded words are never expanded again.
    package func expandingAlias(_ arguments: [String]) -> [String] {
        guard !aliases.isEmpty, let index = Config.commandIndex(arguments), let words = aliases[arguments[index]] else {
            return arguments
        }
        return Array(arguments[..<index]) + words + arguments[(index + 1)...]
    }

    /// Where the command (or an alias) stands in `arguments`, as `expandingAlias` reads them.
    package static func commandIndex(_ arguments: [String]) -> Int? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            if argument == "--socket" {
                index += 2
                continue
            }
            if argument.hasPrefix("-") && argument != "-" {
                index += 1
                continue
            }
            return index
        }
        return nil
    }

    /// The problem that stops a command line before it is parsed: a bad line of the alias it
    /// names (or an unreadable file, which may hold that alias); `commands` are todoctl's.
    package func aliasProblem(_ arguments: [String], commands: [String]) -> ConfigProblem? {
        guard let index = Config.commandIndex(arguments), !commands.contains(arguments[index]) else { return nil }
        return problems.first { $0.key == ConfigProblem.everyKey || $0.key == "alias." + arguments[index] }
    }

    /// The problem that stops a command needing `keys` (the value it would use is unknown), or nil.
    package func problem(forKeys keys: Set<String>) -> ConfigProblem? {
        guard !keys.isEmpty else { return nil }
        return problems.first { $0.key.map { $0 == ConfigProblem.everyKey || keys.contains($0) } ?? false }
    }

    private static func trim(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }

    private static func quoted(_ text: String) -> String { TimeExpression.quoted(text) }
}

/// A line of the configuration file that could not be read: todoctl warns and goes on without
/// it, unless the command needs the key it was meant to set (`CLI`).
package struct ConfigProblem: Equatable, Sendable {
    /// Stands for every key: the whole file could not be read.
    package static let everyKey = "*"
    /// The key the line was meant to set (a misspelt one read as the closest key), or nil.
    package var key: String?
    /// One line naming the file and the line (`~/.config/todod/config:3: unknown key ...`).
    package var message: String

    package init(key: String?, message: String) {
        self.key = key
        self.message = message
    }
}

/// A problem with the configuration file: one line naming the file and, where there is one, the
/// line (`~/.config/todod/config:3: unknown key "remnd-time"`). todoctl exits with status 2.
package struct ConfigError: Error, Equatable, Sendable {
    package var message: String

    package init(_ message: String) { self.message = message }
}

/// Splitting a command line into words the way a shell does, without running one: blanks separate
/// words; '...' keeps everything literally; "..." keeps everything but `\"` and `\\`; outside
/// quotes a backslash keeps the next character. No variables, globs or substitutions.
package enum ShellWords {
    package struct Problem: Error, Equatable { package var message: String }

    package static func split(_ text: String) -> Result<[String], Problem> {
        var words: [String] = []
        var word = ""
        var inWord = false
        var iterator = text.makeIterator()
        while let c = iterator.next() {
            switch c {
            case " ", "\t":
                if inWord {
                    words.append(word)
                    word = ""
                    inWord = false
                }
            case "'":
                inWord = true
                var closed = false
                while let q = iterator.next() {
                    if q == "'" {
                        closed = true
                        break
                    }
                    word.append(q)
                }
                if !closed { return .failure(Problem(message: "unterminated ' quote")) }
            case "\"":
                inWord = true
                var closed = false
                while let q = iterator.next() {
                    if q == "\"" {
                        closed = true
                        break
                    }
                    if q == "\\" {
                        guard let next = iterator.next() else { break }
                        if next != "\"" && next != "\\" { word.append("\\") }
                        word.append(next)
                    } else {
                        word.append(q)
                    }
                }
                if !closed { return .failure(Problem(message: "unterminated \" quote")) }
            case "\\":
                inWord = true
                guard let next = iterator.next() else { return .failure(Problem(message: "a backslash at the end")) }
                word.append(next)
            default:
                inWord = true
                word.append(c)
            }
        }
        if inWord { words.append(word) }
        return .success(words)
    }
}

/// A daily span of local time, `22:00-07:00` (across midnight) or `12:00-13:30`: todod-notify's
/// quiet hours. The start is in the span, the end is not; a span whose start and end are equal is
/// refused (it would be all day or never).
package struct QuietHours: Equatable, Sendable {
    /// Seconds after local midnight.
    package var start: Int64
    package var end: Int64

    package init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let start = Config.clockTime(String(parts[0]).trimmingSpacesAround()),
            let end = Config.clockTime(String(parts[1]).trimmingSpacesAround()), start != end
        else { return nil }
        self.start = Int64(start)
        self.end = Int64(end)
    }

    /// Whether `secondOfDay` (local time) lies in the span.
    package func contains(secondOfDay: Int64) -> Bool {
        start < end ? (secondOfDay >= start && secondOfDay < end) : (secondOfDay >= start || secondOfDay < end)
    }

    /// Seconds from `secondOfDay` until the span ends (0 when outside it).
    package func secondsUntilEnd(from secondOfDay: Int64) -> Int64 {
        guard contains(secondOfDay: secondOfDay) else { return 0 }
        return (end - secondOfDay + 86_400) % 86_400
    }
}

extension String {
    fileprivate func trimmingSpacesAround() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
