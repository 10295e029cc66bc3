#if canImport(Glibc)
import Glibc
#endif

/// The few file-system calls todod and todoctl need: directories with a mode, socket files,
/// modes, whole files.
public enum Files {
    public enum Kind: Sendable, Equatable { case missing, socket, directory, other }

    /// What is at `path`, without following a final symbolic link.
    public static func kind(_ path: String) throws(PosixError) -> Kind {
        var st = stat()
        do {
            try syscall("lstat") { lstat(path, &st) }
        } catch where error.errno == ENOENT {
            return .missing
        }
        switch st.st_mode & S_IFMT {
        case S_IFSOCK: return .socket
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// The whole file at `path`; EFBIG when it holds more than `maxBytes`.
    public static func contents(of path: String, maxBytes: Int = .max) throws(PosixError) -> [UInt8] {
        let fd = try syscall("open") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { Posix.close(fd) }
        return try Posix.readToEnd(fd, maxBytes: maxBytes)
    }

    /// The permission bits and owner of `path`.
    public static func mode(_ path: String) throws(PosixError) -> (mode: UInt32, uid: UInt32) {
        var st = stat()
        try syscall("stat") { stat(path, &st) }
        return (UInt32(st.st_mode & 0o7777), st.st_uid)
    }

    /// Creates `path` and any missing parents with `mode` (existing directories are left as they are).
    public static func makeDirectories(_ path: String, mode: mode_t) throws(PosixError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            do {
                try syscall("mkdir \(prefix)") { mkdir(prefix, mode) }
            } catch where error.errno == EEXIST {
                continue
            }
        }
    }

    /// A descriptor of /dev/null, or nil when none is left: one held in reserve and closed to
    /// make room when the process is out of descriptors.
    public static func openNullDevice() -> Int32? {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        return fd >= 0 ? fd : nil
    }

    public static func chmod(_ path: String, _ mode: mode_t) throws(PosixError) {
        try syscall("chmod \(path)") { Glibc.chmod(path, mode) }
    }

    public static func unlink(_ path: String) throws(PosixError) {
        try syscall("unlink \(path)") { Glibc.unlink(path) }
    }

    /// The directory part of `path` ("/a/b/c.sock" → "/a/b").
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
