import TodoCore
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

// The files todoctl and todod-sync share (SPEC §9): the accounts in
// `${XDG_CONFIG_HOME:-~/.config}/todod/sync.conf`, and each account's status, which todod-sync
// writes to `${XDG_STATE_HOME:-~/.local/state}/todod/sync/NAME.status` for `todoctl sync status`.

/// One CalDAV account of sync.conf. The password is never here: only where to read it.
package struct SyncAccount: Equatable, Sendable {
    /// The account's name (`sync add NAME`): letters, digits, `-`, `_` and `.`.
    package var name: String
    /// The URL the user gave: a server, a principal or a calendar.
    package var url: String
    package var user: String
    /// An absolute path to a file holding the password (mode 0600).
    package var passwordFile: String?
    /// A systemd credential's name (`LoadCredential=`), read from `$CREDENTIALS_DIRECTORY/NAME`.
    package var credential: String?
    /// The calendar collection's URL that `sync add` found (nil: discover it again). With
    /// `lists`, the default list (todos without a category).
    package var calendar: String? {
        get { calendars.first }
        set { calendars = newValue.map { [$0] + calendars.dropFirst() } ?? [] }
    }
    /// Every `calendar` line, in order: with `lists`, the lists to sync (none: every calendar of
    /// the account that holds todos).
    package var calendars: [String] = []
    /// Lists are calendars (`lists = yes`): every calendar is a category by its display name.
    /// Without it the account syncs its one calendar, categories written as `X-TODOD-CATEGORY`.
    package var lists = false
    /// With `lists`, the list that holds the todos without a category on the account's first
    /// round (`default-list`, `sync add --default-list`): a calendar's display name, path or URL.
    package var defaultList: String?
    /// How the first round treats a store and a calendar that both hold todos (`sync add
    /// --initial`): `merge` (nil), `remote` or `local`.
    package var initial: String?
    /// The most seconds a round may talk with the server (`round-limit`; nil: 600). A round that
    /// reaches it stops writing; what it had no time for is pending, and the next round goes on.
    package var roundLimit: Int?

    /// The values `--initial` takes.
    package static let initialModes = ["merge", "remote", "local"]
    /// The values `round-limit` takes, in seconds, and its default.
    package static let roundLimits = 1...86_400
    package static let defaultRoundLimit: Double = 600
    /// The round's time limit in seconds.
    package var roundTimeLimit: Double { roundLimit.map(Double.init) ?? Self.defaultRoundLimit }

    package init(
        name: String, url: String, user: String, passwordFile: String? = nil, credential: String? = nil,
        calendar: String? = nil,
        initial: String? = nil
    ) {
        self.name = name
        self.url = url
        self.user = user
        self.passwordFile = passwordFile
        self.credential = credential
        self.initial = initial
        self.calendar = calendar
    }

    /// An account syncing its lists as calendars (`lists = yes`), of `calendars` (empty: all).
    package init(
        name: String, url: String, user: String, passwordFile: String? = nil, credential: String? = nil,
        lists calendars: [String],
        initial: String? = nil
    ) {
        self.init(
            name: name, url: url, user: user, passwordFile: passwordFile, credential: credential, initial: initial)
        self.calendars = calendars
        lists = true
    }

    /// The values sync.conf holds for the account, by key.
    package var values: [(key: String, value: String)] {
        [("url", url), ("user", user)]
            + ([("password-file", passwordFile), ("credential", credential)] + calendars.map { ("calendar", $0) }
            + [
                ("lists", lists ? "yes" : nil), ("default-list", defaultList), ("initial", initial),
                ("round-limit", roundLimit.map(String.init))
            ]).compactMap { k, v in v.map { (k, $0) } }
    }

    /// Whether `name` may name an account (it becomes part of file names).
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.first != "."
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "-_.".unicodeScalars.contains($0)
            }
    }

    /// The account's password, from its password file (refused unless only its owner, this user,
    /// can read it) or its systemd credential.
    package func password(environment: [String: String]) throws(SyncConfigError) -> String {
        let path: String
        if let file = passwordFile {
            let stat: (mode: UInt32, uid: UInt32)
            do { stat = try Files.mode(file) } catch {
                throw SyncConfigError("cannot read the password file \(file): \(error)")
            }
            guard stat.uid == getuid() else {
                throw SyncConfigError("the password file \(file) belongs to another user")
            }
            guard stat.mode & 0o077 == 0 else {
                throw SyncConfigError(
                    "the password file \(file) is readable by others (mode \(String(stat.mode & 0o777, radix: 8))); run: chmod 600 \(file)"
                )
            }
            path = file
        } else if let name = credential {
            guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else {
                throw SyncConfigError(
                    "account \(name): the credential \(name) needs CREDENTIALS_DIRECTORY (LoadCredential= in the unit)")
            }
            path = directory + "/" + name
        } else {
            throw SyncConfigError("account \(self.name) has neither password-file nor credential")
        }
        let bytes: [UInt8]
        // Opened without blocking: a FIFO in its place is refused at once instead of hanging.
        do { bytes = try Files.regularContents(of: path, maxBytes: 4096) } catch {
            throw SyncConfigError(
                "cannot read the password of account \(self.name) (\(path)): \(error.errno == EINVAL ? "not a regular file" : error.reason)"
            )
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else {
            throw SyncConfigError("the password file of account \(self.name) (\(path)) is empty")
        }
        return text
    }
}

