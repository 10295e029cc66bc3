#if canImport(Glibc)
    import Glibc
#endif

/// The few file-system calls todod and todoctl need: directories with a mode, socket files,
/// modes, whole files.
package enum Files {
    package enum Kind: Sendable, Equatable { case missing, socket, directory, other }

    /// What is at `path`, without following a final symbolic link.
    package static func kind(_ path: String) throws(PosixError) -> Kind {
        var st = stat()
        do {
            try syscall("lstat") { lstat(path, &st) }
        } catch  where error.errno == ENOENT {
            return .missing
        }
        switch st.st_mode & S_IFMT {
        case S_IFSOCK: return .socket
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Which file a path names: its device and inode, and its size.
    package struct Identity: Sendable, Equatable {
        package let device: UInt64
        package let inode: UInt64
        package let size: Int64

        /// Whether both name the same file (whatever their sizes).
        package func isSameFile(as other: Identity) -> Bool { device == other.device && inode == other.inode }
    }

    /// The file at `path` (not following a final symbolic link); nil when nothing is there
    /// (ENOENT, ENOTDIR). Other failures throw.
    package static func identity(_ path: String) throws(PosixError) -> Identity? {
        var st = stat()
        do {
            try syscall("lstat \(path)") { lstat(path, &st) }
        } catch  where error.errno == ENOENT || error.errno == ENOTDIR {
            return nil
        }
        return Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size))
    }

    /// Whether `path` itself is a symbolic link (false when nothing is there).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK
    }

    /// The whole file at `path`; EFBIG when it holds more than `maxBytes`.
    package static func contents(of path: String, maxBytes: Int = .max) throws(PosixError) -> [UInt8] {
        let fd = try syscall("open") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { Posix.close(fd) }
        return try Posix.readToEnd(fd, maxBytes: maxBytes)
    }

    /// The whole regular file at `path`, opened without blocking: a FIFO (or a device) there
    /// fails at once with EINVAL ("not a regular file") instead of blocking in open() or read().
    package static func regularContents(of path: String, maxBytes: Int = .max) throws(PosixError) -> [UInt8] {
        let fd = try syscall("open") { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        defer { Posix.close(fd) }
        var st = stat()
        try syscall("fstat") { fstat(fd, &st) }
        guard st.st_mode & S_IFMT == S_IFREG else { throw PosixError("not a regular file", errno: EINVAL) }
        return try Posix.readToEnd(fd, maxBytes: maxBytes)
    }

    /// The permission bits and owner of `path`.
    package static func mode(_ path: String) throws(PosixError) -> (mode: UInt32, uid: UInt32) {
        var st = stat()
        try syscall("stat") { stat(path, &st) }
        return (UInt32(st.st_mode & 0o7777), st.st_uid)
    }

    /// The names in directory `path` (without `.` and `..`), sorted by their bytes.
    package static func entries(_ path: String) throws(PosixError) -> [String] {
        guard let dir = opendir(path) else { throw PosixError("opendir \(path)", errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Creates `path` and any missing parents with `mode` (existing directories are left as they are).
    package static func makeDirectories(_ path: String, mode: mode_t) throws(PosixError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            do {
                try syscall("mkdir \(prefix)") { mkdir(prefix, mode) }
            } catch  where error.errno == EEXIST {
                continue
            }
        }
    }

    /// A descriptor of /dev/null, or nil when none is left: one held in reserve and closed to
    /// make room when the process is out of descriptors.
    package static func openNullDevice() -> Int32? {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        return fd >= 0 ? fd : nil
    }

    /// A new file without a name in `directory`, open for reading and writing and readable by
    /// nobody else: it is gone with its last descriptor, a crash included (`O_TMPFILE`; where
    /// the file system lacks that, a file made by `mkstemp` and unlinked at once).
    package static func openUnnamedFile(in directory: String) throws(PosixError) -> Int32 {
        let fd = open(directory, O_RDWR | O_CLOEXEC | __O_TMPFILE, mode_t(0o600))
        if fd >= 0 { return fd }
        guard [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) else {
            throw PosixError("open \(directory) (O_TMPFILE)", errno: errno)
        }
        var template = Array((directory + "/.todod-XXXXXX").utf8CString)
        let made = try syscall("mkstemp in \(directory)") {
            template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        }
        Glibc.unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)
        return made
    }

    /// Writes all of `bytes` at `offset` of the file `fd` (`pwrite`).
    package static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int) throws(PosixError) {
        var done = 0
        while done < bytes.count {
            let n = try syscall("pwrite") {
                bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            }
            done += n
        }
    }

    /// Reads `count` bytes at `offset` of the file `fd` (`pread`); fewer only at its end.
    package static func read(_ fd: Int32, count: Int, at offset: Int) throws(PosixError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = try syscall("pread") {
                bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            }
            if n == 0 { break }
            done += n
        }
        bytes.removeLast(count - done)
        return bytes
    }

    /// A directory (or a link on the way to it) that a daemon must not trust, in one line.
    package struct Untrusted: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// Checks that nobody but `uid` and root can change what `directory` holds, before a daemon
    /// binds or opens something there: every directory from `/` down to it, both along the path
    /// as written and along its real path (symbolic links resolved), must be owned by `uid` or
    /// root and not writable by group or others; an ancestor may be writable by others only
    /// with the sticky bit (`/tmp`). Every symbolic link on the way must be owned by `uid` or
    /// root. Once this holds, nobody else can swap any part of the path, so using it afterwards
    /// is free of races.
    /// - Parameter forCreating: `directory` is only where a new directory will be made, so it
    ///   may itself be sticky and writable by others, like any ancestor.
    /// - Returns: the real path of `directory`.
    package static func trustedDirectory(_ directory: String, uid: UInt32, forCreating: Bool = false) throws(Untrusted)
        -> String
    {
        guard let real = realPath(directory) else {
            throw Untrusted(description: "cannot resolve \(directory): \(PosixError("realpath", errno: errno).reason)")
        }
        for (chain, resolved) in [(directory, false), (real, true)] {
            let absolute = chain.hasPrefix("/") ? chain : (realPath(".") ?? "") + "/" + chain
            let components = absolute.split(separator: "/")
            var prefix = ""
            for (index, component) in ([""] + components.map(String.init)).enumerated() {
                if index > 0 { prefix += "/" + component }
                let path = prefix.isEmpty ? "/" : prefix
                var st = stat()
                guard lstat(path, &st) == 0 else {
                    throw Untrusted(description: "cannot check \(path): \(PosixError("lstat", errno: errno).reason)")
                }
                let last = index == components.count && !forCreating
                let owner = st.st_uid
                if st.st_mode & S_IFMT == S_IFLNK {
                    guard !resolved, owner == uid || owner == 0 else {
                        throw Untrusted(
                            description:
                                "refusing \(directory): the symbolic link \(path) belongs to uid \(owner), not to uid \(uid) or root"
                        )
                    }
                    continue
                }
                guard st.st_mode & S_IFMT == S_IFDIR else {
                    throw Untrusted(description: "refusing \(directory): \(path) is not a directory")
                }
                guard owner == uid || owner == 0 else {
                    throw Untrusted(
                        description:
                            "refusing \(directory): \(path) belongs to uid \(owner), not to uid \(uid) (who runs todod) or root"
                    )
                }
                let mode = st.st_mode & 0o7777
                if mode & 0o022 != 0 && (last || mode & S_ISVTX == 0) {
                    throw Untrusted(
                        description:
                            "refusing \(directory): \(path) is writable by \(mode & 0o002 != 0 ? "others" : "its group") (mode 0\(String(mode, radix: 8)))"
                    )
                }
            }
        }
        return real
    }

    /// The path with every symbolic link, `.` and `..` resolved, or nil (errno set).
    package static func realPath(_ path: String) -> String? {
        guard let resolved = Glibc.realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    package static func chmod(_ path: String, _ mode: mode_t) throws(PosixError) {
        try syscall("chmod \(path)") { Glibc.chmod(path, mode) }
    }

    package static func unlink(_ path: String) throws(PosixError) {
        try syscall("unlink \(path)") { Glibc.unlink(path) }
    }

    /// The directory part of `path` ("/a/b/c.sock" → "/a/b").
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The bytes an unprivileged process may still write on the file system holding `path`
    /// (`statvfs`: free blocks for non-root users times the fragment size).
    package static func availableBytes(_ path: String) throws(PosixError) -> Int64 {
        var st = statvfs()
        try syscall("statvfs \(path)") { statvfs(path, &st) }
        return Int64(st.f_bavail) * Int64(st.f_frsize)
    }
}
