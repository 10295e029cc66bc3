import TodoCore
import TodoUserFiles
import TodoWhen

// `todoctl sync ...`: the CalDAV accounts of todod-sync (SPEC §9, docs/SYNC.md). Parsed here;
// run by SyncRunner, which needs no daemon: it reads and writes sync.conf and the status files and
// runs todod-sync for anything that needs the network.

/// The `sync` subcommands.
package enum SyncCommand: Equatable, Sendable {
    /// `sync add ...`: check the account with todod-sync, then write it and start the service.
    /// The account as given: `passwordFile` is made absolute when it is written, `calendar` may
    /// be a URL or a path on the server.
    case add(SyncAccount)
    /// `sync list`.
    case list
    /// `sync remove NAME`: the account and its state go; the todos stay.
    case remove(name: String)
    /// `sync now [NAME]`: one round now (`todod-sync --once`).
    case now(name: String?)
    /// `sync status`.
    case status
}

/// What may be a sync URL: https, or http to a loopback address only.
enum SyncURL {
    /// Why `url` cannot be used (one line), or nil when it can.
    static func problem(_ url: String, option: String) -> String? {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            return
                "invalid \(option) \(TimeExpression.quoted(url)): expected an https:// URL (plain http:// only to localhost)"
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") {
            return
                "invalid \(option) \(TimeExpression.quoted(url)): a user or password in the URL would be written to sync.conf; "
                + "give --user and --password-file instead"
        }
        guard let host = host(of: authority), !host.isEmpty else {
            return "invalid \(option) \(TimeExpression.quoted(url)): no host name"
        }
        if lower.hasPrefix("http://"), !isLoopback(host) {
            return "refusing plain http:// to \(host): the password would cross the network unencrypted; use https:// "
                + "(http:// is accepted only for localhost, 127.0.0.0/8 and ::1)"
        }
        return nil
    }

    /// The host of `host[:port]` or `[v6]:port`.
    static func host(of authority: Substring) -> String? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// `localhost`, `127.x.y.z` or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

extension Parser {
    /// The `sync` subcommands, in help order, and the options each accepts.
    static let syncSubcommands: [(name: String, options: Set<String>)] = [
        (
            "add",
            [
                "--url", "--user", "--password-file", "--credential", "--calendar", "--initial", "--lists",
                "--default-list"
            ]
        ),
        ("list", []), ("remove", []), ("now", []), ("status", [])
    ]

    func sync(_ args: Arguments, _ p: inout Positionals) throws(UsageError) -> SyncCommand {
        let sub = try subcommand(of: "sync", Parser.syncSubcommands, args, &p)
        switch sub {
        case "list": return .list
        case "status": return .status
        case "remove": return .remove(name: try p.next("NAME"))
        case "now": return .now(name: p.peek() == nil ? nil : try p.next("NAME"))
        default:
            let name = try p.next("NAME")
            guard SyncAccount.isValidName(name) else {
                throw UsageError(
                    "invalid account name \(quote(name)): use letters, digits, -, _ and . (at most 64, not starting with .)",
                    command: "sync")
            }
            guard let url = args.value("--url") else {
                throw UsageError("missing --url URL for 'sync add'", command: "sync")
            }
            guard let user = args.value("--user"), !user.isEmpty else {
                throw UsageError("missing --user USER for 'sync add'", command: "sync")
            }
            // Every value goes into sync.conf: a line break would write keys of its own.
            for option in ["--url", "--user", "--password-file", "--credential", "--calendar", "--default-list"] {
                if let value = args.value(option), !value.isEmpty, !SyncConfig.isWritable(value) {
                    throw UsageError(
                        "invalid \(option) \(quote(value)): control characters (line breaks, tabs) and surrounding spaces are not taken",
                        command: "sync")
                }
            }
            let initial = args.value("--initial")
            if let initial, !SyncAccount.initialModes.contains(initial) {
                throw UsageError(
                    "invalid --initial \(quote(initial)): expected merge, remote or local", command: "sync")
            }
            let file = args.value("--password-file")
            let credential = args.value("--credential")
            switch (file, credential) {
            case (nil, nil):
                throw UsageError("missing --password-file FILE (or --credential NAME) for 'sync add'", command: "sync")
            case (_?, _?): throw UsageError("--password-file and --credential cannot be used together", command: "sync")
            default: break
            }
            if file == "" { throw UsageError("--password-file needs a file name", command: "sync") }
            if let credential, !SyncAccount.isValidName(credential) {
                throw UsageError(
                    "invalid credential name \(quote(credential)) for --credential: use letters, digits, -, _ and .",
                    command: "sync")
            }
            if let problem = SyncURL.problem(url, option: "--url") { throw UsageError(problem, command: "sync") }
            // A default list is a list's: --default-list syncs the account's lists.
            let defaultList = args.value("--default-list")
            if defaultList == "" { throw UsageError("--default-list needs a list's name", command: "sync") }
            let lists = args.has("--lists") || defaultList != nil
            let calendars = lists ? args.values("--calendar") : args.value("--calendar").map { [$0] } ?? []
            for calendar in calendars {
                if calendar.isEmpty { throw UsageError("--calendar needs a URL or a path", command: "sync") }
                if calendar.contains("://"), let problem = SyncURL.problem(calendar, option: "--calendar") {
                    throw UsageError(problem, command: "sync")
                }
            }
            if lists {
                var account = SyncAccount(
                    name: name, url: url, user: user, passwordFile: file, credential: credential, lists: calendars,
                    initial: initial == "merge" ? nil : initial)
                account.defaultList = defaultList
                return .add(account)
            }
            return .add(
                SyncAccount(
                    name: name, url: url, user: user, passwordFile: file, credential: credential,
                    calendar: calendars.first,
                    initial: initial == "merge" ? nil : initial))
        }
    }

    /// The subcommand of `command` (one of `subcommands`), with a did-you-mean for a misspelt one,
    /// and a usage error for any option that subcommand does not take.
    func subcommand(
        of command: String, _ subcommands: [(name: String, options: Set<String>)], _ args: Arguments,
        _ p: inout Positionals
    ) throws(UsageError) -> String {
        let names = subcommands.map(\.name)
        let list = names.dropLast().joined(separator: ", ") + " or " + names.last!
        let sub = try p.next("SUBCOMMAND (\(list))")
        guard let options = subcommands.first(where: { $0.name == sub })?.options else {
            throw UsageError(
                "unknown \(command) subcommand \(quote(sub))"
                    + (Suggestion.closest(to: sub, in: names).map { "; did you mean \(quote($0))?" }
                        ?? "; expected \(list)"),
                command: command)
        }
        if let stray = args.options.first(where: { !options.contains($0.name) }) {
            throw UsageError("option \(stray.name) is not valid for '\(command) \(sub)'", command: command)
        }
        return sub
    }
}
