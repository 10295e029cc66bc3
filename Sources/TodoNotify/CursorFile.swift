#if canImport(Glibc)
import Glibc
#endif
import TodoPosix

/// Where the notifier keeps the journal cursor of the last reminder it handed out:
/// `${XDG_STATE_HOME:-~/.local/state}/todod/notify.cursor` (`$STATE_DIRECTORY/notify.cursor` under
/// a unit with `StateDirectory=`). Replaced atomically (rename) after each output, so a restart
/// resumes right after the last reminder shown: none twice, none lost. Before the first reminder
/// it holds `realtime=USEC`, the instant the notifier first started (JournalFollower.seek).
/// Written without fsync: it survives the process being killed at any point; after a power
/// loss the last few reminders may be shown again, never lost.
struct CursorFile {
    let path: String

    static func path(environment: [String: String], home: String) -> String {
        if let state = environment["STATE_DIRECTORY"], !state.isEmpty {
            return String(state.split(separator: ":").first ?? Substring(state)) + "/notify.cursor"
        }
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        return stateHome + "/todod/notify.cursor"
    }

    /// The saved cursor, or nil when there is none yet.
    func read() throws(PosixError) -> String? {
        let bytes: [UInt8]
        do {
            bytes = try Files.contents(of: path, maxBytes: 4096)
        } catch where error.errno == ENOENT {
            return nil
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingSpaces.filter { $0 != "\n" }
        return text.isEmpty ? nil : String(text)
    }

    func write(_ cursor: String) throws(PosixError) {
        try Files.makeDirectories(Files.directory(of: path), mode: 0o700)
        try AtomicFile.write(path, Array((cursor + "\n").utf8))
    }
}
