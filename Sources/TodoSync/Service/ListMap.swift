import TodoPosix
import TodoProtocol

/// Which calendar is which list of an account (`NAME.lists`, JSON): the default list's URL,
/// whether that calendar holds the store's todos without a category, and each other calendar
/// with the category's name here, the calendar's display name both sides last agreed on, and the
/// category's id (a rename on either side is told from them).
struct ListMap: Equatable {
    struct List: Equatable {
        var url: String
        /// The category's name in this store (`Tasks (work)` where another account has a `Tasks`).
        var name: String
        /// The calendar's display name when both sides last agreed (`Tasks`).
        var displayName: String
        var category: Int64?
        /// Its category was removed here and its calendar stays on the server (it holds other
        /// clients' todos, or the server refused): it is not synced until a category of its name
        /// is there again.
        var removed = false

        init(url: String, name: String, displayName: String? = nil, category: Int64?) {
            self.url = url
            self.name = name
            self.displayName = displayName ?? name
            self.category = category
        }
    }
    var defaultURL: String?
    /// Whether the default calendar holds the todos without a category. One account of a store
    /// does (the first with lists in sync.conf); another account's default calendar is a list.
    var uncategorized = true
    /// The default calendar's display name when it holds the todos without a category: the
    /// category of that name lives in it too (its todos carry `X-TODOD-CATEGORY`).
    var defaultName: String?
    /// The store's id and newest change when its subtasks were last put in their topmost
    /// parent's list (`ListSync.alignSubtasks`): unchanged since, nothing to do.
    var alignedAt: String?
    var lists: [List] = []

    /// The map at `path`; an empty one where there is none or it cannot be read. A map written
    /// before accounts shared a store names no `uncategorized`: its default list held them.
    static func load(_ path: String) -> ListMap {
        guard let bytes = try? Files.contents(of: path, maxBytes: 1 << 22), let json = try? JSON.parse(bytes) else {
            return ListMap()
        }
        var map = ListMap(defaultURL: json["default"]?.stringValue)
        map.uncategorized = json["uncategorized"]?.boolValue ?? true
        map.defaultName = json["defaultName"]?.stringValue
        map.alignedAt = json["alignedAt"]?.stringValue
        for item in json["lists"]?.arrayValue ?? [] {
            guard let url = item["url"]?.stringValue, let name = item["name"]?.stringValue else { continue }
            var list = List(
                url: url, name: name, displayName: item["displayName"]?.stringValue,
                category: item["category"]?.intValue)
            list.removed = item["removed"]?.boolValue ?? false
            map.lists.append(list)
        }
        return map
    }

    func save(_ path: String) throws(SyncError) {
        let lists: [JSON] = lists.map { l in
            .object([
                "url": .string(l.url), "name": .string(l.name), "displayName": .string(l.displayName),
                "category": l.category.map { .int($0) } ?? .null, "removed": .bool(l.removed)
            ])
        }
        var bytes: [UInt8] = []
        JSON.object([
            "default": defaultURL.map { .string($0) } ?? .null, "uncategorized": .bool(uncategorized),
            "defaultName": defaultName.map { .string($0) } ?? .null,
            "alignedAt": alignedAt.map { .string($0) } ?? .null,
            "lists": .array(lists)
        ]).write(to: &bytes)
        bytes.append(0x0A)
        do { try AtomicFile.write(path, bytes, mode: 0o600) } catch {
            throw SyncError("cannot write \(path): \(error)")
        }
    }
}