/// A problem with sync.conf or a password: one line naming the file (and line).
package struct SyncConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// Reading and writing sync.conf:
///
///     # todod-sync accounts, written by todoctl sync add. Passwords are not kept here.
///     [home]
///     url = https://dav.example.org/
///     user = alice
///     password-file = /home/alice/.config/todod/home.password
///     calendar = https://dav.example.org/alice/tasks/
package enum SyncConfig {
    /// `$XDG_CONFIG_HOME/todod/sync.conf` (when absolute), else `$HOME/.config/todod/sync.conf`.
    package static func path(environment: [String: String]) -> String? {
        Config.path(environment: environment).map { Files.directory(of: $0) + "/sync.conf" }
    }

    /// The accounts of the file; a missing file has none.
    package static func load(environment: [String: String]) throws(SyncConfigError) -> [SyncAccount] {
        guard let path = path(environment: environment) else {
            throw SyncConfigError("cannot find sync.conf: neither XDG_CONFIG_HOME nor HOME is set")
        }
        let bytes: [UInt8]
        do { bytes = try Files.contents(of: path, maxBytes: 1 << 20) } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR { return [] }
            throw SyncConfigError("cannot read \(path): \(error)")
        }
        return try parse(String(decoding: bytes, as: UTF8.self), file: path)
    }

    /// Writes the accounts (mode 0600, atomically; the directory is made 0700 when missing).
    package static func save(_ accounts: [SyncAccount], environment: [String: String]) throws(SyncConfigError) {
        for a in accounts {
            for (key, value) in a.values where !isWritable(value) {
                throw SyncConfigError(
                    "account \(a.name): the \(key) holds a control character (a line break?); sync.conf takes none")
            }
        }
        guard let path = path(environment: environment) else {
            throw SyncConfigError("cannot find sync.conf: neither XDG_CONFIG_HOME nor HOME is set")
        }
        do {
            try SyncPaths.makePrivateDirectory(Files.directory(of: path))
            try AtomicFile.write(path, Array(render(accounts).utf8), mode: 0o600)
        } catch { throw SyncConfigError("cannot write \(path): \(error)") }
    }

    package static func parse(_ text: String, file: String) throws(SyncConfigError) -> [SyncAccount] {
        var accounts: [SyncAccount] = []
        var current: [String: String] = [:]
        var currentName: String?
        var currentLine = 0
        var calendars: [String] = []
        func finish() throws(SyncConfigError) {
            guard let name = currentName else { return }
            guard let url = current["url"], let user = current["user"] else {
                throw SyncConfigError("\(file):\(currentLine): account \(name) needs url and user")
            }
            guard current["password-file"] != nil || current["credential"] != nil else {
                throw SyncConfigError("\(file):\(currentLine): account \(name) needs password-file or credential")
            }
            var account = SyncAccount(
                name: name, url: url, user: user, passwordFile: current["password-file"],
                credential: current["credential"], initial: current["initial"])
            account.calendars = calendars
            account.lists = current["lists"] == "yes"
            account.defaultList = current["default-list"]
            if account.defaultList != nil, !account.lists {
                throw SyncConfigError(
                    "\(file):\(currentLine): account \(name) has a default-list; that takes lists = yes")
            }
            account.roundLimit = current["round-limit"].flatMap { Int($0) }
            guard account.lists || calendars.count <= 1 else {
                throw SyncConfigError(
                    "\(file):\(currentLine): account \(name) names several calendars; that takes lists = yes")
            }
            accounts.append(account)
        }
        // "\r\n" is one Character in Swift: split on both, so a file with CRLF line ends reads too.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .enumerated()
        {
            let line = raw.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), case let name = String(line.dropFirst().dropLast()),
                    SyncAccount.isValidName(name)
                else {
                    throw SyncConfigError("\(file):\(index + 1): bad account header \(line)")
                }
                try finish()
                guard !accounts.contains(where: { $0.name == name }) else {
                    throw SyncConfigError("\(file):\(index + 1): account \(name) appears twice")
                }
                currentName = name
                currentLine = index + 1
                current = [:]
                calendars = []
                continue
            }
            guard currentName != nil else {
                throw SyncConfigError("\(file):\(index + 1): a key outside an [account] section")
            }
            guard let eq = line.firstIndex(of: "=") else {
                throw SyncConfigError("\(file):\(index + 1): expected key = value")
            }
            let key = String(line[..<eq]).trimmingSpaces()
            let value = String(line[line.index(after: eq)...]).trimmingSpaces()
            guard
                [
                    "url", "user", "password-file", "credential", "calendar", "lists", "default-list", "initial",
                    "round-limit"
                ].contains(key)
            else {
                throw SyncConfigError("\(file):\(index + 1): unknown key \"\(key)\"")
            }
            guard !value.isEmpty else { throw SyncConfigError("\(file):\(index + 1): \(key) is empty") }
            if key == "initial", !SyncAccount.initialModes.contains(value) {
                throw SyncConfigError("\(file):\(index + 1): initial must be merge, remote or local")
            }
            if key == "password-file", !value.hasPrefix("/") {
                throw SyncConfigError("\(file):\(index + 1): password-file must be an absolute path")
            }
            if key == "round-limit", !(Int(value).map(SyncAccount.roundLimits.contains) ?? false) {
                throw SyncConfigError("\(file):\(index + 1): round-limit must be a number of seconds from 1 to 86400")
            }
            if key == "lists", value != "yes", value != "no" {
                throw SyncConfigError("\(file):\(index + 1): lists must be yes or no")
            }
            if key == "calendar" { calendars.append(value) }
            current[key] = value
        }
        try finish()
        return accounts
    }

    /// Whether `value` can be one value of a `key = value` line: no control character (a line
    /// break would start another key or section) and no surrounding space (it would be trimmed).
    package static func isWritable(_ value: String) -> Bool {
        !value.isEmpty && value == value.trimmingSpaces()
            && !value.unicodeScalars.contains {
                $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}"
            }
    }

    package static func render(_ accounts: [SyncAccount]) -> String {
        var out = "# todod-sync accounts, written by todoctl sync add. Passwords are not kept here.\n"
        for a in accounts {
            out += "\n[\(a.name)]\nurl = \(a.url)\nuser = \(a.user)\n"
            if let f = a.passwordFile { out += "password-file = \(f)\n" }
            if let c = a.credential { out += "credential = \(c)\n" }
            for c in a.calendars { out += "calendar = \(c)\n" }
            if a.lists { out += "lists = yes\n" }
            if let d = a.defaultList { out += "default-list = \(d)\n" }
            if let i = a.initial { out += "initial = \(i)\n" }
            if let r = a.roundLimit { out += "round-limit = \(r)\n" }
        }
        return out
    }
}

