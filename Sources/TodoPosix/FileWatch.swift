#if canImport(Glibc)
    import Glibc
#endif

/// An inotify descriptor watching one file for what happens to its name: unlinked (its link
/// count changes), moved away, or deleted. Readable when something happened; `drain` empties
/// it. The owner decides what the events mean by looking at the path again.
package final class FileWatch {
    package let fd: Int32

    /// Watches the file `path` names now (without following a final symbolic link).
    package init(path: String) throws(PosixError) {
        fd = try syscall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        let mask = UInt32(IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF | IN_DONT_FOLLOW)
        do {
            try syscall("inotify_add_watch \(path)") { inotify_add_watch(fd, path, mask) }
        } catch {
            Posix.close(fd)
            throw error
        }
    }

    deinit { Posix.close(fd) }

    /// Reads and drops every pending event.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let n = try? Posix.read(fd, into: &buffer), n > 0 {}
    }
}

/// An inotify descriptor watching directories for entries that appear, change or go: created,
/// written and closed, moved in or out, deleted, their attributes changed. A file replaced by
/// rename (as `timedatectl` replaces `/etc/localtime`, or a package manager a file of the tz
/// database) shows as a move into its directory, which a watch on the file itself would miss.
/// Readable when something happened; `drain` empties it and returns the names.
package final class DirectoryWatch {
    package let fd: Int32

    /// Watches each directory of `directories` that exists (at least one must).
    package init(directories: [String]) throws(PosixError) {
        fd = try syscall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        let mask = UInt32(
            IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB
                | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        var watched = 0
        var last: PosixError?
        for directory in Set(directories) {
            do {
                try syscall("inotify_add_watch \(directory)") { inotify_add_watch(fd, directory, mask) }
                watched += 1
            } catch {
                last = error
            }
        }
        if watched == 0, let last {
            Posix.close(fd)
            throw last
        }
    }

    deinit { Posix.close(fd) }

    /// Reads every pending event; returns the names of the entries they were about ("" for the
    /// directory itself).
    package func drain() -> [String] {
        drainEvents().map(\.name)
    }

    /// One event: the entry's name ("" for the directory itself) and what happened (`IN_*` bits).
    package struct Event: Sendable, Equatable {
        package let name: String
        package let mask: UInt32

        /// Whether the entry is there complete now: written and closed (`IN_CLOSE_WRITE`), or
        /// moved in over whatever had its name (`IN_MOVED_TO`, how dpkg replaces a file).
        package var isComplete: Bool { mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 }
    }

    /// Reads every pending event, in order.
    package func drainEvents() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while let n = try? Posix.read(fd, into: &buffer), n > 0 {
            var offset = 0
            // struct inotify_event: int wd; uint32_t mask, cookie, len; char name[len] (little-endian here).
            func word(_ at: Int) -> Int {
                Int(buffer[at]) | Int(buffer[at + 1]) << 8 | Int(buffer[at + 2]) << 16 | Int(buffer[at + 3]) << 24
            }
            while offset + 16 <= n {
                let mask = UInt32(word(offset + 4))
                let length = word(offset + 12)
                let start = offset + 16
                let end = min(n, start + length)
                let bytes = buffer[start..<end].prefix { $0 != 0 }
                events.append(Event(name: String(decoding: bytes, as: UTF8.self), mask: mask))
                offset = start + length
            }
        }
        return events
    }
}
