import Dispatch
import Foundation
import TodoPosix
import TodoProtocol

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// The `todod` executable: reads the command line and the environment, then prints the help
    /// or the version, or runs the daemon. A usage error is one line on standard error, exit 2.
    package static func main() -> Never {
        main(name: "todod", afterStart: nil)
    }

    /// `main` for a test build of the daemon (`todod-faults`): `name` appears in its messages and
    /// `--version`, and `afterStart` and `changeLog` are handed to the daemon (see
    /// `init(options:environment:afterStart:changeLog:)`).
    @_spi(Testing) public static func main(
        name: String, afterStart: (@Sendable (_ storeQueue: DispatchQueue) -> Void)?,
        changeLog: Bool = true
    ) -> Never {
        let environment = ProcessInfo.processInfo.environment
        do {
            switch try DaemonOptions.parse(
                Array(CommandLine.arguments.dropFirst()), environment: environment,
                uid: getuid(), home: NSHomeDirectory())
            {
            case .help:
                print(DaemonOptions.usage)
            case .version:
                print("todod \(TododVersion.string)" + (name == "todod" ? "" : " (\(name))"))
            case .run(let options):
                Daemon(options: options, environment: environment, afterStart: afterStart, changeLog: changeLog).run()
            }
        } catch {
            _ = Posix.writeWithoutBlocking(2, Array("\(name): \(error.message); see 'todod --help'\n".utf8))
            exit(2)
        }
        exit(0)
    }
}
