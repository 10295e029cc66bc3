import TodoCore
import TodoPosix
import TodoProtocol
import TodoTime

/// `import --from taskwarrior|todotxt`: another tool's file, converted by todoctl into the export
/// document the daemon already imports, with a report of what had no counterpart in todod.
package enum ImportSource: String, Sendable, Equatable, CaseIterable {
    case taskwarrior
    case todotxt
}

/// A foreign file converted: the document to send, the report lines (each one sentence) and the
/// entries refused ("line 7: …", one each; the others are imported).
struct ForeignImport: Sendable, Equatable {
    var document: ExportDocument
    var unmapped: [String]
    var refused: [String] = []

    /// Where the converters read local dates and which zone name they give the todos.
    struct Context: Sendable {
        var zone: ZoneInfo
        var zoneName: String?
        var now: Instant
    }

    /// Reads `path` (`-`: standard input) and converts it; every problem is one `.input` line
    /// naming the file and the line or entry, and nothing is converted then.
    static func read(
        _ path: String, from source: ImportSource, context: Context,
        readStdin: () throws(PosixError) -> [UInt8]
    ) throws(CLIFailure) -> ForeignImport {
        let name = path == "-" ? "standard input" : path
        let bytes: [UInt8]
        do {
            bytes = try path == "-" ? readStdin() : Files.contents(of: path)
        } catch {
            throw .input("cannot read \(name): \(error.reason)")
        }
        do {
            switch source {
            case .taskwarrior: return try TaskwarriorImport(context: context).convert(bytes)
            case .todotxt: return TodotxtImport.convert(bytes, context: context)
            }
        } catch {
            throw .input("\(name): \(error.message); nothing was imported")
        }
    }

    /// Category names in the order the todos first name them (case-insensitively distinct).
    static func categories(_ todos: [ExportDocument.Entry]) -> [String] {
        var seen: Set<String> = []
        return todos.compactMap { e in e.category.flatMap { seen.insert($0.lowercased()).inserted ? $0 : nil } }
    }

    /// "3 tasks (Buy milk, 牛乳, Call Bob)": a count and the first few titles, for report lines.
    static func some(_ titles: [String], _ noun: String) -> String {
        let shown = titles.prefix(3).map { Table.oneLine($0) }.joined(separator: ", ")
        return "\(titles.count) \(noun)\(titles.count == 1 ? "" : "s") (\(shown)\(titles.count > 3 ? ", …" : ""))"
    }
}

/// A line or entry of a foreign file that cannot be read.
struct ForeignImportError: Error, Sendable, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}
