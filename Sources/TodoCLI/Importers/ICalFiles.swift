import TodoCalendar
import TodoCore
import TodoICal
import TodoPosix
import TodoProtocol
import TodoTime

// `export --format ics|vdir` and reading `import FILE|DIR|-`: todoctl converts between iCalendar
// and the export document itself, so the daemon only ever sees `store.import` with a document
// (docs/ICALENDAR.md).

enum ICalFiles {
    /// The export document of a file or standard input: JSON as it is, an iCalendar file (text
    /// starting with `BEGIN:`) converted; of a directory: every `*.ics` file in it (a vdir). With
    /// it, how many components that are not todos (`VEVENT`: 3) the files held and were skipped.
    static func document(_ path: String, reader: ICalReader, readStdin: () throws(PosixError) -> [UInt8])
        throws(CLIFailure)
        -> (document: JSON, skipped: [String: Int], notFollowed: [KeptRule])
    {
        let name = path == "-" ? "standard input" : path
        if path != "-", (try? Files.kind(path)) == .directory {
            return try vdir(path, reader: reader)
        }
        let bytes: [UInt8]
        do {
            bytes = try path == "-" ? readStdin() : Files.contents(of: path)
        } catch {
            throw .input("cannot read \(name): \(error.reason)")
        }
        guard isICalendar(bytes) else { return (try CLI.readDocument(name, bytes), [:], []) }
        do {
            let file = try reader.file(bytes)
            let items = usable(file.items)
            return (JSON(ICalReader.document(items, exported: reader.now)), file.skipped, keptRules(items, file: nil))
        } catch {
            throw .input("\(name): \(error)")
        }
    }

