import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock.
func now() -> Double { Posix.monotonicSeconds() }

/// `todod` started through `launcher` (e.g. `prlimit`) with standard error going to `stderr`.
func startTodod(
    _ dir: TemporaryDirectory, launcher: [String] = [], stderr: FileHandle,
    environment: [String: String] = [:]
) throws -> Process {
    let process = Process()
    let todod = BuiltProducts.path("todod")
    let command = launcher + [todod, "--socket", dir.file("todod.sock"), "--db", dir.file("todos.db")]
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    var env = ProcessInfo.processInfo.environment
    env["JOURNAL_STREAM"] = nil
    for (k, v) in environment { env[k] = v }
    process.environment = env
    process.standardError = stderr
    try process.run()
    if waitUntilListening(dir.file("todod.sock"), while: { process.isRunning }) { return process }
    guard process.isRunning else { throw DaemonProcessError.exited(process.waitForExit(), "") }
    throw DaemonProcessError.notListening("")
}

/// The number of descriptors `pid` has open.
func openDescriptors(_ pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
}

/// Request lines for `count` requests of `method` with `params`, ids from `firstID`.
func lines(_ count: Int, _ method: String, _ params: (Int) -> JSONObject, firstID: Int = 1) -> [UInt8] {
    var bytes: [UInt8] = []
    for i in 0..<count {
        RPCRequest(id: .int(Int64(firstID + i)), method: method, params: params(i)).json.write(to: &bytes)
        bytes.append(0x0A)
    }
    return bytes
}
