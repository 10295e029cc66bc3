#if canImport(Glibc)
    import Glibc
#endif

/// Replacing a small file so that a reader (or a crash) sees the old contents or the new, never a
/// mix: write a temporary file beside it, fsync it (unless not `durable`), rename it over the old one.
/// The temporary's name is this writer's own and made with `O_EXCL`, so nothing planted there (a
/// FIFO, a link) is ever opened.
package enum AtomicFile {
    package static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, durable: Bool = true)
        throws(PosixError)
    {
        // A name of this writer's own: two writers of one file never write into one temporary.
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = try syscall("open \(temporary)") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        do {
            try Posix.writeAll(fd, bytes)
            if durable { try syscall("fsync \(temporary)") { fsync(fd) } }
        } catch {
            Posix.close(fd)
            _ = unlink(temporary)
            throw error
        }
        Posix.close(fd)
        do {
            try syscall("rename \(temporary)") { rename(temporary, path) }
        } catch {
            _ = unlink(temporary)
            throw error
        }
    }
}
