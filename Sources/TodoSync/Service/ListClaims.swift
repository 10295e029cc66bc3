import TodoCore
import TodoPosix
import TodoUserFiles

/// The lists the other accounts of this store (their `NAME.lists`) already are, as one account
/// with lists sees them when it names its own: a category is one account's list, never two
/// accounts' (its todos would go to both servers), so a calendar whose display name another
/// account's list has is the category `NAME (ACCOUNT)`, and only one account's default
/// calendar holds the todos without a category.
struct ListClaims {
    /// This account's name (the suffix of a name that clashes).
    let account: String
    /// The categories other accounts' lists are, by name and by id.
    var names: Set<String> = []
    var ids: Set<Int64> = []
    /// Whether another account's default calendar holds the todos without a category.
    var uncategorizedElsewhere = false
    /// Whether this account is the first of sync.conf that can hold the todos without a
    /// category: the first with `lists = yes`, and no account without lists before it (that one
    /// is a copy of the whole store, and they are its).
    var first = true
    /// Whether another account of sync.conf has lists too (only then do accounts take turns).
    var shared = false

    /// The claims of every other account with lists in sync.conf (sync.conf unreadable: none).
    static func load(account: String, environment: [String: String]) -> ListClaims {
        var claims = ListClaims(account: account)
        let accounts = (try? SyncConfig.load(environment: environment)) ?? []
        let withLists = accounts.filter(\.lists).map(\.name)
        let before = accounts.prefix { $0.name != account }
        claims.first = (withLists.first.map { $0 == account } ?? true) && !before.contains { !$0.lists }
        for other in withLists where other != account {
            claims.shared = true
            guard let path = SyncPaths.listsFile(account: other, environment: environment),
                Posix.exists(path)
            else { continue }
            let map = ListMap.load(path)
            if map.uncategorized && map.defaultURL != nil { claims.uncategorizedElsewhere = true }
            // The category of its default calendar's name lives there.
            if map.uncategorized, let name = map.defaultName { claims.names.insert(name) }
            for list in map.lists {
                claims.names.insert(list.name)
                if let id = list.category { claims.ids.insert(id) }
            }
        }
        return claims
    }

    /// Whether `category` is another account's list (by id: a rename here keeps it theirs).
    func claims(_ category: TodoCore.Category) -> Bool {
        ids.contains(category.id) || names.contains(category.name)
    }

    /// Whether the category name `name` is taken by another account's list (`categories`: this
    /// store's, whose ids tell a list renamed here).
    func takes(_ name: String, categories: [TodoCore.Category]) -> Bool {
        names.contains(name) || categories.contains { $0.name == name && ids.contains($0.id) }
    }

    /// Whether this account's default calendar holds the todos without a category: as its map
    /// says once it has one (a role never moves by itself: the calendar's todos would move);
    /// on its first round, when no other account's does and it is the first with lists, no
    /// account without lists before it.
    func holdsUncategorized(map: ListMap, firstRound: Bool) -> Bool {
        firstRound ? (!uncategorizedElsewhere && first) : map.uncategorized
    }

    /// The category's name for a calendar named `displayName` of this account: the name itself,
    /// or `NAME (ACCOUNT)` where another account's list has it.
    func name(for displayName: String, categories: [TodoCore.Category]) -> String {
        takes(displayName, categories: categories) ? "\(displayName) (\(account))" : displayName
    }

    /// The calendar's display name for the category `name` (renamed here): without this
    /// account's suffix where the name without it is another account's list (the suffix only
    /// tells them apart in this store, as another store names it again), else `name` itself.
    func displayName(for name: String, categories: [TodoCore.Category]) -> String {
        let suffix = " (\(account))"
        guard name.hasSuffix(suffix), name.count > suffix.count else { return name }
        let bare = String(name.dropLast(suffix.count))
        return takes(bare, categories: categories) ? bare : name
    }

    /// The store's lock of list naming (`lists.lock` in the state directory), taken while one
    /// account names its lists when several accounts have lists, so two rounds at once never
    /// take one name; nil when only this account has lists.
    func lock(environment: [String: String]) throws(SyncError) -> FileLock? {
        guard shared, let directory = SyncPaths.stateDirectory(environment: environment) else { return nil }
        let path = directory + "/lists.lock"
        let lock: FileLock?
        do { lock = try FileLock(path: path, timeout: 600) } catch { throw SyncError("cannot lock \(path): \(error)") }
        guard let lock else { throw SyncError("another account's round held \(path) for 600 s") }
        return lock
    }
}
