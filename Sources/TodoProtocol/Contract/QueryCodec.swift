import TodoCore

/// `todo.list` params, read by the daemon and written by clients from the same definition.
extension TodoQuery {
    /// Reads `todo.list` params; each mistake is a -32602 error naming the field.
    package init(params p: inout Params) throws(RPCError) {
        self.init()
        if let status = try p.optionalString("status") {
            guard let s = Status(rawValue: status) else {
                throw RPCError.invalidParams("status", "must be open, done or all")
            }
            self.status = s
        }
        category = try p.optionalString("category")
        uncategorized = try p.flag("uncategorized")
        subcategories = try p.flag("subcategories")
        overdue = try p.flag("overdue")
        dueBefore = try p.optionalInstant("dueBefore")
        dueAfter = try p.optionalInstant("dueAfter")
        search = try p.optionalString("search")
        if let mode = try p.optionalString("searchMode") {
            guard let m = SearchMode(rawValue: mode) else {
                throw RPCError.invalidParams("searchMode", "must be folded or exact")
            }
            guard search != nil else { throw RPCError.invalidParams("searchMode", "needs search") }
            searchMode = m
        }
        tags = try p.strings("tags", max: Validation.maxTags)
        priority = try p.optionalPriority("priority")
        recurring = try p.optionalFlag("recurring")
        parent = try p.optionalInt("parent", in: 1...Int64.max)
        ready = try p.flag("ready")
        startBefore = try p.optionalInstant("startBefore")
        startAfter = try p.optionalInstant("startAfter")
        tree = try p.flag("tree")
        if let keys = p.raw("sort"), keys != .null {
            guard case .array(let items) = keys else {
                throw RPCError.invalidParams("sort", "must be an array of {key, descending}")
            }
            // Each key may appear once, so there are never more keys than fields to sort by.
            guard items.count <= SortField.allCases.count else {
                throw RPCError.invalidParams("sort", "takes at most \(SortField.allCases.count) keys, each once")
            }
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item else {
                    throw RPCError.invalidParams("sort[\(i)]", "must be an object")
                }
                let key: SortKey
                do throws(RPCError) {
                    var k = Params(o)
                    let name = try k.string("key")
                    guard let field = SortField(rawValue: name) else {
                        throw RPCError.invalidParams(
                            "key", "must be one of \(SortField.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    key = SortKey(field, descending: try k.flag("descending"))
                    try k.finish()
                } catch {
                    throw error.nested(under: "sort[\(i)].")
                }
                guard !sort.contains(where: { $0.field == key.field }) else {
                    throw RPCError.invalidParams("sort", "names the key \(key.field.rawValue) twice")
                }
                sort.append(key)
            }
        }
        limit = try p.optionalInt("limit", in: 0...Int64(TodoQuery.maxLimit)).map(Int.init)
        offset = Int(try p.optionalInt("offset", in: 0...Int64(Int32.max)) ?? 0)
        let after = try p.optionalInt("after", in: 1...Int64.max)
        let before = try p.optionalInt("before", in: 1...Int64.max)
        let fromEnd = try p.flag("fromEnd")
        if let after {
            guard before == nil else { throw RPCError.invalidParams("before", "cannot be combined with after") }
            seek = Seek(after: after)
        } else if let before {
            seek = Seek(before: before)
        }
        if fromEnd {
            guard seek == nil else {
                throw RPCError.invalidParams("fromEnd", "cannot be combined with after or before")
            }
            seek = .end
        }
        withOffset = try p.flag("withOffset")
        if seek != nil {
            guard offset == 0 else {
                throw RPCError.invalidParams("offset", "cannot be combined with after, before or fromEnd")
            }
            guard !tree else {
                throw RPCError.invalidParams("tree", "cannot be combined with after, before or fromEnd")
            }
        } else if withOffset {
            throw RPCError.invalidParams("withOffset", "needs after, before or fromEnd")
        }
    }

    /// The `todo.list` params asking for this query (defaults left out).
    package var params: JSONObject {
        var p: JSONObject = ["status": .string(status.rawValue)]
        if let category { p["category"] = .string(category) }
        if uncategorized { p["uncategorized"] = .bool(true) }
        if subcategories { p["subcategories"] = .bool(true) }
        if overdue { p["overdue"] = .bool(true) }
        if let dueBefore { p["dueBefore"] = JSON(dueBefore) }
        if let dueAfter { p["dueAfter"] = JSON(dueAfter) }
        if let search { p["search"] = .string(search) }
        if searchMode != .folded { p["searchMode"] = .string(searchMode.rawValue) }
        if !tags.isEmpty { p["tags"] = JSON(tags) }
        if let priority { p["priority"] = JSON(priority) }
        if let recurring { p["recurring"] = .bool(recurring) }
        if let parent { p["parent"] = .int(parent) }
        if ready { p["ready"] = .bool(true) }
        if let startBefore { p["startBefore"] = JSON(startBefore) }
        if let startAfter { p["startAfter"] = JSON(startAfter) }
        if tree { p["tree"] = .bool(true) }
        if !sort.isEmpty {
            p["sort"] = .array(
                sort.map { .object(["key": .string($0.field.rawValue), "descending": .bool($0.descending)]) })
        }
        if let limit { p["limit"] = .int(Int64(limit)) }
        if offset != 0 { p["offset"] = .int(Int64(offset)) }
        if let seek {
            if let id = seek.id {
                p[seek.before ? "before" : "after"] = .int(id)
            } else if seek.before {
                p["fromEnd"] = .bool(true)
            }
        }
        if withOffset { p["withOffset"] = .bool(true) }
        return p
    }

    /// Whether any filter narrows the listing beyond its status.
    package var isFiltered: Bool {
        category != nil || uncategorized || overdue || dueBefore != nil || dueAfter != nil || search != nil
            || !tags.isEmpty || priority != nil || recurring != nil || parent != nil || ready || startBefore != nil
            || startAfter != nil
    }
}