    /// Whether `bytes` look like iCalendar: `BEGIN:` first, after a byte order mark and blank space.
    static func isICalendar(_ bytes: [UInt8]) -> Bool {
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[i]) { i += 1 }
        return String(decoding: bytes[i..<min(bytes.count, i + 6)], as: UTF8.self).uppercased() == "BEGIN:"
    }

    /// Every `.ics` file of directory `path`, read as one document (all or nothing).
    static func vdir(_ path: String, reader: ICalReader) throws(CLIFailure) -> (
        document: JSON, skipped: [String: Int], notFollowed: [KeptRule]
    ) {
        let names: [String]
        do { names = try Files.entries(path).filter { $0.hasSuffix(".ics") && !$0.hasPrefix(".") } } catch {
            throw .input("cannot read \(path): \(error.reason)")
        }
        var items: [ICalReader.Item] = []
        var skipped: [String: Int] = [:]
        var notFollowed: [KeptRule] = []
        for name in names {
            let file = path + "/" + name
            let bytes: [UInt8]
            do { bytes = try Files.contents(of: file) } catch { throw .input("cannot read \(file): \(error.reason)") }
            do {
                let read = try reader.file(bytes)
                notFollowed += keptRules(usable(read.items), file: name)
                items += read.items
                skipped.merge(read.skipped, uniquingKeysWith: +)
            } catch { throw .input("\(file): \(error)") }
        }
        return (JSON(ICalReader.document(usable(items), exported: reader.now)), skipped, notFollowed)
    }

    /// A recurrence rule an import kept without following it: the todo is one todo, its RRULE
    /// goes back out unchanged.
    struct KeptRule: Sendable, Equatable {
        /// The file in the directory imported (nil for a single file).
        var file: String?
        /// The line of the todo's BEGIN:VTODO.
        var line: Int
        /// What todod does not follow: `FREQ=HOURLY`, a part's name (`RSCALE`, `BYHOUR`), or
        /// `no DUE` (todod recurs on the due date).
        var reason: String
    }

    /// The rules of `items` (after `usable`) kept but not followed.
    static func keptRules(_ items: [ICalReader.Item], file: String?) -> [KeptRule] {
        items.compactMap { item in
            guard item.entry.recurrence == nil, let ical = item.entry.ical,
                let rule = ical.split(separator: "\n").first(where: { $0.uppercased().hasPrefix("RRULE") })
            else { return nil }
            let reason = item.entry.due == nil ? "no DUE" : unfollowedPart(String(rule.drop { $0 != ":" }.dropFirst()))
            return KeptRule(file: file, line: item.line, reason: reason)
        }
    }

    /// The first part of rule `text` todod does not compute (`FREQ=HOURLY`, `RSCALE`), else the whole rule.
    static func unfollowedPart(_ text: String) -> String {
        let known: Set<String> = [
            "FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYMONTH", "BYSETPOS", "COUNT", "UNTIL", "WKST"
        ]
        for part in text.uppercased().split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
            if kv[0] == "FREQ", kv.count == 2, !["DAILY", "WEEKLY", "MONTHLY", "YEARLY"].contains(kv[1]) {
                return "FREQ=" + kv[1]
            }
            if !known.contains(kv[0]) { return kv[0] }
        }
        return text
    }

    /// The report's words for kept rules: `2 rules kept but not followed: line 12 (FREQ=HOURLY), b.ics line 4 (RSCALE)`.
    static func keptRuleWords(_ rules: [KeptRule]) -> String? {
        guard !rules.isEmpty else { return nil }
        let places = rules.map { r in (r.file.map { $0 + " " } ?? "") + "line \(r.line) (\(r.reason))" }
        return "\(rules.count) \(rules.count == 1 ? "rule" : "rules") kept but not followed: "
            + places.joined(separator: ", ")
    }

    /// `items` with every RRULE todod cannot follow (outside docs/RECURRENCE.md, such as
    /// `FREQ=HOURLY`) turned into a kept line: the todo imports as a one-off todo and the rule
    /// goes back out unchanged with the next export, instead of one foreign rule refusing the
    /// whole import.
    static func usable(_ items: [ICalReader.Item]) -> [ICalReader.Item] {
        items.map { item in
            guard let rule = item.entry.recurrence?.rule, (try? RecurrenceRule(parsing: rule)) == nil else {
                return item
            }
            var item = item
            item.entry.recurrence = nil
            item.entry.ical = (item.entry.ical.map { $0 + "\n" } ?? "") + "RRULE:" + rule
            return item
        }
    }

    /// What an import skipped, for its report: `3 events, 1 journal entry` (components by kind,
    /// most first), nil when nothing was.
    static func skippedWords(_ skipped: [String: Int]) -> String? {
        let names = [
            "VEVENT": ("event", "events"), "VJOURNAL": ("journal entry", "journal entries"),
            "VFREEBUSY": ("free/busy entry", "free/busy entries")
        ]
        let parts = skipped.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { kind, n in
            let (one, many) = names[kind] ?? ("\(kind) component", "\(kind) components")
            return "\(n) \(n == 1 ? one : many)"
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The todos of an export answer, for the iCalendar writer.
    static func entries(_ answer: JSON) throws(CLIFailure) -> [ExportDocument.Entry] {
        do { return try ExportDocument(json: answer).todos } catch {
            throw Runner.bad("store.export: \(error.message)")
        }
    }

    /// Writes one `.ics` file per todo into `directory` (made when missing), each replaced
    /// atomically; the name is the uid when that is a safe file name, else the uid's bytes in hex
    /// (so the same todo lands in the same file every time, and no uid can name a path).
    static func writeVdir(_ entries: [ExportDocument.Entry], to directory: String, writer: ICalWriter)
        throws(CLIFailure)
    {
        do {
            try Files.makeDirectories(directory, mode: 0o700)
            for (i, e) in entries.enumerated() {
                let text = writer.calendar([e], firstSortOrder: i + 1)
                try AtomicFile.write(
                    directory + "/" + fileName(e.uid ?? "todo-\(i + 1)"), Array(text.utf8), mode: 0o600)
            }
        } catch {
            throw .input("cannot write \(directory): \(error.reason)")
        }
    }

    /// A file name for a uid: itself plus `.ics` when it is 1 to 200 of `A-Z a-z 0-9 - _ . @`
    /// and does not start with a dot; else `x-` and its UTF-8 bytes in hex (cut to 200 digits,
    /// with a hash of the whole so long uids stay apart).
    static func fileName(_ uid: String) -> String {
        let safe =
            uid.utf8.count <= 200 && !uid.hasPrefix(".") && !uid.isEmpty
            && uid.unicodeScalars.allSatisfy {
                ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9")
                    || "-_.@".unicodeScalars.contains($0)
            }
        if safe { return uid + ".ics" }
        let hex = uid.utf8.map {
            String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }.joined()
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a
        for b in uid.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        return "x-" + String(hex.prefix(200)) + "-" + String(hash, radix: 16) + ".ics"
    }
}