/// Where todod-sync keeps its state: `${XDG_STATE_HOME:-~/.local/state}/todod/sync/`.
package enum SyncPaths {
    package static func stateDirectory(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/todod/sync" }
        if let home = environment["HOME"], !home.isEmpty {
            return (home.hasSuffix("/") ? home : home + "/") + ".local/state/todod/sync"
        }
        return nil
    }

    /// Makes `directory` (and what is missing above it) mode 0700; todod's own directory of it
    /// (the last component, and a `todod` above it) is made 0700 even when it existed wider
    /// (`mkdir -p` with the usual umask): it holds sync.conf, password files, sync state.
    package static func makePrivateDirectory(_ directory: String) throws(PosixError) {
        try Files.makeDirectories(directory, mode: 0o700)
        let parent = Files.directory(of: directory)
        for path in parent.hasSuffix("/todod") ? [directory, parent] : [directory] {
            if let (mode, uid) = try? Files.mode(path), uid == getuid(), mode & 0o077 != 0 {
                _ = chmod(path, mode_t(mode & 0o700))
            }
        }
    }

    /// The file todod-sync holds locked while it serves the account (`sync status` tells
    /// "not running" when nobody holds it).
    package static func serviceLock(account: String, environment: [String: String]) -> String? {
        stateDirectory(environment: environment).map { "\($0)/\(account).service" }
    }

    /// The status file of an account, written by todod-sync, read by `todoctl sync status`.
    package static func statusFile(account: String, environment: [String: String]) -> String? {
        stateDirectory(environment: environment).map { "\($0)/\(account).status" }
    }

    /// The engine's own state of an account (hrefs, ETags, sync token, last synced versions);
    /// with lists, its default list's.
    package static func stateFile(account: String, environment: [String: String]) -> String? {
        stateDirectory(environment: environment).map { "\($0)/\(account).state" }
    }

    /// The state of one more list of an account (`NAME@HASH.state`, the hash of the calendar's URL).
    package static func listStateFile(account: String, calendar: String, environment: [String: String]) -> String? {
        stateDirectory(environment: environment).map { "\($0)/\(account)@\(StableHash.hex(calendar).prefix(16)).state" }
    }

    /// Which calendar is which category of an account with lists (`NAME.lists`).
    package static func listsFile(account: String, environment: [String: String]) -> String? {
        stateDirectory(environment: environment).map { "\($0)/\(account).lists" }
    }

    /// Every file of an account's state: its status, its states (all its lists'), its lists.
    package static func accountFiles(account: String, environment: [String: String]) -> [String] {
        guard let directory = stateDirectory(environment: environment) else { return [] }
        let lists = ((try? Files.entries(directory)) ?? []).filter {
            $0.hasPrefix(account + "@") && $0.hasSuffix(".state")
        }
        return [
            statusFile(account: account, environment: environment),
            stateFile(account: account, environment: environment),
            listsFile(account: account, environment: environment)
        ].compactMap { $0 } + lists.map { directory + "/" + $0 }
    }
}

