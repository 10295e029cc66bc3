#if canImport(Glibc)
    import Glibc
#endif

/// The running program's file, and replacing the process with another program.
package enum Executable {
    /// The path of the running program (`/proc/self/exe`), nil when it cannot be read.
    package static var ownPath: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The first of `candidates` that exists and may be run.
    package static func firstRunnable(_ candidates: [String]) -> String? {
        candidates.first { access($0, X_OK) == 0 }
    }

    /// Replaces this process with `program` (`arguments` without argv[0]), keeping the
    /// environment; returns only when that failed, with the error. A file still open for writing
    /// somewhere ("Text file busy": an installer closing it, a child that inherited its writer's
    /// descriptor) is tried again for up to a second.
    package static func replace(with program: String, arguments: [String]) -> PosixError {
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        var failure = ETXTBSY
        for _ in 0..<20 where failure == ETXTBSY {
            execv(program, &argv)
            failure = errno
            if failure == ETXTBSY { usleep(50_000) }
        }
        let error = PosixError("exec \(program)", errno: failure)
        for pointer in argv { free(pointer) }
        return error
    }

    /// Replaces this process with `program` as socket activation would start it: `listener` becomes
    /// descriptor 3, inherited, with `LISTEN_FDS=1` and `LISTEN_PID` this pid (which `exec` keeps,
    /// so a service manager still knows the process as its main one); `variables` are set too.
    /// Signals are as at a fresh start: none blocked, SIGTERM and SIGINT at their default action
    /// (one that comes before the new program handles it ends the process, as asked). Returns only
    /// when that failed, with the error; the process is then in no state to go on serving.
    package static func replace(
        with program: String, arguments: [String], passing listener: Int32,
        setting variables: [String: String]
    ) -> PosixError {
        if listener != 3, dup2(listener, 3) != 3 { return PosixError("dup2 \(listener) 3", errno: errno) }
        let flags = fcntl(3, F_GETFD)
        guard flags >= 0, fcntl(3, F_SETFD, flags & ~FD_CLOEXEC) == 0 else {
            return PosixError("fcntl 3", errno: errno)
        }
        setenv("LISTEN_FDS", "1", 1)
        setenv("LISTEN_PID", String(getpid()), 1)
        unsetenv("LISTEN_FDNAMES")
        for (name, value) in variables { setenv(name, value, 1) }
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        return replace(with: program, arguments: arguments)
    }
}
