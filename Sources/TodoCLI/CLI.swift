import TodoCore
import TodoICal
import TodoPosix
import TodoProtocol
import TodoRPC
import TodoTime
import TodoUserFiles

/// The todoctl program: tokenize, parse, run, with one exit path.
package enum CLI {
    /// Exit status: success.
    package static let exitOK: Int32 = 0
    /// Exit status: the daemon refused, or an input file is unreadable or invalid.
    package static let exitRefused: Int32 = 1
    /// Exit status: command-line usage error.
    package static let exitUsage: Int32 = 2
    /// Exit status: daemon unreachable, untrusted, or not speaking our protocol (EX_UNAVAILABLE).
    package static let exitUnavailable: Int32 = 69

    /// Runs todoctl and returns its exit status. `connect` opens a transport to a socket path.
    /// `readStdin` reads standard input to its end (for `import -`). `now` is the time of the
    /// command; `clock` tells the time later on (`watch` describes each event as it arrives).
    /// `zoneName` finds the IANA name of `timeZone`, sent as the `zone` of todos (only `add` and
    /// `edit` ask for it).
    package static func main(
        arguments: [String], environment: [String: String], uid: UInt32,
        isTerminal: Bool, terminalWidth: Int?, now: Instant, timeZone: ZoneInfo,
        zoneName: @autoclosure @escaping () -> String? = nil,
        stdout: (String) -> Void, stderr: (String) -> Void,
        connect: (String) throws(ClientError) -> any RPCTransport,
        readStdin: () throws(PosixError) -> [UInt8] = CLI.readStandardInput,
        clock: @escaping () -> Instant = { Instant.now() },
        runUI: ((_ socket: String) -> Int32)? = nil,
        readAnswer: (() -> String?)? = nil
    ) -> Int32 {
        var socket = SocketPaths.socket(flag: nil, system: false, environment: environment, uid: uid)
        var socketFromFlag = false
        if arguments == [CommandTable.argument] {
            stdout(CommandTable.text)
            return exitOK
        }
        if let index = CompletionWords.index(arguments) {
            let path = CompletionWords.socket(arguments[..<index], environment: environment, uid: uid)
            if let transport = try? connect(path),
                let lines = try? CompletionWords.lines(arguments[(index + 1)...], transport: transport),
                !lines.isEmpty
            {
                stdout(lines.joined(separator: "\n") + "\n")
            }
            return exitOK
        }
        do throws(CLIFailure) {
            // A bad config line is a warning, unless the command needs what it was meant to set.
            let config = Config.load(environment: environment)
            if let problem = config.aliasProblem(arguments) { throw .config(ConfigError(problem.message)) }
            let invocation: Invocation
            do {
                invocation = try Parser(now: now, timeZone: timeZone, zoneName: zoneName(), config: config).parse(
                    arguments)
            } catch {
                // `edit ID` alone on a terminal: the todo in the editor.
                if isTerminal, error.command == "edit", error.message.hasPrefix("nothing to change"),
                    let at = arguments.firstIndex(of: "edit"), at + 2 == arguments.count
                {
                    return editInEditor(
                        arguments: arguments, editAt: at, environment: environment, uid: uid, now: now,
                        timeZone: timeZone,
                        zoneName: zoneName, stdout: stdout, stderr: stderr, connect: connect)
                }
                warn(config.problems, stderr)
                throw .usage(error)
            }
            let needed = configKeys(invocation, config: config) { probe in
                try? Parser(now: now, timeZone: timeZone, zoneName: zoneName(), config: probe).parse(arguments)
            }
            if let problem = config.problem(forKeys: needed) { throw .config(ConfigError(problem.message)) }
            warn(config.problems, stderr)
            let global = invocation.global
            socket = SocketPaths.socket(flag: global.socket, system: global.system, environment: environment, uid: uid)
            socketFromFlag = global.socket?.isEmpty == false

            switch invocation.command {
            case .help(let topic):
                if let topic, let words = config.aliases[topic] {
                    stdout(Help.aliasText(topic, words: words))
                } else {
                    stdout(Help.text(for: topic))
                }
                return exitOK
            case .version:
                stdout("todoctl \(TododVersion.string)\n")
                return exitOK
            default:
                break
            }

            if case .ui = invocation.command {
                guard let runUI else {
                    throw .usage(UsageError("the interactive list cannot run from here", command: "ui"))
                }
                return runUI(socket)
            }

            // sync needs no daemon: sync.conf, status files and todod-sync.
            if case .sync(let sub) = invocation.command {
                let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
                let human = HumanOutput(
                    now: now, timeZone: timeZone, colour: isTerminal && !noColor && environment["TERM"] != "dumb",
                    maxWidth: isTerminal ? terminalWidth.flatMap { $0 > 0 ? $0 : nil } : nil)
                try withoutActuallyEscaping(stdout) { (out) throws(CLIFailure) in
                    try withoutActuallyEscaping(stderr) { (err) throws(CLIFailure) in
                        try SyncRunner(environment: environment, json: global.json, human: human, out: out, err: err)
                            .run(sub)
                    }
                }
                return exitOK
            }

            // Local input first, so a bad file never needs the daemon.
            var document: JSON?
            var skipped: [String: Int] = [:]
            var notFollowed: [ICalFiles.KeptRule] = []
            var unmapped: [String]?
            var refused: [String] = []
            var todotxt: TodotxtInput?
            if case .importFile(let path, .todotxt?) = invocation.command {
                // Read line by line while importing: opened here, so a file that cannot be read never needs the daemon.
                let context = ForeignImport.Context(zone: timeZone, zoneName: zoneName(), now: now)
                todotxt = try TodotxtInput(path, context: context, readStdin: readStdin)
            } else if case .importFile(let path, let source?) = invocation.command {
                let context = ForeignImport.Context(zone: timeZone, zoneName: zoneName(), now: now)
                let converted = try ForeignImport.read(path, from: source, context: context, readStdin: readStdin)
                document = JSON(converted.document)
                unmapped = converted.unmapped
                refused = converted.refused
            } else if case .importFile(let path, nil) = invocation.command {
                var reader = ICalReader(zone: timeZone, zoneName: zoneName(), tzdir: environment["TZDIR"], now: now)
                reader.defaultRemindTime = config.remindDefault ? config.remindTime : nil
                (document, skipped, notFollowed) = try ICalFiles.document(path, reader: reader, readStdin: readStdin)
            }

            let transport: any RPCTransport
            do { transport = try connect(socket) } catch { throw .client(error) }

            let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
            let colour = isTerminal && !noColor && environment["TERM"] != "dumb"
            var human = HumanOutput(
                now: now, timeZone: timeZone, colour: colour,
                maxWidth: isTerminal ? terminalWidth.flatMap { $0 > 0 ? $0 : nil } : nil)
            human.zoneName = zoneName()
            try withoutActuallyEscaping(stdout) { (out) throws(CLIFailure) in
                try withoutActuallyEscaping(stderr) { (err) throws(CLIFailure) in
                    try withoutActuallyEscaping(connect) { (connect) throws(CLIFailure) in
                        var runner = Runner(
                            transport: transport, json: global.json, human: human, out: out, clock: clock)
                        runner.err = err
                        runner.tzdir = environment["TZDIR"]
                        runner.unmapped = unmapped
                        runner.refused = refused
                        runner.todotxt = todotxt
                        runner.socket = socket
                        runner.importSkipped = skipped
                        runner.importNotFollowed = notFollowed
                        runner.connect = { () throws(ClientError) in try connect(socket) }
                        runner.confirm = readAnswer
                        runner.environment = environment
                        runner.uid = uid
                        runner.parser = Parser(now: now, timeZone: timeZone, zoneName: zoneName(), config: config)
                        try runner.run(invocation.command, document: document)
                    }
                }
            }
            return exitOK
        } catch {
            let (status, message) = report(error, socket: socket, socketFromFlag: socketFromFlag)
            stderr(message)
            return status
        }
    }

    /// The config keys of a bad line whose value `invocation` depends on: parsed again with
    /// another value for the key, the same arguments mean something else (`list --sort id` does
    /// not need `sort`, `add --due "fri 10:00"` not `remind-time`). `edit` changing a due or a
    /// reminder needs `remind-time` besides: it moves an all-day todo's reminder with it.
    static func configKeys(_ invocation: Invocation, config: Config, parse: (Config) -> Invocation?) -> Set<String> {
        let bad = Set(config.problems.compactMap(\.key))
        let probed = bad.contains(ConfigProblem.everyKey) ? Set(Config.keys) : bad
        var needed: Set<String> = []
        for key in probed {
            var probe = config
            switch key {
            case "remind-time": probe.remindTime = (config.remindTime + 60) % 86_400
            case "sort": probe.sort = config.sort == [.init(.id)] ? [.init(.title)] : [.init(.id)]
            case "snooze": probe.snooze = config.snooze + 1_000_000
            case "remind-default":
                // Read when an iCalendar file is imported, not by the command line.
                if case .importFile(_, nil) = invocation.command { needed.insert(key) }
                continue
            default: continue // hide-future-starts and aliases: warned about, never needed
            }
            guard var other = parse(probe) else {
                needed.insert(key)
                continue
            }
            if case .edit(var o) = other.command, case .edit(let mine) = invocation.command {
                if key == "remind-time" && (mine.due != .keep || mine.remind != .keep) {
                    needed.insert(key)
                    continue
                }
                o.remindTime = mine.remindTime
                other.command = .edit(o)
            }
            if other != invocation { needed.insert(key) }
        }
        return needed
    }

    /// One warning line per config problem the command goes on without.
    static func warn(_ problems: [ConfigProblem], _ stderr: (String) -> Void) {
        for problem in problems {
            stderr("todoctl: warning: \(Table.oneLine(problem.message)) (line ignored)\n")
        }
    }

    /// Reads standard input to its end.
    package static func readStandardInput() throws(PosixError) -> [UInt8] {
        try Posix.readToEnd(0) // standard input
    }

    /// The exit status and stderr text for a failure.
    static func report(_ failure: CLIFailure, socket: String, socketFromFlag: Bool) -> (Int32, String) {
        switch failure {
        case .usage(let error):
            return (exitUsage, "todoctl: \(Table.oneLine(error.message))\n\n" + Help.usage(for: error.command))
        case .input(let message):
            return (exitRefused, "todoctl: \(Table.oneLine(message))\n")
        case .unconfirmed(let message):
            return (exitUsage, "todoctl: \(Table.oneLine(message))\n")
        case .exit(let status):
            return (status, "")
        case .gone(let message):
            return (exitUnavailable, "todoctl: \(Table.oneLine(message))\n")
        case .config(let error):
            return (exitUsage, "todoctl: \(Table.oneLine(error.message))\n")
        case .client(let error):
            switch error {
            case .refused(let rpc):
                return (exitRefused, "todoctl: \(Table.oneLine(rpc.message))\n")
            case .unreachable(let path, let reason):
                let hint: String
                if path == SocketPaths.system {
                    hint = "start it with 'systemctl start todod.socket'"
                } else if socketFromFlag {
                    hint = "start it with 'todod --socket \(path)'"
                } else {
                    hint = "start it with 'systemctl --user start todod.socket' or run 'todod'"
                }
                return (
                    exitUnavailable,
                    "todoctl: cannot reach todod at \(Table.oneLine(path)) (\(Table.oneLine(reason))); \(hint)\n"
                )
            case .badAnswer(let what):
                return (
                    exitUnavailable,
                    "todoctl: unexpected answer from todod at \(Table.oneLine(socket)): \(Table.oneLine(what))\n"
                )
            case .untrustedDaemon(let path, let owner):
                return (
                    exitUnavailable,
                    "todoctl: refusing to talk to todod at \(Table.oneLine(path)): the socket belongs to uid \(owner), not to you or root\n"
                )
            case .badTimeout(let value):
                return (
                    exitUsage,
                    "todoctl: \(UnixSocketTransport.timeoutVariable) must be a number of seconds (0: wait forever), not '\(Table.oneLine(value))'\n"
                )
            case .timedOut(let path, let seconds):
                return (
                    exitUnavailable,
                    "todoctl: todod at \(Table.oneLine(path)) did not answer within \(UnixSocketTransport.describe(seconds)) (stopped or overloaded?); giving up\n"
                )
            }
        }
    }

    /// The JSON document of `import FILE|-` (`name` is the file's, or "standard input").
    static func readDocument(_ name: String, _ bytes: [UInt8]) throws(CLIFailure) -> JSON {
        let document: JSON
        do {
            document = try JSON.parse(bytes)
        } catch {
            throw .input("\(name) is not valid JSON: \(error.description)")
        }
        guard case .object = document else {
            throw .input(
                "\(name) is not a todod export document: expected a JSON object, found \(document.typeName)"
                    + (document.arrayValue != nil ? " (todoctl imports todod's JSON export and iCalendar files)" : ""))
        }
        guard document["format"]?.stringValue == ExportDocument.format else {
            throw .input(
                "\(name) is not a todod export document: it has no \"format\": \"\(ExportDocument.format)\" member")
        }
        return document
    }
}

/// Why todoctl stops early; mapped to an exit status in one place (`CLI.report`).
enum CLIFailure: Error {
    /// Exit 2.
    case usage(UsageError)
    /// Exit 1 or 69 depending on the error.
    case client(ClientError)
    /// Exit 1: unreadable input, or a request that cannot be made as given.
    case input(String)
    /// Exit 2, one line: an act on many todos not confirmed (no terminal to ask on, and no `--yes`).
    case unconfirmed(String)
    /// Exit 2: the configuration file is unreadable or wrong.
    case config(ConfigError)
    /// This exit status, with nothing more to say (`sync now` passes todod-sync's on).
    case exit(Int32)
    /// Exit 69: the daemon went away while todoctl was following it (`watch`).
    case gone(String)
}