/// What todod-sync last did for one account, as its status file holds it (JSON).
package struct SyncStatus: Equatable, Sendable {
    /// A field both sides changed since the last sync, and which side was kept.
    package struct Conflict: Equatable, Sendable {
        package var at: Instant
        package var uid: String
        package var title: String
        /// The todo's fields that conflicted (`title`, `due`, ...).
        package var fields: [String]
        /// `local` or `remote`: the side whose values were kept (the later LAST-MODIFIED).
        package var kept: String
        /// The values that lost, in one line (`title "Buy milk"`), when known.
        package var lost: String?
        package init(at: Instant, uid: String, title: String, fields: [String], kept: String, lost: String? = nil) {
            self.at = at
            self.uid = uid
            self.title = title
            self.fields = fields
            self.kept = kept
            self.lost = lost
        }
    }

    /// A todo or resource that does not sync (the server refused it, or todod cannot take it).
    package struct Problem: Equatable, Sendable {
        /// `refused` (the server refused a local change), `unreadable` or `rejected` (a resource
        /// on the server that todod cannot read, or whose values its rules refuse).
        package var kind: String
        package var uid: String?
        package var href: String
        /// The todo's title, or the href when none could be read.
        package var title: String
        package var reason: String
        package init(kind: String, uid: String?, href: String, title: String, reason: String) {
            self.kind = kind
            self.uid = uid
            self.href = href
            self.title = title
            self.reason = reason
        }
    }

    package var account: String
    /// The calendar collection's URL.
    package var calendar: String?
    package var lastAttempt: Instant?
    package var lastSuccess: Instant?
    /// One line saying what is wrong; nil when the last round succeeded.
    package var error: String?
    /// When the next attempt is due after a failure (backoff).
    package var retryAt: Instant?
    /// Local changes waiting to go out.
    package var pending: Int
    /// Todos in step with the calendar.
    package var items: Int
    /// The most recent conflicts, newest last (at most `maxConflicts`).
    package var conflicts: [Conflict]
    /// What does not sync now (at most `maxProblems`).
    package var problems: [Problem] = []
    /// The store the account syncs and its newest change when the last round ended: changes
    /// after it wait for the next round (`sync status` counts them as pending).
    package var storeID: String?
    package var storeSeq: Int64?
    /// The last round's time ran out with writes left (they are `pending`; the next round goes on).
    package var unfinished = false

    package static let maxConflicts = 50
    package static let maxProblems = 200

    package init(
        account: String, calendar: String? = nil, lastAttempt: Instant? = nil, lastSuccess: Instant? = nil,
        error: String? = nil,
        retryAt: Instant? = nil, pending: Int = 0, items: Int = 0, conflicts: [Conflict] = []
    ) {
        self.account = account
        self.calendar = calendar
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.error = error
        self.retryAt = retryAt
        self.pending = pending
        self.items = items
        self.conflicts = conflicts
    }

    package var json: JSON {
        func time(_ i: Instant?) -> JSON { i.map { .string($0.rfc3339()) } ?? .null }
        return [
            "account": .string(account), "calendar": calendar.map { .string($0) } ?? .null,
            "lastAttempt": time(lastAttempt), "lastSuccess": time(lastSuccess),
            "error": error.map { .string($0) } ?? .null, "retryAt": time(retryAt),
            "pending": .int(Int64(pending)), "items": .int(Int64(items)),
            "conflicts": .array(
                conflicts.map {
                    var c: JSONObject = [
                        "at": .string($0.at.rfc3339()), "uid": .string($0.uid), "title": .string($0.title),
                        "fields": .array($0.fields.map { .string($0) }), "kept": .string($0.kept)
                    ]
                    c["lost"] = $0.lost.map { .string($0) }
                    return .object(c)
                }),
            "problems": .array(
                problems.map {
                    [
                        "kind": .string($0.kind), "uid": $0.uid.map { .string($0) } ?? .null, "href": .string($0.href),
                        "title": .string($0.title), "reason": .string($0.reason)
                    ]
                }),
            "storeId": storeID.map { .string($0) } ?? .null, "storeSeq": storeSeq.map { .int($0) } ?? .null,
            "unfinished": .bool(unfinished)
        ]
    }

    /// Reads a status file's JSON; nil when it is not one.
    package init?(json: JSON) {
        func time(_ key: String, in j: JSON) -> Instant? { j[key]?.stringValue.flatMap { Instant(rfc3339: $0) } }
        guard let account = json["account"]?.stringValue else { return nil }
        self.init(
            account: account, calendar: json["calendar"]?.stringValue, lastAttempt: time("lastAttempt", in: json),
            lastSuccess: time("lastSuccess", in: json), error: json["error"]?.stringValue,
            retryAt: time("retryAt", in: json),
            pending: Int(json["pending"]?.intValue ?? 0), items: Int(json["items"]?.intValue ?? 0))
        conflicts = (json["conflicts"]?.arrayValue ?? []).compactMap { c in
            guard let at = time("at", in: c), let uid = c["uid"]?.stringValue else { return nil }
            return Conflict(
                at: at, uid: uid, title: c["title"]?.stringValue ?? "",
                fields: (c["fields"]?.arrayValue ?? []).compactMap(\.stringValue),
                kept: c["kept"]?.stringValue ?? "", lost: c["lost"]?.stringValue)
        }
        problems = (json["problems"]?.arrayValue ?? []).compactMap { p in
            guard let kind = p["kind"]?.stringValue, let href = p["href"]?.stringValue else { return nil }
            return Problem(
                kind: kind, uid: p["uid"]?.stringValue, href: href, title: p["title"]?.stringValue ?? href,
                reason: p["reason"]?.stringValue ?? "")
        }
        storeID = json["storeId"]?.stringValue
        storeSeq = json["storeSeq"]?.intValue
        unfinished = json["unfinished"]?.boolValue ?? false
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
