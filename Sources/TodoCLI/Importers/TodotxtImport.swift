import TodoCore
import TodoTime
import TodoWhen

/// todo.txt lines as export entries: `x` done with its completion date, `(A)`/`(B)`/`(C)`
/// priority high/medium/low, the creation date, `+project` as tag `project` and `@context` as
/// tag `@context`, `due:YYYY-MM-DD` an all-day due, `pri:X` (kept by some clients on done tasks)
/// the priority, `uid:` the todo's uid; every other `key:value` (the key starting with a letter)
/// stays in the notes.
///
/// Identity: a line with `uid:` (every line `export --format todotxt` writes) is the todo of that
/// uid; a line without one gets a uid made from its creation date and text (not its `x`,
/// completion date or priority). A line naming a todo the store has updates it with what the
/// line says and keeps what todo.txt cannot say (the due's time, notes, reminders, repeat rule,
/// the category written as `+Category`); a line that says what the store holds changes nothing.
/// A bad line is refused (listed with its number) and the others are read.
struct TodotxtImport {
    let context: ForeignImport.Context
    /// The store's todos: the hash of each uid, with the hashes of what the line the export
    /// writes for it says (`Line.said`), with its creation date and without.
    var known: [UInt64: (dated: UInt64, undated: UInt64)] = [:]
    /// "line 7: invalid due date …": the lines refused, in order.
    private(set) var refused: [String] = []
    private var kept: [String: Int] = [:], lowPriorities: Set<String> = []
    /// How often each uid was given (by its 64-bit hash: a million lines take little memory).
    private var given: [UInt64: Int] = [:]

    init(context: ForeignImport.Context) {
        self.context = context
    }

    /// What a line is to the store.
    enum Outcome {
        /// A todo the store does not have.
        case new(ExportDocument.Entry)
        /// The line the export writes for the store's todo: nothing to do.
        case unchanged
        /// A line naming the store's todo and saying something else: `merged` with the todo.
        case changed(Line, uid: String)
        /// Blank, or refused (then listed in `refused`).
        case none
    }

    /// Makes the store's `todo` known (its uid and the line it exports as).
    mutating func know(_ todo: ExportDocument.Entry) {
        guard let uid = todo.uid, let line = try? parse(TodotxtExport.line(todo, zone: context.zone), number: 0) else {
            return
        }
        known[Self.hash(uid)] = (Self.hash(said(line, dated: true)), Self.hash(said(line, dated: false)))
    }

    /// What `line` says, whatever the order of its tags and keys: two lines saying the same
    /// are the same todo as it is. `dated: false` leaves out the creation date (a line without one
    /// keeps the todo's).
    private func said(_ line: Line, dated: Bool) -> String {
        func date(_ i: Instant?) -> String {
            i.map { LocalTime.dateText(days: LocalTime($0, in: context.zone).days) } ?? ""
        }
        return [
            line.done ? "x" : "", date(line.completed), line.priority?.rawValue ?? "", line.beyond ?? "",
            dated ? date(line.created) : "", line.title, line.tags.joined(separator: " "), date(line.due),
            line.notes.sorted().joined(separator: " ")
        ].joined(separator: "\u{1F}")
    }

