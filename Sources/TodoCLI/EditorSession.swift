import Glibc
import TodoCore
import TodoPosix

/// A text the user edits in `$VISUAL` or `$EDITOR` (else `vi`) until it is accepted, as
/// `git commit` and `crontab -e` do: the file in a directory only the user can enter, the editor
/// on this terminal, and the file reopened with the error on top when what was saved is wrong.
/// `edit ID` (`EditForm`) and `edit` on many (`EditLines`) both go through it.
enum EditorSession {
    /// How an edit ended.
    enum Ending: Equatable {
        /// `check` took the saved text.
        case accepted
        /// The file was saved as it was shown: nothing to do, or giving up after `problem`.
        case unchanged(problem: String?)
    }

    /// Shows `text` in the editor as `fileName` until `check` takes the saved text (it returns
    /// nil) or the user saves the file unchanged. `check` gets the saved text and returns the
    /// one-line problem to show on top of it for another try.
    /// - Throws: `.input` with one line when the file cannot be written or the editor fails.
    static func edit(
        _ text: String, fileName: String, maxBytes: Int, environment: [String: String], uid: UInt32,
        check: (String) throws(CLIFailure) -> String?
    ) throws(CLIFailure) -> Ending {
        let base =
            environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        let directory = base + "/todoctl-edit-\(uid)-\(UInt64.random(in: 0...UInt64.max))"
        let path = directory + "/" + fileName
        do throws(PosixError) {
            try Files.makeDirectories(directory, mode: 0o700)
            let made = try Files.mode(directory)
            guard made.mode & 0o777 == 0o700, made.uid == uid else {
                throw PosixError("mkdir \(directory)", errno: EEXIST)
            }
        } catch {
            throw .input("cannot make a place for the file: \(error.reason)")
        }
        defer {
            try? Files.unlink(path)
            _ = rmdir(directory)
        }
        var shown = text
        var problem: String?
        while true {
            do { try AtomicFile.write(path, Array(shown.utf8), durable: false) } catch {
                throw .input("cannot write \(path): \(error.reason)")
            }
            guard try openEditor(path, environment: environment) else {
                throw .input("the editor did not end well; nothing changed")
            }
            let saved =
                (try? Files.contents(of: path, maxBytes: maxBytes)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            if saved == shown { return .unchanged(problem: problem) }
            guard let wrong = try check(saved) else { return .accepted }
            // The user's text without the last error, under the new one.
            let body = saved.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("# ERROR: ") && !$0.hasPrefix("# Correct it and save again") }.joined(
                    separator: "\n")
            problem = wrong
            shown = errorHeader(wrong) + body
        }
    }

    /// The lines on top of a file reopened after `problem`.
    static func errorHeader(_ problem: String) -> String {
        "# ERROR: \(problem)\n# Correct it and save again; save without changes to give up.\n"
    }

    /// Opens `path` in the user's editor on this terminal and waits for it: true when it exited 0.
    private static func openEditor(_ path: String, environment: [String: String]) throws(CLIFailure) -> Bool {
        let editor =
            [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !Validation.trimmed($0).isEmpty }
            ?? "vi"
        // Through the shell, as git does: EDITOR may hold arguments ("code --wait").
        do {
            let pid = try Spawn.start(
                "/bin/sh", ["-c", editor + " \"$1\"", "sh", path], environment: environment, foreground: true)
            return Spawn.reap(pid) == .status(0)
        } catch {
            throw .input("cannot run the editor \(editor): \(error.reason)")
        }
    }
}
