import Foundation

/// The executables SwiftPM built next to the running test bundle (`.build/<config>/`).
package enum BuiltProducts {
    /// The build directory holding the test bundle and the executables.
    package static let directory: String = {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
    }()

    /// The path of a built executable such as `todod` or `todoctl`.
    package static func path(_ name: String) -> String { directory + "/" + name }
}
