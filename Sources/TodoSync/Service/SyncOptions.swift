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
    package var help = false
    package var version = false

    package init() {}

    package static let usage = """
        usage: todod-sync [--socket PATH] [--verbose]
               todod-sync [--socket PATH] --once [--account NAME] [--verbose]
               todod-sync --check --url URL --user USER --password-file FILE [--calendar URL|PATH]
               todod-sync --help | --version
        """

    /// Reads the arguments (without the program name). Throws a one-line usage error.
    package init(arguments: [String]) throws(SyncError) {
        var i = 0
        func value(_ name: String) throws(SyncError) -> String {
            i += 1
            guard i < arguments.count, !arguments[i].isEmpty else { throw SyncError("\(name) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--socket": socket = try value(arg)
            case "--once": once = true
            case "--account":
                let name = try value(arg)
                guard SyncAccount.isValidName(name) else { throw SyncError("--account: \(name) is not an account name") }
                account = name
            case "--verbose": verbose = true
            case "--check": check = true
            case "--url": url = try value(arg)
            case "--user": user = try value(arg)
            case "--password-file": passwordFile = try value(arg)
            case "--calendar": calendar = try value(arg)
            case "--help", "-h": help = true
            case "--version": version = true
            default:
                if arg.hasPrefix("--password") {
                    throw SyncError("\(arg) is not taken: a password on the command line is visible to every user (ps); use --password-file")
                }
                throw SyncError("unknown argument \(arg)")
            }
            i += 1
        }
        if check {
            guard url != nil, user != nil, passwordFile != nil else { throw SyncError("--check needs --url, --user and --password-file") }
            guard !once, account == nil else { throw SyncError("--check cannot be combined with --once or --account") }
        } else if url != nil || user != nil || passwordFile != nil || calendar != nil {
            throw SyncError("--url, --user, --password-file and --calendar go with --check")
        }
        if account != nil, !once { throw SyncError("--account goes with --once") }
    }
}
