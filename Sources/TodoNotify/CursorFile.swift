import TodoCore
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Where a notifier keeps its place: `${XDG_STATE_HOME:-~/.local/state}/todod/notify-MODE.cursor`
/// (`$STATE_DIRECTORY/...` under a unit with `StateDirectory=`), one file per notifier: MODE is
/// what it hands reminders to (`desktop`, `print`, `exec`, or several joined by `+`), and
/// `--name NAME` adds `-NAME`. So two notifiers never share a place and neither makes the other
/// miss a reminder.
///
/// The first line is the journal cursor of the last reminder handed out (before the first one,
/// `realtime=USEC`, the instant the notifier first started: JournalFollower.seek). Each further
/// line, `+KEY`, names a reminder that came first through todod's `watch` stream and was handed
/// out before its journal entry was read: when the entry comes, it is stepped over, even after a
/// restart; `-KEY` one handed out from the journal lately whose `watch` event has not come yet
/// (it follows the entry by the time todod takes to record a batch): that event is stepped over. Replaced by a rename after each round of reminders, without fsync: it survives the
/// process being killed at any point between rounds; after a power loss the last few reminders
/// may be shown again, never lost.
struct CursorFile {
    let path: String

    /// What the file holds.
    struct State: Equatable {
        var cursor: String?
        var ahead: [String] = []
        var behind: [String] = []
    }

    /// The file of the notifier with these outputs and `name`.
    static func path(environment: [String: String], home: String, mode: String, name: String?) -> String {
        directory(environment: environment, home: home) + "/notify-" + mode + (name.map { "-" + $0 } ?? "") + ".cursor"
    }

    /// The single file every notifier shared before each kept its own: a desktop notifier
    /// without a name takes it over once.
    static func sharedPath(environment: [String: String], home: String) -> String {
        directory(environment: environment, home: home) + "/notify.cursor"
    }

    private static func directory(environment: [String: String], home: String) -> String {
        if let state = environment["STATE_DIRECTORY"], !state.isEmpty {
            return String(state.split(separator: ":").first ?? Substring(state))
        }
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        return stateHome + "/todod"
    }

    /// Why a file's contents were not taken.
    struct Unreadable: Error {
        let reason: String
    }

    /// The saved state; an empty one when there is no file yet. A file that is no regular file
    /// (a FIFO is never opened for long: it is opened without blocking and refused) or whose
    /// contents are no cursor throws `Unreadable`.
    func read() throws(Unreadable) -> State {
        let bytes: [UInt8]
        do {
            bytes = try Files.regularContents(of: path, maxBytes: 1 << 24) // Notifier.keysKept keys of two kinds
        } catch  where error.errno == ENOENT {
            return State()
        } catch {
            throw Unreadable(reason: error.errno == EINVAL ? "not a regular file" : error.reason)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Unreadable(reason: "not UTF-8 text") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { Validation.trimmed(String($0)) }
            .filter { !$0.isEmpty }
        guard !lines.isEmpty else { return State() }
        let cursor = lines.removeFirst()
        guard Self.isCursorText(cursor) else { throw Unreadable(reason: "its first line is no journal cursor") }
        var state = State(cursor: cursor)
        for line in lines {
            let key = String(line.dropFirst())
            guard Self.isCursorText(key) else {
                throw Unreadable(reason: "a line is neither a cursor nor +KEY or -KEY")
            }
            switch line.first {
            case "+": state.ahead.append(key)
            case "-": state.behind.append(key)
            default: throw Unreadable(reason: "a line is neither a cursor nor +KEY or -KEY")
            }
        }
        return state
    }

    /// Printable ASCII without spaces: what sd-journal cursors and `realtime=USEC` are made of.
    static func isCursorText(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 4096 && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// Replaces the file (a temporary file beside it, renamed over it).
    func write(_ state: State) throws(PosixError) {
        guard let cursor = state.cursor else { return }
        try Files.makeDirectories(Files.directory(of: path), mode: 0o700)
        var text = cursor + "\n"
        for key in state.ahead { text += "+" + key + "\n" }
        for key in state.behind { text += "-" + key + "\n" }
        // Not synced (it is written after every reminder): a power loss can at worst bring back an
        // older cursor, and with it a reminder shown again, never one missed.
        try AtomicFile.write(path, Array(text.utf8), durable: false)
    }
}
