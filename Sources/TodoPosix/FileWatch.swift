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
