/// Where the daemon listens and the client connects, resolved from flags and the
/// environment. Pure: the caller passes in what it read.
package enum SocketPaths {
    /// The system-wide socket, for `--system` and for root without `$XDG_RUNTIME_DIR`.
    package static let system = "/run/todod/todod.sock"

    /// The first that applies: `--socket PATH` · `--system` · `$TODOD_SOCKET` · root without
    /// `$XDG_RUNTIME_DIR`: the system socket · `$XDG_RUNTIME_DIR/todod/todod.sock`. A flag beats
    /// the variable, as the man pages say. A non-root user without `$XDG_RUNTIME_DIR` gets
    /// `/run/user/UID/todod/todod.sock`, where systemd puts it.
    package static func socket(flag: String?, system: Bool, environment: [String: String], uid: UInt32) -> String {
        if let flag, !flag.isEmpty { return flag }
        if system { return SocketPaths.system }
        if let env = environment["TODOD_SOCKET"], !env.isEmpty { return env }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        if uid == 0 && runtime == nil { return SocketPaths.system }
        return (runtime ?? "/run/user/\(uid)") + "/todod/todod.sock"
    }

    /// The database (daemon only): `--db PATH` · `$TODOD_DB` · `$STATE_DIRECTORY/todos.db` ·
    /// root: `/var/lib/todod/todos.db` · others: `${XDG_STATE_HOME:-~/.local/state}/todod/todos.db`.
    package static func database(flag: String?, environment: [String: String], uid: UInt32, home: String) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let env = environment["TODOD_DB"], !env.isEmpty { return env }
        if let state = environment["STATE_DIRECTORY"], !state.isEmpty {
            // systemd may pass several directories separated by colons; the first is ours.
            return String(state.split(separator: ":").first ?? Substring(state)) + "/todos.db"
        }
        if uid == 0 { return "/var/lib/todod/todos.db" }
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/state"
        return stateHome + "/todod/todos.db"
    }
}
