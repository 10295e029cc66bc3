import TodoCore
import TodoProtocol
import TodoRPC
import TodoUserFiles

/// What the shell completions ask todoctl for (`todoctl [--socket PATH | --system] __complete
/// WHAT [PREFIX]`; not a command, not in the help), read from every todo rather than from the
/// first page of a JSON listing that a shell script would have to pick apart:
/// - `ids [--open | --done | --all] [PREFIX]`: the ids starting with PREFIX, each with a tab and
///   its title on one line (at most `maxIDs`, in manual order);
/// - `tags [PREFIX]`: the tags in use starting with PREFIX, one per line, sorted.
/// Nothing at all (and exit 0) when the daemon cannot be reached: no suggestions.
enum CompletionWords {
    /// The hidden argument.
    static let argument = "__complete"
    /// The most ids offered: typing a digit more narrows them.
    static let maxIDs = 1000

    /// Where `argument` stands in `arguments` (after the connection options only), or nil.
    static func index(_ arguments: [String]) -> Int? {
        guard let index = Config.commandIndex(arguments), arguments[index] == argument else { return nil }
        return index
    }

    /// The socket the connection options before the argument name.
    static func socket(_ options: ArraySlice<String>, environment: [String: String], uid: UInt32) -> String {
        var flag: String?
        var system = false
        var i = options.startIndex
        while i < options.endIndex {
            let option = options[i]
            if option == "--system" { system = true }
            if option == "--socket", i + 1 < options.endIndex {
                flag = options[i + 1]
                i += 1
            }
            if option.hasPrefix("--socket=") { flag = String(option.dropFirst("--socket=".count)) }
            i += 1
        }
        return SocketPaths.socket(flag: flag, system: system, environment: environment, uid: uid)
    }

    /// The lines for `words` (what follows the argument), read from `transport`.
    static func lines(_ words: ArraySlice<String>, transport: any RPCTransport) throws(ClientError) -> [String] {
        var words = Array(words)
        guard let what = words.first else { return [] }
        words.removeFirst()
        var query = TodoQuery()
        query.status = .all
        if let status = words.first, status.hasPrefix("--") {
            query.status = status == "--open" ? .open : status == "--done" ? .done : .all
            words.removeFirst()
        }
        let prefix = words.first ?? ""
        var lines: [String] = []
        switch what {
        case "ids":
            _ = try transport.list(query) { item, _ throws(ClientError) in
                guard lines.count < maxIDs, let id = item["id"]?.intValue, String(id).hasPrefix(prefix) else { return }
                let title = Table.oneLine(item["title"]?.stringValue ?? "").replacing("\t", with: " ")
                lines.append("\(id)\t\(title)")
            }
        case "tags":
            var seen: Set<String> = []
            _ = try transport.list(query) { item, _ throws(ClientError) in
                for tag in item["tags"]?.arrayValue ?? [] {
                    guard let tag = tag.stringValue, tag.hasPrefix(prefix), !tag.contains("\n") else { continue }
                    seen.insert(tag)
                }
            }
            lines = seen.sorted()
        default:
            break
        }
        return lines
    }
}
