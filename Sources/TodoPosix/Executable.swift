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
    /// environment; returns only when that failed, with the error.
    package static func replace(with program: String, arguments: [String]) -> PosixError {
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, &argv)
        let error = PosixError("exec \(program)", errno: errno)
        for pointer in argv { free(pointer) }
        return error
    }
}
