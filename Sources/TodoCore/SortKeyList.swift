extension TodoQuery.SortKey {
    /// A sort key that is not one, as written.
    package struct Unknown: Error, Equatable, Sendable {
        package var key: String
    }

    /// Comma-separated sort keys (`-updated,title`: a leading - sorts descending), as `--sort`
    /// and the config file's `sort` give them, or the first part that is not a key.
    package static func list(_ text: String) -> Result<[TodoQuery.SortKey], Unknown> {
        var keys: [TodoQuery.SortKey] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let descending = part.hasPrefix("-")
            let name = String(descending ? part.dropFirst() : part)
            guard let field = TodoQuery.SortField(rawValue: name) else { return .failure(Unknown(key: String(part))) }
            keys.append(TodoQuery.SortKey(field, descending: descending))
        }
        return .success(keys)
    }

    /// The key names for messages: `id, title, ...`.
    package static var names: String { TodoQuery.SortField.allCases.map(\.rawValue).joined(separator: ", ") }
}
