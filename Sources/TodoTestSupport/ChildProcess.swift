import Foundation

/// Runs a program to completion and captures its output.
public struct ChildProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments`, feeding `input`
    /// on standard input, and waits for it.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String] = [], input: String? = nil,
        environment: [String: String]? = nil
    ) throws -> Result {
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inp
        try process.run()
        if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
        try? inp.fileHandleForWriting.close()
        // Read both pipes concurrently so a full stderr cannot block the child.
        let errData = LockedBox(Data())
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errData.value = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let status = process.waitForExit()
        return Result(status: status,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData.value, as: UTF8.self))
    }

    /// Runs the `sqlite3` shell on a database file and returns its output, trimmed.
    public static func sqlite3(_ database: String, _ sql: String) throws -> String {
        let result = try run("sqlite3", [database], input: sql)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A value guarded by a lock, for handing results between threads in tests.
public final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked: `stored` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value atomically (`box.value.append(x)` would read and write separately).
    public func mutate(_ body: (inout Value) -> Void) {
        lock.withLock { body(&stored) }
    }
}
