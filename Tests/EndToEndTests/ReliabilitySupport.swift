import Foundation
import Testing
import TodoPosix
import TodoProtocol
import TodoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `mount` (or any command) and fails the test when it does not succeed.
func run(_ program: String, _ arguments: [String]) throws {
    let result = try ChildProcess.run(program, arguments)
    guard result.status == 0 else { throw RawClientError.failed("\(program) \(arguments): \(result.stderr)") }
}
