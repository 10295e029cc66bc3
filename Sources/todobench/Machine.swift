import Foundation
import TodoPosix

#if canImport(Glibc)
    import Glibc
#endif

/// What the figures were measured on, printed at the top of every run.
enum Machine {
    static func printInfo(quick: Bool) {
        print("todobench — \(quick ? "quick" : "full") run, \(buildConfiguration) build, \(Date())")
        print("  cpu:      \(cpuModel()) × \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) online")
        print("  memory:   \(formatMiB(memTotal()))")
        print("  kernel:   \(kernel())")
        print(
            "  load:     \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?") (1/5/15 min)"
        )
        if let swift = ProcessInfo.processInfo.environment["TODOBENCH_SWIFT_VERSION"], !swift.isEmpty {
            print("  swift:    \(swift)")
        }
        print("  tmp fs:   \(filesystem(of: "/tmp"))")
        print(
            "  journal:  \(UnixDatagram.hasReceiver(path: "/run/systemd/journal/socket") ? "journald socket present" : "none (todod writes reminders to stderr)")"
                + ", net.unix.max_dgram_qlen \(datagramQueueLength())")
        print("  products: \(Products.directory)")
        for name in ["todod", "todoctl"] {
            let path = Products.directory + "/" + name
            if access(path, X_OK) == 0 {
                print("            \(name): \(Products.linkage(path))")
            }
        }
    }

    /// How many datagrams a Unix socket such as journald's queues before a sender blocks: the
    /// kernel's default is 10, and systemd as PID 1 raises it to 512 at boot. P4's journal floor
    /// depends on it.
    static func datagramQueueLength() -> String {
        (try? String(contentsOfFile: "/proc/sys/net/unix/max_dgram_qlen", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "?" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
        }
        return "?"
    }

    static func memTotal() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemTotal:") {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }.map
            { $0 * 1024 }
        }
        return nil
    }

    static func kernel() -> String {
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        return "\(field(name.sysname)) \(field(name.release)) \(field(name.machine))"
    }

    /// The type and device of the file system holding `path` (longest mount-point prefix).
    static func filesystem(of path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return "?" }
        var best = ("", "?")
        for line in mounts.split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count >= 3 else { continue }
            let point = String(f[1])
            if (path == point || path.hasPrefix(point == "/" ? "/" : point + "/")) && point.count >= best.0.count {
                best = (point, "\(f[2]) on \(f[0]) (mounted at \(point))")
            }
        }
        return best.1
    }
}
