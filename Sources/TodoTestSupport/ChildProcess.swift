import Foundation
import Synchronization
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to completion and captures its output.
///
/// Started with `posix_spawn` (`Spawn` of TodoPosix), not Foundation's `Process`, whose `run`
/// was seen to crash ("Bad pointer dereference") while Swift Testing started children from
/// several tests at once. The pipes are close-on-exec, so a child another test starts meanwhile
/// cannot hold them open.
package struct ChildProcess {
    package struct Result: Sendable {
        /// The exit status, or 128 + the signal for a child killed by one.
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    /// Runs `executable` (a path, or a name looked up on PATH by `/usr/bin/env`, so a name that
    /// is not found gives env's status 127) with `arguments`, feeding `input` on standard input,
    /// and waits for it. The child gets `environment`, or this process's environment when nil.
    /// With `timeout` (seconds), a child still running then is killed with SIGKILL, with
    /// everything it started (it runs in a process group of its own): status 137.
    @discardableResult
    package static func run(
        _ executable: String, _ arguments: [String] = [], input: String? = nil,
        environment: [String: String]? = nil, timeout: Double? = nil
    ) throws -> Result {
        // Writing input to a child that exits without reading it must give EPIPE, not kill the tests.
        Posix.ignoreSIGPIPE()
        let program = executable.contains("/") ? executable : "/usr/bin/env"
        let argv = executable.contains("/") ? arguments : [executable] + arguments
        let stdin = try Spawn.pipe()
        let stdout = try Spawn.pipe()
        let stderr = try Spawn.pipe()
        let pid: pid_t
        do {
            pid = try Spawn.start(
                program, argv, environment: environment ?? Posix.environment(),
                streams: Spawn.StandardStreams(input: stdin.read, output: stdout.write, error: stderr.write))
        } catch {
            for fd in [stdin.read, stdin.write, stdout.read, stdout.write, stderr.read, stderr.write] {
                Posix.close(fd)
            }
            throw error
        }
        // The child has its copies; ours of its ends would keep the pipes open.
        Posix.close(stdin.read)
        Posix.close(stdout.write)
        Posix.close(stderr.write)

        // The child exits while it is not reaped yet, so the timeout cannot hit a reused pid.
        let exited = LockedBox(false)
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                exited.mutate { if !$0 { Spawn.killGroup(pid, SIGKILL) } }
            }
        }
        // Input, standard error and standard output all at once, so that no full pipe blocks the child.
        let group = DispatchGroup()
        let bytes = Array((input ?? "").utf8)
        DispatchQueue.global().async(group: group) {
            try? Posix.writeAll(stdin.write, bytes)
            Posix.close(stdin.write)
        }
        let errData = LockedBox<[UInt8]>([])
        DispatchQueue.global().async(group: group) {
            errData.value = (try? Posix.readToEnd(stderr.read)) ?? []
            Posix.close(stderr.read)
        }
        let outData = (try? Posix.readToEnd(stdout.read)) ?? []
        Posix.close(stdout.read)
        group.wait()
        Spawn.waitUntilExited(pid)
        exited.mutate { $0 = true }
        let status: Int32 =
            switch Spawn.reap(pid) {
            case .status(let code): code
            case .signal(let signal): 128 + signal
            }
        return Result(
            status: status, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData.value, as: UTF8.self))
    }

    /// Runs the `sqlite3` shell on a database file and returns its output, trimmed.
    package static func sqlite3(_ database: String, _ sql: String) throws -> String {
        let result = try run("sqlite3", [database], input: sql)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A value guarded by a lock, for handing results between threads in tests.
package final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = Mutex(())
    private var stored: Value

    package init(_ value: Value) { stored = value }

    package var value: Value {
        get { lock.withLock { _ in stored } }
        set { lock.withLock { _ in stored = newValue } }
    }

    /// Changes the value atomically (`box.value.append(x)` would read and write separately).
    package func mutate(_ body: (inout Value) -> Void) {
        lock.withLock { _ in body(&stored) }
    }
}