    /// The whole of `bytes` at once against the store's todos `stored`: every entry, and the report.
    static func convert(_ bytes: [UInt8], context: ForeignImport.Context, stored: [ExportDocument.Entry] = [])
        -> ForeignImport
    {
        var reader = TodotxtImport(context: context)
        for todo in stored { reader.know(todo) }
        let byUID = Dictionary(stored.map { ($0.uid ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        var todos: [ExportDocument.Entry] = []
        var lines = TextLines()
        let take = { (n: Int, raw: [UInt8]?) in
            switch reader.add(raw, number: n) {
            case .new(let e): todos.append(e)
            case .unchanged: break
            case .changed(let line, let uid):
                if let known = byUID[uid], let e = reader.merged(line, uid: uid, into: known) { todos.append(e) }
            case .none: break
            }
        }
        lines.feed(bytes[...], take)
        lines.finish(take)
        return ForeignImport(
            document: ExportDocument(categories: [], todos: todos, exported: context.now),
            unmapped: reader.unmapped, refused: reader.refused)
    }

    /// Line `number` (nil: longer than a line may be) to the store.
    mutating func add(_ raw: [UInt8]?, number: Int) -> Outcome {
        guard let raw else {
            refused.append("line \(number): longer than \(TextLines().maxLine >> 10) KiB")
            return .none
        }
        guard let text = String(validating: raw, as: UTF8.self) else {
            refused.append("line \(number): not valid UTF-8")
            return .none
        }
        guard text.contains(where: { !$0.isWhitespace }) else { return .none }
        do throws(ForeignImportError) {
            let line = try parse(text, number: number)
            var uid = line.uid ?? "todotxt-" + StableHash.hex(line.identity)
            let seen = given[Self.hash(uid), default: 0] + 1
            given[Self.hash(uid)] = seen
            if seen > 1 { uid += "-\(seen)" } // twin lines, or a line copied with its uid: a todo each
            if let letter = line.beyond { lowPriorities.insert(letter) }
            for key in line.keys { kept[key, default: 0] += 1 }
            if let exported = known[Self.hash(uid)] {
                let same =
                    line.created == nil
                    ? exported.undated == Self.hash(said(line, dated: false))
                    : exported.dated == Self.hash(said(line, dated: true))
                return same ? .unchanged : .changed(line, uid: uid)
            }
            var e = try entry(line)
            e.uid = uid
            return .new(e)
        } catch {
            refused.append(error.message)
            return .none
        }
    }

    /// What had no counterpart in todod, one sentence each.
    var unmapped: [String] {
        var lines: [String] = []
        if !lowPriorities.isEmpty {
            lines.append(
                "priorities \(lowPriorities.sorted().joined(separator: ", ")) imported as low (todod has high, medium and low)"
            )
        }
        for (key, n) in kept.sorted(by: { $0.key < $1.key }) {
            lines.append("\(key): (\(n) line\(n == 1 ? "" : "s")) has no counterpart: kept in the notes")
        }
        return lines
    }

    private static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// One todo.txt line taken apart.
    struct Line {
        var number: Int
        /// Every word, as the line has them (for comparing with what the export writes).
        var words: [String]
        var done = false, completed: Instant?, created: Instant?, priority: TodoPriority?
        /// A priority letter past C (imported as low).
        var beyond: String?
        var title = "", tags: [String] = [], notes: [String] = [], keys: [String] = []
        var due: Instant?
        var uid: String?
        /// What names a line without `uid:` across edits in todo.sh: its creation date and text.
        var identity = ""
    }

    func parse(_ text: String, number: Int) throws(ForeignImportError) -> Line {
        func fail(_ what: String) -> ForeignImportError { ForeignImportError("line \(number): \(what)") }
        let all = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var line = Line(number: number, words: all)
        var words = all
        func date(_ word: String, _ what: String) throws(ForeignImportError) -> Instant? {
            guard Self.looksLikeDate(word) else { return nil }
            guard let days = Self.days(word), let i = LocalTime.instant(days: days, secondOfDay: 0, in: context.zone)
            else {
                throw fail("invalid \(what) \(TimeExpression.quoted(word))")
            }
            return i
        }
        func letter(_ l: Character) {
            switch l {
            case "A": line.priority = .high
            case "B": line.priority = .medium
            case "C": line.priority = .low
            default:
                line.priority = .low
                line.beyond = String(l)
            }
        }
        if words.first == "x" {
            line.done = true
            words.removeFirst()
            if let first = words.first, let c = try date(first, "completion date") {
                line.completed = c
                words.removeFirst()
                if let next = words.first, let d = try date(next, "creation date") {
                    line.created = d
                    words.removeFirst()
                }
            }
        } else if let first = words.first, first.count == 3, first.hasPrefix("("), first.hasSuffix(")"),
            let l = first.dropFirst().first, l.isASCII, l.isUppercase
        {
            letter(l)
            words.removeFirst()
        }
        if !line.done, let first = words.first, let d = try date(first, "creation date") {
            line.created = d
            words.removeFirst()
        }
        var rest: [String] = []
        var title: [String] = []
        for word in words {
            if let colon = word.firstIndex(of: ":"), word.first?.isASCII == true, word.first?.isLetter == true,
                word.index(after: colon) != word.endIndex, !word[word.index(after: colon)...].hasPrefix("/")
            {
                let key = String(word[..<colon])
                let value = String(word[word.index(after: colon)...])
                switch key {
                case "uid":
                    guard value.utf8.count <= 255,
                        !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                    else {
                        throw fail("invalid uid \(TimeExpression.quoted(String(value.prefix(40))))")
                    }
                    line.uid = value
                    continue // not part of the text
                case "due":
                    guard let days = Self.days(value),
                        let d = LocalTime.instant(days: days, secondOfDay: 0, in: context.zone)
                    else {
                        throw fail("invalid due date \(TimeExpression.quoted(value)) (expected YYYY-MM-DD)")
                    }
                    line.due = d
                case "pri" where value.count == 1 && value.allSatisfy({ $0.isASCII && $0.isUppercase }):
                    letter(Character(value))
                default:
                    line.notes.append(word)
                    line.keys.append(key)
                }
                rest.append(word)
                continue
            }
            rest.append(word)
            if word.count > 1, word.hasPrefix("+") {
                line.tags.append(String(word.dropFirst()))
                continue
            }
            if word.count > 1, word.hasPrefix("@") {
                line.tags.append(word)
                continue
            }
            title.append(word)
        }
        line.identity =
            (line.created.map { LocalTime.dateText(days: LocalTime($0, in: context.zone).days) + " " } ?? "")
            + rest.joined(separator: " ")
        // A line of nothing but tags and keys keeps them as its title.
        line.title = title.isEmpty ? rest.joined(separator: " ") : title.joined(separator: " ")
        guard !line.title.isEmpty else { throw fail(line.done ? "a completion mark with no task" : "no task text") }
        do throws(TodoError) {
            line.title = try Validation.title(line.title)
            line.tags = try Validation.tags(line.tags)
            if !line.notes.isEmpty { _ = try Validation.notes(line.notes.joined(separator: "\n")) }
        } catch {
            throw fail("\(error)")
        }
        return line
    }

    /// A new todo from `line`.
    private func entry(_ line: Line) throws(ForeignImportError) -> ExportDocument.Entry {
        let made = line.created ?? line.completed ?? context.now
        // A completion is newer than the open line it replaces, even on its creation day.
        let finished = line.completed.map { max($0, made.adding(usec: 1_000_000)) } ?? made
        var e = ExportDocument.Entry(
            title: line.title, done: line.done, completed: line.done ? (line.completed ?? made) : nil,
            created: made, updated: line.done ? finished : made, priority: line.priority, tags: line.tags)
        if !line.notes.isEmpty { e.notes = line.notes.joined(separator: "\n") }
        if let due = line.due {
            e.due = due
            e.allDay = true
            e.zone = context.zoneName
        }
        return e
    }

    /// `known` changed to what `line` says, keeping what a todo.txt line cannot say: the due's
    /// time on the same day, the creation and completion times on the same days, notes,
    /// reminders, repeat rule, start, parent and kept iCalendar lines. `+Category` (spaces as
    /// `_`) is its category again, not a tag; a done line without a priority keeps the todo's.
    /// Refused (listed, nil) when the notes it adds make them too long.
    mutating func merged(_ line: Line, uid: String, into known: ExportDocument.Entry) -> ExportDocument.Entry? {
        do throws(ForeignImportError) {
            var e = try merged(line, into: known)
            e.uid = uid
            return e
        } catch {
            refused.append("line \(line.number): \(error.message)")
            return nil
        }
    }

    private func merged(_ line: Line, into known: ExportDocument.Entry) throws(ForeignImportError)
        -> ExportDocument.Entry
    {
        var e = known
        func day(_ i: Instant) -> Int64 { LocalTime(i, in: context.zone).days }
        e.title = line.title
        var tags = line.tags
        if let category = known.category,
            let i = tags.firstIndex(of: String(category.map { $0.isWhitespace ? "_" : $0 }))
        {
            tags.remove(at: i)
        } else {
            e.category = nil
        }
        e.tags = tags
        if line.priority != nil || !line.done { e.priority = line.priority }
        if let created = line.created, day(created) != day(known.created) { e.created = created }
        if line.done {
            let when = line.completed ?? context.now
            if !known.done || day(known.completed ?? known.updated) != day(when) {
                e.completed = day(when) == day(context.now) ? context.now : when
            }
        } else if known.done {
            e.completed = known.recurrence == nil ? nil : known.completed
        }
        e.done = line.done
        if let due = line.due {
            if known.due.map(day) != day(due) {
                e.due = due
                e.allDay = true
                e.zone = context.zoneName
            }
        } else {
            e.due = nil
            e.allDay = false
        }
        let added = line.notes.filter { !(known.notes ?? "").contains($0) }
        if !added.isEmpty {
            let notes = ((known.notes.map { [$0] } ?? []) + added).joined(separator: "\n")
            do throws(TodoError) { e.notes = try Validation.notes(notes) } catch {
                throw ForeignImportError("\(error)")
            }
        }
        // Later than the stored todo, so the store takes it (and keeps it as it is when nothing differs).
        e.updated = max(context.now, known.updated.adding(usec: 1_000_000))
        return e
    }

    /// `YYYY-MM-DD` in shape (ten characters, digits and two dashes), valid or not.
    static func looksLikeDate(_ word: String) -> Bool {
        let b = Array(word.utf8)
        return b.count == 10 && b[4] == 0x2D && b[7] == 0x2D
            && b.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || (0x30...0x39).contains($0.element) }
    }

    /// The day of a `YYYY-MM-DD` date, nil when it does not exist.
    static func days(_ word: String) -> Int64? {
        guard looksLikeDate(word) else { return nil }
        let parts = word.split(separator: "-").compactMap { Int64($0) }
        return Instant.days(year: parts[0], month: parts[1], day: parts[2])
    }
}
