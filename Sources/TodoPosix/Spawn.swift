#if canImport(Glibc)
import Glibc
#endif

/// Starting a program with no shell in between (posix_spawnp(3)) and waiting for it.
package enum Spawn {
    /// Starts `program` (looked up in `PATH` when it has no slash) with `arguments` (argv[1...])
    /// and exactly `environment`, in a process group of its own so that everything it starts can
    /// be signalled together; standard input is /dev/null, output and errors are inherited, or go
    /// to the descriptors `output` names (its standard output and error).
    /// - Returns: the child's pid.
    package static func start(_ program: String, _ arguments: [String], environment: [String: String],
                              output: (stdout: Int32, stderr: Int32)? = nil) throws(PosixError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output.stdout, 1)
            posix_spawn_file_actions_adddup2(&actions, output.stderr, 2)
        }
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
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

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
