import TodoCore
import TodoTime

/// `export --format todotxt`: one todo.txt line per todo, in manual order. Open todos get
/// `(A)`/`(B)`/`(C)` for high/medium/low; done ones `x` and their completion date. Then the
/// creation date, the title, the category as `+Category` (spaces as `_`), each tag as `+tag`
/// (a tag starting with `@` as that context), `due:` with the local date of the due, and `uid:`
/// with the todo's uid, so importing the file again finds each todo (TodotxtImport). Notes,
/// reminders and repeat rules have no place in todo.txt and are not written.
enum TodotxtExport {
    static func text(_ todos: [ExportDocument.Entry], zone: ZoneInfo) -> String {
        todos.map { line($0, zone: zone) + "\n" }.joined()
    }

    static func line(_ e: ExportDocument.Entry, zone: ZoneInfo) -> String {
        func date(_ i: Instant) -> String { LocalTime.dateText(days: LocalTime(i, in: zone).days) }
        var words: [String] = []
        if e.done {
            words.append("x")
            words.append(date(e.completed ?? e.updated))
        } else if let p = e.priority {
            words.append(p == .high ? "(A)" : p == .medium ? "(B)" : "(C)")
        }
        words.append(date(e.created))
        words.append(e.title)
        if let c = e.category { words.append("+" + String(c.map { $0.isWhitespace ? "_" : $0 })) }
        for tag in e.tags { words.append(tag.hasPrefix("@") ? tag : "+" + tag) }
        if let due = e.due { words.append("due:" + date(due)) }
        if let uid = e.uid { words.append("uid:" + uid) }
        return words.joined(separator: " ")
    }
}
