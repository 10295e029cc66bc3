// todod: the todo and reminder daemon. Reads its command line and runs.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TodoDaemon
import TodoProtocol

let environment = ProcessInfo.processInfo.environment
do {
    switch try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: environment,
                                   uid: getuid(), home: NSHomeDirectory()) {
    case .help:
        print(DaemonOptions.usage)
    case .version:
        print("todod \(TododVersion.string)")
    case .run(let options):
        Daemon(options: options, environment: environment).run()
    }
} catch {
    FileHandle.standardError.write(Data("todod: \(error.message); see 'todod --help'\n".utf8))
    exit(2)
}
