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
    var lists: [List] = []

    /// The map at `path`; an empty one where there is none or it cannot be read. A map written
    /// before accounts shared a store names no `uncategorized`: its default list held them.
    static func load(_ path: String) -> ListMap {
        guard let bytes = try? Files.contents(of: path, maxBytes: 1 << 22), let json = try? JSON.parse(bytes) else {
            return ListMap()
        }
        var map = ListMap(defaultURL: json["default"]?.stringValue)
        map.uncategorized = json["uncategorized"]?.boolValue ?? true
        for item in json["lists"]?.arrayValue ?? [] {
            guard let url = item["url"]?.stringValue, let name = item["name"]?.stringValue else { continue }
            map.lists.append(List(url: url, name: name, displayName: item["displayName"]?.stringValue,
                                  category: item["category"]?.intValue))
        }
        return map
    }

    func save(_ path: String) throws(SyncError) {
        let lists: [JSON] = lists.map { l in
            .object(["url": .string(l.url), "name": .string(l.name), "displayName": .string(l.displayName),
                     "category": l.category.map { .int($0) } ?? .null])
        }
        var bytes: [UInt8] = []
        JSON.object(["default": defaultURL.map { .string($0) } ?? .null, "uncategorized": .bool(uncategorized),
                     "lists": .array(lists)]).write(to: &bytes)
        bytes.append(0x0A)
        do { try AtomicFile.write(path, bytes, mode: 0o600) } catch {
            throw SyncError("cannot write \(path): \(error)")
        }
    }
}
