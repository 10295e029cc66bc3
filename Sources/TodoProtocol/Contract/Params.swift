import TodoCore

/// Reads a request's params, each failure a -32602 error naming the field. Call `finish()` last:
/// any member nobody asked for is refused, so a misspelt field never passes silently.
package struct Params {
    package let object: JSONObject
    /// Which of the first 64 of `object.pairs` were read, one bit each. No method has that many
    /// parameters, so an object with more members has an unknown one among its first 64, and
    /// the first unknown member always falls within them.
    private var used: UInt64 = 0

    package init(_ object: JSONObject) {
        self.object = object
    }

    private mutating func take(_ key: String) -> JSON? {
        guard let i = object.pairs.firstIndex(where: { $0.key == key }) else { return nil }
        if i < 64 { used |= 1 << UInt64(i) }
        return object.pairs[i].value
    }

    /// A required string.
    package mutating func string(_ key: String) throws(RPCError) -> String {
        guard let value = take(key) else { throw RPCError.invalidParams(key, "is required") }
        guard case .string(let s) = value else {
            throw RPCError.invalidParams(key, "must be a string, not \(value.typeName)")
        }
        return s
    }

    /// A string that may be absent or null.
    package mutating func optionalString(_ key: String) throws(RPCError) -> String? {
        switch take(key) {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw RPCError.invalidParams(key, "must be a string, not \(other.typeName)")
        }
    }

    /// A required integer in `range`.
    package mutating func int(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max) throws(RPCError)
        -> Int64
    {
        guard let value = take(key) else { throw RPCError.invalidParams(key, "is required") }
        return try Params.integer(value, key, range)
    }

    /// An integer that may be absent or null.
    package mutating func optionalInt(_ key: String, in range: ClosedRange<Int64> = Int64.min...Int64.max)
        throws(RPCError) -> Int64?
    {
        switch take(key) {
        case nil, .null?: return nil
        case let value?: return try Params.integer(value, key, range)
        }
    }

    static func integer(_ value: JSON, _ key: String, _ range: ClosedRange<Int64>) throws(RPCError) -> Int64 {
        let i: Int64
        switch value {
        case .int(let v): i = v
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: i = Int64(d)
        default: throw RPCError.invalidParams(key, "must be an integer, not \(value.typeName)")
        }
        guard range.contains(i) else {
            throw RPCError.invalidParams(
                key,
                range.upperBound == Int64.max
                    ? "must be at least \(range.lowerBound)"
                    : "must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return i
    }

    /// A boolean that defaults to false when absent or null.
    package mutating func flag(_ key: String) throws(RPCError) -> Bool {
        switch take(key) {
        case nil, .null?: return false
        case .bool(let b)?: return b
        case let other?: throw RPCError.invalidParams(key, "must be a boolean, not \(other.typeName)")
        }
    }

    /// An RFC 3339 instant that may be absent or null.
    package mutating func optionalInstant(_ key: String) throws(RPCError) -> Instant? {
        guard let text = try optionalString(key) else { return nil }
        return try Params.instantValue(text, key)
    }

    /// A required RFC 3339 instant.
    package mutating func instant(_ key: String) throws(RPCError) -> Instant {
        try Params.instantValue(try string(key), key)
    }

    /// Reads an RFC 3339 instant, or fails naming `key`.
    package static func instantValue(_ text: String, _ key: String) throws(RPCError) -> Instant {
        guard let instant = Instant(rfc3339: text) else {
            if Instant.isOutOfRangeRFC3339(text) {
                throw RPCError.invalidParams(
                    key,
                    "must fall within the years 0001 to 9999 UTC once its offset is applied, not \"\(text.prefix(40))\""
                )
            }
            throw RPCError.invalidParams(
                key,
                "must be an RFC 3339 instant like 2026-12-01T09:00:00Z within the years 0001 to 9999 UTC, not \"\(text.prefix(40))\""
            )
        }
        return instant
    }

    /// An update field: absent keeps, null clears, a value sets.
    package mutating func change<T>(_ key: String, _ convert: (String) throws(RPCError) -> T) throws(RPCError)
        -> FieldChange<T>
    {
        switch take(key) {
        case nil: return .keep
        case .null?: return .clear
        case .string(let s)?: return .set(try convert(s))
        case let other?: throw RPCError.invalidParams(key, "must be a string or null, not \(other.typeName)")
        }
    }

    /// A required non-empty array of todo ids.
    package mutating func ids(_ key: String) throws(RPCError) -> [Int64] {
        guard let value = take(key) else { throw RPCError.invalidParams(key, "is required") }
        guard case .array(let items) = value else {
            throw RPCError.invalidParams(key, "must be an array of ids, not \(value.typeName)")
        }
        guard !items.isEmpty else { throw RPCError.invalidParams(key, "must name at least one todo") }
        guard items.count <= 10_000 else { throw RPCError.invalidParams(key, "may name at most 10000 todos") }
        var ids: [Int64] = []
        for (i, item) in items.enumerated() { ids.append(try Params.integer(item, "\(key)[\(i)]", 1...Int64.max)) }
        return ids
    }

    /// The raw value of a member, marking it as read.
    package mutating func raw(_ key: String) -> JSON? { take(key) }

    /// Whether the member is present (even as null).
    package func has(_ key: String) -> Bool { object[key] != nil }

    /// Refuses members that were never read.
    package func finish() throws(RPCError) {
        let unread = (~used).trailingZeroBitCount // the first member not read
        if unread < object.pairs.count {
            throw RPCError.invalidParams(object.pairs[unread].key, "is not a parameter of this method")
        }
    }
}
