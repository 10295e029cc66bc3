import TodoCore
import TodoWhen
import TodoTime

/// A todo.txt file as an export document: `x` done with its completion date, `(A)`/`(B)`/`(C)`
/// priority high/medium/low, the creation date, `+project` as tag `project` and `@context` as
/// tag `@context`, `due:YYYY-MM-DD` an all-day due, `pri:X` (kept by some clients on done tasks)
/// the priority; every other `key:value` stays in the notes. A line's uid is made from its creation
/// date and text (not its `x`, completion date or priority), so importing the same file again
/// changes nothing, and a line completed since updates its todo.
struct TodotxtImport {
    let context: ForeignImport.Context

    func convert(_ bytes: [UInt8]) throws(ForeignImportError) -> ForeignImport {
        var todos: [ExportDocument.Entry] = []
        var kept: [String: Int] = [:], lowPriorities: Set<String> = []
        var uids: [String: Int] = [:]
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        for (i, raw) in bytes[start...].split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard let line = String(validating: raw.last == 0x0D ? raw.dropLast() : raw, as: UTF8.self) else {
                throw ForeignImportError("line \(i + 1): not valid UTF-8")
            }
            guard line.contains(where: { !$0.isWhitespace }) else { continue }
            var (e, keys, letter, identity) = try entry(line, number: i + 1)
            if let letter { lowPriorities.insert(letter) }
            for key in keys { kept[key, default: 0] += 1 }
            let uid = "todotxt-" + StableHash.hex(identity)
            let seen = uids[uid, default: 0] + 1
            uids[uid] = seen
            e.uid = seen == 1 ? uid : uid + "-\(seen)"
            todos.append(e)
        }
        var unmapped: [String] = []
        if !lowPriorities.isEmpty {
            unmapped.append("priorities \(lowPriorities.sorted().joined(separator: ", ")) imported as low (todod has high, medium and low)")
        }
        for (key, n) in kept.sorted(by: { $0.key < $1.key }) {
            unmapped.append("\(key): (\(n) line\(n == 1 ? "" : "s")) has no counterpart: kept in the notes")
        }
        return ForeignImport(document: ExportDocument(categories: [], todos: todos, exported: context.now), unmapped: unmapped)
    }

    /// One todo.txt line: the entry, the keys kept in its notes, its priority letter past C, and
    /// what names it across edits in todo.sh (the creation date and the text).
    func entry(_ line: String, number: Int) throws(ForeignImportError) -> (ExportDocument.Entry, [String], String?, String) {
        func fail(_ what: String) -> ForeignImportError { ForeignImportError("line \(number): \(what)") }
        var words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var done = false, completed: Instant?, created: Instant?, priority: TodoPriority?, beyond: String?
        func date(_ word: String, _ what: String) throws(ForeignImportError) -> Instant? {
            guard Self.looksLikeDate(word) else { return nil }
            guard let days = Self.days(word), let i = LocalTime.instant(days: days, secondOfDay: 0, in: context.zone) else {
                throw fail("invalid \(what) \(TimeExpression.quoted(word))")
            }
            return i
        }
        func letter(_ l: Character) {
            switch l {
            case "A": priority = .high
            case "B": priority = .medium
            case "C": priority = .low
            default: priority = .low; beyond = String(l)
            }
        }
        if words.first == "x" {
            done = true
            words.removeFirst()
            if let first = words.first, let c = try date(first, "completion date") {
                completed = c
                words.removeFirst()
                if let next = words.first, let d = try date(next, "creation date") { created = d; words.removeFirst() }
            }
        } else if let first = words.first, first.count == 3, first.hasPrefix("("), first.hasSuffix(")"),
                  let l = first.dropFirst().first, l.isASCII, l.isUppercase {
            letter(l)
            words.removeFirst()
        }
        if !done, let first = words.first, let d = try date(first, "creation date") { created = d; words.removeFirst() }
        let identity = (created.map { LocalTime.dateText(days: LocalTime($0, in: context.zone).days) + " " } ?? "") + words.joined(separator: " ")
        var title: [String] = [], tags: [String] = [], notes: [String] = [], keys: [String] = []
        var due: Instant?
        for word in words {
            if word.count > 1, word.hasPrefix("+") { tags.append(String(word.dropFirst())); continue }
            if word.count > 1, word.hasPrefix("@") { tags.append(word); continue }
            if let colon = word.firstIndex(of: ":"), colon != word.startIndex, word.index(after: colon) != word.endIndex,
               !word[word.index(after: colon)...].hasPrefix("/") {
                let key = String(word[..<colon]), value = String(word[word.index(after: colon)...])
                switch key {
                case "due":
                    guard let days = Self.days(value), let d = LocalTime.instant(days: days, secondOfDay: 0, in: context.zone) else {
                        throw fail("invalid due date \(TimeExpression.quoted(value)) (expected YYYY-MM-DD)")
                    }
                    due = d
                case "pri" where value.count == 1 && value.allSatisfy({ $0.isASCII && $0.isUppercase }):
                    letter(Character(value))
                default:
                    notes.append(word)
                    keys.append(key)
                }
                continue
            }
            title.append(word)
        }
        let made = created ?? completed ?? context.now
        // A completion is newer than the open line it replaces, even on its creation day.
        let finished = completed.map { max($0, made.adding(usec: 1_000_000)) } ?? made
        var e = ExportDocument.Entry(title: "", done: done, completed: done ? (completed ?? made) : nil,
                                     created: made, updated: done ? finished : made, priority: priority)
        do throws(TodoError) {
            // A line of nothing but tags and keys keeps them as its title.
            e.title = try Validation.title(title.isEmpty ? words.joined(separator: " ") : title.joined(separator: " "))
            e.tags = try Validation.tags(tags)
            if !notes.isEmpty { e.notes = try Validation.notes(notes.joined(separator: "\n")) }
        } catch {
            throw fail("\(error)")
        }
        if let due {
            e.due = due
            e.allDay = true
            e.zone = context.zoneName
        }
        return (e, keys, beyond, identity)
    }

    /// `YYYY-MM-DD` in shape (ten characters, digits and two dashes), valid or not.
    static func looksLikeDate(_ word: String) -> Bool {
        let b = Array(word.utf8)
        return b.count == 10 && b[4] == 0x2D && b[7] == 0x2D && b.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (0x30...0x39).contains($0.element) }
    }

    /// The day of a `YYYY-MM-DD` date, nil when it does not exist.
    static func days(_ word: String) -> Int64? {
        guard looksLikeDate(word) else { return nil }
        let parts = word.split(separator: "-").compactMap { Int64($0) }
        return Instant.days(year: parts[0], month: parts[1], day: parts[2])
    }
}
