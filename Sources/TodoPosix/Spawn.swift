import CTodoLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Starting a program with no shell in between (posix_spawnp(3)) and waiting for it.
package enum Spawn {
    /// The descriptors a child gets as its standard input (nil: /dev/null), output and error.
    package struct StandardStreams: Sendable {
        package var input: Int32?
        package var output: Int32
        package var error: Int32
        package init(input: Int32?, output: Int32, error: Int32) {
            self.input = input
            self.output = output
            self.error = error
        }
    }

    /// Starts `program` (looked up in `PATH` when it has no slash) with `arguments` (argv[1...])
    /// and exactly `environment`, in a process group of its own so that everything it starts can
    /// be signalled together. Standard input is /dev/null, output and errors are inherited;
    /// with `streams`, the child gets those descriptors instead (descriptors of
    /// the caller's should be close-on-exec, as `pipe()` makes them, so that no other child
    /// inherits them). `foreground` keeps it in the caller's process group with the caller's
    /// standard input, for a program that uses the terminal (an editor).
    /// - Returns: the child's pid.
    package static func start(
        _ program: String, _ arguments: [String], environment: [String: String],
        streams: StandardStreams? = nil, foreground: Bool = false
    ) throws(PosixError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input = streams?.input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else if !foreground {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let streams {
            posix_spawn_file_actions_adddup2(&actions, streams.output, 1)
            posix_spawn_file_actions_adddup2(&actions, streams.error, 2)
        }
        // Nothing else of ours: a descriptor another thread has open without close-on-exec (a
        // file being written, say) must not live on in a child, where it could keep a pipe open or
        // make a script being written "busy" for exec.
        _ = todod_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling in the child (we ignore SIGPIPE) and its own process group.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        // Its own process group, unless it is to use the terminal as we do (an editor).
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16((foreground ? 0 : POSIX_SPAWN_SETPGROUP) | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([program] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = (argv + [nil]).withUnsafeBufferPointer { a in
            (envp + [nil]).withUnsafeBufferPointer { e in
                posix_spawnp(&pid, program, &actions, &attributes, a.baseAddress!, e.baseAddress!)
            }
        }
        guard rc == 0 else { throw PosixError("posix_spawnp \(program)", errno: rc) }
        return pid
    }

    /// A pipe, both ends close-on-exec (`pipe2(O_CLOEXEC)`): a child started meanwhile by
    /// another thread does not inherit them and keep the pipe open.
    package static func pipe() throws(PosixError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        try syscall("pipe2") { todod_pipe_cloexec(&fds) }
        return (fds[0], fds[1])
    }

    /// Waits until `pid` has exited without reaping it (waitid with WNOWAIT), so its pid cannot be
    /// reused while a timeout may still signal it. Call `reap` afterwards.
    package static func waitUntilExited(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    }

    /// How a child ended.
    package enum Exit: Sendable, Equatable, CustomStringConvertible {
        case status(Int32)
        case signal(Int32)
        package var description: String {
            switch self {
            case .status(let code): "exit status \(code)"
            case .signal(let signal): "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
            }
        }
    }

    /// Reaps `pid` (blocking until it exits) and says how it ended.
    package static func reap(_ pid: pid_t) -> Exit {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? .status((status >> 8) & 0xff) : .signal(signal)
    }

    /// Sends `signal` to the process group `pid` leads (the child and everything it started).
    package static func killGroup(_ pid: pid_t, _ signal: Int32) {
        _ = kill(-pid, signal)
    }
}
