import Foundation

/// A fresh directory under /tmp, removed when the value is released.
///
/// Paths stay short on purpose: a Unix socket path must fit `sun_path` (108 bytes).
package final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: `path` is immutable after init.
    package let path: String

    package init(_ label: String = "t") {
        let name = "todod-\(label)-\(UInt32.random(in: 0...UInt32.max))"
        path = "/tmp/" + name
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    package func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
