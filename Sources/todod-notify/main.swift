// todod-notify: desktop notifications (and --print, --exec) for todod's reminders. Everything
// happens in TodoNotify's Notifier.main; this file only supplies the process's arguments and
// environment.
#if canImport(Glibc)
import Glibc
#endif
import TodoNotify

let environment: [String: String] = {
    var variables: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.firstIndex(of: "=") {
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        entry += 1
    }
    return variables
}()
exit(Notifier.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment))
