import TodoPosix
import TodoUserFiles

/// todod-sync's command line (docs/man/todod-sync.1.md).
package struct SyncOptions: Equatable, Sendable {
    package var socket: String?
    package var once = false
    package var account: String?
    package var verbose = false
    package var check = false
    package var url: String?
    package var user: String?
    package var passwordFile: String?
    package var calendar: String?
    /// `--check --lists`: the account's lists are its calendars.
    package var lists = false
    /// `--check --lists --default-list NAME`: the list for todos without a category.
    package var defaultList: String?
    /// Seconds between the service's pulls of remote changes (`--pull-interval`; nil: the default).
    package var pullInterval: Double?
    package var help = false
    package var version = false

    package init() {}

    package static let usage = """
        usage: todod-sync [--socket PATH] [--pull-interval SECONDS] [--verbose]
               todod-sync [--socket PATH] --once [--account NAME] [--verbose]
               todod-sync --check --url URL --user USER --password-file FILE [--calendar URL|PATH] [--lists [--default-list NAME]]
               todod-sync --help | --version
        """

    /// Reads the arguments (without the program name). Throws a one-line usage error.
    package init(arguments: [String]) throws(SyncError) {
        var reader = ArgumentReader(arguments)
        do throws(ArgumentError) {
            while let argument = try reader.next() {
                switch argument {
                case .option("--socket"): socket = try Self.nonEmpty(reader.value(), "--socket")
                case .option("--once"):
                    try reader.noValue()
                    once = true
                case .option("--account"):
                    let name = try reader.value()
                    guard SyncAccount.isValidName(name) else {
                        throw ArgumentError.invalid("--account: \(name) is not an account name")
                    }
                    account = name
                case .option("--pull-interval"): pullInterval = try Self.seconds(reader.value())
                case .option("--verbose"):
                    try reader.noValue()
                    verbose = true
                case .option("--check"):
                    try reader.noValue()
                    check = true
                case .option("--url"): url = try Self.nonEmpty(reader.value(), "--url")
                case .option("--user"): user = try Self.nonEmpty(reader.value(), "--user")
                case .option("--password-file"): passwordFile = try Self.nonEmpty(reader.value(), "--password-file")
                case .option("--calendar"): calendar = try Self.nonEmpty(reader.value(), "--calendar")
                case .option("--lists"):
                    try reader.noValue()
                    lists = true
                case .option("--default-list"): defaultList = try Self.nonEmpty(reader.value(), "--default-list")
                case .option("--help"): help = true
                case .option("--version"): version = true
                case .option(let name) where name.hasPrefix("--password"):
                    // The value is not repeated: it may be the password.
                    throw ArgumentError.invalid(
                        "\(name) is not taken: a password on the command line is visible to every user (ps); use --password-file"
                    )
                case .option(let name): throw ArgumentError.unknownOption(name)
                case .operand(let word): throw ArgumentError.unexpected(word)
                }
            }
        } catch {
            throw .usage(error.message)
        }
        if pullInterval != nil && (once || check) {
            throw SyncError.usage("--pull-interval goes with the service (not --once or --check)")
        }
        if check {
            guard url != nil, user != nil, passwordFile != nil else {
                throw SyncError.usage("--check needs --url, --user and --password-file")
            }
            guard !once, account == nil else {
                throw SyncError.usage("--check cannot be combined with --once or --account")
            }
            if defaultList != nil, !lists { throw SyncError.usage("--default-list goes with --lists") }
        } else if url != nil || user != nil || passwordFile != nil || calendar != nil || lists || defaultList != nil {
            throw SyncError.usage(
                "--url, --user, --password-file, --calendar, --lists and --default-list go with --check")
        }
        if account != nil, !once { throw SyncError.usage("--account goes with --once") }
    }

    /// The service's pull interval when no `--pull-interval` is given: five minutes.
    package static let defaultPullInterval = 300.0

    private static func nonEmpty(_ value: String, _ name: String) throws(ArgumentError) -> String {
        guard !value.isEmpty else { throw .needsValue(name) }
        return value
    }

    /// A `--pull-interval`: seconds, from 1 to 86400 (a day).
    private static func seconds(_ text: String) throws(ArgumentError) -> Double {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 1, seconds <= 86_400 else {
            throw .invalid("--pull-interval: not a number of seconds from 1 to 86400: \(text)")
        }
        return seconds
    }
}
