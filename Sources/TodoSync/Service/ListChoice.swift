import TodoCalDAV

/// Which calendar of an account with lists is its default list, the one whose todos have no
/// category here. In this order: the first `calendar` line of sync.conf; the one chosen before
/// (the account's `NAME.lists`); `default-list` (`sync add --default-list NAME`); the only list;
/// the server's own default (`schedule-default-calendar-URL`, RFC 6638), unless todod made it
/// (DAViCal names those); a calendar named as task apps name theirs (`Tasks`, `Reminders`,
/// `personal`, `My Tasks`, `タスク`, `マイタスク`, `リマインダー`, in that order). Else none is
/// guessed: the error names `--default-list`. Never "the smallest URL": a phone's 買い物 list would
/// become "no category".
enum ListChoice {
    /// The display names task apps and servers give their default list, most likely first.
    static let usualNames = ["Tasks", "Reminders", "personal", "My Tasks", "タスク", "マイタスク", "リマインダー"]

    /// The default list among `found` (the account's lists). `serverDefault` is asked only when
    /// the steps before it chose nothing.
    static func choose(
        _ found: [CalendarInfo], named: [String], previous: String?, configured: String?,
        serverDefault: () -> String?
    ) throws(SyncError) -> String {
        if !named.isEmpty, let first = found.first { return first.url }
        if let previous, found.contains(where: { $0.url == previous }) { return previous }
        if let configured {
            guard let match = find(configured, in: found) else {
                throw SyncError(
                    "the default list \(configured) is none of the account's task lists (\(names(found))); "
                        + "name one with --default-list NAME (default-list = NAME in sync.conf)")
            }
            return match.url
        }
        if found.count == 1 { return found[0].url }
        guard !found.isEmpty else {
            throw SyncError("no calendar holding todos (VTODO); make one, or name it with --calendar")
        }
        if let server = serverDefault(), !madeByTodod(server),
            let match = found.first(where: { CalendarChoice.path(of: $0.url) == CalendarChoice.path(of: server) })
        {
            return match.url
        }
        for usual in usualNames {
            let matches = found.filter { ListSync.displayName($0.displayName).lowercased() == usual.lowercased() }
            if let first = matches.min(by: { $0.url < $1.url }) { return first.url }
        }
        throw SyncError(
            "the account has several task lists (\(names(found))) and none is its default: name the one for todos "
                + "without a category with --default-list NAME (default-list = NAME in sync.conf)")
    }

    /// The list `wanted` names: by display name, else by URL or path.
    static func find(_ wanted: String, in found: [CalendarInfo]) -> CalendarInfo? {
        if let byName = found.first(where: { ListSync.displayName($0.displayName) == wanted }) { return byName }
        let slashed = wanted.hasSuffix("/") ? wanted : wanted + "/"
        return found.first {
            $0.url == wanted || $0.url == slashed || CalendarChoice.path(of: $0.url) == CalendarChoice.path(of: slashed)
        }
    }

    /// Whether todod made the calendar at `url` for a list (`todod-HASH/`).
    static func madeByTodod(_ url: String) -> Bool {
        CalendarChoice.path(of: url).split(separator: "/").last?.hasPrefix("todod-") ?? false
    }

    /// The lists' display names, for an error line (the first ten).
    static func names(_ found: [CalendarInfo]) -> String {
        let names = found.prefix(10).map { ListSync.displayName($0.displayName) }.joined(separator: ", ")
        return found.count > 10 ? names + " and \(found.count - 10) more" : names
    }
}
